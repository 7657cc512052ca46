#!/usr/bin/env bash
# The final build of the session: gpu-run.sh's handover step (level kernels
# handing long tails to the resident kernel, odd graphs, sanitizers) and its
# gather step (pr, pr-delta, kcore vs the oracles, sanitizers).
set -u
cd bundle
for f in vertex vertex-gpu-bench; do xz -dkf "$f.xz" && chmod +x "$f"; done
TAIL_SCALE=18 TAIL_TRIALS=1 bash gpu-run.sh handover 2>&1 | grep -vE "^\s*$" | tail -n 60
bash gpu-run.sh gather 2>&1 | tail -n 30
