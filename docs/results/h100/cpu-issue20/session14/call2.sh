# Issue 20: the worker-ordered push levels / even bulk passes (new) against HEAD~1 (old),
# alternating, on the H100 machine's 16-core host. Both sides verified by bench-cpu.
set -u
cd bundle
for b in new old; do xz -d -f vertex-$b.xz; chmod +x vertex-$b; done
cat GIT_REV; nproc; lscpu | grep -E "Model name|Socket|Core|Thread"
for r in 1 2; do
  for b in old new; do
    o=$OUT/ab/$b$r; mkdir -p $o
    t0=$SECONDS
    timeout 150 ./vertex-$b bench-cpu --gapbs gapbs --out $o --work /tmp/bc-$b \
      --bfs kron:20,grid:1000x1000 --sssp grid:1000x1000 --pr= --threads 4,8,16 \
      --roots 4 --trials 3 --deltas 64,256,512 > $o/log 2>&1
    echo "$b$r rc=$? $((SECONDS-t0)) s"
  done
done
python3 - <<'PY'
import json,glob,os
out=os.environ['OUT']
for g in ['bfs-kron-20','bfs-grid-1000x1000','sssp-grid-1000x1000']:
    for run in ['old1','new1','old2','new2']:
        f=f'{out}/ab/{run}/cpu-{g}.json'
        if not os.path.exists(f): print(g, run, 'missing'); continue
        d=json.load(open(f))
        print(g, run, ' '.join(f"{p['threads']}t: ours {p['ours_best']*1e3:.2f} ({p['ours_best_schedule']}) gapbs {p['gapbs']*1e3:.2f} r {p['ratio']:.2f} |" for p in d['job']['points']))
PY
