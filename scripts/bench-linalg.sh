#!/usr/bin/env bash
# Our Cholesky, solves and inverse against nalgebra's (natively and in wasm in headless
# Chromium) and faer's (natively), on a GP kernel matrix at n = 100, 500, 1,000; prints the
# numbers and writes the "linalg" section of docs/benchmarks.md. Run after `bash scripts/install.sh --test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH" CHROMEDRIVER=/usr/bin/chromedriver
cargo build --release --bin hpo --quiet
native=$(./target/release/hpo bench-linalg)
# The whole measurement runs as one test, minutes on a loaded host (the runner gives up after 20 s by default).
wasm_out=$(WASM_BINDGEN_TEST_TIMEOUT=1800 cargo test --release --target wasm32-unknown-unknown --test wasm_linalg_bench -- --nocapture 2>&1)
wasm=$(echo "$wasm_out" | grep '^LINALG' | cut -d' ' -f2-)
epochs() {  # "EPOCH n precision Phase=ms … total=ms" lines → Markdown rows, with where they ran
  grep '^EPOCH' | sed 's/[A-Za-z]*=//g' | awk -v where="$1" '{printf "| %s | %s, %s |", $2, where, $3; for (i = 4; i <= NF; i++) printf " %s |", $i; printf "\n"}'
}
echo "$native"
echo "wasm (headless Chromium):"
echo "$wasm"
echo "$wasm_out" | grep '^EPOCH'
table() {  # rows "n library cholesky solve inverse" → Markdown rows
  awk '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}'
}
section="Measured by \`bash scripts/bench-linalg.sh\` on $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)): an RBF
kernel matrix over n random points in 7 dimensions plus 1e-3 noise (what the faithful DyHPO's
GP factors), median of 51 / 15 / 7 repetitions at n = 100 / 500 / 1,000, milliseconds.
faer runs single-threaded (a GP step runs inside one worker); every crate at opt-level 3.

Native:

| n | library | Cholesky | solve K·x = y | K⁻¹ from the factor |
|---|---|---|---|---|
$(echo "$native" | grep -E '^[0-9]' | table)

WebAssembly (headless Chromium; faer is not measured there):

| n | library | Cholesky | solve K·x = y | K⁻¹ from the factor |
|---|---|---|---|---|
$(echo "$wasm" | table)

Where one epoch of the faithful DyHPO's fit goes (one likelihood-and-gradient evaluation of
the deep kernel with the default settings on n observations shaped like LCBench's: 7
hyperparameters, curves of 50 epochs; median of 7 / 7 / 5; \`Phase\` in
crates/engine/src/fidelity/deep_kernel.rs), milliseconds, with the n × n algebra in f64 (the exact
path every run uses) and in f32 (\`Precision::F32\`, the authors' precision). A warm-started
step runs at least 11 epochs.

| n | where | features | correlations | Cholesky | solves | K⁻¹ | kernel gradient | feature gradient | total |
|---|---|---|---|---|---|---|---|---|---|
$(echo "$native" | epochs native)
$(echo "$wasm_out" | epochs wasm)"
node -e "import('./scripts/doc-sections.mjs').then(m => m.replaceSection('docs/benchmarks.md', 'linalg', process.argv[1]))" "$section"
echo "updated the linalg section of docs/benchmarks.md"
