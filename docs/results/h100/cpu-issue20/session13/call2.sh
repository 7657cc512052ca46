#!/usr/bin/env bash
# Issue 20, session 13, call 2: counters (vertex-counters: user-space hardware
# events, all threads) of gapbs sssp and our `obim` on the 1000² grid, 1 and 16
# threads. A process is counted whole, so each setting runs with 1 and with 21
# repeats: the difference / 20 is one run without set-up. (The host exposes no
# hardware events: only the software ones came back.)
cd "$(dirname "$0")"
B=$PWD
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
gunzip -c vertex-counters.gz > /tmp/vc && chmod +x /tmp/vc
V=/tmp/vertex; C=/tmp/vc
$V gen grid --width 1000 --height 1000 -o /tmp/g.wel
J=$OUT/counters.jsonl; : > $J
tag() { python3 -c "import json,sys; d=json.loads(sys.stdin.readlines()[-1]); d['tag']=sys.argv[1]; print(json.dumps(d))" "$1" >> $J; }
for rep in 1 2; do
  for T in 1 16; do
    for n in 1 21; do
      OMP_NUM_THREADS=$T $C -- $B/gapbs/sssp -f /tmp/g.wel -d 512 -r 0 -n $n > /tmp/o.txt 2>&1; grep -E "Average" /tmp/o.txt; tail -1 /tmp/o.txt | tag "gapbs d512 t$T n$n"
      if [ $T = 16 ]; then
        OMP_NUM_THREADS=$T OMP_PROC_BIND=close OMP_WAIT_POLICY=passive $C -- $B/gapbs/sssp -f /tmp/g.wel -d 512 -r 0 -n $n > /tmp/o.txt 2>&1; grep -E "Average" /tmp/o.txt; tail -1 /tmp/o.txt | tag "gapbs-close d512 t$T n$n"
      fi
      for d in 512 50; do
        $C -- $V compare sssp /tmp/g.wel --schedules obim --threads $T --repeats $n --delta $d > /tmp/o.txt 2>&1; grep -E "^obim" /tmp/o.txt; tail -1 /tmp/o.txt | tag "ours d$d t$T n$n"
      done
    done
  done
done 2>&1 | tee $OUT/call2.log
# (then: per-run differences, printed at the end of call2.log)
