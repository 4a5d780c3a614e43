"""hpo_playground.ray_tune with Ray Tune 2.60: the searcher and the scheduler on their own (no
cluster), then real runs on a two-node local cluster (ray_cluster.py, tests/ray/sweep.sh's
set-up) driven by ray_tune_driver.py in its own process: 4 concurrent trials, a worker killed in
the middle of a trial, a driver killed and its experiment restored, trials that raise."""

from __future__ import annotations

import json
import math
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import optuna
import pytest
from ray import tune
from ray.tune.experiment import Trial
from ray.tune.schedulers import TrialScheduler

import hpo_playground
from hpo_playground.ray_tune import MultiFidelityScheduler, Searcher, describe_space

HERE = Path(__file__).resolve().parent
SPACE = {"lr": tune.loguniform(1e-4, 1.0), "width": tune.randint(8, 257), "opt": tune.choice(["adam", "sgd"])}


def loss(config):
    return (config["lr"] - 0.01) ** 2 * 100 + ((config["width"] - 64) / 64) ** 2 + (config["opt"] == "sgd") * 0.3


def test_ray_domains_become_engine_distributions_and_the_others_are_refused():
    space = {
        "lr": tune.loguniform(1e-4, 1.0),
        "drop": tune.quniform(0.0, 0.5, 0.05),
        "units": tune.qrandint(32, 512, 32),
        "layers": tune.lograndint(1, 17),
        "net": {"width": tune.randint(8, 257), "act": tune.choice(["relu", "tanh"])},
        "epochs": 9,
    }
    assert dict(describe_space(space)) == {
        "lr": {"type": "float", "low": 1e-4, "high": 1.0, "log": True, "step": None},
        "drop": {"type": "float", "low": 0.0, "high": 0.5, "log": False, "step": 0.05},
        "units": {"type": "int", "low": 32, "high": 512, "log": False, "step": 32},
        "layers": {"type": "int", "low": 1, "high": 16, "log": True, "step": 1},  # upper bound excluded
        "net/width": {"type": "int", "low": 8, "high": 256, "log": False, "step": 1},
        "net/act": {"type": "categorical", "choices": ["relu", "tanh"]},
    }
    refused = {
        "randn": tune.randn(0, 1),
        "qloguniform": tune.qloguniform(1e-3, 1.0, 1e-3),
        "qlograndint": tune.qlograndint(2, 64, 2),
        "sample_from": tune.sample_from(lambda _: 1),
    }
    for name, domain in refused.items():
        with pytest.raises(ValueError, match=f"parameter '{name}'"):
            describe_space({name: domain, "lr": tune.uniform(0, 1)})
    # A bad space is refused when it is given, naming the parameter (not at the first draw).
    bad = {
        "uniform": (tune.uniform(1, 0), "low <= high"),
        "randint": (tune.randint(10, 2), "low <= high"),
        "choice": (tune.choice([]), "needs a choice"),
    }
    for name, (domain, why) in bad.items():
        with pytest.raises(ValueError, match=f"parameter '{name}'.*{why}"):
            Searcher({name: domain}, metric="loss", mode="min")
        searcher = Searcher(metric="loss", mode="min")
        with pytest.raises(ValueError, match=f"parameter '{name}'.*{why}"):
            searcher.set_search_properties("loss", "min", {name: domain})
    with pytest.raises(ValueError, match="grid_search"):
        describe_space({"lr": tune.grid_search([0.1, 0.2])})
    with pytest.raises(ValueError, match="no search domain"):
        describe_space({"epochs": 9})
    # A nested space comes back nested, with Ray's own choice objects.
    searcher = Searcher(space, metric="loss", mode="min", seed=0)
    config = searcher.suggest("t0")
    assert set(config) == {"lr", "drop", "units", "layers", "net"} and config["net"]["act"] in ("relu", "tanh")
    assert config["units"] % 32 == 0 and 1 <= config["layers"] <= 16


def test_the_first_proposals_are_random_draws_from_the_seed():
    def first(seed):
        s = Searcher(SPACE, "GP", metric="loss", mode="min", seed=seed)
        return [s.suggest(f"t{i}") for i in range(4)]

    assert first(3) == first(3)
    assert first(3) != first(4)
    assert len({json.dumps(c, sort_keys=True) for c in first(3)}) == 4


