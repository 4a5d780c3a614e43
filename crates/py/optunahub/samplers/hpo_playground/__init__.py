"""OptunaHub face of the ``hpo_playground`` package: the sampler is the package's own.

The hub loads this folder as a module; everything it exports comes from the installed
``hpo_playground`` wheel (a compiled Rust extension), so this file holds no logic.
"""

from hpo_playground.optuna import Sampler

__all__ = ["Sampler"]
