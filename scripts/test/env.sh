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
# Cargo takes a build as fresh when it is newer than the sources. A target dir last used by
# another clone holds builds of that clone's sources, which would pass for this clone's wherever
# its files are older: this clone's files are then touched, so that its own crates compile again
# (as they do in a fresh clone, whose files are all new). The registry's crates stay compiled.
clone_mark="$CARGO_TARGET_DIR/.last-clone"
if [ "$(cat "$clone_mark" 2>/dev/null)" != "$PWD" ]; then
  git ls-files -z 2>/dev/null | xargs -0 -r touch -c
  mkdir -p "$CARGO_TARGET_DIR"
  echo "$PWD" >"$clone_mark"
fi
# The tests' profile (Cargo.toml): release's optimisation levels without its fat LTO and single
# codegen unit, for the native tests, `hpo`, the wasm tests and the Python package alike, so that
# each crate compiles once. The app that the end-to-end tests load is the release build itself.
# Native builds name `--workspace`, so that features resolve as when maturin builds crates/py
# (whose Cargo.toml says how) and no crate is compiled twice with different features.
export HPO_TEST_PROFILE=test-release
export HPO_BIN="$CARGO_TARGET_DIR/$HPO_TEST_PROFILE/hpo"
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export CHROMEDRIVER=/usr/bin/chromedriver
