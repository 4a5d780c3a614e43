#!/usr/bin/env bash
# Installs what is missing, then runs every test: native unit and integration tests, wasm
# tests in headless Chromium and Firefox, and end-to-end tests of a release build driven like a
# user (Chromium; the scenarios where browsers differ in Firefox too).
# One profile (release) and one target dir for everything, so nothing compiles twice.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --test
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export CHROMEDRIVER=/usr/bin/chromedriver
[ -d ../shared/benchmarks ] || echo "note: ../shared/benchmarks is absent; tests that need it are skipped"

echo "== format and lints (warnings are errors), native and wasm"
cargo fmt --check
cargo clippy --release --quiet --all-targets -- -D warnings
cargo clippy --release --quiet --all-targets --target wasm32-unknown-unknown -- -D warnings

echo "== native tests"
cargo test --release --quiet

echo "== release build of the app (trunk)"
trunk build --release
cargo build --release --bin hpo --quiet

echo "== wasm tests in headless Chromium and headless Firefox (the golden traces in each)"
cargo test --release --target wasm32-unknown-unknown --test wasm_engine
GECKODRIVER="$HOME/.cargo/bin/geckodriver" WASM_BINDGEN_TEST_WEBDRIVER_JSON=webdriver-firefox.json \
  cargo test --release --target wasm32-unknown-unknown --test wasm_engine

echo "== end-to-end tests in headless Chromium; the shared scenarios and the layout tests in headless Firefox too"
REQUIRE_FIREFOX=1 node --test --test-concurrency=1 tests/e2e/

echo "== hpo suggest's journal opened by real Optuna, and its enqueue.py run against an SQLite storage: the suggested trials wait there and run first"
.tools/study-venv/bin/python tests/studies/optuna_round_trip.py target/release/hpo
echo "== the Python package (pip install crates/py) with real Optuna and Syne Tune: the sampler, its bits against hpo suggest, bad input; then the manylinux wheel for distribution in a fresh venv"
bash tests/py/run.sh
echo "== a sharded sweep on a local two-node Ray cluster (plan, job shards, a killed worker, merge)"
bash tests/ray/sweep.sh

echo "== fuzz smoke: every target for 10 s (long runs: scripts/fuzz.sh, counts in docs/benchmarks.md)"
bash scripts/fuzz.sh 10
