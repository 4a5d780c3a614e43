#!/usr/bin/env bash
# Runs the test stages that could depend on timing or the order things happen — the Python
# package's tests, the Ray sweep and the end-to-end tests — N times each, then lists every test
# whose result was not the same in all N runs (passed in one, failed or missing in another).
# In each run the end-to-end tests run beside the other two, as in scripts/test.sh.
#
#   bash scripts/repeat-tests.sh N [python] [ray] [e2e]     (default: all three)
#
# Needs what scripts/test.sh leaves (tools, `hpo`, the app in dist/). Exits 1 when a test's
# result changed. Each run's results are kept in $HPO_BUILD_CACHE/repeat-tests/.
set -euo pipefail
source "$(dirname "$0")/test/env.sh"
n=${1:?usage: repeat-tests.sh N [python] [ray] [e2e]}
shift
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(python ray e2e)
out="$HPO_BUILD_CACHE/repeat-tests"
rm -rf "$out"
mkdir -p "$out"

# Each run writes one line per test, "STAGE: NAME<TAB>RESULT", to $out/STAGE-K.tsv.
junit_to_tsv() {  # stage, junit file(s): every testcase's result
  python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
stage, files = sys.argv[1], sys.argv[2:]
for f in files:
    try:
        root = ET.parse(f).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"{stage}: (its report {f})\tunreadable: {e}")
        continue
    for case in root.iter("testcase"):
        name = " :: ".join(x for x in (case.get("classname"), case.get("name")) if x)
        result = "passed"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                result = tag
        print(f"{stage}: {name}\t{result}")
PY
}
run_stage() {  # stage, run number: runs it, writes $out/STAGE-K.tsv and a line of counts
  local s=$1 k=$2 status=0
  local log="$out/$s-$k.log"
  case $s in
    python) bash scripts/test/python.sh --junitxml="$out/$s-$k.xml" >"$log" 2>&1 || status=$?
            junit_to_tsv python "$out/$s-$k.xml" >"$out/$s-$k.tsv" ;;
    e2e)    bash scripts/test/e2e.sh --test-reporter=spec --test-reporter-destination=stdout \
              --test-reporter=junit --test-reporter-destination="$out/$s-$k.xml" >"$log" 2>&1 || status=$?
            junit_to_tsv e2e "$out/$s-$k.xml" >"$out/$s-$k.tsv" ;;
    ray)    bash scripts/test/ray.sh >"$log" 2>&1 || status=$?
            # The sweep's checks print "ok: …" as they pass; a failure ends it with "FAIL: …".
            sed -n 's/^ok: \(.*\)/ray: \1\tpassed/p; s/^FAIL: \(.*\)/ray: \1\tfailure/p' "$log" \
              | sed 's/[0-9]\{3,\}/N/g' >"$out/$s-$k.tsv" ;;
  esac
  echo "   run $k of $n, $s: exit $status, $(grep -c $'\tpassed$' "$out/$s-$k.tsv") passed, $(grep -vc $'\tpassed$\|\tskipped$' "$out/$s-$k.tsv") neither passed nor skipped (log: $log)"
  echo "$s: (the stage as a whole)	exit $status" >>"$out/$s-$k.tsv"
}
for s in "${stages[@]}"; do
  case $s in python|ray|e2e) ;; *) echo "unknown stage $s (python, ray, e2e)" >&2; exit 2 ;; esac
done
# As in scripts/test.sh: the end-to-end tests beside the others, which run one after another.
e2e_pid=
stop_tree() {  # pid: the process and its descendants, children first
  local child
  for child in $(pgrep -P "$1" || true); do stop_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap '[ -z "$e2e_pid" ] || stop_tree "$e2e_pid"' EXIT
for k in $(seq 1 "$n"); do
  echo "== run $k of $n: ${stages[*]}"
  for s in "${stages[@]}"; do
    if [ "$s" = e2e ]; then run_stage e2e "$k" & e2e_pid=$!; fi
  done
  for s in "${stages[@]}"; do
    [ "$s" = e2e ] || run_stage "$s" "$k"
  done
  if [ -n "$e2e_pid" ]; then wait "$e2e_pid" || true; e2e_pid=; fi
done

# A test changed when it does not have the same result in every run.
python3 - "$out" "$n" "${stages[@]}" <<'PY'
import sys, collections
out, n, stages = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
results = collections.defaultdict(lambda: ["(missing)"] * n)
for s in stages:
    for k in range(n):
        for line in open(f"{out}/{s}-{k + 1}.tsv", encoding="utf-8"):
            name, _, result = line.rstrip("\n").rpartition("\t")
            results[name][k] = result
changed = {name: r for name, r in results.items() if len(set(r)) > 1}
print(f"{len(results)} tests in {n} runs of {', '.join(stages)}: {len(changed)} whose result changed")
for name, r in sorted(changed.items()):
    print(f"  {name}: " + ", ".join(f"run {k + 1} {x}" for k, x in enumerate(r)))
sys.exit(1 if changed else 0)
PY
