#!/usr/bin/env bash
# The Python package's tests: creates (or reuses) the venv .tools/py-test-venv with the pinned
# Optuna, Syne Tune, Ray and pytest of tests/py/requirements.txt, installs crates/py into it as a
# user would (`pip install crates/py`: maturin builds the wheel) and runs crates/py/tests with pytest.
# The bit-for-bit test compares with the `hpo` CLI ($HPO_BIN), built here when missing or stale. The Ray Tune
# tests start (and stop) a two-node Ray cluster of their own (crates/py/tests/ray_cluster.py).
set -euo pipefail
source "$(dirname "$0")/../../scripts/test/env.sh"
venv=.tools/py-test-venv
bash tests/py/venv.sh
# Built in the tests' profile (scripts/test/env.sh), as `hpo` and the wheel below are: the
# engine compiles once for the three.
MATURIN_PEP517_ARGS="--profile $HPO_TEST_PROFILE" \
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./crates/py
cargo build --workspace --profile "$HPO_TEST_PROFILE" --quiet --bin hpo
"$venv/bin/python" -m pytest -q crates/py/tests "$@"

# The wheel for distribution (scripts/build-wheel.sh): tagged manylinux after maturin's check of
# its symbols, it installs into a fresh venv with nothing else and runs a method there. Built in
# the tests' profile, it reuses the extension compiled above (a release wheel links with fat LTO).
wheel=$(HPO_WHEEL_PROFILE="$HPO_TEST_PROFILE" bash scripts/build-wheel.sh)
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
