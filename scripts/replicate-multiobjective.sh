#!/usr/bin/env bash
# The multi-objective NAS experiment of Salinas et al. (2020, §5.2, Fig. 7) with the CLI:
# error and latency of NAS-Bench-201 on its three datasets, leave-one-task-out, 100 iterations,
# every scalarized (+MO) method and the ParEGO / EHVI baselines. SEEDS defaults to the paper's
# 30; THREADS to all cores. Traces (with the hypervolume error per iteration) land in
# out/replication/nas-mo/.
# Usage: bash scripts/replicate-multiobjective.sh [SEEDS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-30}"
threads=()
[[ -n "${2:-}" ]] && threads=(--threads "$2")
methods='RS,GP%2BMO,GCP%2BMO,CTS%2BMO,TS%2BMO,GCP%2Bprior%2BMO,GP%2Bprior%2BMO,ParEGO,EHVI'
cargo build --release --quiet --bin hpo
./target/release/hpo run "${threads[@]}" \
  --link "v=1&data=shared:nas_bench102.csv.zip&mo=metric_error:min,metric_latency:min&methods=$methods&seeds=$seeds&iters=100&transfer=loto" \
  --out out/replication/nas-mo
