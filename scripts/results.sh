#!/usr/bin/env bash
# Regenerates docs/results/: one folder per benchmark, each with its JSON, SVG and a
# README.md (the exact command, the machine, the commit). Runs on the GPU machine from
# the bundle that scripts/gpu-bundle.sh builds (binaries in bundle/, gapbs in
# bundle/gapbs/), in a known sequence of device calls:
#
#   scripts/gpu-bundle.sh                                   # here
#   run (carry ["bundle"]): RESULTS_BUDGET=585 bash scripts/results.sh gap1  # device call, about 7.6 min
#   run (carry ["bundle"]): RESULTS_BUDGET=585 bash scripts/results.sh gap2  # about 5 min
#   run (carry ["bundle"]): RESULTS_BUDGET=585 bash scripts/results.sh gap3  # about 8.4 min
#   run (carry ["bundle"]): bash scripts/results.sh call2   # device call, about 5.5 min
#   run (carry ["bundle"]): bash scripts/results.sh call3   # about 3.2 min
#   run (carry ["bundle"]): bash scripts/results.sh call4   # about 2.7 min
#   bash scripts/results.sh apsp-cpu                        # here (the 2-core machine)
#   bash scripts/results.sh unpack GAP1/results.tgz ... CALL4/results.tgz
#
# `unpack` replaces each benchmark folder an archive holds (others stay as they are;
# the gap folder's files merge, as the GAP table spans three calls) and rewrites the
# README's results table (scripts/results_table.py --write).
#
# Steps (bash scripts/results.sh STEP...; seconds measured on one H200 + its 16-core
# host, 2026-11-29):
#   gap       vertex bench gap: the GAP suite's six kernels on Kronecker 22, urand 22,
#             the grid and the mesh at 1-16 threads + GPU, the small sparse shapes at
#             16 threads + GPU, ours vs gapbs, every result verified (units below;
#             all of them take about 21 minutes: gap1 + gap2 + gap3)               1256
#   graph500  vertex bench graph500 --backend gpu|gpu-dsl: scale 22 (hand-written and
#             DSL direction kernels) and 24, 64 roots, every tree validated on the GPU 30
#   pagerank  vertex compare pr: sync vs data-driven PageRank, Kronecker 20, grid 1000²,
#             1 and 16 threads (the data-driven runs at one thread take most of it)  331
#   cpu       vertex bench-cpu: BFS (Kronecker 20/22, grid) and SSSP (Kronecker 20,
#             grid) vs gapbs at 1, 4 and 16 threads, Δ swept on both sides          189
#   gpu-bfs   vertex-gpu-bench bench: direction vs balanced vs naive, Kronecker 16-21  53
#   gpu-sssp  vertex-gpu-bench sssp: edge chunks vs direction vs near-far, Kronecker
#             20, 22 and 24                                                               39
#   apsp-gpu  vertex-apsp-bench gpu: seed 002 sweep, blocked FW at N = 8192/16384     41
#   prgpu     vertex bench pr-gpu: the pagerank program vs bench/cuda/pr_pull.cu on
#             Kronecker 22/24 and the grid (nvcc builds pr_pull there)              ~200
#   apsp-cpu  vertex-apsp-bench cpu: blocked vs naive vs Johnson vs scipy/petgraph (run
#             on the 2-core development machine, where its figures come from)
#   gap1      gap: units kron22 grid mesh urand22-tc                              455
#   gap2      gap: unit urand22                                                   301
#   gap3      gap: units kron22-tc sparse                                         500
#   call2     pagerank                                                             331
#   call3     cpu                                                                  189
#   call4     graph500 gpu-bfs gpu-sssp apsp-gpu                                   163
#   all       every step in one invocation (too long for one device call)
# Not in the calls:
#   multi     vertex-gpu-bench multi on every GPU of the machine (needs >= 2 GPUs:
#             nvidia-h200-x2): BFS/SSSP/CC/PageRank on 1 and G GPUs vs the oracles
#             (Kronecker 22, grid, file), BFS strong scaling at 26 and weak 24->25->26
#             (MULTI_STRONG, MULTI_WEAK, MULTI_LPS, MULTI_CHECK_SCALE override)         ~6 min
#   gunrock   builds the Gunrock kit (bundle/gunrock), its BFS and ours on the same
#             Kronecker 22 file and sources                                            ~8 min
#
# Environment:
#   RESULTS_DIR   output root (default docs/results; with $OUT set, the device tool's
#                 output folder, a staging folder packed into $OUT/results.tgz after
#                 every step, whose paths are results/<benchmark>/...)
#   BUNDLE        the bundle folder (default bundle)
#   GAPBS         gapbs binaries (default $BUNDLE/gapbs); without them the gap step runs
#                 ours alone and the cpu step is skipped
#   RESULTS_BUDGET  seconds this invocation may take (default 450: a device call of 8
#                 minutes keeps a margin to pack); each command gets what is left of it
#   RESULTS_SMOKE=1  tiny graphs, the CPU backend, one or two threads: tries every step
#                 on a machine without a GPU (default output /tmp/vertex-results-smoke;
#                 binaries from ${CARGO_TARGET_DIR:-target}/release when no bundle);
#                 GPU-only steps say so and are skipped
# Exit status: non-zero if any step failed; later steps still run.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
SMOKE=${RESULTS_SMOKE:-0}
B=$(cd "${BUNDLE:-bundle}" 2>/dev/null && pwd || true)

