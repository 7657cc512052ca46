# Issue 20: where bulk Δ-stepping's time goes on the 1000² grid at 8 and 16 threads
# (VERTEX_DELTA_PROFILE=1), with gapbs's sssp on the same graph for reference.
set -u
cd bundle
[ -x vertex-old ] || { xz -d -f vertex-old.xz; chmod +x vertex-old; }
V=./vertex-old
$V gen grid --width 1000 --height 1000 -o /tmp/g.wel > /dev/null
$V convert /tmp/g.wel /tmp/g.vgr > /dev/null
for t in 8 16; do
  for d in 64 256 512; do
    for s in 483583 846040; do
      echo "== threads $t delta $d source $s"
      VERTEX_DELTA_PROFILE=1 $V sssp /tmp/g.vgr --backend cpu --schedule obim --threads $t --delta $d --source $s 2>&1 | grep -E "delta profile|time"
    done
  done
done
grep -v '^#' /tmp/g.wel > /tmp/g-nc.wel
for t in 8 16; do
  for d in 256 512; do
    echo "== gapbs threads $t delta $d"
    OMP_NUM_THREADS=$t ./gapbs/sssp -f /tmp/g-nc.wel -d $d -n 4 -r 483583 2>&1 | grep -E "Trial Time|Average"
  done
done
