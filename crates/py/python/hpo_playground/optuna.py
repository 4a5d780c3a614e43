"""An Optuna sampler whose relative sampling is the engine's: ``Sampler(method="GP", seed=0)``.

Following Optuna's sampler contract: the relative search space is the intersection of the
complete trials' distributions (as Optuna's own GPSampler and TPESampler infer it); on every
call the model is rebuilt from the study's trials as the storage holds them, so JournalStorage,
RDB storages, several processes and ``n_jobs`` work; parameters outside that space, and every
parameter until a trial is complete, come from Optuna's RandomSampler.

Many workers: the trials RUNNING (and WAITING, enqueued) while a proposal is made are pending,
observed by the engine at a lie (``liar``: by default the kriging believer) so that the proposal
goes elsewhere (docs/methods.md, "Batches and pending trials"). A proposal is stored in its trial's system attributes
(``hpo_playground:proposal``) the moment it is made, so that the other workers — threads of
``n_jobs``, or processes on one storage — see it as pending before the objective has suggested
its parameters; within a process, proposals are made one at a time.

Constraints (Optuna 5's ``trial.set_constraint``) are honoured: an infeasible trial is ranked
below every feasible one by its total violation (docs/methods.md, "Constraints").

For the same study and seed the first proposal is ``hpo suggest``'s on the study's journal,
bit for bit: the study is described to the engine as its journal loader reads it (the
parameters in the order first suggested, internal values, every trial with its state).
"""

from __future__ import annotations

import logging
import math
import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.samplers import BaseSampler, RandomSampler
from optuna.search_space import IntersectionSearchSpace
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

import hpo_playground
from hpo_playground._space import describe_space, optuna_distribution
from hpo_playground.multi_fidelity import MultiFidelity

__all__ = ["Sampler", "describe", "optimize_multi_fidelity"]

_logger = logging.getLogger(__name__)


class Sampler(BaseSampler):
    """Optuna sampler running a full-evaluation method of the engine.

    Args:
        method: a name of ``hpo_playground.methods()`` (GP, GCP, TS, …; with
            ``related_studies``, also the transfer methods such as GCP+prior or CTS).
        seed: the engine's seed for the first proposal (then a stream drawn from it), and the
            RandomSampler's seed.
        related_studies: Optuna studies of the same search space and direction that transfer
            methods learn from (the study being optimised is the held-out task).
        constraints_func: not taken (a ``TypeError`` says so): set each constraint inside the
            objective with Optuna's ``trial.set_constraint(name, value)``, which the sampler
            honours.

    A study of several objectives (``optuna.create_study(directions=[...])``) takes a method
    that proposes for several (GP+MO, GCP+MO, ParEGO, …: ``hpo suggest`` lists them); any
    other method raises ``hpo_playground.EngineError`` naming those that fit. Pruned trials
    of such a study stay out of the model: they report one series of intermediate values,
    not a value per objective.
    """

    def __init__(
        self,
        method: str = "GP",
        seed: int | None = 0,
        related_studies: Sequence[Study] | None = None,
        liar: str = "believer",
        *,
        constraints_func: Any = None,
    ) -> None:
        if constraints_func is not None:
            raise TypeError(
                "hpo_playground's Sampler takes no constraints_func: set each constraint inside the"
                " objective with Optuna's trial.set_constraint(name, value) (feasible when <= 0), which"
                " the sampler honours"
            )
        known = hpo_playground.methods()
        if method not in known["single"] + known["related"]:
            raise ValueError(
                f"unknown method {method!r}: the engine has {', '.join(known['single'])}"
                f" and, with related_studies, {', '.join(known['related'])}"
            )
        if method in known["related"] and not related_studies:
            raise ValueError(f"{method} learns from related studies: pass related_studies=[...]")
        self._method = method
        self._liar = liar
        self._seeds = _SeedStream(seed)
        self._related = list(related_studies or [])
        self._random = RandomSampler(seed=seed)
        self._intersection = IntersectionSearchSpace()
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def reseed_rng(self) -> None:
        self._seeds = _SeedStream(None)
        self._random.reseed_rng()

    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        # A parameter with one value is not searched (Optuna's samplers skip it too).
        return {
            name: d
            for name, d in self._intersection.calculate(study).items()
            if not d.single()
        }

    def sample_relative(
        self,
        study: Study,
        trial: FrozenTrial,
        search_space: dict[str, BaseDistribution],
    ) -> dict[str, Any]:
        if not search_space:
            return {}
        # One proposal at a time in this process: each sees the ones before as pending.
        with self._lock:
            trials = study.get_trials(deepcopy=False)
            if not any(t.state == TrialState.COMPLETE for t in trials):
                return {}  # nothing to learn from yet: RandomSampler samples every parameter
            description = describe(study.study_name, study.directions, trials, search_space)
            related = [
                describe(r.study_name, r.directions, r.get_trials(deepcopy=False), search_space)
                for r in self._related
            ]
            (row,) = hpo_playground.suggest(
                description, self._method, k=1, seed=self._seeds.next(), related=related, liar=self._liar
            )
            names = [name for name, _ in description["distributions"]]
            proposal = {
                name: search_space[name].to_external_repr(value)
                for name, value in zip(names, row)
            }
            study._storage.set_trial_system_attr(trial._trial_id, PROPOSAL_KEY, proposal)
            return proposal

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        return self._random.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        self._random.before_trial(study, trial)

    def after_trial(
        self,
        study: Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Sequence[float] | None,
    ) -> None:
        self._random.after_trial(study, trial, state, values)


