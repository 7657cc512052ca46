"""The Python package on the GPU machine (gpu-run.sh frontdoor): each program
on one GPU and, where the machine has two, with ``gpus=2`` over both exchange
routes, every answer compared with the CPU's (with VERTEX_MULTI_DEVICES=0,0 on
one GPU: two parts on it, the peer route only). Then the wall time of repeated
``gpus=2`` calls on one graph: the first opens the GPUs and uploads the parts,
the later ones find them kept. Exit status 1 if any differs or fails."""
import os
import sys
import time

import numpy as np
import vertex


def same(name, a, b):
    if name == "pagerank":
        return np.allclose(a, b, rtol=1e-6, atol=1e-9)
    return np.array_equal(np.asarray(a), np.asarray(b))


def main():
    import subprocess

    try:
        gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU ")
    except FileNotFoundError:
        gpus = 0
    print(f"vertex from {vertex.__file__}, kernels built: {vertex.GPU_KERNELS}, GPUs: {gpus}")
    runs = [{"backend": "gpu"}]
    shared = bool(os.environ.get("VERTEX_MULTI_DEVICES"))
    if gpus >= 2 or shared:
        routes = ("peer",) if shared else ("peer", "nccl")
        runs += [{"backend": "gpu", "gpus": 2, "exchange": ex} for ex in routes]
    bad = 0
    for spec in ("kron:18", "grid:200x200"):
        g = vertex.load(spec)
        gw = vertex.load(spec, weights=(1, 255))
        programs = {
            "bfs": lambda **k: vertex.bfs(g, 0, **k),
            "sssp": lambda **k: vertex.sssp(gw, 0, **k),
            "pagerank": lambda **k: vertex.pagerank(g, **k),
            "kcore": lambda **k: vertex.kcore(g, **k),
        }
        for name, run in programs.items():
            want = run(backend="cpu").values
            for opts in runs:
                label = f"{name} {spec} " + " ".join(f"{k}={v}" for k, v in opts.items())
                try:
                    r = run(**opts)
                except Exception as e:  # noqa: BLE001 — reported, then counted
                    print(f"BAD {label}: {type(e).__name__}: {e}")
                    bad += 1
                    continue
                ok = same(name, r.values, want)
                bad += not ok
                rep = r.report
                print(f"{'ok ' if ok else 'BAD'} {label}: {rep.get('device')} | {rep.get('strategy')}"
                      f" | {rep.get('time_ms', '?')} ms")
    if len(runs) > 1:
        g = vertex.load("kron:20")
        for name, run in (("bfs", lambda: vertex.bfs(g, 0, backend="gpu", gpus=2)),
                          ("pagerank", lambda: vertex.pagerank(g, backend="gpu", gpus=2))):
            walls = []
            for _ in range(3):
                t = time.perf_counter()
                run()
                walls.append(time.perf_counter() - t)
            print(f"{name} kron:20 gpus=2, wall per call (the GPUs kept after the first): "
                  + ", ".join(f"{w * 1e3:.1f} ms" for w in walls))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
