#!/usr/bin/env python3
"""The GPU through the Python package: a few programs with ``backend="gpu"``
and ``backend="cpu"`` on the same graph, checked equal, timed; one JSON
object on stdout. Exits 1 when a result differs or the GPU cannot run.

    python python/bench/gpu_check.py [GRAPH ...]     # default: kron:16 grid:300x300
"""

import json
import sys
import time

import numpy as np

import vertex


def timed(f):
    t0 = time.perf_counter()
    r = f()
    return r, time.perf_counter() - t0


def same(name, a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f":
        # PageRank sums in another order on the GPU: agreement to ~1e-12.
        return bool(np.allclose(a, b, rtol=1e-9, atol=1e-12))
    return bool(np.array_equal(a, b))


PROGRAMS = {
    "bfs": lambda g, b: vertex.bfs(g, 0, backend=b).values,
    "sssp": lambda g, b: vertex.sssp(g, 0, backend=b).values,
    "widest": lambda g, b: vertex.widest(g, 0, backend=b).values,
    "cc_label": lambda g, b: vertex.cc(g, algorithm="label", backend=b).values,
    "pagerank": lambda g, b: vertex.pagerank(g, backend=b).values,
    "kcore": lambda g, b: vertex.kcore(g, backend=b).values,
    "tc": lambda g, b: vertex.tc(g, backend=b).values,
    "lcc": lambda g, b: vertex.lcc(g, backend=b).values,
    "apsp_summary": lambda g, b: [vertex.apsp(g, backend=b, algorithm="fw").report["summary"][k]
                                  for k in ("checksum", "unreachable", "diameter")],
}


def main(graphs):
    out = {"gpu_kernels_built": vertex.GPU_KERNELS, "graphs": []}
    ok = True
    for spec in graphs:
        g = vertex.load(spec, weights=(1, 255))  # weighted programs need weights
        rows = []
        for name, f in PROGRAMS.items():
            if name == "apsp_summary" and g.num_vertices_ > 20000:
                continue
            row = {"program": name}
            try:
                f(g, "gpu")  # warm: device open, kernels loaded, graph uploaded
                gpu, row["gpu_s"] = timed(lambda: f(g, "gpu"))
                cpu, row["cpu_s"] = timed(lambda: f(g, "cpu"))
                row["equal"] = same(name, gpu, cpu)
            except Exception as e:  # noqa: BLE001 - report, keep checking the rest
                row["error"] = f"{type(e).__name__}: {e}"
                row["equal"] = False
            ok &= row["equal"]
            rows.append(row)
        out["graphs"].append({"graph": spec, "vertices": g.num_vertices_, "edges": g.num_edges, "programs": rows})
    out["all_equal"] = ok
    print(json.dumps(out, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["kron:16", "grid:300x300"]))
