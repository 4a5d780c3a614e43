#!/usr/bin/env bash
# `hpo explore`'s hyperparameter importance against Optuna 5.0's evaluators (fANOVA, PED-ANOVA,
# MDI): runs scripts/bench-importance.py in the Python tests' venv (.tools/py-test-venv: Optuna
# 5.0.0, scikit-learn 1.9.1 and SciPy 1.17.1 for Optuna's forests; made or topped up by
# tests/py/venv.sh) on one thread, niced. The hpo binary: $HPO_BIN, else target/release/hpo
# (not built here). Arguments go to the Python script (--help for its options), e.g.
#
#   scripts/bench-importance.sh --out results/importance.md     # both parts (~6 min)
#   scripts/bench-importance.sh --part speed                     # the 1,000-trial study only
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/py/venv.sh
venv=.tools/py-test-venv
export HPO_BIN="${HPO_BIN:-$PWD/target/release/hpo}"
# One thread everywhere (the machine's 2 cores are shared), niced.
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMEXPR_NUM_THREADS=1 \
  VECLIB_MAXIMUM_THREADS=1 RAYON_NUM_THREADS=1 PYTHONUNBUFFERED=1
exec nice -n "${NICE:-5}" "$venv/bin/python" scripts/bench-importance.py "$@"