class _SeedStream:
    """The engine's seed for each proposal: the sampler's seed first (so the first proposal is
    ``hpo suggest --seed``'s), then draws from a stream seeded by it (a fresh stream when
    Optuna reseeds, as it does for each of ``n_jobs`` threads)."""

    def __init__(self, seed: int | None) -> None:
        self._first = seed if seed is not None else random.SystemRandom().getrandbits(63)
        self._stream = random.Random(self._first)
        self._used_first = False

    def next(self) -> int:
        if not self._used_first:
            self._used_first = True
            return self._first
        return self._stream.getrandbits(63)


PROPOSAL_KEY = "hpo_playground:proposal"
"""The system attribute holding a trial's proposal (external values) from the moment it is made."""


def describe(
    name: str,
    directions: Sequence[StudyDirection],
    trials: Sequence[FrozenTrial],
    search_space: dict[str, BaseDistribution],
) -> dict[str, Any]:
    """A study as ``hpo_playground.suggest`` reads it, over ``search_space``: its parameters in
    the order the trials first suggested them (the journal loader's order), each trial's
    values of them as Optuna's internal values, its values (an infinite one by name) and its
    constraints. A pending trial's parameters are those it has suggested, else its proposal
    (``PROPOSAL_KEY``) or, enqueued and WAITING, the parameters ``enqueue_trial`` fixed."""
    order: list[str] = []
    for t in sorted(trials, key=lambda t: t.number):
        order += [p for p in t.params if p in search_space and p not in order]
    order += [p for p in search_space if p not in order]
    return {
        "name": name,
        "directions": [
            "maximize" if d == StudyDirection.MAXIMIZE else "minimize" for d in directions
        ],
        "distributions": [[p, optuna_distribution(p, search_space[p])] for p in order],
        "trials": [
            {
                "state": t.state.name,
                "params": _params(t, search_space),
                "values": None if t.values is None else [_value(v) for v in t.values],
                "intermediate": dict(t.intermediate_values),
                "constraints": dict(t.constraints),
            }
            for t in sorted(trials, key=lambda t: t.number)
        ],
    }


def _params(t: FrozenTrial, search_space: dict[str, BaseDistribution]) -> dict[str, float]:
    """A trial's parameters of ``search_space`` as internal values (see ``describe``)."""
    params = {
        p: search_space[p].to_internal_repr(v)
        for p, v in t.params.items()
        if p in search_space and t.distributions.get(p) == search_space[p]
    }
    if t.state not in (TrialState.RUNNING, TrialState.WAITING) or len(params) == len(search_space):
        return params
    planned = t.system_attrs.get(PROPOSAL_KEY) or t.system_attrs.get("fixed_params") or {}
    for p, v in planned.items():
        if p in search_space and p not in params:
            try:
                internal = search_space[p].to_internal_repr(v)
            except ValueError:
                continue  # a fixed value outside the distribution: not a point of this space
            if search_space[p]._contains(internal):
                params[p] = internal
    return params


def _value(v: float) -> float | str | None:
    """An objective value as the engine reads it: infinities by name, NaN as ``None``."""
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None if math.isnan(v) else v