# The bundle's binaries travel xz-compressed: unpack them (Python's lzma, as gpu-run.sh).
if [ -n "$B" ]; then
    for f in "$B"/*.xz; do
        [ -e "$f" ] || continue
        [ -e "${f%.xz}" ] || python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.open(sys.argv[1]).read())' "$f" "${f%.xz}"
        chmod +x "${f%.xz}"
    done
fi
bin() {
    if [ -n "$B" ] && [ -x "$B/$1" ]; then
        echo "$B/$1"
    elif [ -x "${CARGO_TARGET_DIR:-$REPO/target}/release/$1" ]; then
        echo "${CARGO_TARGET_DIR:-$REPO/target}/release/$1"
    fi
}
VERTEX=$(bin vertex)
GPU_BENCH=$(bin vertex-gpu-bench)
APSP_BENCH=$(bin vertex-apsp-bench)
GAPBS=${GAPBS:-${B:+$B/gapbs}}
[ -n "$GAPBS" ] && [ -x "$GAPBS/bfs" ] || GAPBS=

if [ -n "${OUT:-}" ] && [ -z "${RESULTS_DIR:-}" ]; then
    STAGE=/tmp/vertex-results-stage
    rm -rf "$STAGE"
    ROOT=$STAGE/results
elif [ "$SMOKE" = 1 ]; then
    ROOT=${RESULTS_DIR:-/tmp/vertex-results-smoke}
else
    ROOT=${RESULTS_DIR:-docs/results}
fi
mkdir -p "$ROOT"
ROOT=$(cd "$ROOT" && pwd)
# Each step's log (in the packed archive too when $OUT is set).
LOGS=${STAGE:+$STAGE/logs}
LOGS=${LOGS:-/tmp/vertex-results-logs}
mkdir -p "$LOGS"
WORK=/tmp/vertex-results-work
mkdir -p "$WORK"
pack() { [ -n "${STAGE:-}" ] && tar czf "$OUT/results.tgz" -C "$STAGE" . ; true; }

export RUST_BACKTRACE=1
# The commit the binaries were built from (read by the bench commands' JSON).
if [ -n "$B" ] && [ -s "$B/GIT_REV" ]; then
    REV=$(cat "$B/GIT_REV")
else
    REV=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
fi
export VERTEX_GIT_REV=$REV
# NVLink multicast must stay off on these shared machines (as gpu-run.sh).
export NCCL_NVLS_ENABLE=0
NCCL_LIB=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)
[ -n "$NCCL_LIB" ] && export LD_LIBRARY_PATH="$NCCL_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

NPROC=$(nproc)
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
GPU_COUNT=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
CPU_NAME=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n1)
if [ -n "$GPU_NAME" ]; then GPUS="$GPU_NAME (×$GPU_COUNT)"; else GPUS="no GPU"; fi
MACHINE="$GPUS, ${CPU_NAME:-unknown CPU} ($NPROC CPUs)"
# A short machine label for file names: h200, h100, ... or the host name.
LABEL=$(echo "${GPU_NAME:-}" | grep -oiE 'h[0-9]{3}|a100|l40s?' | head -n1 | tr 'A-Z' 'a-z')
LABEL=${LABEL:-$(hostname -s 2>/dev/null || echo host)}

# Each step: DIR is its folder (emptied first), CMDS the commands it ran (for the
# README), run CMD... runs and records one command.
DIR=
CMDS=()
begin() {
    if [ $((BUDGET - (SECONDS - START))) -lt 15 ]; then
        echo "$STEP: the call's budget (RESULTS_BUDGET=$BUDGET s) is spent: not run" >&2
        return 1
    fi
    DIR=$ROOT/$1
    rm -rf "$DIR"
    mkdir -p "$DIR"
    CMDS=()
}
# run CMD...: runs it, records it (binary paths shortened to their names).
run() {
    local shown="$*"
    [ -n "$B" ] && shown=${shown//"$B/"/}
    shown=${shown//"${CARGO_TARGET_DIR:-$REPO/target}/release/"/}
    shown=${shown//"$ROOT"/docs/results}
    CMDS+=("$shown")
    echo "+ [$((SECONDS - START)) s into the call] $shown" >&2
    # The call's time budget: what is left of it bounds each command, so a call
    # cut short still packs what the finished steps wrote.
    local left=$((BUDGET - (SECONDS - START)))
    if [ "$left" -lt 15 ]; then
        echo "$STEP: the call's budget (RESULTS_BUDGET=$BUDGET s) is spent: not run" >&2
        return 124
    fi
    timeout "$left" "$@"
}
# readme TITLE PARAGRAPH: the folder's README.md.
readme() {
    {
        echo "# $1"
        echo
        echo "$2"
        echo
        echo "Regenerate: \`bash scripts/results.sh $STEP\` on the GPU machine (see the script's"
        echo "header for the sequence of device calls). This run:"
        echo
        echo '```sh'
        printf '%s\n' "${CMDS[@]}"
        echo '```'
        echo
        echo "* machine: $MACHINE"
        echo "* commit: \`$REV\`"
        echo "* date: $(date -u +%Y-%m-%d)"
        [ "$SMOKE" = 1 ] && echo "* RESULTS_SMOKE=1: tiny graphs, not a measurement"
    } >"$DIR/README.md"
}
need_gpu() {
    if [ "$SMOKE" = 1 ] || [ -z "$GPU_NAME" ]; then
        echo "$STEP: needs a GPU (skipped)" >&2
        return 1
    fi
}
need() { [ -n "$2" ] || { echo "$STEP: $1 not found (build it, or run scripts/gpu-bundle.sh)" >&2; return 1; }; }

# The GAP table in units, each one `vertex bench gap` call writing gap-<label>-<unit>.json
# (a call cut short keeps the rows it finished). GAP_UNITS picks and orders them
# (default: all, in the order below), so the table spreads over device calls run
# back to back (`unpack` merges this folder's files instead of replacing it):
#   kron22      Kronecker 22: BFS, SSSP, PR, CC, BC at 1-16 threads + GPU, 1 trial
#   kron22-tc   Kronecker 22: TC at 1-16 threads + GPU, 1 trial
#   urand22     urand 22 as kron22           urand22-tc  urand 22's TC
#   grid        the 1000² grid, all six kernels at 1-16 threads + GPU, 3 trials
#   mesh        the 1 M-vertex mesh, as the grid
#   kron20      Kronecker 20, all six at 1-16 threads + GPU, 3 trials
#   sparse      grid:340² and mesh:65536 (the sizes of luxembourg_osm and
#               delaunay_n16), all cores + GPU, 3 trials
# Measured on one H200 + its 16-core host (2026-11-30, 1dc15c0): kron22 271 s, grid
# 39, mesh 60, urand22-tc 85, urand22 301, kron22-tc 480 (TC at one thread: 124 s
# ours, 132 s gapbs), sparse 20; kron20 (not in gap1-3) about 150.
GAP_ALL="kron22 grid mesh urand22-tc kron22-tc kron20 sparse urand22"
step_gap() {
    need vertex "$VERTEX" || return 1
    begin gap || return 124
    local ts=1,2,4,8,$NPROC tr=3 tr22=1 rc=0 unit
    local kron22=kron:22 urand22=urand:22 grid=grid:1000x1000 mesh=mesh:1000000 kron20=kron:20
    local small=(grid:340x340 mesh:65536)
    if [ "$SMOKE" = 1 ]; then
        kron22=kron:10 urand22=urand:10 grid=grid:30x30 mesh=mesh:2000 kron20=kron:9 small=(grid:20x20)
        ts=1,2; tr=1
    fi
    local peer=()
    [ -n "$GAPBS" ] && peer=(--gapbs "$GAPBS")
    local common=(--bc-together --roots 4 --out "$DIR" --work "$WORK/gap")
    local five=(--kernels bfs,sssp,pr,cc,bc)
    for unit in ${GAP_UNITS:-$GAP_ALL}; do
        # The unit's graphs, kernels, thread counts and trials.
        local u
        case $unit in
            kron22) u=("$kron22" "${five[@]}" --threads "$ts" --trials "$tr22") ;;
            kron22-tc) u=("$kron22" --kernels tc --threads "$ts" --trials "$tr22") ;;
            urand22) u=("$urand22" "${five[@]}" --threads "$ts" --trials "$tr22") ;;
            urand22-tc) u=("$urand22" --kernels tc --threads "$ts" --trials "$tr22") ;;
            grid) u=("$grid" --threads "$ts" --trials "$tr") ;;
            mesh) u=("$mesh" --threads "$ts" --trials "$tr") ;;
            kron20) u=("$kron20" --threads "$ts" --trials "$tr") ;;
            sparse) u=("${small[@]}" --threads "$NPROC" --trials "$tr") ;;
            *) echo "gap: unknown unit $unit (units: $GAP_ALL)" >&2; rc=1; continue ;;
        esac
        run "$VERTEX" bench gap "${u[@]}" --label "$LABEL-$unit" "${peer[@]}" "${common[@]}" || rc=$?
        pack
    done
    readme "GAP benchmark suite: ours vs gapbs" \
"The GAP suite's six kernels (BFS, SSSP, PageRank, CC, BC, TC) on power-law
(Kronecker), uniform random, road-like (grids) and mesh-like (random planar Delaunay
meshes) graphs, ours against gapbs on the identical CSR (handed over as \`.sg\`/\`.wsg\`),
the same sources on both sides, every result verified (ours against the oracles;
gapbs with \`-v\`, TC by the count it prints, compared with the oracle's).
Ratios are ours / gapbs time (< 1: ours faster): the CPU at the thread counts shown,
and our GPU against gapbs on all cores. BC runs its 4 sources in one run on each side
(gapbs \`bc -i4\`). \`mesh:65536\` has the size of \`delaunay_n16\`, \`grid:340x340\`
that of the road network \`luxembourg_osm\`. One file per unit of the sequence
(\`GAP_UNITS\` in scripts/results.sh). JSON: \`rows[]\` per kernel and graph,
\`points[]\` per thread count, \`gpu\` for the GPU column; the README's table takes,
per kernel and graph, the row of the newest file."
    return $rc
}

step_graph500() {
    need vertex "$VERTEX" || return 1
    begin graph500-gpu || return 124
    local rc=0
    if [ "$SMOKE" = 1 ] || [ -z "$GPU_NAME" ]; then
        echo "graph500: no GPU here, the CPU backend at scale 10 instead" >&2
        run "$VERTEX" bench graph500 --scale 10 --roots 8 --backend cpu --out "$DIR" || rc=1
    else
        run "$VERTEX" bench graph500 --scale 22 --backend gpu --kernel direction --validator gpu --out "$DIR" || rc=1
        run "$VERTEX" bench graph500 --scale 22 --backend gpu-dsl --kernel direction --validator gpu --out "$DIR" || rc=1
        run "$VERTEX" bench graph500 --scale 24 --backend gpu --kernel direction --validator gpu --out "$DIR" || rc=1
    fi
    readme "Graph500 BFS on the GPU" \
"Graph500 rules: Kronecker generator (edgefactor 16), 64 random roots of degree > 0,
every BFS tree validated (here by a separate GPU kernel), harmonic-mean TEPS over input
edges. \`--backend gpu\` is the hand-written direction-optimizing kernel (device-planned
levels, 8 per host wait); \`--backend gpu-dsl\` the same kernels generated from the
\`#[vertex_program]\` BFS in examples/src/programs/bfs.rs: their ratio is what the DSL
costs. JSON: \`report.teps.harmonic_mean\`, \`report.valid\`."
    return $rc
}

step_pagerank() {
    need vertex "$VERTEX" || return 1
    begin pagerank-sync-async || return 124
    local rc=0 g t=1,$NPROC
    local graphs=(kron:20 grid:1000x1000)
    [ "$SMOKE" = 1 ] && { graphs=(kron:10 grid:30x30); t=1,2; }
    for g in "${graphs[@]}"; do
        local f=pr-sync-async-${g//[:x]/-}
        run "$VERTEX" compare pr "$g" --threads "$t" --repeats 1 --svg "$DIR/$f.svg" --json >"$DIR/$f.json" || rc=1
    done
    readme "PageRank: level-synchronous vs data-driven" \
"The same PageRank (gapbs's definition: damping 0.85, L1 tolerance 1e-4) run as
synchronous rounds (\`pagerank\`, Jacobi pull), as data-driven Gauss–Seidel sweeps of
the same program (\`driven\`), and as residual push (\`pagerank_delta\`) in rounds and
under the asynchronous schedulers (\`async\`: chunked work-stealing, \`obim\`: ordered
buckets), at 1 thread and all cores; every run's ranks are compared with the reference
(\`l1_to_reference\`). JSON: \`rows[]\` with \`schedule\`, \`threads\`, \`time_ms\`,
\`speedup_vs_sync\`, \`edges\`, \`edges_vs_sync\`."
    return $rc
}

step_cpu() {
    need vertex "$VERTEX" || return 1
    need gapbs "$GAPBS" || return 1
    begin cpu-vs-gapbs || return 124
    if [ "$SMOKE" = 1 ]; then
        run "$VERTEX" bench-cpu --gapbs "$GAPBS" --bfs kron:10,grid:30x30 --sssp kron:10,grid:30x30 --pr= \
            --threads 1,2 --roots 2 --trials 1 --deltas 16,64 --out "$DIR" --work "$WORK/cpu"
    else
        run "$VERTEX" bench-cpu --gapbs "$GAPBS" --bfs kron:20,kron:22,grid:1000x1000 \
            --sssp kron:20,grid:1000x1000 --pr= --threads "${CPU_THREADS:-1,4,$NPROC}" --roots 4 --trials 3 \
            --deltas 32,64,128,256,512 --out "$DIR" --work "$WORK/cpu"
    fi >"$LOGS/cpu-stdout.json"
    local rc=$?
    # bench-cpu also prints the whole result as one JSON object; the files are per job.
    readme "CPU BFS and SSSP vs gapbs, by thread count" \
"Our CPU engines (level-synchronous BFS with direction switching, asynchronous and
ordered schedulers, bulk Δ-stepping) against gapbs \`bfs\` and \`sssp\` on the identical
CSR, the same 4 random roots, the median of 3 trials per root, Δ swept on both sides
(each side's best kept), gapbs under two OpenMP settings (the faster counts). Ratio =
ours / gapbs time (< 1: ours faster). One JSON and SVG per kernel and graph
(\`job.points[]\`: \`threads\`, \`ours_best\`, \`gapbs\`, \`ratio\`)."
    return $rc
}

step_gpu_bfs() {
    need_gpu || return 0
    need vertex-gpu-bench "$GPU_BENCH" || return 1
    begin gpu-bfs-kernels || return 124
    run "$GPU_BENCH" bench --out "$DIR"
    local rc=$?
    readme "GPU BFS kernels: direction-optimizing vs edge-chunk balanced vs naive" \
"The hand-written BFS level kernels on Kronecker graphs of scale 16-21, edgefactor 48
(seed 000's setting): one thread per vertex (\`naive\`), edge chunks of
\`max_edge_count\` edges per thread (\`balanced\`, seed 000) and the
direction-optimizing kernel with device-planned levels, plus the chunk-size sweep and
our CPU engine on the same graphs. JSON: \`scaling[]\` (GTEPS per scale and kernel),
\`ratios\` (balanced / naive), \`direction_ratios\` (direction / balanced)."
    return $rc
}

step_gpu_sssp() {
    need_gpu || return 0
    need vertex-gpu-bench "$GPU_BENCH" || return 1
    begin gpu-sssp || return 124
    run "$GPU_BENCH" sssp --graphs kron:20,kron:22,kron:24 --sources 8 --out "$DIR"
    local rc=$?
    readme "GPU SSSP kernels: edge chunks vs direction vs near-far buckets" \
"The \`#[vertex_program]\` SSSP's generated GPU kernels on Kronecker 20, 22 and 24
(weights 1..255), 8 sources, each result checked against Dijkstra: edge chunks over
all edges each pass (\`balanced\`, 8 edges per thread, and the old 64), the
\`direction\` kernel without buckets (a level over a frontier with more than 1/8 of
the edges scans every edge chunk, a smaller one lists the frontier's) and with
near-far buckets over a Δ sweep, with passes planned on the device or by the host.
\`auto\` runs the direction kernel from 2^26 edges (Kronecker 22 and up), edge
chunks below. JSON: \`variants[]\` with \`graph\`, \`name\`,
\`time_ms_median\`."
    return $rc
}

step_prgpu() {
    need_gpu || return 0
    need vertex "$VERTEX" || return 1
    begin pagerank-gpu || return 124
    local rc=0 hand=$WORK/pr_pull
    mkdir -p "$WORK"
    nvcc -O3 -arch=sm_90 -o "$hand" "$REPO/bench/cuda/pr_pull.cu" || return 1
    local peer=()
    [ -n "$GAPBS" ] && peer=(--gapbs "$GAPBS")
    run "$VERTEX" bench pr-gpu kron:22 grid:1000x1000 --hand "$hand" "${peer[@]}" --label "$LABEL" \
        --out "$DIR" --work "$WORK/prgpu" || rc=$?
    run "$VERTEX" bench pr-gpu kron:24 --hand "$hand" "${peer[@]}" --label "$LABEL-k24" \
        --out "$DIR" --work "$WORK/prgpu" || rc=$?
    readme "GPU PageRank: the DSL program vs the hand-written pull kernel" \
"The shipped \`pagerank\` program's generated gather/apply kernels against
bench/cuda/pr_pull.cu (\`chunk\`: the same edge-chunk pull, \`warp\`: a warp per vertex)
on the same undirected \`.sg\` file, same tolerance, round limit and edges per chunk,
best of 5 trials, CUDA-event times; gapbs \`pr\` on all host cores on the same file.
Ranks checked against the oracle and each other. JSON: \`rows[]\` per graph."
    return $rc
}

step_apsp_gpu() {
    need_gpu || return 0
    need vertex-apsp-bench "$APSP_BENCH" || return 1
    begin apsp-gpu || return 124
    run "$APSP_BENCH" gpu --out "$DIR"
    local rc=$?
    readme "All-pairs shortest paths on the GPU: blocked Floyd-Warshall" \
"Seed 002's sweep (sequential CPU Floyd-Warshall against one GPU thread per cell, N =
64-4096) and our blocked three-phase kernel at N up to 16384 against the measured
add+min peak of the device, every result checked against the CPU. JSON: \`rows[]\` per
N and variant, \`ratios[]\` as (N, what, value)."
    return $rc
}

step_apsp_cpu() {
    need vertex-apsp-bench "$APSP_BENCH" || return 1
    begin apsp-cpu || return 124
    local extra=()
    python3 -c 'import scipy' 2>/dev/null || extra+=(--no-scipy)
    if [ "$SMOKE" = 1 ]; then
        run "$APSP_BENCH" cpu --sizes 64,128 --naive-max 128 "${extra[@]}" --out "$DIR"
    else
        run "$APSP_BENCH" cpu --sizes 1024,2048 "${extra[@]}" --out "$DIR"
    fi
    local rc=$?
    readme "All-pairs shortest paths on the CPU" \
"Our blocked Floyd-Warshall (tiles, all cores and one thread) against the naive triple
loop, Johnson (a Dijkstra per source) and the single-threaded peers scipy and petgraph
(\`floyd_warshall\`), on uniform random graphs of density 0.1; every peer's matrix is
compared with ours. JSON: \`rows[]\` per N and variant, \`ratios[]\` as (N, what,
value: peer or variant time over ours)."
    return $rc
}

step_multi() {
    need_gpu || return 0
    need vertex-gpu-bench "$GPU_BENCH" || return 1
    if [ "${GPU_COUNT:-0}" -lt 2 ]; then
        echo "multi: needs at least 2 GPUs (this machine has ${GPU_COUNT:-0}); ask for nvidia-h200-x2" >&2
        return 1
    fi
    begin multi-gpu || return 124
    run "$GPU_BENCH" multi --gpus "$GPU_COUNT" --strong "${MULTI_STRONG:-26}" --weak "${MULTI_WEAK:-24,25}" \
        --levels-per-sync "${MULTI_LPS:-8}" --check-scale "${MULTI_CHECK_SCALE:-22}" --out "$DIR"
    local rc=$?
    readme "Multi-GPU programs in one process (1-D partition; peer-access exchange)" \
"The programs on a 1-D vertex partition over the GPUs of one host (design:
docs/multi-gpu.md). Traversals (BFS, SSSP, CC) run the direction kernels on each GPU's
part and exchange the frontier bitmap's slices (and the states of its vertices) after
each level; PageRank runs gather rounds on each GPU's vertices and exchanges the
messages (4 bytes a vertex) each round. The exchange reads the peers' slices over
NVLink peer access (\`route\`: peer; launched after cross-GPU event waits,
\`peer_barrier\`: events); the scaling runs are repeated over NCCL's
all-gather beside it (\`peer_over_nccl\` as (scale, levels per sync, NCCL time / peer
time), rows tagged with their \`route\`) and, over peer access, with each launch
waiting for its peers' arrival itself instead (\`other_barrier[]\`, \`over_row\`:
that time / the row's). Correctness and program speedups: BFS, SSSP (plain and near-far), CC and
PageRank on 1 and G GPUs against the CPU oracles on Kronecker (\`--check-scale\`), a
grid and a hubs-first file (\`checks[]\`; \`program_speedup\` as (graph, program, levels
per sync, GPUs, time on 1 GPU / time on G)). Scaling: Graph500 BFS on Kronecker graphs
with every vertex's neighbours hubs first (as \`vertex bench graph500\` builds them), 16
roots, every tree validated; strong scaling at the \`--strong\` scales, weak scaling S -> S + log2 G
for each \`--weak\` S (\`strong_speedup\`, \`weak_efficiency\` as (scale, levels per sync,
value); \`rows[]\` with the per-level time split and the exchange's share). Needs >= 2
GPUs: not part of \`all\`."
    return $rc
}

step_gunrock() {
    need_gpu || return 0
    need vertex-gpu-bench "$GPU_BENCH" || return 1
    [ -d "$B/gunrock" ] || { echo "gunrock: $B/gunrock missing (gpu-bundle.sh copies ../shared/peers/gunrock)" >&2; return 1; }
    begin gunrock || return 124
    local S=22 W=$WORK/gunrock G=$B/gunrock
    mkdir -p "$W"
    run bash "$G/build.sh" "$W/build" \
        && run bash "$G/kron.sh" "$S" "$W/g" \
        && run bash "$G/run.sh" "$S" "$W/g" "$W/build" "$W/out" 64 bfs \
        && cp "$W/out/bfs_kron$S.json" "$DIR/gunrock-bfs_kron$S-metrics.json" \
        && run "$GPU_BENCH" peer --graph "$W/g/kron$S.mtx" --sources "$W/g/kron$S.mtx.sources" \
            --gunrock "$W/out/bfs_kron$S.json" --out "$DIR"
    local rc=$?
    readme "GPU BFS: ours vs Gunrock" \
"Gunrock (essentials) BFS and ours (direction-optimizing and balanced kernels) on the
same Kronecker 22 Matrix Market file and the same 64 sources, on one GPU; Gunrock built
on the device from the kit in bundle/gunrock, our runs checked against the CPU oracle.
JSON: \`sides[]\` (\`gteps_hmean\`, \`time_ms_median\`), \`ratio_vs_gunrock\`. About 8
minutes (most of it building Gunrock): not part of \`all\`."
    return $rc
}

if [ "${1:-}" = unpack ]; then
    shift
    [ $# -gt 0 ] || { echo "unpack: give the results.tgz of each call" >&2; exit 2; }
    for tgz in "$@"; do
        tmp=$(mktemp -d)
        tar xzf "$tgz" -C "$tmp" || exit 1
        for d in "$tmp"/results/*/; do
            [ -d "$d" ] || continue
            b=$(basename "$d")
            if [ "$b" = gap ]; then
                # The GAP table spreads over calls: its files merge (the README is the last call's).
                mkdir -p docs/results/gap
                cp "$d"/* docs/results/gap/
                echo "docs/results/gap += $tgz"
                continue
            fi
            rm -rf "docs/results/$b" && cp -r "$d" "docs/results/$b" && echo "docs/results/$b <- $tgz"
        done
        rm -rf "$tmp"
    done
    exec python3 scripts/results_table.py --write
fi
steps=()
for a in "$@"; do
    case $a in
        gap1) export GAP_UNITS="kron22 grid mesh urand22-tc"; steps+=(gap) ;;
        gap2) export GAP_UNITS="urand22"; steps+=(gap) ;;
        gap3) export GAP_UNITS="kron22-tc sparse"; steps+=(gap) ;;
        call2) steps+=(pagerank) ;;
        call3) steps+=(cpu) ;;
        call4) steps+=(graph500 gpu-bfs gpu-sssp apsp-gpu prgpu) ;;
        all) steps+=(gap pagerank cpu graph500 gpu-bfs gpu-sssp apsp-gpu prgpu) ;;  # too long for one call
        *) steps+=("$a") ;;
    esac
done
if [ ${#steps[@]} -eq 0 ]; then
    sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 2
fi
echo "results: $ROOT (machine: $MACHINE; commit $REV; smoke $SMOKE)" >&2
BUDGET=${RESULTS_BUDGET:-450}
START=$SECONDS
status=0
for STEP in "${steps[@]}"; do
    t0=$SECONDS
    echo "=== $STEP" >&2
    case $STEP in
        gap | graph500 | pagerank | cpu | multi | gunrock | prgpu) fn=step_$STEP ;;
        gpu-bfs | gpu-sssp | apsp-gpu | apsp-cpu) fn=step_${STEP//-/_} ;;
        *) echo "unknown step $STEP (see bash scripts/results.sh with no argument)" >&2; status=2; continue ;;
    esac
    "$fn" 2>&1 | tee "$LOGS/$STEP.log"
    rc=${PIPESTATUS[0]}
    echo "=== $STEP: exit $rc, $((SECONDS - t0)) s" | tee -a "$LOGS/steps.log" >&2
    pack
    [ "$rc" -ne 0 ] && status=1
done
exit $status
