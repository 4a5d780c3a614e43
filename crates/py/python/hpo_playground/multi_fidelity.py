"""A multi-fidelity method of the engine as an ask/tell object, usable in any training loop:
``MultiFidelity(space, method="DyHPO", max_budget=50, seed=0)``.

The method (DyHPO, GPB, ASHA, Hyperband, … by the engine's registry names) races a finite set
of configurations drawn from ``space`` (``n_configs`` of them, deterministically from
``seed``): it says which configuration trains next and up to which budget step, and the
training reports one value per budget step. A configuration pauses when its request is
reached and resumes later where it stopped: keep its training state (a checkpoint) meanwhile.
The rules are the engine's (``hpo_engine::suggest::multi_fidelity``): several requests may be
outstanding and a configuration in training is never handed out twice; while a rung waits
for results, Hyperband, BOHB and DEHB start the next bracket instead; ``ask`` returns ``None``
when the budget is spent or the method can train nothing more, or when it must wait for a
result because every configuration is started (``finished`` tells which). A training that
fails is reported with ``fail(config_id)``: the configuration is never handed out again, a rung
no longer waits for it, and the steps of its request it did not tell return to the total
budget. A NaN value from training is that configuration's failure, reported as ``fail`` does
with a warning naming it, and the run goes on; an infinite value is clipped to the finite
values told so far (``report``: the engine's one rule, which every face of this package uses).

A session pickles (Syne Tune pickles its tuner, scheduler included): the state written is the
constructor's arguments and every ``ask``, ``tell`` and ``fail`` so far, and unpickling replays
them into a fresh session — the engine is deterministic given the seed, so the replayed session
is the same, bit for bit (each replayed ``ask`` is checked against the recorded answer). Writing
costs nothing; reading costs the run so far again (for DyHPO, its model fits).
"""

from __future__ import annotations

import json
import logging
import numbers
from collections.abc import Mapping
from typing import Any

from hpo_playground._engine import MultiFidelitySession, multi_fidelity_methods
from hpo_playground._space import describe_space

__all__ = ["MultiFidelity", "describe_space", "methods"]

logger = logging.getLogger(__name__)


def methods() -> list[str]:
    """The multi-fidelity method names ``MultiFidelity`` accepts (the engine's registry)."""
    return list(multi_fidelity_methods())


