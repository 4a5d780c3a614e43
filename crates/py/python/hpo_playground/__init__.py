"""The hpo-playground engine's HPO methods, for studies that run where the training runs.

``hpo_playground.suggest`` proposes the next configurations for a study described as plain
data; ``hpo_playground.optuna.Sampler`` is an Optuna sampler on the same engine.
``hpo_playground.MultiFidelity`` runs a multi-fidelity method (DyHPO, GPB, ASHA, …) as
ask/tell, with ``hpo_playground.optuna.optimize_multi_fidelity`` and
``hpo_playground.syne_tune.Scheduler`` on top; ``hpo_playground.ray_tune`` has a Ray Tune
``Searcher`` and ``MultiFidelityScheduler``. Every number is the Rust engine's: this
package only describes studies and converts values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from hpo_playground._engine import (
    EngineError,
    multi_fidelity_methods,
    related_study_methods,
    single_study_methods,
)
from hpo_playground._engine import suggest as _suggest
from hpo_playground.multi_fidelity import MultiFidelity

__all__ = ["EngineError", "MultiFidelity", "methods", "suggest"]


def methods() -> dict[str, list[str]]:
    """The method names by use: ``suggest`` accepts ``"single"`` (learn from the study alone)
    and ``"related"`` (need ``related`` studies of the same search space); ``MultiFidelity``
    accepts ``"multi_fidelity"``."""
    return {
        "single": list(single_study_methods()),
        "related": list(related_study_methods()),
        "multi_fidelity": list(multi_fidelity_methods()),
    }


def suggest(
    study: Mapping[str, Any],
    method: str = "GP",
    k: int = 1,
    seed: int = 0,
    related: Sequence[Mapping[str, Any]] = (),
    liar: str = "believer",
) -> list[list[float]]:
    """The next ``k`` configurations ``method`` proposes for ``study``, as Optuna's internal
    values (a choice's index) in the order of ``study["distributions"]``.

    A study is a dict: ``name`` (it seeds the engine, as ``hpo suggest`` does), ``directions``
    (``"minimize"``/``"maximize"``, one per objective), ``distributions`` (a list of
    ``[name, {"type": "float", "low", "high", "log", "step"}]``, ``"int"`` with the same keys,
    or ``{"type": "categorical", "choices": [...]}``) and ``trials`` (each ``state`` as Optuna
    names it, ``params`` by name as internal values, ``values`` or ``None`` — an infinite value
    as ``"inf"`` or ``"-inf"``, clipped by the engine to the finite values' range —,
    ``intermediate`` by step, optionally ``constraints`` by name, feasible when all are <= 0).

    RUNNING and WAITING trials with parameters are pending, and so are the earlier picks of
    the ``k``: each is observed at a lie — ``liar="believer"`` (the default: the kriging
    believer, the model's mean there given the complete trials, for the methods with a GP; the
    mean value for the others) or a constant ``"min"``, ``"mean"`` or ``"max"`` value of the
    complete trials — and no proposal lies within 1e-3 of one (docs/methods.md, "Batches and
    pending trials"). Raises ``EngineError`` (a ``ValueError``) when the engine cannot suggest.
    """
    return _suggest(_json(study), _json(list(related)), method, k, seed, liar)


def _json(value: Any) -> str:
    """JSON the engine reads (strict JSON has no NaN or infinity): an infinite objective value
    becomes ``"inf"``/``"-inf"``, which the engine clips; any other non-finite number ``null``,
    which it refuses with the trial's number."""
    return json.dumps(_finite_or_none(value), allow_nan=False)


def _finite_or_none(value: Any, key: Any = None) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        if key == "values" and math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return None
    if isinstance(value, Mapping):
        return {k: _finite_or_none(v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_none(v, key) for v in value]
    return value
