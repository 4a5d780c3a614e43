"""A search space as the engine reads it: ``[name, {"type": ..., ...}]`` per parameter, from
Optuna distributions, lists of choices or plain dicts. One rule for the Optuna sampler and the
multi-fidelity session (and Ray Tune's faces, through ``checked``). Optuna's distributions are
told apart by their classes' names (and those of their bases), not by ``isinstance``, so that
this module and the session need no Optuna: it is an optional extra of the package."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hpo_playground._engine import check_space


def describe_space(space: Mapping[str, Any]) -> list[list[Any]]:
    """``space`` as the engine reads it: ``[name, {"type": ..., ...}]`` in ``space``'s order,
    checked (``checked``)."""
    if not isinstance(space, Mapping) or not space:
        raise ValueError("space must be a non-empty dict of parameter name -> distribution")
    return checked([[str(name), plain(str(name), d)] for name, d in space.items()])


def checked(described: list[list[Any]]) -> list[list[Any]]:
    """``described`` if the engine's rule (Optuna's) accepts every distribution, else an
    ``EngineError`` (a ``ValueError``) naming the parameter: low above high, a log scale from 0
    or below, no choice, a bad step. Every face checks its space with it when the space is
    given, so that a bad one never surfaces mid-run."""
    check_space(json.dumps(described, default=repr))
    return described


def plain(name: str, d: Any) -> dict[str, Any]:
    """One parameter's distribution as the engine reads it."""
    if isinstance(d, Mapping):
        kind = d.get("type")
        if kind == "float":
            return {"log": False, "step": None, **d}
        if kind == "int":
            return {"log": False, "step": 1, **d}
        if kind == "categorical":
            return dict(d)
        raise ValueError(f"parameter {name!r}: type must be 'float', 'int' or 'categorical', not {kind!r}")
    if isinstance(d, (list, tuple)):
        return {"type": "categorical", "choices": list(d)}
    if hasattr(d, "to_internal_repr"):  # an Optuna distribution
        return optuna_distribution(name, d)
    raise TypeError(
        f"parameter {name!r} is a {type(d).__name__}: give an Optuna distribution, a list of"
        " choices or a dict such as {'type': 'float', 'low': 0.0, 'high': 1.0}"
    )


def optuna_distribution(name: str, d: Any) -> dict[str, Any]:
    """An Optuna ``FloatDistribution``, ``IntDistribution`` or ``CategoricalDistribution``."""
    classes = {c.__name__ for c in type(d).__mro__ if c.__module__.startswith("optuna.")}
    if "FloatDistribution" in classes:
        return {"type": "float", "low": d.low, "high": d.high, "log": d.log, "step": d.step}
    if "IntDistribution" in classes:
        return {"type": "int", "low": d.low, "high": d.high, "log": d.log, "step": d.step}
    if "CategoricalDistribution" in classes:
        return {"type": "categorical", "choices": list(d.choices)}
    raise TypeError(
        f"parameter {name!r} has a {type(d).__name__}: hpo_playground samples FloatDistribution,"
        " IntDistribution and CategoricalDistribution only"
    )
