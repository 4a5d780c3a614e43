"""A Syne Tune 0.16 scheduler running a multi-fidelity method of the engine:
``Scheduler(config_space, method="DyHPO", metric="loss", mode="min", max_t=50)``.

The method decides which configuration trains next and up to which ``resource_attr`` value;
the scheduler starts a trial for a configuration's first request and resumes that trial (from
its checkpoint, which the training script keeps) for the later ones, and pauses the trial when
the request's budget is reported. Trials report ``metric`` and ``resource_attr`` (1, 2, …,
``max_t``) every step, as Syne Tune's multi-fidelity scripts do. With ``max_resource_attr``
(the config key the script reads as the last epoch to train, as Syne Tune's own promotion
schedulers use it) each start and resume sets it to the request's budget, so the script stops
exactly where the method pauses it; without it, a script that trains on while its pause takes
effect may checkpoint steps whose reports Syne Tune drops, and its next report, past a step the
method never saw, raises a ``ValueError`` saying so.

Syne Tune's tuner ends the search when ``suggest`` returns ``None``: Syne Tune 0.16's
``Tuner._schedule_new_task`` turns it into ``StopIteration``, the loop sets
``config_space_exhausted`` and from then on only waits for the running trials; there is no
answer meaning "no trial right now". So every method runs with any ``n_workers``: while the
total budget lasts, the engine hands out a useful request instead of waiting — Hyperband, BOHB
and DEHB start the next bracket's first rung while a rung's members train (as Syne Tune's own
synchronous Hyperband did), and a request a method planned for a configuration in training is
kept while the method is asked for another. The scheduler returns ``None`` when the total
budget is spent or the method can train nothing more, and in one state where the method must
wait: every one of the ``n_configs`` configurations is started and what is left to train
depends on trials still running (a rung's decision). It then logs a warning saying so, with the
budget left and the trials it waits for: raise ``n_configs``. A trial that fails (Syne Tune's
``on_trial_error``: the script raised, or the trial was stopped by something other than the
scheduler) or whose script ends before reporting its request's budget (``on_trial_complete``
with the request open) is released (``MultiFidelity.fail``): the configuration is never
handed out again, a rung no longer waits for it and its untrained steps return to the budget.
A trial that reports a NaN ``metric`` is released the same way and STOPped, with a warning
naming it, and the run goes on; an infinite value is clipped (``MultiFidelity.report``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from syne_tune.backend.trial_status import Trial
from syne_tune.config_space import Categorical, Domain, FiniteRange, Float, Integer, is_log_space
from syne_tune.optimizer.scheduler import SchedulerDecision, TrialScheduler, TrialSuggestion

from hpo_playground.multi_fidelity import MultiFidelity

__all__ = ["Scheduler"]

logger = logging.getLogger(__name__)


class Scheduler(TrialScheduler):
    """Syne Tune ``TrialScheduler`` pausing and resuming trials as the engine's method says.

    Args:
        config_space: Syne Tune's configuration space; its ``uniform``/``loguniform``,
            ``randint``/``lograndint``, ``choice`` and ``finrange`` entries are searched, other
            values are passed to every trial as they are.
        method: a name of ``hpo_playground.multi_fidelity.methods()``.
        metric: the reported metric the method optimises; ``mode``: ``"min"`` or ``"max"``.
        max_t: the largest value of ``resource_attr`` (budget steps of a full training).
        resource_attr: the reported budget step (``"epoch"``).
        max_resource_attr: the config key set to each request's budget (see the module).
        seed: the engine's seed. ``total_budget``, ``n_configs``: as ``MultiFidelity``'s.
    """

    def __init__(
        self,
        config_space: Mapping[str, Any],
        method: str = "DyHPO",
        *,
        metric: str,
        mode: str = "min",
        max_t: int,
        resource_attr: str = "epoch",
        max_resource_attr: str | None = None,
        seed: int = 0,
        total_budget: int | None = None,
        n_configs: int = 2048,
    ) -> None:
        super().__init__(random_seed=seed)
        if mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max', not {mode!r}")
        self.config_space = dict(config_space)
        self.metric = metric
        self.mode = mode
        self.max_t = max_t
        self.resource_attr = resource_attr
        self.max_resource_attr = max_resource_attr
        searched = {k: v for k, v in config_space.items() if isinstance(v, Domain)}
        self._constants = {k: v for k, v in config_space.items() if not isinstance(v, Domain)}
        self._session = MultiFidelity(
            {name: _distribution(name, d) for name, d in searched.items()},
            method,
            max_budget=max_t,
            seed=seed,
            direction="minimize" if mode == "min" else "maximize",
            total_budget=total_budget,
            n_configs=n_configs,
        )
        self._trial_of: dict[int, int] = {}
        self._config_of: dict[int, int] = {}
        self._starting: int | None = None

    def suggest(self) -> TrialSuggestion | None:
        asked = self._session.ask()
        if asked is None:
            if not self._session.finished and self._session.remaining != 0:
                # The method waits for a running trial; Syne Tune reads None as "exhausted". (With
                # the budget all handed out, the session waits for the trials still training.)
                waiting = sorted(self._trial_of[c] for c, _, _ in self._session.in_training() if c in self._trial_of)
                left = self._session.remaining
                logger.warning(
                    "%s waits for trials %s: every one of its %d configurations is started and what"
                    " is left to train depends on them. Syne Tune 0.16 takes None for an exhausted"
                    " search space and starts no further trial, with %s budget units left: raise n_configs",
                    self._session.method,
                    waiting,
                    self._session.n_configs,
                    "unlimited" if left is None else left,
                )
            return None
        config, params, budget = asked
        settings = {**self._constants, **params}
        if self.max_resource_attr is not None:
            settings[self.max_resource_attr] = budget
        if config in self._trial_of:
            resumed = settings if self.max_resource_attr is not None else None
            return TrialSuggestion.resume_suggestion(self._trial_of[config], resumed)
        self._starting = config
        return TrialSuggestion.start_suggestion(settings)

    def on_trial_add(self, trial: Trial) -> None:
        if self._starting is not None:
            self._trial_of[self._starting] = trial.trial_id
            self._config_of[trial.trial_id] = self._starting
            self._starting = None

    def on_trial_result(self, trial: Trial, result: dict[str, Any]) -> str:
        config = self._config_of.get(trial.trial_id)
        if config is None:
            raise ValueError(f"trial {trial.trial_id} was not started by this scheduler")
        for key in (self.metric, self.resource_attr):
            if key not in result:
                raise ValueError(f"trial {trial.trial_id} reported no {key!r}: {sorted(result)}")
        step = int(result[self.resource_attr])
        reached = self._session.reached(config)
        if step <= reached:
            return SchedulerDecision.CONTINUE  # a step told before (a script resumed without its checkpoint)
        if all(c != config for c, _, _ in self._session.in_training()):
            return SchedulerDecision.PAUSE  # reported past its request before the pause took effect
        if step > reached + 1:
            raise ValueError(
                f"trial {trial.trial_id} reported {self.resource_attr} {step} after {reached}: the"
                f" method needs every step's {self.metric}. A script that trained on after its pause"
                " resumes past it: pass max_resource_attr (the config key of the last epoch to"
                " train) so that it stops at each request's budget"
            )
        outcome = self._session.report(config, step, result[self.metric])
        if outcome == "training":
            return SchedulerDecision.CONTINUE
        if outcome == "failed":
            return SchedulerDecision.STOP  # NaN: released, with a warning naming it
        return SchedulerDecision.STOP if step >= self.max_t else SchedulerDecision.PAUSE

    def on_trial_error(self, trial: Trial) -> None:
        self._release(trial)

    def on_trial_complete(self, trial: Trial, result: dict[str, Any]) -> None:
        # Called only when the script ended without the scheduler's pause or stop: a request
        # still open then can never be told to the end.
        self._release(trial)

    def _release(self, trial: Trial) -> None:
        config = self._config_of.get(trial.trial_id)
        if config is not None and any(c == config for c, _, _ in self._session.in_training()):
            self._session.fail(config)

    def metric_names(self) -> list[str]:
        return [self.metric]

    def metric_mode(self) -> str:
        return self.mode

    @property
    def session(self) -> MultiFidelity:
        """The method's ask/tell session (``best``, ``in_training``, …)."""
        return self._session


def _distribution(name: str, d: Domain) -> dict[str, Any]:
    log = is_log_space(d)
    if isinstance(d, FiniteRange):
        if d.size < 2 or log:
            return {"type": "categorical", "choices": list(d.values)}
        step = (d.upper - d.lower) / (d.size - 1)
        if d.cast_int:
            return {"type": "int", "low": int(d.lower), "high": int(d.upper), "log": False, "step": int(round(step))}
        return {"type": "float", "low": d.lower, "high": d.upper, "log": False, "step": step}
    if isinstance(d, Categorical):
        return {"type": "categorical", "choices": list(d.categories)}
    if isinstance(d, Integer):
        return {"type": "int", "low": d.lower, "high": d.upper, "log": log, "step": 1}
    if isinstance(d, Float):
        return {"type": "float", "low": d.lower, "high": d.upper, "log": log, "step": None}
    raise TypeError(
        f"parameter {name!r} is a {type(d).__name__}: the scheduler searches Syne Tune's Float,"
        " Integer, Categorical and FiniteRange domains"
    )
