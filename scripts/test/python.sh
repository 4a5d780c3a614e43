#!/usr/bin/env bash
# Stage: the Python package (pip install crates/py) with real Optuna, Syne Tune and Ray Tune,
# then the manylinux wheel for distribution in a fresh venv (tests/py/run.sh). Arguments go to pytest.
set -euo pipefail
source "$(dirname "$0")/env.sh"
bash tests/py/run.sh "$@"