def test_trials_still_running_are_passed_with_their_parameters_and_four_proposals_differ():
    searcher = Searcher(SPACE, "GP", metric="loss", mode="min", seed=0)
    for i in range(5):
        searcher.on_trial_complete(f"done{i}", {"loss": loss(searcher.suggest(f"done{i}"))})
    pending = [searcher.suggest(f"pending{i}") for i in range(4)]  # 4 concurrent trials
    assert len({json.dumps(c, sort_keys=True) for c in pending}) == 4, pending
    trials = searcher.study()["trials"]
    assert [t["state"] for t in trials] == ["COMPLETE"] * 5 + ["RUNNING"] * 4
    for t, config in zip(trials[5:], pending):
        assert t["params"]["lr"] == config["lr"] and t["params"]["opt"] == ["adam", "sgd"].index(config["opt"])


def test_an_errored_trial_and_one_without_the_metric_are_failed_not_lost():
    searcher = Searcher(SPACE, "GP", metric="loss", mode="min", seed=0)
    for i in range(3):
        searcher.suggest(f"t{i}")
    searcher.on_trial_complete("t0", {"loss": 0.5}, error=True)  # a result before the error
    searcher.on_trial_complete("t1", {"accuracy": 0.5})
    searcher.on_trial_complete("t2", {"loss": float("nan")})
    assert [t["state"] for t in searcher.study()["trials"]] == ["FAIL"] * 3
    searcher.suggest("t3")  # still random: nothing is complete
    searcher.on_trial_complete("t3", {"loss": 1.0})
    assert searcher.suggest("t4") is not None  # the engine proposes with FAIL trials present


def test_save_and_restore_go_on_with_the_same_search(tmp_path):
    a = Searcher(SPACE, "GP", metric="loss", mode="min", seed=1)
    for i in range(6):
        a.on_trial_complete(f"t{i}", {"loss": loss(a.suggest(f"t{i}"))})
    a.suggest("running")
    a.save(str(tmp_path / "searcher.pkl"))
    b = Searcher(SPACE, "GP", metric="loss", mode="min", seed=99)
    b.restore(str(tmp_path / "searcher.pkl"))
    assert b.study() == a.study()
    assert b.suggest("next") == a.suggest("next")


def test_related_results_as_pairs_or_an_optuna_study_feed_a_transfer_method():
    assert "GCP+prior" in hpo_playground.methods()["related"]
    with pytest.raises(ValueError, match="related"):
        Searcher(SPACE, "GCP+prior", metric="loss", mode="min")
    probe = Searcher(SPACE, "GP", metric="loss", mode="min", seed=5)
    pairs = [(c, loss(c) + 0.1) for c in (probe.suggest(f"r{i}") for i in range(12))]
    study = optuna.create_study()
    for c, v in pairs:
        study.add_trial(optuna.trial.create_trial(
            params=c, value=v,
            distributions={"lr": optuna.distributions.FloatDistribution(1e-4, 1.0, log=True),
                           "width": optuna.distributions.IntDistribution(8, 256),
                           "opt": optuna.distributions.CategoricalDistribution(["adam", "sgd"])},
        ))
    for related in ([pairs], [study]):
        searcher = Searcher(SPACE, "GCP+prior", metric="loss", mode="min", seed=0, related=related)
        searcher.on_trial_complete("t0", {"loss": loss(searcher.suggest("t0"))})
        config = searcher.suggest("t1")
        assert 1e-4 <= config["lr"] <= 1.0 and 8 <= config["width"] <= 256
    bad = Searcher(SPACE, "GCP+prior", metric="loss", mode="min", related=[[({"lr": 0.1, "width": 8, "opt": "adagrad"}, 1.0)]])
    bad.on_trial_complete("t0", {"loss": 1.0} if bad.suggest("t0") else None)
    with pytest.raises(ValueError, match="'adagrad' is not one of"):
        bad.suggest("t1")
    with pytest.raises(ValueError, match="neither an Optuna study nor"):
        Searcher(SPACE, "GCP+prior", metric="loss", mode="min", related=[[1, 2]])


