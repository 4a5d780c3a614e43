#!/usr/bin/env python3
"""Our GP against Optuna 5.0's GPSampler, side by side (issue 59): speed and quality.

Run it through scripts/bench-gp-optuna.sh, which makes the venv (.tools/gp-bench-venv: optuna
5.0.0, torch (PyPI's build, run on the CPU), scipy, numpy, greenlet) and runs this on one
thread, niced (paths are relative to the repository's root):

    scripts/bench-gp-optuna.sh --hpo target/release/hpo --out results/gp-vs-optuna.md \
        --compare-to results/gp-vs-optuna-baseline.json       # the full run (~40 min) + vs the baseline
    scripts/bench-gp-optuna.sh --part speed --sizes 50,100 --reps 3           # a quick look
    scripts/bench-gp-optuna.sh --part quality --seeds 3 --steps 10 --problems branin --methods GPSampler,GP

SPEED. A study of the study-shaped problem below (4 float parameters, 2 on log scales; and its
6-parameter version at 200 trials) with N complete trials, drawn uniformly at random (log-uniform
on the log scales), is written to an Optuna journal (JournalStorage + JournalFileBackend). Per
repetition, the two tools alternate:
  - GPSampler: the journal's trials are loaded and copied into a fresh in-memory study with a
    fresh GPSampler(seed=rep) before the clock starts (imports, journal reading and the copy are
    not timed); what is timed is `study.ask(distributions)`, i.e. the trial's creation in the
    in-memory storage, the intersection search space, `sample_relative` (GP fit with no cached
    kernel parameters + logEI optimisation) and the suggestion of every parameter from the
    relative sample (checked: every parameter comes from `sample_relative`, none from the
    independent sampler).
  - ours: the whole process `hpo suggest --data journal.log --study speed --method GP --n 1
    --seed rep --out DIR` (start-up, journal parsing, the proposal — at 8b72034: 2,048 random
    candidates, GP fit, EI — and writing the three files), wall clock from spawn to exit. If hpo prints its own time on stderr (a
    line matching --engine-time-regex), that is reported too.
Medians of --reps (5) repetitions. A tool whose single run at a size takes longer than
--speed-cap seconds (60) is run once at that size (said in the table).

QUALITY. Per problem and seed, a shared initial design (--init, 10 points drawn by the seed,
uniform, log-uniform on log scales) is told to every method; then --steps (30) sequential steps,
each method proposing one trial that is evaluated and told:
  - GPSampler: GPSampler(seed=seed) on an in-memory study (one sampler for the whole run, so
    it reuses its cached kernel parameters as Optuna does); per-step time = `study.ask(...)`.
  - GP, GCP, GCP+prior, …(any `hpo suggest` method): the study lives in an Optuna journal
    written by Optuna (each trial through enqueue_trial + ask + tell, as a running study writes
    it; see tell_complete for why not add_trial); each step runs
    `hpo suggest --data journal.log --study target --method M --n 1 --seed seed*1000+step`,
    reads suggestions.csv, evaluates it and adds the trial; per-step time = the whole process.
    Transfer methods (GCP+prior, CTS, …) get a journal that also holds --related (4) related
    studies of the same search space, 50 complete trials each (RandomSampler, written by
    Optuna through study.optimize), each a shifted / scaled / perturbed version of the problem
    drawn by the seed (see Problem.related below); the other methods' journals hold the target
    study alone.
Regret = best value found (initial design included) - the known minimum. Per problem and
method: mean and median final regret over the seeds, the median per-step time; paired
Wilcoxon signed-rank tests (scipy, two-sided) of the final regrets: each hpo method vs
GPSampler, and GCP+prior vs each other method.

Problems (all minimised):
  branin   Branin on [-5,10]x[0,15], min 0.397887357729738 (three minimisers).
  hartmann6  Hartmann-6 on [0,1]^6, min -3.32236801141551 at
           (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573).
  study4   "study-shaped": lr in [1e-5,1e-1] log, weight_decay in [1e-8,1e-2] log, dropout in
           [0,0.5], momentum in [0.8,0.99]. With u = log10 lr, v = log10 weight_decay,
           e = u - log10(1 - momentum) (the log10 effective step size):
             f = 0.25 + 0.12 (e + 1.5)^2 + 0.1 (1 - exp(-(v + 4.5)^2 / 4))
                 + 0.8 (dropout - 0.2 - 0.04 (v + 4.5))^2 + 20 (momentum - 0.9)^2
           a sum of squares-like terms that all vanish at lr = 10^-2.5 (3.1623e-3),
           weight_decay = 10^-4.5 (3.1623e-5), dropout = 0.2, momentum = 0.9: min 0.25 there,
           and only there.
  study6   study4 with beta2 in [0.9,0.999] and label_smoothing in [0,0.3] added:
           + 10 (beta2 - 0.98)^2 + 0.5 (label_smoothing - 0.1)^2; min 0.25 at beta2 = 0.98,
           label_smoothing = 0.1 (used by the speed table's 6-parameter row; a quality problem
           too if asked for).

Output: Markdown tables on stdout and in --out (results/gp-vs-optuna.md); the raw numbers beside
it (--out with .json: every speed run, every quality run's per-step values and times); while
the quality runs go, each finished run is appended to --out with .quality.jsonl, which
--resume takes after an interruption (removed once the report is written). --compare-to an
earlier run's .json adds this hpo against that one: speed per size, final regrets paired by
seed. The script stops at the first failure of a tool, with the command and hpo's stderr, and
exits 1.
"""

