"""The networkx backend ``vertex``.

Use it per call, ``nx.pagerank(G, backend="vertex")``, or for every call it
implements with ``nx.config.backend_priority = ["vertex"]`` (or the
environment variable ``NETWORKX_BACKEND_PRIORITY=vertex``).

networkx converts a graph once per call (``convert_from_nx``, cached on the
graph until it changes); each function below computes networkx's own answer
(its PageRank with dangling redistribution, its normalizations, its node
labels and orders) with vertex's engines. Where an argument asks for
something the engines do not compute (personalization, weighted
betweenness, ...), :func:`can_run` says no and why, and networkx runs its own
code: never a different answer.

Options: ``nx.config.backends.vertex.backend`` (``"cpu"``, the default;
``"gpu"`` or ``"auto"`` for the programs that have GPU kernels),
``.threads``, ``.gpus`` and ``.exchange`` (several GPUs for the BFS, shortest
path and core-number calls, as ``vertex.bfs(..., gpus=2)``; with
``backend="gpu"`` or ``"auto"``), and ``.lazy_results`` (``True``, the default: per-node results
are :class:`~vertex.nodemap.NodeMap` mappings over the engines' arrays, as
graphblas-algorithms returns them; ``False``: plain dicts, as networkx).
"""

import inspect
import math

import networkx as nx
import numpy as np

from . import _vertex
from ._api import UNREACHED
from .nodemap import NodeMap

_U64_MAX = np.iinfo(np.uint64).max


class VertexGraph:
    """A networkx graph as vertex holds it: the CSR (``graph``), the node
    labels in networkx's order (``nodes[i]`` is vertex ``i``), and the
    networkx graph it came from (``G``)."""

    __networkx_backend__ = "vertex"

    def __init__(self, G, graph, nodes, facts, weight):
        self.G = G
        self.graph = graph
        self.nodes = nodes
        self.facts = facts
        self.weight = weight
        self._index = None
        self._labels = None

    def is_directed(self):
        return self.G.is_directed()

    def is_multigraph(self):
        return self.G.is_multigraph()

    def __len__(self):
        return len(self.nodes)

    def labels(self, ids):
        """The node labels of vertex ids ``ids`` (a numpy array), as a list:
        the ids themselves when the nodes are 0..n-1, else a take from an
        object array of the labels (C loops, not a Python call per node)."""
        if self.facts.get("identity"):
            return ids.tolist()
        if self._labels is None:
            self._labels = np.fromiter(self.nodes, dtype=object, count=len(self.nodes))
        return self._labels[ids].tolist()

    def vertex_id(self, label):
        """The vertex id of node ``label`` (``KeyError`` if not a node)."""
        if type(label) is int and self.facts.get("identity") and 0 <= label < len(self.nodes):
            return label
        return self.index[label]

    @property
    def index(self):
        """label → vertex id."""
        if self._index is None:
            self._index = {n: i for i, n in enumerate(self.nodes)}
        return self._index


def _config(name, default):
    try:
        return getattr(nx.config.backends.vertex, name)
    except AttributeError:
        return default


def _opts():
    return {
        "backend": _config("backend", "cpu"),
        "threads": _config("threads", None),
        "gpus": _config("gpus", None),
        "exchange": _config("exchange", None),
    }


def _node_values(G, values, present=None, order=None):
    """A per-node result: a :class:`~vertex.nodemap.NodeMap` over ``values``
    (the vertices in ``present``, iterated in ``order()``), or the dict
    networkx builds when ``lazy_results`` is off."""
    m = NodeMap(G, values, present, order)
    return m if _config("lazy_results", True) else m.to_dict()


# The graph `can_run` converted for the call being dispatched, which
# `convert_from_nx` then takes instead of converting again. One slot, taken
# once: a later call never sees a stale graph (caching across calls is
# networkx's own, `nx.config.cache_converted_graphs`, with its rules).
_pending = {}


def _convert_fresh(G, weight):
    graph, nodes, facts = _vertex.from_networkx(G._adj, weight, G.is_directed(), G.is_multigraph())
    return VertexGraph(G, graph, nodes, facts, weight)


def _nx_cached(G, weight):
    """The graph networkx's own cache holds for this backend and weight, if
    any (what networkx will pass us)."""
    cache = getattr(G, "__networkx_cache__", None) or {}
    for vg in cache.get("backends", {}).get("vertex", {}).values():
        if isinstance(vg, VertexGraph) and vg.weight == weight:
            return vg
    return None


def _facts(G, weight):
    """The conversion facts (self-loops, negative weights) `can_run` needs."""
    if isinstance(G, VertexGraph) and G.weight == weight:
        return G.facts
    G = _nxg(G)
    vg = _nx_cached(G, weight)
    if vg is None:
        vg = _convert_fresh(G, weight)
        _pending.clear()
        _pending[(id(G), weight)] = vg
    return vg.facts


