#!/usr/bin/env python3
"""The Ray Tune scheduler (hpo_playground.ray_tune.MultiFidelityScheduler) with DyHPO, ASHA and
Hyperband, 4 concurrent trials against 1, on a local two-node Ray cluster (issue 69, item 4).

Run it through scripts/bench-py-raytune.sh, which uses the Python test venv (.tools/py-test-venv,
Ray 2.60.0; tests/py/run.sh makes it), installs crates/py into it and runs this niced:

    scripts/bench-py-raytune.sh --out results/py-raytune.md              # 2 tasks x 2 seeds
    scripts/bench-py-raytune.sh --tasks 1 --seeds 1 --methods ASHA        # a quick look

THE TABLE. As scripts/bench-py-synetune.py: ../shared/benchmarks/lcbench-surrogate (LCBench
curves as the YAHPO Gym surrogate predicts them, 52 epochs, `val_balanced_accuracy` maximised)
when present, else the bundled assets/curves.csv (40 epochs of a loss, minimised); the script
says which. A trial's configuration (drawn by the method from YAHPO's continuous space) gets the
curve of its nearest configuration of the table (standardised values, log scale where the space
is), one epoch per report, with a checkpoint per epoch, and --epoch-seconds of sleep per epoch
standing in for the training.

THE RUN. The cluster is tests' two-node set-up (crates/py/tests/ray_cluster.py: two `ray start`
nodes of 2 logical CPUs each on this machine); every trial takes 1 CPU, so 4 run at once with
`max_concurrent_trials=4`. Every run has the same budget (--budget x the table's epochs, the
scheduler's total_budget), ends when the method has it trained, and runs on a fresh cluster (on
a cluster that had run one before, 3 of the 4 CPUs were seen to stay taken with no actor or
placement group alive). With --reuse-actors a trial start or resume reuses a worker (without,
each is a new process: DyHPO, which pauses after most epochs, took 230 s instead of 44 s).

METRIC. Final regret (the task's best over the table, any configuration and epoch, minus the
best value told within the run; sign flipped when minimising) and the run's wall clock
(`Tuner.fit`), per method and worker count: mean over tasks and seeds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import ray
from ray import tune

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared/benchmarks/lcbench-surrogate"
sys.path.insert(0, str(REPO / "crates/py/tests"))

from hpo_playground.ray_tune import MultiFidelityScheduler  # noqa: E402
from ray_cluster import LocalCluster  # noqa: E402


class Bench:
    """Configurations (standardised for the nearest-neighbour look-up), curves per task, space."""

    def __init__(self) -> None:
        if SHARED.is_dir():
            self.source = "../shared/benchmarks/lcbench-surrogate (val_balanced_accuracy, maximised)"
            configs = pd.read_csv(SHARED / "lcbench_configs.csv").set_index("config_id").sort_index()
            curves = pd.read_csv(SHARED / "lcbench_surrogate_val_balanced_accuracy.csv.gz")
            names = pd.read_csv(SHARED / "lcbench_task_names.csv")
            epochs = [c for c in curves.columns if c.startswith("e")]
            self.curves = {
                str(t): rows.set_index("config_id").loc[configs.index][epochs].to_numpy(float)
                for t, rows in curves.groupby("task_id", sort=False)
            }
            self.tasks = [str(t) for t in names.task_id if str(t) in self.curves]
            self.name_of = {str(t): n for t, n in zip(names.task_id, names.dataset_name)}
            self.metric, self.mode = "val_balanced_accuracy", "max"
            self.space = {
                "batch_size": tune.lograndint(16, 513),
                "learning_rate": tune.loguniform(1e-4, 1e-1),
                "momentum": tune.uniform(0.1, 0.99),
                "weight_decay": tune.uniform(1e-5, 0.1),
                "num_layers": tune.randint(1, 6),
                "max_units": tune.lograndint(64, 1025),
                "max_dropout": tune.uniform(0.0, 1.0),
            }
            self.log = {"batch_size", "learning_rate", "max_units"}
        else:
            print(f"{SHARED} is absent: using the bundled assets/curves.csv", file=sys.stderr)
            self.source = "assets/curves.csv (loss, minimised)"
            table = pd.read_csv(REPO / "assets/curves.csv")
            hps = [c for c in table.columns if c.startswith("hp_")]
            epochs = [c for c in table.columns if c.startswith("e") and c[1:].isdigit()]
            self.tasks = list(dict.fromkeys(table.task))
            self.name_of = {t: t for t in self.tasks}
            configs = table[table.task == self.tasks[0]][hps].reset_index(drop=True)
            self.curves = {t: table[table.task == t][epochs].to_numpy(float) for t in self.tasks}
            self.metric, self.mode = "loss", "min"
            self.space = {h: tune.uniform(float(table[h].min()), float(table[h].max())) for h in hps}
            self.log = set()
        self.names = list(self.space)
        x = self.transform(configs[self.names].to_numpy(float))
        self.mean, self.std = x.mean(0), x.std(0) + 1e-12
        self.table = (x - self.mean) / self.std
        self.max_t = next(iter(self.curves.values())).shape[1]

    def transform(self, x: np.ndarray) -> np.ndarray:
        x = np.array(x, float)
        for j, name in enumerate(self.names):
            if name in self.log:
                x[:, j] = np.log(x[:, j])
        return x

    def best(self, task: str) -> float:
        c = self.curves[task]
        return float(c.max() if self.mode == "max" else c.min())


def train(config, curves, table, mean, std, names, log, metric, max_t, epoch_seconds):
    """One trial: the curve of the nearest configuration of the table, from its checkpoint on."""
    x = np.array([[math.log(config[n]) if n in log else config[n] for n in names]])
    curve = curves[int(np.argmin((((x - mean) / std - table) ** 2).sum(1)))]
    start = 0
    checkpoint = tune.get_checkpoint()
    if checkpoint is not None:
        with checkpoint.as_directory() as d:
            start = json.loads(Path(d, "state.json").read_text())["epoch"]
    for epoch in range(start + 1, max_t + 1):
        time.sleep(epoch_seconds)
        with tempfile.TemporaryDirectory() as d:
            Path(d, "state.json").write_text(json.dumps({"epoch": epoch}))
            tune.report({"epoch": epoch, metric: float(curve[epoch - 1])}, checkpoint=tune.Checkpoint.from_directory(d))


class Timed(MultiFidelityScheduler):
    """The scheduler, adding up the wall-clock time of its decisions and its searcher's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seconds = 0.0
        suggest = self.searcher.suggest

        def timed_suggest(trial_id):
            t = time.perf_counter()
            try:
                return suggest(trial_id)
            finally:
                self.seconds += time.perf_counter() - t

        self.searcher.suggest = timed_suggest

    def on_trial_result(self, tune_controller, trial, result):
        t = time.perf_counter()
        try:
            return super().on_trial_result(tune_controller, trial, result)
        finally:
            self.seconds += time.perf_counter() - t

    def choose_trial_to_run(self, tune_controller):
        t = time.perf_counter()
        try:
            return super().choose_trial_to_run(tune_controller)
        finally:
            self.seconds += time.perf_counter() - t