from __future__ import annotations

import os

# One thread, before numpy / torch are imported (torch reads OMP_NUM_THREADS at import).
for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
           "VECLIB_MAXIMUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse
import csv
import datetime
import hashlib
import json
import math
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import optuna
import scipy
import torch
from optuna.distributions import FloatDistribution
from scipy.stats import wilcoxon

torch.set_num_threads(1)
try:
    torch.set_num_interop_threads(1)
except RuntimeError:
    pass
optuna.logging.set_verbosity(optuna.logging.WARNING)
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_HPO = Path("/work/main/target/release/hpo")
OPTUNA = "GPSampler"


class BenchError(RuntimeError):
    """A tool failed: the message says which, with what command and its stderr."""


# ----------------------------------------------------------------------------------- problems

Fn = Callable[[dict], float]


@dataclass
class Problem:
    name: str
    title: str
    space: dict  # name -> FloatDistribution, in the study's order
    f: Fn
    fmin: float
    related: Callable[[np.random.Generator, float], Fn]  # a related task drawn by an rng, perturbations times spread

    def draw(self, rng: np.random.Generator, n: int) -> list[dict]:
        """n points uniform in the space (log-uniform on log scales)."""
        out = []
        for _ in range(n):
            p = {}
            for k, d in self.space.items():
                if d.log:
                    p[k] = float(math.exp(rng.uniform(math.log(d.low), math.log(d.high))))
                else:
                    p[k] = float(rng.uniform(d.low, d.high))
                p[k] = min(max(p[k], d.low), d.high)
            out.append(p)
        return out


def branin_fn(a=1.0, b=5.1 / (4 * math.pi**2), c=5 / math.pi, r=6.0, s=10.0, t=1 / (8 * math.pi),
              dx=0.0, dy=0.0, scale=1.0, offset=0.0) -> Fn:
    def f(p):
        x1, x2 = p["x1"] + dx, p["x2"] + dy
        return scale * (a * (x2 - b * x1**2 + c * x1 - r) ** 2 + s * (1 - t) * math.cos(x1) + s) + offset
    return f


def branin_related(rng: np.random.Generator, k: float = 1.0) -> Fn:
    # Branin's own constants perturbed by ~10%, the input shifted by up to 1 (of 15), the output
    # scaled and offset (k = --related-spread scales the perturbations of the input side).
    return branin_fn(b=5.1 / (4 * math.pi**2) * (1 + 0.1 * k * rng.normal()), c=5 / math.pi * (1 + 0.1 * k * rng.normal()),
                     t=1 / (8 * math.pi) * (1 + 0.1 * k * rng.normal()), r=6.0 + 0.5 * k * rng.normal(),
                     dx=k * rng.uniform(-1, 1), dy=k * rng.uniform(-1, 1), scale=rng.uniform(0.5, 2.0), offset=rng.uniform(-1, 1))


H6_A = np.array([[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]])
H6_P = 1e-4 * np.array([[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
                        [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]])
H6_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])
H6_NAMES = [f"x{i}" for i in range(1, 7)]


def hartmann6_fn(alpha=H6_ALPHA, shift=np.zeros(6), scale=1.0, offset=0.0) -> Fn:
    def f(p):
        x = np.array([p[k] for k in H6_NAMES]) + shift
        return float(scale * -np.sum(alpha * np.exp(-np.sum(H6_A * (x - H6_P) ** 2, axis=1))) + offset)
    return f


def hartmann6_related(rng: np.random.Generator, k: float = 1.0) -> Fn:
    # The usual related Hartmann tasks: alpha perturbed (~10%), the input shifted by up to 0.05,
    # the output scaled and offset.
    return hartmann6_fn(alpha=H6_ALPHA * (1 + 0.1 * k * rng.normal(size=4)), shift=k * rng.uniform(-0.05, 0.05, size=6),
                        scale=rng.uniform(0.5, 2.0), offset=rng.uniform(-1, 1))


def study_fn(e0=-1.5, v0=-4.5, p0=0.2, m0=0.9, b0=0.98, l0=0.1, scale=1.0, offset=0.0) -> Fn:
    def f(p):
        u, v = math.log10(p["lr"]), math.log10(p["weight_decay"])
        e = u - math.log10(1 - p["momentum"])
        y = (0.25 + 0.12 * (e - e0) ** 2 + 0.1 * (1 - math.exp(-((v - v0) ** 2) / 4))
             + 0.8 * (p["dropout"] - p0 - 0.04 * (v - v0)) ** 2 + 20 * (p["momentum"] - m0) ** 2)
        if "beta2" in p:
            y += 10 * (p["beta2"] - b0) ** 2 + 0.5 * (p["label_smoothing"] - l0) ** 2
        return scale * y + offset
    return f


def study_related(rng: np.random.Generator, k: float = 1.0) -> Fn:
    # Another data set for the same model: the optimum moves (lr by ~0.3 decade, weight decay by
    # ~0.5, dropout and momentum a little), the loss is scaled and offset.
    return study_fn(e0=-1.5 + 0.3 * k * rng.normal(), v0=-4.5 + 0.5 * k * rng.normal(), p0=0.2 + k * rng.uniform(-0.05, 0.05),
                    m0=0.9 + k * rng.uniform(-0.02, 0.02), b0=0.98 + k * rng.uniform(-0.01, 0.01), l0=0.1 + k * rng.uniform(-0.03, 0.03),
                    scale=rng.uniform(0.5, 2.0), offset=rng.uniform(-0.1, 0.1))


