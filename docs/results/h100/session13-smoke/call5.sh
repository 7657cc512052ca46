#!/usr/bin/env bash
# Session 13, call 5: GPU smoke test of every CLI program after the merges
# (gather NEEDS_SOURCE, -o -, warnings, gapbs-built pr/bc), every run validated.
cd "$(dirname "$0")"
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
V=/tmp/vertex
cat GIT_REV
bad=0
{
for g in kron:12 grid:60x40 uniform:5000:20000; do
  for p in bfs sssp widest cc pr pr-delta kcore bc tc lcc; do
    extra=""
    [ $p = kcore ] && extra="--symmetrize"
    out=$($V $p $g --backend gpu --validate --json $extra 2>/tmp/err.txt)
    v=$(echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); print(d.get('validated'), d.get('backend'), d.get('kernel'))" 2>/dev/null)
    echo "$p $g: $v $(grep -i -E 'warning|error' /tmp/err.txt | head -2)"
    case "$v" in True*) ;; *) bad=1;; esac
  done
  out=$($V cc $g --algorithm label --backend gpu --validate --json 2>/tmp/err.txt)
  echo "cc-label $g: $(echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); print(d.get('validated'), d.get('backend'))" 2>/dev/null) $(head -2 /tmp/err.txt)"
done
echo "-- -o - on the GPU"; $V bfs grid:3x3 --backend gpu -o - 2>/dev/null
echo "bad=$bad"
} 2>&1 | tee $OUT/call5.log
# Every program on the GPU over a differential hunt's odd graphs (helper-19's files):
# print failures only (validated false, or an error that is not a clear refusal).
{
n=0; fails=0
for f in hunt/*; do
  for p in bfs sssp widest cc pr bc tc lcc kcore; do
    extra=""; [ $p = kcore ] && extra="--symmetrize"
    out=$(timeout 20 $V $p $f --backend gpu --validate --json $extra 2>/tmp/err.txt); rc=$?
    n=$((n+1))
    v=$(echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); print(d.get('validated'))" 2>/dev/null)
    if [ "$rc" != 0 ] || [ "$v" != True ]; then
      fails=$((fails+1)); echo "FAIL? $p $f rc=$rc validated=$v: $(grep -v '^warning' /tmp/err.txt | head -2 | tr '\n' ' ' | cut -c1-300)"
    fi
  done
done
echo "hunt graphs on the GPU: $n runs, $fails not validated (refusals included)"
} 2>&1 | tee $OUT/call5-hunt.log
