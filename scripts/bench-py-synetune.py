#!/usr/bin/env python3
"""The Python package's Syne Tune scheduler (DyHPO) against Syne Tune 0.16's ASHA and
asynchronous Hyperband on Syne Tune's simulated backend, at equal budget (issue 62, item 5).

Run it through scripts/bench-py-synetune.sh, which makes the venv .tools/st-bench-venv
(Syne Tune 0.16.0 with what its blackbox repository imports), installs `crates/py` into it and
runs this on one thread, niced:

    scripts/bench-py-synetune.sh --out results/py-synetune.md     # 3 tasks x 20 seeds (~2 h)
    scripts/bench-py-synetune.sh --tasks 1 --seeds 2               # a quick look
    scripts/bench-py-synetune.sh --workers 1,4 --schedulers "DyHPO (ours),ASHA (ours),Hyperband (ours)" \
        --out results/py-synetune-workers.md                       # 1 vs 4 workers (issue 69)

THE TABLE. ../shared/benchmarks/lcbench-surrogate (LCBench curves as predicted by the YAHPO Gym
surrogate: 34 tasks x 2,000 configurations x 52 epochs) when present, its
`val_balanced_accuracy` maximised: the metric DyHPO's paper reports on LCBench, and bounded in
[0, 1], so that a regret reads as balanced-accuracy points on every task. When that folder is
absent, the bundled assets/curves.csv (hp_* columns, 40 epochs of a loss, minimised); the
script says which on stderr and in its output.

THE SIMULATION. One task is a Syne Tune `BlackboxTabular` (objectives: the metric, and
`elapsed_time` = the epoch: every epoch costs one simulated time unit, so that the budget counts
epochs whatever the scheduler; the table's `time` column would make the budget favour cheap
configurations, which is a different question) wrapped by `add_surrogate` with a 1-nearest-
neighbour regressor over the schedulers' continuous space (Syne Tune's own pipeline:
standardised values), so that any proposal gets the curve of its nearest configuration of the
table. `UserBlackboxBackend` with checkpointing (a resumed trial continues from its paused
epoch), `SimulatorCallback`, `n_workers=1` (or each count of --workers: every scheduler runs
with each, on the same tasks and seeds, so that the runs pair), and for every scheduler the same budget of --budget x
max epochs, counted as results reported (`StoppingCriterion(max_num_evaluations=...)`): the
simulated clock also charges Syne Tune's start, pause and result delays, which a time budget
would take from a method that pauses often.

SCHEDULERS. `hpo_playground.syne_tune.Scheduler(method=...)` with DyHPO, DyHPO (fast) and
GPB (IC) (any method of `hpo_playground.multi_fidelity.methods()`, named "<method> (ours)" in
--schedulers), Syne Tune's `ASHA` (one bracket, grace period 1, reduction factor 3), "Hyperband":
Syne Tune 0.16 has no HyperbandScheduler any more; its asynchronous Hyperband is
`AsynchronousSuccessiveHalving` with several brackets (here one per rung level, 4 for 52
epochs), which `baselines.ASHA(brackets=...)` builds; `RandomSearch` (every trial trained to
the last epoch) as the floor.

METRIC. Final regret: the task's best value over the table (any configuration, any epoch)
minus the best value any trial reported at any epoch within the budget (sign flipped when
minimising); mean and median over tasks and seeds, wins per pair. For ours, milliseconds per
scheduler decision (`suggest` and `on_trial_result`, wall clock). With --workers: the simulated
time (Syne Tune's `st_tuner_time`, in epochs of one time unit plus Syne Tune's simulated delays)
at which the budget's last result arrived, and the real seconds per run.

Output: Markdown on stdout and in --out; raw numbers beside it as .json.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared/benchmarks/lcbench-surrogate"

from sklearn.neighbors import KNeighborsRegressor  # noqa: E402
from syne_tune import StoppingCriterion, Tuner  # noqa: E402
from syne_tune.backend.simulator_backend.simulator_callback import SimulatorCallback  # noqa: E402
from syne_tune.blackbox_repository.blackbox_surrogate import add_surrogate  # noqa: E402
from syne_tune.blackbox_repository.blackbox_tabular import BlackboxTabular  # noqa: E402
from syne_tune.blackbox_repository.simulated_tabular_backend import UserBlackboxBackend  # noqa: E402
from syne_tune.config_space import choice, loguniform, lograndint, randint, uniform  # noqa: E402
from syne_tune.optimizer.baselines import ASHA, RandomSearch  # noqa: E402
from syne_tune.tuner_callback import TunerCallback  # noqa: E402

import hpo_playground  # noqa: E402
from hpo_playground.syne_tune import Scheduler  # noqa: E402

logging.getLogger("syne_tune").setLevel(logging.ERROR)  # the tuner logs every trial otherwise


class Bench:
    """One table: configurations (a DataFrame), curves per task (configs x epochs), the space."""

    def __init__(self, curves_csv: Path | None):
        if curves_csv is None and SHARED.is_dir():
            self.source = f"../shared/benchmarks/lcbench-surrogate (val_balanced_accuracy, maximised)"
            configs = pd.read_csv(SHARED / "lcbench_configs.csv").set_index("config_id").sort_index()
            curves = pd.read_csv(SHARED / "lcbench_surrogate_val_balanced_accuracy.csv.gz")
            names = pd.read_csv(SHARED / "lcbench_task_names.csv")
            self.name_of = {str(t): n for t, n in zip(names.task_id, names.dataset_name)}
            self.metric, self.mode = "val_balanced_accuracy", "max"
            epochs = [c for c in curves.columns if c.startswith("e")]
            self.curves = {}
            for task, rows in curves.groupby("task_id", sort=False):
                rows = rows.set_index("config_id").loc[configs.index]  # the configurations' order
                self.curves[str(task)] = rows[epochs].to_numpy(float)
            self.tasks = [str(t) for t in names.task_id if str(t) in self.curves]
            self.configs = configs
            # YAHPO's LCBench space (yahpo_lcbench_config_space.json): the ranges the table was drawn in.
            self.space = {
                "batch_size": lograndint(16, 512),
                "learning_rate": loguniform(1e-4, 1e-1),
                "momentum": uniform(0.1, 0.99),
                "weight_decay": uniform(1e-5, 0.1),
                "num_layers": randint(1, 5),
                "max_units": lograndint(64, 1024),
                "max_dropout": uniform(0.0, 1.0),
            }
        else:
            path = curves_csv or REPO / "assets/curves.csv"
            self.source = f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path} (loss, minimised)"
            if curves_csv is None:
                print(f"{SHARED} is absent: using the bundled {self.source}", file=sys.stderr)
            table = pd.read_csv(path)
            hps = [c for c in table.columns if c.startswith("hp_")]
            epochs = [c for c in table.columns if c.startswith("e") and c[1:].isdigit()]
            self.metric, self.mode = "loss", "min"
            self.tasks = list(dict.fromkeys(table.task))
            self.name_of = {t: t for t in self.tasks}
            first = table[table.task == self.tasks[0]]
            self.configs = first[hps].reset_index(drop=True)
            self.curves = {}
            for task in self.tasks:
                rows = table[table.task == task]
                if not np.allclose(rows[hps].to_numpy(), self.configs.to_numpy()):
                    raise SystemExit(f"{path}: task {task} has other configurations than {self.tasks[0]}")
                self.curves[task] = rows[epochs].to_numpy(float)
            self.space = {h: uniform(float(table[h].min()), float(table[h].max())) for h in hps}
        self.max_t = next(iter(self.curves.values())).shape[1]

    def best(self, task: str) -> float:
        c = self.curves[task]
        return float(c.max() if self.mode == "max" else c.min())

    def blackbox(self, task: str):
        curves = self.curves[task]
        n, e = curves.shape
        evaluations = np.empty((n, 1, e, 2))
        evaluations[:, 0, :, 0] = curves
        evaluations[:, 0, :, 1] = np.arange(1, e + 1)  # elapsed_time: one unit per epoch
        # The tabular blackbox's own space only names the columns; the surrogate gets the
        # continuous space the schedulers search, so that a proposal off the table is answered.
        tabular = BlackboxTabular(
            hyperparameters=self.configs.reset_index(drop=True),
            configuration_space={k: choice(sorted(set(self.configs[k].tolist()))) for k in self.space},
            fidelity_space={"epoch": randint(1, e)},
            objectives_evaluations=evaluations,
            objectives_names=[self.metric, "elapsed_time"],
        )
        return add_surrogate(tabular, surrogate=KNeighborsRegressor(n_neighbors=1), configuration_space=self.space)


class Timed(Scheduler):
    """Our scheduler, with the wall-clock time of its decisions."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.times = {"suggest": [], "on_trial_result": []}

    def suggest(self):
        t = time.perf_counter()
        out = super().suggest()
        self.times["suggest"].append(time.perf_counter() - t)
        return out

    def on_trial_result(self, trial, result):
        t = time.perf_counter()
        out = super().on_trial_result(trial, result)
        self.times["on_trial_result"].append(time.perf_counter() - t)
        return out