STUDY4 = {"lr": FloatDistribution(1e-5, 1e-1, log=True), "weight_decay": FloatDistribution(1e-8, 1e-2, log=True),
          "dropout": FloatDistribution(0.0, 0.5), "momentum": FloatDistribution(0.8, 0.99)}
STUDY6 = {**STUDY4, "beta2": FloatDistribution(0.9, 0.999), "label_smoothing": FloatDistribution(0.0, 0.3)}

PROBLEMS = {
    "branin": Problem("branin", "Branin (2 params, [-5,10]x[0,15])", {"x1": FloatDistribution(-5, 10), "x2": FloatDistribution(0, 15)},
                      branin_fn(), 0.397887357729738, branin_related),
    "hartmann6": Problem("hartmann6", "Hartmann-6 (6 params, [0,1]^6)", {k: FloatDistribution(0, 1) for k in H6_NAMES},
                         hartmann6_fn(), -3.32236801141551, hartmann6_related),
    "study4": Problem("study4", "study-shaped (4 params, 2 log)", STUDY4, study_fn(), 0.25, study_related),
    "study6": Problem("study6", "study-shaped (6 params, 2 log)", STUDY6, study_fn(), 0.25, study_related),
}


def self_check() -> None:
    """The documented minima are the functions' values at their minimisers."""
    checks = [
        ("branin", {"x1": math.pi, "x2": 2.275}), ("branin", {"x1": -math.pi, "x2": 12.275}), ("branin", {"x1": 9.42478, "x2": 2.475}),
        ("hartmann6", dict(zip(H6_NAMES, [0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573]))),
        ("study4", {"lr": 10**-2.5, "weight_decay": 10**-4.5, "dropout": 0.2, "momentum": 0.9}),
        ("study6", {"lr": 10**-2.5, "weight_decay": 10**-4.5, "dropout": 0.2, "momentum": 0.9, "beta2": 0.98, "label_smoothing": 0.1}),
    ]
    for name, x in checks:
        p = PROBLEMS[name]
        y = p.f(x)
        if abs(y - p.fmin) > 1e-5:
            raise BenchError(f"self-check: {name} at {x} is {y}, not its documented minimum {p.fmin}")
    # No random point beats the minimum.
    rng = np.random.default_rng(0)
    for p in PROBLEMS.values():
        if min(p.f(x) for x in p.draw(rng, 2000)) < p.fmin - 1e-9:
            raise BenchError(f"self-check: a random point beats {p.name}'s documented minimum")


# ------------------------------------------------------------------------------------ tools

@dataclass
class Hpo:
    path: Path
    timeout: float
    engine_re: re.Pattern | None
    calls: int = 0

    def suggest(self, journal: Path, study: str, method: str, seed: int, out: Path) -> tuple[dict, float, float | None]:
        """One `hpo suggest --n 1`: (the suggestion, whole-process seconds, engine seconds if printed)."""
        if out.exists():
            shutil.rmtree(out)
        cmd = [str(self.path), "suggest", "--data", str(journal), "--study", study, "--method", method,
               "--n", "1", "--seed", str(seed), "--out", str(out)]
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout, env=child_env())
        except subprocess.TimeoutExpired as e:
            raise BenchError(f"hpo timed out after {self.timeout:.0f} s: {' '.join(cmd)}\n--- stderr ---\n{e.stderr or ''}") from None
        dt = time.perf_counter() - t0
        self.calls += 1
        if r.returncode != 0:
            raise BenchError(f"hpo exited with {r.returncode}: {' '.join(cmd)}\n--- stderr ---\n{r.stderr.strip()}\n--- stdout ---\n{r.stdout.strip()}")
        path = out / "suggestions.csv"
        if not path.exists():
            raise BenchError(f"hpo wrote no {path}: {' '.join(cmd)}\n--- stderr ---\n{r.stderr.strip()}")
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
        if len(rows) != 1:
            raise BenchError(f"{path} has {len(rows)} rows, not 1: {' '.join(cmd)}\n--- stderr ---\n{r.stderr.strip()}")
        engine = None
        if self.engine_re is not None:
            m = self.engine_re.search(r.stderr)
            if m:
                engine = float(m.group("value").replace(",", "")) * (1.0 if m.group("unit") == "s" else 1e-3)
        return rows[0], dt, engine

    def version(self) -> str:
        for args in (["--version"], ["-V"]):
            try:
                r = subprocess.run([str(self.path), *args], capture_output=True, text=True, timeout=30, env=child_env())
                if r.returncode == 0 and r.stdout.strip():
                    return r.stdout.strip().splitlines()[0]
            except (OSError, subprocess.TimeoutExpired):
                pass
        return "?"


def greenlet_version() -> str:
    """GPSampler batches its L-BFGS-B with greenlet; without it, it falls back to a slower loop."""
    try:
        import greenlet
        return greenlet.__version__
    except ImportError:
        return "absent (GPSampler's slower sequential L-BFGS-B)"


def child_env() -> dict:
    env = dict(os.environ)
    for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS"):
        env[v] = "1"
    return env


def journal_storage(path: Path) -> optuna.storages.JournalStorage:
    return optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(path)))


