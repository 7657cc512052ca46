#!/usr/bin/env bash
# Issue 19, session 12, call 2: the tiled kernel on compact tiles. The 1000² road grid
# as generated (row-major ids: a tile of T = ⌈n/132⌉ ids is a 7.6-row band) against
# the same grid renumbered so that each run of T ids is a compact block (rcb.py:
# recursive coordinate bisection, exact sizes), VERTEX_TILES_SUBROUNDS 1/4/16,
# BFS and SSSP from the corner and from the centre; the resident kernel beside.
cd "$(dirname "$0")"
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
V=/tmp/vertex
$V gen grid --width 1000 --height 1000 -o /tmp/g.wel
python3 rcb.py /tmp/g.wel 1000 1000 132 /tmp/r.wel | tee /tmp/map.txt
$V convert /tmp/g.wel /tmp/g.vgr && $V convert /tmp/r.wel /tmp/r.vgr
read -r _ _ _ _ c0 _ _ c1 < /tmp/map.txt
show() { python3 -c "import json,sys; j=json.load(sys.stdin); print('  %-8s %.2f ms rounds %s kernel %s valid %s reached %s max %s' % (sys.argv[1], j['time_s']*1e3, j.get('rounds'), j.get('kernel'), j.get('validated'), j.get('reached'), j.get('max_value')))" "$1"; }
for prog in ${PROGS:-bfs sssp}; do
  for src in corner centre; do
    for G in g r; do
      if [ "$G" = g ]; then s=$([ $src = corner ] && echo 0 || echo 500500); else s=$([ $src = corner ] && echo "$c0" || echo "$c1"); fi
      echo "== $prog $src graph $G source $s"
      for sub in 1 4 16; do
        for rep in 1 2; do
          v=$([ $rep = 1 ] && echo --validate || true)
          VERTEX_TILES_SUBROUNDS=$sub $V $prog /tmp/$G.vgr --backend gpu --kernel tiles --source "$s" --json $v 2>/tmp/err.txt | show "sub$sub" || tail -3 /tmp/err.txt
        done
      done
      $V $prog /tmp/$G.vgr --backend gpu --kernel resident --source "$s" --json 2>/tmp/err.txt | show resident || tail -3 /tmp/err.txt
    done
  done
done 2>&1 | tee "$OUT/call2.log"
