"""Turn mixed tabular data into boolean conditions.

A *condition* is one test on one feature (``age <= 25``, ``sex == Male``,
``country in {Peru, Chile}``, ``income is missing``).  :class:`Binarizer`
learns the conditions from training data and evaluates them on any later
data, giving the boolean matrix every rulekit learner searches over.
``docs/binarization.md`` states the semantics precisely; in short (the same
for pandas and numpy input):

* numeric columns give thresholds at ``n_thresholds`` evenly spaced
  (weighted) quantiles of the present training values (9 = deciles),
  deduplicated; a column with few distinct values uses those values (all
  but the largest) instead; ``thresholds="reference"`` takes the split
  points of a small boosted ensemble instead.  Each threshold ``t`` gives
  ``x <= t`` and ``x > t``;
* categorical columns (object, string, category, bool, or listed in
  ``categorical_features``) give ``x == v`` for every frequent training
  category and, with ``negations=True``, ``x != v``; categories rarer than
  ``min_frequency`` (or beyond ``max_categories``) are grouped into one
  *infrequent* condition ``x in {...}`` (scikit-learn's ``OneHotEncoder``
  conventions);
* datetime columns give numeric parts (``year(x)``, ``month(x)``,
  ``hour(x)`` when times vary) and the categorical ``weekday(x)``;
* a column with missing training values gets ``x is missing``; on a missing
  value every other condition of that column is false;
* the support floor ``min_frequency``: a condition is kept only when the
  training rows where it holds, and those where it fails, each weigh at
  least the floor (``juv_misd_count <= 12``, true for 99.99 % of rows, says
  nothing and is dropped); ``min_frequency=None`` turns the floor off;
* a column with a single value (missing counted as a value) gives nothing.
"""

from __future__ import annotations

import numbers
import time
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from . import _columns as col
from ._anytime import stopping
from ._checks import check_sample_weight
from ._columns import plain as _plain
from ._patterns import (CATEGORICAL, MISSING_CODE, NUMERIC, OP_CODES as _OP_CODES, UNKNOWN_CODE,
                        pack_conditions)
from ._params import AnyOf, Boolean, Instance, Integer, Options, Real, validate
from ._render import condition_text, format_value as _format_value

__all__ = ["Condition", "Binarizer", "OPS", "DataWarning", "ESTIMATOR_PARAMETERS"]

#: Operators a :class:`Condition` may carry.
OPS = ("<=", ">", "==", "!=", "in", "not in", "is missing")

#: Under a time limit, choosing the thresholds column by column stops (the columns left
#: give no condition) once this many times its own time so far no longer fits in the
#: time left.  What follows it (encoding the rows, grouping them, mining, the search's
#: set-up) took 1.5 times as long at a million rows in memory; a fit from files keeps
#: this share in its first pass (``rulekit.stream.PASS_ONE_RESERVE``).
THRESHOLDS_RESERVE = 2.0

#: a categorical column with at least this many distinct values, holding
#: distinct values in at least half its rows, looks like an identifier
IDENTIFIER_MIN_VALUES = 20
IDENTIFIER_SHARE = 0.5

#: Binarizer parameters every learner exposes under the same names (``negations``
#: is the learner's own choice, not the user's)
ESTIMATOR_PARAMETERS = ("n_thresholds", "categorical_features", "min_frequency",
                        "max_categories", "handle_unknown", "thresholds")

_FLIP = {"<=": ">", ">": "<=", "==": "!=", "!=": "==", "in": "not in", "not in": "in"}


class DataWarning(UserWarning):
    """The binarizer met data it handles in a way you may not want (an
    identifier-like column, categories not seen at fit time)."""


def _warn(message: str) -> None:
    """Warn, pointing at the first caller outside rulekit and scikit-learn (the
    user's ``fit`` / ``predict`` line, not a wrapper inside a library)."""
    import os
    import sys

    import sklearn

    inside = (os.path.dirname(os.path.abspath(__file__)),
              os.path.dirname(os.path.abspath(sklearn.__file__)))
    frame, level = sys._getframe(0), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(inside):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, DataWarning, stacklevel=level)


@dataclass(frozen=True)
class Condition:
    """One boolean test on one feature.

    Parameters
    ----------
    feature : str
        Column name as seen at fit time (``x0``, ``x1``... for arrays), or a
        part of a datetime column (``year(signup)``).
    op : {"<=", ">", "==", "!=", "in", "not in", "is missing"}
        The comparison.  ``in`` / ``not in`` test membership in the column's
        infrequent categories.
    value : scalar, tuple or None
        Threshold, category, tuple of categories (``in``), or ``None`` for
        ``is missing``.
    """

    feature: str
    op: str
    value: Any = None

    def __post_init__(self):
        if self.op not in OPS:
            raise ValueError(f"Condition op must be one of {OPS}, got {self.op!r}")
        if self.op in ("in", "not in"):
            if not isinstance(self.value, (list, tuple)):
                raise TypeError(f"Condition {self.feature!r} {self.op}: value must be a list "
                                f"or tuple of categories, got {type(self.value).__name__}")
            object.__setattr__(self, "value", tuple(_plain(v) for v in self.value))

    def __str__(self) -> str:
        return self.render()

    def render(self, style: str = "text") -> str:
        """The condition as ``"text"`` or ``"latex"`` (``age $\\le$ 25``)."""
        return condition_text(self.feature, self.op, self.value, style)

    def negated(self) -> "Condition | None":
        """The complementary test on non-missing values, if it is a condition."""
        if self.op in _FLIP:
            return Condition(self.feature, _FLIP[self.op], self.value)
        return None

    def to_dict(self) -> dict:
        value = list(self.value) if self.op in ("in", "not in") else _plain(self.value)
        return {"feature": self.feature, "op": self.op, "value": value}

    @classmethod
    def from_dict(cls, d: dict) -> "Condition":
        return cls(d["feature"], d["op"], d.get("value"))


