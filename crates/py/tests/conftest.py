"""Shared pieces of the package's tests: a study's search space and objective, and its storages."""

from __future__ import annotations

import math
from collections.abc import Callable

import optuna
import pytest

optuna.logging.set_verbosity(optuna.logging.WARNING)


def suggest_space(trial: optuna.Trial) -> dict:
    """One parameter of each kind Optuna has: log float, stepped float, stepped int, log int,
    categorical."""
    return {
        "lr": trial.suggest_float("lr", 1e-5, 1e-1, log=True),
        "dropout": trial.suggest_float("dropout", 0.0, 0.5, step=0.05),
        "units": trial.suggest_int("units", 32, 512, step=32),
        "layers": trial.suggest_int("layers", 1, 16, log=True),
        "optimizer": trial.suggest_categorical("optimizer", ["adam", "sgd", "rmsprop"]),
    }


def objective(trial: optuna.Trial) -> float:
    p = suggest_space(trial)
    return (
        (math.log10(p["lr"]) + 3) ** 2
        + (p["dropout"] - 0.2) ** 2
        + ((p["units"] - 256) / 256) ** 2
        + (math.log2(p["layers"]) - 2) ** 2 / 4
        + {"adam": 0.0, "sgd": 0.5, "rmsprop": 0.2}[p["optimizer"]]
    )


def assert_in_space(params: dict) -> None:
    """Every distribution respected: bounds, log, steps, integers, choices."""
    assert 1e-5 <= params["lr"] <= 1e-1
    assert 0.0 <= params["dropout"] <= 0.5
    assert abs(params["dropout"] / 0.05 - round(params["dropout"] / 0.05)) < 1e-9
    assert isinstance(params["units"], int) and 32 <= params["units"] <= 512
    assert (params["units"] - 32) % 32 == 0
    assert isinstance(params["layers"], int) and 1 <= params["layers"] <= 16
    assert params["optimizer"] in ("adam", "sgd", "rmsprop")


@pytest.fixture(params=["journal", "sqlite"])
def storage(request, tmp_path) -> optuna.storages.BaseStorage | str:
    if request.param == "journal":
        backend = optuna.storages.journal.JournalFileBackend(str(tmp_path / "journal.log"))
        return optuna.storages.JournalStorage(backend)
    return f"sqlite:///{tmp_path / 'study.db'}"


def journal_storage(path) -> optuna.storages.JournalStorage:
    return optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(path)))


Objective = Callable[[optuna.Trial], float]


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory):
    """A two-node local Ray cluster of the tests' own (ray_cluster.py), started once for the Ray
    Tune tests and the README's Ray Tune examples, and stopped with every process of it."""
    from ray_cluster import LocalCluster, running

    with LocalCluster(tmp_path_factory.mktemp("ray"), cpus_per_node=2) as cluster:
        yield cluster
        alive = cluster.processes()
    # Still running, and still that process: not a zombie (ended, its status not yet read) nor
    # a new process given a pid of the cluster's.
    left = [pid for pid, cmdline in alive.items() if running(pid, cmdline)]
    assert not left, f"processes of the test cluster outlived it: {left}"
