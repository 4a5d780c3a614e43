#!/usr/bin/env bash
# Many workers at once (issue 69): the engine's batches under each constant liar, and Optuna's
# n_jobs threads with our sampler, GPSampler and TPESampler(constant_liar=True). Builds the wheel
# of crates/py, installs it into the venv of scripts/bench-gp-optuna.sh (.tools/gp-bench-venv:
# Optuna 5.0.0 and PyTorch, kept out of the test command; made there if missing) and runs
# scripts/bench-py-parallel.py in it, niced. Arguments go to the Python script (--help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bench-gp-optuna.sh --install-only
venv=.tools/gp-bench-venv
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
"$venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$wheels" ./crates/py
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/*.whl
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1 PYTHONUNBUFFERED=1
exec nice -n 5 "$venv/bin/python" scripts/bench-py-parallel.py "$@"