@dataclass
class _ColumnSpec:
    """What the binarizer learned about one (possibly derived) column."""

    name: str  # feature name the conditions carry
    source: str  # input column it is computed from
    part: str | None  # datetime part ("year"...) or None
    kind: str  # "numeric" or "categorical"
    values: list  # thresholds (numeric) or frequent categories (categorical)
    has_missing: bool
    first: int  # index of this column's first condition
    stop: int  # one past its last condition
    infrequent: list = field(default_factory=list)  # categories grouped as infrequent
    # why the column gave no condition, said by fit where it decided so (None when it gave
    # some); explanation for readers such as the explorer, not part of the saved state
    why: str | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("why")
        d["values"] = [_plain(v) for v in self.values]
        d["infrequent"] = [_plain(v) for v in self.infrequent]
        return d


def _value_key(value):
    """A condition's value as a dict key: categories by their comparison key."""
    if isinstance(value, tuple):
        return tuple(col.category_key(v) for v in value)
    return None if value is None else col.category_key(value)


def _check_finite(name: str, x: np.ndarray, missing: np.ndarray) -> None:
    """Refuse infinity in a numeric column, naming it (NaN is read as missing)."""
    bad = np.isinf(x) & ~missing
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"column {name!r} contains infinite values ({float(x[row])!r} in row {row}); "
                         "replace them (e.g. by NaN, which is read as missing, or by a large "
                         "finite number) before fitting or predicting")


def _keep(holds: float, fails: float, floor: float | None) -> bool:
    """The support floor: both sides of a condition weigh at least ``floor``."""
    return holds > 0 and fails > 0 if floor is None else holds >= floor and fails >= floor


