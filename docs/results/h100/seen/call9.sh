#!/usr/bin/env bash
# After the CSR's leading kernel arguments moved into DeviceGraph::csr_args /
# weighted_csr_args: every launch path that uses them, validated, on a grid, a
# Kronecker graph and a directed edge-list file; memcheck on each path.
set -u
cd bundle
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n1)
python3 - <<'PY'
import random
random.seed(7)
n, m = 20000, 160000
with open('/tmp/rand.wel', 'w') as f:
    for _ in range(m):
        f.write(f"{random.randrange(n)} {random.randrange(n)} {random.randint(1, 255)}\n")
PY
for g in grid:300x200 kron:14 /tmp/rand.wel; do
    for p in bfs sssp; do
        for k in auto naive balanced direction resident tiles; do
            echo "== $p $g $k"
            ./vertex $p $g --backend gpu --kernel $k --validate 2>&1 | grep -E "^  (kernel|time|oracle)|rror|WRONG"
        done
    done
    echo "== cc $g"
    ./vertex cc $g --backend gpu --validate 2>&1 | grep -E "^  (kernel|time|oracle)|rror|WRONG"
done
for k in resident tiles direction balanced; do
    echo "== memcheck sssp kron:10 $k"
    timeout 120 "$SAN" --tool memcheck --error-exitcode 3 ./vertex sssp kron:10 --backend gpu --kernel $k --validate 2>&1 | grep -E "SUMMARY|oracle|rror" | head -3
done
echo "== memcheck cc grid:60x40"
timeout 120 "$SAN" --tool memcheck --error-exitcode 3 ./vertex cc grid:60x40 --backend gpu --validate 2>&1 | grep -E "SUMMARY|oracle|rror" | head -3
