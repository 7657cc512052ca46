#!/usr/bin/env bash
# Issue 19, session 12, call 5: Graph500 scale 24 twice more (call 4 read 148.0 GTEPS,
# floor 149), the same command, each run into its own folder.
cd "$(dirname "$0")"
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
for r in 1 2; do
  mkdir -p "$OUT/r$r"
  /tmp/vertex bench graph500 --scale 24 --backend gpu --kernel direction --validator gpu --out "$OUT/r$r" 2>&1 \
    | grep -E "failed|harmonic_mean_TEPS|median_TEPS|min_TEPS"
done | tee "$OUT/call5.log"
