#!/usr/bin/env bash
# Stage: the fuzz smoke, every target for 10 s (long runs: scripts/fuzz.sh, counts in
# docs/benchmarks.md). Its nightly build goes to the same kept target dir.
set -euo pipefail
source "$(dirname "$0")/env.sh"
bash scripts/fuzz.sh 10
