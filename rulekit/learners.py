"""The learners rulekit knows: one registry of one spec per learner.

Each learner package declares what the rest of rulekit needs to know about
it in a :class:`LearnerSpec` (its name on the command line, its estimator,
its command-line options, how to warm up its compiled kernels, its demo)
and registers it when the package is imported::

    from rulekit.learners import LearnerSpec, register

    register(LearnerSpec("corels", "rulekit.corels:CorelsClassifier",
                         "certifiably optimal rule list", warmup={"c": 0.05}))

The command line (``fit``, ``compare``, ``explore``, ``compile``,
``demo``), the contract tests and the documentation read :data:`LEARNERS`
and nothing else, so adding a learner is declaring its spec; see
``docs/adding-a-learner.md``.  Importing :mod:`rulekit` imports every
built-in learner package, so the registry is complete once any part of
rulekit is imported.
"""

from __future__ import annotations

import importlib
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

__all__ = ["LearnerSpec", "LEARNERS", "register", "unregister", "registered", "warmup_data",
           "fit_timed"]


@dataclass(frozen=True)
class LearnerSpec:
    """Everything rulekit needs to know about one learner, in one place.

    Parameters
    ----------
    name : str
        The learner's name on the command line (``--model NAME``).
    estimator : str or type
        The estimator class, or its import path ``"module:Class"`` (imported
        when first used, so listing learners imports nothing).
    description : str
        Half a line for ``--help`` and error messages.
    fixed : mapping, default={}
        Estimator parameters this name fixes (``cg-dnf`` is
        ``BooleanRuleCGClassifier`` with ``form="dnf"``).
    options : mapping, default={}
        Command-line options of the parameters only this learner family has:
        estimator parameter -> ``(flag, type, help)``.  The options several
        learners share (``--max-card``, ``--time-limit``...) are the command
        line's own.  Two specs may declare the same parameter only with the
        same option.
    warmup : mapping or None, default=None
        Estimator parameters of a small fit on :func:`warmup_data` that calls
        every compiled kernel a fit of this learner calls (``rulekit
        compile``); None: nothing to compile.
    precompile : callable or None, default=None
        Called after the warm-up fit, for kernels a small fit never reaches.
    demo : tuple (dataset, callable) or None, default=None
        ``rulekit demo DATASET`` calls the function, which fits this learner
        on the bundled dataset and prints what it found.
    explore : bool, default=False
        Whether the teaching explorer (``rulekit explore``) draws this
        learner's models.
    """

    name: str
    estimator: str | type
    description: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, tuple] = field(default_factory=dict)
    warmup: Mapping[str, Any] | None = None
    precompile: Callable[[], None] | None = None
    demo: tuple[str, Callable[[], None]] | None = None
    explore: bool = False

    def estimator_class(self) -> type:
        """The estimator class (imported on first use when given as a path)."""
        if isinstance(self.estimator, type):
            return self.estimator
        module, _, name = self.estimator.partition(":")
        return getattr(importlib.import_module(module), name)

    def make(self, **params):
        """An estimator with the fixed parameters and those of ``params`` it has.

        Parameters the estimator does not have, and parameters given as
        None, are left out: one set of command-line options serves every
        learner.

        Returns
        -------
        estimator
        """
        est = self.estimator_class()(**self.fixed)
        known = est.get_params(deep=False)
        return est.set_params(**{k: v for k, v in params.items() if v is not None and k in known})

    def warm_up(self) -> None:
        """Fit once on :func:`warmup_data` so numba compiles (and caches) the kernels."""
        if self.warmup is None:
            return
        X, y = warmup_data()
        with warnings.catch_warnings():
            # a tiny problem stops early or mines nothing: not news here
            warnings.simplefilter("ignore")
            self.make(**self.warmup).fit(X, y)
        if self.precompile is not None:
            self.precompile()


_REGISTRY: dict[str, LearnerSpec] = {}
#: name -> :class:`LearnerSpec` of every registered learner (a read-only view).
LEARNERS: Mapping[str, LearnerSpec] = MappingProxyType(_REGISTRY)


def register(*specs: LearnerSpec) -> None:
    """Add learners to :data:`LEARNERS`.

    Parameters
    ----------
    *specs : LearnerSpec

    Raises
    ------
    ValueError
        A name is taken, or an option flag is declared differently from a
        registered learner's declaration of the same parameter.
    """
    for spec in specs:
        if not isinstance(spec, LearnerSpec):
            raise TypeError(f"register takes LearnerSpec objects, got {type(spec).__name__}")
        if spec.name in _REGISTRY and _REGISTRY[spec.name] != spec:
            raise ValueError(f"a learner named {spec.name!r} is already registered")
        for other in _REGISTRY.values():
            for param, option in spec.options.items():
                if param in other.options and other.options[param] != option:
                    raise ValueError(f"{spec.name}: parameter {param!r} has another option in "
                                     f"{other.name}: {other.options[param][0]}")
        _REGISTRY[spec.name] = spec


def unregister(*names: str) -> None:
    """Remove learners from :data:`LEARNERS` (unknown names are ignored)."""
    for name in names:
        _REGISTRY.pop(name, None)


@contextmanager
def registered(*specs: LearnerSpec):
    """Register ``specs`` for the duration of a ``with`` block (tests, examples).

    Yields
    ------
    None
    """
    new = [spec for spec in specs if spec.name not in _REGISTRY]
    register(*specs)
    try:
        yield
    finally:
        unregister(*(spec.name for spec in new))


def warmup_data(seed: int = 0):
    """A small mixed frame (numbers, categories, missing values) and its labels.

    Every learner's warm-up fit runs on it: numeric, categorical and missing
    values take every path of the binarizer.

    Returns
    -------
    X : DataFrame of shape (80, 3)
    y : Series of int
    """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    n = 80
    X = pd.DataFrame({"a": rng.integers(0, 6, n).astype(float), "b": rng.choice(["x", "y", "z"], n),
                      "c": rng.random(n)})
    X.loc[::9, "c"] = np.nan
    y = ((X["a"] > 2) ^ (X["b"] == "x") ^ (rng.random(n) < 0.1)).astype(int)
    return X, y


def fit_timed(est, X, y) -> float:
    """Fit ``est`` and return the CPU seconds it took (the demos print them)."""
    start = time.process_time()
    est.fit(X, y)
    return time.process_time() - start
