#!/usr/bin/env bash
# Stage: formatting and lints, warnings as errors, natively and for wasm32.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cargo fmt --check
cargo clippy --profile "$HPO_TEST_PROFILE" --quiet --all-targets -- -D warnings
cargo clippy --profile "$HPO_TEST_PROFILE" --quiet --all-targets --target wasm32-unknown-unknown -- -D warnings
