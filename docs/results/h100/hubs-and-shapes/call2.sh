#!/usr/bin/env bash
# Session 9, call 2: resident heavy rows (old = d4e8286 build, new = working tree) A/B,
# sanitizers on the new resident kernel, tiles fix re-check on the odd graphs.
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
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
run() { # binary program graph kernel
    "$1" "$2" "$3" --backend gpu --kernel "$4" ${5:-} 2>&1 | grep -E "^  (time|oracle|resident)|rror" | tr -s ' ' | tr '\n' ' '; echo; }
for rep in 1 2 3; do
  for g in grid:1000x1000 grid:2000x1000; do
    for b in /tmp/vertex-old "$B/vertex"; do
      echo "bfs $g resident $(basename $b): $(run $b bfs $g resident)"
    done
  done
done
for rep in 1 2; do
  for b in /tmp/vertex-old "$B/vertex"; do
    echo "sssp grid:1000x1000 tiles $(basename $b): $(run $b sssp grid:1000x1000 tiles)"
    echo "sssp grid:1000x1000 resident $(basename $b): $(run $b sssp grid:1000x1000 resident)"
  done
done
for p in bfs sssp widest cc; do
  for b in /tmp/vertex-old "$B/vertex"; do
    v=""; [ "$(basename $b)" = vertex ] && v=--validate
    a=""; [ $p = cc ] && a="--algorithm label"
    echo "$p star_path resident $(basename $b): $("$b" $p /tmp/odd/star_path.wel $a --backend gpu --kernel resident $v 2>&1 | grep -E '^  (time|oracle)|rror' | tr -s ' ' | tr '\n' ' ')"
  done
done
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n1)
for t in memcheck racecheck synccheck; do
  for spec in "bfs /tmp/odd/hubs.el" "sssp /tmp/odd/hubs.el" "cc /tmp/odd/hubs.el" "bfs grid:60x40"; do
    set -- $spec
    a=""; [ $1 = cc ] && a="--algorithm label"
    echo "== $t $spec: $("$SAN" --tool $t --error-exitcode 3 "$B/vertex" $1 $2 $a --backend gpu --kernel resident --validate 2>&1 | grep -E 'SUMMARY|oracle|rror' | tr -s ' ' | tr '\n' ' ')"
  done
done
SHAPES_PROGRAMS="sssp" SHAPES_KERNELS="auto tiles resident" bash "$B/gpu-run.sh" shapes 2>&1 | grep -v "^ok" | grep -v memcheck -A0 | head -30
echo "shapes ok lines: $(grep -c '^ok' /tmp/gpu-out/shapes.log)"
