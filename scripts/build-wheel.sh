#!/usr/bin/env bash
# Builds the Python package's wheel for distribution (PyPI, the OptunaHub page): one abi3 wheel
# for every CPython from 3.10, tagged manylinux_2_34 after maturin has checked the extension's
# symbols against that policy. (`pip install crates/py` builds the same extension through
# maturin's PEP 517 backend, which does not audit and tags the wheel linux_x86_64, a tag PyPI
# refuses.) 2_34 is the oldest glibc this machine's build allows: the extension links
# GLIBC_2.30, 2.33 and 2.34 symbols, so an older tag needs a build in a manylinux container.
# Prints the wheel's path; wheels go to target/wheels (or $CARGO_TARGET_DIR/wheels). Cargo's
# release profile unless HPO_WHEEL_PROFILE names another (the tests build the tests' profile).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tools
venv="$(cd .tools && pwd -P)/maturin-venv"
# The same maturin as crates/py/pyproject.toml's build-system.
maturin=$(sed -n 's/^requires = \["\(maturin==[0-9.]*\)"\]$/\1/p' crates/py/pyproject.toml)
[ -n "$maturin" ] || { echo "no pinned maturin in crates/py/pyproject.toml" >&2; exit 1; }
if ! [ -x "$venv/bin/maturin" ] || [ "maturin==$("$venv/bin/maturin" --version | cut -d' ' -f2)" != "$maturin" ]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$maturin"
fi
out="${CARGO_TARGET_DIR:-target}/wheels"
"$venv/bin/maturin" build --quiet --profile "${HPO_WHEEL_PROFILE:-release}" --compatibility manylinux_2_34 -m crates/py/Cargo.toml --out "$out" >&2
ls -t "$out"/hpo_playground-*-cp310-abi3-manylinux_2_34_x86_64.whl | head -1