def convert(G, weight):
    """``G`` as a :class:`VertexGraph` with weights ``weight`` (an edge
    attribute name, or ``None``: weights not needed)."""
    if isinstance(G, VertexGraph):
        # Programs that ignore weights run on any conversion of the graph.
        if G.weight == weight or weight is None:
            return G
        G = G.G
    vg = _pending.pop((id(G), weight), None)
    if vg is not None and vg.G is G:
        return vg
    return _convert_fresh(G, weight)


def _convert_exact(G, weight):
    """``G`` with exactly the weights ``weight`` names (``None``: every edge
    weighs 1, as networkx reads ``weight=None``), converting again if
    networkx handed us a conversion with other weights (its cache serves a
    weighted conversion to a call that asked for none)."""
    if isinstance(G, VertexGraph) and G.weight != weight:
        return _convert_fresh(G.G, weight)
    return convert(G, weight)


def _nxg(G):
    return G.G if isinstance(G, VertexGraph) else G


# ------------------------------------------------------------ traversals


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    G = convert(G, None)
    p, c = _vertex.bfs_order(G.graph, G.vertex_id(source), depth_limit)
    return zip(G.labels(p), G.labels(c))


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, reverse=reverse, depth_limit=depth_limit))
    return T


def _lengths(G, values, unreached, cutoff):
    """``{label: value}`` of the reached vertices within ``cutoff``, nearest
    first (networkx's order)."""
    present = values != unreached
    if cutoff is not None:
        present &= values <= cutoff

    def order():
        reached = np.flatnonzero(present)
        key = values[reached]
        # Hop counts below 2^16 sort as 16-bit keys: numpy's stable sort is
        # then a radix sort (3x faster on kron:16 than on 32-bit levels).
        if key.dtype.kind == "u" and key.size and key.max() < 1 << 16:
            key = key.astype(np.uint16)
        return reached[np.argsort(key, kind="stable")]

    return _node_values(G, values, present, order)


def single_source_shortest_path_length(G, source, cutoff=None):
    G = convert(G, None)
    levels, _ = _vertex.bfs(G.graph, G.vertex_id(source), _opts())
    return _lengths(G, levels, UNREACHED, cutoff)


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    G = _convert_exact(G, weight)
    s = G.vertex_id(source)
    if G.graph.weight_type is None:  # no attribute name: every edge weighs 1
        levels, _ = _vertex.bfs(G.graph, s, _opts())
        return _lengths(G, levels, UNREACHED, cutoff)
    dist, _ = _vertex.sssp(G.graph, s, _opts())
    unreached = np.inf if dist.dtype == np.float64 else _U64_MAX
    return _lengths(G, dist, unreached, cutoff)


def all_pairs_shortest_path_length(G, cutoff=None):
    G = convert(G, None)
    n = len(G)
    opts = _opts()
    for first in range(0, n, 64):
        batch = list(range(first, min(n, first + 64)))
        rows = _vertex.bfs_many(G.graph, batch, opts).reshape(len(batch), n)
        for s, row in zip(batch, rows):
            yield G.nodes[s], _lengths(G, row, UNREACHED, cutoff)


def floyd_warshall_numpy(G, nodelist=None, weight="weight"):
    G = _convert_exact(G, weight)
    _, m = _vertex.apsp(G.graph, _opts()["backend"], "fw", True)
    n = len(G)
    m = m.reshape(n, n)
    if nodelist is not None:
        perm = [G.index[v] for v in nodelist]
        m = m[np.ix_(perm, perm)]
    return m


# ------------------------------------------------------------ components


def _components(G):
    labels, _ = _vertex.cc(G.graph, "afforest", {"threads": _opts()["threads"]})
    # A label is its component's smallest vertex id, i.e. its first node in
    # networkx's order: sorting by label yields components as networkx does.
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    labels = G.labels(order)
    starts = [0, *cuts.tolist(), len(labels)]
    for a, b in zip(starts, starts[1:]):
        if b > a:
            yield set(labels[a:b])


def connected_components(G):
    return _components(convert(G, None))


def weakly_connected_components(G):
    return _components(convert(G, None))


def number_connected_components(G):
    G = convert(G, None)
    labels, _ = _vertex.cc(G.graph, "afforest", {"threads": _opts()["threads"]})
    return int(np.count_nonzero(labels == np.arange(labels.shape[0], dtype=labels.dtype)))


# ------------------------------------------------------------ link analysis


