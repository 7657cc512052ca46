#!/bin/bash
# usage: ab.sh PROG GRAPH THREADS REPS SCHEDULE "ROOTS" BIN_A BIN_B [extra args]
# Alternates A and B (`vertex compare`, 3 runs per call) for each root, REPS times;
# prints the median and min (ms) of all runs per binary.
prog=$1; graph=$2; thr=$3; reps=$4; sched=$5; roots=$6; A=$7; B=$8; shift 8
for r in $(seq 1 $reps); do
  for s in $roots; do
  for bin in $A $B; do
    $bin compare $prog $graph -s $s --schedules $sched --threads $thr --repeats 3 "$@" --json 2>/dev/null | python3 -c "
import json,sys
d=json.load(sys.stdin)
for row in d['comparison']['rows']:
    for t in row['times_s']: print('$bin', '$s', t*1000)
"
  done
  done
done | tee /tmp/s5/ab.last | python3 -c "
import sys,statistics
from collections import defaultdict
d=defaultdict(list)
for l in sys.stdin:
    b,s,t=l.split(); d[b].append(float(t))
for b,v in d.items(): print(b, 'median %.2f'%statistics.median(v), 'n', len(v), 'min %.2f'%min(v))
"