class Binarizer(TransformerMixin, BaseEstimator):
    """Learn boolean conditions from mixed data and evaluate them.

    Parameters
    ----------
    n_thresholds : int, default=9
        Number of quantile thresholds per numeric column (9 gives deciles);
        with ``thresholds="reference"`` the most split points kept per column.
    categorical_features : list of str or int, optional
        Columns to treat as categorical whatever their dtype (names for
        DataFrames, positions for arrays).
    negations : bool, default=False
        Also emit ``x != v`` (and ``x not in {...}``) for categorical columns
        with more than two outcomes (categories, the infrequent group and
        missing counted as one each).
    min_frequency : int, float or None, default=0.01
        The support floor.  A category weighing less is grouped as
        infrequent; a condition (threshold or category test) is kept only
        when the training rows where it holds and those where it fails each
        weigh at least this much.  An int is a (weighted) row count, a float
        in (0, 1) a fraction of the total training weight.  ``None`` turns
        the floor off (every quantile threshold and category is kept).
    max_categories : int or None, default=None
        Most outcomes per categorical column, the infrequent group included
        (as in scikit-learn's ``OneHotEncoder``): the rarer categories join
        the infrequent group.
    handle_unknown : {"warn", "ignore", "infrequent_if_exist", "error"}, default="warn"
        What a category not seen at fit time does in :meth:`transform`:
        ``"ignore"`` makes every ``x == v`` and ``x in {...}`` of the column
        false (and the ``!=`` / ``not in`` true); ``"infrequent_if_exist"``
        treats it as infrequent when the column has an infrequent condition
        (else as ``"ignore"``); ``"warn"`` does the same and warns
        (:class:`DataWarning`) naming the column and values; ``"error"``
        raises ``ValueError``.
    thresholds : {"quantile", "reference"}, default="quantile"
        Where numeric thresholds come from: quantiles of each column, or the
        split points of a small gradient-boosted ensemble fitted on
        ``(X, y)`` (fewer, more useful thresholds; needs ``y``).

    Attributes
    ----------
    conditions_ : list of Condition
        The learned conditions; column ``j`` of :meth:`transform` is
        ``conditions_[j]``.
    feature_names_in_ : ndarray of str
        Input column names (``x0``, ``x1``... for arrays).
    n_features_in_ : int
    feature_index_ : ndarray of int
        For each condition, the position of its input column.
    negation_of_ : ndarray of int
        For each condition, the index of the condition that is its complement
        on non-missing values (``x <= t`` and ``x > t``, ``x == v`` and
        ``x != v``, ``x in {...}`` and ``x not in {...}``, the two outcomes of
        a two-outcome column without missing values), or -1.
    infrequent_categories_ : dict of str -> list
        For each categorical column with infrequent categories, those
        categories (tested together by its ``in`` condition, when that
        condition passes the support floor).
    """

    _rulekit_parameters = {
        "n_thresholds": Integer(1),
        "categorical_features": Instance((list, tuple, np.ndarray),
                                         "a list of column names or positions", allow_none=True),
        "negations": Boolean(),
        "min_frequency": AnyOf(Integer(1), Real(0, 1, closed="neither"), allow_none=True),
        "max_categories": Integer(1, allow_none=True),
        "handle_unknown": Options("warn", "ignore", "infrequent_if_exist", "error"),
        "thresholds": Options("quantile", "reference"),
    }

    def __init__(self, n_thresholds=9, categorical_features=None, negations=False,
                 min_frequency=0.01, max_categories=None, handle_unknown="warn",
                 thresholds="quantile"):
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.negations = negations
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.thresholds = thresholds

    # -- input handling ---------------------------------------------------
    def _frame(self, X, *, fitting: bool) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            col.check_unique_columns(X.columns)
            frame = X.rename(columns=str)
            if not fitting and not self._from_array:
                missing = [c for c in self.feature_names_in_ if c not in frame.columns]
                if missing:
                    raise ValueError(
                        f"column(s) {missing} seen at fit time are missing from X"
                    )
                frame = frame[list(self.feature_names_in_)]
            elif not fitting and frame.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {frame.shape[1]} columns, but the binarizer was fitted "
                    f"with {self.n_features_in_}"
                )
            if not fitting and self._from_array:
                frame = frame.set_axis(list(self.feature_names_in_), axis=1)
            return frame
        if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
            raise TypeError("sparse input is not supported; pass a dense array or DataFrame")
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"X must be 2-D (samples x features), got {arr.ndim}-D")
        if np.iscomplexobj(arr):
            raise ValueError("Complex data not supported")
        if not fitting and arr.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {arr.shape[1]} columns, but the binarizer was fitted with "
                f"{self.n_features_in_}"
            )
        names = self.feature_names_in_ if not fitting else [f"x{j}" for j in range(arr.shape[1])]
        return pd.DataFrame({name: arr[:, j] for j, name in enumerate(names)})

    def _categorical_set(self, frame: pd.DataFrame) -> set:
        chosen = set()
        for c in self.categorical_features or ():
            if isinstance(c, numbers.Integral) and not isinstance(c, bool):
                if not 0 <= c < frame.shape[1]:
                    raise ValueError(
                        f"categorical_features position {c} is out of range for "
                        f"{frame.shape[1]} columns"
                    )
                chosen.add(frame.columns[c])
            elif str(c) in frame.columns:
                chosen.add(str(c))
            else:
                raise ValueError(f"categorical_features names unknown column {c!r}")
        return chosen

    @staticmethod
    def _sample_weight(sample_weight, n: int) -> np.ndarray:
        w = check_sample_weight(sample_weight, n, positive=True)
        return np.ones(n) if w is None else w

    def _columns(self, frame: pd.DataFrame, forced: set) -> list:
        """(name, source, part, kind, series) of every column conditions are learned on."""
        out = []
        for name in frame.columns:
            series = frame[name]
            kind = "categorical" if name in forced else col.column_kind(series)
            if kind != "datetime":
                out.append((name, name, None, kind, series))
                continue
            parts = [p for p in col.DATETIME_PARTS if p != "hour" or col.has_time_of_day(series)]
            for part in parts:
                out.append((f"{part}({name})", name, part, col.DATETIME_PARTS[part][0],
                            col.datetime_parts(series, part)))
        return out

    # -- fit ----------------------------------------------------------------
    def fit(self, X, y=None, sample_weight=None):
        """Learn thresholds and categories from ``X``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Labels; needed only for ``thresholds="reference"``.
        sample_weight : array-like of shape (n_samples,), optional
            Row weights: quantiles, category frequencies and the support
            floor count a row of weight 2 as two rows (and a row of weight 0
            not at all).

        Returns
        -------
        self
        """
        self._learn(X, y, sample_weight, None)
        return self

    def fit_transform(self, X, y=None, sample_weight=None) -> np.ndarray:
        """:meth:`fit`, then :meth:`transform` of the same ``X``, in one pass over the columns.

        Each column's conditions are evaluated as soon as they are learned,
        so a time limit checked between columns covers both (the
        estimators' ``time_limit`` counts binarization too).  Same result as
        ``fit(X, y, sample_weight).transform(X)``.

        Returns
        -------
        ndarray of bool, shape (n_samples, n_conditions)
        """
        blocks = []
        n = self._learn(X, y, sample_weight, blocks)
        # copied into one matrix a column's block at a time, each freed once copied: the
        # peak is the matrix and one block, not the matrix twice
        out = np.empty((n, sum(block.shape[1] for block in blocks)), dtype=bool)
        start = 0
        blocks.reverse()
        while blocks:
            block = blocks.pop()
            out[:, start:start + block.shape[1]] = block
            start += block.shape[1]
        return out

    def _learn(self, X, y, sample_weight, blocks) -> int:
        """The body of :meth:`fit`; appends each column's matrix to ``blocks`` unless None.

        Returns the number of rows.
        """
        params = validate(self._rulekit_parameters, self.get_params(), type(self).__name__)
        self._from_array = not isinstance(X, pd.DataFrame)
        frame = self._frame(X, fitting=True)
        if frame.shape[0] == 0:
            raise ValueError("X has 0 samples; at least one is required")
        if frame.shape[1] == 0:
            raise ValueError("X has 0 features; at least one is required")
        col.check_case_distinct(frame.columns)
        w = self._sample_weight(sample_weight, frame.shape[0])
        self.feature_names_in_ = np.asarray(frame.columns, dtype=object)
        self.n_features_in_ = frame.shape[1]
        columns = self._columns(frame, self._categorical_set(frame))
        floor = params["min_frequency"]
        if isinstance(floor, float):
            floor = floor * float(w.sum())
        for name, _, _, kind, series in columns:
            if kind == "numeric":
                # before any threshold search: the reference model would refuse infinity
                # first, in scikit-learn's words, without naming the column
                _check_finite(name, col.as_float(series), col.is_missing(series))
        cuts = None
        if params["thresholds"] == "reference":
            cuts = self._reference_cuts(columns, y, w, floor, poll=True)

        specs, conditions = [], []
        # (the reference model's cuts, one fit on a sample, are not counted: the loop
        # below then only applies them, and what follows it is the encoding's work)
        start = time.perf_counter()
        for name, source, part, kind, series in columns:
            spec = _ColumnSpec(name, source, part, kind, [], False, len(conditions), 0)
            if stopping(reserve=THRESHOLDS_RESERVE * (time.perf_counter() - start)):
                # time_limit covers the whole fit: past it (or after Ctrl-C, or when what
                # follows would no longer fit) the columns left give no condition; the
                # run's search then stops at once or works on the rest, and says so
                spec.stop = len(conditions)
                specs.append(spec)
                continue
            if kind == "numeric":
                self._fit_numeric(spec, series, w, floor, conditions,
                                  None if cuts is None else cuts[name])
            else:
                self._fit_categorical(spec, series, w, floor, conditions)
            spec.stop = len(conditions)
            specs.append(spec)
            if blocks is not None and spec.stop > spec.first:
                blocks.append(self._evaluate(spec, series, conditions))
        self._set_state(specs, conditions)
        return frame.shape[0]

    def _evaluate(self, spec, series, conditions) -> np.ndarray:
        """The matrix of one fitted column's conditions on its training values."""
        self.conditions_ = conditions   # the transform helpers read the conditions from here
        out = np.zeros((series.shape[0], spec.stop - spec.first), dtype=bool)
        missing = col.is_missing(series)
        if spec.kind == "numeric":
            self._transform_numeric(spec, series, missing, out, spec.first)
        else:
            self._transform_categorical(spec, series, missing, out, spec.first)
        return out

    def fit_summaries(self, feature_names, columns, total_weight, cuts=None):
        """Learn the conditions from per-column summaries instead of the rows.

        What :meth:`fit` learns from a column depends only on its distinct
        present values with their weights and on the weight of its missing
        values, so a summary of each column (as :mod:`rulekit.stream` collects
        it chunk by chunk) gives the conditions :meth:`fit` gives on the rows.

        Parameters
        ----------
        feature_names : list of str
            The input columns, in order.
        columns : list of tuple
            One ``(name, kind, values, weights, w_missing, integral)`` per
            column with conditions, in the order of ``feature_names``:
            ``kind`` is ``"numeric"`` or ``"categorical"``; ``values`` the
            distinct present values (categories as :func:`_columns.category_weights`
            orders them); ``weights`` the weight of each; ``w_missing`` the
            weight of the missing values; ``integral``: the column holds integers.
        total_weight : float
            The rows' summed weight (the support floor's base).
        cuts : dict of str -> ndarray, optional
            Numeric thresholds chosen elsewhere (``thresholds="reference"``),
            by column name; the support floor still applies.

        Returns
        -------
        self
        """
        params = validate(self._rulekit_parameters, self.get_params(), type(self).__name__)
        self._from_array = False
        self.feature_names_in_ = np.asarray([str(c) for c in feature_names], dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        floor = params["min_frequency"]
        if isinstance(floor, float):
            floor = floor * float(total_weight)
        specs, conditions = [], []
        for name, kind, values, weights, w_missing, integral in columns:
            spec = _ColumnSpec(name, name, None, kind, [], w_missing > 0, len(conditions), 0)
            weights = np.asarray(weights, dtype=float)
            if kind == "numeric":
                self._numeric_conditions(spec, np.asarray(values, dtype=float), weights,
                                         float(w_missing), bool(integral), floor, conditions,
                                         None if cuts is None else cuts.get(name))
            else:
                self._fit_categories(spec, list(values), weights, float(w_missing), floor,
                                     conditions)
            spec.stop = len(conditions)
            specs.append(spec)
        self._set_state(specs, conditions)
        return self

    def _reference_cuts(self, columns, y, w, floor, *, poll=False) -> dict:
        """The reference ensemble's cuts per numeric column; with ``poll``, {} once the
        open run's limit has passed (then :meth:`_learn` gives no column a condition)."""
        from ._reference import reference_cuts

        # each column is a pass over every row (2.6 s for the categories of ten million
        # rows), which past the limit would only be thrown away
        numeric = {}
        for name, _, _, kind, series in columns:
            if kind == "numeric":
                if poll and stopping():
                    return {}
                numeric[name] = col.as_float(series)
        groups = []
        for name, _, _, kind, series in columns:
            if kind == "categorical":
                if poll and stopping():
                    return {}
                present = ~col.is_missing(series)
                cats, weights = col.category_weights(col.column_values(series, present),
                                                     w[present])
                frequent = [c for c, cw in zip(cats, weights) if floor is None or cw >= floor]
                groups.append((series, frequent))

        def context(rows):
            # one indicator per frequent category, on the rows the ensemble is fitted on
            parts = []
            for series, frequent in groups:
                codes = col.category_codes(series.iloc[rows], frequent)
                parts += [codes == k for k in range(len(frequent))]
            return np.column_stack(parts).astype(float) if parts else None

        return reference_cuts(numeric, context, y, w, self.n_thresholds)

    def _fit_numeric(self, spec, series, w, floor, conditions, cuts=None) -> None:
        """Thresholds of one numeric column (in place: ``spec`` and ``conditions``)."""
        missing = col.is_missing(series)
        x = col.as_float(series)
        _check_finite(spec.name, x, missing)
        keep = w > 0
        present = ~missing & keep
        spec.has_missing = bool((missing & keep).any())
        self._numeric_conditions(spec, x[present], w[present], float(w[missing & keep].sum()),
                                 pd.api.types.is_integer_dtype(series.dtype), floor, conditions,
                                 cuts)

    def _numeric_conditions(self, spec, values, wv, w_missing, integral, floor, conditions,
                            cuts=None) -> None:
        """Thresholds of one numeric column from its present values and their weights
        (``spec.has_missing`` already set); a value weighing ``k`` counts as ``k`` rows."""
        reference = cuts is not None
        # one stable sort of the values serves the quantiles and the weights on either side
        # of every cut: the quantiles sorted them again, and the loop below once per cut
        # (one column of ten million rows: 4.4 s, of which 3 s were those sorts and copies)
        order = np.argsort(values, kind="stable")
        if cuts is None:
            cuts = col.candidate_cuts(values, wv, self.n_thresholds, order=order)
        if values.size == 0:
            spec.why = "all missing"
            return
        if cuts.size == 0 and np.unique(values).size == 1 and spec.has_missing:
            # one value plus missing: a two-outcome column, "x == v" and "x is missing"
            spec.kind = "categorical"
            v = col.as_numbers(values[:1], integral)[0]
            self._fit_categories(spec, [v], np.array([wv.sum()]), w_missing, floor, conditions)
            return
        ordered = values[order]
        cum = np.concatenate([[0.0], np.cumsum(wv[order])])
        for t in col.as_numbers(cuts, integral):
            left = float(cum[np.searchsorted(ordered, t, side="right")])
            right = float(cum[-1]) - left
            low = _keep(left, right + w_missing, floor)
            high = _keep(right, left + w_missing, floor)
            if low:
                conditions.append(Condition(spec.name, "<=", t))
            if high:
                conditions.append(Condition(spec.name, ">", t))
            if low or high:
                spec.values.append(t)
        self._missing_condition(spec, w_missing, float(cum[-1]), floor, conditions)
        if len(conditions) == spec.first:
            if np.unique(values).size == 1:
                spec.why = f"constant: every value is {_format_value(values[0])}"
            elif cuts.size == 0 and reference:
                spec.why = "no cut: the reference ensemble (thresholds='reference') never splits on it"
            else:
                spec.why = (f"no useful cut: no threshold leaves min_frequency={self.min_frequency!r} "
                            "of the rows on each side")

    def _fit_categorical(self, spec, series, w, floor, conditions) -> None:
        """Categories of one categorical column (in place)."""
        missing = col.is_missing(series)
        keep = w > 0
        present = ~missing & keep
        spec.has_missing = bool((missing & keep).any())
        values = col.column_values(series, present)
        col.refuse_bytes(values, spec.source)
        cats, weights = col.category_weights(values, w[present])
        if len(cats) >= IDENTIFIER_MIN_VALUES and len(cats) >= IDENTIFIER_SHARE * present.sum():
            _warn(
                f"column {spec.source!r} looks like an identifier ({len(cats)} distinct values "
                f"in {int(present.sum())} rows): a value seen once says nothing about new rows. "
                "Drop the column from X; if you keep it, values rarer than min_frequency are "
                "grouped as infrequent.")
        self._fit_categories(spec, cats, weights, float(w[missing & keep].sum()), floor, conditions)

    def _fit_categories(self, spec, cats, weights, w_missing, floor, conditions) -> None:
        """Conditions of a categorical column from its categories and their weights."""
        if len(cats) + int(spec.has_missing) <= 1:
            spec.why = ("all missing" if not len(cats) else
                        f"constant: every value is {_format_value(_plain(cats[0]))}")
            return
        rare = weights < floor if floor is not None else np.zeros(len(cats), dtype=bool)
        rare_by_floor = bool(rare.all())
        limit = self.max_categories
        if limit is not None and limit < len(cats) - rare.sum() + 1:
            # OneHotEncoder's rule: keep the limit - 1 most frequent (ties: earlier category)
            rare[np.argsort(weights, kind="mergesort")[:len(cats) - (limit - 1)]] = True
        spec.values = [c for c, r in zip(cats, rare) if not r]
        spec.infrequent = [c for c, r in zip(cats, rare) if r]
        total = float(weights.sum()) + w_missing
        outcomes = len(spec.values) + int(bool(spec.infrequent)) + int(spec.has_missing)
        negate = self.negations and outcomes > 2
        groups = [("==", v, float(wv)) for v, wv, r in zip(cats, weights, rare) if not r]
        if spec.infrequent:
            groups.append(("in", tuple(spec.infrequent), float(weights[rare].sum())))
        for op, value, holds in groups:
            if _keep(holds, total - holds, floor):
                conditions.append(Condition(spec.name, op, value))
            others = total - holds - w_missing
            if negate and _keep(others, holds + w_missing, floor):
                conditions.append(Condition(spec.name, _FLIP[op], value))
        self._missing_condition(spec, w_missing, total - w_missing, floor, conditions)
        if len(conditions) == spec.first:
            if spec.infrequent and not spec.values and not rare_by_floor:
                spec.why = (f"dropped by max_categories={limit}: every category falls in one "
                            "group, which holds on every row with a value")
            elif len(cats) == 1:
                only, mf = _format_value(_plain(cats[0])), self.min_frequency
                spec.why = (f"nearly constant: every present value is {only}, and the missing "
                            f"rows are fewer than min_frequency={mf!r}" if w_missing < weights.sum()
                            else f"nearly all missing: the rows with a value ({only}) are fewer "
                            f"than min_frequency={mf!r}")
            elif spec.infrequent and not spec.values:
                spec.why = (f"no useful category: each of its {len(cats)} categories is rarer than "
                            f"min_frequency={self.min_frequency!r}, and grouped together they "
                            "hold on every row with a value")
            else:
                spec.why = (f"no useful category: no category test leaves "
                            f"min_frequency={self.min_frequency!r} of the rows on each side")

    @staticmethod
    def _missing_condition(spec, w_missing, w_present, floor, conditions) -> None:
        """``x is missing``: always next to other conditions of the column (it tells
        the learners those are not complements on missing rows), else if frequent."""
        if not spec.has_missing or w_present == 0:
            return
        if len(conditions) > spec.first or _keep(w_missing, w_present, floor):
            conditions.append(Condition(spec.name, "is missing", None))

    def _set_state(self, specs, conditions) -> None:
        self._specs = specs
        self.conditions_ = conditions
        index = {n: j for j, n in enumerate(self.feature_names_in_)}
        self.feature_index_ = np.array(
            [index[s.source] for s in specs for _ in range(s.first, s.stop)], dtype=np.int64)
        self.negation_of_ = self._negations(specs, conditions)
        self.infrequent_categories_ = {s.name: list(s.infrequent) for s in specs if s.infrequent}

    @staticmethod
    def _negations(specs, conditions) -> np.ndarray:
        neg = np.full(len(conditions), -1, dtype=np.int64)
        for s in specs:
            # keyed as categories compare (True and 1 are two categories)
            index = {(c.op, _value_key(c.value)): k
                     for k, c in enumerate(conditions[s.first:s.stop], s.first)}
            for (op, value), k in index.items():
                if op in _FLIP and (_FLIP[op], value) in index:
                    neg[k] = index[(_FLIP[op], value)]
            positives = [k for (op, _), k in index.items() if op in ("==", "in")]
            if (len(positives) == 2 and len(s.values) + int(bool(s.infrequent)) == 2
                    and not s.has_missing):
                neg[positives[0]], neg[positives[1]] = positives[1], positives[0]
        return neg

    # -- saved state ----------------------------------------------------------
    def to_dict(self) -> dict:
        """The fitted state as plain JSON-ready data (see :meth:`from_dict`)."""
        check_is_fitted(self, "conditions_")
        params = {k: _plain(v) for k, v in self.get_params().items()}
        if params["categorical_features"] is not None:
            params["categorical_features"] = [_plain(c) for c in params["categorical_features"]]
        return {
            "params": params,
            "feature_names_in": [str(c) for c in self.feature_names_in_],
            "from_array": bool(self._from_array),
            "columns": [s.to_dict() for s in self._specs],
            "conditions": [c.to_dict() for c in self.conditions_],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Binarizer":
        """A fitted binarizer from :meth:`to_dict` output (thresholds, categories,
        infrequent groups, unknown-category handling)."""
        self = cls(**d["params"])
        validate(cls._rulekit_parameters, self.get_params(), cls.__name__)
        self._from_array = bool(d.get("from_array", False))
        self.feature_names_in_ = np.asarray(d["feature_names_in"], dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        specs = [_ColumnSpec(**s) for s in d["columns"]]
        conditions = [Condition.from_dict(c) for c in d["conditions"]]
        for s in specs:
            if not 0 <= s.first <= s.stop <= len(conditions) or any(
                    c.feature != s.name for c in conditions[s.first:s.stop]):
                raise ValueError(f"saved binarizer state is inconsistent at column {s.name!r}")
        self._set_state(specs, conditions)
        return self

    @classmethod
    def from_conditions(cls, conditions, feature_names=None) -> "Binarizer":
        """A fitted binarizer that evaluates exactly the given conditions.

        This reads models saved before the binarizer's state was saved with
        them (their JSON holds only conditions); unseen categories are
        ignored, as they were then.  Columns are matched by name.

        Parameters
        ----------
        conditions : list of Condition
            In the order of the condition-matrix columns; conditions on one
            feature must be contiguous (as :meth:`fit` produces them).
        feature_names : list of str, optional
            All input columns; defaults to the features the conditions use.
        """
        conditions = list(conditions)
        names = list(dict.fromkeys(c.feature for c in conditions))
        self = cls(handle_unknown="ignore")
        self._from_array = False
        self.feature_names_in_ = np.asarray(
            list(feature_names) if feature_names is not None else names, dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        specs, k = [], 0
        while k < len(conditions):
            name, first = conditions[k].feature, k
            while k < len(conditions) and conditions[k].feature == name:
                k += 1
            block = conditions[first:k]
            if any(c.feature == name for c in conditions[k:]):
                raise ValueError(f"conditions on feature {name!r} are not contiguous")
            numeric = any(c.op in ("<=", ">") for c in block)
            values = list(dict.fromkeys(c.value for c in block if c.op in ("<=", ">", "==", "!=")))
            rare = next((list(c.value) for c in block if c.op in ("in", "not in")), [])
            has_missing = any(c.op == "is missing" for c in block)
            specs.append(_ColumnSpec(name, name, None, "numeric" if numeric else "categorical",
                                     values, has_missing, first, k, rare))
        self._set_state(specs, conditions)
        return self

    # -- transform ----------------------------------------------------------
    def transform(self, X) -> np.ndarray:
        """Evaluate every condition on ``X``.

        Returns
        -------
        ndarray of bool, shape (n_samples, n_conditions)
        """
        check_is_fitted(self, "conditions_")
        frame = self._frame(X, fitting=False)
        out = np.zeros((frame.shape[0], len(self.conditions_)), dtype=bool)
        for s, series, missing in self._input_columns(frame):
            if s.kind == "numeric":
                self._transform_numeric(s, series, missing, out)
            else:
                self._transform_categorical(s, series, missing, out)
        return out

    def _input_columns(self, frame):
        """``(spec, column, missing)`` of each column that has conditions (date parts made)."""
        for s in self._specs:
            if s.first == s.stop:
                continue
            series = frame[s.source]
            if s.part is not None:
                series = col.datetime_parts(series, s.part)
            yield s, series, col.is_missing(series)

    def transform_packed(self, X) -> np.ndarray:
        """Every condition on ``X``, eight to a byte: ``np.packbits(transform(X), axis=1)``.

        The columns are encoded once (numbers as floats, categories as codes) and a
        compiled loop sets the bits, never making the boolean matrix (a million rows of
        116 conditions: about 0.3 CPU s against 1.2); what a fit from files counts
        (:mod:`rulekit.stream`).

        Returns
        -------
        ndarray of uint8, shape (n_samples, ceil(n_conditions / 8))
        """
        check_is_fitted(self, "conditions_")
        frame = self._frame(X, fitting=False)
        n, m = frame.shape[0], len(self.conditions_)
        out = np.zeros((n, (m + 7) // 8), dtype=np.uint8)
        no_numbers = np.empty((0, n), dtype=np.float64)
        no_codes = np.empty((0, n), dtype=np.int64)
        # one input column at a time: it is encoded, its conditions set their bits, and it
        # is freed, so the memory beside the packed result is one encoded column
        for sp, series, missing in self._input_columns(frame):
            # per condition: NUMERIC / CATEGORICAL for this column's, -1 (skipped) for the
            # others; its operator, threshold or category position, and frequent categories
            kind = np.full(m, -1, dtype=np.int64)
            kind[sp.first:sp.stop] = NUMERIC if sp.kind == "numeric" else CATEGORICAL
            op = np.zeros(m, dtype=np.int64)
            value = np.zeros(m, dtype=np.float64)
            size = np.full(m, len(sp.values), dtype=np.int64)
            keys = None
            for k in range(sp.first, sp.stop):
                cond = self.conditions_[k]
                op[k] = _OP_CODES[cond.op]
                if cond.op in ("<=", ">"):
                    value[k] = cond.value
                elif cond.op in ("==", "!="):
                    if keys is None:
                        keys = [col.category_key(v) for v in sp.values]
                    value[k] = keys.index(col.category_key(cond.value))
            if sp.kind == "numeric":
                X_num, X_cat = self._encode_numeric(sp, series, missing)[None, :], no_codes
            else:
                X_num = no_numbers
                X_cat = np.asarray(self._encode_categorical(sp, series, missing),
                                   dtype=np.int64)[None, :]
            pack_conditions(X_num, X_cat, kind, np.zeros(m, dtype=np.int64), op, value, size,
                            out)
            del X_num, X_cat
        return out

    def _encode_numeric(self, s, series, missing) -> np.ndarray:
        """The column as floats, NaN where missing (infinite values refused)."""
        x = col.as_float(series)                 # NaN where missing already
        _check_finite(s.name, x, missing)
        return x

    def _encode_categorical(self, s, series, missing) -> np.ndarray:
        """Each row's category as a code the conditions read: its position among the
        frequent categories, ``len(s.values)`` when infrequent (or unknown and read as
        infrequent), :data:`UNKNOWN_CODE` when unknown, :data:`MISSING_CODE` when missing."""
        known = list(s.values) + list(s.infrequent)
        if known and all(isinstance(v, (bool, np.bool_)) for v in known):
            # a boolean column: 1, 0.0, "True"... are read as booleans, the rule every
            # export follows (SQL cannot tell 1 from TRUE in SQLite)
            values = series.to_numpy(dtype=object)
            series = pd.Series([v if m else col.as_boolean(v) for v, m in zip(values, missing)],
                               index=series.index, dtype=object, name=series.name)
        codes = col.category_codes(series, known)
        present = ~missing
        unknown = present & (codes < 0)
        np.minimum(codes, len(s.values), out=codes)         # every infrequent one alike
        if unknown.any():
            has_group = any(c.op in ("in", "not in") for c in self.conditions_[s.first:s.stop])
            self._unknown(s, series[unknown], has_group)
            if self.handle_unknown in ("warn", "infrequent_if_exist") and has_group:
                codes[unknown] = len(s.values)
            else:
                codes[unknown] = UNKNOWN_CODE
        codes[missing] = MISSING_CODE
        return codes

    def _transform_numeric(self, s, series, missing, out, offset=0) -> None:
        x = self._encode_numeric(s, series, missing)
        for k in range(s.first, s.stop):
            cond = self.conditions_[k]
            if cond.op == "is missing":
                out[:, k - offset] = missing
            elif cond.op == "<=":
                out[:, k - offset] = x <= cond.value         # False where NaN (missing)
            else:
                out[:, k - offset] = x > cond.value

    def _transform_categorical(self, s, series, missing, out, offset=0) -> None:
        codes = self._encode_categorical(s, series, missing)
        n_frequent = len(s.values)
        present = codes != MISSING_CODE
        for k in range(s.first, s.stop):
            cond = self.conditions_[k]
            if cond.op == "is missing":
                out[:, k - offset] = ~present
            elif cond.op == "in":
                out[:, k - offset] = codes >= n_frequent
            elif cond.op == "not in":
                out[:, k - offset] = present & (codes < n_frequent)
            else:
                position = [col.category_key(v) for v in s.values].index(col.category_key(cond.value))
                hit = codes == position
                out[:, k - offset] = hit if cond.op == "==" else present & ~hit

    def _unknown(self, s, values: pd.Series, has_group: bool) -> None:
        """Act on categories not seen at fit time, as ``handle_unknown`` says."""
        if self.handle_unknown in ("ignore", "infrequent_if_exist"):
            return
        seen = list(dict.fromkeys(_format_value(_plain(v)) for v in values))
        shown = ", ".join(seen[:5]) + (f" and {len(seen) - 5} more" if len(seen) > 5 else "")
        if self.handle_unknown == "error":
            raise ValueError(
                f"column {s.name!r} holds {len(seen)} categor{'y' if len(seen) == 1 else 'ies'} "
                f"not seen at fit time ({shown}); pass handle_unknown='ignore', "
                "'infrequent_if_exist' or 'warn' to accept them")
        treated = ("treated as infrequent" if has_group
                   else "such values match no category (every == condition on the column is false)")
        _warn(
            f"column {s.name!r}: {len(seen)} categor{'y' if len(seen) == 1 else 'ies'} not "
            f"seen at fit time ({shown}); {treated}. Set handle_unknown to 'ignore' or "
            "'infrequent_if_exist' to accept them silently, or 'error' to refuse them.")

    def column_report(self) -> pd.DataFrame:
        """What each column gave: its kind, how many conditions, and why none.

        One row per column the conditions were learned on (a datetime column
        gives one row per part), in the order of :attr:`conditions_`.

        Returns
        -------
        DataFrame
            Indexed by feature name, with columns ``column`` (the input column
            it comes from), ``kind`` (``"numeric"`` or ``"categorical"``),
            ``conditions`` (how many) and ``reason``: ``""`` when the column
            gave conditions, else why it gave none (``"constant: every value
            is 3"``, ``"all missing"``, ``"no useful cut: ..."``, ``"no useful
            category: ..."``, ``"dropped by max_categories=...: ..."``).  A
            binarizer read back from a saved model no longer knows the reason
            and says so.
        """
        check_is_fitted(self, "conditions_")
        rows = []
        for s in self._specs:
            n = s.stop - s.first
            why = "" if n else (s.why or "gave no condition (the reason is not saved with a model)")
            rows.append({"feature": s.name, "column": s.source, "kind": s.kind,
                         "conditions": n, "reason": why})
        return pd.DataFrame(rows, columns=["feature", "column", "kind", "conditions", "reason"]
                            ).set_index("feature")

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Readable names of the conditions, e.g. ``age <= 25``."""
        check_is_fitted(self, "conditions_")
        return np.asarray([str(c) for c in self.conditions_], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags
