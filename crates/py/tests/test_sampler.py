"""The sampler with real Optuna: studies optimised on journal and SQLite storages, and its first
proposal equal to `hpo suggest`'s on the same journal."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import optuna
import pytest
from conftest import assert_in_space, journal_storage, objective, suggest_space

from hpo_playground.optuna import Sampler

HPO = os.environ.get("HPO_BIN", str(Path(__file__).resolve().parents[3] / "target/release/hpo"))


def test_optimises_a_study_on_journal_and_sqlite(storage):
    study = optuna.create_study(storage=storage, study_name="mlp", sampler=Sampler("GP", seed=0))
    study.optimize(objective, n_trials=16)
    trials = study.get_trials()
    assert len(trials) == 16 and all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    for t in trials:
        assert_in_space(t.params)
    assert len({tuple(sorted(t.params.items())) for t in trials}) == 16, "no configuration twice"
    # The same budget with random search from the same seed finds worse (deterministic seeds).
    random = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    random.optimize(objective, n_trials=16)
    assert study.best_value < random.best_value


def pruned_every_third(trial: optuna.Trial) -> float:
    """The objective with a learning curve; every third trial is pruned after two steps."""
    value = objective(trial)
    for step in range(4):
        trial.report(value + 1.0 / (step + 1), step)
        if trial.number % 3 == 1 and step == 1:
            raise optuna.TrialPruned()
    return value


@pytest.mark.parametrize("with_pruned", [False, True], ids=["complete", "pruned"])
def test_first_proposal_equals_hpo_suggest_bit_for_bit(tmp_path, with_pruned):
    if not Path(HPO).exists():
        pytest.fail(f"{HPO} is missing: build it with `cargo build --release --bin hpo` (or set HPO_BIN)")
    journal = tmp_path / "journal.log"
    warmup = optuna.create_study(
        storage=journal_storage(journal),
        study_name="mlp",
        sampler=optuna.samplers.RandomSampler(seed=3),
    )
    warmup.optimize(pruned_every_third if with_pruned else objective, n_trials=8)
    out = tmp_path / "next"
    subprocess.run(
        [HPO, "suggest", "--data", str(journal), "--method", "GP", "--n", "1", "--seed", "5", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    with open(out / "suggestions.csv", newline="") as f:
        (cli,) = list(csv.DictReader(f))

    study = optuna.load_study(study_name="mlp", storage=journal_storage(journal), sampler=Sampler("GP", seed=5))
    trial = study.ask()
    params = suggest_space(trial)
    assert params["lr"] == float(cli["lr"]) and params["dropout"] == float(cli["dropout"])
    assert params["units"] == int(cli["units"]) and params["layers"] == int(cli["layers"])
    assert params["optimizer"] == cli["optimizer"]
    # Bit for bit: the floats' exact representations agree too.
    assert params["lr"].hex() == float(cli["lr"]).hex()


def test_n_jobs_threads_share_one_journal(tmp_path):
    storage = journal_storage(tmp_path / "journal.log")
    study = optuna.create_study(storage=storage, study_name="mlp", sampler=Sampler("GCP", seed=1))
    study.optimize(objective, n_trials=10, n_jobs=2)
    trials = study.get_trials()
    assert len(trials) == 10 and all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    for t in trials:
        assert_in_space(t.params)


def test_a_conditional_parameter_falls_back_to_random_sampling(tmp_path):
    def conditional(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -3, 3)
        if x > 0:
            return x**2 + trial.suggest_float("only_when_positive", 0, 1)
        return x**2

    study = optuna.create_study(sampler=Sampler("GP", seed=2))
    study.optimize(conditional, n_trials=10)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert all(-3 <= t.params["x"] <= 3 for t in study.trials)
    assert "only_when_positive" not in study.sampler.infer_relative_search_space(study, study.trials[-1]) or all(
        "only_when_positive" in t.params for t in study.trials
    )


def test_a_transfer_method_learns_from_related_studies(tmp_path):
    storage = journal_storage(tmp_path / "journal.log")
    earlier = optuna.create_study(storage=storage, study_name="earlier", sampler=optuna.samplers.RandomSampler(seed=4))
    earlier.optimize(objective, n_trials=12)
    study = optuna.create_study(
        storage=storage, study_name="now", sampler=Sampler("CTS", seed=0, related_studies=[earlier])
    )
    study.optimize(objective, n_trials=4)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    for t in study.trials:
        assert_in_space(t.params)


def test_two_processes_share_one_journal(tmp_path):
    journal = tmp_path / "journal.log"
    optuna.create_study(storage=journal_storage(journal), study_name="mlp")
    worker = (
        "import sys; sys.path.insert(0, sys.argv[2]);"
        "import optuna; from conftest import journal_storage, objective;"
        "from hpo_playground.optuna import Sampler;"
        "optuna.logging.set_verbosity(optuna.logging.WARNING);"
        "s = optuna.load_study(study_name='mlp', storage=journal_storage(sys.argv[1]), sampler=Sampler('GP', seed=int(sys.argv[3])));"
        "s.optimize(objective, n_trials=6)"
    )
    here = str(Path(__file__).parent)
    runs = [subprocess.Popen([sys.executable, "-c", worker, str(journal), here, str(seed)]) for seed in (0, 1)]
    assert [r.wait(timeout=300) for r in runs] == [0, 0]
    trials = optuna.load_study(study_name="mlp", storage=journal_storage(journal)).get_trials()
    assert len(trials) == 12 and all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    for t in trials:
        assert_in_space(t.params)
