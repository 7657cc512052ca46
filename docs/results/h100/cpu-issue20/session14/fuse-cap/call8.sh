# Issue 20: capping bulk Δ-stepping's bin fusion per pass (VERTEX_FUSE_CAP, fused ids a
# worker drains from its own bin before the next pass shares what is left; unset = no
# cap, the committed behaviour), SSSP on the 1000² grid at 8 and 16 threads.
set -u
cd bundle
xz -d -f vertex-cap.xz; chmod +x vertex-cap
for r in 1 2; do
  for cap in none 4096 1024 256; do
    for d in 64 256 512; do
      for s in 846040 483583 285520; do
        if [ $cap = none ]; then unset VERTEX_FUSE_CAP; else export VERTEX_FUSE_CAP=$cap; fi
        ./vertex-cap compare sssp grid:1000x1000 --schedules obim --threads 8,16 --delta $d \
          --repeats 5 --source $s 2>&1 | grep -E "^  obim x" | sed "s/^/r$r cap $cap delta $d src $s /"
      done
    done
  done
done
