#!/usr/bin/env bash
# The one-block round's own-vertex chain split by phase (row bounds, targets and
# cache probes, offers, appends): VERTEX_RESIDENT_PROFILE on grids, BFS and SSSP.
set -u
cd bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # label, env, args...
    local label=$1 env=$2; shift 2
    echo "== $label $*"
    env $env ./vertex "$@" --backend gpu --kernel resident 2>&1 | grep -E "^  (resident|time|oracle)|profile|rror|WRONG"
}
for g in grid:1000x1000 grid:2000x1000; do
    run plain X=1 bfs $g
    run prof VERTEX_RESIDENT_PROFILE=1 bfs $g
    run prof-seen0 "VERTEX_RESIDENT_PROFILE=1 VERTEX_RESIDENT_SEEN=0" bfs $g
    run prof VERTEX_RESIDENT_PROFILE=1 sssp $g
done
run prof-center VERTEX_RESIDENT_PROFILE=1 bfs grid:1000x1000 --source 500500 --validate
