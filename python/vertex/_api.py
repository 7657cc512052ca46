"""The keyword-argument face of the compiled module: graphs in, programs run,
numpy arrays and report dicts out. Every function here is a thin wrapper; the
work (and the GIL-free engine run) is in ``vertex._vertex``."""

import json
import warnings
from typing import NamedTuple, Optional

import numpy as np

from . import _vertex

#: The value of an unreached vertex in ``bfs`` (uint32) results.
UNREACHED = np.iinfo(np.uint32).max

#: gapbs's default seed, the CLI's ``--seed`` default.
DEFAULT_SEED = 27491095


class Result(NamedTuple):
    """A program's per-vertex ``values`` (numpy) and the run's ``report``
    (where it ran and why, strategy, rounds, time: what ``vertex --json``
    prints)."""

    values: object
    report: dict


#: What ``gpus`` and ``exchange`` do, for the docstrings of the programs that
#: run on several GPUs.
_GPUS_DOC = """

    ``gpus=N`` (N ≥ 2) runs on GPUs ``0..N`` of this machine, the graph
    partitioned among them (the CLI's ``--gpus N``; ``backend="cpu"`` refuses
    it, ``"auto"`` takes the GPUs without falling back to the CPU, and
    ``gpus=0`` is a ``ValueError``). ``exchange="peer"`` (NVLink peer
    access, the default where available) or ``"nccl"`` picks how they
    exchange after each level or round; it needs ``gpus`` ≥ 2."""


def _gpus_doc(f):
    if f.__doc__:  # None under python -OO
        f.__doc__ += _GPUS_DOC
    return f


def _opts(backend, threads, kernel, schedule, **more):
    d = {
        "backend": backend,
        "threads": threads,
        "kernel": kernel,
        "schedule": schedule,
        "max_edge_count": None,
        "delta": None,
        "max_rounds": None,
        "tolerance": None,
        "gpus": None,
        "exchange": None,
        "alpha": None,
        "beta": None,
    }
    d.update({k: v for k, v in more.items() if v is not None})
    return d


def _result(pair):
    values, report = pair
    report = json.loads(report)
    # What the run's settings likely cost (several GPUs on a high-diameter
    # graph): a Python warning, as the command line prints one.
    if report.get("warning"):
        warnings.warn(report["warning"], RuntimeWarning, stacklevel=3)
    return Result(values, report)


# ---------------------------------------------------------------- graphs in


def load(spec, *, symmetrize=False, ignore_weights=False, weights=None, seed=DEFAULT_SEED):
    """A graph from a file or generator spec, read exactly as the ``vertex``
    CLI reads its GRAPH argument: ``"kron:16"``, ``"grid:100x100"``,
    ``"mesh:10000"``, ``"uniform:N:M"``, ``.mtx``, ``.gr``, ``.el``/``.wel``, ``.graph``, SNAP
    ``.txt``, ``.vgr`` (memory-mapped, no copy), any of them ``.gz``.

    ``weights=(lo, hi)`` replaces or adds uniform random integer weights
    (the CLI's ``--weights``)."""
    w = None if weights is None else (int(weights[0]), int(weights[1]), int(seed))
    return _vertex.load(str(spec), symmetrize, ignore_weights, w)


def _ids(a, name):
    a = np.asarray(a)
    if a.dtype == np.uint32 and a.flags.c_contiguous:
        return a
    if a.size and (not np.issubdtype(a.dtype, np.integer)):
        raise ValueError(f"{name}: vertex ids must be integers, got dtype {a.dtype}")
    if a.size and (a.min() < 0 or a.max() > UNREACHED - 1):
        raise ValueError(f"{name}: vertex ids must lie in 0..2**32-2")
    return np.ascontiguousarray(a, dtype=np.uint32)


def _weights(w, m):
    if w is None:
        return None
    w = np.asarray(w)
    if w.shape != (m,):
        raise ValueError(f"{w.shape[0] if w.ndim else 0} weights for {m} edges")
    if np.issubdtype(w.dtype, np.integer):
        if m and (w.min() < 0 or w.max() > UNREACHED):
            raise ValueError("integer weights must lie in 0..2**32-1 (use floats otherwise)")
        return np.ascontiguousarray(w, dtype=np.uint32)
    return np.ascontiguousarray(w, dtype=np.float64)


