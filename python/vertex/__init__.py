"""vertex from Python: graph programs written once in Rust, run on the CPU
(rayon engines) or on NVIDIA GPUs (the same programs compiled to PTX).

    import vertex
    g = vertex.load("kron:16")                 # any file or generator the CLI reads
    levels = vertex.bfs(g, source=0).values    # numpy array, one entry per vertex
    ranks = vertex.pagerank(g, backend="cpu").values

Graphs also come from numpy edge arrays (:func:`from_edges`), scipy sparse
matrices (:func:`from_scipy`) and networkx graphs (:func:`from_networkx`).
Every program takes the CLI's options as keywords (``backend``, ``threads``,
``kernel``, ``schedule``, ...) and returns a :class:`Result` (``values`` and the
run's ``report``). GPU runs keep the opened GPUs, their kernels and the graphs
last uploaded between calls; :func:`release_gpus` frees them. networkx users can
instead keep their code and add ``backend="vertex"`` (see :mod:`vertex.nx_backend`).
"""

from ._vertex import (
    GPU_KERNELS,
    Graph,
    GpuUnavailableError,
    NegativeCycleError,
    release_gpus,
)
from ._api import (
    UNREACHED,
    Result,
    apsp,
    bc,
    bfs,
    cc,
    closeness,
    from_edges,
    from_networkx,
    from_scipy,
    kcore,
    lcc,
    load,
    pagerank,
    path,
    sssp,
    tc,
    widest,
)

__all__ = [
    "GPU_KERNELS",
    "Graph",
    "GpuUnavailableError",
    "NegativeCycleError",
    "Result",
    "UNREACHED",
    "apsp",
    "bc",
    "bfs",
    "cc",
    "closeness",
    "from_edges",
    "from_networkx",
    "from_scipy",
    "kcore",
    "lcc",
    "load",
    "pagerank",
    "path",
    "release_gpus",
    "sssp",
    "tc",
    "widest",
]
