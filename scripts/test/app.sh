#!/usr/bin/env bash
# Stage: the release build of the app (trunk, into dist/), as it ships; the end-to-end tests load it.
set -euo pipefail
source "$(dirname "$0")/env.sh"
trunk build --release
