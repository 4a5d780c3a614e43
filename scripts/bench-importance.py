#!/usr/bin/env python3
"""`hpo explore`'s hyperparameter importance against Optuna 5.0's three evaluators
(FanovaImportanceEvaluator, PedAnovaImportanceEvaluator, MeanDecreaseImpurityImportanceEvaluator).

Run it through scripts/bench-importance.sh (the test venv .tools/py-test-venv, one thread,
niced):

    scripts/bench-importance.sh --out results/importance.md     # both parts (~6 min)
    scripts/bench-importance.sh --part speed                     # only the 1,000-trial study

SPEED. A study of 1,000 trials x 8 parameters made by Optuna (RandomSampler(seed=0)) in a
journal: lr (1e-3..1e-1) and weight_decay (1e-5..1e-3) on log scales, width and dropout linear
floats, layers an int, units an int with a step, optimizer a categorical of 3, noise a float the
objective ignores. The objective is a weighted sum of one term a parameter, each 0..1 linear in
the parameter's raw value (fANOVA as Optuna measures it integrates over the raw range:
transform_log=False), the weights 1.6^-k in the order of TRUE_ORDER, which is so the true order
of the terms' variances. (A first design, weights 1.5^-k and a weight_decay of 6 decades, put
weight_decay below width and optimizer above units in Optuna's fANOVA and ours alike: a forest
grown on 1,000 trials sees a weak term, or one whose raw range is mostly empty of trials, as
weaker than it is.) Timed: Optuna's get_param_importances with
FanovaImportanceEvaluator(seed=0), PedAnovaImportanceEvaluator() and
MeanDecreaseImpurityImportanceEvaluator(seed=0), in-process on the loaded study (storage read
excluded); `hpo explore --data JOURNAL` as a command, wall time, best of --reps (3), all its
views included (reading the journal, 8 forests, the GP's slices and contour, the CSVs). Each
ranking, and whether it is the true order.

FIXTURES. Each study of tests/fixtures/studies that Optuna wrote: our importance (mean over 8
forests, seeds 0..7), its sd over them and ahead_of_next (the share of the 8 forests putting the
parameter above the next one); Optuna's fANOVA mean and min-max over seeds 0..7 and the share of
those 8 seeds putting each parameter above our next one; PED-ANOVA's and MDI's (seed 0) ranks.
Then every pair of parameters Optuna's evaluators order differently (fANOVA's mean, PED-ANOVA,
MDI), with our order of the pair and, when the two are adjacent in ours, its ahead_of_next. The
first objective of a study of several (Optuna: target=lambda t: t.values[0]).

Output: Markdown on stdout and in --out.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

import optuna
from optuna.importance import (
    FanovaImportanceEvaluator,
    MeanDecreaseImpurityImportanceEvaluator,
    PedAnovaImportanceEvaluator,
    get_param_importances,
)

ROOT = Path(__file__).resolve().parents[1]
STUDIES = ROOT / "tests/fixtures/studies"
FIXTURES = [
    ("optuna-mlp-journal.log", "mlp-cifar"),
    ("optuna-mlp.db", "mlp-cifar"),
    ("optuna-mlp.db", "mlp-svhn"),
    ("optuna-mlp.db", "lr-only"),
    ("optuna-conditional-journal.log", "cond-space"),
    ("optuna-two-studies-journal.log", "mlp-cifar"),
    ("optuna-two-studies-journal.log", "mlp-svhn"),
    ("optuna-infinite-journal.log", "diverging"),
    ("optuna-two-objective.db", "loss-latency"),
]
SEEDS = range(8)

# The speed study's parameters in their true order of importance (weights 1.6^-k; noise: none).
TRUE_ORDER = ["lr", "width", "weight_decay", "optimizer", "layers", "dropout", "units", "noise"]
WEIGHT_RATIO = 1.6
LEVELS = ["adam", "sgd", "rmsprop"]


def speed_objective(trial: optuna.Trial) -> float:
    unit = {
        "lr": (trial.suggest_float("lr", 1e-3, 1e-1, log=True) - 1e-3) / (1e-1 - 1e-3),
        "weight_decay": (trial.suggest_float("weight_decay", 1e-5, 1e-3, log=True) - 1e-5) / (1e-3 - 1e-5),
        "width": trial.suggest_float("width", 0.0, 1.0),
        "dropout": trial.suggest_float("dropout", 0.0, 0.5) / 0.5,
        "layers": (trial.suggest_int("layers", 1, 16) - 1) / 15,
        "units": (trial.suggest_int("units", 32, 512, step=32) - 32) / 480,
        "optimizer": LEVELS.index(trial.suggest_categorical("optimizer", LEVELS)) / 2,
    }
    trial.suggest_float("noise", 0.0, 1.0)
    return sum(WEIGHT_RATIO**-k * unit[p] for k, p in enumerate(TRUE_ORDER[:-1]))


def storage_of(path: Path):
    if path.suffix == ".db":
        return f"sqlite:///{path}"
    return optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(path)))


def target_of(study: optuna.Study):
    return (lambda t: t.values[0]) if len(study.directions) > 1 else None


def ours(hpo: str, data: Path, study: str) -> tuple[list[dict], float]:
    """importance.csv of `hpo explore` (seed 0) and the command's wall time."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([hpo, "explore", "--data", str(data), "--study", study, "--seed", "0", "--out", out], check=True, capture_output=True)
        took = time.perf_counter() - start
        with open(Path(out) / "importance.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    for r in rows:
        r["importance"] = float(r["importance"])
        r["sd"] = float(r["sd"])
        r["ahead_of_next"] = float(r["ahead_of_next"]) if r["ahead_of_next"] else None
    return rows, took


def timed(f):
    start = time.perf_counter()
    value = f()
    return value, time.perf_counter() - start


def ranking(importances: dict[str, float]) -> list[str]:
    return sorted(importances, key=lambda p: -importances[p])


def speed(hpo: str, reps: int, say) -> None:
    with tempfile.TemporaryDirectory() as folder:
        journal = Path(folder) / "journal.log"
        study = optuna.create_study(study_name="speed", storage=storage_of(journal), sampler=optuna.samplers.RandomSampler(seed=0))
        study.optimize(speed_objective, n_trials=1000)
        study = optuna.load_study(study_name="speed", storage=storage_of(journal))
        study.get_trials()  # read once: the evaluators below time their work, not the journal's
        runs = []
        for name, evaluator in (
            ("Optuna fANOVA (seed 0)", FanovaImportanceEvaluator(seed=0)),
            ("Optuna PED-ANOVA", PedAnovaImportanceEvaluator()),
            ("Optuna MDI (seed 0)", MeanDecreaseImpurityImportanceEvaluator(seed=0)),
        ):
            found, took = timed(lambda: get_param_importances(study, evaluator=evaluator))
            runs.append((name, ranking(found), took, found))
        times = []
        for _ in range(reps):
            rows, took = ours(hpo, journal, "speed")
            times.append(took)
        runs.append((f"hpo explore (all views, best of {reps}: {', '.join(f'{t:.2f}' for t in times)} s)", [r["parameter"] for r in rows], min(times), {r["parameter"]: r["importance"] for r in rows}))
    fanova_time = runs[0][2]
    say("## Speed: 1,000 trials x 8 parameters\n")
    say(f"True order: {' > '.join(TRUE_ORDER)} (weights {WEIGHT_RATIO}^-k, noise 0).\n")
    say("| evaluator | time (s) | Optuna fANOVA's time / this | ranking | true order |")
    say("|---|---:|---:|---|---|")
    for name, rank, took, _ in runs:
        say(f"| {name} | {took:.2f} | {fanova_time / took:.1f}x | {' > '.join(rank)} | {'yes' if rank == TRUE_ORDER else 'no'} |")
    say("\nImportances:\n")
    say("| parameter | " + " | ".join(name.split(" (")[0] for name, *_ in runs) + " |")
    say("|---|" + "---:|" * len(runs))
    for p in TRUE_ORDER:
        say(f"| {p} | " + " | ".join(f"{found.get(p, float('nan')):.4f}" for *_, found in runs) + " |")
    say("")


def fixtures(hpo: str, say) -> None:
    say("## Fixture studies\n")
    say(
        "ours: mean ± sd over our 8 forests (seeds 0..7), ahead_of_next = share of them putting the parameter above the next one in "
        "our ranking. Optuna fANOVA: mean [min–max] over FanovaImportanceEvaluator(seed=0..7); 'ahead' = share of those 8 seeds putting "
        "the parameter above our next one. PED-ANOVA and MDI (seed 0): rank (importance).\n"
    )
    for file, name in FIXTURES:
        path = STUDIES / file
        study = optuna.load_study(study_name=name, storage=storage_of(path))
        target = target_of(study)
        complete = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.get_trials(deepcopy=False))
        rows, our_time = ours(hpo, path, name)
        runs, fanova_time = timed(lambda: [get_param_importances(study, evaluator=FanovaImportanceEvaluator(seed=s), target=target) for s in SEEDS])
        mean = {p: sum(r[p] for r in runs) / len(runs) for p in runs[0]}
        ped = get_param_importances(study, evaluator=PedAnovaImportanceEvaluator(), target=target)
        mdi = get_param_importances(study, evaluator=MeanDecreaseImpurityImportanceEvaluator(seed=0), target=target)
        ped_rank, mdi_rank, mean_rank = ranking(ped), ranking(mdi), ranking(mean)
        our_rank = [r["parameter"] for r in rows]
        say(f"### {file}: {name}\n")
        say(
            f"{len(study.trials)} trials, {complete} complete; {'first of ' + str(len(study.directions)) + ' objectives; ' if target else ''}"
            f"hpo explore (all views) {our_time:.2f} s, Optuna fANOVA x 8 seeds {fanova_time:.1f} s. "
            f"Same parameters: {'yes' if set(our_rank) == set(mean) == set(ped) == set(mdi) else f'no (ours {sorted(our_rank)}, fANOVA {sorted(mean)}, PED-ANOVA {sorted(ped)}, MDI {sorted(mdi)})'}.\n"
        )
        say("| parameter | ours | sd | ahead_of_next | Optuna fANOVA mean [min–max] | ahead (8 seeds) | PED-ANOVA | MDI |")
        say("|---|---:|---:|---:|---|---:|---|---|")
        for k, r in enumerate(rows):
            p = r["parameter"]
            nxt = our_rank[k + 1] if k + 1 < len(our_rank) else None
            their_ahead = f"{sum(run.get(p, 0) > run.get(nxt, 0) for run in runs) / len(runs):.3g}" if nxt else ""
            lo, hi = min(run.get(p, 0) for run in runs), max(run.get(p, 0) for run in runs)
            ahead = "" if r["ahead_of_next"] is None else f"{r['ahead_of_next']:.3g}"
            say(
                f"| {p} | {r['importance']:.4f} | {r['sd']:.4f} | {ahead} | {mean.get(p, math.nan):.4f} [{lo:.4f}–{hi:.4f}] | {their_ahead} "
                f"| {ped_rank.index(p) + 1 if p in ped else '–'} ({ped.get(p, math.nan):.3f}) | {mdi_rank.index(p) + 1 if p in mdi else '–'} ({mdi.get(p, math.nan):.3f}) |"
            )
        say(f"\nRankings: ours {' > '.join(our_rank)}; fANOVA mean {' > '.join(mean_rank)}; PED-ANOVA {' > '.join(ped_rank)}; MDI {' > '.join(mdi_rank)}.\n")
        disagreements = []
        for a, b in combinations(mean_rank, 2):
            orders = {ev: (a if imp[a] > imp[b] else b) for ev, imp in (("fANOVA", mean), ("PED-ANOVA", ped), ("MDI", mdi))}
            if len(set(orders.values())) > 1:
                top, low = (a, b) if our_rank.index(a) < our_rank.index(b) else (b, a)
                i = our_rank.index(top)
                note = f"ahead_of_next {rows[i]['ahead_of_next']:.3g}" if our_rank.index(low) == i + 1 else f"{our_rank.index(low) - i - 1} between"
                above = ", ".join(f"{ev} {w}" for ev, w in orders.items())
                disagreements.append(f"- {a} vs {b}, above: {above}; ours {top} ({note})")
        say("Pairs Optuna's evaluators order differently:" + ("\n\n" + "\n".join(disagreements) if disagreements else " none.") + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hpo", default=os.environ.get("HPO_BIN", str(ROOT / "target/release/hpo")), help="the hpo binary (default: $HPO_BIN or target/release/hpo)")
    parser.add_argument("--part", choices=["all", "speed", "fixtures"], default="all")
    parser.add_argument("--reps", type=int, default=3, help="hpo explore's runs on the speed study (best taken)")
    parser.add_argument("--out", help="also write the Markdown here")
    args = parser.parse_args()
    if not Path(args.hpo).exists():
        sys.exit(f"{args.hpo} is missing: build it with `cargo build --release --bin hpo` (or set HPO_BIN / --hpo)")
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    lines: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    say(f"# Hyperparameter importance: hpo explore against Optuna {optuna.__version__}'s evaluators\n")
    say(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, one thread (OMP/MKL/OpenBLAS/Rayon at 1); hpo: {args.hpo}.\n")
    if args.part in ("all", "speed"):
        speed(args.hpo, args.reps, say)
    if args.part in ("all", "fixtures"):
        fixtures(args.hpo, say)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
