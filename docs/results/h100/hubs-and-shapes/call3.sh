#!/usr/bin/env bash
# Session 9, call 3: resident heavy rows, slimmer variant (one smem word a slot): A/B on grids.
set -u
B=$(cd "$(dirname "$0")" && pwd)
gunzip -c "$B/vertex-old.gz" > /tmp/vertex-old && chmod +x /tmp/vertex-old
python3 "$B/odd-graphs.py" /tmp/odd >/dev/null
run() { "$1" "$2" "$3" --backend gpu --kernel "$4" ${5:-} 2>&1 | grep -E "^  (time|oracle)|rror" | tr -s ' ' | tr '\n' ' '; echo; }
for rep in 1 2 3 4; do
  for g in grid:1000x1000 grid:2000x1000; do
    for b in /tmp/vertex-old "$B/vertex"; do
      echo "bfs $g resident $(basename $b): $(run $b bfs $g resident)"
    done
  done
done
for b in /tmp/vertex-old "$B/vertex"; do
  echo "bfs star_path resident $(basename $b): $(run $b bfs /tmp/odd/star_path.wel resident --validate)"
  echo "widest grid:1000x1000 resident $(basename $b): $(run $b widest grid:1000x1000 resident --validate)"
done