def fake_run(scheduler, n_results, trial_ids=None, value=lambda config, epoch: loss(config) + 1 / epoch):
    """Drives `scheduler` as Ray's controller would, without Ray: creates trials through its
    searcher, picks them with choose_trial_to_run, reports each step's `value`."""
    trials = trial_ids if trial_ids is not None else {}
    controller = SimpleNamespace(get_trials=lambda: list(trials.values()), stop_trial=lambda t: setattr(t, "status", Trial.TERMINATED))
    for _ in range(n_results):
        while (config := scheduler.searcher.suggest(f"trial{len(trials)}")) not in (None, "FINISHED"):
            trial = SimpleNamespace(trial_id=f"trial{len(trials)}", status=Trial.PENDING, config=config, epoch=0)
            trials[trial.trial_id] = trial
            scheduler.on_trial_add(controller, trial)
        chosen = scheduler.choose_trial_to_run(controller)
        if chosen is None:
            running = [t for t in trials.values() if t.status == Trial.RUNNING]
            if not running:
                return trials
            chosen = running[0]
        chosen.status = Trial.RUNNING
        chosen.epoch += 1
        decision = scheduler.on_trial_result(controller, chosen, {"epoch": chosen.epoch, "loss": value(chosen.config, chosen.epoch)})
        chosen.status = {TrialScheduler.CONTINUE: Trial.RUNNING, TrialScheduler.PAUSE: Trial.PAUSED}.get(decision, Trial.TERMINATED)
    return trials


@pytest.mark.parametrize("method", ["ASHA", "Hyperband", "DyHPO"])
def test_the_scheduler_state_is_rebuilt_by_replay_after_a_restore(tmp_path, method):
    def scheduler():
        s = MultiFidelityScheduler(method, max_t=9, total_budget=60, metric="loss", mode="min", seed=0, n_configs=32)
        s.searcher.set_search_properties("loss", "min", SPACE, num_samples=sys.maxsize)
        s.searcher.set_max_concurrency(3)
        return s

    a = scheduler()
    trials = fake_run(a, 25)
    assert any(t.status == Trial.PAUSED for t in trials.values()), "some trial paused"
    a.searcher.save(str(tmp_path / "state.pkl"))
    pickle.loads(pickle.dumps(a))  # what Ray writes to tuner.pkl pickles
    b = scheduler()
    b.searcher.restore(str(tmp_path / "state.pkl"))
    assert b.session.in_training() == a.session.in_training() and b.session.best == a.session.best
    # The same trials driven on from both: the same decisions to the end of the budget.
    copies = {k: SimpleNamespace(**vars(t)) for k, t in trials.items()}
    fake_run(a, 200, trials)
    fake_run(b, 200, copies)
    assert a.session.finished and b.session.finished
    assert a._race.history == b._race.history
    assert {k: (t.status, t.epoch) for k, t in trials.items()} == {k: (t.status, t.epoch) for k, t in copies.items()}


def test_a_nan_stops_its_trial_and_releases_its_configuration_and_an_infinite_value_is_clipped(caplog):
    s = MultiFidelityScheduler("ASHA", max_t=9, total_budget=40, metric="loss", mode="min", seed=0, n_configs=32)
    s.searcher.set_search_properties("loss", "min", SPACE, num_samples=sys.maxsize)
    s.searcher.set_max_concurrency(2)

    def diverging(config, epoch):
        return float("nan") if config["lr"] > 0.1 else float("inf") if config["lr"] < 1e-3 else loss(config) + 1 / epoch

    trials = fake_run(s, 400, value=diverging)
    failed = s.session.failed()
    assert failed and all(s.session.params(c)["lr"] > 0.1 for c in failed)
    assert s.session.finished and s.session.remaining == 0 and math.isfinite(s.session.best[3])
    assert all(trials[s._race.trial_of[c]].status == Trial.TERMINATED for c in failed)
    assert "reported NaN at budget step 1" in caplog.text


