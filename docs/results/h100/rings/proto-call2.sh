#!/usr/bin/env bash
# Prototype v2: messages batched per destination and posted by warp 0 while the others drain.
set -u
cd bundle
nvcc -O3 -arch=sm_90 -std=c++17 -o proto/tp proto/tiles_proto.cu 2>&1 | grep -E "error" | head -20
echo "== BFS corner"; ./proto/tp 1000 1000 0 0 3
echo "== BFS centre"; ./proto/tp 1000 1000 500500 0 3 | grep k1
echo "== SSSP corner"
for d in 128 255 400; do ./proto/tp 1000 1000 0 1 2 $d | grep k1; done
echo "== SSSP centre"; ./proto/tp 1000 1000 500500 1 2 255 | grep k1
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
echo "== memcheck small"; "$SAN" --tool memcheck ./proto/tp 120 90 0 1 1 100 2>&1 | grep -E "k1|ERROR SUMMARY" | head
