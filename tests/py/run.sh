#!/usr/bin/env bash
# The Python package's tests: creates (or reuses) the venv .tools/py-test-venv with the pinned
# Optuna and pytest of tests/py/requirements.txt, installs crates/py into it as a user would
# (`pip install crates/py`: maturin builds the wheel) and runs crates/py/tests with pytest.
# The bit-for-bit test compares with the `hpo` CLI, built here when missing or stale.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.tools/py-test-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/py/requirements.txt
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./crates/py
cargo build --release --quiet --bin hpo
HPO_BIN="${CARGO_TARGET_DIR:-target}/release/hpo" "$venv/bin/python" -m pytest -q crates/py/tests "$@"
