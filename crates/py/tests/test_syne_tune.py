"""hpo_playground.syne_tune.Scheduler in a real Syne Tune 0.16 run (LocalBackend: each trial a
process running syne_tune_train.py), where trials are paused and resumed."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from syne_tune import StoppingCriterion, Tuner
from syne_tune.backend import LocalBackend
from syne_tune.backend.trial_status import Trial
from syne_tune.config_space import choice, loguniform, randint
from syne_tune.optimizer.scheduler import SchedulerDecision

from hpo_playground.syne_tune import Scheduler

CONFIG_SPACE = {"lr": loguniform(1e-4, 1.0), "width": randint(8, 256), "epochs": 9}


class Recording(Scheduler):
    """The scheduler, keeping every result and decision (what the assertions read)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log: list[tuple[int, dict, str]] = []

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
