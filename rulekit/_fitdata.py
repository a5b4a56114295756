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
``FitData`` therefore carries rows that may each stand for several training
rows: ``count`` says how many (None: one each) and ``sample_weight`` the
user's summed weight (None: no weights, so the weight is the count).
:meth:`FitData.distinct` folds identical ``(conditions, class, validation
splits)`` rows into one, adding up both, which leaves every objective, bound
and count unchanged.  A fit that folds its rows before mining and searching
costs what the distinct patterns cost, not what the rows cost.

Validation splits travel with the rows (``tested``): which rows each split
holds out.  They are drawn on the original rows, before folding, so a learner
that validates on folded rows makes the same choice as on the rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from .binarize import Binarizer
from .certificate import Certificate
from ._patterns import unpack_rows
from .evaluate import group_rows
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
        Or, counted from a source for a learner with ``_packed_counts``
        (column generation), a :class:`rulekit._patterns.PackedBits`: the same
        booleans packed eight to a byte, read a block of rows at a time.
    y : ndarray of int64, shape (n_rows,)
        Class codes ``0 .. len(classes) - 1``.
    sample_weight : ndarray of float, shape (n_rows,), or None
        The user's weight of each row, summed over the training rows it
        stands for (None: no weights given; each row weighs its ``count``).
    count : ndarray of int64, shape (n_rows,), or None
        How many training rows each row stands for (None: one each).
    tested : ndarray of bool, shape (n_rows, n_splits), or None
        Validation splits, drawn by the learner (``_validation_splits``) on the
        original rows: ``tested[i, s]`` is true when split ``s`` holds row
        ``i`` out (and trains on the others).  None: the learner does not
        validate, or draws nothing in advance.
    rows : tuple or None
        The training rows as given, before folding, for views that are per
        row (``(packed B.T, y, n_rows)``, one bit per cell); kept only for a
        learner that asks (``_keeps_rows``), None otherwise.
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
    count: np.ndarray | None = None
    tested: np.ndarray | None = None
    rows: tuple | None = None
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

    @property
    def weight(self) -> np.ndarray | None:
        """What each row weighs in an objective: the user's weight, else its count.

        None when every row counts once (no weights, nothing folded).
        """
        return self.sample_weight if self.sample_weight is not None else self.count

    @property
    def n_samples(self) -> int:
        """Training rows the data stands for (``n_rows`` until rows are folded)."""
        return self.n_rows if self.count is None else int(self.count.sum())

    def total_weight(self) -> float:
        """The rows' summed weight (the number of training rows when unweighted)."""
        w = self.weight
        return float(self.n_rows if w is None else w.sum())

    def distinct(self) -> "FitData":
        """The same data with identical ``(conditions, class, splits)`` rows folded into one.

        Each kept row's ``count`` and ``sample_weight`` are the sums over the
        rows it stands for, so every weighted count (and so every learner's
        objective, and every validation split's) is the same; rows keep the
        order of their first appearance.  Mining works on the rows it is
        given, so call this before mining, or mine again.
        """
        parts = [self.B, self._class_bits()]
        if self.tested is not None:
            parts.append(self.tested)
        # the parts are keyed side by side, never copied into one matrix
        first, group = group_rows(*parts)
        return self._folded(first, group, np.ascontiguousarray(self.B[first]))

    @classmethod
    def from_packed(cls, keys, n_conditions: int, **fields) -> "FitData":
        """The :meth:`distinct` rows of binarized rows given packed, eight to a byte.

        ``keys`` is ``numpy.packbits(B, axis=1)`` (what
        ``Binarizer.transform_packed`` returns); the boolean matrix of every row
        is never made, only that of the distinct rows.  ``fields`` are the other
        :class:`FitData` fields of the rows as given (``y``, ``tested``, ...,
        but no ``count``).  Same result as building the data with
        ``B = np.unpackbits(keys, axis=1, count=n_conditions).view(bool)`` and
        calling :meth:`distinct`.
        """
        if fields.get("count") is not None:
            raise ValueError("from_packed folds rows given one each (count=None)")
        empty = np.zeros((keys.shape[0], 0), dtype=bool)
        data = cls(B=empty, **fields)
        parts = [keys, data._class_bits()]
        if data.tested is not None:
            parts.append(data.tested)
        first, group = group_rows(*parts)
        return data._folded(first, group, unpack_rows(keys, first, int(n_conditions)))

    def _folded(self, first, group, B) -> "FitData":
        """The rows grouped as ``group`` says, ``first`` the first row of each, ``B``
        their conditions: counts and weights summed per group."""
        count = (np.ones(self.n_rows, dtype=np.int64) if self.count is None
                 else np.asarray(self.count, dtype=np.int64))
        size = len(first)
        weight = (None if self.sample_weight is None else
                  np.bincount(group, weights=np.asarray(self.sample_weight, float),
                              minlength=size))
        return replace(self, B=B, y=self.y[first],
                       count=np.bincount(group, weights=count, minlength=size).astype(np.int64),
                       sample_weight=weight,
                       tested=None if self.tested is None else self.tested[first],
                       antecedents=None)

    def split_by(self, tested) -> "FitData":
        """The data with validation splits drawn on the training rows they stand for.

        ``tested`` has one row per training row (``n_samples`` of them, row
        ``i`` of the data standing for the next ``count[i]``): ``tested[u, s]``
        when split ``s`` holds training row ``u`` out.  A row whose training
        rows fall in different splits becomes one row per pattern of splits,
        with the count of its training rows that share the pattern.
        """
        tested = np.asarray(tested, dtype=bool)
        if tested.shape[0] != self.n_samples:
            raise ValueError(f"tested has {tested.shape[0]} rows for {self.n_samples} "
                             "training rows")
        if self.count is None:
            return replace(self, tested=tested)
        if self.sample_weight is not None:
            raise ValueError("splits of weighted rows: pass whole weights as counts")
        owner = np.repeat(np.arange(self.n_rows), self.count)
        keyed = np.column_stack([owner.astype(">u8").view(np.uint8).reshape(-1, 8),
                                 np.packbits(tested, axis=1)])
        keys, first, counts = np.unique(keyed, axis=0, return_index=True, return_counts=True)
        rows = owner[first]
        return replace(self, B=np.ascontiguousarray(self.B[rows]), y=self.y[rows],
                       count=counts.astype(np.int64), tested=tested[first],
                       antecedents=None)

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
