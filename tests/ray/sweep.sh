#!/usr/bin/env bash
# The sharded sweep end to end on a local two-node Ray cluster (two `ray start` on this
# machine): the merged outputs equal a single-machine `hpo run`, a Ray worker killed in the
# middle of a task has its task retried with the same result, and a second run resumes
# (runs nothing). Needs $HPO_BIN (default target/release/hpo) and the venv with Ray (scripts/test.sh makes both).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.tools/ray-venv
hpo=${HPO_BIN:-$PWD/target/release/hpo}
ray="$venv/bin/ray"
tmp=$(mktemp -d)
# The cluster's 500 ports (port .. port + 499, laid out below): the first range whose ports are
# all free now, claimed against the machine's other test clusters by a lock held while this
# script runs (crates/py/tests/ray_cluster.py claims the same way), outside the ports the OS
# hands out to connections. Not a random range, which could collide with another's by chance.
claims="${TMPDIR:-/tmp}/hpo-playground-ray-ports"
mkdir -p "$claims"
read -r ephemeral_lo ephemeral_hi < /proc/sys/net/ipv4/ip_local_port_range
port=
for base in $(seq 20000 500 65035); do
  [ $((base + 500)) -le "$ephemeral_lo" ] || [ "$base" -gt "$ephemeral_hi" ] || continue
  exec {claim}>"$claims/$base.lock"
  if flock -n "$claim" && "$venv/bin/python" -c '
import socket, sys
base = int(sys.argv[1])
for p in range(base, base + 500):
    with socket.socket() as s:
        s.bind(("", p))  # raises if the port is taken
' "$base" 2>/dev/null; then
    port=$base
    break
  fi
  exec {claim}>&-
done
[ -n "$port" ] || { echo "FAIL: no free range of 500 ports for the Ray cluster"; exit 1; }
export RAY_USAGE_STATS_ENABLED=0 RAY_DEDUP_LOGS=0
# A Ray user's machine: a local `ray.init()` of Ray 2.60 writes ~/.ray/auth_token, after which
# `ray start --head` enables token authentication and a node joining without the token is
# refused. The test runs as such a user (a home of its own holding a token file that is not the
# cluster's), and its cluster uses token authentication on purpose, with a token of its own
# given to every node and driver: the user's file then plays no part.
export HOME="$tmp/home"
mkdir -p "$HOME/.ray"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$HOME/.ray/auth_token"
export RAY_AUTH_MODE=token
RAY_AUTH_TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export RAY_AUTH_TOKEN
# A cluster of its own, beside any other on this machine (a protocol sweep may be running):
# its own temp dir and ports, and nodes started with --block so that stopping them stops only
# their processes. `ray stop` would stop every Ray process of this user.
node_ports() {  # base: the node's fixed ports, so two nodes and another cluster never collide
  local b=$1
  echo "--node-manager-port=$b --object-manager-port=$((b + 1)) --dashboard-agent-listen-port=$((b + 2))" \
       "--dashboard-agent-grpc-port=$((b + 3)) --runtime-env-agent-port=$((b + 4)) --metrics-export-port=$((b + 5))" \
       "--min-worker-port=$((b + 100)) --max-worker-port=$((b + 199))"
}
nodes_pids=()
# A bystander that looks like another cluster's task worker to both ways of killing too much:
# `ray stop` (its command line names default_worker.py) and a killer matching every
# `ray::run_shard` of the machine. It must outlive the test.
bash -c 'exec -a "ray::run_shard default_worker.py" sleep 3600' &
bystander=$!
stop() {
  local p
  for p in "${nodes_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${nodes_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  kill "$bystander" 2>/dev/null || true
  rm -rf "$tmp"
}
trap stop EXIT
# shellcheck disable=SC2046  # node_ports is meant to split into flags
"$ray" start --block --head --port="$port" --dashboard-port=$((port + 2)) --temp-dir="$tmp/ray" --num-cpus=1 \
    --include-dashboard=false --disable-usage-stats $(node_ports $((port + 10))) >"$tmp/head.log" 2>&1 &
nodes_pids+=($!)
for _ in $(seq 1 120); do
  kill -0 "${nodes_pids[0]}" 2>/dev/null || { tail -n 5 "$tmp/head.log"; echo "FAIL: the Ray head did not start"; exit 1; }
  [ -e "$tmp/ray/ray_current_cluster" ] && break
  sleep 0.5
done
# shellcheck disable=SC2046
"$ray" start --block --address="127.0.0.1:$port" --num-cpus=1 $(node_ports $((port + 300))) >"$tmp/node.log" 2>&1 &
nodes_pids+=($!)
nodes=0
for _ in $(seq 1 60); do
  nodes=$("$venv/bin/python" -c "import ray; ray.init(address='127.0.0.1:$port', logging_level='ERROR'); print(len([n for n in ray.nodes() if n['Alive']]))" 2>/dev/null || echo 0)
  [ "$nodes" = 2 ] && break
  sleep 1