def _node_vector(G, values):
    """A networkx ``{node: value}`` dict as a numpy vector in vertex order
    (missing nodes 0), normalized to sum 1 as networkx does; ``None`` if its
    sum is 0 (networkx then raises or returns NaN: it runs its own code)."""
    x = np.fromiter((values.get(v, 0) for v in G.nodes), dtype=float, count=len(G.nodes))
    total = x.sum()
    return x / total if total != 0 else None


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight", dangling=None):
    G = convert(G, weight)
    if len(G) == 0:
        return {}
    # networkx's own iteration, round for round (`_vertex.pagerank_networkx`):
    # its answer to rounding, in its rounds, and its error past max_iter.
    p = None if personalization is None else _node_vector(G, personalization)
    x0 = None if nstart is None else _node_vector(G, nstart)
    d = p if dangling is None else _node_vector(G, dangling)
    ranks, _, converged = _vertex.pagerank_networkx(
        G.graph, alpha, tol, max_iter, weight is not None, p, x0, d, _opts()["threads"])
    if not converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return _node_values(G, ranks)


# ------------------------------------------------------------ cores, triangles


def core_number(G):
    G = convert(G, None)
    cores, _ = _vertex.kcore(G.graph, _opts(), G.is_directed())
    return _node_values(G, cores)


def _per_node(G, values, nodes):
    if nodes is not None and nodes in G.G:
        return values[G.vertex_id(nodes)]
    if nodes is None:
        return dict(zip(G.nodes, values))
    return {v: values[G.index[v]] for v in G.G.nbunch_iter(nodes)}


def triangles(G, nodes=None):
    G = convert(G, None)
    t, _ = _vertex.triangles_per_vertex(G.graph, _opts())
    if nodes is None:
        return _node_values(G, t)
    return _per_node(G, t.tolist(), nodes)


def clustering(G, nodes=None, weight=None):
    G = convert(G, None)
    c, _ = _vertex.lcc(G.graph, _opts())
    return _per_node(G, [x if x else 0 for x in c.tolist()], nodes)


# ------------------------------------------------------------ centrality


def _rescale(b, n, *, normalized, directed, endpoints, sampled):
    """networkx 3.6's `_rescale` of betweenness sums (vectorized)."""
    k = None if sampled is None else len(sampled)
    N = n if endpoints else n - 1
    if N < 2:
        return b
    K = N if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
        scale = 1 / (K * (N - 1)) if normalized else N / (K * correction)
        return b * scale
    if normalized:
        s_src = 1 / ((K - 1) * (N - 1)) if K > 1 else math.nan
        s_other = 1 / (K * (N - 1))
    else:
        s_src = N / ((K - 1) * correction) if K > 1 else math.nan
        s_other = N / (K * correction)
    scale = np.full(b.shape, s_other)
    scale[list(sampled)] = s_src
    return b * scale


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    G = convert(G, None)
    n = len(G)
    if k == n:
        k = None
    if k is None:
        sources = list(range(n))
    else:
        sources = [G.index[v] for v in seed.sample(list(G.G.nodes()), k)]
    raw = _vertex.betweenness_networkx(G.graph, sources, endpoints, _opts()["threads"])
    b = _rescale(raw, n, normalized=normalized, directed=G.is_directed(), endpoints=endpoints,
                 sampled=None if k is None else sources)
    return _node_values(G, b)


def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    G = convert(G, None)
    if u is not None:
        return float(_vertex.closeness(G.graph, [G.vertex_id(u)], False, _opts()["threads"])[0])
    scores = _vertex.closeness(G.graph, list(range(len(G))), False, _opts()["threads"])
    return _node_values(G, scores)


# ------------------------------------------------------------ what can run

_IMPLEMENTED = {
    f.__name__: f
    for f in [
        bfs_edges, bfs_tree, single_source_shortest_path_length,
        single_source_dijkstra_path_length, all_pairs_shortest_path_length,
        floyd_warshall_numpy, connected_components, number_connected_components,
        weakly_connected_components, pagerank, core_number, triangles, clustering,
        betweenness_centrality, closeness_centrality,
    ]
}


def _weight_reason(G, weight):
    """Why ``weight`` cannot be used (``G``: as passed, a networkx graph or a
    :class:`VertexGraph`)."""
    if callable(weight):
        return "weight given as a function"
    if weight is not None and _facts(G, weight)["negative"]:
        return "negative weights"
    return None


