# Issue 20: focused A/B of the bulk Δ-stepping even split (new) vs HEAD~1 (old), and the
# level engine, on the 16-core host: `vertex compare`, best of 5 per point, alternating.
set -u
cd bundle
for b in new old; do [ -x vertex-$b ] || { xz -d -f vertex-$b.xz; chmod +x vertex-$b; }; done
for r in ${ROUNDS:-1 2 3}; do
  for b in old new; do
    for s in 846040 483583 285520; do
      for d in 64 256; do
        ./vertex-$b compare sssp grid:1000x1000 --schedules obim --threads 4,8,16 --delta $d \
          --repeats 5 --source $s 2>&1 | grep -E "^  obim x" | sed "s/^/$b$r sssp src $s delta $d /"
      done
      ./vertex-$b compare bfs grid:1000x1000 --schedules sync --threads 4,8,16 \
          --repeats 5 --source $s 2>&1 | grep -E "^  sync x" | sed "s/^/$b$r bfs src $s /"
    done
  done
done
