"""The networkx backend: dispatch by name, automatic dispatch, fallbacks."""

import numpy as np
import pytest

nx = pytest.importorskip("networkx")


def graphs():
    G = nx.gnm_random_graph(300, 1200, seed=7)
    D = nx.gnm_random_graph(300, 1200, seed=8, directed=True)
    for u, v in G.edges:
        G[u][v]["weight"] = (u * v) % 7 + 1
    L = nx.relabel_nodes(G, {v: f"n{v}" for v in G})  # any hashable labels
    return [G, D, L]


@pytest.mark.parametrize("G", graphs())
def test_pagerank(G):
    # networkx stops at an L1 change below n * tol: its own answer is within
    # ~1e-5 of the fixed point here; ours is 100 times closer.
    want = nx.pagerank(G, tol=1e-13, max_iter=1000)
    got = nx.pagerank(G, backend="vertex")
    assert list(got) == list(want)
    assert max(abs(got[v] - want[v]) for v in G) < 1e-7
    loose = nx.pagerank(G)
    assert sum(abs(got[v] - loose[v]) for v in G) < len(G) * 1e-6


def test_pagerank_personalization_falls_back():
    G = nx.path_graph(5)
    p = {0: 1, 1: 0, 2: 0, 3: 0, 4: 0}
    from vertex import nx_backend
    why = nx_backend.can_run("pagerank", (G,), {"personalization": p})
    assert isinstance(why, str) and "personalization" in why


@pytest.mark.parametrize("G", graphs())
def test_betweenness_and_closeness(G):
    for kw in ({}, {"normalized": False}, {"endpoints": True}, {"k": 20, "seed": 3}):
        want = nx.betweenness_centrality(G, **kw)
        got = nx.betweenness_centrality(G, backend="vertex", **kw)
        assert max(abs(got[v] - want[v]) for v in G) < 1e-9, kw
    want = nx.closeness_centrality(G)
    got = nx.closeness_centrality(G, backend="vertex")
    assert max(abs(got[v] - want[v]) for v in G) < 1e-12


@pytest.mark.parametrize("G", graphs())
def test_paths(G):
    s = next(iter(G))
    assert nx.single_source_shortest_path_length(G, s, backend="vertex") == nx.single_source_shortest_path_length(G, s)
    assert nx.single_source_dijkstra_path_length(G, s, backend="vertex") == nx.single_source_dijkstra_path_length(G, s)
    assert list(nx.bfs_edges(G, s, backend="vertex")) == list(nx.bfs_edges(G, s))
    assert dict(nx.all_pairs_shortest_path_length(G, backend="vertex")) == dict(nx.all_pairs_shortest_path_length(G))
    assert np.array_equal(nx.floyd_warshall_numpy(G, backend="vertex"), nx.floyd_warshall_numpy(G))


def test_components_cores_triangles():
    G = nx.union(nx.karate_club_graph(), nx.path_graph(range(100, 110)))
    assert nx.number_connected_components(G, backend="vertex") == 2
    got = sorted(map(sorted, nx.connected_components(G, backend="vertex")))
    assert got == sorted(map(sorted, nx.connected_components(G)))
    assert nx.core_number(G, backend="vertex") == nx.core_number(G)
    assert nx.triangles(G, backend="vertex") == nx.triangles(G)
    assert nx.triangles(G, 0, backend="vertex") == nx.triangles(G, 0)
    c = nx.clustering(G, backend="vertex")
    assert max(abs(c[v] - x) for v, x in nx.clustering(G).items()) < 1e-12
    D = nx.DiGraph([(0, 1), (1, 2), (3, 4)])
    assert sorted(map(sorted, nx.weakly_connected_components(D, backend="vertex"))) == [[0, 1, 2], [3, 4]]
    assert nx.core_number(D, backend="vertex") == nx.core_number(D)


def test_automatic_dispatch():
    G = nx.gnm_random_graph(200, 800, seed=1)
    with nx.config.backend_priority(algos=["vertex"]):
        got = nx.pagerank(G)
    want = nx.pagerank(G, backend="networkx", tol=1e-13, max_iter=1000)
    assert max(abs(got[v] - want[v]) for v in G) < 1e-7


def test_conversion_cache_follows_mutation():
    G = nx.path_graph(4)
    assert nx.number_connected_components(G, backend="vertex") == 1
    G.remove_edge(1, 2)
    assert nx.number_connected_components(G, backend="vertex") == 2
