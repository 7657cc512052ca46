#!/usr/bin/env bash
# Prototype floors for grid BFS/SSSP (issue 19): one block vs tiles; the shipped kernels beside.
set -u
cd bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -O3 -arch=sm_90 -std=c++17 -o proto/tp proto/tiles_proto.cu 2>&1 | grep -v Warning | head -20
echo "== BFS corner"; ./proto/tp 1000 1000 0 0 3
echo "== BFS centre"; ./proto/tp 1000 1000 500500 0 3
echo "== SSSP corner, delta sweep"
for d in 0 64 128 255 512 1024; do ./proto/tp 1000 1000 0 1 2 $d | grep k1; done
echo "== BFS 2000x1000 corner"; ./proto/tp 2000 1000 0 0 2 | grep -E "k0|k1|tiles:"
if [ -f vertex.xz ]; then
  xz -dkf vertex.xz && chmod +x vertex
  echo "== shipped"
  for run in "bfs grid:1000x1000 --kernel resident" "bfs grid:1000x1000 --kernel tiles" "sssp grid:1000x1000 --kernel auto"; do
    for i in 1 2; do echo "$run: $(./vertex $run --backend gpu 2>&1 | grep -E '^  time ' | head -n1 | tr -s ' ')"; done
  done
fi