def parse_row(row: dict, space: dict, where: str) -> dict:
    """suggestions.csv's row as the study's parameters (checked against the space, clipped)."""
    if set(row) != set(space):
        raise BenchError(f"{where}: columns {sorted(row)} are not the study's parameters {sorted(space)}")
    params = {}
    for k, d in space.items():
        try:
            v = float(row[k])
        except ValueError:
            raise BenchError(f"{where}: {k}={row[k]!r} is not a number") from None
        tol = 1e-9 * (d.high - d.low)
        if not (d.low - tol <= v <= d.high + tol) or not math.isfinite(v):
            raise BenchError(f"{where}: {k}={v} outside [{d.low}, {d.high}]")
        params[k] = min(max(v, d.low), d.high)
    return params


def frozen(params: dict, space: dict, value: float) -> optuna.trial.FrozenTrial:
    return optuna.trial.create_trial(params=params, distributions=dict(space), value=value)


def tell_complete(study: optuna.Study, space: dict, points: list[dict], values: list[float]) -> None:
    """Adds complete trials to a journal study as a running study does: enqueue_trial, ask (which
    takes the enqueued parameters), tell. (Not `add_trial(create_trial(...))`: hpo's journal
    reader up to at least 8b72034 ignores the value of a trial created complete, op_code 4 with
    state COMPLETE and `value`, and so sees no complete trial in such a study.)"""
    for x, y in zip(points, values):
        study.enqueue_trial(x)
        trial = study.ask(dict(space))
        if trial.params != x:
            raise BenchError(f"the enqueued trial came back as {trial.params}, not {x}")
        study.tell(trial, y)


def gpsampler_ask(study: optuna.Study, space: dict) -> tuple[optuna.Trial, float]:
    """One GPSampler proposal: `study.ask(space)` timed; checks it came from sample_relative."""
    t0 = time.perf_counter()
    trial = study.ask(dict(space))
    dt = time.perf_counter() - t0
    rel = trial.relative_params  # already computed inside ask (the suggestions read it)
    if set(rel) != set(space):
        raise BenchError(f"GPSampler sampled {sorted(set(space) - set(rel))} independently (relative: {sorted(rel)}): not a GP proposal")
    return trial, dt


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_ms(s, digits=0):
    return "—" if s is None else f"{s * 1e3:,.{digits}f}"


# ------------------------------------------------------------------------------------- speed

def speed(args, hpo: Hpo, work: Path, log) -> tuple[str, list]:
    rows, raw = [], []
    load0 = " ".join(f"{x:.2f}" for x in os.getloadavg())
    cases = [(n, "study4") for n in args.sizes] + [(n, "study6") for n in args.sizes6]
    # Warm-up, not timed: GPSampler's lazy imports (optuna._gp, torch's first kernels) and hpo's
    # binary in the page cache.
    prob = PROBLEMS["study4"]
    warm = [frozen(x, prob.space, prob.f(x)) for x in prob.draw(np.random.default_rng(1), 20)]
    study = optuna.create_study(sampler=optuna.samplers.GPSampler(seed=0), direction="minimize")
    study.add_trials(warm)
    gpsampler_ask(study, prob.space)
    journal = work / "speed-warmup.log"
    if journal.exists():
        journal.unlink()
    tell_complete(optuna.create_study(study_name="speed", storage=journal_storage(journal), direction="minimize",
                                      sampler=optuna.samplers.RandomSampler(seed=0)),
                  prob.space, [t.params for t in warm], [t.value for t in warm])
    hpo.suggest(journal, "speed", "GP", 0, work / "speed-out")
    for n, pname in cases:
        prob = PROBLEMS[pname]
        journal = work / f"speed-{pname}-{n}.log"
        if journal.exists():
            journal.unlink()
        rng = np.random.default_rng([59, n, len(prob.space)])
        points = prob.draw(rng, n)
        st = optuna.create_study(study_name="speed", storage=journal_storage(journal), direction="minimize",
                                 sampler=optuna.samplers.RandomSampler(seed=0))
        tell_complete(st, prob.space, points, [prob.f(x) for x in points])
        loaded = optuna.load_study(study_name="speed", storage=journal_storage(journal)).get_trials(deepcopy=False)
        if len(loaded) != n:
            raise BenchError(f"the speed journal {journal} reads back {len(loaded)} trials, not {n}")
        times = {OPTUNA: [], "GP": []}
        engine: list = []
        capped = {OPTUNA: False, "GP": False}
        for rep in range(args.reps):
            # GPSampler: a fresh sampler and in-memory study with the journal's trials.
            if not capped[OPTUNA]:
                study = optuna.create_study(sampler=optuna.samplers.GPSampler(seed=rep), direction="minimize")
                study.add_trials(loaded)
                _, dt = gpsampler_ask(study, prob.space)
                times[OPTUNA].append(dt)
                capped[OPTUNA] = dt > args.speed_cap
                raw.append({"part": "speed", "tool": OPTUNA, "problem": pname, "trials": n, "rep": rep, "seconds": dt})
                log(f"speed {pname} n={n} rep={rep} {OPTUNA}: {dt * 1e3:,.0f} ms")
            if not capped["GP"]:
                _, dt, eng = hpo.suggest(journal, "speed", "GP", rep, work / "speed-out")
                times["GP"].append(dt)
                engine.append(eng)
                capped["GP"] = dt > args.speed_cap
                raw.append({"part": "speed", "tool": "hpo GP", "problem": pname, "trials": n, "rep": rep, "seconds": dt, "engine_seconds": eng})
                log(f"speed {pname} n={n} rep={rep} hpo GP: {dt * 1e3:,.0f} ms" + ("" if eng is None else f" (engine {eng * 1e3:,.0f} ms)"))

        def cell(ts, cap):
            if len(ts) == 1:
                return f"{fmt_ms(ts[0])} (1 run{f': over {args.speed_cap:.0f} s' if cap else ''})"
            return f"{fmt_ms(med(ts))} ({fmt_ms(min(ts))}–{fmt_ms(max(ts))})"
        ratio = med(times["GP"]) / med(times[OPTUNA])
        rows.append(f"| {n:,} | {len(prob.space)} ({sum(d.log for d in prob.space.values())} log) | "
                    f"{cell(times[OPTUNA], capped[OPTUNA])} | {cell(times['GP'], capped['GP'])} | {fmt_ms(med(engine))} | {ratio:.2f} |")
    # The floor: a process that only starts and prints.
    floor = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        subprocess.run([str(hpo.path), "--help"], capture_output=True, env=child_env(), check=False)
        floor.append(time.perf_counter() - t0)
    md = [
        f"Median of {args.reps} runs, the two tools alternating, one thread, `nice -n 5`; (min–max) in brackets. "
        "GPSampler: `study.ask(distributions)` on an in-memory study holding the journal's trials, a fresh "
        "`GPSampler(seed=rep)` each run (no cached kernel parameters), imports and study loading not timed. "
        "hpo: the whole `hpo suggest --method GP --n 1` process on the same journal "
        f"(an `hpo --help` process alone takes {fmt_ms(med(floor), 1)} ms). "
        "Parameters: lr, weight_decay (log), dropout, momentum (+ beta2, label_smoothing for 6). "
        f"Load average when it started / ended: {load0} / {' '.join(f'{x:.2f}' for x in os.getloadavg())}.",
        "",
        "| trials | params | GPSampler ms | hpo GP ms (whole process) | hpo engine ms | hpo / GPSampler |",
        "|---:|---|---:|---:|---:|---:|",
        *rows,
    ]
    raw.append({"part": "speed", "tool": "hpo --help", "seconds_median": med(floor)})
    return "\n".join(md), raw


