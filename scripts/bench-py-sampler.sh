#!/usr/bin/env bash
# The Python package's sampler against Optuna's GPSampler and TPESampler (issue 62): builds the
# wheel of crates/py (pip wheel: maturin), installs it into the venv of scripts/bench-gp-optuna.sh
# (.tools/gp-bench-venv: Optuna 5.0.0 and PyTorch, kept out of the test command; made there if
# missing) and runs scripts/bench-py-sampler.py in it on one thread, niced, with the wheel's path
# for its size. Arguments go to the Python script (--help for its options).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bench-gp-optuna.sh --install-only
venv=.tools/gp-bench-venv
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
"$venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$wheels" ./crates/py
wheel=$(ls "$wheels"/*.whl)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1 PYTHONUNBUFFERED=1
exec nice -n 5 "$venv/bin/python" scripts/bench-py-sampler.py --wheel "$wheel" "$@"
