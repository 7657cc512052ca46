"""The Python package on the GPU machine (gpu-run.sh frontdoor): each program
on one GPU and, where the machine has two, with ``gpus=2`` over both exchange
routes, every answer compared with the CPU's. Exit status 1 if any differs or
fails."""
import sys

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
    if gpus >= 2:
        runs += [{"backend": "gpu", "gpus": 2, "exchange": ex} for ex in ("peer", "nccl")]
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
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
