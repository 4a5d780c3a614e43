#!/usr/bin/env python3
"""Many workers at once (issue 69): batches and pending trials, side by side, seeds paired.

Run it through scripts/bench-py-parallel.sh, which installs the package into the venv of
scripts/bench-gp-optuna.sh (Optuna 5.0.0 with PyTorch for GPSampler) and runs this niced:

    scripts/bench-py-parallel.sh --part batch --seeds 20 --out results/py-parallel-batch.md
    scripts/bench-py-parallel.sh --part workers --seeds 20 --out results/py-parallel-workers.md

The problems are scripts/bench-gp-optuna.py's (Branin, Hartmann-6, the 6-parameter
study-shaped function), all minimised; regret = best value found - the known minimum.

BATCH (the engine's next trials, as the page's "Next trials" and `hpo suggest --n k` make them;
`hpo_playground.suggest` is the same engine call). Per problem and seed, 5 shared random points,
then 20 proposals by each arm: one at a time (each evaluated before the next), or 5 batches of
4 made with the constant liar "min", "mean" or "max" or the kriging believer (each batch
evaluated, then the next). The
batch's diversity: the smallest distance between two configurations of one batch, L-infinity
over the parameters normalised to [0, 1] (log scales on the log), the median over batches.
Also on the committed 80-trial Optuna journal (tests/fixtures/studies/optuna-mlp-journal.log):
the smallest distance within one batch of 4 and of 16, per liar.

WORKERS (Optuna's own `study.optimize(n_jobs=w)` threads on one in-memory storage). Per
problem, seed and w in 1/4/16, each sampler runs --trials trials (equal for every w): ours
(GP, GCP), GPSampler(seed) and TPESampler(seed, constant_liar=True). Each trial sleeps a
random 20-80 ms (drawn from the seed and its number) so that trials overlap and finish out of
order. A near-duplicate is a trial within 1e-3 (L-infinity, normalised) of a trial that was
RUNNING throughout its proposal (created before it, still running after its suggest calls). Reported: near-duplicates over all trials, mean final regret.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import sys
import threading
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

import hpo_playground  # noqa: E402  (after the thread settings above)
import hpo_playground.optuna  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)
LIARS = ["min", "mean", "max", "believer"]
INIT, STEPS, BATCH = 5, 20, 4


def label(liar: str) -> str:
    return "kriging believer" if liar == "believer" else f"CL-{liar}"


def unit(d, v) -> float:
    """A parameter's value in [0, 1] of its distribution (log scale on the log)."""
    if isinstance(d, optuna.distributions.CategoricalDistribution):
        return float(d.to_internal_repr(v))
    lo, hi, x = float(d.low), float(d.high), float(v)
    if d.log:
        lo, hi, x = math.log(lo), math.log(hi), math.log(x)
    return (x - lo) / (hi - lo) if hi > lo else 0.0


def distance(space: dict, a: dict, b: dict) -> float:
    """L-infinity between two configurations, normalised; a different choice counts 1."""
    out = 0.0
    for k, d in space.items():
        if isinstance(d, optuna.distributions.CategoricalDistribution):
            out = max(out, float(a[k] != b[k]))
        else:
            out = max(out, abs(unit(d, a[k]) - unit(d, b[k])))
    return out


def smallest_gap(space: dict, batch: list[dict]) -> float:
    return min(distance(space, p, q) for i, p in enumerate(batch) for q in batch[i + 1 :])


def study_of(space: dict, points: list[dict], values: list[float]) -> optuna.Study:
    study = optuna.create_study()
    study.add_trials([create_trial(params=p, distributions=space, value=v) for p, v in zip(points, values)])
    return study


def propose(study: optuna.Study, space: dict, method: str, k: int, seed: int, liar: str) -> list[dict]:
    description = hpo_playground.optuna.describe("bench", study.directions, study.get_trials(deepcopy=False), space)
    names = [name for name, _ in description["distributions"]]
    rows = hpo_playground.suggest(description, method, k=k, seed=seed, liar=liar)
    return [{n: space[n].to_external_repr(v) for n, v in zip(names, row)} for row in rows]