done
[ "$nodes" = 2 ] || { tail -n 5 "$tmp/node.log"; echo "FAIL: expected a two-node cluster, found $nodes"; exit 1; }
# This cluster's task workers: children of its raylets, which are children of the two
# `ray start --block` processes. (Another cluster's workers have the same name.)
our_workers() {
  local n r
  for n in "${nodes_pids[@]}"; do
    for r in $(pgrep -P "$n" || true); do pgrep -P "$r" -f '^ray::run_shard' || true; done
  done
}
echo "ray: two nodes up on port $port (token authentication, a user's own token file present)"

# A driver without the cluster's token is told so in a sentence, not a stack trace.
refused=$(RAY_AUTH_TOKEN=not-the-clusters "$venv/bin/python" scripts/ray-sweep.py --link 'v=1&data=bundled:quadratic&methods=RS&tasks=quadratic-00&seeds=1&iters=3' \
    --out "$tmp/refused" --address "127.0.0.1:$port" --hpo "$hpo" 2>&1) && { echo "FAIL: a driver with a wrong token was let in"; exit 1; }
echo "$refused" | tail -n 1 | grep -q "^ray-sweep: the Ray cluster at 127.0.0.1:$port refused this driver's authentication token" \
  || { echo "$refused" | tail -n 5; echo "FAIL: no clear message for a refused token"; exit 1; }
echo "ok: a driver with another token is refused with a sentence saying what to set"

check() {  # name, link
  local name=$1 link=$2
  "$hpo" run --link "$link" --out "$tmp/$name-one" >/dev/null 2>&1
  # Kill a Ray worker in the middle of a task: Ray must retry that shard. The first task's hpo
  # (a wrapper: the first to claim the victim dir) writes its Ray worker's pid and its own, then
  # waits to be killed; the others run hpo. The kill waits on that, not on catching a worker
  # while a shard happens to run, which a fast shard could slip past.
  printf '#!/bin/sh\nif [ "$1" = job ] && mkdir "%s" 2>/dev/null; then echo "$PPID $$" > "%s/pids.tmp"; mv "%s/pids.tmp" "%s/pids"; exec sleep 600; fi\nexec "%s" "$@"\n' \
    "$tmp/$name-victim" "$tmp/$name-victim" "$tmp/$name-victim" "$tmp/$name-victim" "$hpo" > "$tmp/$name-hpo"
  chmod +x "$tmp/$name-hpo"
  ( for _ in $(seq 1 3000); do  # a hang guard of 5 minutes
      if [ -s "$tmp/$name-victim/pids" ]; then
        read -r worker waiting < "$tmp/$name-victim/pids"
        our_workers | grep -qx "$worker" || { echo "FAIL: $name: $worker is not one of this cluster's Ray workers" > "$tmp/$name-killed.err"; kill "$waiting"; exit 1; }
        kill -9 "$worker"
        kill "$waiting" 2>/dev/null || true
        echo "killed Ray worker $worker" > "$tmp/$name-killed"
        exit 0
      fi
      sleep 0.1
    done ) &
  local killer=$!
  "$venv/bin/python" scripts/ray-sweep.py --link "$link" --out "$tmp/$name-ray" --address "127.0.0.1:$port" \
      --shard-size 3 --retries 3 --hpo "$tmp/$name-hpo" >"$tmp/$name-sweep.log" 2>&1 || { cat "$tmp/$name-sweep.log"; echo "FAIL: $name sweep"; exit 1; }
  wait "$killer" || true
  [ -f "$tmp/$name-killed" ] || { cat "$tmp/$name-killed.err" 2>/dev/null; echo "FAIL: $name: no Ray worker was killed (the test did not test retries)"; exit 1; }
  for f in traces.csv spec.json; do
    cmp "$tmp/$name-one/$f" "$tmp/$name-ray/$f" || { echo "FAIL: $name: $f differs from the single-machine run"; exit 1; }
  done
  if [ -f "$tmp/$name-one/race-traces.csv" ]; then
    # Every column but the optimizer's own seconds (wall time) is exact.
    cmp <(cut -d, -f1-10 "$tmp/$name-one/race-traces.csv") <(cut -d, -f1-10 "$tmp/$name-ray/race-traces.csv") \
      || { echo "FAIL: $name: race traces differ"; exit 1; }
  fi
  # A second run resumes: every shard is done, nothing is submitted.
  "$venv/bin/python" scripts/ray-sweep.py --link "$link" --out "$tmp/$name-ray" --address "127.0.0.1:$port" --hpo "$hpo" >"$tmp/$name-again.log" 2>&1
  grep -q "already done; 0 shards to run" "$tmp/$name-again.log" || { cat "$tmp/$name-again.log"; echo "FAIL: $name: the second run did not resume"; exit 1; }
  echo "ok: $name — $(cat "$tmp/$name-killed"); merged outputs equal the single-machine run; a second run resumes"
}