class Best(TunerCallback):
    """The best metric value among the first `budget` results (epochs) reported."""

    def __init__(self, metric: str, mode: str, budget: int):
        self.metric, self.sign, self.budget = metric, (1.0 if mode == "max" else -1.0), budget
        self.best, self.results, self.sim_time = -math.inf, 0, None

    def on_trial_result(self, trial, status, result, decision):
        # The tuner checks its stopping criterion once per loop, after a loop's results: a
        # result past the budget is not counted.
        if self.results < self.budget:
            self.results += 1
            self.best = max(self.best, self.sign * float(result[self.metric]))
            self.sim_time = result.get("st_tuner_time", self.sim_time)  # the simulated clock's


def scheduler_for(name: str, bench: Bench, space: dict, seed: int):
    minimise = bench.mode == "min"
    if name.endswith(" (ours)"):
        method = name.removesuffix(" (ours)")
        return Timed(space, method, metric=bench.metric, mode=bench.mode, max_t=bench.max_t,
                     resource_attr="epoch", max_resource_attr="max_epochs", seed=seed)
    if name == "ASHA":
        return ASHA(space, metric=bench.metric, time_attr="epoch", max_t=bench.max_t, do_minimize=minimise, random_seed=seed)
    if name == "Hyperband":
        rungs = int(math.floor(math.log(bench.max_t, 3) + 1e-9)) + 1  # 1, 3, 9, 27 for 52 epochs
        return ASHA(space, metric=bench.metric, time_attr="epoch", max_t=bench.max_t, do_minimize=minimise,
                    random_seed=seed, brackets=rungs)
    if name == "RandomSearch":
        return RandomSearch(space, metrics=[bench.metric], do_minimize=minimise, random_seed=seed)
    raise SystemExit(f"unknown scheduler {name!r}")