def batch_part(problems: list[str], seeds: int, methods: list[str]) -> tuple[list[str], dict]:
    raw: dict = {}
    lines = [
        f"Per problem, {seeds} seeds: {INIT} shared random points, then {STEPS} proposals one at a time or in"
        f" {STEPS // BATCH} batches of {BATCH} (constant liar min / mean / max, kriging believer). Mean final regret (median in"
        " brackets); the batches' smallest normalised L-infinity distance between two of their configurations"
        " (median over batches and seeds; 0 = a copy). Seconds: engine time per proposal, mean.",
        "",
        "| problem | method | arm | mean regret (median) | smallest gap in a batch | s / proposal |",
        "|---|---|---|---|---|---|",
    ]
    for name in problems:
        p = gpbench.PROBLEMS[name]
        for method in methods:
            arms = {"one at a time": None, **{f"batches of {BATCH}, {label(liar)}": liar for liar in LIARS}}
            for arm, liar in arms.items():
                regrets, gaps, seconds = [], [], []
                for seed in range(seeds):
                    rng = np.random.default_rng(seed)
                    points = p.draw(rng, INIT)
                    values = [p.f(x) for x in points]
                    k = 1 if liar is None else BATCH
                    for step in range(STEPS // k):
                        study = study_of(p.space, points, values)
                        started = time.perf_counter()
                        batch = propose(study, p.space, method, k, seed * 1000 + step, liar or "believer")
                        seconds.append((time.perf_counter() - started) / k)
                        if k > 1:
                            gaps.append(smallest_gap(p.space, batch))
                        points += batch
                        values += [p.f(x) for x in batch]
                    regrets.append(min(values) - p.fmin)
                raw[f"{name}/{method}/{arm}"] = {"regrets": regrets, "gaps": gaps}
                gap = f"{statistics.median(gaps):.3f}" if gaps else "–"
                lines.append(
                    f"| {p.title} | {method} | {arm} | {statistics.mean(regrets):.4g} ({statistics.median(regrets):.4g})"
                    f" | {gap} | {statistics.mean(seconds):.3f} |"
                )
                print(lines[-1], flush=True)
    lines += ["", "On the 80-trial journal of tests/fixtures/studies (4 parameters: log float, log float, stepped int, choice of 3):", ""]
    lines += ["| method | liar | smallest gap, batch of 4 | smallest gap, batch of 16 |", "|---|---|---|---|"]
    journal = REPO / "tests/fixtures/studies/optuna-mlp-journal.log"
    storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(journal)))
    (summary,) = optuna.get_all_study_summaries(storage)
    study = optuna.load_study(study_name=summary.study_name, storage=storage)
    space = optuna.search_space.IntersectionSearchSpace().calculate(study)
    for method in methods:
        for liar in LIARS:
            gaps = [smallest_gap(space, propose(study, space, method, k, 0, liar)) for k in (4, 16)]
            raw[f"journal/{method}/{liar}"] = gaps
            lines.append(f"| {method} | {label(liar)} | {gaps[0]:.3f} | {gaps[1]:.3f} |")
            print(lines[-1], flush=True)
    return lines, raw


SAMPLERS = {
    "GP (ours)": lambda seed: hpo_playground.optuna.Sampler("GP", seed=seed),
    "GCP (ours)": lambda seed: hpo_playground.optuna.Sampler("GCP", seed=seed),
    "GPSampler": lambda seed: optuna.samplers.GPSampler(seed=seed),
    "TPE (constant_liar)": lambda seed: optuna.samplers.TPESampler(seed=seed, constant_liar=True),
}


