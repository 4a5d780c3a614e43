#!/usr/bin/env bash
# Installs what is missing, then builds and serves the app on http://127.0.0.1:8080
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
# No autoreload: trunk's reload script would be inline (or, moved to a file, lose the address
# trunk fills in when serving), and the page's Content-Security-Policy forbids both.
exec trunk serve --release --no-autoreload --address 127.0.0.1 --port "${PORT:-8080}"
