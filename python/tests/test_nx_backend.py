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
    # networkx's own iteration, round for round: its answer to rounding, for
    # every option it takes (the teleport vector also receives the dangling
    # rank unless `dangling` is given, as in networkx).
    nodes = list(G)
    cases = [{}, {"alpha": 0.9}, {"tol": 1e-10}, {"weight": None},
             {"personalization": {nodes[1]: 1, nodes[5]: 3}},
             {"nstart": {v: 1 for v in nodes[:50]}},
             {"dangling": {nodes[3]: 1, nodes[4]: 2}},
             {"personalization": {nodes[2]: 1}, "dangling": {nodes[7]: 1}}]
    for kw in cases:
        want = nx.pagerank(G, **kw)
        got = nx.pagerank(G, backend="vertex", **kw)
        assert list(got) == list(want), kw
        assert max(abs(got[v] - want[v]) for v in G) < 1e-12, kw


def test_pagerank_unconverged_and_degenerate_inputs():
    G = nx.gnm_random_graph(100, 300, seed=2, directed=True)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, backend="vertex", max_iter=3)
    from vertex import nx_backend
    # A personalization that sums to 0: networkx raises, so it runs networkx.
    why = nx_backend.can_run("pagerank", (G,), {"personalization": {0: 0}})
    assert isinstance(why, str) and "personalization" in why


def test_weight_none_on_a_weighted_graph():
    # networkx's cache hands a weighted conversion to a call that asked for
    # no weights: weight=None must still mean "every edge weighs 1".
    G = nx.gnm_random_graph(80, 300, seed=4, directed=True)
    for u, v in G.edges:
        G[u][v]["weight"] = (u + 2 * v) % 5 + 1
    for weight in ("weight", None, "weight"):
        want = nx.pagerank(G, weight=weight)
        got = nx.pagerank(G, backend="vertex", weight=weight)
        assert max(abs(got[v] - want[v]) for v in G) < 1e-12, weight
        assert (nx.single_source_dijkstra_path_length(G, 0, weight=weight, backend="vertex")
                == nx.single_source_dijkstra_path_length(G, 0, weight=weight))
        assert np.array_equal(nx.floyd_warshall_numpy(G, weight=weight, backend="vertex"),
                              nx.floyd_warshall_numpy(G, weight=weight))


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
    want = nx.pagerank(G, backend="networkx")
    assert max(abs(got[v] - want[v]) for v in G) < 1e-12


def test_conversion_cache_follows_mutation():
    G = nx.path_graph(4)
    assert nx.number_connected_components(G, backend="vertex") == 1
    G.remove_edge(1, 2)
    assert nx.number_connected_components(G, backend="vertex") == 2


def test_node_maps_behave_as_networkx_dicts():
    import pickle

    from vertex.nodemap import NodeMap

    for G in (nx.path_graph(6), nx.relabel_nodes(nx.path_graph(6), {v: f"n{v}" for v in range(6)})):
        G.add_node("alone" if "n0" in G else 99)
        src = next(iter(G))
        want = nx.single_source_shortest_path_length(G, src, cutoff=3)
        got = nx.single_source_shortest_path_length(G, src, cutoff=3, backend="vertex")
        assert isinstance(got, NodeMap)
        assert got == want and want == got and not (got != want)
        assert list(got) == list(want) and list(got.items()) == list(want.items())
        assert list(got.values()) == list(want.values()) and len(got) == len(want)
        assert src in got and "missing" not in got and [] not in got
        with pytest.raises(KeyError):
            got[list(G)[5]]  # beyond the cutoff
        with pytest.raises(KeyError):
            got["missing"]
        assert got.get("missing", -1) == -1
        assert pickle.loads(pickle.dumps(got)) == want
        assert type(pickle.loads(pickle.dumps(got))) is dict
        assert repr(got) == repr(want)
        got[src] = 7  # the first write turns it into a dict inside
        del got[list(G)[1]]
        want[src] = 7
        del want[list(G)[1]]
        assert got == want and list(got) == list(want)
    G = nx.path_graph(5)
    pr = nx.pagerank(G, backend="vertex")
    assert pr[1.0] == pr[1] and 4 in pr and 5 not in pr and -1 not in pr  # networkx's key equality
    nx.config.backends.vertex.lazy_results = False
    try:
        assert type(nx.pagerank(G, backend="vertex")) is dict
    finally:
        nx.config.backends.vertex.lazy_results = True
