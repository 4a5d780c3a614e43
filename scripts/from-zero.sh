#!/usr/bin/env bash
# Measures the README's test command from zero on this machine: a fresh clone run with a HOME of
# its own, so that nothing this project installs or caches is there — no cargo tools (trunk,
# wasm-bindgen-cli, cargo-fuzz, geckodriver), no crates downloaded, no npm or pip cache, no
# venvs, no target dir. What a machine has before the README's first command stays: the Rust
# toolchains of rustup (RUSTUP_HOME), Python (pyenv's, PYENV_ROOT), Node and Debian's packages
# (the browsers among them, which scripts/install.sh would otherwise install from Debian).
#
#   bash scripts/from-zero.sh        (about an hour; the clone and its HOME are removed first)
#
# The clone is made beside this one, so that ../shared is found as in any checkout. Its log
# and the stage table are in $FROM_ZERO/log (default: ../hpo-from-zero, beside the clone).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
base=${FROM_ZERO:-$(dirname "$repo")/hpo-from-zero}
clone="$base-clone"
rm -rf "$base" "$clone"
mkdir -p "$base/home/.cargo/bin"

# rustup and its proxies, as rustup's installer leaves them in ~/.cargo/bin; the toolchains it
# manages stay where they are.
rustup_bin=$(command -v rustup)
cp "$rustup_bin" "$base/home/.cargo/bin/rustup"
for proxy in cargo rustc rustdoc rustfmt cargo-fmt cargo-clippy clippy-driver; do
  ln -s rustup "$base/home/.cargo/bin/$proxy"
done
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
[ -z "${PYENV_ROOT:-}" ] && [ -d "$HOME/.pyenv" ] && export PYENV_ROOT="$HOME/.pyenv"
# The PATH without the old HOME's cargo tools.
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vx "$HOME/.cargo/bin" | paste -sd: -)
export HOME="$base/home" CARGO_HOME="$base/home/.cargo" PATH="$base/home/.cargo/bin:$PATH"
unset HPO_BUILD_CACHE CARGO_TARGET_DIR

git clone --quiet "$repo" "$clone"
cd "$clone"
echo "from zero: $clone, HOME=$HOME, commit $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC')" | tee "$base/log"
bash scripts/test.sh 2>&1 | tee -a "$base/log"
