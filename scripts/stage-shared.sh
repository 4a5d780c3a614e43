#!/usr/bin/env bash
# Trunk post-build hook: copy the real benchmark tables from ../shared/benchmarks (if present)
# into the built site under shared/, with a manifest the app reads. Never committed.
set -euo pipefail
out="${TRUNK_STAGING_DIR:?run by trunk}/shared"
src="${HPO_SHARED_DIR:-$(cd "$(dirname "$0")/.." && pwd)/../shared/benchmarks}"
mkdir -p "$out"
files=()
if [ -d "$src/quantile-transfer" ]; then
  for f in "$src"/quantile-transfer/*.zip; do
    [ -f "$f" ] || continue
    install -m 0644 "$f" "$out/"
    files+=("$(basename "$f")")
  done
fi
{
  printf '['
  for i in "${!files[@]}"; do
    [ "$i" -gt 0 ] && printf ','
    printf '"%s"' "${files[$i]}"
  done
  printf ']\n'
} > "$out/manifest.json"
echo "stage-shared: ${#files[@]} shared benchmark file(s) staged"