def from_edges(src, dst, num_vertices=None, *, weights=None, directed=True):
    """A graph from edge arrays: ``src[i] → dst[i]`` (0-based ids). Integer
    weights are kept as ``u32``, anything else as ``f64``.
    ``directed=False`` stores both directions and keeps one copy of repeated
    edges (the smallest weight)."""
    src, dst = _ids(src, "src"), _ids(dst, "dst")
    if num_vertices is None:
        num_vertices = int(max(src.max(initial=-1), dst.max(initial=-1)) + 1)
    return _vertex.from_edges(src, dst, int(num_vertices), _weights(weights, src.shape[0]), directed)


def from_scipy(a, *, directed=True, weighted=True):
    """A graph from a square scipy.sparse matrix or array (CSR, COO or any
    other format): entry ``(i, j)`` is the edge ``i → j``; every stored entry is
    an edge, a stored 0 included (the CLI's rule). ``directed=False``: the
    matrix must be symmetric and the graph is undirected."""
    import scipy.sparse as sp

    if a.shape[0] != a.shape[1]:
        raise ValueError(f"adjacency matrix must be square, got shape {a.shape}")
    csr = a.tocsr() if a.format != "csr" else a
    if not csr.has_sorted_indices:
        csr = csr.sorted_indices()
    if not directed and (abs(csr - csr.T) != 0).nnz:
        raise ValueError("directed=False needs a symmetric matrix, and this one is not")
    indptr = np.ascontiguousarray(csr.indptr, dtype=np.uint64)
    indices = np.ascontiguousarray(csr.indices, dtype=np.uint32)
    w = _weights(csr.data, indices.shape[0]) if weighted else None
    del sp
    return _vertex.from_csr(indptr, indices, w, not directed)


def from_networkx(G, *, weight="weight"):
    """A graph from a networkx graph: ``(graph, nodes)``, where ``nodes[i]`` is
    the label of vertex ``i`` (networkx's node order). Weights are the edge
    attribute ``weight`` (default 1; ``None``: unweighted); undirected graphs
    are stored with both directions."""
    g, nodes, _ = _vertex.from_networkx(G._adj, weight, G.is_directed(), G.is_multigraph())
    return g, nodes


# ---------------------------------------------------------------- programs


@_gpus_doc
def bfs(g, source=None, *, backend="auto", threads=None, kernel=None, schedule=None, max_edge_count=None,
        gpus=None, exchange=None, alpha=None, beta=None):
    """Hops from ``source`` (default: the first vertex with out-edges; the
    report names it). ``uint32``; ``UNREACHED`` where not reached.

    ``alpha``/``beta`` move where the GPU direction kernel turns bottom-up
    (frontier edges > unexplored edges / alpha, default 50) and back (frontier
    ≤ n / beta, default 18); the CPU refuses them."""
    o = _opts(backend, threads, kernel, schedule, max_edge_count=max_edge_count, gpus=gpus, exchange=exchange,
              alpha=alpha, beta=beta)
    return _result(_vertex.bfs(g, source, o))


@_gpus_doc
def sssp(g, source=None, *, backend="auto", threads=None, kernel=None, schedule=None, delta=None, max_edge_count=None,
         gpus=None, exchange=None):
    """Shortest distances from ``source``: ``uint64`` for integer weights
    (``2**64-1`` = unreached), ``float64`` for float weights (``inf``). A
    negative cycle raises :class:`NegativeCycleError`."""
    o = _opts(backend, threads, kernel, schedule, delta=delta, max_edge_count=max_edge_count,
              gpus=gpus, exchange=exchange)
    return _result(_vertex.sssp(g, source, o))


@_gpus_doc
def widest(g, source=None, *, backend="auto", threads=None, kernel=None, schedule=None, gpus=None, exchange=None):
    """Widest-path (bottleneck) widths from ``source``; 0 = unreached."""
    o = _opts(backend, threads, kernel, schedule, gpus=gpus, exchange=exchange)
    return _result(_vertex.widest(g, source, o))


@_gpus_doc
def cc(g, *, algorithm="afforest", backend="auto", threads=None, kernel=None, schedule=None, gpus=None,
       exchange=None):
    """Connected components (weak ones on a directed graph): each vertex's
    label is the smallest vertex id of its component. ``algorithm``:
    ``"afforest"`` (CPU, the CLI's default) or ``"label"`` (the
    label-propagation program, CPU or GPU; the one of the two that takes
    ``gpus``)."""
    o = _opts(backend, threads, kernel, schedule, gpus=gpus, exchange=exchange)
    return _result(_vertex.cc(g, algorithm, o))


