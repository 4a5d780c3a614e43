#!/usr/bin/env bash
# Stage: the fuzz smoke, every target on the same inputs on every run (fixed seed and number of
# executions; scripts/fuzz.sh says how). Long runs that explore: `bash scripts/fuzz.sh SECONDS`
# (counts in docs/benchmarks.md). Its nightly build goes to the same kept target dir.
set -euo pipefail
source "$(dirname "$0")/env.sh"
bash scripts/fuzz.sh smoke