# ----------------------------------------------------------------------------------- quality

def related_template(prob: Problem, seed: int, args, work: Path, log) -> Path:
    """A journal holding --related studies of 50 trials, written by Optuna (RandomSampler)."""
    path = work / f"related-{prob.name}-{seed}-{args.related}x{args.related_trials}-{args.related_spread:g}.log"
    if path.exists():
        return path
    rng = np.random.default_rng([seed, 7, len(prob.name)])
    storage = journal_storage(path)
    for r in range(args.related):
        g = prob.related(rng, args.related_spread)
        s = optuna.create_study(study_name=f"related-{r}", storage=storage, direction="minimize",
                                sampler=optuna.samplers.RandomSampler(seed=seed * 100 + r))
        space = prob.space

        def objective(trial, g=g, space=space):
            x = {k: trial.suggest_float(k, d.low, d.high, log=d.log) for k, d in space.items()}
            return g(x)
        s.optimize(objective, n_trials=args.related_trials)
    return path


def run_one(prob: Problem, method: str, seed: int, init: list, args, hpo: Hpo, work: Path, transfer: bool, log) -> dict:
    values = [prob.f(x) for x in init]
    steps_v, steps_t, steps_e = [], [], []
    if method == OPTUNA:
        study = optuna.create_study(sampler=optuna.samplers.GPSampler(seed=seed), direction="minimize")
        study.add_trials([frozen(x, prob.space, y) for x, y in zip(init, values)])
        for _ in range(args.steps):
            trial, dt = gpsampler_ask(study, prob.space)
            y = prob.f(trial.params)
            study.tell(trial, y)
            steps_v.append(y)
            steps_t.append(dt)
    else:
        d = work / f"{prob.name}-{seed}-{method.replace('+', 'p')}"
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        journal = d / "journal.log"
        if transfer:
            shutil.copyfile(related_template(prob, seed, args, work, log), journal)
        storage = journal_storage(journal)
        study = optuna.create_study(study_name="target", storage=storage, direction="minimize",
                                    sampler=optuna.samplers.RandomSampler(seed=seed))
        tell_complete(study, prob.space, init, values)
        for step in range(args.steps):
            row, dt, eng = hpo.suggest(journal, "target", method, seed * 1000 + step, d / "out")
            x = parse_row(row, prob.space, f"{method} on {prob.name}, seed {seed}, step {step}")
            y = prob.f(x)
            tell_complete(study, prob.space, [x], [y])
            steps_v.append(y)
            steps_t.append(dt)
            steps_e.append(eng)
        if not args.keep:
            shutil.rmtree(d)
    best = min(values + steps_v)
    return {"problem": prob.name, "method": method, "seed": seed, "init": len(init), "steps": args.steps,
            "values": [float(f"{v:.12g}") for v in steps_v], "seconds": [round(t, 6) for t in steps_t],
            "engine_seconds": None if all(e is None for e in steps_e) else steps_e,
            "init_best": min(values), "best": best, "regret": best - prob.fmin,
            "related": [args.related, args.related_trials, args.related_spread] if transfer else None}


