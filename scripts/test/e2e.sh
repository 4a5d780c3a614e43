#!/usr/bin/env bash
# Stage: the end-to-end tests on the release build in headless Chromium; the scenarios where
# browsers differ and the layout tests in headless Firefox too. Builds what is missing (the app
# in dist/, `hpo`). Arguments go to node's test runner in place of the folder (e.g.
# `bash scripts/test/e2e.sh tests/e2e/layout.test.mjs`); options (`--test-reporter=junit`, with `=`)
# go to it too, before the folder when no file is named.
set -euo pipefail
source "$(dirname "$0")/env.sh"
[ -f dist/index.html ] || bash scripts/test/app.sh
cargo build --workspace --profile "$HPO_TEST_PROFILE" --quiet --bin hpo
named=false
for a in "$@"; do case $a in -*) ;; *) named=true ;; esac; done
$named || set -- "$@" tests/e2e/
REQUIRE_FIREFOX=1 node --test --test-concurrency=1 "$@"
