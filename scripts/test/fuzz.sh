#!/usr/bin/env bash
# Stage: the fuzz smoke, every target on the same inputs on every run (fixed seed and number of
# executions; scripts/fuzz.sh says how). Long runs that explore: `bash scripts/fuzz.sh SECONDS`
# (counts in docs/benchmarks.md). `bash scripts/test/fuzz.sh build` only builds the targets
# (scripts/test.sh does that beside the app's build).
#
# Its nightly build has a kept target dir of its own: beside the app's build (stable, wasm32)
# in the same dir, the two would wait on each other's cargo lock.
set -euo pipefail
source "$(dirname "$0")/env.sh"
export CARGO_TARGET_DIR="$HPO_BUILD_CACHE/fuzz-target"
bash scripts/fuzz.sh "${1:-smoke}"
