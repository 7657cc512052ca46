# Issue 20: work counts of our soft-priority obim on the 1000² grid by Δ and
# thread count (vertex compare: edges relaxed, redundancy, passes, stale tasks).
set -u
cd bundle
for d in 64 256 512; do
    echo "== delta $d"
    timeout 150 ./vertex compare sssp grid:1000x1000 --schedules obim --threads 1,2,4,8,16 --repeats 3 --delta $d 2>&1 | grep -E "^obim|^schedule"
done
