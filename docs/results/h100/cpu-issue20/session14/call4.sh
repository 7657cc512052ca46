# Issue 20's table on the H100 machine's 16-core host with this build (gpu-run.sh cpuvs's
# commands): SSSP then BFS, both sides verified, gapbs's better OpenMP setting, 530 s in all.
set -u
cd bundle
[ -x vertex-new ] || { xz -d -f vertex-new.xz; chmod +x vertex-new; }
cat GIT_REV
o=$OUT/cpuvs; mkdir -p $o
t0=$SECONDS
timeout 530 ./vertex-new bench-cpu --gapbs gapbs --out $o --work /tmp/bench-cpu --bfs= \
  --sssp kron:20,grid:1000x1000 --pr= --threads 1,2,4,8,16 --roots 4 --trials 3 \
  --deltas 16,32,64,128,256,512,1024 > $o/sssp.log 2>&1
echo "sssp rc=$? $((SECONDS-t0)) s"
left=$((530 - (SECONDS - t0)))
timeout $left ./vertex-new bench-cpu --gapbs gapbs --out $o --work /tmp/bench-cpu \
  --bfs kron:20,kron:22,grid:1000x1000 --sssp= --pr= --threads 1,2,4,8,16 --roots 4 --trials 3 \
  > $o/bfs.log 2>&1
echo "bfs rc=$? $((SECONDS-t0)) s"
python3 - <<'PY'
import json,glob,os
for f in sorted(glob.glob(os.environ['OUT']+'/cpuvs/cpu-*.json')):
    d=json.load(open(f)); j=d['job']
    print(os.path.basename(f), ' '.join(f"{p['threads']}t {p['ours_best']*1e3:.2f}/{p['gapbs']*1e3:.2f}={p['ratio']:.2f}" for p in j['points']))
PY
tar czf $OUT/cpuvs.tgz -C $OUT cpuvs && rm -rf $o