def run(bench: Bench, task: str, blackbox, name: str, seed: int, budget: float, workers: int = 1) -> dict:
    # Every scheduler gets the same constant max_epochs; ours overwrites it with each request's
    # budget, so that the simulated trial stops where the method pauses it.
    space = {**bench.space, "max_epochs": bench.max_t}
    scheduler = scheduler_for(name, bench, space, seed)
    # The simulated clock moves by tuner_sleep_time while the worker is busy; at 0.1 of an epoch
    # every result reaches the scheduler before the next epoch's, so that a stopping rule (ASHA's)
    # loses no epoch to results delivered in a batch (at the default 5.0 it would lose up to 4).
    backend = UserBlackboxBackend(blackbox=blackbox, elapsed_time_attr="elapsed_time", max_resource_attr="max_epochs",
                                  seed=0, tuner_sleep_time=0.1)
    best = Best(bench.metric, bench.mode, budget)
    np.random.seed(seed)  # Syne Tune's brackets draw from numpy's global generator
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # the tuner prints every trial and a summary
        Tuner(
            trial_backend=backend,
            scheduler=scheduler,
            # The budget counts epochs reported (each epoch is one simulated time unit): the simulated
            # clock also charges Syne Tune's start, pause and result delays (0.05 each) and waits in
            # steps of tuner_sleep_time, which would tax a method that pauses after every epoch.
            stop_criterion=StoppingCriterion(max_num_evaluations=budget),
            n_workers=workers,
            sleep_time=0,
            results_update_interval=1e9,
            print_update_interval=1e9,
            callbacks=[SimulatorCallback(), best],
            save_tuner=False,
            tuner_name=f"bench-{seed}",
        ).run()
    row = {"task": task, "seed": seed, "regret": bench.best(task) - best.best if bench.mode == "max" else -best.best - bench.best(task),
           "results": best.results, "seconds": time.perf_counter() - t0, "workers": workers, "sim_time": best.sim_time}
    if isinstance(scheduler, Timed):  # summarised, not listed
        row["decision_seconds"] = {k: {"n": len(v), "mean": statistics.mean(v) if v else None, "max": max(v, default=None)}
                                   for k, v in scheduler.times.items()}
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "results/py-synetune.md")
    ap.add_argument("--curves", type=Path, default=None, help="a curves table like assets/curves.csv instead of the shared LCBench one")
    ap.add_argument("--tasks", type=int, default=3, help="the first N tasks of the table")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budget", type=float, default=10, help="epochs, in multiples of the table's epochs (at 20, DyHPO takes about 4x as long)")
    ap.add_argument("--schedulers", default="DyHPO (ours),DyHPO (fast) (ours),GPB (IC) (ours),ASHA,Hyperband,RandomSearch")
    ap.add_argument("--workers", default="1", help="worker counts, comma-separated: each scheduler runs with each (named '<scheduler>, N workers')")
    ap.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. first-seed + seeds - 1 (to split a run over processes)")
    ap.add_argument("--merge", type=Path, nargs="+", default=None, help="report the runs of these .json outputs together (same setting), run nothing")
    args = ap.parse_args()
    if args.merge:
        raw: dict = {}
        for path in args.merge:
            for name, rows in json.loads(path.read_text())["runs"].items():
                raw.setdefault(name, []).extend(rows)
        bench = Bench(args.curves)
        names = list(raw)
        tasks = list(dict.fromkeys(r["task"] for r in raw[names[0]]))
        seeds = len({r["seed"] for r in raw[names[0]]})
        report(args, bench, names, tasks, seeds, int(args.budget * bench.max_t), raw)
        return 0
    if "SYNETUNE_FOLDER" not in os.environ:  # the tuner's files, in a folder removed at exit, not ~/syne-tune
        folder = tempfile.TemporaryDirectory(prefix="st-bench-")
        os.environ["SYNETUNE_FOLDER"] = folder.name
    bench = Bench(args.curves)
    workers = [int(w) for w in args.workers.split(",")]
    runs = [(n, w) for n in args.schedulers.split(",") for w in workers]
    names = [n if workers == [1] else f"{n}, {w} worker{'s' if w > 1 else ''}" for n, w in runs]
    tasks = bench.tasks[: args.tasks]
    budget = int(args.budget * bench.max_t)
    raw: dict = {n: [] for n in names}
    blackboxes = {task: bench.blackbox(task) for task in tasks}
    # Seeds in the outer loop and the report rewritten after each: a run stopped early leaves
    # every task with the same number of seeds.
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for task in tasks:
            for name, (scheduler, w) in zip(names, runs):
                raw[name].append(run(bench, task, blackboxes[task], scheduler, seed, budget, w))
            print(f"{task} seed {seed}: " + ", ".join(f"{n} {raw[n][-1]['regret']:.4f} ({raw[n][-1]['seconds']:.1f} s)" for n in names), file=sys.stderr, flush=True)
        report(args, bench, names, tasks, seed + 1 - args.first_seed, budget, raw)
    return 0