@_gpus_doc
def pagerank(g, *, backend="auto", threads=None, max_rounds=None, tolerance=None, gpus=None, exchange=None):
    """PageRank as gapbs (and ``vertex pr``) define it: damping 0.85, no
    redistribution of dangling rank, stop at L1 change < 1e-4 or 20 rounds;
    self-loops and repeated edges dropped. For networkx's PageRank use
    ``nx.pagerank(G, backend="vertex")``."""
    o = _opts(backend, threads, None, None, max_rounds=max_rounds, tolerance=tolerance, gpus=gpus,
              exchange=exchange)
    return _result(_vertex.pagerank(g, o))


@_gpus_doc
def kcore(g, *, backend="auto", threads=None, gpus=None, exchange=None):
    """Core numbers of the simple undirected graph."""
    return _result(_vertex.kcore(g, _opts(backend, threads, None, None, gpus=gpus, exchange=exchange)))


def tc(g, *, backend="auto", threads=None):
    """Triangle count of the simple undirected graph (an int; the report
    says where it ran)."""
    return _result(_vertex.tc(g, _opts(backend, threads, None, None)))


def lcc(g, *, backend="auto", threads=None):
    """Local clustering coefficient of every vertex (simple undirected graph)."""
    return _result(_vertex.lcc(g, _opts(backend, threads, None, None)))


def bc(g, sources=None, *, k=4, seed=DEFAULT_SEED, threads=None, backend="cpu"):
    """Betweenness centrality as gapbs (and ``vertex bc``) define it: Brandes
    from ``sources`` (default: ``k`` random vertices with out-edges), scores
    normalized by the largest. ``backend="gpu"``: the batched GPU kernels (64
    sources per edge sweep)."""
    if sources is None:
        sources = _vertex.pick_sources(g, int(k), int(seed))
        if not sources:
            raise ValueError("no vertex has an out-edge, so there is no source to pick")
    return Result(_vertex.bc(g, [int(s) for s in sources], _opts(backend, threads, None, None)),
                  {"program": "bc", "backend": "gpu" if backend == "gpu" else "cpu",
                   "sources": list(map(int, sources))})


def closeness(g, sources="all", *, harmonic=False, seed=DEFAULT_SEED, threads=None):
    """Closeness (``harmonic=True``: harmonic) centrality as networkx defines
    it (distances *to* each vertex, Wasserman–Faust scaling), of ``sources``:
    ``"all"``, a count of random vertices, or a list. ``values`` are in the
    order of ``report["vertices"]``."""
    n = g.num_vertices_
    if isinstance(sources, str):
        if sources != "all":
            raise ValueError(f"sources {sources!r}: expected 'all', a count or a list")
        vs = list(range(n))
    elif isinstance(sources, (int, np.integer)):
        vs = _vertex.pick_sources(g, int(sources), int(seed))
    else:
        vs = [int(s) for s in sources]
    scores = _vertex.closeness(g, vs, harmonic, threads)
    return Result(scores, {"program": "harmonic" if harmonic else "closeness", "backend": "cpu", "vertices": vs})


def apsp(g, *, matrix=False, backend="auto", algorithm="auto"):
    """All-pairs shortest paths, as ``vertex apsp``: the report holds the
    summary (``checksum``, ``unreachable``, ``diameter``), the algorithm and
    backend that ran; with ``matrix=True`` (blocked Floyd–Warshall) ``values``
    is the ``n × n`` float64 distance matrix (``inf``: no path). ``algorithm``:
    ``"fw"``, ``"johnson"``, ``"batched"`` (every vertex a source, 64 per edge
    sweep, on the CPU or the GPU) or ``"auto"``."""
    summary, m = _vertex.apsp(g, backend, algorithm, matrix)
    n = g.num_vertices_
    return Result(None if m is None else m.reshape(n, n), json.loads(summary))


def path(g, source, target, *, backend="auto", algorithm="auto"):
    """One shortest path ``source → target`` as ``vertex path``: ``(vertices,
    length)``, or ``None`` when ``target`` is unreachable."""
    return _vertex.path(g, int(source), int(target), backend, algorithm)