def run(bench: Bench, task: str, method: str, workers: int, seed: int, args, storage: Path) -> dict:
    scheduler = Timed(method, max_t=bench.max_t, total_budget=int(args.budget * bench.max_t),
                                       seed=seed, n_configs=args.n_configs)
    trainable = tune.with_resources(
        tune.with_parameters(train, curves=bench.curves[task], table=bench.table, mean=bench.mean, std=bench.std,
                             names=bench.names, log=bench.log, metric=bench.metric, max_t=bench.max_t,
                             epoch_seconds=args.epoch_seconds),
        {"cpu": 1},
    )
    tuner = tune.Tuner(
        trainable,
        param_space=bench.space,
        tune_config=tune.TuneConfig(scheduler=scheduler, search_alg=scheduler.searcher, metric=bench.metric,
                                    mode=bench.mode, num_samples=-1, max_concurrent_trials=workers, reuse_actors=args.reuse_actors),
        run_config=tune.RunConfig(storage_path=str(storage), name=f"{method}-{workers}-{task}-{seed}", verbose=0),
    )
    # Each run starts on an idle cluster: a finished run's trial workers take a few seconds to
    # give their CPUs back, and a run started meanwhile would have fewer than 4 slots.
    for _ in range(120):
        free = ray.available_resources().get("CPU", 0.0)
        if free >= ray.cluster_resources().get("CPU", 0.0):
            break
        time.sleep(1)
    t0 = time.perf_counter()
    tuner.fit()
    seconds = time.perf_counter() - t0
    best = scheduler.session.best[3]
    regret = bench.best(task) - best if bench.mode == "max" else best - bench.best(task)
    return {"task": task, "seed": seed, "method": method, "workers": workers, "regret": regret, "seconds": seconds,
            "scheduler_seconds": scheduler.seconds, "configs": len(scheduler._race.trial_of), "load": os.getloadavg()[0], "cpus_free": free}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "results/py-raytune.md")
    ap.add_argument("--tasks", type=int, default=2, help="the first N tasks of the table")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--methods", default="DyHPO,ASHA,Hyperband")
    ap.add_argument("--workers", default="1,4")
    ap.add_argument("--budget", type=float, default=3, help="epochs in all, in multiples of the table's epochs")
    ap.add_argument("--epoch-seconds", type=float, default=0.2, help="sleep per epoch, standing in for training")
    ap.add_argument("--n-configs", type=int, default=256, help="configurations each method races")
    ap.add_argument("--reuse-actors", action="store_true",
                    help="Ray's reuse_actors (saves a worker start per trial start or resume)")
    ap.add_argument("--address", help=argparse.SUPPRESS)  # a run: this script on a cluster of its own
    ap.add_argument("--run", help=argparse.SUPPRESS)  # TASK,SEED,METHOD,WORKERS
    args = ap.parse_args()
    bench = Bench()
    if args.run is not None:
        task, seed, method, workers = args.run.split(",")
        ray.init(address=args.address, logging_level="ERROR", log_to_driver=False)
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(run(bench, task, method, int(workers), int(seed), args, Path(tmp))))
        return 0
    print(f"table: {bench.source}", file=sys.stderr)
    rows = []
    for task in bench.tasks[: args.tasks]:
        for seed in range(args.seeds):
            for method in args.methods.split(","):
                for workers in map(int, args.workers.split(",")):
                    # Each run on a fresh cluster, by a process started with its environment (Ray
                    # reads its authentication settings when imported): on a cluster that ran a
                    # run before, 3 of the 4 CPUs stayed taken (no actor or placement group alive).
                    with tempfile.TemporaryDirectory() as tmp, LocalCluster(Path(tmp), cpus_per_node=2) as cluster:
                        done = subprocess.run(
                            [sys.executable, __file__, *sys.argv[1:], "--address", cluster.address,
                             "--run", f"{task},{seed},{method},{workers}"],
                            env=cluster.env, stdout=subprocess.PIPE, text=True, check=True,
                        )
                    rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
                    print(json.dumps(rows[-1]), file=sys.stderr)
    report = table(bench, args, rows)
    print(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report)
    args.out.with_suffix(".json").write_text(json.dumps({"source": bench.source, "args": vars(args) | {"out": str(args.out)}, "runs": rows}, indent=1))
    return 0