def one_run(p, sampler_name: str, seed: int, workers: int, trials: int) -> tuple[float, int, float]:
    """Final regret, near-duplicates of a running trial, wall clock."""
    running_at_start: dict[int, list[int]] = {}
    lock = threading.Lock()

    def objective(trial: optuna.Trial) -> float:
        x = {k: (trial.suggest_float(k, d.low, d.high, log=d.log)) for k, d in p.space.items()}
        # The trials running when this one was proposed: Optuna 5 draws a trial's relative sample
        # at its first suggest call, so the set is read after the suggestions; a trial created
        # before this one and running now was running throughout its proposal (pending for it,
        # or proposing after it with this one pending).
        with lock:
            running_at_start[trial.number] = [
                t.number for t in trial.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)) if t.number < trial.number
            ]
        time.sleep(0.02 + 0.06 * np.random.default_rng([seed, trial.number]).random())
        return p.f(x)

    study = optuna.create_study(sampler=SAMPLERS[sampler_name](seed))
    started = time.perf_counter()
    study.optimize(objective, n_trials=trials, n_jobs=workers)
    wall = time.perf_counter() - started
    by_number = {t.number: t for t in study.get_trials()}
    duplicates = 0
    for number, running in running_at_start.items():
        mine = by_number[number].params
        if any(distance(p.space, mine, by_number[o].params) < 1e-3 for o in running):
            duplicates += 1
    values = [t.value for t in by_number.values() if t.state == TrialState.COMPLETE]
    return min(values) - p.fmin, duplicates, wall


def workers_part(problems: list[str], seeds: int, trials: int, samplers: list[str], worker_counts: list[int]) -> tuple[list[str], dict]:
    raw: dict = {}
    lines = [
        f"Per problem, {seeds} seeds × {trials} trials, Optuna's `study.optimize(n_jobs=w)` threads on one in-memory storage, each"
        " trial sleeping 20-80 ms. Near-duplicates: trials within 1e-3 (normalised) of a trial running throughout their proposal, of all"
        " trials; regret: mean final (median in brackets); seconds: wall clock per run, mean.",
        "",
        "| problem | sampler | workers | near-duplicates | mean regret (median) | s / run |",
        "|---|---|---|---|---|---|",
    ]
    for name in problems:
        p = gpbench.PROBLEMS[name]
        for sampler in samplers:
            for w in worker_counts:
                runs = [one_run(p, sampler, seed, w, trials) for seed in range(seeds)]
                regrets = [r[0] for r in runs]
                raw[f"{name}/{sampler}/{w}"] = runs
                lines.append(
                    f"| {p.title} | {sampler} | {w} | {sum(r[1] for r in runs)} of {seeds * trials}"
                    f" | {statistics.mean(regrets):.4g} ({statistics.median(regrets):.4g}) | {statistics.mean(r[2] for r in runs):.1f} |"
                )
                print(lines[-1], flush=True)
    return lines, raw


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["batch", "workers"], required=True)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--problems", default="branin,hartmann6,study6")
    ap.add_argument("--methods", default="GP,GCP", help="batch part: the engine's methods")
    ap.add_argument("--samplers", default=",".join(SAMPLERS), help="workers part")
    ap.add_argument("--workers", default="1,4,16", help="workers part: n_jobs values")
    ap.add_argument("--trials", type=int, default=40, help="workers part: trials per run")
    ap.add_argument("--out", type=Path, required=True, help="Markdown report; the raw numbers beside it as .json")
    args = ap.parse_args()
    problems = args.problems.split(",")
    if args.part == "batch":
        lines, raw = batch_part(problems, args.seeds, args.methods.split(","))
    else:
        worker_counts = [int(w) for w in args.workers.split(",")]
        lines, raw = workers_part(problems, args.seeds, args.trials, args.samplers.split(","), worker_counts)
    header = f"# scripts/bench-py-parallel.py --part {args.part} (seeds {args.seeds}; {time.strftime('%Y-%m-%d')})\n\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(header + "\n".join(lines) + "\n")
    args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1))


if __name__ == "__main__":
    main()
