#!/usr/bin/env bash
# The Python package's tests: creates (or reuses) the venv .tools/py-test-venv with the pinned
# Optuna, Syne Tune, Ray and pytest of tests/py/requirements.txt, installs crates/py into it as a
# user would (`pip install crates/py`: maturin builds the wheel) and runs crates/py/tests with pytest.
# The bit-for-bit test compares with the `hpo` CLI, built here when missing or stale. The Ray Tune
# tests start (and stop) a two-node Ray cluster of their own (crates/py/tests/ray_cluster.py).
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

# The wheel for distribution (scripts/build-wheel.sh): tagged manylinux after maturin's check of
# its symbols, it installs into a fresh venv with nothing else and runs a method there.
wheel=$(bash scripts/build-wheel.sh)
case "$wheel" in *-cp310-abi3-manylinux_2_34_x86_64.whl) ;; *) echo "not a manylinux abi3 wheel: $wheel" >&2; exit 1 ;; esac
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
python3 -m venv "$fresh/venv"
"$fresh/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
"$fresh/venv/bin/python" - <<'PY'
import hpo_playground
assert "DyHPO" in hpo_playground.methods()["multi_fidelity"], hpo_playground.methods()
mf = hpo_playground.MultiFidelity({"lr": {"type": "float", "low": 1e-4, "high": 1.0, "log": True}}, method="ASHA", max_budget=3, seed=0)
asked = mf.ask()
print(f"the distribution wheel runs in a fresh venv: ASHA asked {asked}")
PY
