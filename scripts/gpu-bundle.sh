#!/usr/bin/env bash
# Builds what the GPU machine runs and puts it in ./bundle/ (git-ignored):
# the release binary vertex-gpu-bench (PTX embedded), the PTX itself (for
# VERTEX_PTX_FILE and inspection), scripts/gpu-run.sh and the git revision.
# The GPU machine has no Rust toolchain, so everything is built here.
#
#   scripts/gpu-bundle.sh            # then: run (carry ["bundle"]) bash bundle/gpu-run.sh ...
#
# The binaries are xz-compressed (bundle/*.xz); gpu-run.sh unpacks them. A
# script of its own that runs them without gpu-run.sh first runs
# `bash bundle/gpu-run.sh unpack`.
set -euo pipefail
cd "$(dirname "$0")/.."
ARCH=${VERTEX_PTX_ARCH:-sm_90}
# What a call carries besides the working tree (see the xz step below).
LIMIT_MIB=32

cargo build --release -p vertex-examples --bin vertex-gpu-bench --bin vertex --bin vertex-apsp-bench
PTX=$(cargo run --quiet --release -p nvptx-builder --bin nvptx-build -- kernels-rs \
    --arch "$ARCH" --target-dir "$PWD/target/nvptx-builder/$ARCH")

# The program-crate template, built as a user builds it (its own workspace, PTX
# from its build.rs): its command line runs on the GPU machine through the one
# run call (`gpu-run.sh template`).
cargo build --release --manifest-path templates/program-crate/Cargo.toml --target-dir "$PWD/target"

rm -rf bundle
mkdir -p bundle
cp target/release/vertex-gpu-bench target/release/vertex target/release/vertex-apsp-bench \
    target/release/my-vertex-programs bundle/
strip bundle/vertex-gpu-bench bundle/vertex bundle/vertex-apsp-bench bundle/my-vertex-programs
# A build with VERTEX_SKIP_PTX (or without nightly) has no kernels: refuse to ship it.
for b in vertex vertex-gpu-bench; do
    if ! grep -q vx_bfs_balanced "bundle/$b" || ! grep -q bfs_balanced_level "bundle/$b" \
        || ! grep -q vx_bfs_bottom_up "bundle/$b" || ! grep -q bfs_td_relax "bundle/$b"; then
        echo "gpu-bundle: bundle/$b carries no PTX (built with VERTEX_SKIP_PTX or without nightly?)" >&2
        exit 1
    fi
done
# The batched (many-sources) kernels.
if ! grep -q msbfs_pull bundle/vertex; then
    echo "gpu-bundle: the msbfs kernels are missing from the PTX" >&2
    exit 1
fi
# The batched gather kernels (a gather program that reads its source: `gathermany`).
if ! grep -q vx_ppr_gb_step bundle/vertex; then
    echo "gpu-bundle: the batched gather kernels are missing from the PTX" >&2
    exit 1
fi
# The closure kernels: built-in min-plus (vertex) and the semiring programs' (the bench).
if ! grep -q minplus_f64_path3 bundle/vertex || ! grep -q vx_reliable_fw_path3 bundle/vertex-apsp-bench; then
    echo "gpu-bundle: the closure kernels are missing from the PTX" >&2
    exit 1
fi
# The CPU peer (gapbs), built here from ../shared/peers/gapbs for `vertex bench-cpu`.
GAPBS_SRC=$(cd .. && pwd)/shared/peers/gapbs
if [ -d "$GAPBS_SRC" ]; then
    rm -rf target/gapbs && cp -r "$GAPBS_SRC" target/gapbs
    make -C target/gapbs -j2 bfs sssp pr tc bc cc >/dev/null
    mkdir -p bundle/gapbs && cp target/gapbs/{bfs,sssp,pr,tc,bc,cc} bundle/gapbs/
    # Its sources too: the Gunrock kit's kron.sh builds gapbs's generator from them.
    cp -r "$GAPBS_SRC/src" bundle/gapbs/src && chmod -R u+w bundle/gapbs/src
fi
# The GPU peer (Gunrock kit: sources + vendored deps, built on the device by its build.sh).
GUNROCK_SRC=$(cd .. && pwd)/shared/peers/gunrock
if [ -d "$GUNROCK_SRC" ]; then
    cp -r "$GUNROCK_SRC" bundle/gunrock && chmod -R u+w bundle/gunrock
fi
# The device tool carries at most 64 MiB with the working tree (about 26 MiB of
# it docs/results): the stripped binaries go compressed (58 MiB -> about 10),
# and gpu-run.sh unpacks them on the GPU machine.
xz -T2 -6 bundle/vertex bundle/vertex-gpu-bench bundle/vertex-apsp-bench bundle/my-vertex-programs
cp "$PTX" bundle/kernels.ptx
# BUNDLE_WHEEL=1: the Python package as a wheel too (bundle/wheel/, abi3: any
# CPython >= 3.9), for gpu-run.sh frontdoor's Python checks. pip builds it with
# maturin, the kernels embedded as in the binaries.
if [ "${BUNDLE_WHEEL:-0}" = 1 ]; then
    MATURIN_PEP517_ARGS="--strip" python3 -m pip wheel -q --no-deps ./python -w bundle/wheel
fi
mkdir -p bundle/cuda && cp bench/cuda/*.cu bundle/cuda/
cp scripts/gpu-run.sh scripts/ncu_summary.py scripts/ncu_kernel_sums.py scripts/odd-graphs.py scripts/tail-graph.py \
    scripts/ranks-compare.py scripts/python-gpus.py bundle/
{ git rev-parse --short HEAD 2>/dev/null || echo unknown; } >bundle/GIT_REV
if ! git diff --quiet HEAD 2>/dev/null; then echo "+dirty" >>bundle/GIT_REV; fi
tr -d '\n' <bundle/GIT_REV >bundle/GIT_REV.tmp && mv bundle/GIT_REV.tmp bundle/GIT_REV

SIZE=$(du -sm bundle | cut -f1)
ls -la bundle
echo "bundle: ${SIZE} MiB"
if [ "$SIZE" -gt "$LIMIT_MIB" ]; then
    echo "gpu-bundle: bundle is over ${LIMIT_MIB} MiB" >&2
    exit 1
fi
