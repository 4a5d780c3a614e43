#!/usr/bin/env bash
# The Ray Tune scheduler with DyHPO, ASHA and Hyperband, 4 workers against 1, on a local two-node
# Ray cluster (issue 69): uses the Python test venv .tools/py-test-venv with Ray 2.60.0 (made by
# tests/py/run.sh, which this runs first if it is missing), installs crates/py into it as a user
# would and runs scripts/bench-py-raytune.py niced. It reads ../shared/benchmarks/lcbench-surrogate
# when present and falls back to the bundled assets/curves.csv (it says which). Arguments go to
# the Python script.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.tools/py-test-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/py/requirements.txt
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./crates/py
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1 PYTHONUNBUFFERED=1
exec nice -n 10 "$venv/bin/python" scripts/bench-py-raytune.py "$@"
