"""The sampler through OptunaHub, on a two-parameter function: run from this folder's
registry root after ``pip install crates/py optunahub`` (the wheel is not on PyPI)."""

from __future__ import annotations

import math
import os

import optuna
import optunahub


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 10.0)
    y = trial.suggest_float("y", 0.0, 15.0)
    # Branin: three global minima of 0.397887.
    return (y - 5.1 / (4 * math.pi**2) * x**2 + 5 / math.pi * x - 6) ** 2 + 10 * (
        1 - 1 / (8 * math.pi)
    ) * math.cos(x) + 10


registry_root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
module = optunahub.load_local_module(package="samplers/hpo_playground", registry_root=registry_root)
study = optuna.create_study(sampler=module.Sampler(method="GP", seed=0))
study.optimize(objective, n_trials=30)
print(f"best value {study.best_value:.6f} at {study.best_params}")
