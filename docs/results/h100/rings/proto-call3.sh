#!/usr/bin/env bash
# Prototype v3: thread 0 posts the batch (one outstanding add and fence a batch), remote targets in shared memory, block size sweep.
set -u
cd bundle
nvcc -O3 -arch=sm_90 -std=c++17 -o proto/tp proto/tiles_proto.cu 2>&1 | grep -E "error" | head -20
echo "== BFS corner"; ./proto/tp 1000 1000 0 0 2
echo "== BFS centre"; ./proto/tp 1000 1000 500500 0 2 | grep k1
echo "== SSSP corner"
for d in 255 400; do ./proto/tp 1000 1000 0 1 2 $d | grep k1; done
echo "== SSSP centre"; ./proto/tp 1000 1000 500500 1 2 255 | grep k1
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
echo "== memcheck small"; "$SAN" --tool memcheck ./proto/tp 120 90 0 1 1 100 2>&1 | grep -E "k1|ERROR SUMMARY" | head
echo "== racecheck small"; "$SAN" --tool racecheck ./proto/tp 120 90 0 1 1 100 2>&1 | grep -E "k1|ERROR SUMMARY|hazard" | head
