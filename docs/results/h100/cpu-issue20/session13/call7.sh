#!/usr/bin/env bash
# Issue 20, session 13, call 7: the host's ours/gapbs table (bench-cpu, as
# `gpu-run.sh cpuvs`): SSSP Kronecker 20 and grid 1000², BFS Kronecker 20/22 and
# grid 1000², 1-16 threads, 4 roots x 3 trials, both sides verified.
cd "$(dirname "$0")"
B=$PWD
gunzip -c vertex.gz > /tmp/vertex && chmod +x /tmp/vertex
V=/tmp/vertex
cat GIT_REV
mkdir -p /tmp/cpuvs
t0=$SECONDS
{
timeout 300 $V bench-cpu --gapbs "$B/gapbs" --out /tmp/cpuvs --work /tmp/bench-cpu --bfs= \
  --sssp kron:20,grid:1000x1000 --pr= --threads 1,2,4,8,16 --roots 4 --trials 3 \
  --deltas 16,32,64,128,256,512,1024
left=$((520 - (SECONDS - t0)))
timeout "$((left > 1 ? left : 1))" $V bench-cpu --gapbs "$B/gapbs" --out /tmp/cpuvs --work /tmp/bench-cpu \
  --bfs kron:20,kron:22,grid:1000x1000 --sssp= --pr= --threads 1,2,4,8,16 --roots 4 --trials 3
} > $OUT/call7.log 2>&1
python3 - /tmp/cpuvs <<'P' | tee -a $OUT/call7.log
import json,glob,sys,os
for f in sorted(glob.glob(sys.argv[1]+'/cpu-*.json')):
    j=json.load(open(f))['job']
    print(os.path.basename(f), ' '.join('%d:%.2f' % (p['threads'], p['ratio']) for p in j['points']),
          '| gapbs', ' '.join('%.1f' % (p['gapbs']*1e3) for p in j['points']),
          '| ours', ' '.join('%.1f' % (p['ours_best']*1e3) for p in j['points']))
P
cd /tmp/cpuvs && tar czf $OUT/cpuvs.tgz .
tail -5 $OUT/call7.log
