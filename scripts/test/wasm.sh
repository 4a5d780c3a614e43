#!/usr/bin/env bash
# Stage: the engine's wasm tests (the golden traces, bit-identical to native) in headless
# Chromium and headless Firefox.
set -euo pipefail
source "$(dirname "$0")/env.sh"
# wasm-bindgen-test-runner fails a run whose tests take over 20 s in all (its default), a
# threshold a busy machine can pass: here the limit only ends a run that hangs.
export WASM_BINDGEN_TEST_TIMEOUT=1800
cargo test --profile "$HPO_TEST_PROFILE" --target wasm32-unknown-unknown --test wasm_engine
GECKODRIVER="$HOME/.cargo/bin/geckodriver" WASM_BINDGEN_TEST_WEBDRIVER_JSON=webdriver-firefox.json \
  cargo test --profile "$HPO_TEST_PROFILE" --target wasm32-unknown-unknown --test wasm_engine
