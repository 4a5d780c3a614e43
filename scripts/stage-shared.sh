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
# LCBench is a folder of four files; the page takes it as one zip (stored: its big members
# are gzip already). The CLI reads the folder itself.
lc="$src/lcbench-surrogate"
if [ -f "$lc/lcbench_configs.csv" ] && [ -f "$lc/lcbench_surrogate_val_balanced_accuracy.csv.gz" ]; then
  python3 - "$lc" "$out/lcbench-surrogate.zip" <<'PY'
import sys, zipfile, os
src, dst = sys.argv[1], sys.argv[2]
names = ["lcbench_configs.csv", "lcbench_surrogate_val_balanced_accuracy.csv.gz",
         "lcbench_surrogate_time.csv.gz", "lcbench_task_names.csv"]
with zipfile.ZipFile(dst + ".tmp", "w", zipfile.ZIP_STORED) as z:
    for n in names:
        if os.path.exists(os.path.join(src, n)):
            z.write(os.path.join(src, n), n)
os.replace(dst + ".tmp", dst)
PY
  files+=("lcbench-surrogate.zip")
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
