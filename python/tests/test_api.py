"""The package's own API against networkx / numpy oracles on small graphs."""

import numpy as np
import pytest

import vertex

nx = pytest.importorskip("networkx")
sp = pytest.importorskip("scipy.sparse")


def path_graph(n=5):
    src = np.arange(n - 1)
    return vertex.from_edges(src, src + 1, n, directed=False)


def test_bfs_from_edges():
    r = vertex.bfs(path_graph(), 0, backend="cpu")
    assert r.values.tolist() == [0, 1, 2, 3, 4]
    assert r.report["backend"] == "cpu"
    assert r.report["program"] == "bfs"


def test_bfs_unreached_and_schedules():
    g = vertex.from_edges([0, 1], [1, 2], 4)
    for schedule in ("sync", "async", "auto"):
        v = vertex.bfs(g, 0, backend="cpu", schedule=schedule).values
        assert v.tolist() == [0, 1, 2, vertex.UNREACHED]


def test_sssp_int_and_float():
    g = vertex.from_edges([0, 1, 0], [1, 2, 2], 3, weights=[1, 2, 5])
    assert vertex.sssp(g, 0, backend="cpu").values.tolist() == [0, 1, 3]
    g = vertex.from_edges([0, 1, 0], [1, 2, 2], 3, weights=[0.5, 0.25, 1.0])
    assert vertex.sssp(g, 0, backend="cpu").values.tolist() == [0, 0.5, 0.75]


def test_negative_cycle_is_an_exception():
    g = vertex.from_edges([0, 1], [1, 0], 2, weights=[1.0, -2.0])
    with pytest.raises(vertex.NegativeCycleError, match="negative cycle"):
        vertex.sssp(g, 0, backend="cpu")


def test_bad_source_and_option_messages():
    with pytest.raises(ValueError, match="source"):
        vertex.bfs(path_graph(), 99, backend="cpu")
    with pytest.raises(ValueError, match="backend"):
        vertex.bfs(path_graph(), 0, backend="tpu")
    with pytest.raises(ValueError, match="schedule"):
        vertex.bfs(path_graph(), 0, backend="cpu", schedule="fast")


def test_gpu_missing_is_a_clear_error():
    if vertex.GPU_KERNELS:
        pytest.skip("kernels built; a GPU may be present")
    with pytest.raises(vertex.GpuUnavailableError):
        vertex.bfs(path_graph(), 0, backend="gpu")


def test_load_generator_and_file(tmp_path):
    g = vertex.load("grid:10x10")
    assert g.num_vertices_ == 100
    f = tmp_path / "g.el"
    f.write_text("0 1\n1 2\n")
    g = vertex.load(str(f))
    assert vertex.bfs(g, 0, backend="cpu").values.tolist() == [0, 1, 2]
    with pytest.raises(FileNotFoundError):
        vertex.load(str(tmp_path / "missing.el"))
    with pytest.raises(ValueError):
        vertex.load("kron:abc")


def test_scipy_csr_and_coo():
    a = sp.random(200, 200, density=0.05, format="csr", random_state=1)
    g = vertex.from_scipy(a)
    G = nx.from_scipy_sparse_array(a, create_using=nx.DiGraph)
    want = nx.single_source_shortest_path_length(G, 0)
    got = vertex.bfs(g, 0, backend="cpu").values
    assert {v: int(d) for v, d in enumerate(got) if d != vertex.UNREACHED} == want
    g2 = vertex.from_scipy(a.tocoo())
    assert g2.num_edges == g.num_edges


def test_programs_match_networkx():
    G = nx.karate_club_graph()
    g, nodes = vertex.from_networkx(G, weight=None)
    assert nodes == list(G)
    cores = vertex.kcore(g, backend="cpu").values
    assert dict(zip(nodes, cores.tolist())) == nx.core_number(G)
    assert vertex.tc(g, backend="cpu").values == sum(nx.triangles(G).values()) // 3
    lcc = vertex.lcc(g, backend="cpu").values
    assert np.allclose(lcc, [nx.clustering(G)[v] for v in nodes])
    labels = vertex.cc(g).values
    assert len(set(labels.tolist())) == 1
    assert len(set(vertex.cc(g, algorithm="label", backend="cpu").values.tolist())) == 1
    close = vertex.closeness(g).values
    assert np.allclose(close, [nx.closeness_centrality(G)[v] for v in nodes])
    pr = vertex.pagerank(g, backend="cpu").values
    assert abs(pr.sum() - 1) < 0.05


