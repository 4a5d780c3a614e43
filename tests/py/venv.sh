#!/usr/bin/env bash
# Makes (or checks) the Python package's test venv, .tools/py-test-venv, with the pins of
# tests/py/requirements.txt: real Optuna, Syne Tune, Ray Tune and pytest, no torch. Made at the
# real path of .tools (scripts/install.sh links it to a folder kept across clones).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .tools
venv="$(cd .tools && pwd -P)/py-test-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/py/requirements.txt
