"""MultiFidelity (ask/tell) and optimize_multi_fidelity on Optuna storages."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
from conftest import journal_storage

import hpo_playground
from hpo_playground import MultiFidelity
from hpo_playground.optuna import optimize_multi_fidelity

HPO = os.environ.get("HPO_BIN", str(Path(__file__).resolve().parents[3] / "target/release/hpo"))

# Every kind of parameter, in the three forms a space accepts.
SPACE = {
    "lr": optuna.distributions.FloatDistribution(1e-4, 1.0, log=True),
    "width": {"type": "int", "low": 8, "high": 256, "step": 8},
    "optimizer": ["adam", "sgd"],
}


def curve(params: dict, step: int) -> float:
    """A learning-curve family: the loss falls with the budget towards a floor the parameters
    set (best near lr = 1e-2, width 64, adam); bad configurations start well."""
    floor = (
        (math.log10(params["lr"]) + 2) ** 2
        + ((params["width"] - 64) / 64) ** 2
        + (0.3 if params["optimizer"] == "sgd" else 0.0)
    )
    return floor + (1.0 - floor / 4) / step


def run(method: str, seed: int, total_budget: int = 60, max_budget: int = 9):
    mf = MultiFidelity(
        SPACE, method, max_budget=max_budget, seed=seed, total_budget=total_budget, n_configs=256
    )
    asked = []
    while (a := mf.ask()) is not None:
        config, params, budget = a
        asked.append((config, budget))
        for step in range(mf.reached(config) + 1, budget + 1):
            mf.tell(config, step, curve(params, step))
    assert mf.finished
    return mf, asked


@pytest.mark.parametrize("method", ["DyHPO", "GPB (IC)", "ASHA", "Hyperband"])
def test_ask_tell_finds_a_good_configuration_deterministically(method):
    mf, asked = run(method, seed=1, total_budget=120)
    # The best configuration trained to the full budget is in the best quarter of those raced
    # (120 steps: the budget of 13 full trainings, among 256 configurations).
    finals = sorted(curve(mf.params(c), 9) for c in range(mf.n_configs))
    config, params, budget, value = mf.best
    assert value == curve(params, budget)
    reached_full = [c for c, b in asked if b == 9]
    assert reached_full, f"{method} trained nothing to the full budget"
    best_full = min(curve(mf.params(c), 9) for c in reached_full)
    assert best_full <= finals[len(finals) // 4], (best_full, finals[len(finals) // 4])
    assert run(method, seed=1, total_budget=120)[1] == asked, "the same tells give the same asks"
    assert run(method, seed=2, total_budget=120)[1] != asked


@pytest.mark.parametrize("method", ["DyHPO", "ASHA", "GPB (IC)"])
def test_parallel_asks_never_hand_out_a_configuration_in_training(method):
    mf = MultiFidelity(SPACE, method, max_budget=5, seed=0, total_budget=40, n_configs=128)
    outstanding: dict[int, tuple[dict, int]] = {}
    while not mf.finished:
        while len(outstanding) < 3 and (a := mf.ask()) is not None:
            config, params, budget = a
            assert config not in outstanding, f"{config} handed out twice"
            outstanding[config] = (params, budget)
        assert sorted(c for c, _, _ in mf.in_training()) == sorted(outstanding)
        if not outstanding:
            break
        config = next(iter(outstanding))  # the oldest worker reports
        params, budget = outstanding.pop(config)
        for step in range(mf.reached(config) + 1, budget + 1):
            mf.tell(config, step, curve(params, step))


def test_bad_input_raises_clear_exceptions():
    with pytest.raises(ValueError, match="unknown method 'DyHPQ'") as e:
        MultiFidelity(SPACE, "DyHPQ", max_budget=5)
    # The message lists the registry's multi-fidelity methods.
    for name in hpo_playground.methods()["multi_fidelity"]:
        assert name in str(e.value)
    assert {"DyHPO", "GPB (IC)", "ASHA", "Hyperband"} <= set(hpo_playground.methods()["multi_fidelity"])
    with pytest.raises(ValueError, match="not a multi-fidelity method"):
        MultiFidelity(SPACE, "GP", max_budget=5)
    with pytest.raises(ValueError, match="direction"):
        MultiFidelity(SPACE, "ASHA", max_budget=5, direction="down")
    with pytest.raises(ValueError, match="max_budget"):
        MultiFidelity(SPACE, "ASHA", max_budget=0)

    class Custom(optuna.distributions.BaseDistribution):
        def to_external_repr(self, v):
            return v

        def to_internal_repr(self, v):
            return v

        def single(self):
            return False

        def _contains(self, v):
            return True

    with pytest.raises(TypeError, match="'depth' has a Custom"):
        MultiFidelity({"depth": Custom()}, "ASHA", max_budget=5)
    with pytest.raises(TypeError, match="'depth' is a set"):
        MultiFidelity({"depth": {1, 2}}, "ASHA", max_budget=5)
    with pytest.raises(ValueError, match="log-scale"):
        MultiFidelity({"lr": {"type": "float", "low": 0.0, "high": 1.0, "log": True}}, "ASHA", max_budget=5)

    mf = MultiFidelity(SPACE, "Hyperband", max_budget=9, seed=0)
    config, params, budget = mf.ask()
    with pytest.raises(ValueError, match="no configuration 99999"):
        mf.tell(99999, 1, 0.5)
    with pytest.raises(ValueError, match="tell step 1 next"):
        mf.tell(config, 2, 0.5)
    with pytest.raises(ValueError, match="not in training"):
        mf.tell((config + 1) % mf.n_configs, 1, 0.5)
    # The refused tells changed nothing: the request completes as asked.
    assert [mf.tell(config, s, 0.5) for s in range(1, budget + 1)][-1] is True
    assert mf.best == (config, params, 1, 0.5)


@pytest.mark.parametrize("method", ["ASHA", "Hyperband"])
def test_fail_releases_a_configuration(method):
    # One worker; the first configuration handed out is lost (its training failed) and is
    # reported with fail after 9 more requests.
    mf = MultiFidelity(SPACE, method, max_budget=9, seed=0, total_budget=40, n_configs=128)
    lost, _, _ = mf.ask()
    served = []
    while (asked := mf.ask()) is not None:
        config, params, budget = asked
        assert config != lost, "a failed configuration is handed out again"
        served.append((mf.reached(config), budget))
        for step in range(mf.reached(config) + 1, budget + 1):
            mf.tell(config, step, curve(params, step))
        if len(served) == 9:
            mf.fail(lost)
    assert mf.finished
    if method == "Hyperband":
        # Its first rung (9 configurations at budget 1) is not decided while the lost one
        # trains: the next bracket's first rung goes on (a fresh configuration at budget 3).
        # Released, the rung is decided without it: its best 3 go on from budget 1 to 3.
        assert served[:9] == [(0, 1)] * 8 + [(0, 3)]
        assert served[9:12] == [(1, 3)] * 3
    assert mf.failed() == [lost] and mf.in_training() == []
    with pytest.raises(ValueError, match="no configuration 99999"):
        mf.fail(99999)
    with pytest.raises(ValueError, match="its training failed"):
        mf.fail(lost)
    with pytest.raises(ValueError, match="its training failed"):
        mf.tell(lost, 1, 0.5)


def train_step(params, step, state):
    """One epoch of the curve family; the state counts the epochs trained (a checkpoint)."""
    trained = 0 if state is None else state
    assert trained == step - 1, "resumed where it paused"
    return curve(params, step), trained + 1


def test_optimize_multi_fidelity_records_every_curve_in_a_journal(tmp_path):
    journal = tmp_path / "journal.log"
    study = optuna.create_study(storage=journal_storage(journal), study_name="mf")
    mf = optimize_multi_fidelity(
        study, train_step, space=SPACE, max_budget=9, total_budget=60, method="ASHA", n_configs=128
    )
    trials = study.get_trials()
    states = {t.state for t in trials}
    assert states <= {optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED}
    assert optuna.trial.TrialState.COMPLETE in states and optuna.trial.TrialState.PRUNED in states
    assert sum(len(t.intermediate_values) for t in trials) == 60, "every step trained is reported"
    for t in trials:
        steps = sorted(t.intermediate_values)
        assert steps == list(range(1, len(steps) + 1))
        assert all(t.intermediate_values[s] == curve(t.params, s) for s in steps)
        if t.state == optuna.trial.TrialState.COMPLETE:
            assert steps[-1] == 9 and t.value == curve(t.params, 9)
    assert mf.best[3] == min(v for t in trials for v in t.intermediate_values.values())
    # The engine's loader reads the journal back with the learning curves.
    out = subprocess.run([HPO, "info", "--data", str(journal)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "learning curves of 9 steps" in out.stdout, out.stdout


def test_a_train_step_not_caught_fails_its_trial_ends_the_run_and_prunes_the_paused(tmp_path):
    study = optuna.create_study(storage=journal_storage(tmp_path / "j.log"), study_name="mf")
    calls = []

    def failing(params, step, state):
        calls.append(step)
        if len(calls) == 20:
            raise RuntimeError("out of memory")
        return train_step(params, step, state)

    with pytest.raises(RuntimeError, match="out of memory"):
        optimize_multi_fidelity(
            study, failing, space=SPACE, max_budget=9, total_budget=60, method="ASHA", catch=[ValueError]
        )
    states = [t.state for t in study.get_trials()]
    assert states.count(optuna.trial.TrialState.FAIL) == 1
    assert optuna.trial.TrialState.RUNNING not in states


@pytest.mark.parametrize("method", ["ASHA", "Hyperband"])
def test_a_train_step_that_raises_fails_its_trial_and_the_run_goes_on(tmp_path, method, caplog):
    study = optuna.create_study(storage=journal_storage(tmp_path / "j.log"), study_name="mf")
    calls, failed_promotion = 0, False

    def failing(params, step, state):
        # The 3rd call (step 1 of a configuration of the first rung) and the first step 2 (a
        # promotion's first step) fail.
        nonlocal calls, failed_promotion
        calls += 1
        if calls == 3 or (step == 2 and not failed_promotion):
            failed_promotion = failed_promotion or step == 2
            raise RuntimeError("out of memory")
        return train_step(params, step, state)

    mf = optimize_multi_fidelity(
        study, failing, space=SPACE, max_budget=9, total_budget=60, method=method, n_configs=128
    )
    assert mf.finished
    trials = study.get_trials()
    failed = [t for t in trials if t.state == optuna.trial.TrialState.FAIL]
    assert len(failed) == 2, [t.state for t in trials]
    assert any(t.intermediate_values for t in failed), "a promotion's failure keeps its told steps"
    assert len(mf.failed()) == 2
    assert optuna.trial.TrialState.RUNNING not in {t.state for t in trials}
    assert any(t.state == optuna.trial.TrialState.COMPLETE for t in trials), "the run went on"
    # The budget counts the steps trained: 60 reported, the two failed steps not among them.
    assert sum(len(t.intermediate_values) for t in trials) == 60
    assert "failed at step" in caplog.text and "out of memory" in caplog.text


KILLED_RUN = """
import sys, time
sys.path.insert(0, {tests!r})
import optuna
from conftest import journal_storage
from test_multi_fidelity import SPACE, curve
from hpo_playground.optuna import optimize_multi_fidelity

