"""The engine's methods in Ray Tune 2.60: ``Searcher`` for the full-evaluation methods (GP, GCP,
GCP+prior, …) and ``MultiFidelityScheduler`` with its ``searcher`` for the multi-fidelity ones
(DyHPO, ASHA, Hyperband, GPB, …), which pause trials and resume them from their checkpoints.

Both read Ray's search space (``tune.uniform``, ``loguniform``, ``quniform``, ``randint``,
``lograndint``, ``qrandint``, ``choice``; nested dicts as ``"a/b"``, Ray's convention) and
refuse the domains the engine has no distribution for (``randn``, ``qloguniform``,
``qlograndint``, ``sample_from``, ``grid_search``) with a ``ValueError`` naming the parameter.

``Searcher``: each trial is one full evaluation. The study described to the engine
(``hpo_playground.suggest``) holds every trial Ray asked for: those with a result as COMPLETE,
those still running as RUNNING with their parameters (the proposal accounts for them), those
that errored or reported NaN or no number as FAIL (with a warning naming the trial); an infinite
value is kept, and clipped by the engine to the finite ones. Until a trial is complete the proposals are
random draws from ``seed`` (as the Optuna sampler's RandomSampler), so a run is deterministic
given the seed and the order of the results.

``MultiFidelityScheduler``: one ``MultiFidelity`` session decides which configuration trains to
which budget. Its ``searcher`` creates a trial for each configuration the method starts; the
scheduler PAUSEs a trial when the budget of its request is reported, lets Ray resume it from its
checkpoint when the method asks for that configuration again (a trial's checkpoint is never of
an epoch the method was not told: a trial that trains past its request is paused without a
save, that epoch untold, and resumes from its last told one), STOPs it at ``max_t`` and stops
the paused trials once the session is done. At most ``max_concurrent_trials`` requests are out
at a time. A value from training goes through ``MultiFidelity.report``: a NaN (or no number)
STOPs the trial and releases its configuration, with a warning naming it; an infinite value is
clipped. The session's state survives ``Tuner.restore``: it is saved as the sequence of
asks, tells and fails, which a fresh session with the same seed replays (the engine is
deterministic), so nothing of the Rust object needs pickling.
"""

from __future__ import annotations

import logging
import math
import numbers
import pickle
import random
import sys
import uuid
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from ray.tune.experiment import Trial
from ray.tune.schedulers import TrialScheduler
from ray.tune.search import Searcher as _RaySearcher
from ray.tune.search.sample import Categorical, Domain, Float, Integer, LogUniform, Quantized, Uniform
from ray.tune.search.variant_generator import parse_spec_vars

import hpo_playground
from hpo_playground._space import checked
from hpo_playground.multi_fidelity import MultiFidelity

logger = logging.getLogger(__name__)

__all__ = ["MultiFidelityScheduler", "Searcher", "describe_space"]

_MODES = {"min": "minimize", "max": "maximize"}


def describe_space(param_space: Mapping[str, Any]) -> list[list[Any]]:
    """Ray's ``param_space`` as the engine reads it: ``[name, distribution]`` for every search
    domain (``"a/b"`` for a nested one), constants left out (Ray passes them to every trial)."""
    _, domains, grids = parse_spec_vars(dict(param_space))
    if grids:
        names = ", ".join("/".join(map(str, path)) for path, _ in grids)
        raise ValueError(f"grid_search ({names}) has no place in a search the engine's methods drive: use tune.choice")
    if not domains:
        raise ValueError("the param_space has no search domain (tune.uniform, tune.choice, …) to search")
    return checked([["/".join(map(str, path)), _distribution("/".join(map(str, path)), d)] for path, d in domains])