def _why_not(name, a):
    """Why the backend cannot compute networkx's answer for these arguments
    (``None``: it can)."""
    arg = a["G"]
    G = _nxg(arg)
    directed, multi = G.is_directed(), G.is_multigraph()
    if name in ("bfs_edges", "bfs_tree"):
        if a["sort_neighbors"] is not None:
            return "sort_neighbors"
        if a["reverse"] and directed:
            return "reverse=True on a directed graph"
        if a["source"] not in G:
            return "source not in G (networkx raises)"
    elif name in ("single_source_shortest_path_length", "single_source_dijkstra_path_length"):
        if a["source"] not in G:
            return "source not in G (networkx raises)"
        if name.startswith("single_source_dijkstra"):
            return _weight_reason(arg, a["weight"])
    elif name == "floyd_warshall_numpy":
        if len(G) == 0:
            return "empty graph"
        nl = a["nodelist"]
        if nl is not None and (len(nl) != len(G) or set(nl) != set(G)):
            return "nodelist is not a permutation of the nodes (networkx raises)"
        return _weight_reason(arg, a["weight"])
    elif name in ("connected_components", "number_connected_components"):
        if directed:
            return "directed graph (networkx raises)"
    elif name == "weakly_connected_components":
        if not directed:
            return "undirected graph (networkx raises)"
    elif name == "pagerank":
        if multi:
            return "multigraph (networkx sums parallel edges)"
        for opt in ("personalization", "nstart", "dangling"):
            v = a[opt]
            if v is not None and (not isinstance(v, dict) or sum(v.get(n, 0) for n in G) == 0):
                return f"{opt} is not a dict with a nonzero sum over the nodes"
        return _weight_reason(arg, a["weight"])
    elif name == "core_number":
        if multi:
            return "multigraph (networkx raises)"
        if nx.number_of_selfloops(G):
            return "self-loops (networkx raises)"
    elif name == "triangles":
        if directed:
            return "directed graph (networkx raises)"
        if multi and a["nodes"] is not None:
            return "multigraph with nodes (networkx raises)"
    elif name == "clustering":
        if directed or multi or a["weight"] is not None:
            return "directed, multigraph or weighted clustering is not supported"
    elif name == "betweenness_centrality":
        if a["weight"] is not None:
            return "weighted betweenness is not supported"
    elif name == "closeness_centrality":
        if a["distance"] is not None or not a["wf_improved"]:
            return "distance or wf_improved=False is not supported"
        if a["u"] is not None and a["u"] not in G:
            return "u not in G (networkx raises)"
    return None


def can_run(name, args, kwargs):
    """``True``, or why not (networkx then runs its own code)."""
    f = _IMPLEMENTED.get(name)
    if f is None:
        return f"{name} is not implemented by vertex"
    try:
        bound = inspect.signature(f).bind(*args, **kwargs)
    except TypeError as e:
        return str(e)
    bound.apply_defaults()
    why = _why_not(name, bound.arguments)
    return True if why is None else why


def should_run(name, args, kwargs):
    """Whether automatic dispatch should use vertex: yes for graphs with some
    edges (below that, converting costs more than networkx's own loop)."""
    G = _nxg(args[0] if args else kwargs.get("G"))
    if G is not None and G.number_of_edges() < 64:
        return "graph too small to be worth converting"
    return True


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                    preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                    graph_name=None):
    weight = None
    if preserve_edge_attrs:
        raise NotImplementedError("vertex keeps one numeric edge attribute, not all of them")
    if edge_attrs:
        if len(edge_attrs) > 1:
            raise NotImplementedError("vertex keeps one edge attribute")
        (weight, default), = edge_attrs.items()
        if default not in (1, None):
            raise NotImplementedError(f"default edge weight {default!r} (vertex uses 1)")
    return convert(G, weight)


def convert_to_nx(obj, *, name=None):
    return obj.G if isinstance(obj, VertexGraph) else obj


class BackendInterface:
    """What networkx loads from the ``networkx.backends`` entry point."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)


for _name, _f in _IMPLEMENTED.items():
    setattr(BackendInterface, _name, staticmethod(_f))


def get_info():
    """The ``networkx.backend_info`` entry point: what networkx documents."""
    notes = {
        "pagerank": "networkx's own iteration, round for round; multigraphs fall back.",
        "betweenness_centrality": "Unweighted only (weight=None).",
        "closeness_centrality": "Unweighted, wf_improved=True only.",
        "clustering": "Undirected, unweighted only.",
        "bfs_edges": "sort_neighbors and reverse on directed graphs fall back.",
    }
    return {
        "backend_name": "vertex",
        "project": "vertex",
        "package": "vertex-graph",
        "short_summary": "Rust graph engines (rayon CPU, CUDA GPU) behind networkx",
        "default_config": {
            "backend": "cpu", "threads": None, "gpus": None, "exchange": None, "lazy_results": True,
        },
        "functions": {name: ({"additional_docs": notes[name]} if name in notes else {}) for name in _IMPLEMENTED},
    }
