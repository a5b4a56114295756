"""Turn mixed tabular data into boolean conditions.

A *condition* is one test on one feature (``age <= 25``, ``sex == Male``,
``income is missing``).  :class:`Binarizer` learns the conditions from
training data and evaluates them on any later data, giving the boolean
matrix every rulekit learner searches over.

Rules (the same for pandas and numpy input):

* numeric columns give thresholds at ``n_thresholds`` evenly spaced
  quantiles of the non-missing training values (9 = deciles), deduplicated;
  a column with few distinct values uses those values (all but the largest)
  instead.  Each threshold ``t`` gives ``x <= t`` and ``x > t``;
* categorical columns (object, string, category, bool, or listed in
  ``categorical_features``) give ``x == v`` for every training category and,
  with ``negations=True``, ``x != v``; a two-category column never gets
  ``!=`` conditions because ``x != a`` is the same test as ``x == b``;
* a column with missing training values gets ``x is missing``; on a missing
  value every other condition of that column is false;
* a column with a single value (missing counted as a value) gives nothing.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._params import Boolean, Instance, Integer, validate

__all__ = ["Condition", "Binarizer", "OPS"]

#: Operators a :class:`Condition` may carry.
OPS = ("<=", ">", "==", "!=", "is missing")


def _format_value(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return f"{float(value):.6g}"
    return str(value)


def _plain(value: Any) -> Any:
    """numpy scalars -> Python scalars, so conditions serialise to JSON."""
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass(frozen=True)
class Condition:
    """One boolean test on one feature.

    Parameters
    ----------
    feature : str
        Column name as seen at fit time (``x0``, ``x1``... for arrays).
    op : {"<=", ">", "==", "!=", "is missing"}
        The comparison.
    value : scalar or None
        Threshold or category; ``None`` for ``is missing``.
    """

    feature: str
    op: str
    value: Any = None

    def __post_init__(self):
        if self.op not in OPS:
            raise ValueError(f"Condition op must be one of {OPS}, got {self.op!r}")

    def __str__(self) -> str:
        if self.op == "is missing":
            return f"{self.feature} is missing"
        return f"{self.feature} {self.op} {_format_value(self.value)}"

    def negated(self) -> "Condition | None":
        """The complementary test on non-missing values, if it is a condition."""
        flip = {"<=": ">", ">": "<=", "==": "!=", "!=": "=="}
        if self.op in flip:
            return Condition(self.feature, flip[self.op], self.value)
        return None

    def to_dict(self) -> dict:
        return {"feature": self.feature, "op": self.op, "value": _plain(self.value)}

    @classmethod
    def from_dict(cls, d: dict) -> "Condition":
        return cls(d["feature"], d["op"], d.get("value"))


@dataclass
class _ColumnSpec:
    """What the binarizer learned about one input column."""

    name: str
    kind: str  # "numeric" or "categorical"
    values: list  # thresholds (numeric) or categories (categorical)
    has_missing: bool
    first: int  # index of this column's first condition
    stop: int  # one past its last condition


def _is_missing(values: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)


def _numeric_kind(series: pd.Series) -> bool:
    """True if a column should be thresholded rather than treated as categories."""
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return False
    if pd.api.types.is_numeric_dtype(dtype):
        return True
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_string_dtype(dtype) and dtype != object:
        return False
    # object columns: numeric only when every present value is a real number
    present = series[~_is_missing(series.to_numpy())]
    kinds = set()
    for v in present:
        if isinstance(v, (bool, np.bool_)):
            kinds.add("text")
        elif isinstance(v, numbers.Real):
            kinds.add("number")
        elif isinstance(v, (str, bytes)):
            kinds.add("text")
        else:
            raise TypeError(
                f"column {series.name!r} holds a {type(v).__name__} value; "
                "argument must be a string or a real number"
            )
    if kinds == {"number", "text"}:
        raise ValueError(
            f"column {series.name!r} mixes numbers and text; clean it or list it "
            "in categorical_features to treat every value as a category"
        )
    return kinds == {"number"}


def _as_float(series: pd.Series) -> np.ndarray:
    try:
        return pd.to_numeric(series, errors="raise").to_numpy(dtype=float, na_value=np.nan)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"column {series.name!r} was numeric at fit time but holds non-numeric "
            f"data now ({exc})"
        ) from None


def _thresholds(values: np.ndarray, n_thresholds: int) -> list:
    distinct = np.unique(values)
    if distinct.size <= 1:
        return []
    if distinct.size <= n_thresholds + 1:
        cuts = distinct[:-1]
    else:
        qs = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
        cuts = np.unique(np.quantile(values, qs))
        # a quantile equal to the maximum would give an always-false "x > t"
        cuts = cuts[cuts < distinct[-1]]
    if np.issubdtype(values.dtype, np.integer) or np.all(np.mod(cuts, 1) == 0):
        return [int(c) if float(c).is_integer() else float(c) for c in cuts]
    return [float(c) for c in cuts]


class Binarizer(TransformerMixin, BaseEstimator):
    """Learn boolean conditions from mixed data and evaluate them.

    Parameters
    ----------
    n_thresholds : int, default=9
        Number of quantile thresholds per numeric column (9 gives deciles).
    categorical_features : list of str or int, optional
        Columns to treat as categorical whatever their dtype (names for
        DataFrames, positions for arrays).
    negations : bool, default=False
        Also emit ``x != v`` for categorical columns with three or more
        categories (or with missing values).

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
        ``x != v``, the two ``==`` of a two-category column), or -1.
    """

    _parameter_constraints = {
        "n_thresholds": Integer(1),
        "categorical_features": Instance((list, tuple, np.ndarray),
                                         "a list of column names or positions", allow_none=True),
        "negations": Boolean(),
    }

    def __init__(self, n_thresholds=9, categorical_features=None, negations=False):
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.negations = negations

    # -- input handling ---------------------------------------------------
    def _frame(self, X, *, fitting: bool) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
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

    # -- fit / transform --------------------------------------------------
    def fit(self, X, y=None):
        """Learn thresholds and categories from ``X``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate(self._parameter_constraints, self.get_params(), type(self).__name__)
        self._from_array = not isinstance(X, pd.DataFrame)
        frame = self._frame(X, fitting=True)
        if frame.shape[0] == 0:
            raise ValueError("X has 0 samples; at least one is required")
        if frame.shape[1] == 0:
            raise ValueError("X has 0 features; at least one is required")
        self.feature_names_in_ = np.asarray(frame.columns, dtype=object)
        self.n_features_in_ = frame.shape[1]
        forced = self._categorical_set(frame)

        specs, conditions = [], []
        for name in frame.columns:
            col = frame[name]
            missing = _is_missing(col.to_numpy())
            has_missing = bool(missing.any())
            first = len(conditions)
            if name not in forced and _numeric_kind(col):
                values = _as_float(col)[~missing]
                if np.isinf(values).any():
                    raise ValueError(f"column {name!r} contains infinite values")
                if np.issubdtype(col.dtype, np.integer):
                    values = col.to_numpy()[~missing]
                cuts = _thresholds(values, self.n_thresholds)
                kind = "numeric"
                if cuts or (has_missing and values.size):
                    for t in cuts:
                        conditions.append(Condition(name, "<=", t))
                        conditions.append(Condition(name, ">", t))
                    if not cuts:  # one distinct value plus missing: "x == v"
                        kind, cuts = "categorical", [_plain(values[0])]
                        conditions.append(Condition(name, "==", cuts[0]))
                values_out = cuts
            else:
                kind = "categorical"
                present = col[~missing]
                cats = sorted(
                    {_plain(v) for v in present.tolist()},
                    key=lambda v: (type(v).__name__, v),
                )
                n_values = len(cats) + int(has_missing)
                if n_values <= 1:
                    cats = []
                for v in cats:
                    conditions.append(Condition(name, "==", v))
                    if self.negations and (len(cats) > 2 or has_missing):
                        conditions.append(Condition(name, "!=", v))
                values_out = cats
            if has_missing and len(conditions) > first:
                conditions.append(Condition(name, "is missing", None))
            specs.append(_ColumnSpec(name, kind, values_out, has_missing, first, len(conditions)))

        self._specs = specs
        self.conditions_ = conditions
        self.feature_index_ = np.array(
            [j for j, s in enumerate(specs) for _ in range(s.first, s.stop)], dtype=np.int64
        )
        self.negation_of_ = self._negations(specs, conditions)
        return self

    @classmethod
    def from_conditions(cls, conditions, feature_names=None) -> "Binarizer":
        """A fitted binarizer that evaluates exactly the given conditions.

        This is how a saved model (whose JSON holds only its conditions)
        predicts on new raw data.  Columns are matched by name.

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
        self = cls()
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
            values = list(dict.fromkeys(c.value for c in block if c.op != "is missing"))
            has_missing = any(c.op == "is missing" for c in block)
            specs.append(_ColumnSpec(name, "numeric" if numeric else "categorical", values, has_missing, first, k))
        self._specs = specs
        self.conditions_ = conditions
        index = {n: j for j, n in enumerate(self.feature_names_in_)}
        self.feature_index_ = np.array([index[c.feature] for c in conditions], dtype=np.int64)
        self.negation_of_ = cls._negations(specs, conditions)
        return self

    @staticmethod
    def _negations(specs, conditions) -> np.ndarray:
        neg = np.full(len(conditions), -1, dtype=np.int64)
        for s in specs:
            index = {(c.op, c.value): k for k, c in enumerate(conditions[s.first:s.stop], s.first)}
            for (op, value), k in index.items():
                flipped = Condition(s.name, op, value).negated() if op != "is missing" else None
                if flipped is not None and (flipped.op, flipped.value) in index:
                    neg[k] = index[(flipped.op, flipped.value)]
            eqs = [k for (op, _), k in index.items() if op == "=="]
            if len(eqs) == 2 and len(s.values) == 2 and not s.has_missing:
                neg[eqs[0]], neg[eqs[1]] = eqs[1], eqs[0]
        return neg

    def transform(self, X) -> np.ndarray:
        """Evaluate every condition on ``X``.

        Returns
        -------
        ndarray of bool, shape (n_samples, n_conditions)
        """
        check_is_fitted(self, "conditions_")
        frame = self._frame(X, fitting=False)
        out = np.zeros((frame.shape[0], len(self.conditions_)), dtype=bool)
        for s in self._specs:
            if s.first == s.stop:
                continue
            col = frame[s.name]
            missing = _is_missing(col.to_numpy())
            present = ~missing
            if s.kind == "numeric":
                x = _as_float(col)
                if np.isinf(x[present]).any():
                    raise ValueError(f"column {s.name!r} contains infinite values")
            else:
                codes = _category_codes(col, s.values)
            for k in range(s.first, s.stop):
                cond = self.conditions_[k]
                if cond.op == "is missing":
                    out[:, k] = missing
                    continue
                if cond.op == "<=":
                    hit = np.where(present, x, np.inf) <= cond.value
                elif cond.op == ">":
                    hit = np.where(present, x, -np.inf) > cond.value
                else:
                    hit = codes == s.values.index(cond.value)
                    if cond.op == "!=":
                        hit = ~hit
                out[:, k] = hit & present
        return out

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


def _category_key(value: Any) -> tuple:
    """Hashable key under which equal categories meet (1 and 1.0 do, True and 1 do not)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, numbers.Real):
        return ("number", float(value))
    return ("text", str(value))


def _category_codes(col: pd.Series, categories: list) -> np.ndarray:
    """Position of each value in ``categories``; -1 for unknown or missing."""
    lookup = {_category_key(c): i for i, c in enumerate(categories)}
    values = col.to_numpy(dtype=object)
    # factorize once, then look up each distinct value: linear in rows
    inverse, uniques = pd.factorize(values, use_na_sentinel=True)
    ucodes = np.array([lookup.get(_category_key(u), -1) for u in uniques] + [-1], dtype=np.int64)
    return ucodes[inverse]  # inverse == -1 (missing) picks the trailing -1
