#!/usr/bin/env bash
# The LCBench experiment of DyHPO (Wistuba et al. 2022, §5, Figs. 3-6) with the CLI: all 34
# LCBench tasks, validation balanced accuracy, a total budget of 1,000 epochs per run, every
# multi-fidelity method (RS, Hyperband, ASHA, BOHB, DEHB, DyHPO, DyHPO w/o CNN and the
# labelled DyHPO (fast) variant). SEEDS defaults to the paper's 10, BUDGET to 1,000, METHODS
# to all, THREADS to all cores. Each run is cached in out/replication/lcbench-BUDGET/runs/ (a
# re-run resumes); the regret, ranks, CD statistics and Fig. 6 curves land in
# out/replication/lcbench-BUDGET/race-summary.json, every request in race-traces.csv.
# Usage: bash scripts/replicate-dyhpo.sh [SEEDS] [BUDGET] [METHODS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
args=(--data lcbench --seeds "${1:-10}" --budget "${2:-1000}" --out "out/replication/lcbench-${2:-1000}")
[[ -n "${3:-}" ]] && args+=(--methods "$3")
[[ -n "${4:-}" ]] && args+=(--threads "$4")
cargo build --release --quiet --bin hpo
./target/release/hpo race "${args[@]}"