def optimize_multi_fidelity(
    study: Study,
    train_step: Callable[[dict[str, Any], int, Any], tuple[float, Any]],
    *,
    space: Mapping[str, Any],
    max_budget: int,
    total_budget: int,
    n_configs: int = 256,
    method: str = "DyHPO",
    seed: int = 0,
    catch: type[Exception] | Iterable[type[Exception]] = (Exception,),
) -> MultiFidelity:
    """Runs the multi-fidelity ``method`` on ``study``, one configuration step at a time.

    ``train_step(params, step, state)`` trains the configuration ``params`` for budget step
    ``step`` (1..max_budget) from ``state`` (``None`` at step 1; what it returned at the step
    before, kept in memory while the configuration is paused) and returns ``(value, state)``.
    ``n_configs`` configurations are drawn from ``space`` (as ``MultiFidelity`` reads it) and
    raced until ``total_budget`` steps are trained; the study's direction is the method's.

    Every configuration the method starts is an Optuna trial, created when it starts (an
    enqueued trial with its parameters) and given each step's value as an intermediate value
    (``trial.report(value, step)``) as soon as it is trained, so the storage holds every curve
    as it grows. Optuna cannot resume a finished trial, so a paused configuration's trial stays
    RUNNING until the configuration reaches ``max_budget`` (then COMPLETE with its last value)
    or the run ends (then PRUNED, with its last intermediate value, as Optuna records trials
    stopped early). A ``train_step`` that raises one of ``catch`` (by default any
    ``Exception``; unlike ``study.optimize``, whose default ends the run) marks its trial FAIL,
    logs a warning and releases the configuration (``MultiFidelity.fail``: never trained again,
    its untrained steps return to the budget), and the run goes on; any other exception
    (``KeyboardInterrupt``, or every one with ``catch=()``) marks the trial FAIL and ends the
    run, the paused trials PRUNED. A NaN value from ``train_step`` is its trial's failure the
    same way (FAIL, a warning naming it, the configuration released; the run goes on); an
    infinite one is recorded as it is and clipped for the method (``MultiFidelity.report``). If the process is killed, the complete trials and every
    reported step are in the storage already; the configurations in training stay RUNNING.

    Returns the ``MultiFidelity`` session (``best``, ``in_training``, …). One process per study:
    the session lives in this process's memory.
    """
    if len(study.directions) != 1:
        raise ValueError("optimize_multi_fidelity optimises single-objective studies only")
    description = describe_space(space)
    distributions = {name: _optuna_distribution(d) for name, d in description}
    session = MultiFidelity(
        dict(description),
        method,
        max_budget=max_budget,
        seed=seed,
        direction="maximize" if study.direction == StudyDirection.MAXIMIZE else "minimize",
        total_budget=total_budget,
        n_configs=n_configs,
    )
    caught = (catch,) if isinstance(catch, type) else tuple(catch)
    trials: dict[int, optuna.Trial] = {}
    states: dict[int, Any] = {}
    finished: set[int] = set()
    try:
        while (asked := session.ask()) is not None:
            config, params, budget = asked
            if config not in trials:
                study.enqueue_trial(params, skip_if_exists=False)
                trials[config] = study.ask(distributions)
            trial = trials[config]
            failed = False
            for step in range(session.reached(config) + 1, budget + 1):
                try:
                    value, states[config] = train_step(params, step, states.get(config))
                except caught as error:
                    _logger.warning(
                        "Trial %d failed at step %d with parameters %s: %r; the run goes on"
                        " without it.",
                        trial.number,
                        step,
                        params,
                        error,
                        exc_info=True,
                    )
                    study.tell(trial, state=TrialState.FAIL)
                    finished.add(config)
                    states.pop(config, None)
                    session.fail(config)
                    failed = True
                    break
                except BaseException:
                    study.tell(trial, state=TrialState.FAIL)
                    finished.add(config)
                    raise
                outcome = session.report(config, step, value)  # a NaN fails it, with a warning
                trial.report(float(value), step)
                if outcome == "failed":
                    study.tell(trial, state=TrialState.FAIL)
                    finished.add(config)
                    states.pop(config, None)
                    failed = True
                    break
            if budget == max_budget and not failed:
                study.tell(trial, float(value))
                finished.add(config)
                states.pop(config, None)
    finally:
        for config, trial in trials.items():
            if config not in finished:
                study.tell(trial, state=TrialState.PRUNED)
    return session


def _optuna_distribution(d: dict[str, Any]) -> BaseDistribution:
    if d["type"] == "float":
        return FloatDistribution(d["low"], d["high"], log=d["log"], step=d["step"])
    if d["type"] == "int":
        return IntDistribution(d["low"], d["high"], log=d["log"], step=d["step"])
    return CategoricalDistribution(d["choices"])
