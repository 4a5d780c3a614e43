#!/usr/bin/env bash
# Installs whatever is missing for serving (default) or testing (--test) the app.
# Idempotent: every step checks first, so a repeat run takes seconds. The downloads that only
# wait on the network (Debian's browsers, the Python venvs, the nightly toolchain) run in the
# background while the crates that compile (trunk, wasm-bindgen-cli, …) take the cores.
set -euo pipefail
cd "$(dirname "$0")/.."
want_test=false
[ "${1:-}" = "--test" ] && want_test=true
say() { echo "install: $*"; }

export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

# Background installs: each logs to a file, shown when it fails; all are waited for at the end.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
jobs_started=()
in_background() {  # name, command…
  local name=$1
  shift
  ( "$@" ) >"$logs/$name.log" 2>&1 &
  jobs_started+=("$!:$name")
}

# The Python venvs live in a folder kept across clean clones of this repository on the same
# machine (beside the build cache of scripts/test/env.sh), as ~/.cargo/bin keeps the cargo
# tools: .tools links to it. Each venv is made at its real path, so that its scripts' first
# lines name a path that outlives the clone. (A clone whose .tools is a folder keeps it.)
if ! [ -e .tools ]; then
  tools_home="${HPO_BUILD_CACHE:-$HOME/.cache/hpo-playground-build}/tools"
  mkdir -p "$tools_home"
  ln -s "$tools_home" .tools
fi
tools=$(cd .tools && pwd -P)
venv_with() {  # name, python check, pip arguments…: (re)makes .tools/NAME when the check fails
  local name=$1 check=$2
  shift 2
  if ! ".tools/$name/bin/python" -c "$check" 2>/dev/null; then
    say "installing $* in .tools/$name"
    python3 -m venv "$tools/$name"
    "$tools/$name/bin/pip" install --quiet --disable-pip-version-check "$@"
  fi
}

if $want_test; then
  # The browsers the tests run in, from Debian (never a browser a tool downloads): Chromium
  # with its driver, and Firefox ESR (153) with geckodriver 0.37.1 (below, crate registry).
  if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ] || ! [ -x /usr/bin/firefox-esr ]; then
    say "installing Debian chromium, chromium-driver and firefox-esr (in the background)"
    in_background browsers bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver firefox-esr >/dev/null'
  fi
  # Ray (PyPI, pinned) for the sharded-sweep test; Optuna for the study round trip (pandas
  # only remakes the fixtures: tests/fixtures/studies/make.py); the Python package's test venv
  # with the pins of tests/py/requirements.txt (tests/py/run.sh checks it again).
  in_background ray-venv venv_with ray-venv "import ray, sys; sys.exit(ray.__version__ != '2.60.0')" "ray==2.60.0"
  in_background study-venv venv_with study-venv "import optuna, sys; sys.exit(optuna.__version__ != '5.0.0')" "optuna==5.0.0"
  in_background py-test-venv bash tests/py/venv.sh
  # Fuzzing (scripts/fuzz.sh): cargo-fuzz on the nightly toolchain (libFuzzer, sanitizers).
  if ! rustup toolchain list | grep -q '^nightly'; then
    say "adding the nightly toolchain (for cargo-fuzz, in the background)"
    in_background nightly rustup toolchain install nightly --profile minimal
  fi
fi

# Rust toolchain pinned by rust-toolchain.toml, with the wasm target.
if ! rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown; then
  say "adding the wasm32 target"; rustup target add wasm32-unknown-unknown
fi

# npm tools: binaryen's wasm-opt 132 (Debian's 108 breaks the wasm), playwright-core, axe-core.
if ! wasm-opt --version 2>/dev/null | grep -q "version 132" || ! [ -d node_modules/playwright-core ] || ! [ -d node_modules/axe-core ]; then
  say "installing npm tools"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi

# trunk 0.21.14 (0.22 needs a newer rustc). Its own release profile (fat LTO, one codegen unit)
# is for the binaries it publishes; here trunk waits on cargo, wasm-bindgen and wasm-opt, and
# built without them it compiles in 5 min 40 s instead of 6 min 49 s (docs/benchmarks.md).
if ! trunk --version 2>/dev/null | grep -q "0.21.14"; then
  say "installing trunk 0.21.14 (about 6 min on a fresh machine)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo install --locked trunk --version 0.21.14
fi

# wasm-bindgen-cli must equal the wasm-bindgen in Cargo.lock (not --locked: its lock file
# names a crate version the registry lacks).
wbg=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/"/,"",$3); print $3; exit}' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -q " $wbg\$"; then
  say "installing wasm-bindgen-cli $wbg (about 8 min on a fresh machine)"
  cargo install wasm-bindgen-cli --version "$wbg"
fi

if $want_test; then
  if ! cargo fuzz --version 2>/dev/null | grep -q "0.13.2"; then
    say "installing cargo-fuzz 0.13.2 (about 2 min on a fresh machine)"
    cargo install --locked cargo-fuzz --version 0.13.2
  fi
  if ! geckodriver --version 2>/dev/null | grep -q "^geckodriver 0.37.1"; then
    say "installing geckodriver 0.37.1 (about 2 min on a fresh machine)"
    cargo install --locked geckodriver --version 0.37.1
  fi
fi

failed=0
for job in ${jobs_started[@]+"${jobs_started[@]}"}; do
  if ! wait "${job%%:*}"; then
    say "FAILED: ${job#*:}"; cat "$logs/${job#*:}.log"; failed=1
  elif [ -s "$logs/${job#*:}.log" ]; then
    cat "$logs/${job#*:}.log"
  fi
done
[ "$failed" = 0 ] || exit 1
say "tools ready: $(trunk --version), $(wasm-bindgen --version), $(wasm-opt --version)"
