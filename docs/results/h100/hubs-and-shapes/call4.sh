#!/usr/bin/env bash
# Session 9, call 4: two resident kernels per program (plain, and _hubs for graphs
# with rows past HEAVY_ROW edges): A/B on grids (plain kernel), hub graphs, sanitizers.
set -u
B=$(cd "$(dirname "$0")" && pwd)
gunzip -c "$B/vertex-old.gz" > /tmp/vertex-old && chmod +x /tmp/vertex-old
python3 "$B/odd-graphs.py" /tmp/odd >/dev/null
python3 - <<'PY'
hubs, leaves = 100, 70
e = []; nxt = hubs + 1
for h in range(1, hubs + 1):
    e.append((0, h))
    for _ in range(leaves):
        e.append((h, nxt)); nxt += 1
for i in range(50):
    e.append((nxt - 1 + i, nxt + i))
with open('/tmp/odd/hubs.el', 'w') as f:
    for u, v in e:
        f.write(f"{u} {v}\n{v} {u}\n")
PY
run() { "$1" "$2" "$3" --backend gpu --kernel "$4" ${5:-} 2>&1 | grep -E "^  (time|oracle)|rror" | tr -s ' ' | tr '\n' ' '; echo; }
for rep in 1 2 3; do
  for g in grid:1000x1000 grid:2000x1000; do
    for b in /tmp/vertex-old "$B/vertex"; do
      echo "bfs $g resident $(basename $b): $(run $b bfs $g resident)"
    done
  done
done
for b in /tmp/vertex-old "$B/vertex"; do
  v=""; [ "$(basename $b)" = vertex ] && v=--validate
  for p in bfs sssp widest; do
    echo "$p star_path resident $(basename $b): $(run $b $p /tmp/odd/star_path.wel resident $v)"
    echo "$p kron:18 resident $(basename $b): $(run $b $p kron:18 resident $v)"
  done
  echo "sssp grid:1000x1000 resident $(basename $b): $(run $b sssp grid:1000x1000 resident $v)"
  echo "sssp grid:1000x1000 auto $(basename $b): $(run $b sssp grid:1000x1000 auto $v)"
done
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n1)
for t in memcheck racecheck synccheck; do
  for spec in "bfs /tmp/odd/hubs.el" "sssp /tmp/odd/hubs.el" "cc /tmp/odd/hubs.el" "bfs grid:60x40" "sssp kron:10"; do
    set -- $spec
    a=""; [ $1 = cc ] && a="--algorithm label"
    echo "== $t $spec: $("$SAN" --tool $t --error-exitcode 3 "$B/vertex" $1 $2 $a --backend gpu --kernel resident --validate 2>&1 | grep -E 'SUMMARY|oracle|rror' | tr -s ' ' | tr '\n' ' ')"
  done
done
