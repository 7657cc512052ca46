#!/usr/bin/env bash
# Issue 20, session 13, call 4: which context switches do our 16-thread grid SSSP
# runs take (voluntary = a thread blocked, involuntary = preempted), and does
# leaving one CPU free (15 threads) change them or the time? gapbs beside.
cd "$(dirname "$0")"
B=$PWD
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
gunzip -c vertex-counters.gz > /tmp/vc && chmod +x /tmp/vc
V=/tmp/vertex; C=/tmp/vc
$V gen grid --width 1000 --height 1000 -o /tmp/g.wel 2>&1 | tail -1
cs() { python3 -c "import json,sys; d=json.loads(sys.stdin.readlines()[-1]); print('vol/run %.0f invol/run %.0f minflt/run %.0f task_clock_s %.2f wall %.2f' % (d['voluntary_switches']/21, d['involuntary_switches']/21, d['minor_faults']/21, d['task_clock_ns']/1e9, d['wall_s']))"; }
for rep in 1 2 3; do
  for T in 16 15; do
    echo "== rep $rep threads $T"
    OMP_NUM_THREADS=$T $C -- $B/gapbs/sssp -f /tmp/g.wel -d 512 -r 0 -n 21 > /tmp/o.txt 2>&1; echo "gapbs d512: $(grep Average /tmp/o.txt) $(tail -1 /tmp/o.txt | cs)"
    for d in 50 512; do
      $C -- $V compare sssp /tmp/g.wel --schedules obim --threads $T --repeats 21 --delta $d > /tmp/o.txt 2>&1
      echo "ours d$d: $(grep -E '^obim' /tmp/o.txt | awk '{print $3" ms "$8" "$9}') $(tail -1 /tmp/o.txt | cs)"
    done
  done
done 2>&1 | tee $OUT/call4.log
echo "== one process, repeats 1 (set-up only)"
$C -- $V compare sssp /tmp/g.wel --schedules obim --threads 16 --repeats 1 --delta 50 2>&1 | tail -1 | tee -a $OUT/call4.log
