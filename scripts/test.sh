#!/usr/bin/env bash
# Runs everything CI runs: formatting, lints, all tests, and the PTX check.
# Installs what it needs (rustfmt/clippy, nightly rust-src, ptxas) so that a fresh
# machine needs nothing done by hand. Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*" >&2; }

step "toolchain components"
rustup component add rustfmt clippy >/dev/null 2>&1 || true
if rustup toolchain list | grep -q '^nightly'; then
  # The GPU kernels are built from Rust with nightly's build-std; without rust-src
  # the host build still succeeds (no kernels), so failure here is not fatal.
  rustup component add rust-src llvm-tools --toolchain nightly >/dev/null 2>&1 || echo "note: could not add nightly rust-src; GPU kernels will be skipped" >&2
fi

step "cargo fmt --check"
cargo fmt --all -- --check
# Templates are workspaces of their own (not members): checked file by file.
rustfmt --check --edition 2021 templates/*/build.rs templates/*/src/*.rs

step "results table (README vs docs/results)"
# The README's results table is generated from docs/results/*/*.json: they must agree
# (python3 scripts/results_table.py --write after a regeneration).
python3 scripts/results_table.py --check

step "cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo doc (no warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace

step "cargo test"
# Includes tests/tests/all/program_crate.rs, which copies templates/program-crate out of
# the workspace and cargo-runs it (reusing this target dir: about 1-2 minutes cold,
# seconds warm), and the petgraph conversions (the tests crate enables the feature).
cargo test --workspace

if [ -f scripts/ptx-check.sh ]; then
  step "PTX check (ptxas -arch=sm_90)"
  bash scripts/ptx-check.sh
fi

step "Python package (pip install ./python; its tests; networkx's tests with the backend)"
# In a virtual environment of its own under target/ (nothing installed into the
# machine's Python). `pip install ./python` is the README's command: maturin
# builds the abi3 wheel in release mode into this workspace's target dir.
venv="${CARGO_TARGET_DIR:-target}/python-ci-venv"
python3 -m venv "$venv"
(
  # shellcheck disable=SC1091
  . "$venv/bin/activate"
  pip install -q --upgrade pip
  pip install -q ./python
  pip install -q pytest networkx scipy
  # From the root: python/ on sys.path would shadow the installed package.
  python -m pytest -q -p no:cacheprovider python/tests
  python python/tests/networkx_subset.py
)