def test_bc_top_vertex():
    G = nx.karate_club_graph()
    g, _ = vertex.from_networkx(G, weight=None)
    scores = vertex.bc(g, sources=list(range(34))).values
    want = nx.betweenness_centrality(G, normalized=False)
    assert int(np.argmax(scores)) == max(want, key=want.get)
    assert scores.max() == 1.0
    # The batched GPU kernels give the same scores, or a clear error without a GPU.
    try:
        gpu = vertex.bc(g, sources=list(range(34)), backend="gpu").values
    except vertex.GpuUnavailableError:
        return
    assert np.allclose(gpu, scores, rtol=1e-9)


def test_apsp_matrix_and_path():
    G = nx.grid_2d_graph(4, 4)
    g, nodes = vertex.from_networkx(G, weight=None)
    r = vertex.apsp(g, matrix=True, backend="cpu")
    want = nx.floyd_warshall_numpy(G, nodelist=nodes)
    assert np.array_equal(r.values, want)
    assert r.report["summary"]["diameter"] == 6
    p, length = vertex.path(g, 0, 15, backend="cpu")
    assert p[0] == 0 and p[-1] == 15 and length == 6


def test_apsp_batched_summary_equals_floyd_warshall():
    # Every vertex a source, 64 per edge sweep: BFS when unweighted, the
    # min-plus program's batched rounds when weighted.
    G = nx.grid_2d_graph(7, 9)
    g, _ = vertex.from_networkx(G, weight=None)
    fw = vertex.apsp(g, backend="cpu", algorithm="fw").report["summary"]
    b = vertex.apsp(g, backend="cpu", algorithm="batched").report
    assert b["algorithm"] == "batched" and b["summary"] == fw
    w = vertex.from_edges([0, 1, 2, 0], [1, 2, 3, 3], 5, weights=[2, 3, 4, 10])
    fw = vertex.apsp(w, backend="cpu", algorithm="fw").report["summary"]
    assert vertex.apsp(w, backend="cpu", algorithm="batched").report["summary"] == fw


def test_widest_and_float_widest_refused():
    g = vertex.from_edges([0, 1, 0], [1, 2, 2], 3, weights=[5, 3, 2])
    assert vertex.widest(g, 0, backend="cpu").values.tolist()[1:] == [5, 3]
    g = vertex.from_edges([0], [1], 2, weights=[0.5])
    with pytest.raises(ValueError, match="u32"):
        vertex.widest(g, 0, backend="cpu")


def test_several_gpus_options_are_checked():
    g = path_graph()
    with pytest.raises(ValueError, match="gpus 2.*backend"):
        vertex.bfs(g, 0, backend="cpu", gpus=2)
    with pytest.raises(ValueError, match="exchange `foo`.*peer.*nccl"):
        vertex.bfs(g, 0, backend="gpu", gpus=2, exchange="foo")
    with pytest.raises(ValueError, match="exchange nccl.*gpus"):
        vertex.pagerank(g, backend="gpu", exchange="nccl")
    with pytest.raises(ValueError, match="gpus 0"):
        vertex.sssp(g, 0, gpus=0)
    with pytest.raises(ValueError, match="afforest"):
        vertex.cc(g, gpus=2)
    # tc takes no gpus= in Python; the compiled call refuses it all the same.
    with pytest.raises(ValueError, match="gpus 2.*intersection"):
        vertex._vertex.tc(g, {"backend": "gpu", "gpus": 2})
    # The direction kernel's switch points: GPU settings, at least 1.
    with pytest.raises(ValueError, match="heuristic: GPU settings"):
        vertex.bfs(g, 0, backend="cpu", alpha=100)
    with pytest.raises(ValueError, match="at least 1"):
        vertex.bfs(g, 0, beta=0)
    # One GPU is what gpus=1 asks for: the CPU run it allows is unchanged.
    assert vertex.bfs(g, 0, backend="cpu", gpus=1).values.tolist() == [0, 1, 2, 3, 4]


def test_several_gpus_missing_is_a_clear_error():
    if vertex.GPU_KERNELS:
        pytest.skip("kernels built; GPUs may be present")
    for backend in ("gpu", "auto"):
        with pytest.raises(vertex.GpuUnavailableError):
            vertex.bfs(path_graph(), 0, backend=backend, gpus=2)
        with pytest.raises(vertex.GpuUnavailableError):
            vertex.pagerank(path_graph(), backend=backend, gpus=2)


def test_release_gpus_can_be_called_any_time():
    vertex.release_gpus()
    assert vertex.bfs(path_graph(), 0, backend="cpu").values.tolist() == [0, 1, 2, 3, 4]
    vertex.release_gpus()


def test_a_reports_warning_is_a_python_warning():
    # What a run on several GPUs of a grid reports (a GPU machine's run says so
    # itself); here the report as the compiled call returns it.
    from vertex import _api

    with pytest.warns(RuntimeWarning, match="one GPU"):
        r = _api._result((np.zeros(2), '{"warning": "gpus 2: one GPU is likely much faster"}'))
    assert r.report["warning"].startswith("gpus 2")
