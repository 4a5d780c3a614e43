#!/usr/bin/env python3
"""A sweep on a Ray cluster: the experiment's jobs (`hpo plan`) in shards, one Ray task per
shard running `hpo job --stdout`, failed tasks retried, finished shards skipped on a second
run (resume), progress on the way, and `hpo merge` at the end — whose outputs are what `hpo
run` writes on one machine.

    python3 scripts/ray-sweep.py --link 'v=1&data=bundled:curves&methods=ASHA,DyHPO&seeds=3&race=200' \
        --out out/sweep --address auto

The `hpo` binary (--hpo) and the data (--data, --shared-dir, --cache) must be at the same
paths on every node (a shared disk or an image); results come back through Ray, so the
output directory need only exist where this driver runs. Ray comes from PyPI (see
scripts/test.sh for the pinned version).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

import ray


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--link", required=True, help="the experiment as a link or its query string")
    p.add_argument("--out", required=True, help="output directory: plan, job traces, merged results")
    p.add_argument("--hpo", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "hpo"), help="the hpo binary (same path on every node)")
    p.add_argument("--address", default="auto", help="the Ray cluster (ray.init address); 'local' starts one here")
    p.add_argument("--shard-size", type=int, default=4, help="jobs per Ray task")
    p.add_argument("--retries", type=int, default=3, help="retries of a failed or lost task")
    p.add_argument("--cpus-per-task", type=float, default=1.0, help="CPUs Ray reserves per task (hpo job uses as many threads)")
    p.add_argument("--nice", type=int, default=0,
                   help="niceness of the hpo jobs (default 0, a shell's: Ray starts its workers at 15, so without this "
                        "any other process on a node, a build say, takes the jobs' cores). Lowering it takes the right "
                        "to (root, or RLIMIT_NICE); without it the jobs keep the worker's and the driver says so once")
    p.add_argument("--data", help="the file of an upload: link")
    p.add_argument("--shared-dir", help="where shared: tables are")
    p.add_argument("--cache", help="where url: downloads are kept")
    return p.parse_args()


def data_args(a):
    args = []
    for flag, value in (("--data", a.data), ("--shared-dir", a.shared_dir), ("--cache", a.cache)):
        if value:
            args += [flag, os.path.abspath(value)]
    return args


@ray.remote
def run_shard(hpo, plan, start, end, data, threads, nice):
    """Runs jobs start..end of the plan at niceness `nice` (this worker's, if it may not);
    returns their result lines (JSON), what hpo printed on stderr (a line per job with its
    seconds), and why the niceness could not be set ("" if it was)."""
    note = ""
    if os.getpriority(os.PRIO_PROCESS, 0) != nice:
        try:
            # The worker's own: hpo inherits it, and the worker runs nothing else meanwhile.
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        except OSError as err:
            note = f"niceness {nice} not allowed here ({err.strerror}): jobs run at the Ray worker's, {os.getpriority(os.PRIO_PROCESS, 0)}"
    cmd = [hpo, "job", "--plan", plan, "--jobs", f"{start}..{end}", "--stdout", "--threads", str(threads)] + data
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"hpo job {start}..{end} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return start, end, done.stdout, done.stderr, note


JOB_SECONDS = re.compile(r"^job (\d+): .*: ([0-9.]+) s$", re.M)


class Estimate:
    """Time left from each method's own mean seconds per job: a sweep's methods differ by orders
    of magnitude (a baseline in a second, the faithful DyHPO in minutes), so one mean over all
    finished jobs, or over a resumed run's first shards, says nothing. The mean is over each
    method's latest jobs only (two per slot), so that it follows the host: jobs slowed by a build
    beside them stop counting a few jobs after the build ends."""

    def __init__(self, methods, todo_jobs, slots):
        self.methods = methods  # job index -> method
        self.left = set(todo_jobs)
        self.slots = slots
        self.seconds = {}  # method -> its latest jobs' seconds

    def finished(self, start, end, stderr):
        for k, secs in JOB_SECONDS.findall(stderr):
            latest = self.seconds.setdefault(self.methods[int(k)], collections.deque(maxlen=2 * self.slots))
            latest.append(float(secs))
        self.left -= set(range(start, end))

    def text(self):
        known, unknown = 0.0, {}
        for k in self.left:
            m = self.methods[k]
            if m in self.seconds:
                known += sum(self.seconds[m]) / len(self.seconds[m])
            else:
                unknown[m] = unknown.get(m, 0) + 1
        untimed = ", ".join(f"{n} {m}" for m, n in sorted(unknown.items()))
        if not self.seconds:
            return f"time left unknown until a job finishes ({untimed} jobs left)"
        text = f"about {duration(known / self.slots)} left on {self.slots} slot{'' if self.slots == 1 else 's'}"
        return text + (f", plus jobs of methods none of whose jobs has finished yet: {untimed}" if unknown else "")


def duration(seconds):
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def refused_for_auth(err):
    """Whether connecting failed because the cluster refused our token (Ray raises a
    ConnectionError whose cause, or text, is the AuthenticationError)."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if type(err).__name__ == "AuthenticationError" or "InvalidAuthToken" in str(err):
            return True
        err = err.__cause__ or err.__context__
    return False


def connect(address):
    """ray.init, or a sentence saying why the cluster refused us and what to do."""
    try:
        ray.init(address=None if address == "local" else address)
    except Exception as err:  # noqa: BLE001 - Ray raises several types for one refusal
        if not refused_for_auth(err):
            raise
        mode = os.environ.get("RAY_AUTH_MODE", "disabled")
        sys.exit(
            f"ray-sweep: the Ray cluster at {address} refused this driver's authentication token "
            f"(RAY_AUTH_MODE here is '{mode}'). Use the cluster's own token: set RAY_AUTH_MODE=token and "
            "RAY_AUTH_TOKEN (or RAY_AUTH_TOKEN_PATH) as on its nodes, or put the token in ~/.ray/auth_token "
            "(`ray get-auth-token` on the head prints it). See docs/sweeps.md, 'Ray and token authentication'."
        )


def main():
    a = parse_args()
    hpo = os.path.abspath(a.hpo)
    out = os.path.abspath(a.out)
    traces = os.path.join(out, "traces")
    os.makedirs(traces, exist_ok=True)
    plan = os.path.join(out, "plan.jsonl")
    data = data_args(a)
    subprocess.run([hpo, "plan", "--link", a.link, "--out", plan] + data, check=True)
    with open(plan) as f:
        jobs = json.loads(f.readline())["jobs"]
        methods = [json.loads(line)["method"] for line in f]
    # Resume: every job whose trace came back before (any shard file, whatever the shard size
    # then) is done; only the others are sharded and run.
    def finished_jobs():
        done = set()
        for name in os.listdir(traces):
            if name.endswith(".jsonl"):
                with open(os.path.join(traces, name)) as f:
                    done.update(json.loads(line)["job"] for line in f if line.strip())
        return done

    def shards_of(indices):
        runs, start = [], None
        for k in sorted(indices):
            if start is None or k != end or k - start >= a.shard_size:
                if start is not None:
                    runs.append((start, end))
                start = k
            end = k + 1
        if start is not None:
            runs.append((start, end))
        return runs

    def shard_file(s, e):
        return os.path.join(traces, f"shard-{s:06}-{e:06}.jsonl")

    done = finished_jobs()
    todo = shards_of(set(range(jobs)) - done)
    print(f"{jobs} jobs: {len(done)} already done; {len(todo)} shards to run", flush=True)
    if todo:
        connect(a.address)
        threads = max(1, int(a.cpus_per_task))
        task = run_shard.options(num_cpus=a.cpus_per_task, max_retries=a.retries, retry_exceptions=True)
        pending = {task.remote(hpo, plan, s, e, data, threads, a.nice): (s, e) for s, e in todo}
        warned = False
        started, finished = time.time(), 0
        slots = max(1, int(ray.cluster_resources().get("CPU", 1) // a.cpus_per_task))
        estimate = Estimate(methods, [k for s, e in todo for k in range(s, e)], slots)
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                s, e = pending.pop(ref)
                try:
                    _, _, lines, printed, note = ray.get(ref)
                except Exception as err:  # retries exhausted
                    print(f"shard {s}..{e} failed after {a.retries} retries: {err}", file=sys.stderr, flush=True)
                    estimate.finished(s, e, "")
                    continue
                if note and not warned:
                    print(note, file=sys.stderr, flush=True)
                    warned = True
                tmp = shard_file(s, e) + ".tmp"
                with open(tmp, "w") as f:
                    f.write(lines)
                os.replace(tmp, shard_file(s, e))
                finished += 1
                estimate.finished(s, e, printed)
                elapsed = time.time() - started
                print(f"[{finished}/{len(todo)}] jobs {s}..{e} done; {duration(elapsed)} elapsed, {estimate.text()}", flush=True)
    missing = jobs - len(finished_jobs())
    if missing:
        print(f"{missing} jobs failed; run the same command again to retry them. Meanwhile "
              f"`{' '.join([hpo, 'merge', '--plan', plan, '--traces', traces] + data)} --partial --out DIR` merges the tasks "
              "whose every job is finished", file=sys.stderr)
        sys.exit(1)
    subprocess.run([hpo, "merge", "--plan", plan, "--traces", traces, "--out", out] + data, check=True)


if __name__ == "__main__":
    main()
