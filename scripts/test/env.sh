# Sourced by every test stage (scripts/test/*.sh) and by scripts/test.sh: where builds go, which
# profile the tests build, and the PATH to the installed tools.
#
# One target dir outside the clone, kept across clean clones on the same machine: a fresh clone
# (as CI makes one for every run) then compiles only this repository's own crates, whose sources
# are newer than any build, and takes the third-party crates (fixed versions from the registry)
# already compiled. HPO_BUILD_CACHE or CARGO_TARGET_DIR point elsewhere; nothing in it is needed
# for correctness (remove it and the next run builds everything).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export HPO_BUILD_CACHE="${HPO_BUILD_CACHE:-$HOME/.cache/hpo-playground-build}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HPO_BUILD_CACHE/target}"
# The tests' profile (Cargo.toml): release's optimisation levels without its fat LTO and single
# codegen unit, for the native tests, `hpo`, the wasm tests and the Python package alike, so that
# each crate compiles once. The app that the end-to-end tests load is the release build itself.
export HPO_TEST_PROFILE=test-release
export HPO_BIN="$CARGO_TARGET_DIR/$HPO_TEST_PROFILE/hpo"
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export CHROMEDRIVER=/usr/bin/chromedriver