def test_a_paused_trial_that_reports_is_told_nothing_and_keeps_its_checkpoint_of_a_told_step():
    # A trial whose configuration is paused reports: an epoch past its request (Ray ran it on, or
    # started it by itself) is paused without a save, so that its checkpoint stays at a step the
    # method was told; a step told before (restarted from an earlier checkpoint) pauses there.
    s = MultiFidelityScheduler("Hyperband", max_t=9, total_budget=60, metric="loss", mode="min", seed=0, n_configs=32)
    s.searcher.set_search_properties("loss", "min", SPACE, num_samples=sys.maxsize)
    s.searcher.set_max_concurrency(2)
    trials = fake_run(s, 6)
    paused = next(t for t in trials.values() if t.status == Trial.PAUSED)
    config = s._race.config_of[paused.trial_id]
    reached, history = s.session.reached(config), list(s._race.history)
    pauses = []
    controller = SimpleNamespace(get_trials=lambda: list(trials.values()),
                                 pause_trial=lambda t, should_checkpoint=True: pauses.append((t.trial_id, should_checkpoint)))
    past = s.on_trial_result(controller, paused, {"epoch": reached + 1, "loss": 1.0})
    assert past == TrialScheduler.NOOP and pauses == [(paused.trial_id, False)]
    again = s.on_trial_result(controller, paused, {"epoch": reached, "loss": 1.0})
    assert again == TrialScheduler.PAUSE and pauses == [(paused.trial_id, False)]
    assert s._race.history == history and s.session.reached(config) == reached


def test_the_scheduler_refuses_what_it_cannot_run():
    with pytest.raises(ValueError, match="not a multi-fidelity method"):
        MultiFidelityScheduler("GP", max_t=9)
    s = MultiFidelityScheduler("ASHA", max_t=9, metric="loss", mode="min")
    s.searcher.set_search_properties("loss", "min", SPACE, num_samples=10)
    with pytest.raises(ValueError, match="num_samples=-1"):
        s.searcher.suggest("t0")
    with pytest.raises(ValueError, match="not created by this scheduler's searcher"):
        s.on_trial_add(None, SimpleNamespace(trial_id="elsewhere"))