def paired(a: list[float], b: list[float]) -> str:
    """'wins/ties/losses of a vs b (lower regret wins), Wilcoxon p (two-sided)'."""
    d = np.array(a) - np.array(b)
    scale = max(1e-12, float(np.max(np.abs(np.concatenate([a, b])))) if len(a) else 1.0)
    ties = np.abs(d) <= 1e-9 * scale
    wins, losses = int(np.sum((d < 0) & ~ties)), int(np.sum((d > 0) & ~ties))
    if wins + losses == 0:
        p = "— (all tied)"
    else:
        try:
            res = wilcoxon(np.where(ties, 0.0, d), zero_method="wilcox", alternative="two-sided")
            p = f"{res.pvalue:.3g}"
        except ValueError as e:
            p = f"— ({e})"
    return f"{wins}/{int(np.sum(ties))}/{losses} | {float(np.median(d)):+.4g} | {p}"


def quality(args, hpo: Hpo, work: Path, log, resume: dict) -> tuple[str, list]:
    results = []
    methods = args.methods
    for seed in args.seed_list:
        for pname in args.problems:
            prob = PROBLEMS[pname]
            rng = np.random.default_rng([seed, 1234])
            init = prob.draw(rng, args.init)
            for method in methods:
                key = (pname, method, seed)
                if key in resume:
                    results.append(resume[key])
                    continue
                t0 = time.perf_counter()
                transfer = method in args.transfer_methods
                r = run_one(prob, method, seed, init, args, hpo, work, transfer, log)
                r["wall"] = time.perf_counter() - t0
                results.append(r)
                if args.journal_fh is not None:
                    args.journal_fh.write(json.dumps(r) + "\n")
                    args.journal_fh.flush()
                log(f"quality {pname} seed={seed} {method}: regret {r['regret']:.4g} (initial {r['init_best'] - prob.fmin:.4g}), "
                    f"median step {med(r['seconds']) * 1e3:,.0f} ms, {time.perf_counter() - t0:,.1f} s")
    reused = sum(1 for r in results if (r["problem"], r["method"], r["seed"]) in resume)
    md = [(f"{reused} of these {len(results)} runs were reused from {args.resume} (--resume), not run again. " if reused else "") +
          f"{len(args.seed_list)} seeds (seeds {args.seed_list[0]}–{args.seed_list[-1]}) × {args.steps} steps after a shared "
          f"initial design of {args.init} random points per seed; regret = best value found − known minimum (initial design "
          f"included). Transfer methods ({', '.join(m for m in methods if m in args.transfer_methods) or 'none run'}) see "
          f"{args.related} related studies × {args.related_trials} random trials in the journal (related spread {args.related_spread:g}). Step time: GPSampler's "
          f"`study.ask` (one sampler for the run, kernel parameters cached as Optuna does); hpo's whole `suggest --n 1` process. "
          f"Paired tests: wins/ties/losses of the first method (lower final regret wins), median of the regret differences "
          f"(first − second), Wilcoxon signed-rank p (two-sided)."]
    for pname in args.problems:
        prob = PROBLEMS[pname]
        by = {m: sorted((r for r in results if r["problem"] == pname and r["method"] == m), key=lambda r: r["seed"]) for m in methods}
        md += ["", f"#### {prob.title}: min {prob.fmin:g}", "",
               "| method | mean final regret | median final regret | median regret after 5 / 10 steps | median regret of the initial design | median step ms | seeds |",
               "|---|---:|---:|---:|---:|---:|---:|"]
        for m in methods:
            rs = by[m]
            if not rs:
                continue
            reg = [r["regret"] for r in rs]
            steps = [t for r in rs for t in r["seconds"]]
            # Where a transfer method shows what it learned: early, not only at the end.
            early = " / ".join(f"{statistics.median(min([r['init_best'], *r['values'][:k]]) - prob.fmin for r in rs):.3g}" for k in (5, 10))
            md.append(f"| {m} | {statistics.mean(reg):.4g} | {statistics.median(reg):.4g} | {early} | "
                      f"{statistics.median(r['init_best'] - prob.fmin for r in rs):.4g} | {fmt_ms(med(steps))} | {len(rs)} |")
        pairs = []
        hpo_methods = [m for m in methods if m != OPTUNA]
        if OPTUNA in methods:
            pairs += [(m, OPTUNA) for m in hpo_methods]
        for t in [m for m in methods if m in args.transfer_methods]:
            pairs += [(t, m) for m in hpo_methods if m != t and m not in args.transfer_methods]
        if pairs:
            md += ["", "| paired test | wins/ties/losses | median Δ regret | Wilcoxon p |", "|---|---:|---:|---:|"]
            for a, b in pairs:
                sa = {r["seed"]: r["regret"] for r in by[a]}
                sb = {r["seed"]: r["regret"] for r in by[b]}
                common = sorted(set(sa) & set(sb))
                if common:
                    md.append(f"| {a} vs {b} | {paired([sa[s] for s in common], [sb[s] for s in common])} |")
    return "\n".join(md), results


# ------------------------------------------------------------------------------- comparison

