#!/usr/bin/env bash
# Issue 20, session 13, call 3: does the spinning barrier's sleep cost the 16-thread
# grid SSSP? VERTEX_BARRIER_SPINS 2,000 (default) / 20,000 / 200,000 / never sleep
# (barrier-spins.patch), alternating processes; per process: context switches
# (vertex-counters) and the best of 21 runs (vertex compare; at 8 and 16 threads
# `obim` is soft-priority obim, not the lock-step path). gapbs beside.
cd "$(dirname "$0")"
B=$PWD
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
gunzip -c vertex-counters.gz > /tmp/vc && chmod +x /tmp/vc
V=/tmp/vertex; C=/tmp/vc
cat GIT_REV
$V gen grid --width 1000 --height 1000 -o /tmp/g.wel 2>&1 | tail -1
cs() { python3 -c "import json,sys; d=json.loads(sys.stdin.readlines()[-1]); print('cs/run %.0f task_clock_s %.2f' % (d['context_switches']/21, d['task_clock_ns']/1e9))"; }
for rep in 1 2 3; do
  for T in 16 8; do
    echo "== rep $rep threads $T"
    OMP_NUM_THREADS=$T $C -- $B/gapbs/sssp -f /tmp/g.wel -d 512 -r 0 -n 21 > /tmp/o.txt 2>&1; echo "gapbs d512: $(grep Average /tmp/o.txt) $(tail -1 /tmp/o.txt | cs)"
    for d in 50 512; do
      for s in 2000 20000 200000 4000000000; do
        VERTEX_BARRIER_SPINS=$s $C -- $V compare sssp /tmp/g.wel --schedules obim --threads $T --repeats 21 --delta $d > /tmp/o.txt 2>&1
        echo "ours d$d spins $s: $(grep -E '^obim' /tmp/o.txt | awk '{print $3" ms "$8" "$9}') $(tail -1 /tmp/o.txt | cs)"
      done
    done
  done
done 2>&1 | tee $OUT/call3.log
