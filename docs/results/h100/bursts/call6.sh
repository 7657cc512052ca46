#!/usr/bin/env bash
# GAP BFS/SSSP on grids: ours (CPU 16 threads, GPU auto = tiles with groups of lanes for short levels) vs gapbs on 16 threads, side by side (issue 19), build 1490570 (the closer overlaps the level).
set -u
cd bundle
xz -dkf vertex.xz && chmod +x vertex
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 500 ./vertex bench gap grid:1000x1000 grid:2000x1000 --gapbs gapbs --threads 16 --kernels bfs,sssp --trials 3 --roots 4 --label h100-groups-final --out "$OUT" --work /tmp/gapwork 2>&1 | tail -n 30
