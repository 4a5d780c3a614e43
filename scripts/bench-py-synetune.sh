#!/usr/bin/env bash
# The Python package's Syne Tune scheduler (DyHPO) against Syne Tune's ASHA and Hyperband on
# Syne Tune's simulated backend (issue 62): makes (or reuses) the venv .tools/st-bench-venv with
# the pinned Syne Tune 0.16.0 and what its blackbox repository imports (huggingface_hub, at
# import time, though nothing is downloaded), installs crates/py into it as a user would
# (`pip install ./crates/py`: maturin builds the wheel) and runs scripts/bench-py-synetune.py
# on one thread, niced. It reads ../shared/benchmarks/lcbench-surrogate when present and says so
# when it falls back to the bundled assets/curves.csv. Arguments go to the Python script
# (--workers 1,4: every scheduler with 1 and with 4 workers, paired on tasks and seeds; issue 69).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.tools/st-bench-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  syne-tune==0.16.0 huggingface_hub==2.4.0 numpy==2.4.6 pandas==3.1.1 scikit-learn==1.9.1
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./crates/py
if [ ! -d ../shared/benchmarks/lcbench-surrogate ]; then
  echo "../shared/benchmarks/lcbench-surrogate is absent: the benchmark runs on the bundled assets/curves.csv" >&2
fi
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1 PYTHONUNBUFFERED=1
exec nice -n 10 "$venv/bin/python" scripts/bench-py-synetune.py "$@"
