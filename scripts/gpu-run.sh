#!/usr/bin/env bash
# Runs on the GPU machine from the carried bundle (see scripts/gpu-bundle.sh):
#
#   bash bundle/gpu-run.sh info check sanitize bench [-- BENCH ARGS...]
#
# Steps, in the order given:
#   unpack    only unpack the bundle's compressed binaries (every call does that
#             first; this step does nothing else)
#   info      nvidia-smi and the device as the binary sees it
#   frontdoor the one run call on the GPU: the program-crate template's CLI (push,
#             struct-state gather, intersection) and `vertex run` for every shipped
#             program, validated against the oracles or compared with the CPU; with two
#             GPUs (or VERTEX_MULTI_DEVICES=0,0: two parts on one) the template with
#             --gpus 2, and the Python package (BUNDLE_WHEEL=1)
#   sources   many sources at once (issue 48): batched BC and closeness on the GPU
#             --validate'd on Kronecker, grid, uniform and a directed file (70 sources:
#             two batches), compute-sanitizer memcheck + racecheck of the msbfs kernels,
#             then `vertex bench sources` on $SOURCES_GRAPHS (default kron:22,
#             uniform:4194304:67108864, grid:1000x1000) with exact closeness on
#             $SOURCES_CLOSENESS (default kron:20 added) and `vertex bench gap --kernels
#             bc --bc-together` with $BC_ROOTS (default 4) sources on $BC_GRAPHS; each
#             bench under `timeout $SOURCES_TIMEOUT` (default 240 s)
#   closeness exact closeness on one GPU (issue 48): `vertex closeness G --sources all
#             --backend gpu --validate` (one CPU BFS per vertex) on grid:200x200,
#             mesh:40000, kron:14 and a directed file (compute-sanitizer memcheck and
#             racecheck on grid:20x20), --batching auto (the default: balls
#             of nearby sources on all but small worlds), balls and given, harmonic too on
#             the grid; then exact closeness of
#             $CLOSENESS_GRAPHS (default grid:1000x1000 mesh:1000000 kron:20) timed, each
#             under `timeout $CLOSENESS_TIMEOUT` (default 500 s), a JSON line per run in
#             closeness-runs.jsonl (time_s, kernel_s, reordered). CLOSENESS_GIVEN=G1,G2
#             also times those graphs with --batching given (the id-order batches: the
#             before; grid:1000x1000 that way is hours, give it a small grid);
#             CLOSENESS_LIMIT=S passes --time-limit S to the $CLOSENESS_GRAPHS runs (they
#             stop after about S seconds and project the whole run's time), and
#             CLOSENESS_BALLS (default kron:20) with --batching balls (balls on a small
#             world, where auto keeps the id order: on kron:16 they cut the CPU's
#             expansions from 1.95 to 1.25 per vertex a batch; is the GPU faster too?).
#             CLOSENESS_PART=check|time runs one half
#   batched   the generic many-sources kernels (any push program, `go_batched`) and
#             all-pairs by batched runs: `vertex apsp --algorithm batched` on the GPU
#             against FW (unweighted and weighted, summaries and rows), `bench sources`
#             checks (BFS program batched vs single runs), BC / closeness --validate,
#             compute-sanitizer memcheck + racecheck; then all pairs of $APSP_GRAPH
#             (default grid:316x316) batched on GPU and CPU vs CPU Johnson, each under
#             `timeout $APSP_TIMEOUT` (default 150 s). BATCHED_PART=check|time runs one half
#   gathermany  batched gather/apply programs (issue 48): `vertex bench ppr` (personalized
#             PageRank from 70 sources, two batches, one batched run vs single runs, and
#             Brandes's forward phase batched; every score checked, GPU vs CPU too) on
#             Kronecker, grid, uniform and a directed file, compute-sanitizer memcheck +
#             racecheck of the batched gather kernels, then the timing on
#             $GATHERMANY_GRAPHS (default kron:18 grid:500x500) under `timeout
#             $GATHERMANY_TIMEOUT` (default 300 s)
#   tc        triangle counting and lcc on the GPU --validate'd on grid, Kronecker,
#             uniform and mesh, sanitizers, then `bench gap --kernels tc` against
#             gapbs on $TC_GRAPHS (default grid:1000x1000 mesh:1000000)
#   check     GPU BFS vs the CPU oracle (Kronecker 10-20, grid, isolated, single vertex)
#   sanitize  compute-sanitizer --tool memcheck and --tool racecheck on small graphs
#   programs  the #[vertex_program] kernels (BFS, CC, SSSP, widest) vs the oracles
#   dsl       DSL-generated BFS vs the hand-written balanced kernel (Kronecker 20)
#   bench     direction vs balanced vs naive (Kronecker 16-21, ef 48) + chunk sweeps
#   sssp      the SSSP program: edge chunks vs work list vs near-far (Δ sweep)
#   graph500  Graph500 BFS, scale $G500_SCALES (default "22 24"), trees validated on
#             $G500_VALIDATOR (host or gpu, default host), hand kernels $G500_KERNELS
#             (default direction,balanced) and, unless G500_DSL=0, the DSL program's
#             direction kernels; every tree validated; $G500_SYNC levels per host
#             wait (comma list, default 8; "1,8" compares host- and device-planned
#             levels side by side). Scale 28 in one call:
#             G500_SCALES=28 G500_VALIDATOR=gpu G500_KERNELS=direction G500_DSL=0
#   g500big   Graph500 on all the machine's GPUs in one process, every tree checked on
#             the GPUs (--gpus G --validator gpu: each checks its own vertices), 64
#             roots (G500_BIG_ROOTS), at scales $G500_BIG_SCALES (default 29; 30 needs 4
#             H200s), each under `timeout $G500_BIG_TIMEOUT` (default 540 s); first
#             compute-sanitizer memcheck of the same at scale 12
#   multi     the NCCL multi-GPU traversal on all the machine's GPUs (nvidia-h100-x2):
#             vertex-gpu-bench multi — BFS/SSSP/CC on 1 and G GPUs vs the CPU oracles
#             (Kronecker $MULTI_CHECK_SCALE, default 20; grid 1000x1000; a holdout-style
#             SNAP file written and read back), BFS strong scaling at $MULTI_STRONG
#             (default "22,24") and weak scaling from $MULTI_WEAK (default "22,24": 1 GPU
#             at S, G at S+1), levels per sync $MULTI_LPS (default "1,8"), per-level time
#             split; then compute-sanitizer memcheck of `vertex bfs|sssp|pr kron:14 --gpus G
#             --validate`; a compact summary at the end (multi-summary.txt).
#             MULTI_PARTS=P runs P parts over the machine's GPUs round robin
#             (VERTEX_MULTI_DEVICES, e.g. 0,0 on one GPU): a check of the multi-GPU
#             code on a one-GPU machine, peer route only, times not a scaling figure;
#             MULTI_SANITIZE=0 leaves the compute-sanitizer runs out
#   ranks     one process per GPU (issue 52), G = the machine's GPUs (RANKS_BIND=gpu:
#             `vertex launch --bind gpu`, each rank on the CPUs next to its GPU): `vertex launch -n G
#             -- vertex bfs|cc|sssp|pr GRAPH --backend gpu --validate` on kron:$RANKS_CHECK_SCALE
#             (default 20), a 300² grid (.el), Kronecker 18 (.vgr, read by rows) and
#             odd-graphs.py's directed files (a small
#             component, a hub with 200,000 leaves and a path, id gaps), each against the
#             one-process run (BFS and SSSP on G GPUs: vertices reached, farthest
#             distance; Afforest: components; PageRank: rounds, top and sum of the
#             ranks, the one process validated against the oracle, the ranks by their
#             residual); SSSP, label-propagation components and PageRank on
#             kron:$RANKS_PROG_SCALE (default 22) timed on 1 GPU, G GPUs, G ranks; then Graph500 at scales $RANKS_SCALES
#             (default "22 24"), $RANKS_ROOTS roots (default 16): 1 GPU, one process on G
#             GPUs, G ranks, side by side (scripts/ranks-compare.py: same roots, reached
#             and nedge, TEPS and time ratios), $RANKS_TRIALS times (default 1); JSON/SVG in
#             $OUTDIR/ranks (trial k > 1: ranks/tk). RANKS_ONLY_G500=1 runs that part alone,
#             RANKS_SCALES="" skips it
#   gunrock   builds the Gunrock kit, runs its BFS on kron$GUNROCK_SCALE (default 22),
#             validates a few of its runs, then ours on the same file and sources
#   apsp      blocked/naive GPU Floyd-Warshall: seed 002 sweep, N = 8192/16384 vs add+min peak
#   closure   the GPU closure of every semiring program (issue 22): each program's kernels
#             (with and without next hops) vs the CPU at small N, under compute-sanitizer
#             memcheck + racecheck too; `vertex apsp|path --backend gpu` on f64 distances;
#             then vertex-apsp-bench closure at N = $CLOSURE_SIZES (default
#             4096,8192,16384; $CLOSURE_ARGS adds options, e.g. "--programs apsp,apsp_f64"
#             or "--large apsp" to cut the N = 16384 runs): apsp-closure.json + SVGs
#   shapes    every GPU kernel of bfs/sssp/widest/cc (auto, naive, balanced, direction,
#             resident, tiles) with --validate on the odd graph files of
#             scripts/odd-graphs.py (id gaps, directed, zero/huge/16-bit-boundary
#             weights, multi-edges, a 100,000-vertex chain, a hub with 200,000 leaves,
#             float weights), then compute-sanitizer memcheck on a few of them; a line
#             per run, "BAD" marks a run that did not agree with the oracle
#   handover  issue 19: `auto`'s direction kernel handing a long tail to the resident
#             kernel. Files: Kronecker $TAIL_SCALE (default 20) with a path of $TAIL_LEN
#             (default 3000) hung off it (scripts/tail-graph.py), from the core and from
#             the tail's end, and odd-graphs.py's star_path.wel (hub + 5,000-vertex
#             path); BFS (auto / direction / resident), SSSP and CC (auto / balanced /
#             resident), $TAIL_TRIALS (default 2) runs each, every run --validate'd;
#             kron:20 and kron:22 BFS and SSSP, auto against the level kernels alone;
#             then compute-sanitizer memcheck and racecheck on a Kronecker 12 + 300
#             tail file
#   raceprobe what racecheck reports for a shared-memory hand-over between two warps
#             without a block barrier, written six ways (bench/cuda/racecheck_handover.cu:
#             plain, fenced, relaxed atomics + fences as the tiles' messenger used, acquire/
#             release, read-modify-write atomics, exchanges + relaxed loads as the tiles'
#             puts), built here with nvcc
#   cpu       our CPU engines vs gapbs on all the machine's cores ($CPU_ARGS adds options)
#   cpuvs     issue 20's table: bench-cpu SSSP (kron:20, grid:1000x1000; ours with 32-bit
#             and 64-bit distances, pinned and not) then BFS (kron:20, kron:22,
#             grid:1000x1000; sync, async, sync pinned) at 1,2,4,8,16 threads, gapbs under
#             both OpenMP settings (unset; close/passive; the best is the ratio's
#             denominator); 4 roots, 3 trials; both cut at 530 s together (each graph's
#             JSON/SVG is written to $OUTDIR/cpuvs when done)
#   kernels   every GPU kernel of bfs and sssp (auto, direction, balanced, resident,
#             tiles) timed on $KERNEL_GRAPHS (default: meshes 65536/262144/1M, grids
#             340² and 1000², kron:22, urand:22; each converted to a .vgr once), from the
#             first vertex and from vertex n/2, best of $KERNEL_TRIALS (default 3) runs;
#             a line per (program, graph, source, kernel) and `auto`'s pick with its
#             reason: what `--kernel auto` is calibrated against (kernels.txt)
#   gather    gather/apply programs on the GPU (pr, pr-delta, kcore) vs the oracles, and
#             compute-sanitizer memcheck + racecheck on their kernels
#   prprofile Nsight Compute on GPU PageRank (Kronecker $PRPROFILE_SCALE, default 22): ours
#             (`vertex pr --backend gpu`, kernels vx_pagerank_ga_*) and the hand-written
#             pull kernel (pr_pull.cu, chunk), the first 4 rounds of each: duration,
#             DRAM throughput, occupancy, registers per launch (prprofile-*.csv/json)
#   prbench   GPU PageRank, ours vs the hand-written CUDA pull kernel vs gapbs on all
#             cores, as one bench command writing docs/results files:
#             `vertex bench pr-gpu` on $PRBENCH_GRAPHS (default kron:22 kron:24
#             grid:1000x1000) with the hand-written kernel (/tmp/pr_pull, built here)
#             and gapbs; ranks of ours vs the oracle and vs both hand kernels checked,
#             pagerank-gpu/pr-gpu-h200.json and .svg (under `timeout $PRBENCH_TIMEOUT`,
#             default 540 s)
#   prsync    sync vs data-driven PageRank on the CPU (vertex compare pr), Kronecker 20
#             and the 1000² grid
#   gap       the GAP kernels beyond BFS/SSSP/PR (bc, cc --algorithm afforest, tc, lcc): GPU vs the oracles, compute-sanitizer memcheck + racecheck,
#             then ours (CPU, GPU) vs gapbs on the same .sg files ($GAP_GRAPHS,
#             default "kron:20 grid:1000x1000"; written by the cpu step's --work or here)
#   demo      the first command a newcomer runs (`vertex`, the demo: GPU column included),
#             `vertex compare` with the GPU column on Kronecker 20, and compute-sanitizer
#             memcheck on the compare GPU runner
#   benchgap  `vertex bench gap` on $BENCHGAP_GRAPHS (default "kron:20"), threads
#             $BENCHGAP_THREADS (default 1,2,4,8,16), $BENCHGAP_TRIALS trials (default 3),
#             kernels $BENCHGAP_KERNELS (default all six), label $BENCHGAP_LABEL,
#             more options in $BENCHGAP_ARGS (e.g. "--no-gpu --bc-together --roots 4"); its JSON
#             and SVG go straight to $OUT (rewritten after every row, so a cut-off call
#             keeps what it measured)
#   ab        a kernel change measured side by side: the previous build (bundle/vertex-old or
#             vertex-old.xz, copied in by hand) and this one run alternately, $AB_REPEAT times
#             each (default 2), `vertex P G --backend $AB_BACKEND --kernel $AB_KERNEL`
#             (defaults gpu, resident) for P in $AB_PROGRAMS (default "bfs sssp"), G in
#             $AB_GRAPHS (default "grid:1000x1000 grid:2000x1000") and --source S for S in
#             $AB_SOURCES (default "-": the program's own), this build's runs with
#             --validate; a line per run (ms, rounds, threads a block, validated) and a
#             table of the best of each (new/old); then compute-sanitizer memcheck,
#             racecheck and synccheck on $AB_SAN_GRAPH (default grid:60x40; AB_SAN=0 skips
#             them). $AB_ENV (e.g. VERTEX_TILES_PROFILE=1) is exported for the runs. Try it
#             here first: AB_BACKEND=cpu AB_KERNEL=auto AB_SAN=0 with bundle/vertex-old a
#             copy of bundle/vertex.
#   multiab   a multi-GPU change side by side: Graph500 (--kernel direction, $MULTIAB_ROOTS
#             roots, default 8, host validator) at scales $MULTIAB_SCALES (default 20 22 24)
#             over $MULTIAB_PARTS parts (default 2 4) on GPU 0 (VERTEX_MULTI_DEVICES), the
#             previous build (bundle/vertex-old, as for ab) and this one alternately,
#             $AB_REPEAT times each (default 2): harmonic-mean GTEPS per run
#             (multiab-runs.txt) and the best of each with new/old
#   partprof  Work each part repeats: Graph500 at $PARTPROF_SCALES (default 22 24), 1
#             root, on one GPU and as $PARTPROF_PARTS (default 2 4) parts sharing GPU 0
#             (VERTEX_MULTI_DEVICES), under ncu with one metric (kernel duration; caches
#             and clocks left alone, as a run leaves them): the kernels' device time
#             summed per kernel name (partprof-*.json, scripts/ncu_kernel_sums.py). ncu runs kernels one at a time, so a sum is
#             the work the parts did, without their overlap on the shared GPU.
#   profile   Nsight Compute on the BFS level kernels (direction + balanced), Graph500 scale
#             $PROFILE_SCALE (default 22), 2 roots: per-launch duration, throughput,
#             occupancy, warp stalls as CSV (profile-*.csv) and a per-launch summary
#             (profile-*.json, scripts/ncu_summary.py)
# Logs and results go to ./gpu-out; with $OUT set (the device tool brings back at most
# 8 files), they are staged in /tmp and packed into $OUT/results.tgz after every step,
# so a call cut off at its time limit still returns what the finished steps wrote.
# Exit status: non-zero if any step failed; later steps still run.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
BIN=$B/vertex-gpu-bench
if [ -n "${OUT:-}" ]; then OUTDIR=/tmp/gpu-out; else OUTDIR=$PWD/gpu-out; fi
mkdir -p "$OUTDIR"
# Sets NCU to Nsight Compute's path, or says it is missing (also in log $1) and fails.
need_ncu() {
    NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n1 || true)
    [ -n "$NCU" ] || { echo "ncu not found" | tee -a "$1"; return 1; }
}
# VERTEX_MULTI_DEVICES for $1 parts over $2 GPUs, round robin ("0,0" for 2 parts on 1).
spread_parts() {
    python3 -c 'import sys; p, g = map(int, sys.argv[1:]); print(",".join(str(i % g) for i in range(p)))' "$1" "$2"
}
# One `vertex ... --json` object from stdin: appended to $1 as one line, and a
# one-line summary printed (program, kernel, time, rounds, validation).
jline() {
    python3 -c '
import json, sys
d = json.load(sys.stdin)
open(sys.argv[1], "a").write(json.dumps(d) + "\n")
print("   %s %s: %.3f ms, %s rounds, validated %s" % (d["program"], d.get("kernel"),
      d["time_s"] * 1e3, d["rounds"], d["validated"]))
sys.exit(0 if d["validated"] else 1)' "$1"
}
# `vertex ARGS... --validate` under compute-sanitizer --tool TOOL: prints the lines
# that say how it went (summary, oracle, resident rounds, errors).
san_vertex() {
    local tool=$1
    shift
    "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" "$@" --validate 2>&1 \
        | grep -E "SUMMARY|oracle|resident  |rror"
}
# One `ab` run, `vertex P G ARGS... --json` with binary B (vertex-old or vertex), as
# a line: build, program, graph, source, ms, rounds, threads a block (tiled and
# resident kernels), validated; also appended to $OUTDIR/ab-runs.txt. A run that
# prints no result is a FAILED line.
ab_line() {
    local b=$1 p=$2 g=$3 s=$4
    shift 4
    "$B/$b" "$p" "$g" --json "$@" 2>/dev/null | python3 -c '
import json, sys
b, p, g, s = sys.argv[1:5]
b = "old" if b == "vertex-old" else "new"
try:
    d = json.load(sys.stdin)
except ValueError:
    print("%-4s %-7s %-24s %8s FAILED" % (b, p, g, s))
    sys.exit(1)
k = d.get("tiles") or d.get("resident") or {}
print("%-4s %-7s %-24s %8s %9.3f ms rounds %6s threads %4s validated %s" % (b, p, g, s,
      d["time_s"] * 1e3, d["rounds"], k.get("threads_per_block", "-"), d.get("validated")))
sys.exit(0 if d.get("validated") in (None, True) else 1)' "$b" "$p" "$g" "$s" \
        | tee -a "$OUTDIR/ab-runs.txt"
    return "${PIPESTATUS[1]}"
}
# The `ab` lines so far ($OUTDIR/ab-runs.txt) as a table: the best time of each build
# per program, graph and source, and new/old.
ab_table() {
    python3 -c '
import collections, sys
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 5 and f[0] in ("old", "new") and f[5] == "ms":
        key, ms = tuple(f[1:4]), float(f[4])
        best[key][f[0]] = min(ms, best[key].get(f[0], ms))
print("%-7s %-24s %8s %9s %9s %7s" % ("program", "graph", "source", "old ms", "new ms", "new/old"))
for (p, g, s), t in best.items():
    o, n = t.get("old"), t.get("new")
    r = "%7.3f" % (n / o) if o and n else "      -"
    print("%-7s %-24s %8s %9s %9s %s" % (p, g, s, "%.3f" % o if o else "-", "%.3f" % n if n else "-", r))
' "$OUTDIR/ab-runs.txt"
}
pack() { [ -n "${OUT:-}" ] && tar czf "$OUT/results.tgz" -C "$OUTDIR" . ; true; }
export VERTEX_GIT_REV=$(cat "$B/GIT_REV" 2>/dev/null || echo unknown)
export RUST_BACKTRACE=1
# NVLink multicast must stay off on these shared machines (device notes, KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# libnccl comes with the image's Python packages (nvidia-nccl-cu13).
NCCL_LIB=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)
[ -n "$NCCL_LIB" ] && export LD_LIBRARY_PATH="$NCCL_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The bundle's binaries travel xz-compressed (gpu-bundle.sh): unpack them once
# (Python's lzma: the GPU machine need not have xz).
for f in "$B"/*.xz; do
    [ -e "$f" ] || continue
    [ -e "${f%.xz}" ] || python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.open(sys.argv[1]).read())' "$f" "${f%.xz}"
    chmod +x "${f%.xz}"
done
chmod +x "$BIN"

steps=()
bench_args=()
while [ $# -gt 0 ]; do
    if [ "$1" = "--" ]; then shift; bench_args=("$@"); break; fi
    steps+=("$1"); shift
done
[ ${#steps[@]} -eq 0 ] && steps=(info check sanitize bench)

SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n1 || true)
status=0
for step in "${steps[@]}"; do
    echo "=== $step"
    t0=$(date +%s)
    case $step in
        info)
            { nvidia-smi; "$BIN" info; } 2>&1 | tee "$OUTDIR/info.log"
            rc=${PIPESTATUS[0]}
            ;;
        check)
            "$BIN" check 2>&1 | tee "$OUTDIR/check.log"
            rc=${PIPESTATUS[0]}
            ;;
        sanitize)
            if [ -z "$SAN" ]; then
                echo "compute-sanitizer not found" | tee "$OUTDIR/sanitize.log"; rc=1
            else
                # The loop runs in a pipeline (a subshell): its status says whether any
                # run failed, since `rc` set inside would not reach this shell.
                for tool in memcheck racecheck; do
                    echo "--- compute-sanitizer --tool $tool"
                    "$SAN" --tool "$tool" --error-exitcode 3 "$BIN" sanitize || bad=1
                    "$SAN" --tool "$tool" --error-exitcode 3 "$BIN" programs --small || bad=1
                    "$SAN" --tool "$tool" --error-exitcode 3 "$BIN" sssp --graphs kron:8,grid:30x20 \
                        --sources 2 --out /tmp/san-sssp || bad=1
                    "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex-apsp-bench" check --max-n 200 \
                        || bad=1
                    # The GPU tree validator (vertex_check_bfs_tree) on a small Graph500 run.
                    "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" bench graph500 --scale 10 \
                        --roots 4 --backend gpu --validator gpu --out /tmp/san-g500 || bad=1
                    [ -z "${bad:-}" ]
                done 2>&1 | tee "$OUTDIR/sanitize.log"
                rc=${PIPESTATUS[0]}
            fi
            ;;
        programs)
            "$BIN" programs 2>&1 | tee "$OUTDIR/programs.log"
            rc=${PIPESTATUS[0]}
            ;;
        dsl)
            "$BIN" dsl --out "$OUTDIR" 2>&1 | tee "$OUTDIR/dsl.log"
            rc=${PIPESTATUS[0]}
            ;;
        bench)
            "$BIN" bench --out "$OUTDIR" "${bench_args[@]}" 2>&1 | tee "$OUTDIR/bench.log"
            rc=${PIPESTATUS[0]}
            ;;
        sssp)
            "$BIN" sssp --out "$OUTDIR" 2>&1 | tee "$OUTDIR/sssp.log"
            rc=${PIPESTATUS[0]}
            ;;
        graph500)
            rc=0
            for s in ${G500_SCALES:-22 24}; do
                "$B/vertex" bench graph500 --scale "$s" --backend gpu --kernel "${G500_KERNELS:-direction,balanced}" \
                    --levels-per-sync "${G500_SYNC:-8}" \
                    --validator "${G500_VALIDATOR:-host}" --out "$OUTDIR" 2>&1 | tee -a "$OUTDIR/graph500.log"
                rc=$(( rc | ${PIPESTATUS[0]} ))
                [ "${G500_DSL:-1}" = 0 ] && continue
                "$B/vertex" bench graph500 --scale "$s" --backend gpu-dsl --kernel direction \
                    --validator "${G500_VALIDATOR:-host}" --out "$OUTDIR" 2>&1 | tee -a "$OUTDIR/graph500.log"
                rc=$(( rc | ${PIPESTATUS[0]} ))
            done
            ;;
        g500big)
            G=$(nvidia-smi -L | wc -l)
            rc=0
            # The multi-GPU tree check under compute-sanitizer first (small scale).
            SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n1)
            "$SAN" --tool memcheck --report-api-errors no --error-exitcode 3 "$B/vertex" bench graph500 \
                --scale 12 --roots 4 --backend gpu --gpus "$G" --validator gpu --out /tmp/san-g500x \
                2>&1 | tail -n 3 | tee -a "$OUTDIR/g500big.log"
            rc=$(( rc | ${PIPESTATUS[0]} ))
            for s in ${G500_BIG_SCALES:-29}; do
                timeout "${G500_BIG_TIMEOUT:-540}" "$B/vertex" bench graph500 --scale "$s" \
                    --roots "${G500_BIG_ROOTS:-64}" --backend gpu --gpus "$G" --validator gpu \
                    --out "$OUTDIR" 2>&1 | tee -a "$OUTDIR/g500big.log"
                rc=$(( rc | ${PIPESTATUS[0]} ))
            done
            ;;
        ranks)
            G=$(nvidia-smi -L | wc -l)
            mkdir -p "$OUTDIR/ranks"
            {
                bad=0
                V=$B/vertex
                # RANKS_ONLY_G500=1: the Graph500 part alone.
                [ -n "${RANKS_ONLY_G500:-}" ] && RANKS_CHECKS="" || RANKS_CHECKS=1
                "$V" gen grid --width 300 --height 300 -o /tmp/ranks-grid.el >/dev/null
                "$V" gen kron --scale 18 -o /tmp/ranks-k18.vgr >/dev/null
                python3 "$B/odd-graphs.py" /tmp/ranks-odd >/dev/null
                for graph in ${RANKS_CHECKS:+"kron:${RANKS_CHECK_SCALE:-20}" /tmp/ranks-grid.el /tmp/ranks-k18.vgr \
                    /tmp/ranks-odd/dir_small.el /tmp/ranks-odd/star_path.wel /tmp/ranks-odd/dir_gaps.wel}; do
                    for prog in bfs cc sssp pr; do
                        # One process: BFS, SSSP and PageRank on the G GPUs (PageRank
                        # validated against the oracle), components (Afforest) on one;
                        # SSSP with the weights the ranks give every edge.
                        case $prog in
                            bfs) multi="--gpus $G" ;;
                            cc) multi="" ;;
                            sssp) multi="--gpus $G --weights 1..255" ;;
                            pr) multi="--gpus $G --validate" ;;
                        esac
                        echo "--- $prog $graph: one process ($multi), then $G ranks"
                        one=$("$V" $prog "$graph" --backend gpu $multi --json 2>/dev/null)
                        w="--validate"; [ $prog = sssp ] && w="--weights 1..255 --validate"
                        rk=$("$V" launch -n "$G" -- "$V" $prog "$graph" --backend gpu $w --json 2>/dev/null | grep "^{" | tail -1)
                        python3 -c '
import json, sys
one, rk = json.loads(sys.argv[1]), json.loads(sys.argv[2])
prog = sys.argv[3]
if prog == "bfs":
    a = (one["reached"], one["rounds"]); b = (rk["reached"], rk["levels"])
    ok = one["reached"] == rk["reached"] and rk["valid"]
elif prog == "sssp":
    a = (one["reached"], one["max_value"]); b = (rk["reached"], rk["max_distance"])
    ok = a == b and rk["valid"]
elif prog == "pr":
    a = (one["rounds"], one["top_rank"], one["rank_sum"]); b = (rk["rounds"], rk["top_rank"], rk["sum"])
    close = lambda x, y: abs(x - y) <= 1e-6 * abs(y)
    rk["valid"] = (rk.get("check") or {}).get("valid", False)
    ok = a[0] == b[0] and close(a[1], b[1]) and close(a[2], b[2]) and one["validated"] is not False and rk["valid"]
else:
    a = one.get("components"); b = rk["components"]
    ok = a == b and rk["valid"]
print("   one process %s, ranks %s (%.2f ms vs %.2f ms), valid %s: %s" % (a, b,
      one["time_s"] * 1e3, rk["time_ms"], rk["valid"], "ok" if ok else "BAD"))
sys.exit(0 if ok else 1)' "$one" "$rk" "$prog" || { bad=1; echo "   one: ${one:0:300}"; echo "   ranks: ${rk:0:300}"; }
                    done
                done
                pack
                # SSSP and components: 1 GPU, one process on G GPUs, G ranks (time of
                # the search; label propagation for components on every side).
                PG=kron:${RANKS_PROG_SCALE:-22}
                for prog in ${RANKS_CHECKS:+sssp cc pr}; do
                    extra=""; [ $prog = cc ] && extra="--algorithm label"
                    t1=$("$V" $prog "$PG" --backend gpu $extra --json 2>/dev/null | python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["time_s"] * 1e3))')
                    tg=$("$V" $prog "$PG" --backend gpu --gpus "$G" $extra --json 2>/dev/null | python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["time_s"] * 1e3))')
                    tr=$("$V" launch -n "$G" -- "$V" $prog "$PG" --backend gpu --json 2>/dev/null | grep "^{" | tail -1 | python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["time_ms"])')
                    echo "--- $prog $PG: 1 GPU $t1 ms, one process on $G GPUs $tg ms, $G ranks $tr ms"
                done
                pack
                # Where the ranks run (the bimodal slow rank): GPU/NUMA topology,
                # automatic NUMA balancing, and NCCL's affinity lines of one run.
                nvidia-smi topo -m 2>&1 | head -n 12
                echo "numa_balancing: $(cat /proc/sys/kernel/numa_balancing 2>/dev/null || echo unknown)"
                NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT "$V" launch -n "$G" --bind "${RANKS_BIND:-none}" -- \
                    "$V" bfs kron:16 --backend gpu 2>&1 | grep -iE "affinity|unbound" | head -n 8
                for s in ${RANKS_SCALES-22 24}; do
                    R=${RANKS_ROOTS:-16}
                    for t in $(seq "${RANKS_TRIALS:-1}"); do
                        # Trial 1 writes to ranks/, trial k to ranks/tk/.
                        O="$OUTDIR/ranks"; [ "$t" -gt 1 ] && O="$OUTDIR/ranks/t$t"
                        mkdir -p "$O"
                        echo "--- graph500 scale $s, $R roots, trial $t: 1 GPU, one process on $G GPUs, $G ranks"
                        "$V" bench graph500 --scale "$s" --roots "$R" --backend gpu-dsl --kernel direction \
                            --out "$O" 2>&1 | grep -E "harmonic_mean|error" || bad=1
                        "$V" bench graph500 --scale "$s" --roots "$R" --backend gpu --gpus "$G" \
                            --out "$O" 2>&1 | grep -E "harmonic_mean|error" || bad=1
                        # One process over NCCL too (the ranks' route): the process
                        # model compared alone, beside the peer exchange's gain.
                        mkdir -p "$O/nccl"
                        VERTEX_EXCHANGE=nccl "$V" bench graph500 --scale "$s" --roots "$R" --backend gpu \
                            --gpus "$G" --out "$O/nccl" 2>&1 | grep -E "harmonic_mean|error" || bad=1
                        "$V" launch -n "$G" --bind "${RANKS_BIND:-none}" -- "$V" bench graph500 --scale "$s" \
                            --roots "$R" --backend gpu \
                            --out "$O" 2>&1 | grep -E "harmonic_mean|error|vertices|unbound" || bad=1
                        python3 "$B/ranks-compare.py" "$O/graph500-gpu-x$G-direction-s$s.json" \
                            "$O/graph500-gpu-ranks$G-s$s.json" \
                            "$O/graph500-gpu-dsl-direction-s$s.json" || bad=1
                        echo "  against one process over NCCL:"
                        python3 "$B/ranks-compare.py" "$O/nccl/graph500-gpu-x$G-direction-s$s.json" \
                            "$O/graph500-gpu-ranks$G-s$s.json" | head -n 1 || bad=1
                        pack
                    done
                done
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/ranks.log"
            rc=${PIPESTATUS[0]}
            pack
            ;;
        multi)
            G=$(nvidia-smi -L | wc -l)
            if [ -n "${MULTI_PARTS:-}" ]; then
                VERTEX_MULTI_DEVICES=$(spread_parts "$MULTI_PARTS" "$G")
                export VERTEX_MULTI_DEVICES; G=$MULTI_PARTS
                echo "parts on devices $VERTEX_MULTI_DEVICES"
            fi
            {
                bad=0
                "$BIN" multi --gpus "$G" --strong "${MULTI_STRONG:-22,24}" --weak "${MULTI_WEAK:-22,24}" \
                    --levels-per-sync "${MULTI_LPS:-1,8}" --check-scale "${MULTI_CHECK_SCALE:-20}" \
                    --out "$OUTDIR" > "$OUTDIR/multi-summary.txt" || bad=1
                pack
                if [ "${MULTI_SANITIZE:-1}" = 0 ]; then
                    echo "compute-sanitizer runs left out (MULTI_SANITIZE=0)"
                elif [ -z "$SAN" ]; then
                    echo "compute-sanitizer not found"; bad=1
                else
                    for prog in bfs sssp pr; do
                        echo "--- compute-sanitizer --tool memcheck: vertex $prog kron:14 --gpus $G"
                        # compute-sanitizer may serialize the GPUs' kernels, which NCCL's
                        # peer kernels cannot finish under: cut at 75 s and say so.
                        # NCCL probes kernels for other architectures with
                        # cudaFuncGetAttributes; those API errors (102 per run) are
                        # not memory errors of ours: leave them out of the count.
                        timeout 75 "$SAN" --tool memcheck --report-api-errors no --error-exitcode 3 \
                            "$B/vertex" "$prog" kron:14 \
                            --backend gpu --gpus "$G" --validate --json > "/tmp/san-multi-$prog.json" \
                            || { e=$?; bad=1; [ "$e" = 124 ] && echo "memcheck $prog: TIMEOUT (75 s)" \
                                || echo "memcheck $prog: FAILED (exit $e)"; }
                        [ -s "/tmp/san-multi-$prog.json" ] && tail -c 400 "/tmp/san-multi-$prog.json" && echo
                    done
                    # The peer exchange's kernel (vertex_peer_gather) under racecheck too.
                    echo "--- compute-sanitizer --tool racecheck: vertex sssp kron:14 --gpus $G"
                    timeout 75 "$SAN" --tool racecheck --error-exitcode 3 "$B/vertex" sssp kron:14 \
                        --backend gpu --gpus "$G" --weights 1..255 --validate --json > /dev/null \
                        || { bad=1; echo "racecheck sssp: FAILED or TIMEOUT"; }
                fi
                echo "=== multi summary"
                cat "$OUTDIR/multi-summary.txt"
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/multi.log"
            rc=${PIPESTATUS[0]}
            ;;
        gunrock)
            S=${GUNROCK_SCALE:-22}; W=/tmp/gunrock-work; G=$B/gunrock
            mkdir -p "$W"
            {
                bash "$G/build.sh" "$W/build" \
                && bash "$G/kron.sh" "$S" "$W/g" \
                && bash "$G/run.sh" "$S" "$W/g" "$W/build" "$OUTDIR/gunrock" 64 bfs \
                && { "$W/build/bin/bfs" -m "$W/g/kron$S.mtx" -s "$(cut -d, -f1-4 "$W/g/kron$S.mtx.sources")" \
                        --validate 2>&1 | tail -n 20 > "$OUTDIR/gunrock-validate.log"; true; } \
                && "$BIN" peer --graph "$W/g/kron$S.mtx" --sources "$W/g/kron$S.mtx.sources" \
                    --gunrock "$OUTDIR/gunrock/bfs_kron$S.json" --out "$OUTDIR"
            } 2>&1 | tee "$OUTDIR/gunrock.log"
            rc=${PIPESTATUS[0]}
            ;;
        apsp)
            "$B/vertex-apsp-bench" gpu --out "$OUTDIR" 2>&1 | tee "$OUTDIR/apsp.log"
            rc=${PIPESTATUS[0]}
            ;;
        closure)
            {
                bad=0
                "$B/vertex-apsp-bench" closure-check || bad=1
                if [ -z "$SAN" ]; then
                    echo "compute-sanitizer not found"; bad=1
                else
                    for tool in memcheck racecheck; do
                        echo "--- compute-sanitizer --tool $tool"
                        "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex-apsp-bench" closure-check \
                            --sizes 1,130 || bad=1
                        # The built-in min-plus f64 kernels, with next hops (-o writes them).
                        "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" apsp grid:12x12 --element f64 \
                            --backend gpu --next-hop -o /tmp/san-closure.apsp --json || bad=1
                    done
                fi
                # The CLI on real-valued distances: the GPU closure picked by itself.
                "$B/vertex" apsp uniform:3000:600000 --element f64 --backend gpu --json || bad=1
                "$B/vertex" apsp uniform:3000:600000 --element f64 --backend auto --json || bad=1
                "$B/vertex" path uniform:3000:600000 0 2999 --backend gpu --json || bad=1
                # shellcheck disable=SC2086 # CLOSURE_ARGS is a list of options
                "$B/vertex-apsp-bench" closure --sizes "${CLOSURE_SIZES:-4096,8192,16384}" \
                    --out "$OUTDIR" ${CLOSURE_ARGS:-} || bad=1
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/closure.log"
            rc=${PIPESTATUS[0]}
            ;;
        unpack)
            rc=0
            ;;
        frontdoor)
            # The one run call on the GPU: the program-crate template's command
            # line (a push, a struct-state gather and an intersection program)
            # and `vertex run` (every shipped program), each checked against the
            # CPU (compare: every row must agree with the first) or its oracle.
            {
                T="$B/my-vertex-programs"
                bad=0
                "$T" within_hops kron:16 --backend gpu --json || bad=1
                "$T" paths grid:300x300 --backend gpu -o /tmp/paths.txt --json || bad=1
                head -3 /tmp/paths.txt
                "$T" compare paths grid:300x300 --schedules sync,gpu --repeat 2 --require-all || bad=1
                # A file, as a user hands one over: a DIMACS road-like grid.
                "$B/vertex" gen grid --width 200 --height 100 -o /tmp/road.gr || bad=1
                "$T" paths /tmp/road.gr --backend gpu --source 5 -o /tmp/road-paths.txt --json || bad=1
                "$T" compare paths /tmp/road.gr --source 5 --schedules sync,gpu --repeat 2 --require-all || bad=1
                "$T" compare within_hops kron:18 --schedules sync,async,gpu --repeat 2 --require-all || bad=1
                "$T" compare wedges kron:16 --symmetrize --schedules sync,gpu --repeat 2 --require-all || bad=1
                for p in bfs sssp widest; do
                    for g in kron:18 grid:500x500; do
                        "$B/vertex" run "$p" "$g" --backend gpu --validate --json || bad=1
                    done
                done
                for p in cc triangles lcc; do
                    "$B/vertex" run "$p" kron:16 --symmetrize --backend gpu --validate --json || bad=1
                done
                for p in pagerank kcore; do
                    "$B/vertex" run compare "$p" kron:18 --symmetrize --schedules sync,gpu --repeat 2 --require-all || bad=1
                done
                "$B/vertex" run bfs kron:18 --json | head -c 600; echo
                # Several GPUs through the same run call: the template's command
                # line (--gpus 2, both routes) against its CPU run.
                # VERTEX_MULTI_DEVICES=0,0 on one GPU: two parts on it, peer route only.
                routes="peer nccl"; [ -n "${VERTEX_MULTI_DEVICES:-}" ] && routes=peer
                if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ] || [ -n "${VERTEX_MULTI_DEVICES:-}" ]; then
                    for p in within_hops paths; do
                        for g in kron:18 grid:200x200; do
                            want=$("$T" "$p" "$g" --backend cpu --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"])')
                            for ex in $routes; do
                                got=$("$T" "$p" "$g" --backend gpu --gpus 2 --exchange "$ex" --json \
                                    | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"])')
                                [ "$got" = "$want" ] && echo "$p $g --gpus 2 $ex ok" \
                                    || { echo "BAD $p $g --gpus 2 $ex: $got, CPU $want"; bad=1; }
                            done
                        done
                    done
                fi
                # The Python package (gpu-bundle.sh with BUNDLE_WHEEL=1), one GPU
                # and, where there are two, gpus=2 on both routes, against the CPU.
                whl=$(ls "$B"/wheel/*.whl 2>/dev/null | head -n1)
                if [ -n "$whl" ]; then
                    rm -rf /tmp/pyvx && pip install -q --no-deps --target /tmp/pyvx "$whl" || bad=1
                    PYTHONPATH=/tmp/pyvx python3 "$B/python-gpus.py" || bad=1
                fi
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/frontdoor.log"
            rc=${PIPESTATUS[0]}
            ;;
        raceprobe)
            {
                nvcc -O2 -arch=sm_90 -lineinfo -o /tmp/racecheck_handover \
                    "$B/cuda/racecheck_handover.cu" || exit 1
                for v in 0 1 2 3 4 5; do
                    /tmp/racecheck_handover "$v" || exit 1
                    "$SAN" --tool racecheck --racecheck-report all /tmp/racecheck_handover "$v" 2>&1 \
                        | grep -E "variant|SUMMARY|Race reported|and (Read|Write) access"
                done
            } 2>&1 | tee "$OUTDIR/raceprobe.log"
            rc=${PIPESTATUS[0]}
            ;;
        cpu)
            # shellcheck disable=SC2086 # CPU_ARGS is a list of options
            "$B/vertex" bench-cpu --gapbs "$B/gapbs" --out "$OUTDIR" --work /tmp/bench-cpu \
                ${CPU_ARGS:-} 2>&1 | tee "$OUTDIR/cpu.log"
            rc=${PIPESTATUS[0]}
            ;;
        shapes)
            {
                rc=0
                dir=/tmp/odd-graphs
                python3 "$B/odd-graphs.py" "$dir" || exit 2
                for f in "$dir"/*; do
                    for p in ${SHAPES_PROGRAMS:-bfs sssp widest cc}; do
                        for k in ${SHAPES_KERNELS:-auto naive balanced direction resident tiles}; do
                            a=(--kernel "$k"); [ "$p" = cc ] && a=(--algorithm label --kernel "$k")
                            out=$("$B/vertex" "$p" "$f" --backend gpu "${a[@]}" --validate 2>&1)
                            if grep -q "oracle .*agrees" <<<"$out"; then
                                line=$(grep -E "^  (kernel|time)" <<<"$out" | tr -s ' ' | tr '\n' ' ')
                                echo "ok  $(basename "$f") $p $k: ${line:0:160}"
                            elif grep -qi "not supported\|does not support\|cannot run\|is not a valid" <<<"$out"; then
                                echo "n/a $(basename "$f") $p $k: $(grep -i error <<<"$out" | head -n1 | cut -c1-160)"
                            else
                                echo "BAD $(basename "$f") $p $k:"; tail -n 5 <<<"$out"; rc=1
                            fi
                        done
                    done
                done
                for run in "sssp grid_w16.wel tiles" "sssp grid_bigw.gr tiles" "bfs dir_gaps.wel resident" \
                    "sssp star_path.wel auto" "widest grid_zero_multi.wel tiles" "sssp chain_huge.wel resident"; do
                    set -- $run
                    echo "== memcheck $run"
                    "$SAN" --tool memcheck --error-exitcode 3 "$B/vertex" "$1" "$dir/$2" --backend gpu \
                        --kernel "$3" --validate 2>&1 | grep -E "SUMMARY|oracle|rror" || rc=1
                done
                exit "$rc"
            } 2>&1 | tee "$OUTDIR/shapes.log"
            rc=${PIPESTATUS[0]}
            ;;
        ab)
            {
                rc=0
                [ -x "$B/vertex-old" ] || { echo "ab: bundle/vertex-old is missing (copy the previous build there)"; exit 2; }
                # shellcheck disable=SC2086 # AB_ENV is a list of assignments
                [ -n "${AB_ENV:-}" ] && export ${AB_ENV}
                k=${AB_KERNEL:-resident}
                be=${AB_BACKEND:-gpu}
                rm -f "$OUTDIR/ab-runs.txt"
                for g in ${AB_GRAPHS:-grid:1000x1000 grid:2000x1000}; do
                    for p in ${AB_PROGRAMS:-bfs sssp}; do
                        for s in ${AB_SOURCES:--}; do
                            src=(); [ "$s" = - ] || src=(--source "$s")
                            for _ in $(seq "${AB_REPEAT:-2}"); do
                                for b in vertex-old vertex; do
                                    v=(); [ "$b" = vertex ] && v=(--validate)
                                    ab_line "$b" "$p" "$g" "$s" --backend "$be" --kernel "$k" \
                                        "${src[@]}" "${v[@]}" || rc=1
                                done
                            done
                        done
                    done
                done
                ab_table
                if [ "${AB_SAN:-1}" != 0 ]; then
                    for t in memcheck racecheck synccheck; do
                        for p in ${AB_PROGRAMS:-bfs sssp}; do
                            echo "== $t $p ${AB_SAN_GRAPH:-grid:60x40}"
                            san_vertex "$t" "$p" "${AB_SAN_GRAPH:-grid:60x40}" --backend "$be" \
                                --kernel "$k" || rc=1
                        done
                    done
                fi
                exit "$rc"
            } 2>&1 | tee "$OUTDIR/ab.log"
            rc=${PIPESTATUS[0]}
            ;;
        cpuvs)
            # SSSP first, then BFS, within one 530 s budget.
            budget_t0=$SECONDS
            {
                # shellcheck disable=SC2086 # CPU_ARGS is a list of options
                timeout 530 "$B/vertex" bench-cpu --gapbs "$B/gapbs" --out "$OUTDIR/cpuvs" \
                    --work /tmp/bench-cpu --bfs= --sssp kron:20,grid:1000x1000 --pr= \
                    --threads 1,2,4,8,16 --roots 4 --trials 3 --deltas 16,32,64,128,256,512,1024 \
                    ${CPU_ARGS:-}
                rc_sssp=$?
                left=$((530 - (SECONDS - budget_t0)))
                # shellcheck disable=SC2086 # CPU_ARGS is a list of options
                timeout "$((left > 1 ? left : 1))" "$B/vertex" bench-cpu --gapbs "$B/gapbs" \
                    --out "$OUTDIR/cpuvs" --work /tmp/bench-cpu \
                    --bfs kron:20,kron:22,grid:1000x1000 --sssp= --pr= \
                    --threads 1,2,4,8,16 --roots 4 --trials 3 ${CPU_ARGS:-}
                rc_bfs=$?
                [ "$rc_sssp" = 0 ] && [ "$rc_bfs" = 0 ]
            } 2>&1 | tee "$OUTDIR/cpuvs.log"
            rc=${PIPESTATUS[0]}
            ;;
        gather)
            {
                bad=0
                for g in kron:18 grid:300x300 uniform:100000:800000; do
                    for p in pr pr-delta kcore; do
                        "$B/vertex" "$p" "$g" --backend gpu --validate --json || bad=1
                    done
                done
                "$B/vertex" pr kron:20 --backend gpu --direction push --validate --json || bad=1
                "$B/vertex" kcore kron:20 --backend gpu --direction pull --validate --json || bad=1
                if [ -n "$SAN" ]; then
                    for tool in memcheck racecheck; do
                        for p in pr pr-delta kcore; do
                            echo "--- compute-sanitizer --tool $tool vertex $p"
                            "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" "$p" kron:9 \
                                --backend gpu --max-edge-count 3 --validate || bad=1
                        done
                    done
                else
                    echo "compute-sanitizer not found"; bad=1
                fi
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/gather.log"
            rc=${PIPESTATUS[0]}
            ;;
        prprofile)
            {
                bad=0
                need_ncu /dev/null || bad=1
                nvcc -O3 -arch=sm_90 -o /tmp/pr_pull "$B/cuda/pr_pull.cu" || bad=1
                g="kron:${PRPROFILE_SCALE:-22}"
                rm -rf /tmp/prsg
                # The .sg file pr_pull reads (and gapbs `pr` on all cores, for scale).
                "$B/vertex" bench-cpu --gapbs "$B/gapbs" --bfs= --sssp= --pr "$g" \
                    --threads "$(nproc)" --trials 1 --work /tmp/prsg --out "$OUTDIR/prprofile-cpu" || bad=1
                sg=$(ls /tmp/prsg/*.sg | head -n1)
                sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats"
                # ours: init, then emit/pull/apply per round; 13 launches = 4 rounds.
                "$NCU" --clock-control none -k 'regex:vx_pagerank_ga' --launch-count 13 $sections \
                    --csv --page details "$B/vertex" pr "$g" --symmetrize --backend gpu --max-rounds 4 \
                    >"$OUTDIR/prprofile-ours.csv" || bad=1
                # hand-written: init, then contrib/pull/apply per round (one trial).
                "$NCU" --clock-control none -k 'regex:init_kernel|contrib_kernel|pull_chunk_kernel|apply_kernel' \
                    --launch-count 13 $sections --csv --page details \
                    /tmp/pr_pull "$sg" --kernel chunk --trials 1 --max-rounds 4 \
                    >"$OUTDIR/prprofile-hand.csv" || bad=1
                # SASS of both pull kernels (ours from a PTX cut to PageRank's kernels,
                # bundle/pr-small.ptx, when present).
                if [ -f "$B/pr-small.ptx" ]; then
                    ptxas -v -arch=sm_90 -O3 "$B/pr-small.ptx" -o /tmp/prs.cubin \
                        && cuobjdump -sass /tmp/prs.cubin >"$OUTDIR/prprofile-ours.sass" || bad=1
                fi
                nvcc -cubin -Xptxas -v -O3 -arch=sm_90 -o /tmp/hand.cubin "$B/cuda/pr_pull.cu" \
                    && cuobjdump -sass /tmp/hand.cubin >"$OUTDIR/prprofile-hand.sass" || bad=1
                for w in ours hand; do
                    python3 "$B/ncu_summary.py" "$OUTDIR/prprofile-$w.csv" >"$OUTDIR/prprofile-$w.json" || bad=1
                    cat "$OUTDIR/prprofile-$w.json"
                done
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/prprofile.log"
            rc=${PIPESTATUS[0]}
            ;;
        prbench)
            {
                bad=0
                nvcc -O3 -arch=sm_90 -o /tmp/pr_pull "$B/cuda/pr_pull.cu" || bad=1
                # shellcheck disable=SC2086 # the graph list splits on purpose
                timeout "${PRBENCH_TIMEOUT:-540}" "$B/vertex" bench pr-gpu \
                    ${PRBENCH_GRAPHS:-kron:22 kron:24 grid:1000x1000} \
                    --hand /tmp/pr_pull --gapbs "$B/gapbs" --work /tmp/prbench \
                    --out "$OUTDIR/pagerank-gpu" --label h200 || bad=1
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/prbench.log"
            rc=${PIPESTATUS[0]}
            ;;
        prsync)
            {
                bad=0
                for g in kron:20 grid:1000x1000; do
                    "$B/vertex" compare pr "$g" --threads "${PRSYNC_THREADS:-1,$(nproc)}" --repeats 1 \
                        --svg "$OUTDIR/pr-sync-async-${g//[:x]/-}.svg" --json \
                        >"$OUTDIR/pr-sync-async-${g//[:x]/-}.json" || bad=1
                    cat "$OUTDIR/pr-sync-async-${g//[:x]/-}.json"
                done
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/prsync.log"
            rc=${PIPESTATUS[0]}
            ;;
        gap)
            {
                bad=0
                for g in kron:18 grid:200x200 uniform:100000:800000; do
                    "$B/vertex" bc "$g" --backend gpu --validate --sources 2 --json || bad=1
                    "$B/vertex" cc "$g" --backend gpu --validate --json || bad=1
                    "$B/vertex" tc "$g" --backend gpu --validate --json || bad=1
                    "$B/vertex" lcc "$g" --backend gpu --validate --json || bad=1
                done
                # Weak components of a directed file (each kron edge stored once).
                "$B/vertex" convert kron:16 /tmp/k16.el >/dev/null && \
                    awk '$1 > $2' /tmp/k16.el >/tmp/k16-once.el && \
                    "$B/vertex" cc /tmp/k16-once.el --backend gpu --validate --json || bad=1
                if [ -n "$SAN" ]; then
                    for tool in memcheck racecheck; do
                        echo "--- compute-sanitizer --tool $tool vertex bc"
                        "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" bc kron:8 \
                            --backend gpu --sources 1 --validate || bad=1
                        echo "--- compute-sanitizer --tool $tool vertex cc"
                        "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" cc kron:9 \
                            --backend gpu --validate || bad=1
                        "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" cc /tmp/k16-once.el \
                            --backend gpu --validate || bad=1
                        echo "--- compute-sanitizer --tool $tool vertex tc"
                        "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" tc kron:10 \
                            --backend gpu --validate || bad=1
                        echo "--- compute-sanitizer --tool $tool vertex lcc"
                        "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" lcc kron:10 \
                            --backend gpu --validate || bad=1
                    done
                else
                    echo "compute-sanitizer not found"; bad=1
                fi
                for g in ${GAP_GRAPHS:-kron:20 grid:1000x1000}; do
                    slug=${g//:/-}
                    sg=/tmp/gap/$slug.sg
                    if [ ! -f "$sg" ]; then
                        # bench-cpu writes the .sg both sides read (one quick PR point).
                        "$B/vertex" bench-cpu --gapbs "$B/gapbs" --bfs= --sssp= --pr "$g" \
                            --threads "$(nproc)" --trials 1 --work /tmp/gap --out /tmp/gap-out >/dev/null || bad=1
                    fi
                    src=$("$B/vertex" bc "$g" --backend cpu --sources 1 --json --threads "$(nproc)" \
                        | python3 -c 'import json,sys; print(json.load(sys.stdin)["sources"][0])')
                    echo "--- bc $g source $src: gapbs (all cores), ours cpu, ours gpu"
                    "$B/gapbs/bc" -f "$sg" -r "$src" -i 1 -n 3 || bad=1
                    "$B/vertex" bc "$g" --backend cpu --source "$src" --json || bad=1
                    "$B/vertex" bc "$g" --backend gpu --source "$src" --json || bad=1
                    echo "--- cc $g: gapbs (all cores), ours cpu (afforest, label), ours gpu"
                    "$B/gapbs/cc" -f "$sg" -n 5 || bad=1
                    for i in 1 2 3; do
                        "$B/vertex" cc "$g" --backend cpu --json || bad=1
                        "$B/vertex" cc "$g" --backend gpu --json || bad=1
                    done
                    "$B/vertex" cc "$g" --backend cpu --algorithm label --json || bad=1
                    echo "--- tc $g: gapbs (all cores), ours cpu, ours gpu"
                    "$B/gapbs/tc" -f "$sg" -n 3 || bad=1
                    for i in 1 2 3; do
                        "$B/vertex" tc "$g" --backend cpu --json || bad=1
                        "$B/vertex" tc "$g" --backend gpu --json || bad=1
                    done
                done
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/gap.log"
            rc=${PIPESTATUS[0]}
            ;;
        demo)
            {
                bad=0
                "$B/vertex" || bad=1
                "$B/vertex" compare sssp kron:20 --threads 1,"$(nproc)" --repeats 3 || bad=1
                "$B/vertex" compare bfs kron:20 --threads "$(nproc)" --schedules sync,gpu --repeats 3 || bad=1
                if [ -n "$SAN" ]; then
                    "$SAN" --tool memcheck --error-exitcode 3 "$B/vertex" compare sssp kron:10 \
                        --threads 1 --schedules sync,gpu --repeats 1 || bad=1
                fi
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/demo.log"
            rc=${PIPESTATUS[0]}
            ;;
        sources)
            {
                bad=0
                "$B/vertex" convert kron:14 /tmp/k14.el >/dev/null && \
                    awk '$1 > $2' /tmp/k14.el >/tmp/k14-once.el || bad=1
                for g in kron:14 grid:60x60 uniform:20000:160000 /tmp/k14-once.el; do
                    "$B/vertex" bc "$g" --backend gpu --validate --sources 70 --json >/dev/null \
                        && echo "bc $g ok" || { echo "BAD bc $g"; bad=1; }
                    "$B/vertex" closeness "$g" --backend gpu --validate --sources 300 --json >/dev/null \
                        && echo "closeness $g ok" || { echo "BAD closeness $g"; bad=1; }
                done
                if [ -n "$SAN" ]; then
                    for tool in memcheck racecheck; do
                        "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" bc kron:9 \
                            --backend gpu --sources 70 --validate >/dev/null || { echo "BAD $tool bc"; bad=1; }
                        "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" closeness grid:20x20 \
                            --backend gpu --validate --harmonic >/dev/null || { echo "BAD $tool closeness"; bad=1; }
                        echo "$tool done"
                    done
                fi
                dest=${OUT:-$OUTDIR}
                SG=${SOURCES_GRAPHS:-kron:22 uniform:4194304:67108864 grid:1000x1000}
                # shellcheck disable=SC2086
                # Each bench under a time limit, so that one slow case cannot take the
                # call's whole budget and leave nothing behind.
                timeout "${SOURCES_TIMEOUT:-240}" "$B/vertex" bench sources $SG kron:20 --sources 64 --trials 3 \
                    --closeness "${SOURCES_CLOSENESS:-kron:20}" --out "$dest/many-sources" --label h200 || bad=1
                # shellcheck disable=SC2086
                timeout "${SOURCES_TIMEOUT:-240}" "$B/vertex" bench gap ${BC_GRAPHS:-kron:22 urand:22 grid:1000x1000 mesh:65536 grid:340x340 mesh:1000000} --gapbs "$B/gapbs" \
                    --kernels bc --bc-together --roots "${BC_ROOTS:-4}" --threads "${BC_THREADS:-16}" \
                    --trials "${BC_TRIALS:-3}" --label "bc-${BC_ROOTS:-4}" --out "$dest/bc" --work /tmp/gapwork || bad=1
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/sources.log"
            rc=${PIPESTATUS[0]}
            ;;
        closeness)
            {
                bad=0
                "$B/vertex" convert kron:14 /tmp/k14.el >/dev/null && \
                    awk '$1 > $2' /tmp/k14.el >/tmp/k14-once.el || bad=1
                # CLOSENESS_PART=check: the validations only; =time: the timings only.
                [ "${CLOSENESS_PART:-all}" = time ] || for g in grid:200x200 mesh:40000 kron:14 /tmp/k14-once.el; do
                    for order in auto balls given; do
                        timeout 300 "$B/vertex" closeness "$g" --sources all --backend gpu --batching "$order" \
                            --validate --json >/dev/null \
                            && echo "closeness $g $order ok" || { echo "BAD closeness $g $order"; bad=1; }
                    done
                done
                [ "${CLOSENESS_PART:-all}" = time ] || { timeout 300 "$B/vertex" closeness grid:200x200 --sources all \
                    --backend gpu --harmonic --validate --json >/dev/null && echo "harmonic grid ok" \
                    || { echo "BAD harmonic grid"; bad=1; }; }
                # The groups' shared control words under the sanitizers (7 batches in balls).
                if [ -n "$SAN" ] && [ "${CLOSENESS_PART:-all}" != time ]; then
                    for tool in memcheck racecheck; do
                        timeout 120 "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" closeness grid:20x20 \
                            --sources all --backend gpu --validate >/dev/null || { echo "BAD $tool closeness"; bad=1; }
                    done
                fi
                runs="$OUTDIR/closeness-runs.jsonl"
                [ "${CLOSENESS_PART:-all}" = check ] && CLOSENESS_GRAPHS=" " CLOSENESS_BALLS="" CLOSENESS_GIVEN=""
                for g in ${CLOSENESS_GRAPHS:-grid:1000x1000 mesh:1000000 kron:20}; do
                    echo "--- closeness $g --sources all --backend gpu"
                    # shellcheck disable=SC2086
                    timeout "${CLOSENESS_TIMEOUT:-500}" "$B/vertex" closeness "$g" --sources all --backend gpu \
                        ${CLOSENESS_LIMIT:+--time-limit $CLOSENESS_LIMIT} --json | tee -a "$runs" \
                        || { echo "BAD or cut off: closeness $g"; bad=1; }
                done
                for g in $(echo "${CLOSENESS_BALLS-kron:20}" | tr , ' '); do
                    echo "--- closeness $g --sources all --backend gpu --batching balls"
                    timeout "${CLOSENESS_TIMEOUT:-500}" "$B/vertex" closeness "$g" --sources all --backend gpu \
                        --batching balls --json | tee -a "$runs" || { echo "BAD or cut off: closeness $g balls"; bad=1; }
                done
                for g in $(echo "${CLOSENESS_GIVEN:-}" | tr , ' '); do
                    echo "--- closeness $g --sources all --backend gpu --batching given"
                    timeout "${CLOSENESS_TIMEOUT:-500}" "$B/vertex" closeness "$g" --sources all --backend gpu \
                        --batching given --json | tee -a "$runs" || { echo "BAD or cut off: closeness $g given"; bad=1; }
                done
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/closeness.log"
            rc=${PIPESTATUS[0]}
            ;;
        batched)
            # Many sources through the generic kernels (any push program) and
            # all-pairs by batched BFS: validation on several shapes, sanitizers,
            # then the all-pairs timing on a 100,000-vertex grid against the CPU.
            {
                bad=0
                dest=${OUT:-$OUTDIR}
                mkdir -p "$dest/apsp-batched"
                same() { python3 -c 'import json,sys; a,b=(json.loads(x)["summary"] for x in sys.argv[1:]); sys.exit(0 if a==b else 1)' "$1" "$2"; }
                # BATCHED_PART=check: validation and sanitizers only; =time: the timings only.
                if [ "${BATCHED_PART:-all}" != time ]; then
                    for g in kron:10 grid:40x30 uniform:3000:12000; do
                        a=$("$B/vertex" apsp "$g" --unweighted --algorithm batched --backend gpu --json) \
                            && b=$("$B/vertex" apsp "$g" --unweighted --algorithm fw --backend cpu --json) \
                            && same "$a" "$b" && echo "apsp batched $g ok" || { echo "BAD apsp batched $g"; bad=1; }
                    done
                    for g in grid:40x30 grid:7x300; do
                        a=$("$B/vertex" apsp "$g" --algorithm batched --backend gpu --json) \
                            && b=$("$B/vertex" apsp "$g" --algorithm fw --backend cpu --json) \
                            && same "$a" "$b" && echo "apsp batched weighted $g ok" || { echo "BAD apsp batched weighted $g"; bad=1; }
                    done
                    "$B/vertex" apsp kron:10 --unweighted --algorithm batched --backend gpu -o /tmp/g.apsp --json >/dev/null \
                        && "$B/vertex" apsp kron:10 --unweighted --algorithm fw --backend cpu -o /tmp/c.apsp --json >/dev/null \
                        && cmp /tmp/g.apsp /tmp/c.apsp && echo "apsp rows ok" || { echo "BAD apsp rows"; bad=1; }
                    timeout 240 "$B/vertex" bench sources kron:14 grid:100x100 uniform:20000:160000 --sources 70 --trials 1 \
                        --out /tmp/bsv --label check && echo "batched programs ok" || { echo "BAD batched programs"; bad=1; }
                    "$B/vertex" convert kron:14 /tmp/k14.el >/dev/null && awk '$1 > $2' /tmp/k14.el >/tmp/k14-once.el || bad=1
                    for g in kron:14 grid:60x60 /tmp/k14-once.el; do
                        "$B/vertex" bc "$g" --backend gpu --validate --sources 70 --json >/dev/null \
                            && echo "bc $g ok" || { echo "BAD bc $g"; bad=1; }
                        "$B/vertex" closeness "$g" --backend gpu --validate --sources 300 --json >/dev/null \
                            && echo "closeness $g ok" || { echo "BAD closeness $g"; bad=1; }
                    done
                    if [ -n "$SAN" ]; then
                        for tool in memcheck racecheck; do
                            timeout 120 "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" bench sources kron:8 grid:12x12 \
                                --sources 70 --trials 1 --out /tmp/san >/dev/null || { echo "BAD $tool batched"; bad=1; }
                            timeout 60 "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" apsp grid:20x20 --unweighted \
                                --algorithm batched --backend gpu -o /tmp/s.apsp >/dev/null || { echo "BAD $tool apsp"; bad=1; }
                            timeout 60 "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" apsp grid:20x20 \
                                --algorithm batched --backend gpu >/dev/null || { echo "BAD $tool apsp weighted"; bad=1; }
                            timeout 60 "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" bc kron:9 \
                                --backend gpu --sources 70 --validate >/dev/null || { echo "BAD $tool bc"; bad=1; }
                            echo "$tool done"
                        done
                    fi
                fi
                if [ "${BATCHED_PART:-all}" != check ]; then
                    AG=${APSP_GRAPH:-grid:316x316}
                    for run in "batched gpu --unweighted" "batched cpu --unweighted" "johnson cpu --unweighted" \
                        "batched gpu" "johnson cpu"; do
                        set -- $run
                        f="$dest/apsp-batched/$1-$2${3:+-unweighted}.json"; w=${3:-}
                        # Weighted runs on $APSP_WEIGHTED_GRAPH (default the same graph).
                        g=$AG; [ -z "$w" ] && g=${APSP_WEIGHTED_GRAPH:-$AG}
                        timeout "${APSP_TIMEOUT:-150}" "$B/vertex" apsp "$g" $w --algorithm "$1" --backend "$2" --json \
                            >"$f" && echo "apsp $g $run: $(grep time_s "$f")" \
                            || echo "apsp $g $run: no result (time limit ${APSP_TIMEOUT:-150} s?)"
                    done
                fi
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/batched.log"
            rc=${PIPESTATUS[0]}
            ;;
        gathermany)
            # Gather/apply programs that read a source, from many sources at once:
            # the batched kernels (a lane per source, one in-edge walk for all)
            # checked against single runs on four shapes, sanitizers, then timings.
            {
                bad=0
                dest=${OUT:-$OUTDIR}
                "$B/vertex" convert kron:14 /tmp/k14.el >/dev/null && awk '$1 > $2' /tmp/k14.el >/tmp/k14-once.el || bad=1
                timeout 300 "$B/vertex" bench ppr kron:14 grid:100x100 uniform:20000:160000 /tmp/k14-once.el \
                    --sources 70 --trials 1 --out /tmp/gm --label check && echo "gathermany check ok" \
                    || { echo "BAD gathermany check"; bad=1; }
                if [ -n "$SAN" ]; then
                    for tool in memcheck racecheck; do
                        timeout 180 "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" bench ppr kron:8 grid:12x12 \
                            --sources 70 --trials 1 --out /tmp/san-gm >/dev/null || { echo "BAD $tool gathermany"; bad=1; }
                        echo "$tool done"
                    done
                fi
                # shellcheck disable=SC2086
                timeout "${GATHERMANY_TIMEOUT:-300}" "$B/vertex" bench ppr ${GATHERMANY_GRAPHS:-kron:18 grid:500x500} \
                    --sources 64 --trials 1 --out "$dest/many-sources" --label h200 || bad=1
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/gathermany.log"
            rc=${PIPESTATUS[0]}
            ;;
        tc)
            # Triangle counting and lcc on the GPU (in place on the uploaded CSR, or
            # the ranked copy): --validate'd on four shapes, sanitizers, then side by
            # side with gapbs on $TC_GRAPHS (default grid:1000x1000 mesh:1000000).
            {
                bad=0
                dest=${OUT:-$OUTDIR}
                for g in grid:300x300 kron:14 uniform:20000:160000 mesh:50000; do
                    timeout 60 "$B/vertex" tc "$g" --backend gpu --validate --json >/dev/null \
                        && echo "tc $g ok" || { echo "BAD tc $g"; bad=1; }
                    timeout 60 "$B/vertex" lcc "$g" --backend gpu --validate --json >/dev/null \
                        && echo "lcc $g ok" || { echo "BAD lcc $g"; bad=1; }
                done
                if [ -n "$SAN" ]; then
                    for tool in memcheck racecheck; do
                        timeout 60 "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" tc grid:30x30 --backend gpu \
                            --validate >/dev/null || { echo "BAD $tool tc"; bad=1; }
                        timeout 60 "$SAN" --tool "$tool" --error-exitcode 3 "$B/vertex" lcc kron:9 --backend gpu \
                            --validate >/dev/null || { echo "BAD $tool lcc"; bad=1; }
                        echo "$tool done"
                    done
                fi
                # shellcheck disable=SC2086
                timeout "${TC_TIMEOUT:-150}" "$B/vertex" bench gap ${TC_GRAPHS:-grid:1000x1000 mesh:1000000} --kernels tc \
                    --gapbs "$B/gapbs" --threads "${TC_THREADS:-16}" --trials 3 --label "${TC_LABEL:-tc-h200}" \
                    --out "$dest/tc" --work /tmp/gapwork || bad=1
                [ "$bad" = 0 ]
            } 2>&1 | tee "$OUTDIR/tc.log"
            rc=${PIPESTATUS[0]}
            ;;
        kernels)
            {
                dir=/tmp/kgraphs
                mkdir -p "$dir"
                for g in ${KERNEL_GRAPHS:-mesh:65536 mesh:262144 mesh:1000000 grid:340x340 grid:1000x1000 kron:22 urand:22}; do
                    f=$dir/$(tr ':' '_' <<<"$g").vgr
                    [ -e "$f" ] || "$B/vertex" convert "$g" "$f" >/dev/null || { echo "convert $g failed"; continue; }
                    n=$("$B/vertex" info "$f" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["vertices"])')
                    for p in bfs sssp; do
                        for s in first $((n / 2)); do
                            sa=(); [ "$s" != first ] && sa=(-s "$s")
                            for k in auto direction balanced resident tiles; do
                                best=""; note=""
                                for _ in $(seq "${KERNEL_TRIALS:-3}"); do
                                    out=$(timeout 60 "$B/vertex" "$p" "$f" "${sa[@]}" --backend gpu --kernel "$k" --json 2>/dev/null) || { best=FAIL; break; }
                                    read -r ms note < <(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("%.3f" % (d["time_s"]*1e3), (d.get("kernel_note") or "-").replace(" ", "_"))' "$out")
                                    if [ -z "$best" ] || python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "$ms" "$best"; then best=$ms; fi
                                done
                                printf "%-5s %-16s %-8s %-10s %10s %s\n" "$p" "$g" "$s" "$k" "$best" "$([ "$k" = auto ] && echo "$note")"
                            done
                        done
                    done
                done
            } 2>&1 | tee "$OUTDIR/kernels.txt"
            rc=${PIPESTATUS[0]}
            ;;
        benchgap)
            dest=${OUT:-$OUTDIR}
            "$B/vertex" bench gap ${BENCHGAP_GRAPHS:-kron:20} --gapbs "$B/gapbs" \
                --threads "${BENCHGAP_THREADS:-1,2,4,8,16}" --trials "${BENCHGAP_TRIALS:-3}" \
                --kernels "${BENCHGAP_KERNELS:-bfs,sssp,pr,cc,bc,tc}" \
                --label "${BENCHGAP_LABEL:-h100}" --out "$dest" --work /tmp/gapwork \
                ${BENCHGAP_ARGS:-} 2>&1 | tee "$OUTDIR/benchgap-${BENCHGAP_LABEL:-h100}.log"
            rc=${PIPESTATUS[0]}
            ;;
        handover)
            {
                rc=0
                dir=/tmp/tails
                mkdir -p "$dir"
                python3 "$B/odd-graphs.py" "$dir/odd" >/dev/null || exit 2
                ts=${TAIL_SCALE:-20}
                "$B/vertex" gen kron --scale "$ts" -o "$dir/kron.el" >/dev/null || exit 2
                "$B/vertex" gen kron --scale 12 -o "$dir/small.el" >/dev/null || exit 2
                read -r hang end < <(python3 "$B/tail-graph.py" "$dir/kron.el" $((1 << ts)) \
                    "${TAIL_LEN:-3000}" "$dir/kron-tail.el")
                read -r shang _ < <(python3 "$B/tail-graph.py" "$dir/small.el" 4096 300 \
                    "$dir/small-tail.el")
                for run in "kron-tail.el -s $hang" "kron-tail.el -s $end" "odd/star_path.wel -s 0"; do
                    set -- $run
                    for p in bfs sssp cc; do
                        ks="auto balanced resident"; [ "$p" = bfs ] && ks="auto direction resident"
                        for k in $ks; do
                            a=(--kernel "$k"); [ "$p" = cc ] && a=(--algorithm label --kernel "$k")
                            for _ in $(seq "${TAIL_TRIALS:-2}"); do
                                out=$("$B/vertex" "$p" "$dir/$1" "$2" "$3" --backend gpu "${a[@]}" --validate 2>&1)
                                grep -q "oracle .*agrees" <<<"$out" || { echo "BAD $run $p $k"; tail -n 5 <<<"$out"; rc=1; }
                                echo "$1 $3 $p $k: $(grep -E "^  time " <<<"$out" | tr -s ' ')|$(grep -E "^  resident " <<<"$out" | tr -s ' ' | cut -c1-60)|$(grep -E "^  kernel " <<<"$out" | tr -s ' ' | cut -c1-50)"
                            done
                        done
                    done
                done
                for g in kron:20 kron:22; do
                    for run in "bfs auto" "bfs direction" "bfs auto" "bfs direction" \
                        "sssp auto" "sssp balanced" "sssp auto" "sssp balanced"; do
                        set -- $run
                        out=$("$B/vertex" "$1" "$g" --backend gpu --kernel "$2" --validate 2>&1)
                        grep -q "oracle .*agrees" <<<"$out" || { echo "BAD $g $run"; rc=1; }
                        echo "$g $run: $(grep -E "^  time " <<<"$out" | tr -s ' ')|$(grep -E "^  resident " <<<"$out" | tr -s ' ' | cut -c1-60)|$(grep -E "^  kernel " <<<"$out" | tr -s ' ' | cut -c1-50)"
                    done
                done
                for tool in memcheck racecheck; do
                    for p in bfs sssp "cc --algorithm label"; do
                        echo "== $tool $p small-tail.el -s $shang --kernel auto"
                        # shellcheck disable=SC2086 # $p is a program and its options
                        san_vertex "$tool" $p "$dir/small-tail.el" -s "$shang" --backend gpu --kernel auto || rc=1
                    done
                done
                exit "$rc"
            } 2>&1 | tee "$OUTDIR/handover.log"
            rc=${PIPESTATUS[0]}
            ;;
        resident)
            # Issue 19: the device-resident kernel. Sanitizers on small graphs, then
            # each kernel on the grids and Kronecker (every run --validate'd against
            # the CPU oracle), then a Δ sweep for the resident buckets.
            rc=0
            V="$B/vertex"
            if [ -n "$SAN" ] && [ "${RESIDENT_SAN:-1}" = 1 ]; then
                for tool in memcheck racecheck; do
                    for cmd in "bfs grid:60x60" "bfs kron:10" "sssp grid:60x60 --delta 300" \
                               "sssp kron:10 --delta 50" "widest grid:40x40" "cc grid:40x40 --algorithm label"; do
                        "$SAN" --tool "$tool" --error-exitcode 3 $V $cmd --backend gpu --kernel resident \
                            --validate >>"$OUTDIR/resident-san.log" 2>&1 || { echo "SAN FAIL $tool $cmd"; rc=1; }
                    done
                done 2>&1 | tee -a "$OUTDIR/resident.log"
                grep -c "ERROR SUMMARY: 0 errors" "$OUTDIR/resident-san.log"; grep "ERROR SUMMARY: [1-9]" "$OUTDIR/resident-san.log" | head -3
            fi
            for g in ${RESIDENT_GRAPHS:-grid:1000x1000 kron:20}; do
                for prog in bfs sssp; do
                    for k in auto resident direction balanced; do
                        echo "--- $prog $g --kernel $k" | tee -a "$OUTDIR/resident.log"
                        $V $prog $g --backend gpu --kernel $k --validate --json \
                            2>>"$OUTDIR/resident.log" | jline "$OUTDIR/resident-runs.jsonl" || rc=1
                    done
                done
                for d in ${RESIDENT_DELTAS:-64 256 1024 4096 16384}; do
                    echo "--- sssp $g --kernel resident --delta $d" | tee -a "$OUTDIR/resident.log"
                    $V sssp $g --backend gpu --kernel resident --delta $d --validate --json \
                        2>>"$OUTDIR/resident.log" | jline "$OUTDIR/resident-runs.jsonl" || rc=1
                done
            done
            ;;
        partprof)
            rc=0
            if ! need_ncu "$OUTDIR/partprof.log"; then
                rc=1
            else
                for s in ${PARTPROF_SCALES:-22 24}; do
                    for p in 1 ${PARTPROF_PARTS:-2 4}; do
                        devs=$(spread_parts "$p" 1)
                        echo "--- scale $s, $p part(s) on GPU 0" | tee -a "$OUTDIR/partprof.log"
                        VERTEX_MULTI_DEVICES=$devs "$NCU" --metrics gpu__time_duration.sum --csv \
                            --cache-control none --clock-control none \
                            --page raw "$B/vertex" bench graph500 --scale "$s" --backend gpu \
                            --kernel direction --gpus "$p" --roots 1 --validator host \
                            --out /tmp/partprof-g500 \
                            >"/tmp/partprof-$s-$p.csv" 2>>"$OUTDIR/partprof.log" || rc=$?
                        # One root, searched after the warm-ups (two on one GPU, one on parts).
                        n=2; [ "$p" = 1 ] && n=3
                        python3 "$B/ncu_kernel_sums.py" "/tmp/partprof-$s-$p.csv" --parts "$p" \
                            --scale "$s" --searches "$n" >"$OUTDIR/partprof-$s-$p.json" 2>>"$OUTDIR/partprof.log" || rc=$?
                        tail -n 3 "$OUTDIR/partprof.log"
                        cp "/tmp/partprof-$s-$p.csv" "$OUTDIR/"
                    done
                done
                python3 "$B/ncu_kernel_sums.py" --table "$OUTDIR"/partprof-*.json | tee -a "$OUTDIR/partprof.log"
            fi
            ;;
        multiab)
            {
                rc=0
                [ -x "$B/vertex-old" ] || { echo "multiab: bundle/vertex-old is missing"; exit 2; }
                rm -f "$OUTDIR/multiab-runs.txt"
                for sc in ${MULTIAB_SCALES:-20 22 24}; do
                    for p in ${MULTIAB_PARTS:-2 4}; do
                        devs=$(spread_parts "$p" 1)
                        for _ in $(seq "${AB_REPEAT:-2}"); do
                            for b in vertex-old vertex; do
                                out=$(VERTEX_MULTI_DEVICES=$devs "$B/$b" bench graph500 --scale "$sc" \
                                    --backend gpu --kernel direction --gpus "$p" \
                                    --roots "${MULTIAB_ROOTS:-8}" --validator host \
                                    --out /tmp/multiab 2>&1) || { rc=1; echo "$out" | tail -n 5; }
                                hm=$(echo "$out" | awk '/harmonic_mean_TEPS/ {print $2; exit}')
                                bad=$(echo "$out" | grep -o '[0-9]* failed validation' | head -n1)
                                echo "$b s$sc x$p ${hm:-none} ($bad)" | tee -a "$OUTDIR/multiab-runs.txt"
                            done
                        done
                    done
                done
                python3 - "$OUTDIR/multiab-runs.txt" <<'PY'
import collections, sys
best = collections.defaultdict(float)
for line in open(sys.argv[1]):
    b, s, p, hm = line.split()[:4]
    try:
        best[(s, p, b)] = max(best[(s, p, b)], float(hm))
    except ValueError:
        pass
for (s, p) in sorted({(k[0], k[1]) for k in best}, key=lambda k: (int(k[0][1:]), k[1])):
    o, n = best[(s, p, "vertex-old")], best[(s, p, "vertex")]
    print(f"{s} {p}: old {o / 1e9:7.2f} GTEPS  new {n / 1e9:7.2f} GTEPS  new/old {n / o if o else float('nan'):.3f}")
PY
                exit "$rc"
            } 2>&1 | tee "$OUTDIR/multiab.log"
            rc=${PIPESTATUS[0]}
            ;;
        profile)
            rc=0
            if need_ncu "$OUTDIR/profile.log"; then
                for k in direction balanced; do
                    "$NCU" --target-processes all -k 'regex:vx_bfs|bfs_' --launch-count 80 \
                        --section SpeedOfLight --section MemoryWorkloadAnalysis \
                        --section Occupancy --section WarpStateStats --section LaunchStats \
                        --csv --page details \
                        "$B/vertex" bench graph500 --scale "${PROFILE_SCALE:-22}" --backend gpu \
                        --kernel "$k" --roots 2 --out /tmp/profile-g500 \
                        >"$OUTDIR/profile-$k.csv" 2>>"$OUTDIR/profile.log" || rc=$?
                    python3 "$B/ncu_summary.py" "$OUTDIR/profile-$k.csv" \
                        >"$OUTDIR/profile-$k.json" 2>>"$OUTDIR/profile.log" || rc=$?
                done
                tail -n 5 "$OUTDIR/profile.log"
            else
                rc=1
            fi
            ;;
        *)
            echo "unknown step $step"; rc=2
            ;;
    esac
    echo "=== $step: exit $rc, $(( $(date +%s) - t0 )) s" | tee -a "$OUTDIR/steps.log"
    pack
    [ "$rc" -ne 0 ] && status=1
done
exit $status