def _distribution(name: str, d: Domain) -> dict[str, Any]:
    sampler = d.get_sampler()
    q = None
    if isinstance(sampler, Quantized):
        q, sampler = sampler.q, sampler.get_sampler()
    log = isinstance(sampler, LogUniform)
    refused = f"parameter {name!r}: {type(d).__name__} with {type(sampler).__name__}{' quantized' if q else ''}"
    if isinstance(d, Categorical) and isinstance(sampler, Uniform):
        return {"type": "categorical", "choices": _plain_choices(d.categories)}
    if isinstance(d, Float) and isinstance(sampler, (Uniform, LogUniform)):
        if q is None:
            return {"type": "float", "low": float(d.lower), "high": float(d.upper), "log": log, "step": None}
        if log:
            raise ValueError(f"{refused}: qloguniform has no engine distribution (a log scale has no step): use tune.loguniform")
        # Ray checks that both bounds are multiples of q, so its values are low + k*q.
        return {"type": "float", "low": float(d.lower), "high": float(d.upper), "log": False, "step": float(q)}
    if isinstance(d, Integer) and isinstance(sampler, (Uniform, LogUniform)):
        if q is None or q == 1:
            # randint/lograndint (and qrandint with q=1) exclude the upper bound.
            return {"type": "int", "low": int(d.lower), "high": int(d.upper) - 1, "log": log, "step": 1}
        if log:
            raise ValueError(f"{refused}: qlograndint has no engine distribution (a log scale has no step): use tune.lograndint")
        if d.lower % q:
            raise ValueError(f"{refused}: qrandint's lower bound {d.lower} is not a multiple of q={q}")
        high = d.lower + (d.upper - d.lower) // q * q  # qrandint includes the upper bound
        return {"type": "int", "low": int(d.lower), "high": int(high), "log": False, "step": int(q)}
    raise ValueError(
        f"{refused} is not searched by the engine: use tune.uniform, loguniform, quniform, randint,"
        " lograndint, qrandint or choice"
    )


def _plain_choices(categories: Sequence[Any]) -> list[Any]:
    """The choices as the engine's JSON holds them; choices JSON has no form for (objects,
    functions) are passed as their indices, which is all a categorical kernel needs."""
    if all(c is None or isinstance(c, (str, bool, int, float)) for c in categories):
        if all(not isinstance(c, float) or math.isfinite(c) for c in categories):
            return list(categories)
    return list(range(len(categories)))


