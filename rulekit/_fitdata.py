"""What one stage of a fit hands to the next: the prepared data and the outcome.

A fit is three steps (``docs/architecture.md``, "One fit pipeline"):

``prepare``
    :meth:`rulekit.base.RuleClassifierBase._prepare` checks the parameters
    once, validates ``X`` and ``y``, fits the binarizer, binarizes, mines and
    builds any further view a learner asks for.  It returns a :class:`FitData`.
``solve``
    the learner's ``_solve(data)`` runs its engine and returns a
    :class:`FitOutcome`.  It reads the estimator's class attributes and
    methods, never its fitted state, and writes nothing to it.
``wrap``
    :meth:`rulekit.base.RuleClassifierBase._wrap` sets every fitted attribute
    from the two, at once, after the search.

Rows and weights
----------------
Every learner's objective sees the training rows only through weighted class
counts: how much weight of each class falls on each distinct binarized row.
``FitData`` therefore carries rows with a weight each (``sample_weight``,
None when every row counts once).  :meth:`FitData.distinct` folds identical
``(conditions, class)`` rows into one row whose weight is their summed weight,
which leaves every objective, bound and count unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from .binarize import Binarizer
from .certificate import Certificate
from .evaluate import merge_rows
from .mining import AntecedentSet

__all__ = ["FitData", "FitOutcome"]


@dataclass(frozen=True)
class FitData:
    """Everything a learner's ``_solve`` reads, made once by ``_prepare``.

    Attributes
    ----------
    params : Mapping
        The validated parameters (checked once, at the start of the fit):
        what the fit used, whatever is set on the estimator later.
    classes : ndarray
        The sorted class labels; ``y`` holds codes into it.
    n_features_in : int
    feature_names_in : ndarray of str or None
        The input's column names (None for an array without names).
    binarizer : Binarizer
        Fitted on the training rows; ``B`` is its transform.
    B : ndarray of bool, shape (n_rows, n_conditions)
    y : ndarray of int64, shape (n_rows,)
        Class codes ``0 .. len(classes) - 1``.
    sample_weight : ndarray of float, shape (n_rows,), or None
        The weight of each row (None: every row counts once).
    antecedents : AntecedentSet or None
        The mined antecedents, for a learner that mines (``_mines``).
    mining : Mapping
        What mining was asked for (``min_support``, ``max_card``,
        ``max_antecedents``), after the learner's hooks resolved ``"auto"``.
    views : Mapping
        Further views a learner prepared for itself (``_views``), e.g. column
        generation's finer binarization or CORELS's fairness groups.
    """

    params: Mapping[str, Any]
    classes: np.ndarray
    n_features_in: int
    feature_names_in: np.ndarray | None
    binarizer: Binarizer
    B: np.ndarray
    y: np.ndarray
    sample_weight: np.ndarray | None = None
    antecedents: AntecedentSet | None = None
    mining: Mapping[str, Any] = field(default_factory=dict)
    views: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        # read-only mappings: a solve step cannot pass state back through them
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        object.__setattr__(self, "mining", MappingProxyType(dict(self.mining)))
        object.__setattr__(self, "views", MappingProxyType(dict(self.views)))

    @property
    def A(self) -> np.ndarray | None:
        """The antecedent matrix (rows x antecedents), or None without mining."""
        return None if self.antecedents is None else self.antecedents.matrix

    @property
    def n_rows(self) -> int:
        return int(self.B.shape[0])

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def total_weight(self) -> float:
        """The rows' summed weight (the number of rows when unweighted)."""
        return float(self.n_rows if self.sample_weight is None else self.sample_weight.sum())

    def distinct(self) -> "FitData":
        """The same data with identical ``(conditions, class)`` rows folded into one.

        Each kept row's weight is the summed weight of the rows it stands for,
        so every weighted count (and so every learner's objective) is the same;
        rows keep the order of their first appearance.  Mining works on the
        rows it is given, so call this before mining, or mine again.
        """
        weight = (np.ones(self.n_rows) if self.sample_weight is None
                  else np.asarray(self.sample_weight, dtype=float))
        keyed = np.column_stack([self.B, self._class_bits()])
        rows, group, (summed,) = merge_rows(keyed, weight)
        y = np.empty(rows.shape[0], dtype=np.int64)
        y[group] = self.y     # one class per group: the class bits are part of the key
        return replace(self, B=np.ascontiguousarray(rows[:, :self.B.shape[1]]), y=y,
                       sample_weight=summed, antecedents=None)

    def _class_bits(self) -> np.ndarray:
        """The class code as bits, so that rows of different classes never merge."""
        width = max(1, int(self.n_classes - 1).bit_length())
        return ((self.y[:, None] >> np.arange(width)) & 1).astype(bool)


@dataclass(frozen=True)
class FitOutcome:
    """What a learner's ``_solve`` returns; ``_wrap`` sets the estimator from it.

    Attributes
    ----------
    model : object
        The fitted model (:mod:`rulekit.models`).
    certificate : Certificate
        What the search proves about the model.
    binarizer : Binarizer
        The binarizer whose conditions the model is written over (a learner
        may choose another resolution than the one prepared first).
    attributes : Mapping
        The learner's further fitted attributes, by name (``result_``,
        ``c_``, ``selection_``, ...).
    """

    model: Any
    certificate: Certificate
    binarizer: Binarizer
    attributes: Mapping[str, Any] = field(default_factory=dict)