calls = 0

def step_then_wait(params, step, state):
    # RS trains each configuration to 3 steps and completes it: the 11th step is the 4th
    # trial's second, after 3 complete trials and one step of a running one. There the run
    # says so and waits to be killed.
    global calls
    calls += 1
    if calls == 11:
        open({marker!r}, "w").close()
        time.sleep(600)
    return curve(params, step), None

study = optuna.create_study(storage=journal_storage({journal!r}), study_name="mf")
optimize_multi_fidelity(study, step_then_wait, space=SPACE, max_budget=3, total_budget=10_000, method="RS")
"""


def test_a_killed_process_loses_no_complete_trial(tmp_path):
    # Killed at a chosen moment (the middle of a trial, after complete ones), which the run
    # announces: not after a sleep, at whatever moment that fell.
    journal, marker = tmp_path / "journal.log", tmp_path / "waiting"
    script = KILLED_RUN.format(tests=str(Path(__file__).parent), journal=str(journal), marker=str(marker))
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        for _ in range(3000):  # a hang guard of 5 minutes: the marker comes after 10 steps
            if marker.exists() or child.poll() is not None:
                break
            time.sleep(0.1)
        assert marker.exists() and child.poll() is None, "the run did not reach the moment it is killed at"
        study = optuna.load_study(study_name="mf", storage=journal_storage(journal))
        complete_before = [t.number for t in study.get_trials() if t.state.name == "COMPLETE"]
        assert len(complete_before) == 3, complete_before
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    study = optuna.load_study(study_name="mf", storage=journal_storage(journal))
    trials = {t.number: t for t in study.get_trials()}
    for n in complete_before:
        assert trials[n].state.name == "COMPLETE" and sorted(trials[n].intermediate_values) == [1, 2, 3]
    out = subprocess.run([HPO, "info", "--data", str(journal)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_a_nan_value_fails_its_configuration_and_an_infinite_one_is_clipped(caplog):
    # The engine's one rule (MultiFidelity.report), which every face uses.
    mf = MultiFidelity(SPACE, "ASHA", max_budget=9, seed=0, total_budget=40, n_configs=64)
    nans, outcomes = [], []
    while (a := mf.ask()) is not None:
        config, params, budget = a
        for step in range(mf.reached(config) + 1, budget + 1):
            value = math.nan if params["lr"] > 0.1 else math.inf if params["lr"] < 1e-3 else curve(params, step)
            outcomes.append(mf.report(config, step, value))
            if outcomes[-1] == "failed":
                nans.append(config)
                break
    assert mf.finished and nans and sorted(nans) == mf.failed()
    assert all(mf.params(c)["lr"] > 0.1 for c in nans) and mf.in_training() == []
    assert f"configuration {nans[0]} " in caplog.text and "reported NaN at budget step 1" in caplog.text
    assert "failed" in outcomes and "completed" in outcomes and math.isfinite(mf.best[3])
    # Pickled, the session replays the NaN the same way.
    import pickle

    again = pickle.loads(pickle.dumps(mf))
    assert again.failed() == mf.failed() and again.best == mf.best


def test_bad_ids_and_values_are_named():
    mf = MultiFidelity(SPACE, "ASHA", max_budget=9, seed=0, n_configs=16)
    config, _, _ = mf.ask()
    with pytest.raises(ValueError, match="config_id must be a whole number from 0, not -1"):
        mf.tell(-1, 1, 0.5)
    with pytest.raises(ValueError, match="budget must be a whole number from 0, not -2"):
        mf.tell(config, -2, 0.5)
    with pytest.raises(TypeError, match=f"configuration {config}, budget step 1: the value must be a number, not str '0.5'"):
        mf.tell(config, 1, "0.5")
    with pytest.raises(ValueError, match="max_budget must be a whole number from 1, not -1"):
        MultiFidelity(SPACE, "ASHA", max_budget=-1)
    assert mf.tell(config, 1, 0.5)  # nothing refused changed the session


def test_optimize_multi_fidelity_fails_a_nan_trial_and_goes_on(caplog):
    study = optuna.create_study(study_name="mf")

    def diverging(params, step, state):
        value, state = train_step(params, step, state)
        return (math.nan if params["lr"] > 0.1 else value), state

    mf = optimize_multi_fidelity(
        study, diverging, space=SPACE, max_budget=9, total_budget=60, method="ASHA", n_configs=128
    )
    trials = study.get_trials()
    failed = [t for t in trials if t.state == optuna.trial.TrialState.FAIL]
    assert failed and all(t.params["lr"] > 0.1 and math.isnan(t.intermediate_values[1]) for t in failed)
    assert len(failed) == len(mf.failed()) and mf.finished and mf.remaining == 0
    assert any(t.state == optuna.trial.TrialState.COMPLETE for t in trials), "the run went on to the full budget"
    assert "reported NaN at budget step 1" in caplog.text


def test_a_journal_the_package_writes_with_nan_and_inf_values_reads_back_in_hpo_with_every_record(tmp_path, caplog):
    # optimize_multi_fidelity into a journal: trials failed by a NaN (their NaN intermediate value
    # kept), curves with an infinite value (clipped in the engine, written by Optuna as it came).
    # `hpo explore` reads the journal back: every trial with its state, every intermediate value.
    import csv

    journal = tmp_path / "journal.log"
    study = optuna.create_study(study_name="mf-nan", storage=journal_storage(journal))

    def train_step(params, step, state):
        if params["lr"] > 0.1:
            return math.nan, state
        if params["lr"] < 1e-3 and step == 2:
            return math.inf, state
        return curve(params, step), state

    optimize_multi_fidelity(study, train_step, space=SPACE, max_budget=9, total_budget=60, method="ASHA", n_configs=128)
    trials = optuna.load_study(study_name="mf-nan", storage=journal_storage(journal)).get_trials()
    states = {t.state.name for t in trials}
    assert {"FAIL", "COMPLETE"} <= states, states
    assert any(math.isinf(v) for t in trials for v in t.intermediate_values.values()), "an infinite value was written"
    out = tmp_path / "explored"
    run = subprocess.run([HPO, "explore", "--data", str(journal), "--out", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    with open(out / "trials.csv", newline="") as f:
        read = [(int(r["number"]), r["state"]) for r in csv.DictReader(f)]
    assert read == [(t.number, t.state.name) for t in trials]
    with open(out / "intermediate.csv", newline="") as f:
        steps = [(int(r["number"]), int(r["step"]), float(r["value"])) for r in csv.DictReader(f)]
    expected = [(t.number, s, v) for t in trials for s, v in sorted(t.intermediate_values.items())]
    assert len(steps) == len(expected)
    for got, want in zip(steps, expected):
        assert got[:2] == want[:2] and (got[2] == want[2] or (math.isnan(got[2]) and math.isnan(want[2]))), (got, want)
