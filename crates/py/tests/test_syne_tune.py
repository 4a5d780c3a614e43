"""hpo_playground.syne_tune.Scheduler in a real Syne Tune 0.16 run (LocalBackend: each trial a
process running syne_tune_train.py), where trials are paused and resumed."""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsRegressor
from syne_tune import StoppingCriterion, Tuner
from syne_tune.backend import LocalBackend
from syne_tune.backend.simulator_backend.simulator_callback import SimulatorCallback
from syne_tune.backend.trial_status import Trial
from syne_tune.blackbox_repository.blackbox_surrogate import add_surrogate
from syne_tune.blackbox_repository.blackbox_tabular import BlackboxTabular
from syne_tune.blackbox_repository.simulated_tabular_backend import UserBlackboxBackend
from syne_tune.config_space import choice, loguniform, randint
from syne_tune.optimizer.scheduler import SchedulerDecision
import pandas as pd

from hpo_playground.syne_tune import Scheduler

CONFIG_SPACE = {"lr": loguniform(1e-4, 1.0), "width": randint(8, 256), "epochs": 9}


class Recording(Scheduler):
    """The scheduler, keeping every result and decision, every configuration it handed out
    that was in training already, and the most requests it had outstanding at once (what the
    assertions read)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log: list[tuple[int, dict, str]] = []
        self.overlaps: list[int] = []
        self.most_in_training = 0

    def suggest(self):
        before = {c for c, _, _ in self.session.in_training()}
        suggestion = super().suggest()
        now = {c for c, _, _ in self.session.in_training()}
        if suggestion is not None and len(now - before) != 1:
            self.overlaps.append(len(now - before))  # no new configuration: one handed out twice
        self.most_in_training = max(self.most_in_training, len(now))
        return suggestion

    def on_trial_result(self, trial, result):
        decision = super().on_trial_result(trial, result)
        self.log.append((trial.trial_id, dict(result), decision))
        return decision


# The scheduler's arguments both local runs share: syne_tune_train.py reports `loss` per `epoch`
# up to its `epochs` config value.
LOCAL_RUN = dict(
    metric="loss",
    mode="min",
    max_t=9,
    resource_attr="epoch",
    max_resource_attr="epochs",
    seed=0,
    n_configs=64,
)


def run_locally(scheduler, max_num_evaluations, **tuner_options):
    """Runs `syne_tune_train.py` under Syne Tune's local backend with `scheduler` until it has
    reported `max_num_evaluations` results."""
    Tuner(
        trial_backend=LocalBackend(entry_point=str(Path(__file__).parent / "syne_tune_train.py")),
        scheduler=scheduler,
        stop_criterion=StoppingCriterion(max_num_evaluations=max_num_evaluations),
        sleep_time=0.1,
        results_update_interval=60,
        save_tuner=False,
        **tuner_options,
    ).run()


def test_a_local_run_pauses_and_resumes_trials(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNETUNE_FOLDER", str(tmp_path))
    # Syne Tune's GPU count writes nvidia-smi's output to std.out in the working directory.
    monkeypatch.chdir(tmp_path)
    scheduler = Recording(
        CONFIG_SPACE,
        "ASHA",
        **LOCAL_RUN,
    )
    run_locally(scheduler, max_num_evaluations=40, n_workers=2)
    paused = {tid for tid, _, d in scheduler.log if d == SchedulerDecision.PAUSE}
    resumed = {tid for tid, r, _ in scheduler.log if r["resumed_from"] > 0}
    assert paused, "some trial was paused"
    assert resumed & paused, "a paused trial was resumed from its checkpoint"
    # Every report the method saw continues its trial's curve where it paused.
    for tid in resumed:
        epochs = [r["epoch"] for t, r, _ in scheduler.log if t == tid]
        assert epochs == list(range(1, len(epochs) + 1)), epochs
    assert scheduler.metric_names() == ["loss"] and scheduler.metric_mode() == "min"


def test_a_trial_that_errors_is_released_and_a_synchronous_rung_goes_on(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNETUNE_FOLDER", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    # Hyperband on 9 epochs: a first rung of 9 configurations at epoch 1, the best 3 go on to
    # 3, the best one to 9 (21 epochs). The script fails the configurations with lr > 0.1.
    scheduler = Recording(
        {**CONFIG_SPACE, "fail_lr_above": 0.1},
        "Hyperband",
        **LOCAL_RUN,
        total_budget=21,
    )
    run_locally(scheduler, max_num_evaluations=100, n_workers=1, max_failures=100)
    session = scheduler.session
    failed = session.failed()
    assert failed and all(session.params(c)["lr"] > 0.1 for c in failed)
    assert session.in_training() == []
    # Without the release the rung waited for the failed trials and the run ended at epoch 1.
    assert max(r["epoch"] for _, r, _ in scheduler.log) == 9
    assert session.finished and session.best[3] == min(r["loss"] for _, r, _ in scheduler.log)


def test_a_local_run_with_nan_trials_goes_on_and_spends_its_budget(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("SYNETUNE_FOLDER", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    # ASHA on 9 epochs; the script reports a NaN loss for the configurations with lr > 0.05
    # (about a third of them). Before, the first NaN raised out of on_trial_result and ended
    # the tuning; now each such trial is stopped, its configuration released, and the run
    # spends the whole budget on the others.
    # One worker: with two, the order their results came in decided whether the last unit was
    # handed out before the tuner stopped (a full run here ended with 1 of its 10 units left).
    scheduler = Recording({**CONFIG_SPACE, "nan_lr_above": 0.05}, "ASHA", **LOCAL_RUN, total_budget=10)
    run_locally(scheduler, max_num_evaluations=200, n_workers=1)
    session = scheduler.session
    nan_results = [(tid, d) for tid, r, d in scheduler.log if math.isnan(r["loss"])]
    assert nan_results and all(d == SchedulerDecision.STOP for _, d in nan_results)
    failed = session.failed()
    assert failed and all(session.params(c)["lr"] > 0.05 for c in failed)
    assert spent_it_all(scheduler, 10), (session.remaining, session.in_training())
    assert "reported NaN at budget step 1" in caplog.text


def spent_it_all(scheduler, total_budget):
    """The whole budget was handed out and told, with nothing left in training."""
    session = scheduler.session
    told = sum(session.reached(c) for c in range(session.n_configs))
    return (told, session.remaining, session.in_training(), session.finished) == (total_budget, 0, [], True)


def test_hyperband_with_four_local_workers_spends_the_whole_budget(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNETUNE_FOLDER", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    # Hyperband on 9 epochs: its first rung trains 9 configurations to epoch 1. With four
    # workers the rung's last members are still training when workers free up; the scheduler
    # starts the next bracket's first rung then (before, it returned None and Syne Tune ended
    # the tuning after the first rung: 9 of the 45 epochs).
    scheduler = Recording(CONFIG_SPACE, "Hyperband", **LOCAL_RUN, total_budget=45)
    run_locally(scheduler, max_num_evaluations=1000, n_workers=4)
    assert spent_it_all(scheduler, 45), (scheduler.session.remaining, scheduler.session.in_training())
    assert scheduler.overlaps == [] and scheduler.most_in_training == 4
    assert max(r["epoch"] for _, r, _ in scheduler.log) == 9


def synthetic_blackbox(space, rng):
    """Syne Tune's tabular blackbox of 200 configurations of `space` with the curves of
    syne_tune_train.py (one simulated time unit per epoch), answered for any configuration by
    its nearest neighbour (Syne Tune's own surrogate wrapper), as scripts/bench-py-synetune.py
    builds LCBench's."""
    lr = 10 ** rng.uniform(-4, 0, 200)
    width = rng.integers(8, 257, 200)
    floor = (np.log10(lr) + 2) ** 2 + ((width - 64) / 64) ** 2
    epochs = np.arange(1, 10)
    evaluations = np.empty((200, 1, 9, 2))
    evaluations[:, 0, :, 0] = floor[:, None] + (1.0 - floor[:, None] / 4) / epochs
    evaluations[:, 0, :, 1] = epochs
    table = pd.DataFrame({"lr": lr, "width": width})
    tabular = BlackboxTabular(
        hyperparameters=table,
        configuration_space={k: choice(sorted(set(table[k].tolist()))) for k in table},
        fidelity_space={"epoch": randint(1, 9)},
        objectives_evaluations=evaluations,
        objectives_names=["loss", "elapsed_time"],
    )
    return add_surrogate(tabular, surrogate=KNeighborsRegressor(n_neighbors=1), configuration_space=space)


def test_four_simulated_workers_spend_the_whole_budget_for_synchronous_and_asynchronous_methods(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNETUNE_FOLDER", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    space = {"lr": loguniform(1e-4, 1.0), "width": randint(8, 256)}
    blackbox = synthetic_blackbox(space, np.random.default_rng(0))
    # Hyperband and BOHB (synchronous rungs: before, they ended the tuning at their first
    # rung), ASHA and GPB (IC) (asynchronous; GPB's design plans a configuration at several
    # budgets, which made it wait too).
    for method in ["Hyperband", "BOHB", "ASHA", "GPB (IC)"]:
        scheduler = Recording({**space, "epochs": 9}, method, **LOCAL_RUN, total_budget=90)
        Tuner(
            trial_backend=UserBlackboxBackend(blackbox=blackbox, elapsed_time_attr="elapsed_time", max_resource_attr="epochs", seed=0),
            scheduler=scheduler,
            stop_criterion=StoppingCriterion(max_num_evaluations=1000),
            n_workers=4,
            sleep_time=0,
            results_update_interval=1e9,
            print_update_interval=1e9,
            callbacks=[SimulatorCallback()],
            save_tuner=False,
            tuner_name=f"workers-{method.split()[0].lower()}",
        ).run()
        assert spent_it_all(scheduler, 90), (method, scheduler.session.remaining, scheduler.session.in_training())
        assert scheduler.overlaps == [] and scheduler.most_in_training == 4, method


def test_a_wait_the_method_cannot_avoid_is_logged_with_its_reason(caplog):
    # 12 configurations, Hyperband on 9 epochs, nothing reported: the first bracket's rung
    # takes 9 at epoch 1 and the next bracket 3 at epoch 3; every configuration is started and
    # each rung waits for running trials. Syne Tune 0.16 reads the None as the end of the
    # search, so the scheduler says why, with the budget left.
    scheduler = Scheduler(CONFIG_SPACE, "Hyperband", metric="loss", max_t=9, seed=0, n_configs=12, total_budget=100)
    started = 0
    while (suggestion := scheduler.suggest()) is not None:
        scheduler.on_trial_add(Trial(trial_id=started, config=suggestion.config, creation_time=datetime.now()))
        started += 1
    assert started == 12 and not scheduler.session.finished
    assert "waits for trials [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]" in caplog.text, caplog.text
    assert "with 82 budget units left: raise n_configs" in caplog.text, caplog.text


def test_on_trial_error_releases_the_trial_s_configuration():
    scheduler = Scheduler(CONFIG_SPACE, "ASHA", metric="loss", max_t=9, seed=0, n_configs=64)
    suggestion = scheduler.suggest()
    trial = Trial(trial_id=0, config=suggestion.config, creation_time=datetime.now())
    scheduler.on_trial_add(trial)
    ((config, _, _),) = scheduler.session.in_training()
    scheduler.on_trial_error(trial)
    assert scheduler.session.failed() == [config] and scheduler.session.in_training() == []
    scheduler.on_trial_error(trial)  # reported twice: nothing more to release
    # A script that ends before its request's budget is released the same way.
    trial = Trial(trial_id=1, config=scheduler.suggest().config, creation_time=datetime.now())
    scheduler.on_trial_add(trial)
    scheduler.on_trial_complete(trial, {})
    assert len(scheduler.session.failed()) == 2


def test_unsupported_domains_and_modes_are_refused():
    with pytest.raises(ValueError, match="mode"):
        Scheduler(CONFIG_SPACE, "ASHA", metric="loss", mode="lowest", max_t=9)
    with pytest.raises(ValueError, match="not a multi-fidelity method"):
        Scheduler(CONFIG_SPACE, "GCP", metric="loss", max_t=9)
    scheduler = Scheduler({"opt": choice(["adam", "sgd"]), "x": randint(1, 3)}, "ASHA", metric="loss", max_t=3)
    assert scheduler.suggest().config["opt"] in ("adam", "sgd")
