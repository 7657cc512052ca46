#!/usr/bin/env bash
# Issue 19, session 12, call 4: Graph500 BFS no-regression check (issue 19's floors:
# scale 22 83 GTEPS, scale 24 149) at this session's build, every tree validated on
# the GPU; the hand-written direction kernel at 22 and 24, the DSL program's at 22.
cd "$(dirname "$0")"
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
{
  /tmp/vertex bench graph500 --scale 22 --backend gpu --kernel direction --validator gpu --out "$OUT"
  /tmp/vertex bench graph500 --scale 22 --backend gpu-dsl --kernel direction --validator gpu --out "$OUT"
  /tmp/vertex bench graph500 --scale 24 --backend gpu --kernel direction --validator gpu --out "$OUT"
} 2>&1 | grep -v "^\s*$" | tee "$OUT/call4.log"