class _Space:
    """A described space with the conversions between Ray's values and the engine's internal ones
    (a number as it is, a choice as its index) and the seeded random draws."""

    def __init__(self, param_space: Mapping[str, Any]) -> None:
        self.description = describe_space(param_space)
        self.categories = {
            "/".join(map(str, path)): list(d.categories)
            for path, d in parse_spec_vars(dict(param_space))[1]
            if isinstance(d, Categorical)
        }

    def external(self, row: Sequence[float]) -> dict[str, Any]:
        config: dict[str, Any] = {}
        for (name, d), v in zip(self.description, row):
            if d["type"] == "categorical":
                config[name] = self.categories[name][int(v)]
            elif d["type"] == "int":
                config[name] = int(round(v))
            else:
                config[name] = float(v)
        return config

    def from_engine(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """A configuration as ``MultiFidelity.params`` gives it, with Ray's own choices."""
        config = dict(params)
        for name, d in self.description:
            if d["type"] == "categorical":
                config[name] = self.categories[name][d["choices"].index(params[name])]
        return config

    def internal(self, config: Mapping[str, Any], what: str) -> dict[str, float]:
        values = {}
        for name, d in self.description:
            if name not in config:
                raise ValueError(f"{what} has no value for {name!r}")
            v = config[name]
            if d["type"] == "categorical":
                if v not in self.categories[name]:
                    raise ValueError(f"{what}: {name}={v!r} is not one of {self.categories[name]}")
                values[name] = float(self.categories[name].index(v))
            else:
                values[name] = float(v)
        return values

    def draw(self, rng: random.Random) -> list[float]:
        row = []
        for _, d in self.description:
            if d["type"] == "categorical":
                row.append(float(rng.randrange(len(d["choices"]))))
            elif d["type"] == "int":
                if d["log"]:
                    v = round(math.exp(rng.uniform(math.log(d["low"] - 0.5), math.log(d["high"] + 0.5))))
                    row.append(float(min(max(v, d["low"]), d["high"])))
                else:
                    row.append(float(d["low"] + d["step"] * rng.randint(0, (d["high"] - d["low"]) // d["step"])))
            elif d["step"] is not None:
                n = int(math.floor((d["high"] - d["low"]) / d["step"] + 1e-9))
                row.append(d["low"] + d["step"] * rng.randint(0, n))
            elif d["log"]:
                row.append(math.exp(rng.uniform(math.log(d["low"]), math.log(d["high"]))))
            else:
                row.append(rng.uniform(d["low"], d["high"]))
        return row


def _has_domains(param_space: Mapping[str, Any]) -> bool:
    _, domains, grids = parse_spec_vars(dict(param_space))
    return bool(domains or grids)


def _unflatten(config: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for name, v in config.items():
        *parents, leaf = name.split("/")
        node = nested
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = v
    return nested


def _flat(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat = {}
    for k, v in config.items():
        if isinstance(v, Mapping):
            flat.update(_flat(v, f"{prefix}{k}/"))
        else:
            flat[f"{prefix}{k}"] = v
    return flat


class Searcher(_RaySearcher):
    """Ray Tune ``Searcher`` running a full-evaluation method of the engine.

    Args:
        space: Ray's search space; ``None`` to take the Tuner's ``param_space``.
        method: a name of ``hpo_playground.methods()["single"]`` (GP, GCP, …), or with
            ``related`` one of ``["related"]`` (GCP+prior, CTS, …).
        metric, mode: the reported metric and ``"min"``/``"max"`` (or the TuneConfig's).
        seed: the random draws before the first result, and the engine's seeds after.
        related: results of related tasks on the same space, for the transfer methods: a list
            whose items are each an Optuna study (its complete trials) or a list of
            ``(config, value)`` pairs, ``config`` a flat dict of this space's values (``"a/b"``
            for a nested parameter) and ``value`` in this search's ``mode``.
        name: the study name the engine sees (part of its seed, as in ``hpo suggest``).
    """

    def __init__(
        self,
        space: Mapping[str, Any] | None = None,
        method: str = "GP",
        *,
        metric: str | None = None,
        mode: str | None = None,
        seed: int = 0,
        related: Sequence[Any] | None = None,
        name: str = "ray-tune",
    ) -> None:
        known = hpo_playground.methods()
        if method not in known["single"] + known["related"]:
            raise ValueError(
                f"unknown method {method!r}: the engine has {', '.join(known['single'])}"
                f" and, with related results, {', '.join(known['related'])}"
            )
        if method in known["related"] and not related:
            raise ValueError(f"{method} learns from related results: pass related=[...]")
        if mode is not None and mode not in _MODES:
            raise ValueError(f"mode must be 'min' or 'max', not {mode!r}")
        super().__init__(metric=metric, mode=mode)
        self._method = method
        self._name = name
        self._space = _Space(space) if space is not None else None
        self._related = [_related_pairs(r, i) for i, r in enumerate(related or [])]
        self._draws = random.Random(seed)
        self._seeds = random.Random(seed)
        self._first_seed: int | None = seed
        self._trials: dict[str, dict[str, Any]] = {}  # trial id -> state, params, values; in suggestion order

    def set_search_properties(self, metric: str | None, mode: str | None, config: dict, **spec: Any) -> bool:
        if self._space is not None and _has_domains(config):
            return False  # Ray's contract: a searcher with a space of its own takes no other
        if mode is not None and mode not in _MODES:
            raise ValueError(f"mode must be 'min' or 'max', not {mode!r}")
        if self._space is None:
            self._space = _Space(config)
        self._metric = self._metric or metric
        self._mode = self._mode or mode
        return True

    def suggest(self, trial_id: str) -> dict[str, Any] | None:
        if self._space is None:
            raise RuntimeError("hpo_playground Searcher has no search space: pass space= or the Tuner's param_space")
        if self._metric is None or self._mode is None:
            raise RuntimeError("hpo_playground Searcher needs metric and mode (here or in tune.TuneConfig)")
        if any(t["state"] == "COMPLETE" for t in self._trials.values()):
            (row,) = hpo_playground.suggest(
                self.study(), self._method, k=1, seed=self._next_seed(), related=self._related_studies()
            )
        else:
            row = self._space.draw(self._draws)
        config = self._space.external(row)
        names = [n for n, _ in self._space.description]
        self._trials[trial_id] = {"state": "RUNNING", "params": dict(zip(names, row)), "values": None}
        return _unflatten(config)

    def on_trial_complete(self, trial_id: str, result: dict | None = None, error: bool = False) -> None:
        trial = self._trials.get(trial_id)
        if trial is None:
            return
        value = None if result is None else _flat(result).get(self._metric)
        number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if not error and (not number or math.isnan(value)):
            logger.warning(
                "trial %s reported %r = %r, not a number: it counts as failed (FAIL) and the search goes on",
                trial_id, self._metric, value,
            )
        if error or not number or math.isnan(value):
            trial["state"] = "FAIL"  # kept with its parameters: the study shows what failed
        else:  # an infinite value too: the engine clips it to the finite ones, as the sampler's
            trial["state"], trial["values"] = "COMPLETE", [float(value)]

    def study(self) -> dict[str, Any]:
        """The study as the engine reads it (``hpo_playground.suggest``'s schema)."""
        return {
            "name": self._name,
            "directions": [_MODES[self._mode]],
            "distributions": self._space.description,
            "trials": [{**t, "intermediate": {}} for t in self._trials.values()],
        }

    def _related_studies(self) -> list[dict[str, Any]]:
        return [
            {
                "name": f"{self._name}-related-{i}",
                "directions": [direction or _MODES[self._mode]],
                "distributions": self._space.description,
                "trials": [
                    {"state": "COMPLETE", "params": self._space.internal(c, f"related[{i}]"), "values": [float(v)]}
                    for c, v in pairs
                ],
            }
            for i, (direction, pairs) in enumerate(self._related)
        ]

    def _next_seed(self) -> int:
        # The seed itself first (the first proposal is `hpo suggest --seed`'s), then a stream.
        if self._first_seed is not None:
            first, self._first_seed = self._first_seed, None
            return first
        return self._seeds.getrandbits(63)

    def save(self, checkpoint_path: str) -> None:
        with open(checkpoint_path, "wb") as f:
            pickle.dump(self.__dict__, f)

    def restore(self, checkpoint_path: str) -> None:
        with open(checkpoint_path, "rb") as f:
            self.__dict__.update(pickle.load(f))


def _related_pairs(related: Any, i: int) -> tuple[str | None, list[tuple[dict, float]]]:
    """(direction or None for this search's, [(flat config, value)]) of one related task."""
    if hasattr(related, "get_trials") and hasattr(related, "directions"):  # an Optuna study
        from optuna.trial import TrialState

        if len(related.directions) != 1:
            raise ValueError(f"related[{i}]: a study of one objective is needed")
        direction = related.directions[0].name.lower()
        pairs = [(t.params, t.value) for t in related.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
    else:
        direction = None
        try:
            pairs = [(_flat(dict(c)), float(v)) for c, v in related]
        except (TypeError, ValueError) as e:
            raise ValueError(f"related[{i}] is neither an Optuna study nor a list of (config, value) pairs: {e}") from None
    if not pairs:
        raise ValueError(f"related[{i}] has no complete result")
    return direction, pairs


class _Race:
    """The multi-fidelity session the scheduler and its searcher share. The session (a Rust
    object) cannot be pickled, so its state is kept as what was done to it — every ask with its
    answer, every tell and fail, in order — and rebuilt by replaying that into a fresh session
    with the same settings, which the engine's determinism makes identical."""

    # The races of this process by id: a copy or an unpickled copy of the scheduler or of its
    # searcher (Ray pickles both into the experiment) is the same race, never a second one.
    # Weak: a race lives as long as a scheduler or searcher holds it.
    _live: weakref.WeakValueDictionary[str, _Race] = weakref.WeakValueDictionary()

    def __init__(self, settings: dict[str, Any], space: Mapping[str, Any] | None) -> None:
        self.id = uuid.uuid4().hex
        self.settings = settings
        self.space = _Space(space) if space is not None else None
        self.metric: str | None = settings.pop("metric")
        self.mode: str | None = settings.pop("mode")
        self.n_workers = 1
        self.history: list[tuple] = []
        self.trial_of: dict[int, str] = {}  # configuration -> its trial
        self.config_of: dict[str, int] = {}
        self.new: list[int] = []  # configurations started by the method, awaiting a trial
        self.session: MultiFidelity | None = None
        _Race._live[self.id] = self

    def __reduce__(self):
        return _race, (self.id, self.state())

    def state(self) -> dict[str, Any]:
        keys = ("settings", "space", "metric", "mode", "n_workers", "history", "trial_of", "config_of", "new")
        return {k: getattr(self, k) for k in keys}

    def load(self, state: Mapping[str, Any]) -> None:
        """Takes ``state`` (saved by ``state()``), replaying its history into a fresh session."""
        self.__dict__.update({k: v for k, v in state.items()})
        self.session = None
        if self.history:
            self._start()
            for event in self.history:
                self._replay(event)

    def _replay(self, event: tuple) -> None:
        kind = event[0]
        if kind == "wait":
            for _ in range(event[1]):
                got = self.session.ask()
                if got is not None:
                    raise RuntimeError(f"replaying the multi-fidelity session: an ask that waited now hands out {got[::2]}")
        elif kind == "ask":
            got = self.session.ask()
            if got is None or (got[0], got[2]) != event[1]:
                raise RuntimeError(f"replaying the multi-fidelity session: ask gave {event[1]} then, {got and got[::2]} now")
        elif kind == "tell":
            self.session.tell(*event[1:])
        else:
            self.session.fail(event[1])

    def ready(self) -> bool:
        if self.session is None and self.space is not None and self.metric is not None and self.mode is not None:
            self._start()
        return self.session is not None

    def _start(self) -> None:
        s = self.settings
        self.session = MultiFidelity(
            dict(self.space.description),
            s["method"],
            max_budget=s["max_t"],
            seed=s["seed"],
            direction=_MODES[self.mode],
            total_budget=s["total_budget"],
            n_configs=s["n_configs"],
        )

    def training(self) -> set[int]:
        return {c for c, _, _ in self.session.in_training()} if self.session is not None else set()

    def fill(self) -> None:
        """Asks the method for requests while fewer than ``n_workers`` are out."""
        if not self.ready():
            return
        while not self.session.finished and len(self.session.in_training()) < self.n_workers:
            asked = self.session.ask()
            if asked is None:
                if self.history and self.history[-1][0] == "wait":
                    self.history[-1] = ("wait", self.history[-1][1] + 1)
                else:
                    self.history.append(("wait", 1))
                return
            config, _, budget = asked
            self.history.append(("ask", (config, budget)))
            if config not in self.trial_of:
                self.new.append(config)

    def bind(self, trial_id: str, config: int) -> None:
        self.trial_of[config] = trial_id
        self.config_of[trial_id] = config

    def report(self, config: int, step: int, value: float) -> str:
        """``MultiFidelity.report``: a NaN fails the configuration, an infinite value is clipped."""
        outcome = self.session.report(config, step, value)
        self.history.append(("tell", config, step, float(value)))
        return outcome

    def release(self, trial_id: str) -> None:
        """Fails the configuration of a trial that ended with its request open."""
        config = self.config_of.get(trial_id)
        if config is not None and config in self.training():
            self.session.fail(config)
            self.history.append(("fail", config))


def _race(race_id: str, state: dict[str, Any]) -> _Race:
    live = _Race._live.get(race_id)
    if live is not None:
        return live
    race = _Race.__new__(_Race)
    race.id = race_id
    race.load(state)
    _Race._live[race_id] = race
    return race


class MultiFidelityScheduler(TrialScheduler):
    """Ray Tune ``TrialScheduler`` running a multi-fidelity method of the engine; pass it with
    its ``searcher``: ``tune.TuneConfig(scheduler=s, search_alg=s.searcher, num_samples=-1,
    max_concurrent_trials=4)``.

    Args:
        method: a name of ``hpo_playground.multi_fidelity.methods()`` (DyHPO, ASHA, Hyperband, …).
        max_t: the largest ``time_attr`` (budget steps of a full training).
        total_budget: budget steps to hand out in all; the run ends when they are trained.
        metric, mode: the reported metric and ``"min"``/``"max"`` (or the TuneConfig's).
        time_attr: the reported budget step, 1, 2, …, ``max_t`` (``"epoch"``).
        seed, n_configs: as ``MultiFidelity``'s.
        space: Ray's search space, if the Tuner is given no ``param_space``.

    The training function reports ``time_attr`` and ``metric`` with a checkpoint at every step
    and starts from ``tune.get_checkpoint()`` when there is one (a resumed or retried trial).
    """

    def __init__(
        self,
        method: str = "DyHPO",
        *,
        max_t: int,
        total_budget: int | None = None,
        metric: str | None = None,
        mode: str | None = None,
        time_attr: str = "epoch",
        seed: int = 0,
        n_configs: int = 2048,
        space: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if method not in hpo_playground.methods()["multi_fidelity"]:
            raise ValueError(
                f"{method!r} is not a multi-fidelity method: {', '.join(hpo_playground.methods()['multi_fidelity'])}"
            )
        if mode is not None and mode not in _MODES:
            raise ValueError(f"mode must be 'min' or 'max', not {mode!r}")
        # Every result is needed (one value per step); Ray would otherwise batch them.
        self._supports_buffered_results = False
        self.time_attr = time_attr
        self.max_t = max_t
        settings = dict(method=method, max_t=max_t, total_budget=total_budget, seed=seed, n_configs=n_configs)
        self._race = _Race({**settings, "metric": metric, "mode": mode}, space)
        self._metric = metric
        self.searcher = _RaceSearcher(self._race)

    @property
    def session(self) -> MultiFidelity | None:
        """The method's ask/tell session (``best``, ``failed()``, …); None before the run."""
        return self._race.session

    def set_search_properties(self, metric: str | None, mode: str | None, **spec: Any) -> bool:
        return self._race_metric(metric, mode)

    def _race_metric(self, metric: str | None, mode: str | None) -> bool:
        race = self._race
        if (metric and race.metric and metric != race.metric) or (mode and race.mode and mode != race.mode):
            return False
        if mode is not None and mode not in _MODES:
            raise ValueError(f"mode must be 'min' or 'max', not {mode!r}")
        race.metric, race.mode = race.metric or metric, race.mode or mode
        self._metric = race.metric
        return True

    def on_trial_add(self, tune_controller, trial: Trial) -> None:
        race = self._race
        if trial.trial_id not in race.config_of:
            raise ValueError(
                f"trial {trial.trial_id} was not created by this scheduler's searcher: pass"
                " tune.TuneConfig(search_alg=scheduler.searcher, scheduler=scheduler)"
            )
        # Tuner.restore re-adds every unfinished trial as PENDING, a paused one too, and Ray
        # starts PENDING trials by itself: a paused configuration would train an epoch the
        # method never asked for. Such a trial goes back to PAUSED (Ray files the trial by its
        # status after this call); choose_trial_to_run resumes it when the method asks for it.
        config = race.config_of[trial.trial_id]
        if (
            trial.status == Trial.PENDING
            and race.ready()
            and race.session.reached(config) > 0
            and config not in race.training()
        ):
            trial.set_status(Trial.PAUSED)

    def on_trial_result(self, tune_controller, trial: Trial, result: dict) -> str:
        race = self._race
        config = race.config_of[trial.trial_id]
        for key in (race.metric, self.time_attr):
            if key not in result:
                raise ValueError(f"trial {trial.trial_id} reported no {key!r} (it reported {sorted(result)})")
        step, value = int(result[self.time_attr]), result[race.metric]
        reached = race.session.reached(config)
        training = config in race.training()
        if step <= reached:
            # A step told before: the trial restarted from an earlier checkpoint (retried, or
            # restored by Tuner.restore before Ray had saved its last told step). It catches up
            # if its configuration is in training, else it pauses there (a told step's checkpoint).
            return TrialScheduler.CONTINUE if training else TrialScheduler.PAUSE
        if not training:
            # Past its request: an epoch the method never asked for (Ray ran the trial on before
            # a pause took effect, or started a paused trial by itself). It is not told, and its
            # checkpoint must not become the trial's: a PAUSE makes Ray save the checkpoint of
            # this result, and the trial, asked for again, would resume a step past the last the
            # method heard. Paused without a save (as Ray's PBT pauses), it resumes from its
            # last checkpoint, of a step told.
            tune_controller.pause_trial(trial, should_checkpoint=False)
            return TrialScheduler.NOOP
        if step > reached + 1:
            raise ValueError(
                f"trial {trial.trial_id} reported {self.time_attr} {step} after {reached}: the method needs"
                f" every step's {race.metric}; report each step, and resume from the checkpoint of the last"
            )
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            logger.warning(
                "trial %s reported %r = %r at %s %d, not a number: its training counts as failed",
                trial.trial_id, race.metric, value, self.time_attr, step,
            )
            race.release(trial.trial_id)  # the configuration trains no more
            return TrialScheduler.STOP
        outcome = race.report(config, step, value)
        if outcome == "failed":
            return TrialScheduler.STOP  # NaN: released, with a warning naming it
        if outcome == "training":
            return TrialScheduler.CONTINUE
        if step >= self.max_t:
            return TrialScheduler.STOP
        race.fill()  # the method may want this configuration on at once: no pause then
        if config in race.training():
            return TrialScheduler.CONTINUE
        return TrialScheduler.STOP if race.session.finished else TrialScheduler.PAUSE

    def choose_trial_to_run(self, tune_controller) -> Trial | None:
        race = self._race
        race.fill()
        training = race.training()
        waiting = [t for t in tune_controller.get_trials() if t.status in (Trial.PAUSED, Trial.PENDING)]
        if race.session is not None and race.session.finished:
            # Nothing will resume them: stopped, so that Ray's run ends.
            for t in waiting:
                if race.config_of.get(t.trial_id) not in training:
                    tune_controller.stop_trial(t)
        # Ray starts PENDING trials by itself; a PAUSED one runs only when chosen here.
        for status in (Trial.PAUSED, Trial.PENDING):
            for t in waiting:
                if t.status == status and race.config_of.get(t.trial_id) in training:
                    return t
        return None

    def on_trial_error(self, tune_controller, trial: Trial) -> None:
        # Ray calls this also for a trial it retries from its checkpoint (FailureConfig's
        # max_failures): the request stays open. A trial that fails for good is reported to the
        # searcher's on_trial_complete(error=True), which releases it.
        pass

    def on_trial_complete(self, tune_controller, trial: Trial, result: dict) -> None:
        self._race.release(trial.trial_id)  # a function that returned before its request's budget

    def on_trial_remove(self, tune_controller, trial: Trial) -> None:
        self._race.release(trial.trial_id)

    def debug_string(self) -> str:
        race = self._race
        if race.session is None:
            return f"hpo_playground {race.settings['method']}: not started"
        best = race.session.best
        return (
            f"hpo_playground {race.settings['method']}: {len(race.training())} requests in training,"
            f" {len(race.session.failed())} failed, best {best and best[3]}"
        )


class _RaceSearcher(_RaySearcher):
    """Creates a trial for every configuration the scheduler's method starts, and keeps the
    method's state in Ray's experiment checkpoints (restored by ``Tuner.restore``)."""

    def __init__(self, race: _Race) -> None:
        super().__init__(metric=race.metric, mode=race.mode)
        self._race = race
        self._num_samples = sys.maxsize
        self._checked = self._restored = False

    def set_search_properties(self, metric: str | None, mode: str | None, config: dict, **spec: Any) -> bool:
        # Checked at the first suggestion of a fresh run, not here: Tuner.restore passes no
        # num_samples (Ray's default, 1) and restores the searcher only after this call.
        self._num_samples = spec.get("num_samples", sys.maxsize)
        race = self._race
        if race.space is not None and _has_domains(config):
            return False
        if race.space is None:
            race.space = _Space(config)
        race.metric, race.mode = race.metric or metric, race.mode or mode
        self._metric, self._mode = race.metric, race.mode
        return True

    def set_max_concurrency(self, max_concurrent: int) -> bool:
        self._race.n_workers = max_concurrent
        return True  # the race limits its requests itself: paused trials must not count

    def suggest(self, trial_id: str) -> dict[str, Any] | str | None:
        race = self._race
        if not self._checked and not self._restored:
            if self._num_samples < sys.maxsize:
                raise ValueError(
                    "the multi-fidelity method decides how many trials to start: pass"
                    " tune.TuneConfig(num_samples=-1) and end the run by the scheduler's total_budget"
                    " (or a stop criterion). After Tuner.restore this means that Ray found no saved"
                    " searcher state to restore (a driver killed while Ray wrote it leaves none)"
                )
            self._checked = True
        race.fill()
        if race.new:
            config = race.new.pop(0)
            race.bind(trial_id, config)
            return _unflatten(race.space.from_engine(race.session.params(config)))
        if race.session is not None and race.session.finished:
            return _RaySearcher.FINISHED
        return None  # the method waits for a result (Hyperband's rungs): Ray asks again later

    def on_trial_complete(self, trial_id: str, result: dict | None = None, error: bool = False) -> None:
        self._race.release(trial_id)  # errored for good, or ended with its request open

    def save(self, checkpoint_path: str) -> None:
        with open(checkpoint_path, "wb") as f:
            pickle.dump(self._race.state(), f)

    def restore(self, checkpoint_path: str) -> None:
        with open(checkpoint_path, "rb") as f:
            self._race.load(pickle.load(f))
        self._restored = True
