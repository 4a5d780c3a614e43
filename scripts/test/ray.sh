#!/usr/bin/env bash
# Stage: a sharded sweep on a local two-node Ray cluster (plan, job shards, a killed worker, merge).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cargo build --workspace --profile "$HPO_TEST_PROFILE" --quiet --bin hpo
bash tests/ray/sweep.sh
