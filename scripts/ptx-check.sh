#!/usr/bin/env bash
# Builds the GPU kernels (kernels-rs) to PTX and validates them with NVIDIA's
# assembler, without a GPU: `ptxas -arch=sm_90 -v` must accept the module, and its
# per-kernel register / spill report is printed.
#
#   scripts/ptx-check.sh            # uses ./ci-check/ptxas as the tool cache
#   PTXAS_CACHE=/some/dir scripts/ptx-check.sh
#
# Steps: (a) make sure nightly has rust-src (needed by -Zbuild-std=core),
# (b) install ptxas from the PyPI wheel nvidia-cuda-nvcc-cu12 into the cache (once),
# (c) build the PTX through nvptx-builder (the same code path as runtime/build.rs)
# and assemble it: kernels-rs, the shipped programs, and the program-crate template
# (templates/program-crate). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ARCH=${VERTEX_PTX_ARCH:-sm_90}
CACHE=${PTXAS_CACHE:-$ROOT/ci-check/ptxas}

echo "== ptx-check: nightly rust-src"
rustup component add rust-src --toolchain nightly >/dev/null

echo "== ptx-check: ptxas from nvidia-cuda-nvcc-cu12 (cache: $CACHE)"
PTXAS=$(find "$CACHE" -type f -name ptxas 2>/dev/null | head -n1 || true)
if [ -z "$PTXAS" ]; then
    mkdir -p "$CACHE"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
        --target "$CACHE" "nvidia-cuda-nvcc-cu12>=12.4,<13"
    PTXAS=$(find "$CACHE" -type f -name ptxas | head -n1)
fi
if [ -z "$PTXAS" ]; then
    echo "ptx-check: no ptxas found in the nvidia-cuda-nvcc-cu12 wheel under $CACHE" >&2
    exit 1
fi
chmod +x "$PTXAS"
"$PTXAS" --version | tail -n1

# Builds CRATE's PTX (NAME.ptx) and assembles it, printing registers/spills per kernel.
check_crate() {
    CRATE=$1
    NAME=$2
    echo "== ptx-check: building the PTX of $CRATE ($ARCH)"
    OUT=$ROOT/target/ptx-check
    mkdir -p "$OUT"
    # Same builder and cache directory as runtime/build.rs uses.
    PTX=$(cargo run --quiet -p nvptx-builder --bin nvptx-build -- "$CRATE" \
        --arch "$ARCH" --target-dir "$ROOT/target/nvptx-builder/$ARCH" --out "$OUT/$NAME.ptx")
    if [ ! -s "$PTX" ]; then
        echo "ptx-check: $PTX is missing or empty" >&2
        exit 1
    fi
    echo "PTX: $PTX ($(wc -c <"$PTX") bytes, $(grep -c '\.entry' "$PTX") kernels)"

    echo "== ptx-check: ptxas -arch=$ARCH -v"
    "$PTXAS" -arch="$ARCH" -v "$PTX" -o "$OUT/$NAME.cubin" 2>"$OUT/$NAME.ptxas.log" || {
        cat "$OUT/$NAME.ptxas.log" >&2
        echo "ptx-check: ptxas rejected the PTX" >&2
        exit 1
    }
    # One line per kernel: name, registers, spills, stack.
    python3 - "$OUT/$NAME.ptxas.log" <<'PY'
import re, sys
name = None
rows = []
spill = {}
for line in open(sys.argv[1]):
    m = re.search(r"Compiling entry function '([^']+)'", line)
    if m:
        name = m.group(1)
        continue
    m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
    if m and name:
        spill[name] = m.groups()
    m = re.search(r"Used (\d+) registers", line)
    if m and name:
        st, ss, sl = spill.get(name, ("?", "?", "?"))
        rows.append((name, m.group(1), st, ss, sl))
print(f"{'kernel':32} {'regs':>5} {'stack':>6} {'spill st':>9} {'spill ld':>9}")
for r in rows:
    print(f"{r[0]:32} {r[1]:>5} {r[2]:>6} {r[3]:>9} {r[4]:>9}")
if not rows:
    sys.exit("ptx-check: ptxas printed no per-kernel report")
PY
}

# The hand-written skeletons, and the kernels #[vertex_program] generates for the
# shipped programs (the examples crate compiled for nvptx64).
check_crate kernels-rs kernels
check_crate examples programs

# The program-crate template, as a user builds it: a copy outside the workspace
# tree's members (under target/, its path dependencies made absolute, the
# workspace's Cargo.lock for the same dependency versions), never built in place.
TEMPLATE=$ROOT/target/ptx-check/program-crate
rm -rf "$TEMPLATE"
mkdir -p "$TEMPLATE"
cp -r "$ROOT/templates/program-crate/build.rs" "$ROOT/templates/program-crate/src" "$TEMPLATE/"
sed "s|path = \"\.\./\.\./|path = \"$ROOT/|" "$ROOT/templates/program-crate/Cargo.toml" >"$TEMPLATE/Cargo.toml"
cp "$ROOT/Cargo.lock" "$TEMPLATE/Cargo.lock"
check_crate "$TEMPLATE" template
echo "ptx-check: ok"
