#!/usr/bin/env bash
# Stage: the native unit and integration tests (they build `hpo`, which the later stages run).
# Arguments go to `cargo test` (e.g. `bash scripts/test/native.sh --test golden_traces`).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cargo test --workspace --profile "$HPO_TEST_PROFILE" --quiet "$@"
cargo build --workspace --profile "$HPO_TEST_PROFILE" --quiet --bin hpo