def report(args, bench: Bench, names: list[str], tasks: list[str], seeds: int, budget: int, raw: dict) -> None:
    lines = ["| scheduler | mean final regret | median | epochs reported (median) | s per run (median) | simulated time (median) | "
             + " | ".join(f"wins vs {n}" for n in names) + " |",
             "|---" * (6 + len(names)) + "|"]
    regret = {n: {(r["task"], r["seed"]): r["regret"] for r in raw[n]} for n in names}
    for a in names:
        ra = list(regret[a].values())
        wins = []
        for b in names:
            pairs = [(x, regret[b][k]) for k, x in regret[a].items() if k in regret[b]]  # the same task and seed
            wins.append("—" if a == b else f"{sum(x < y for x, y in pairs)}/{sum(x > y for x, y in pairs)}")
        lines.append(f"| {a} | {statistics.mean(ra):.4f} | {statistics.median(ra):.4f} | {statistics.median(r['results'] for r in raw[a]):.0f} | "
                     f"{statistics.median(r['seconds'] for r in raw[a]):.1f} | "
                     f"{statistics.median(r['sim_time'] for r in raw[a]) if all(r.get('sim_time') is not None for r in raw[a]) else float('nan'):.0f} | "
                     + " | ".join(wins) + " |")
    timing = []
    for a in names:
        runs = [r["decision_seconds"] for r in raw[a] if "decision_seconds" in r]
        if runs:
            def mean_ms(key: str) -> float:
                return 1e3 * sum(r[key]["n"] * r[key]["mean"] for r in runs) / sum(r[key]["n"] for r in runs)

            timing.append(f"{a}: `suggest` {mean_ms('suggest'):.1f} ms mean ({sum(r['suggest']['n'] for r in runs) / len(runs):.0f} per run, "
                          f"slowest {max(r['suggest']['max'] for r in runs) * 1e3:.0f} ms), "
                          f"`on_trial_result` {mean_ms('on_trial_result'):.2f} ms mean.")
    task_names = ", ".join(f"{t} ({bench.name_of[t]})" for t in tasks)
    head = (f"{bench.source}; tasks {task_names}; {seeds} seeds each; budget {budget:g} simulated epochs "
            f"({args.budget:g} x {bench.max_t}), {args.workers.replace(',', ' and ')} worker(s). Regret: the task's best over the table minus the best reported "
            "within the budget (wins: runs with lower / higher final regret than the column's scheduler).\n\n")
    text = head + "\n".join(lines) + "\n\n" + "\n".join(timing) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    import syne_tune

    args.out.write_text(f"# hpo_playground's Syne Tune scheduler vs Syne Tune {syne_tune.__version__}\n\n" + text)
    args.out.with_suffix(".json").write_text(json.dumps({"setting": head, "runs": raw}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
