#!/usr/bin/env bash
# Our GP (`hpo suggest --method GP|GCP|GCP+prior`) against Optuna 5.0's GPSampler, side by side
# (issue 59): creates or reuses the venv .tools/gp-bench-venv (Optuna, PyTorch for CPU, SciPy,
# NumPy, and greenlet, which GPSampler needs for its batched L-BFGS-B (without it Optuna warns
# and falls back to a slower sequential one); all pinned, from PyPI; PyTorch is big, so this is
# kept out of the test command), then runs scripts/bench-gp-optuna.py in it with the arguments
# given, on one thread and niced.
#
#   scripts/bench-gp-optuna.sh --install-only        # only make the venv (idempotent)
#   scripts/bench-gp-optuna.sh [bench args...]       # e.g. --hpo target/release/hpo --out results/gp-vs-optuna.md
#   scripts/bench-gp-optuna.sh --help                # the benchmark's options
#
# Idempotent: a venv that already has the pinned versions is used as it is (the check imports
# torch: a few seconds); a broken or outdated one is topped up with pip.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.tools/gp-bench-venv
pins=("optuna==5.0.0" "torch==2.15.0" "scipy==1.17.1" "numpy==2.4.6" "greenlet==3.5.6")
say() { echo "bench-gp-optuna: $*" >&2; }

check='
import sys, optuna, torch, scipy, numpy, greenlet
want = {"optuna": "5.0.0", "torch": "2.15.0", "scipy": "1.17.1", "numpy": "2.4.6", "greenlet": "3.5.6"}
have = {"optuna": optuna.__version__, "torch": torch.__version__.split("+")[0],
        "scipy": scipy.__version__, "numpy": numpy.__version__, "greenlet": greenlet.__version__}
sys.exit(0 if have == want else 1)
'
if ! "$venv/bin/python" -c "$check" 2>/dev/null; then
  say "installing ${pins[*]} in $venv (PyTorch is a large download: several minutes)"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}"
  "$venv/bin/python" -c "$check" || { say "the venv still lacks the pinned versions"; exit 1; }
fi

[ "${1:-}" = "--install-only" ] && { say "venv ready: $venv"; exit 0; }

# One thread everywhere (the machine's 2 cores are shared), niced.
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMEXPR_NUM_THREADS=1 \
  VECLIB_MAXIMUM_THREADS=1 RAYON_NUM_THREADS=1 PYTHONUNBUFFERED=1
exec nice -n 5 "$venv/bin/python" scripts/bench-gp-optuna.py "$@"
