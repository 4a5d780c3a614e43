#!/usr/bin/env bash
# Stage: `hpo suggest`'s journal opened by real Optuna, and its enqueue.py run against an SQLite
# storage: the suggested trials wait there and run first.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cargo build --workspace --profile "$HPO_TEST_PROFILE" --quiet --bin hpo
.tools/study-venv/bin/python tests/studies/optuna_round_trip.py "$HPO_BIN"