class MultiFidelity:
    """Ask/tell over a multi-fidelity method of the engine.

    Args:
        space: parameter name -> distribution: an Optuna distribution (Float, Int,
            Categorical), a list of choices, or a dict ``{"type": "float", "low": 1e-4,
            "high": 1.0, "log": True}`` (``"int"`` alike, with an optional ``"step"``;
            ``{"type": "categorical", "choices": [...]}``).
        method: a name of ``methods()``; anything else raises ``ValueError`` listing them.
        max_budget: budget steps of a full training (epochs, say); budgets run 1..max_budget.
        seed: the engine's seed (the configurations drawn and the method's own draws).
        direction: ``"minimize"`` or ``"maximize"`` the told values.
        total_budget: budget steps to hand out in all (``None``: until stopped).
        n_configs: configurations the method races (fewer when the space has fewer).
    """

    def __init__(
        self,
        space: Mapping[str, Any],
        method: str = "DyHPO",
        *,
        max_budget: int,
        seed: int = 0,
        direction: str = "minimize",
        total_budget: int | None = None,
        n_configs: int = 2048,
    ) -> None:
        if direction not in ("minimize", "maximize"):
            raise ValueError(f"direction must be 'minimize' or 'maximize', not {direction!r}")
        _count("max_budget", max_budget)
        _count("n_configs", n_configs)
        if total_budget is not None:
            _count("total_budget", total_budget)
        description = describe_space(space)
        self._names = [name for name, _ in description]
        self.method = method
        self.max_budget = max_budget
        self.direction = direction
        self._arguments = (
            json.dumps(description, allow_nan=False),
            method,
            max_budget,
            total_budget,
            1.0 if direction == "minimize" else -1.0,
            seed,
            n_configs,
        )
        self._session = MultiFidelitySession(*self._arguments)
        self._finished = False
        # Every call that changes the session, for pickling: ("ask", answer), ("tell", config,
        # step, value), ("fail", config).
        self._calls: list[tuple[Any, ...]] = []

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_session"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._session = MultiFidelitySession(*self._arguments)
        for call in self._calls:
            if call[0] == "ask":
                again = tuple(self._session.ask())
                if again != tuple(call[1]):
                    raise RuntimeError(
                        f"replaying the pickled session asked {again}, not {tuple(call[1])}: was it"
                        " pickled by another version of hpo_playground?"
                    )
            elif call[0] == "tell":
                self._session.report(*call[1:])
            else:
                self._session.fail(call[1])

    def ask(self) -> tuple[int, dict[str, Any], int] | None:
        """``(config_id, params, budget)``: train ``config_id`` (with ``params``) from the
        budget it reached (``reached(config_id)``, 0 the first time) up to ``budget``,
        telling each step's value. ``None``: wait for an outstanding result, or the total
        budget is spent (``finished``)."""
        answer = self._session.ask()
        self._calls.append(("ask", answer))
        kind, config, _, budget = answer
        self._finished = kind == "done"
        if kind != "train":
            return None
        return config, self.params(config), budget

    def report(self, config_id: int, budget: int, value: float) -> str:
        """Records ``value`` of ``config_id`` at budget step ``budget`` (the next step it has
        not told; one value per step, in order) and says what it did: ``"training"`` (train
        the next step), ``"completed"`` (the step completes the request: the configuration
        pauses) or ``"failed"``: the value was NaN, so the training counts as failed — the
        configuration is released as ``fail`` releases it, with a warning naming it. An
        infinite value is clipped to the finite values told so far. Raises ``ValueError`` for
        an unknown configuration, one not in training or a step out of order, and
        ``TypeError`` for a value that is not a number."""
        call = (_id("config_id", config_id), _id("budget", budget), _number(config_id, budget, value))
        outcome = self._session.report(*call)
        self._calls.append(("tell", *call))
        if outcome == "failed":
            logger.warning(
                "configuration %d %s reported NaN at budget step %d: its training counts as failed;"
                " it is never trained again and the run goes on without it",
                call[0],
                self.params(call[0]),
                call[1],
            )
        return outcome

    def tell(self, config_id: int, budget: int, value: float) -> bool:
        """``report``, True when the configuration stops training for now: the step completes
        its request (it pauses) or the value was NaN (it failed: ``failed()`` lists it)."""
        return self.report(config_id, budget, value) != "training"

    def fail(self, config_id: int) -> None:
        """Reports that the training of ``config_id`` failed (an exception, a lost worker)
        before its request was told to the end. The configuration is released for good: it
        is never handed out again, a synchronous rung (Hyperband, BOHB, DEHB) is decided
        without it, and the steps it did not tell return to the total budget; the values it
        told stay. Raises ``ValueError`` for an unknown configuration or one not in training
        (failed already, paused, never handed out)."""
        self._session.fail(_id("config_id", config_id))
        self._calls.append(("fail", int(config_id)))

    def failed(self) -> list[int]:
        """The configurations reported with ``fail``, in increasing order."""
        return list(self._session.failed())

    def params(self, config_id: int) -> dict[str, Any]:
        """The parameters of configuration ``config_id``."""
        return dict(zip(self._names, json.loads(self._session.params_json(_id("config_id", config_id)))))

    def reached(self, config_id: int) -> int:
        """The budget step ``config_id`` has told up to (0: never trained)."""
        return self._session.reached(_id("config_id", config_id))

    def in_training(self) -> list[tuple[int, int, int]]:
        """The outstanding requests: ``(config_id, budget reached, budget to reach)``."""
        return [tuple(t) for t in self._session.in_training()]

    @property
    def best(self) -> tuple[int, dict[str, Any], int, float] | None:
        """The best value told so far: ``(config_id, params, budget, value)``."""
        found = self._session.best()
        if found is None:
            return None
        config, budget, value = found
        return config, self.params(config), budget, value

    @property
    def finished(self) -> bool:
        """True once ``ask`` found the total budget spent, or once it is handed out and told with
        nothing left in training (``ask`` waits while a configuration trains: one that fails gives
        back the steps it did not train)."""
        return self._finished or (self._session.remaining() == 0 and not self._session.in_training())

    @property
    def remaining(self) -> int | None:
        """Budget steps not handed out yet (``None`` without a total budget)."""
        return self._session.remaining()

    @property
    def n_configs(self) -> int:
        """How many configurations the method races."""
        return self._session.configurations()


def _id(what: str, x: Any) -> int:
    """A configuration id or a budget step: a whole number from 0, else a ``ValueError``
    naming it (the engine's counts are unsigned: -1 would be an ``OverflowError``)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 0:
        raise ValueError(f"{what} must be a whole number from 0, not {x!r}")
    return int(x)


def _count(what: str, x: Any) -> None:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 1:
        raise ValueError(f"{what} must be a whole number from 1, not {x!r}")


def _number(config_id: Any, budget: Any, value: Any) -> float:
    """A value from training as a float; anything else (a string, None) a ``TypeError``
    naming the configuration and step, never a silent failure."""
    if not isinstance(value, (str, bytes, bool)) and value is not None:
        try:
            return float(value)  # a Python or NumPy number, a one-element tensor
        except (TypeError, ValueError):
            pass
    raise TypeError(
        f"configuration {config_id}, budget step {budget}: the value must be a number, not"
        f" {type(value).__name__} {value!r}"
    )
