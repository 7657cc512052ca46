# Issue 19: does a locality order of the grid's ids (Morton, Hilbert) make the
# resident kernel's rounds cheaper (ring neighbours share L2 sectors)? Same grid,
# three numberings, the same two sources mapped.
cp docs/results/h100/compact/perm_np.py bundle/ && cd bundle
V=./vertex
show() { grep -E "kernel |resident |tiles  |time|oracle|rror"; }
$V convert grid:1000x1000 /tmp/grid.wel >/dev/null
python3 perm_np.py /tmp | tee /tmp/map.txt
for f in grid morton hilbert; do $V convert /tmp/$f.wel /tmp/$f.vgr >/dev/null; done
read _ M0 M5 < <(grep morton /tmp/map.txt); read _ H0 H5 < <(grep hilbert /tmp/map.txt)
for rep in 1 2; do
  for spec in "grid 0 500500" "morton $M0 $M5" "hilbert $H0 $H5"; do
    set -- $spec; f=$1
    for s in $2 $3; do
      echo "== $f src=$s bfs resident"; $V bfs /tmp/$f.vgr --source $s --backend gpu --kernel resident --validate 2>&1 | show
      echo "== $f src=$s sssp tiles"; $V sssp /tmp/$f.vgr --source $s --backend gpu --kernel tiles --validate 2>&1 | show
      echo "== $f src=$s sssp resident"; $V sssp /tmp/$f.vgr --source $s --backend gpu --kernel resident --validate 2>&1 | show
    done
  done
done
for spec in "grid 500500" "morton $M5" "hilbert $H5"; do
  set -- $spec
  echo "== $1 bfs profile"; VERTEX_RESIDENT_PROFILE=1 $V bfs /tmp/$1.vgr --source $2 --backend gpu --kernel resident 2>&1 | grep -iE "profile|cycles|time"
  echo "== $1 cpu bfs 16t"; $V bfs /tmp/$1.vgr --source $2 --backend cpu --threads 16 2>&1 | grep -E "time"
  echo "== $1 cpu sssp 16t"; $V sssp /tmp/$1.vgr --source $2 --backend cpu --threads 16 2>&1 | grep -E "time"
done