check full 'v=1&data=bundled:quadratic&methods=RS,GP&tasks=quadratic-00,quadratic-01&seeds=4&iters=20&transfer=loto'
check race 'v=1&data=bundled:curves&methods=RS,ASHA,Hyperband&tasks=curves-00,curves-01&seeds=3&race=80'

# A race sweep resumed elsewhere from picks: the first 9 jobs kept as picks only (no trace, no
# table value), the sweep runs the other 9 and its merge replays the 9: the same merged race.
link='v=1&data=bundled:curves&methods=RS,ASHA,Hyperband&tasks=curves-00,curves-01&seeds=3&race=80'
mkdir -p "$tmp/picks-ray/traces"
"$hpo" picks --traces "$tmp/race-ray/traces" --jobs 0..9 --out "$tmp/picks-ray/traces/kept.jsonl" >/dev/null
# Through a wrapper that records each job's niceness: --nice 3 (Ray's workers start at 15).
printf '#!/bin/sh\n[ "$1" = job ] && ps -o ni= -p $$ >> "%s"\nexec "%s" "$@"\n' "$tmp/niceness" "$hpo" > "$tmp/hpo-nice"
chmod +x "$tmp/hpo-nice"
"$venv/bin/python" scripts/ray-sweep.py --link "$link" --out "$tmp/picks-ray" --address "127.0.0.1:$port" \
    --shard-size 3 --nice 3 --hpo "$tmp/hpo-nice" >"$tmp/picks-sweep.log" 2>&1 || { cat "$tmp/picks-sweep.log"; echo "FAIL: the sweep from picks"; exit 1; }
seen=$(sort -u "$tmp/niceness" | xargs)
if grep -q "niceness 3 not allowed here" "$tmp/picks-sweep.log"; then
  [ "$seen" != 3 ] || { echo "FAIL: --nice was refused yet the jobs ran at 3"; exit 1; }
  echo "ok: --nice 3 is not allowed to this user: the jobs ran at $seen, and the sweep said so"
else
  [ "$seen" = 3 ] || { cat "$tmp/picks-sweep.log"; echo "FAIL: --nice 3, but the jobs ran at niceness '$seen'"; exit 1; }
  echo "ok: --nice 3: every job ran at niceness 3"
fi
grep -q "18 jobs: 9 already done; 3 shards to run" "$tmp/picks-sweep.log" || { cat "$tmp/picks-sweep.log"; echo "FAIL: the picks were not counted as finished"; exit 1; }
grep -q "left on 2 slots" "$tmp/picks-sweep.log" || { cat "$tmp/picks-sweep.log"; echo "FAIL: no time-left estimate"; exit 1; }
for f in traces.csv spec.json; do
  cmp "$tmp/race-ray/$f" "$tmp/picks-ray/$f" || { echo "FAIL: from picks: $f differs"; exit 1; }
done
cmp <(cut -d, -f1-10 "$tmp/race-ray/race-traces.csv") <(cut -d, -f1-10 "$tmp/picks-ray/race-traces.csv") \
  || { echo "FAIL: from picks: race traces differ"; exit 1; }
# The replayed jobs (all of RS: jobs 0-5) keep their recorded optimizer seconds, every digit.
rs_rows() { grep '^RS,' "$1/race-traces.csv"; }
[ -n "$(rs_rows "$tmp/race-ray")" ] || { echo "FAIL: no RS rows to compare"; exit 1; }
cmp <(rs_rows "$tmp/race-ray") <(rs_rows "$tmp/picks-ray") || { echo "FAIL: from picks: RS's optimizer seconds differ"; exit 1; }
echo "ok: a race sweep resumed from 9 jobs kept as picks merges into the same outputs"

# The time-left estimate follows the host: each method's mean is over its latest two jobs per
# slot, so two slow jobs (100 s, beside a build) stop counting once two at 10 s have finished.
"$venv/bin/python" - <<'PY' || { echo "FAIL: the time-left estimate"; exit 1; }
import importlib.util
spec = importlib.util.spec_from_file_location("sweep", "scripts/ray-sweep.py")
sweep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sweep)
e = sweep.Estimate(["DyHPO"] * 10, range(10), 1)
for k, secs in enumerate([100, 100, 10, 10]):
    e.finished(k, k + 1, f"job {k}: DyHPO on adult seed 0: {secs}.0 s\n")
assert e.text() == "about 60 s left on 1 slot", e.text()
PY
echo "ok: the time-left estimate uses each method's latest jobs"

# Nothing outside this cluster was stopped: the bystander lives while this cluster stops.
kill -0 "$bystander" 2>/dev/null || { echo "FAIL: a process outside the test's cluster was killed"; exit 1; }
for p in "${nodes_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
for p in "${nodes_pids[@]}"; do wait "$p" 2>/dev/null || true; done
nodes_pids=()
kill -0 "$bystander" 2>/dev/null || { echo "FAIL: stopping the test's cluster killed a process outside it"; exit 1; }
echo "ok: a process that looks like another cluster's worker outlived the test and its cluster"