def drive(ray_cluster, tmp_path, *args):
    """Runs ray_tune_driver.py against `cluster`; its JSON summary."""
    run = subprocess.run(
        [sys.executable, str(HERE / "ray_tune_driver.py"), "--address", ray_cluster.address, "--storage", str(tmp_path / "results"),
         "--events", str(tmp_path / "events.jsonl"), *args],
        env={**ray_cluster.env, "TUNE_GLOBAL_CHECKPOINT_S": "0"}, capture_output=True, text=True, timeout=900, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-5000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def events(tmp_path):
    return [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]


def resumed_from_checkpoint(out, tmp_path, besides=None):
    """Each trial the scheduler chose again from a pause (but `besides`) restarted at a later epoch."""
    starts = events(tmp_path)
    for trial in set(out["resumed"]) - {besides}:
        assert any(e["start"] > 0 for e in starts if e["trial"] == trial), (trial, starts)


def test_the_searcher_runs_4_concurrent_trials_on_a_two_node_cluster_and_a_raising_trial_fails(ray_cluster, tmp_path):
    # Trials with lr above 0.1 raise (about a third of the log range).
    # The first 4 trials start together (--together: each waits for the others), so the 4th
    # suggestion is made with 3 running whatever the order and pace at which Ray starts them.
    out = drive(ray_cluster, tmp_path, "--name", "gp", "--face", "searcher", "--method", "GP", "--trials", "10",
                "--together", "4", "--fail-lr-above", "0.1")
    trials = out["study"]["trials"]
    assert len(trials) == 10 and len(out["statuses"]) == 10
    # Per trial, not keyed by lr: two trials may share an lr (the bound, say) at different widths.
    states = [(t["params"]["lr"], t["state"]) for t in trials]
    assert all((state == "FAIL") == (lr > 0.1) for lr, state in states), states
    failed = [state for _, state in states].count("FAIL")
    assert failed > 0 and out["statuses"].count("ERROR") == failed, (states, out["statuses"])
    assert all(t["state"] in ("COMPLETE", "FAIL") for t in trials), "no trial left RUNNING"
    # Four at once: a suggestion was made with three others running, and no two are the same.
    assert max(out["running_at_suggest"]) == 3, out["running_at_suggest"]
    assert len({json.dumps(t["params"], sort_keys=True) for t in trials}) == 10


def test_the_scheduler_runs_asha_with_4_concurrent_trials_and_a_killed_worker_is_retried(ray_cluster, tmp_path):
    kill_dir = tmp_path / "kill"
    kill_dir.mkdir()
    killed = {}

    def killer():  # kills the worker process whose trial waits at epoch 2 (it wrote its pid)
        for _ in range(6000):
            if (kill_dir / "pid").exists() and (kill_dir / "pid").read_text().strip():
                pid, trial = (kill_dir / "pid").read_text().split()
                assert int(pid) in ray_cluster.processes(), "the worker is one of this cluster's processes"
                os.kill(int(pid), signal.SIGKILL)
                killed.update(pid=int(pid), trial=trial)
                return
            time.sleep(0.1)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    # The first 4 trials start together, so 4 are in training at once before any result.
    out = drive(ray_cluster, tmp_path, "--name", "asha", "--face", "scheduler", "--method", "ASHA", "--max-t", "3",
                "--total-budget", "36", "--kill-dir", str(kill_dir), "--max-failures", "2", "--together", "4")
    thread.join(timeout=1)
    assert killed, "no worker was killed: the test did not test a lost worker"
    assert out["finished"] and out["in_training"] == [] and out["failed"] == []
    assert sum(1 for _ in out["tells"]) == 36, "every step of the budget was trained and told"
    assert set(out["statuses"]) == {"TERMINATED"}, out["statuses"]
    assert out["most_in_training"] == 4
    # The killed trial was restarted from its checkpoint (epoch 1) and went on.
    starts = [e for e in events(tmp_path) if e["trial"] == killed["trial"]]
    assert any(e["pid"] != killed["pid"] and e["start"] >= 1 for e in starts), starts
    config = next(int(c) for c, t in out["trial_of"].items() if t == killed["trial"])
    assert [s for c, s, _ in out["tells"] if c == config][:2] == [1, 2]
    # A paused trial the scheduler chose again was resumed from its checkpoint, each curve told in
    # order. Whether ASHA resumes one at all depends on the order results arrive: a promotion
    # continues its trial at once when the trial that reported is the one promoted (so it did in
    # one run of the test suite); Hyperband's rungs, below, wait and resume.
    resumed_from_checkpoint(out, tmp_path, besides=killed["trial"])
    for c in {c for c, _, _ in out["tells"]}:
        steps = [s for cc, s, _ in out["tells"] if cc == c]
        assert steps == list(range(1, len(steps) + 1)), (c, steps)


def test_a_real_ray_run_goes_through_nan_trials_to_the_end_of_its_budget(ray_cluster, tmp_path):
    # ASHA over 3 epochs, 2 at once; configurations of lr > 0.1 (about a third of the log range)
    # report a NaN loss at their first epoch: each is released and its trial stopped, and the
    # budget its steps held goes to others, so the run still tells all 18 steps.
    out = drive(ray_cluster, tmp_path, "--name", "nan", "--face", "scheduler", "--method", "ASHA", "--max-t", "3",
                "--total-budget", "18", "--concurrent", "2", "--nan-lr-above", "0.1", "--sleep", "0.05")
    assert out["failed"] and all(lr > 0.1 for lr in out["failed_lr"]), out["failed_lr"]
    assert out["finished"] and out["in_training"] == []
    # The face's record holds each NaN as reported, once per failed configuration.
    nans = [c for c, _, v in out["tells"] if math.isnan(v)]
    assert sorted(nans) == sorted(out["failed"]), (nans, out["failed"])
    assert sum(1 for _, _, v in out["tells"] if math.isfinite(v)) == 18, json.dumps(out)
    assert math.isfinite(out["best"])
    assert set(out["statuses"]) == {"TERMINATED"}, out["statuses"]


def test_tuner_restore_of_an_interrupted_hyperband_experiment_goes_on_to_the_end(ray_cluster, tmp_path):
    # Hyperband over 9 epochs, 4 at once; configurations of lr > 0.1 raise (released, the rung
    # decided without them). The first driver is interrupted (SIGINT, as Ctrl-C) after 12 tells.
    common = ["--name", "hb", "--face", "scheduler", "--method", "Hyperband", "--max-t", "9", "--total-budget", "30",
              "--fail-lr-above", "0.1", "--sleep", "0.1"]
    first = drive(ray_cluster, tmp_path, *common, "--interrupt-after-tells", "12")
    assert not first["finished"] and len(first["tells"]) >= 12, "the first run was interrupted before its end"
    out = drive(ray_cluster, tmp_path, *common, "--restore")
    assert out["restored_tells"] > 0, "the restored scheduler started from the killed run's tells"
    # Restored, a paused trial waits for the method: Ray re-adds it PENDING and would start it
    # (before, each paused trial trained an epoch no one asked for: 6 of 46).
    assert out["unasked_epochs"] == 0, out["unasked_epochs"]
    assert out["finished"] and out["in_training"] == []
    assert out["failed"] and all(lr > 0.1 for lr in out["failed_lr"]), out
    assert not any(c in out["failed"] for c, _, _ in out["tells"]), "a raising configuration told nothing"
    # Brackets run side by side with several workers (the next one opens while a rung waits), so
    # 30 units may end before a configuration reaches the top rung; a promotion past the failed
    # trials is what the rung's decision without them shows.
    assert max(s for _, s, _ in out["tells"]) >= 3, "a promotion past the failed trials"
    resumed_from_checkpoint(out, tmp_path)
    assert set(out["statuses"]) <= {"TERMINATED", "ERROR"} and out["statuses"].count("ERROR") == len(out["failed"])
    for c in {c for c, _, _ in out["tells"]}:
        steps = [s for cc, s, _ in out["tells"] if cc == c]
        assert steps == list(range(1, len(steps) + 1)), (c, steps)


def test_a_trial_that_trained_past_its_request_resumes_from_the_last_epoch_told(ray_cluster, tmp_path):
    # Each pause after a tell comes one epoch late (--late-pauses), as when Ray runs a trial on
    # before a pause takes effect or starts a paused trial by itself (Tuner.restore did, before
    # on_trial_add kept paused trials PAUSED): the trial trains an epoch the method never asked
    # for. One request is out at a time and the other trials' reports wait at a gate until the
    # scheduler has met that epoch, so it always comes while the configuration is paused. That
    # epoch is not told, and its checkpoint must not become the trial's: Hyperband resumes the
    # promoted trials, and one resumed a step ahead of what the method heard reports epoch 3
    # after 1 (which failed the restore test above once, its interrupt falling before a rung).
    out = drive(ray_cluster, tmp_path, "--name", "late", "--face", "scheduler", "--method", "Hyperband", "--max-t", "9",
                "--total-budget", "30", "--concurrent", "1", "--sleep", "0", "--late-pauses")
    assert out["finished"] and out["in_training"] == [] and out["failed"] == [], out
    assert set(out["statuses"]) == {"TERMINATED"}, out["statuses"]
    assert out["most_in_training"] == 1
    assert out["late_pauses"] and out["unasked_epochs"] == len(out["late_pauses"]), out
    for c in {c for c, _, _ in out["tells"]}:
        steps = [s for cc, s, _ in out["tells"] if cc == c]
        assert steps == list(range(1, len(steps) + 1)), (c, steps)
    # A rung's promotions wait for the rung's last tell, so at least two of the three trials
    # promoted from the first rung had paused (each an epoch late) and were resumed: each
    # time from the checkpoint of the last epoch told before its pause, not of the epoch past it.
    assert len(set(out["resumed"])) >= 2, out["resumed"]
    starts = events(tmp_path)
    for trial in set(out["resumed"]):
        resumed_at = [e["start"] for e in starts if e["trial"] == trial and e["start"] > 0]
        paused_at = [epoch for t, epoch in out["late_pauses"] if t == trial]
        assert resumed_at and resumed_at == paused_at[: len(resumed_at)], (trial, resumed_at, paused_at)