def compare(base: dict, raw: dict, log) -> str:
    """This run's hpo against an earlier run's (its .json): speed per size, and per problem and
    hpo method the final regrets paired by seed (same steps and initial design only)."""
    md = [f"This hpo (`{raw['hpo']}`, sha256 {raw['hpo_sha256']}) against the earlier run's "
          f"(`{base['hpo']}`, sha256 {base['hpo_sha256']}); the earlier GPSampler numbers are there for context only."]
    def speeds(rows, tool):
        out = {}
        for r in rows:
            if r.get("tool") == tool and "trials" in r:
                out.setdefault((r["problem"], r["trials"]), []).append(r["seconds"])
        return out
    before, now = speeds(base.get("speed", []), "hpo GP"), speeds(raw.get("speed", []), "hpo GP")
    opt_before, opt_now = speeds(base.get("speed", []), OPTUNA), speeds(raw.get("speed", []), OPTUNA)
    keys = sorted(set(before) & set(now), key=lambda k: (len(PROBLEMS[k[0]].space), k[1]))
    if keys:
        md += ["", "| trials | params | hpo GP before ms | hpo GP now ms | now / before | GPSampler then / now ms |", "|---:|---:|---:|---:|---:|---:|"]
        for k in keys:
            b, n = med(before[k]), med(now[k])
            md.append(f"| {k[1]:,} | {len(PROBLEMS[k[0]].space)} | {fmt_ms(b)} | {fmt_ms(n)} | {n / b:.2f} | "
                      f"{fmt_ms(med(opt_before.get(k, [])))} / {fmt_ms(med(opt_now.get(k, [])))} |")
    qb = {(r["problem"], r["method"], r["seed"]): r for r in base.get("quality", [])}
    qn = {(r["problem"], r["method"], r["seed"]): r for r in raw.get("quality", [])}
    pm = sorted({(p, m) for (p, m, _) in qn if m != OPTUNA} & {(p, m) for (p, m, _) in qb})
    rows = []
    for p, m in pm:
        seeds = sorted(s for (pp, mm, s) in qn if (pp, mm) == (p, m) and (p, m, s) in qb
                       and qb[(p, m, s)]["steps"] == qn[(p, m, s)]["steps"] and qb[(p, m, s)]["init"] == qn[(p, m, s)]["init"])
        if not seeds:
            continue
        rb = [qb[(p, m, s)]["regret"] for s in seeds]
        rn = [qn[(p, m, s)]["regret"] for s in seeds]
        tb = med([t for s in seeds for t in qb[(p, m, s)]["seconds"]])
        tn = med([t for s in seeds for t in qn[(p, m, s)]["seconds"]])
        rows.append(f"| {p} | {m} | {len(seeds)} | {statistics.mean(rb):.4g} / {statistics.median(rb):.4g} | "
                    f"{statistics.mean(rn):.4g} / {statistics.median(rn):.4g} | {paired(rn, rb)} | {fmt_ms(tb)} / {fmt_ms(tn)} |")
    if rows:
        md += ["", "Final regret paired by seed (now vs before: wins/ties/losses of now, median Δ = now − before, Wilcoxon p two-sided).", "",
               "| problem | method | seeds | before mean / median | now mean / median | wins/ties/losses | median Δ regret | Wilcoxon p | step ms before / now |",
               "|---|---|---:|---:|---:|---:|---:|---:|---:|", *rows]
    return "\n".join(md)


# -------------------------------------------------------------------------------------- main

