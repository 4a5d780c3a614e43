#!/usr/bin/env python3
"""The Python package's sampler against Optuna 5.0's GPSampler and TPESampler, in one process
as a user runs them (issue 62): per-proposal time, final regret on a bundled table, import
time and wheel size.

Run it through scripts/bench-py-sampler.sh, which installs `crates/py` into the venv of
scripts/bench-gp-optuna.sh (.tools/gp-bench-venv: Optuna 5.0.0, PyTorch for GPSampler, SciPy)
and runs this on one thread, niced:

    scripts/bench-py-sampler.sh --out results/py-sampler.md            # everything (~30 min)
    scripts/bench-py-sampler.sh --part speed --sizes 50,100 --reps 2    # a quick look
    scripts/bench-py-sampler.sh --part quality --table ../shared/benchmarks/quantile-transfer/nas_bench102.csv.zip \
        --metric metric_error --categorical all --tasks 2 --seeds 20 --out results/py-sampler-nas.md

SPEED. The study-shaped problem of scripts/bench-gp-optuna.py (4 float parameters, 2 on log
scales) with N complete trials drawn at random is copied into a fresh in-memory study with a
fresh sampler; timed: `study.ask()` and the four `suggest_float` calls (for TPE, which samples
at suggest time, the suggestions are its work). Medians of --reps repetitions, samplers
alternating. Our samplers: `hpo_playground.optuna.Sampler("GP")` and `("GCP")`.

QUALITY. A table (--table: by default the bundled assets/quadratic.csv, 30 tasks of 256
configurations of 3 hyperparameters; or one of ../shared/benchmarks/quantile-transfer, the
copula paper's, with --metric) driven through Optuna: a trial suggests every hyperparameter (a float) in the
table's ranges and gets the value of the nearest configuration of its task (Euclidean in the
range-scaled inputs); regret = best value found - the task's best configuration. Columns named
in --categorical (NAS-Bench-201's operations: `--categorical all`) are suggested instead with
`suggest_categorical` over the values the column holds in the table, and matched exactly: the
trial gets a row with those values (the nearest one in the float columns, if any), so on an
all-categorical table every proposal is a row of the table. Per task and seed, --init (5)
configurations drawn by the seed are enqueued for every sampler, then --steps (25) proposals.
GCP+prior learns from --related (4, at most the table's other tasks) other tasks of the table
(the next ones after the target, cyclically), each as an Optuna study of --related-trials (50)
of its configurations drawn by the seed. Final regret: mean and median over the seeds and
tasks; wins per pair.

Output: Markdown on stdout and in --out; raw numbers beside it as .json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import optuna
from optuna.trial import TrialState, create_trial

REPO = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("bench_gp_optuna", REPO / "scripts/bench-gp-optuna.py")
gpbench = importlib.util.module_from_spec(spec)
sys.modules["bench_gp_optuna"] = gpbench  # its dataclasses look their module up
spec.loader.exec_module(gpbench)  # the problems, and one thread for torch

import hpo_playground.optuna  # noqa: E402  (after the thread settings above)

optuna.logging.set_verbosity(optuna.logging.WARNING)
SAMPLERS = {
    "GP (ours)": lambda seed, related: hpo_playground.optuna.Sampler("GP", seed=seed),
    "GCP (ours)": lambda seed, related: hpo_playground.optuna.Sampler("GCP", seed=seed),
    "GCP+prior (ours)": lambda seed, related: hpo_playground.optuna.Sampler(
        "GCP+prior", seed=seed, related_studies=related
    ),
    "GPSampler": lambda seed, related: optuna.samplers.GPSampler(seed=seed),
    "TPESampler": lambda seed, related: optuna.samplers.TPESampler(seed=seed),
}


def trials_of(space: dict, points: list[dict], values: list[float]) -> list:
    return [create_trial(params=p, distributions=space, value=v) for p, v in zip(points, values)]


def speed(args) -> tuple[str, dict]:
    prob = gpbench.PROBLEMS["study4"]
    names = [s for s in args.speed_samplers.split(",")]
    raw: dict = {n: {} for n in names}
    for size in map(int, args.sizes.split(",")):
        rng = np.random.default_rng(size)
        points = prob.draw(rng, size)
        base = trials_of(prob.space, points, [prob.f(p) for p in points])
        for rep in range(args.reps):
            for name in names:
                study = optuna.create_study(sampler=SAMPLERS[name](rep, []))
                study.add_trials(base)
                t0 = time.perf_counter()
                trial = study.ask()
                for k, d in prob.space.items():
                    trial.suggest_float(k, d.low, d.high, log=d.log)
                raw[name].setdefault(size, []).append(time.perf_counter() - t0)
        print(f"speed {size}: " + ", ".join(f"{n} {statistics.median(raw[n][size]) * 1e3:.0f} ms" for n in names), file=sys.stderr)
    sizes = list(raw[names[0]])
    lines = ["| trials | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for size in sizes:
        lines.append(f"| {size} | " + " | ".join(f"{statistics.median(raw[n][size]) * 1e3:.0f}" for n in names) + " |")
    return "Milliseconds per proposal (median of %d; `study.ask()` and the suggestions):\n\n" % args.reps + "\n".join(lines), raw


class Table:
    """A table's tasks: configurations (float columns scaled by their range, categorical ones as
    indices into the values the column holds), values, best per task."""

    def __init__(self, path: Path, metric: str | None, categorical: str = ""):
        import csv
        import io
        import zipfile

        if path.suffix == ".zip":  # the shared tables: the first member, whatever its name
            with zipfile.ZipFile(path) as z:
                text = z.read(next(i for i in z.infolist() if not i.is_dir())).decode()
        else:
            text = path.read_text()
        rows = list(csv.DictReader(io.StringIO(text)))
        self.hps = [c for c in rows[0] if c.startswith("hp_")]
        wanted = set(self.hps) if categorical == "all" else {c for c in categorical.split(",") if c}
        if wanted - set(self.hps):
            raise SystemExit(f"--categorical: {', '.join(sorted(wanted - set(self.hps)))} not among the table's {', '.join(self.hps)}")
        self.cat = [h for h in self.hps if h in wanted]
        self.num = [h for h in self.hps if h not in wanted]
        self.metric = metric or next(c for c in rows[0] if c.startswith("metric_"))
        x = np.array([[float(r[h]) for h in self.num] for r in rows]).reshape(len(rows), len(self.num))
        self.low, self.high = x.min(axis=0), x.max(axis=0)
        # A categorical column's choices: the values it holds, as integers when they all are.
        self.choices = {}
        for h in self.cat:
            values = sorted({r[h] for r in rows})
            try:
                self.choices[h] = sorted(int(v) for v in values)
            except ValueError:
                self.choices[h] = values
        code = {h: {str(c): i for i, c in enumerate(self.choices[h])} for h in self.cat}
        c = np.array([[code[h][r[h]] for h in self.cat] for r in rows], dtype=int).reshape(len(rows), len(self.cat))
        self.tasks = sorted({r["task"] for r in rows})
        task = np.array([r["task"] for r in rows])
        y = np.array([float(r[self.metric]) for r in rows])
        self.x = {t: x[task == t] for t in self.tasks}
        self.c = {t: c[task == t] for t in self.tasks}
        self.y = {t: y[task == t] for t in self.tasks}
        self.space = {}
        for h in self.hps:
            if h in self.choices:
                self.space[h] = optuna.distributions.CategoricalDistribution(self.choices[h])
            else:
                i = self.num.index(h)
                self.space[h] = optuna.distributions.FloatDistribution(float(self.low[i]), float(self.high[i]))

    def draw(self, rng: np.random.Generator) -> dict:
        """A configuration drawn uniformly in the float ranges and among the choices (without
        categorical columns, the draws of the float-only script before them)."""
        p = dict(zip(self.num, map(float, self.low + rng.random(len(self.num)) * (self.high - self.low))))
        for h in self.cat:
            p[h] = self.choices[h][int(rng.integers(len(self.choices[h])))]
        return {h: p[h] for h in self.hps}

    def value(self, task: str, params: dict) -> float:
        rows = np.arange(len(self.y[task]))
        if self.cat:
            want = np.array([self.choices[h].index(params[h]) for h in self.cat])
            rows = rows[(self.c[task] == want).all(axis=1)]
            if not len(rows):
                raise SystemExit(f"{task}: no row with {', '.join(f'{h}={params[h]}' for h in self.cat)}")
        if self.num:
            p = np.array([params[h] for h in self.num])
            span = self.high - self.low
            d = (((self.x[task][rows] - p) / span) ** 2).sum(axis=1)
            rows = rows[[int(np.argmin(d))]]
        return float(self.y[task][rows[0]])

    def row(self, task: str, i: int) -> dict:
        p = dict(zip(self.num, map(float, self.x[task][i])))
        for j, h in enumerate(self.cat):
            p[h] = self.choices[h][int(self.c[task][i, j])]
        return {h: p[h] for h in self.hps}

    def study_of(self, task: str, rows: np.ndarray, name: str) -> optuna.Study:
        study = optuna.create_study(study_name=name)
        points = [self.row(task, i) for i in rows]
        study.add_trials(trials_of(self.space, points, [float(self.y[task][i]) for i in rows]))
        return study

    def suggest(self, trial: optuna.Trial) -> dict:
        return {h: trial.suggest_categorical(h, d.choices) if h in self.choices else trial.suggest_float(h, d.low, d.high)
                for h, d in self.space.items()}


def quality(args) -> tuple[str, dict]:
    table = Table(args.table, args.metric, args.categorical)
    names = args.quality_samplers.split(",")
    tasks = table.tasks[: args.tasks]
    n_related = min(args.related, len(table.tasks) - 1)  # never the target task itself
    raw: dict = {n: [] for n in names}
    for ti, task in enumerate(tasks):
        for seed in range(args.seeds):
            rng = np.random.default_rng(1000 * ti + seed)
            init = [table.draw(rng) for _ in range(args.init)]
            others = [table.tasks[(table.tasks.index(task) + k) % len(table.tasks)] for k in range(1, n_related + 1)]
            related = [table.study_of(o, rng.choice(len(table.y[o]), args.related_trials, replace=False), o) for o in others]
            best = float(table.y[task].min())
            for name in names:
                # Named: the study's name is part of our samplers' engine seed (as in `hpo
                # suggest`), so an unnamed study (a random name) would not repeat its run.
                study = optuna.create_study(study_name=f"{task} seed {seed}", sampler=SAMPLERS[name](seed, related))
                for p in init:
                    study.enqueue_trial(p)
                t0 = time.perf_counter()
                study.optimize(lambda t: table.value(task, table.suggest(t)), n_trials=args.init + args.steps)
                raw[name].append({"task": task, "seed": seed, "regret": study.best_value - best, "seconds": time.perf_counter() - t0})
            print(f"quality {task} seed {seed}: " + ", ".join(f"{n} {raw[n][-1]['regret']:.3g}" for n in names), file=sys.stderr)
    lines = ["| sampler | mean final regret | median | s per run (median) | " + " | ".join(f"wins vs {n}" for n in names) + " |",
             "|---" * (4 + len(names)) + "|"]
    for a in names:
        ra = [r["regret"] for r in raw[a]]
        wins = []
        for b in names:
            rb = [r["regret"] for r in raw[b]]
            wins.append("—" if a == b else f"{sum(x < y for x, y in zip(ra, rb))}/{sum(x > y for x, y in zip(ra, rb))}")
        lines.append(f"| {a} | {statistics.mean(ra):.3g} | {statistics.median(ra):.3g} | {statistics.median(r['seconds'] for r in raw[a]):.1f} | " + " | ".join(wins) + " |")
    kinds = f"; {len(table.cat)} categorical hyperparameters matched exactly, {len(table.num)} floats by the nearest row" if table.cat else ""
    head = (f"{args.table.name} ({table.metric}, minimised{kinds}), tasks {tasks[0]}…{tasks[-1]} ({len(tasks)}), {args.seeds} seeds each, {args.init} shared random "
            f"configurations then {args.steps} proposals; GCP+prior with {n_related} related tasks of {args.related_trials} trials "
            "(wins: runs with lower / higher final regret than the column's sampler):\n\n")
    return head + "\n".join(lines), raw


def footprint(args) -> tuple[str, dict]:
    def import_seconds(module: str) -> float:
        code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
        return statistics.median(float(subprocess.check_output([sys.executable, "-c", code], text=True)) for _ in range(5))

    raw = {m: import_seconds(m) for m in ("hpo_playground", "hpo_playground.optuna", "optuna")}
    out = [f"Import time (median of 5 fresh processes): `hpo_playground` {raw['hpo_playground'] * 1e3:.0f} ms, "
           f"`hpo_playground.optuna` {raw['hpo_playground.optuna'] * 1e3:.0f} ms (`optuna` alone {raw['optuna'] * 1e3:.0f} ms)."]
    if args.wheel:
        raw["wheel_bytes"] = args.wheel.stat().st_size
        out.append(f"Wheel `{args.wheel.name}`: {raw['wheel_bytes']:,} bytes.")
    return " ".join(out), raw


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "results/py-sampler.md")
    ap.add_argument("--part", choices=["all", "speed", "quality", "footprint"], default="all")
    ap.add_argument("--sizes", default="50,100,200,400,1000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--speed-samplers", default="GP (ours),GCP (ours),GPSampler,TPESampler")
    ap.add_argument("--quality-samplers", default="GP (ours),GCP+prior (ours),GPSampler,TPESampler")
    ap.add_argument("--table", type=Path, default=REPO / "assets/quadratic.csv", help="quality: a table with hp_*, metric_* and task columns (.csv, or .zip of one CSV)")
    ap.add_argument("--metric", default=None, help="quality: the minimised column (default: the first metric_*)")
    ap.add_argument("--categorical", default="", help="quality: hp_* columns suggested as categorical over the table's values and matched exactly (comma-separated, or 'all')")
    ap.add_argument("--tasks", type=int, default=4)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--init", type=int, default=5)
    ap.add_argument("--steps", type=int, default=25)
    ap.add_argument("--related", type=int, default=4)
    ap.add_argument("--related-trials", type=int, default=50)
    ap.add_argument("--wheel", type=Path, default=None, help="the built wheel, for its size")
    args = ap.parse_args()
    parts, raw = [], {}
    for part, fn in (("footprint", footprint), ("speed", speed), ("quality", quality)):
        if args.part in ("all", part):
            text, raw[part] = fn(args)
            parts.append(f"### {part}\n\n{text}\n")
            print(parts[-1], flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(f"# hpo_playground's sampler vs Optuna {optuna.__version__}\n\n" + "\n".join(parts))
    args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
