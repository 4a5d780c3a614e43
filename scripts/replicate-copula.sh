#!/usr/bin/env bash
# Table 2 of Salinas et al. (2020) with the CLI: every implemented method on DeepAR, XGBoost
# and NAS-Bench-201, leave-one-task-out, 100 iterations (70 for NAS). SEEDS defaults to the
# paper's 30; traces land in out/replication/<blackbox>/ in the paper repository's format.
# Usage: bash scripts/replicate-copula.sh [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-30}"
methods='RS,GP,GCP,CTS,TS,GCP%2Bprior,GP%2Bprior,WS-GP,AutoGP,ABLR,ABLR%20Copula,SGPT,SGPT%20Copula'
cargo build --release --quiet --bin hpo
for spec in "DeepAR.csv.zip:deepar:100" "XGBoost.csv.zip:xgboost:100" "nas_bench102.csv.zip:nas:70"; do
  IFS=: read -r file name iters <<< "$spec"
  echo "== $name ($seeds seeds, $iters iterations)"
  ./target/release/hpo run --link "v=1&data=shared:$file&methods=$methods&seeds=$seeds&iters=$iters&transfer=loto" --out "out/replication/$name"
done