def csv_list(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog="See the module docstring for what is timed and how.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hpo", type=Path, default=DEFAULT_HPO, help=f"the hpo binary (default {DEFAULT_HPO})")
    ap.add_argument("--out", type=Path, default=REPO / "results/gp-vs-optuna.md", help="the Markdown report (default results/gp-vs-optuna.md); raw numbers go beside it as .json")
    ap.add_argument("--part", choices=["all", "speed", "quality"], default="all")
    ap.add_argument("--sizes", default="50,100,200,400,1000", help="speed: trial counts of the 4-parameter study")
    ap.add_argument("--sizes6", default="200", help="speed: trial counts of the 6-parameter study ('' for none)")
    ap.add_argument("--reps", type=int, default=5, help="speed: repetitions per size and tool (medians)")
    ap.add_argument("--speed-cap", type=float, default=60.0, help="speed: a tool whose run takes longer (s) is run once at that size")
    ap.add_argument("--seeds", default="20", help="quality: a count N (seeds 0..N-1) or a list a,b,c")
    ap.add_argument("--steps", type=int, default=30, help="quality: proposals per run")
    ap.add_argument("--init", type=int, default=10, help="quality: shared initial design size")
    ap.add_argument("--problems", default="branin,hartmann6,study4", help=f"quality: of {','.join(PROBLEMS)}")
    ap.add_argument("--methods", default=f"{OPTUNA},GP,GCP,GCP+prior", help=f"quality: {OPTUNA} and any `hpo suggest` methods")
    ap.add_argument("--transfer-methods", default="GCP+prior,CTS,WS-GP,SGPT,ABLR",
                    help="methods that get related studies in their journal")
    ap.add_argument("--related", type=int, default=4, help="quality: related studies per journal for transfer methods")
    ap.add_argument("--related-trials", type=int, default=50, help="quality: complete trials per related study")
    ap.add_argument("--related-spread", type=float, default=1.0,
                    help="quality: how far the related studies' optima move (1: as documented; 0: the problem itself, up to an affine map of the output)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds before one hpo call counts as failed")
    ap.add_argument("--engine-time-regex", default=r"(?i)(?:engine|suggest(?:ed|ion)?s?)[^\n]*?\bin\s+(?P<value>[\d.,]+)\s*(?P<unit>ms|s)\b",
                    help="a regex on hpo's stderr with groups value and unit (ms or s): the engine's own time, if it prints it ('' to skip)")
    ap.add_argument("--workdir", type=Path, default=None, help="scratch (default: a fresh directory in /dev/shm or the temporary one, removed at the end)")
    ap.add_argument("--keep", action="store_true", help="keep the per-run journals in the workdir")
    ap.add_argument("--resume", type=Path, default=None, help="quality: finished runs to reuse, not run again: the .quality.jsonl written next to --out as runs finish "
                    "(removed when the run completes) or a finished run's .json (same --steps and --init; the hpo binary is not checked)")
    ap.add_argument("--title", default=None, help="the report's heading")
    ap.add_argument("--compare-to", type=Path, default=None,
                    help="an earlier run's .json (e.g. results/gp-vs-optuna-baseline.json): adds this hpo vs that one (speed; regrets paired by seed)")
    args = ap.parse_args()

    if os.nice(0) < 5:
        os.nice(5 - os.nice(0))
    args.sizes = [int(x) for x in csv_list(args.sizes)]
    args.sizes6 = [int(x) for x in csv_list(args.sizes6)]
    args.seed_list = list(range(int(args.seeds))) if "," not in args.seeds and args.seeds.isdigit() else [int(x) for x in csv_list(args.seeds)]
    args.problems = csv_list(args.problems)
    args.methods = csv_list(args.methods)
    args.transfer_methods = set(csv_list(args.transfer_methods))
    for p in args.problems:
        if p not in PROBLEMS:
            ap.error(f"unknown problem {p!r} (known: {', '.join(PROBLEMS)})")
    hpo_path = args.hpo.resolve()
    if not (hpo_path.is_file() and os.access(hpo_path, os.X_OK)):
        ap.error(f"no executable hpo at {hpo_path} (build it: cargo build --release --bin hpo, or pass --hpo PATH)")
    engine_re = re.compile(args.engine_time_regex) if args.engine_time_regex else None
    hpo = Hpo(hpo_path, args.timeout, engine_re)
    self_check()

    started = time.time()
    t_start = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t_start:7.1f} s] {msg}", file=sys.stderr, flush=True)

    # Scratch on tmpfs where there is one: Optuna's journal fsyncs every operation (~5 ms on
    # this disk), which only slows the setting up of the studies (never timed).
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-gp-optuna-", dir=shm))
    work.mkdir(parents=True, exist_ok=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    jsonl = args.out.with_suffix(".quality.jsonl")
    resume = {}
    if args.resume is not None:
        text = args.resume.read_text()
        done = json.loads(text)["quality"] if args.resume.suffix == ".json" else [json.loads(line) for line in text.splitlines() if line.strip()]
        for r in done:
            rel = r.get("related") or [4, 50, 1.0]
            if r["steps"] == args.steps and r["init"] == args.init and (r["method"] not in args.transfer_methods or rel == [args.related, args.related_trials, args.related_spread]):
                resume[(r["problem"], r["method"], r["seed"])] = r
        log(f"resuming: {len(resume)} finished runs from {args.resume}")
    args.journal_fh = None

    sha = hashlib.sha256(hpo_path.read_bytes()).hexdigest()[:12]
    version = hpo.version()
    mtime = datetime.datetime.fromtimestamp(hpo_path.stat().st_mtime, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = [
        f"### {args.title or 'Our GP vs Optuna GPSampler'}",
        "",
        f"Run {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} by `scripts/bench-gp-optuna.py "
        f"{' '.join(sys.argv[1:])}`; hpo `{hpo_path}` ({version + ', ' if version != '?' else ''}built {mtime}, sha256 {sha}); "
        f"Optuna {optuna.__version__}, torch {torch.__version__}, SciPy {scipy.__version__}, NumPy {np.__version__}, greenlet {greenlet_version()}, "
        f"Python {platform.python_version()}; {os.cpu_count()} cores shared, every tool on one thread.",
    ]
    sections, raw = [], {"speed": [], "quality": []}
    timing = {}
    try:
        if args.part in ("all", "speed"):
            t0 = time.perf_counter()
            md, raw["speed"] = speed(args, hpo, work, log)
            timing["speed"] = time.perf_counter() - t0
            sections += ["", "#### Speed: ms per proposal", "", md]
            print("\n".join(sections[-3:]) + "\n", flush=True)
        if args.part in ("all", "quality"):
            t0 = time.perf_counter()
            args.journal_fh = open(jsonl, "a" if args.resume is not None and args.resume.resolve() == jsonl.resolve() else "w")
            md, raw["quality"] = quality(args, hpo, work, log, resume)
            # Runs resumed from an earlier invocation count with the time they took then.
            timing["quality"] = time.perf_counter() - t0 + sum(r.get("wall", 0.0) for r in resume.values())
            sections += ["", "#### Quality: final regret", "", md]
    except BenchError as e:
        print(f"\nbench-gp-optuna: FAILED: {e}", file=sys.stderr, flush=True)
        print(f"(scratch kept in {work})", file=sys.stderr)
        return 1
    finally:
        if args.journal_fh is not None:
            args.journal_fh.close()
    raw_all = {"argv": sys.argv[1:], "hpo": str(hpo_path), "hpo_sha256": sha, "started": started, "timing_seconds": timing, **raw}
    if args.compare_to is not None:
        base = json.loads(args.compare_to.read_text())
        sections += ["", f"#### This hpo vs the one of {args.compare_to.name}", "", compare(base, raw_all, log)]
    took = ", ".join(f"{k} {v / 60:.1f} min" for k, v in timing.items())
    report = "\n".join(head + [f"Took {took}."] + sections) + "\n"
    args.out.write_text(report)
    args.out.with_suffix(".json").write_text(json.dumps(raw_all, separators=(",", ":")) + "\n")
    print(report)
    log(f"wrote {args.out} and {args.out.with_suffix('.json')}")
    if "quality" in timing and jsonl.exists():
        jsonl.unlink()  # its runs are in the .json now
    if args.workdir is None and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
