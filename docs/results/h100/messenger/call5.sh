#!/usr/bin/env bash
# racecheck on the kept kernel (eee43f6) built with line tables in its PTX
# (the nvptx build's profile set to debug = "line-tables-only" for this build
# only), so that each hazard names its source lines.
set -u
cd bundle
xz -dkf vertex-lines.xz && chmod +x vertex-lines
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for run in "bfs grid:60x40" "sssp grid:60x40"; do
  f="$OUT/race-lines-$(echo $run | tr -c 'a-z0-9\n' '-').log"
  timeout 150 "$SAN" --tool racecheck --error-exitcode 3 ./vertex-lines $run --backend gpu --kernel tiles --validate > "$f" 2>&1
  echo "racecheck $run: rc=$? agree=$(grep -c 'oracle .*agrees' "$f") $(grep -E 'RACECHECK SUMMARY' "$f")"
  grep -E "Race reported|access at" "$f" | head -40
done
