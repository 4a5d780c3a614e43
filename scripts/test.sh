#!/usr/bin/env bash
# Installs what is missing, then runs every test: native unit and integration tests, wasm tests
# in headless Chromium and Firefox, end-to-end tests of the release build driven like a user
# (Chromium; the scenarios where browsers differ in Firefox too), the Python package with real
# Optuna, Syne Tune and Ray, a sharded Ray sweep and the fuzz smoke.
#
# Each stage is a script of scripts/test/ that runs alone too (`bash scripts/test/e2e.sh`); at
# the end (or at the first failure) a table of the stages' wall times is printed and kept in
# $HPO_BUILD_CACHE/test-stages.md. Builds go to one target dir kept across clones
# (scripts/test/env.sh), in one profile for everything native and for the wasm tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test/env.sh

names=() seconds=() results=()
started=$(date +%s)
table() {
  local i total=$(( $(date +%s) - started ))
  {
    echo "| stage | wall time | result |"
    echo "|---|---:|---|"
    for i in "${!names[@]}"; do
      printf '| %s | %d min %02d s | %s |\n' "${names[$i]}" $(( seconds[i] / 60 )) $(( seconds[i] % 60 )) "${results[$i]}"
    done
    printf '| **all** | **%d min %02d s** | |\n' $(( total / 60 )) $(( total % 60 ))
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), load average at the end $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  } | tee "$HPO_BUILD_CACHE/test-stages.md"
}
stage() {  # name, command…: runs the command, records its wall time and result
  local name=$1 t0 status=0
  shift
  echo "== $name"
  t0=$(date +%s)
  "$@" || status=$?
  names+=("$name") seconds+=($(( $(date +%s) - t0 )))
  if [ "$status" -eq 0 ]; then results+=(ok); else results+=("FAILED (exit $status)"); fi
  if [ "$status" -ne 0 ]; then echo "== $name failed (exit $status)"; table; exit "$status"; fi
}
# A stage that runs beside the next ones, where the stages in front leave a core idle: the
# fuzz targets' build beside the app's release build (which spends about half of its time
# linking on one core); the end-to-end tests (1.66 of 2 cores busy, the rest waiting on the
# browsers) beside the Python package's tests (1.2 busy, waiting on Ray's start-ups), the Ray
# sweep (0.3) and the fuzz smoke. No test of one of them reads another's files or ports (Ray's
# clusters take ports below the OS's ephemeral range, the browsers and servers take theirs
# from it). `begin` starts it, `finish` waits for it and records it like a stage, from its
# start; its output is printed when it ends.
declare -A bg_pid=() bg_log=() bg_t0=()
begin() {  # name, command…
  local name=$1
  shift
  bg_log[$name]=$(mktemp)
  echo "== $name (beside the next stages; its output, printed when it ends, goes to ${bg_log[$name]})"
  bg_t0[$name]=$(date +%s)
  # Its exit status and the moment it ended, for its own wall time.
  { status=0; "$@" || status=$?; echo "$status $(date +%s)" >"${bg_log[$name]}.end"; } >"${bg_log[$name]}" 2>&1 &
  bg_pid[$name]=$!
}
finish() {  # name
  local name=$1 status ended
  wait "${bg_pid[$name]}" || true
  read -r status ended <"${bg_log[$name]}.end" || { status=1; ended=$(date +%s); }
  cat "${bg_log[$name]}"
  rm -f "${bg_log[$name]}" "${bg_log[$name]}.end"
  unset "bg_pid[$name]"
  names+=("$name (beside)") seconds+=($(( ended - bg_t0[$name] )))
  if [ "$status" -eq 0 ]; then results+=(ok); else results+=("FAILED (exit $status)"); fi
  if [ "$status" -ne 0 ]; then echo "== $name failed (exit $status)"; table; exit "$status"; fi
}
# A stage left running when the command stops is stopped with it, and what it started (a
# browser, a cargo build) with it.
stop_tree() {  # pid: the process and its descendants, children first
  local child
  for child in $(pgrep -P "$1" || true); do stop_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap 'for p in "${bg_pid[@]}"; do stop_tree "$p"; done' EXIT
mkdir -p "$HPO_BUILD_CACHE"
[ -d ../shared/benchmarks ] || echo "note: ../shared/benchmarks is absent; tests that need it are skipped"

stage "install what is missing" bash scripts/install.sh --test
stage "format and lints (native, wasm)" bash scripts/test/lint.sh
stage "native tests" bash scripts/test/native.sh
begin "fuzz targets' build (nightly)" bash scripts/test/fuzz.sh build
stage "release build of the app (trunk)" bash scripts/test/app.sh
stage "wasm tests (Chromium, Firefox)" bash scripts/test/wasm.sh
stage "Optuna round trip (hpo suggest)" bash scripts/test/studies.sh
begin "end-to-end tests" bash scripts/test/e2e.sh
stage "Python package (Optuna, Syne Tune, Ray Tune; wheel)" bash scripts/test/python.sh
stage "Ray sweep (two-node cluster)" bash scripts/test/ray.sh
finish "fuzz targets' build (nightly)"
stage "fuzz smoke (the same inputs every run)" bash scripts/test/fuzz.sh
finish "end-to-end tests"
echo "== stages"
table
