"""Bad input gets a clear Python exception, never a crash."""

from __future__ import annotations

import math

import optuna
import pytest
from conftest import objective
from optuna.distributions import BaseDistribution

import hpo_playground
from hpo_playground.optuna import Sampler


def study(trials, distributions=None):
    return {
        "name": "s",
        "directions": ["minimize"],
        "distributions": distributions
        or [["x", {"type": "float", "low": 0.0, "high": 1.0, "log": False, "step": None}]],
        "trials": trials,
    }


def test_suggest_proposes_in_the_space():
    trials = [{"state": "COMPLETE", "params": {"x": x}, "values": [(x - 0.3) ** 2]} for x in (0.1, 0.5, 0.9)]
    ((x,),) = hpo_playground.suggest(study(trials), "GP", k=1, seed=0)
    assert 0.0 <= x <= 1.0 and x not in (0.1, 0.5, 0.9)
    assert hpo_playground.suggest(study(trials), "GP", k=1, seed=0) == [[x]], "deterministic given the seed"
    assert len(hpo_playground.suggest(study(trials), "GP", k=3, seed=0)) == 3


def test_an_empty_study_is_refused_by_the_engine():
    with pytest.raises(hpo_playground.EngineError, match="no complete trial"):
        hpo_playground.suggest(study([]), "GP")
    running = [{"state": "RUNNING", "params": {}, "values": None}]
    with pytest.raises(hpo_playground.EngineError, match="no complete trial"):
        hpo_playground.suggest(study(running), "GP")


def test_an_empty_study_starts_with_random_sampling_in_optuna():
    s = optuna.create_study(sampler=Sampler("GP", seed=0))
    s.optimize(objective, n_trials=2)
    assert len(s.trials) == 2


def test_a_nan_objective_is_named_and_an_infinite_one_is_clipped():
    trials = [{"state": "COMPLETE", "params": {"x": 0.5}, "values": [math.nan]}]
    with pytest.raises(hpo_playground.EngineError, match="trial 0: an objective value is not a number"):
        hpo_playground.suggest(study(trials), "GP")
    trials = [{"state": "COMPLETE", "params": {"x": x}, "values": [v]} for x, v in [(0.1, 1.0), (0.5, math.inf), (0.9, 2.0)]]
    assert len(hpo_playground.suggest(study(trials), "GP", k=2)) == 2


def test_a_nan_objective_in_optuna_fails_that_trial_only():
    s = optuna.create_study(sampler=Sampler("GP", seed=0))
    s.optimize(lambda t: math.nan if t.number == 2 else (t.suggest_float("x", 0, 1) - 0.3) ** 2, n_trials=6)
    states = [t.state for t in s.trials]
    assert states[2] == optuna.trial.TrialState.FAIL
    assert states.count(optuna.trial.TrialState.COMPLETE) == 5


def test_bad_descriptions_are_named():
    bad = [["x", {"type": "float", "low": 2.0, "high": 1.0, "log": False, "step": None}]]
    with pytest.raises(hpo_playground.EngineError, match="parameter 'x'.*low <= high"):
        hpo_playground.suggest(study([], bad), "GP")
    with pytest.raises(hpo_playground.EngineError, match="not a study description"):
        hpo_playground.suggest({"name": "s"}, "GP")
    trials = [{"state": "DONE", "params": {"x": 0.5}, "values": [1.0]}]
    with pytest.raises(hpo_playground.EngineError, match="state 'DONE'"):
        hpo_playground.suggest(study(trials), "GP")
    with pytest.raises(hpo_playground.EngineError, match="k >= 1"):
        hpo_playground.suggest(study([]), "GP", k=0)
    assert issubclass(hpo_playground.EngineError, ValueError)


def test_unknown_and_transfer_methods_without_related_studies_are_refused():
    with pytest.raises(ValueError, match="unknown method 'Nope'"):
        Sampler("Nope")
    with pytest.raises(ValueError, match="related_studies"):
        Sampler("GCP+prior")
    trials = [{"state": "COMPLETE", "params": {"x": 0.5}, "values": [1.0]}]
    with pytest.raises(hpo_playground.EngineError, match="Nope"):
        hpo_playground.suggest(study(trials), "Nope")


class Halves(BaseDistribution):
    """A distribution Optuna allows a user to define and this package cannot sample."""

    def to_external_repr(self, v):
        return v / 2

    def to_internal_repr(self, v):
        return v * 2

    def single(self):
        return False

    def _contains(self, v):
        return True


def test_an_unsupported_distribution_is_named():
    s = optuna.create_study(sampler=Sampler("GP", seed=0))
    s.add_trial(optuna.trial.create_trial(params={"h": 0.5}, distributions={"h": Halves()}, value=1.0))
    trial = s.ask()  # Optuna samples relative parameters at the first suggestion
    with pytest.raises(TypeError, match="'h' has a Halves: hpo_playground samples FloatDistribution"):
        trial._suggest("h", Halves())



def test_constraints_func_points_to_set_constraint():
    with pytest.raises(TypeError, match=r"takes no constraints_func: .*trial\.set_constraint\(name, value\)"):
        Sampler("GP", constraints_func=lambda trial: [0.0])


@pytest.mark.parametrize(
    "space, named",
    [
        ({"lr": {"type": "float", "low": 1.0, "high": 0.0}}, "parameter 'lr'.*low <= high"),
        ({"lr": {"type": "float", "low": 0.0, "high": 1.0, "log": True}}, "parameter 'lr'.*log-scale.*low > 0"),
        ({"opt": []}, "parameter 'opt'.*needs a choice"),
        ({"n": {"type": "int", "low": 10, "high": 2}}, "parameter 'n'.*low <= high"),
    ],
)
def test_every_face_checks_its_space_when_given_and_names_the_parameter(space, named, tmp_path):
    # The multi-fidelity session, the Optuna loop (before any trial), Syne Tune's scheduler.
    with pytest.raises(hpo_playground.EngineError, match=named):
        hpo_playground.MultiFidelity(space, "ASHA", max_budget=3)
    study = optuna.create_study()
    with pytest.raises(hpo_playground.EngineError, match=named):
        hpo_playground.optuna.optimize_multi_fidelity(
            study, lambda p, s, st: (0.0, None), space=space, max_budget=3, total_budget=3, method="ASHA"
        )
    assert study.trials == []