def table(bench: Bench, args, rows: list[dict]) -> str:
    lines = [
        f"Table: {bench.source}; tasks {', '.join(bench.name_of[t] for t in bench.tasks[: args.tasks])}; seeds {args.seeds};"
        f" budget {args.budget:g} x {bench.max_t} epochs; {args.epoch_seconds} s per epoch; {args.n_configs} configurations.",
        "",
        "| method | workers | mean final regret | median | mean wall clock (s) | of it the scheduler's (s) | configurations started (mean) | load average (mean) | free CPUs at the start (min) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for method in args.methods.split(","):
        for workers in map(int, args.workers.split(",")):
            cell = [r for r in rows if r["method"] == method and r["workers"] == workers]
            if cell:
                regrets = [r["regret"] for r in cell]
                lines.append(
                    f"| {method} | {workers} | {statistics.mean(regrets):.4f} | {statistics.median(regrets):.4f} |"
                    f" {statistics.mean(r['seconds'] for r in cell):.1f} | {statistics.mean(r['scheduler_seconds'] for r in cell):.1f} |"
                    f" {statistics.mean(r['configs'] for r in cell):.1f} | {statistics.mean(r['load'] for r in cell):.1f} |"
                    f" {min(r['cpus_free'] for r in cell):g} |"
                )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
