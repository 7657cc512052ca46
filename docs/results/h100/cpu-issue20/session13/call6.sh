#!/usr/bin/env bash
# Issue 20, session 13, call 6: lock-step bulk Δ-stepping against soft-priority obim
# at 4, 8 and 16 threads on grids (where `obim` picks lock-step only up to 2 workers,
# LOCKSTEP_MAX_THREADS, from session 4's figures). Same binary, alternating:
# VERTEX_LOCKSTEP_MAX_THREADS=2 (soft above 2) / 64 (lock-step). Auto Δ, best of 7,
# every run checked by `compare` (all rows agree). gapbs -d 512 beside on the 1000² grid.
cd "$(dirname "$0")"
B=$PWD
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
V=/tmp/vertex
cat GIT_REV
$V gen grid --width 1000 --height 1000 -o /tmp/g.wel 2>&1 | tail -1
{
for rep in 1 2 3; do
  for G in /tmp/g.wel grid:2000x2000; do
    for T in 4 8 16; do
      line="rep $rep $G t$T:"
      for L in 2 64; do
        r=$(VERTEX_LOCKSTEP_MAX_THREADS=$L $V compare sssp $G --schedules obim --threads $T --repeats 7 2>&1)
        t=$(echo "$r" | grep -E '^obim' | awk '{print $3" ("$8")"}')
        ok=$(echo "$r" | grep -c "all runs agree")
        line="$line  lockstep<=$L: $t ok=$ok"
      done
      if [ $G = /tmp/g.wel ]; then
        line="$line  gapbs d512: $(OMP_NUM_THREADS=$T $B/gapbs/sssp -f /tmp/g.wel -d 512 -r 0 -n 7 | grep Average | awk '{print $3*1000}') ms (avg)"
      fi
      echo "$line"
    done
  done
done
} 2>&1 | tee $OUT/call6.log
