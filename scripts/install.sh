#!/usr/bin/env bash
# Installs whatever is missing for serving (default) or testing (--test) the app.
# Idempotent: every step checks first, so a repeat run takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
want_test=false
[ "${1:-}" = "--test" ] && want_test=true
say() { echo "install: $*"; }

export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

# Rust toolchain pinned by rust-toolchain.toml, with the wasm target.
if ! rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown; then
  say "adding the wasm32 target"; rustup target add wasm32-unknown-unknown
fi

# trunk 0.21.14 (0.22 needs a newer rustc).
if ! trunk --version 2>/dev/null | grep -q "0.21.14"; then
  say "installing trunk 0.21.14 (about 15 min on a fresh machine)"
  cargo install --locked trunk --version 0.21.14
fi

# wasm-bindgen-cli must equal the wasm-bindgen in Cargo.lock (not --locked: its lock file
# names a crate version the registry lacks).
wbg=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/"/,"",$3); print $3; exit}' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -q " $wbg\$"; then
  say "installing wasm-bindgen-cli $wbg (about 8 min on a fresh machine)"
  cargo install wasm-bindgen-cli --version "$wbg"
fi

# npm tools: binaryen's wasm-opt 132 (Debian's 108 breaks the wasm), playwright-core, axe-core.
if ! wasm-opt --version 2>/dev/null | grep -q "version 132" || ! [ -d node_modules/playwright-core ] || ! [ -d node_modules/axe-core ]; then
  say "installing npm tools"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi

if $want_test; then
  # Fuzzing (scripts/fuzz.sh): cargo-fuzz on the nightly toolchain (libFuzzer, sanitizers).
  if ! rustup toolchain list | grep -q '^nightly'; then
    say "adding the nightly toolchain (for cargo-fuzz)"; rustup toolchain install nightly --profile minimal
  fi
  if ! cargo fuzz --version 2>/dev/null | grep -q "0.13.2"; then
    say "installing cargo-fuzz 0.13.2 (about 2 min on a fresh machine)"
    cargo install --locked cargo-fuzz --version 0.13.2
  fi
  # Ray (PyPI, pinned) for the sharded-sweep test, in a venv reused across runs.
  if ! .tools/ray-venv/bin/python -c "import ray, sys; sys.exit(ray.__version__ != '2.60.0')" 2>/dev/null; then
    say "installing Ray 2.60.0 in .tools/ray-venv"
    python3 -m venv .tools/ray-venv
    .tools/ray-venv/bin/pip install --quiet --disable-pip-version-check "ray==2.60.0"
  fi
  # Optuna (PyPI, pinned) for the study round trip, in its own venv reused across runs;
  # pandas only remakes the fixtures (tests/fixtures/studies/make.py).
  if ! .tools/study-venv/bin/python -c "import optuna, sys; sys.exit(optuna.__version__ != '5.0.0')" 2>/dev/null; then
    say "installing Optuna 5.0.0 in .tools/study-venv"
    python3 -m venv .tools/study-venv
    .tools/study-venv/bin/pip install --quiet --disable-pip-version-check "optuna==5.0.0"
  fi
  # The browsers the tests run in, from Debian (never a browser a tool downloads): Chromium
  # with its driver, and Firefox ESR (153) with geckodriver 0.37.1 from the crate registry.
  if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ] || ! [ -x /usr/bin/firefox-esr ]; then
    say "installing Debian chromium, chromium-driver and firefox-esr"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver firefox-esr >/dev/null
  fi
  if ! geckodriver --version 2>/dev/null | grep -q "^geckodriver 0.37.1"; then
    say "installing geckodriver 0.37.1 (about 2 min on a fresh machine)"
    cargo install --locked geckodriver --version 0.37.1
  fi
fi
say "tools ready: $(trunk --version), $(wasm-bindgen --version), $(wasm-opt --version)"
