#!/usr/bin/env bash
# Installs what is missing, then builds the app and serves it on http://127.0.0.1:8080 as a
# static host should (tests/e2e/server.mjs: the precompressed files with Content-Encoding,
# hashed files immutable, index.html and sw.js revalidated; README, "Hosting").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
trunk build --release
exec node tests/e2e/server.mjs dist "${PORT:-8080}"
