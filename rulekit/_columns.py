"""What the binarizer needs to know about one column: its kind, cuts, categories.

Pure functions over pandas/numpy columns; :mod:`rulekit.binarize` turns their
results into conditions.

Weighted quantiles follow numpy's default (``method="linear"``) applied to
the data in which every row is repeated as often as its weight says, so a
row of weight 2 and the same row written twice give the same thresholds;
with unit weights they equal ``numpy.quantile`` exactly (both compute the
same virtual index and the same interpolation).
"""

from __future__ import annotations

import datetime as _dt
import numbers
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["is_missing", "column_kind", "check_unique_columns", "check_case_distinct",
           "refuse_bytes", "as_boolean",
           "BOOLEAN_TEXT", "as_float", "weighted_quantiles", "candidate_cuts",
           "as_numbers", "category_weights", "column_values", "category_codes", "category_key", "datetime_parts", "plain",
           "DATETIME_PARTS"]

#: parts derived from a datetime column: name -> (numeric or categorical, how to compute)
DATETIME_PARTS = {
    "year": ("numeric", lambda d: d.dt.year),
    "month": ("numeric", lambda d: d.dt.month),
    "weekday": ("categorical", lambda d: d.dt.day_name().str.slice(0, 3)),
    "hour": ("numeric", lambda d: d.dt.hour),
}


def plain(value: Any) -> Any:
    """numpy scalars -> Python scalars, so values serialise to JSON."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def is_missing(values) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)


_PLURAL = {"number": "numbers", "text": "text", "datetime": "dates"}


def _object_kind(series: pd.Series) -> str:
    """Kind of an object column from the Python types of its present values."""
    present = series[~is_missing(series.to_numpy(dtype=object))]
    kinds = set()
    for v in present:
        if isinstance(v, (bool, np.bool_)):
            kinds.add("text")
        elif isinstance(v, numbers.Real):
            kinds.add("number")
        elif isinstance(v, (bytes, bytearray, memoryview)):
            raise ValueError(_bytes_advice(series.name))
        elif isinstance(v, str):
            kinds.add("text")
        elif isinstance(v, (_dt.date, np.datetime64)):
            kinds.add("datetime")
        elif isinstance(v, (_dt.timedelta, np.timedelta64)):
            raise TypeError(_duration_advice(series.name))
        else:
            raise TypeError(
                f"column {series.name!r} holds a {type(v).__name__} value; argument must be "
                "a string, a real number or a date: convert the column, or drop it from X"
            )
    if len(kinds) > 1:
        raise ValueError(
            f"column {series.name!r} mixes {' and '.join(_PLURAL[k] for k in sorted(kinds))}; clean it, or "
            "list it in categorical_features to treat every value as a category"
        )
    return {"number": "numeric", "datetime": "datetime"}.get(kinds.pop() if kinds else "", "categorical")


def _bytes_advice(name) -> str:
    # bytes are refused rather than read: str(b"a") is "b'a'", which a database
    # or the exported Python would compare with text and silently miss
    return (f"column {name!r} holds bytes; decode them to text first, e.g. "
            f"X[{name!r}].str.decode('utf-8')")


def check_unique_columns(columns) -> None:
    """A ValueError naming the duplicated column names, if any (compared as text,
    as the binarizer reads them)."""
    names = pd.Index([str(c) for c in columns])
    if names.has_duplicates:
        counts = names.value_counts()
        shown = ", ".join(f"{name!r} ({int(k)} times)" for name, k in counts[counts > 1].items())
        raise ValueError(f"X has duplicate column names: {shown}; give every column its own "
                         "name")


def check_case_distinct(columns, holder: str = "X has") -> None:
    """A ValueError naming the column names that differ only in case (``A`` and ``a``).

    SQLite and DuckDB read identifiers without regard to case, quoted or not:
    SQLite cannot hold both columns in one table, and DuckDB renames the
    second (``a_1``), so an export's ``"a"`` would read ``A``.  rulekit refuses
    such names at fit rather than give a model no database can run faithfully.
    """
    seen: dict = {}
    for name in (str(c) for c in columns):
        seen.setdefault(name.casefold(), []).append(name)
    clashes = [names for names in seen.values() if len(names) > 1]
    if clashes:
        shown = "; ".join(" and ".join(repr(n) for n in names) for names in clashes)
        raise ValueError(f"{holder} column names that differ only in case: {shown}; SQL databases "
                         "read them as one column (docs/security.md): rename one of each")


def refuse_bytes(values, name) -> None:
    """A ValueError naming the column when ``values`` (present values) hold bytes."""
    if _is_text(values):
        return                              # a text dtype holds no bytes
    # pandas reads the kinds of values in one C loop; only a mixed column is looked at
    # value by value (a million strings: milliseconds instead of a second)
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind in ("string", "integer", "floating", "boolean", "decimal", "mixed-integer-float",
                "empty", "datetime", "date", "timedelta", "categorical"):
        return
    if any(isinstance(v, (bytes, bytearray, memoryview)) for v in values):
        raise ValueError(_bytes_advice(name))


def _duration_advice(name) -> str:
    return (f"column {name!r} holds time durations; convert it to a number first, e.g. "
            f"X[{name!r}].dt.total_seconds() (or .dt.days)")


def column_kind(series: pd.Series) -> str:
    """``"numeric"`` (thresholded), ``"categorical"`` or ``"datetime"`` (split into parts)."""
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return "categorical"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return "datetime"
    if pd.api.types.is_timedelta64_dtype(dtype):
        raise TypeError(_duration_advice(series.name))
    if pd.api.types.is_numeric_dtype(dtype):
        if pd.api.types.is_complex_dtype(dtype):
            raise TypeError(f"column {series.name!r} holds complex numbers; they cannot be "
                            "thresholded: pass the real part or the modulus")
        return "numeric"
    if isinstance(dtype, pd.CategoricalDtype) or (pd.api.types.is_string_dtype(dtype) and dtype != object):
        return "categorical"
    return _object_kind(series)


def as_float(series: pd.Series) -> np.ndarray:
    """A numeric column as floats (NaN for missing), or a ValueError naming it.

    Text is refused, digits included: ``"5"`` would be 5 to pandas but text to
    a database (SQLite orders every text after every number), so reading it
    here would make ``predict`` and the SQL export disagree.
    """
    dtype = series.dtype
    if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
        values = series.to_numpy(dtype=object)
        text = next((v for v in values[~is_missing(values)]
                     if isinstance(v, (str, bytes, bytearray, memoryview))), None)
        if text is not None:
            raise ValueError(
                f"column {series.name!r} was numeric at fit time but holds non-numeric data "
                f"now: text such as {text!r}, which rulekit does not parse (a database would "
                f"compare it as text); convert the column first, e.g. "
                f"pd.to_numeric(X[{series.name!r}])")
    try:
        return pd.to_numeric(series, errors="raise").to_numpy(dtype=float, na_value=np.nan)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"column {series.name!r} was numeric at fit time but holds non-numeric "
            f"data now ({exc})"
        ) from None


def _lerp(a, b, t):
    # numpy's interpolation formula, so unit weights reproduce numpy.quantile bit for bit
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def weighted_quantiles(values: np.ndarray, weights: np.ndarray | None, qs: np.ndarray,
                       order: np.ndarray | None = None) -> np.ndarray:
    """Linear-interpolation quantiles of ``values`` repeated ``weights`` times.

    Row ``i`` of the sorted values occupies the positions ``[C[i-1], C[i])``
    of the repeated data (``C`` the cumulative weights); the quantile ``q``
    sits at position ``h = (W - 1) q`` (``W`` the total weight) and is
    interpolated between the values at ``floor(h)`` and ``floor(h) + 1``.
    Fractional weights use the same formula.  ``order``: the values' stable
    ascending order (``numpy.argsort(values, kind="stable")``), when the caller
    has it already.
    """
    values = np.asarray(values, dtype=float)
    qs = np.asarray(qs, dtype=float)
    if weights is None:
        weights = np.ones(values.shape[0])
    if order is None:
        order = np.argsort(values, kind="stable")
    v, cum = values[order], np.cumsum(np.asarray(weights, dtype=float)[order])
    total = cum[-1]
    # numpy's virtual index for "linear" (numpy 2: (n - 1) q, computed the same way)
    h = (total - 1) * qs
    h = np.clip(h, 0, max(total - 1, 0))
    below = np.floor(h)
    last = v.shape[0] - 1
    at = lambda t: v[np.minimum(np.searchsorted(cum, t, side="right"), last)]  # noqa: E731
    upper = np.minimum(below + 1, max(total - 1, 0))
    return _lerp(at(below), at(upper), h - below)


def candidate_cuts(values: np.ndarray, weights: np.ndarray | None, n_thresholds: int,
                   order: np.ndarray | None = None) -> np.ndarray:
    """Quantile thresholds (or the distinct values when there are few), sorted, unique.

    ``values`` are the present values of rows with positive weight.  A cut
    equal to the largest value is dropped (its ``x > t`` would never hold).
    ``order``: as :func:`weighted_quantiles` takes it.
    """
    distinct = np.unique(values)
    if distinct.size <= 1:
        return distinct[:0]
    if distinct.size <= n_thresholds + 1:
        return distinct[:-1]
    qs = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
    cuts = np.unique(weighted_quantiles(values, weights, qs, order))
    return cuts[cuts < distinct[-1]]


def as_numbers(cuts: np.ndarray, integral: bool) -> list:
    """Cuts as the Python numbers conditions store: ints for an integer column or
    when every cut is whole, floats otherwise."""
    if integral or np.all(np.mod(cuts, 1) == 0):
        return [int(c) if float(c).is_integer() else float(c) for c in cuts]
    return [float(c) for c in cuts]


#: how a value in a boolean column is read when it is not a boolean: through its
#: text in lower case, as Python, SQLite, DuckDB and PostgreSQL all write it
#: (``str(1.0)`` and ``CAST(1.0 AS VARCHAR)`` are both ``1.0``).  SQL has no
#: other way to read a boolean stored as 0/1 (SQLite has no boolean type) or
#: as text, so rulekit reads it the same way.
BOOLEAN_TEXT = {"true": True, "1": True, "1.0": True,
                "false": False, "0": False, "0.0": False, "-0.0": False, "-0": False}


def as_boolean(value: Any) -> Any:
    """A value of a boolean column as rulekit compares it.

    Booleans (Python or numpy) stay as they are; any other present value whose
    text in lower case is in :data:`BOOLEAN_TEXT` (``1``, ``0.0``, ``"True"``,
    ``"false"``) becomes that boolean; anything else is returned unchanged (an
    unseen category).  Missing values are left to the caller.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    try:
        text = str(value).lower()
    except Exception:  # a value without a text: an unseen category
        return value
    return BOOLEAN_TEXT.get(text, value)


def category_key(value: Any) -> tuple:
    """Hashable key under which equal categories meet (1 and 1.0 do, True and 1 do not)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, numbers.Real):
        return ("number", float(value))
    return ("text", str(value))


def _factorize(values: np.ndarray):
    """``pandas.factorize`` that keeps booleans apart from the numbers 0 and 1.

    Python hashes ``True`` like ``1`` and calls them equal, so factorizing an
    object column holding both would merge them (into whichever came first);
    as categories they differ.  Where that can happen, booleans are tagged first.
    """
    if _is_text(values):
        # a text column (arrow or pandas strings) factorizes in C, and holds no booleans
        inverse, uniques = pd.factorize(values, use_na_sentinel=True)
        return np.asarray(inverse, dtype=np.int64), np.asarray(uniques, dtype=object)
    values = np.asarray(values, dtype=object)
    inverse, uniques = pd.factorize(values, use_na_sentinel=True)
    if not any(isinstance(u, (bool, np.bool_)) or (isinstance(u, numbers.Real) and u in (0, 1))
               for u in uniques):
        return inverse, uniques
    tagged = np.empty(values.shape[0], dtype=object)
    tagged[:] = [("bool", bool(v)) if isinstance(v, (bool, np.bool_)) else v for v in values]
    inverse, uniques = pd.factorize(tagged, use_na_sentinel=True)
    untag = np.empty(len(uniques), dtype=object)
    untag[:] = [u[1] if isinstance(u, tuple) and len(u) == 2 and u[0] == "bool" else u
                for u in uniques]
    return inverse, untag


def _is_text(values) -> bool:
    """A pandas Series of a string dtype (not object), or a categorical one whose
    categories are all text (parquet's dictionary-encoded strings): its values are all
    text or missing, and pandas factorizes it in C."""
    if not isinstance(values, pd.Series):
        return False
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return pd.api.types.infer_dtype(dtype.categories, skipna=True) == "string"
    return pd.api.types.is_string_dtype(dtype) and dtype != object


def column_values(series: pd.Series, rows=None):
    """The values of a categorical column (at ``rows``), as :func:`category_weights` and
    :func:`category_codes` read them: a text column stays a Series (factorized in C, never
    turned into a million Python strings), anything else becomes an object array."""
    if _is_text(series):
        return series if rows is None else series[rows]
    values = series.to_numpy(dtype=object)
    return values if rows is None else values[rows]


def category_weights(values: np.ndarray, weights: np.ndarray) -> tuple[list, np.ndarray]:
    """Distinct categories (sorted by type name, then value) and the weight of each."""
    inverse, uniques = _factorize(values)
    per_unique = np.bincount(inverse, weights=weights, minlength=len(uniques))
    merged: dict = {}
    for u, w in zip(uniques, per_unique):
        key = category_key(u)
        rep, total = merged.get(key, (plain(u), 0.0))
        merged[key] = (rep, total + w)
    items = sorted(merged.values(), key=lambda item: (type(item[0]).__name__, item[0]))
    return [v for v, _ in items], np.array([w for _, w in items], dtype=float)


def category_codes(col: pd.Series, categories: list) -> np.ndarray:
    """Position of each value in ``categories``; -1 for unknown or missing."""
    lookup = {category_key(c): i for i, c in enumerate(categories)}
    if isinstance(col.dtype, pd.CategoricalDtype):
        # pandas holds the codes already (a category dtype cannot hold both True and 1)
        inverse = col.cat.codes.to_numpy().astype(np.int64)
        uniques = np.asarray(col.cat.categories, dtype=object)
    else:
        # factorize once, then look up each distinct value: linear in rows
        inverse, uniques = _factorize(column_values(col))
    ucodes = np.array([lookup.get(category_key(u), -1) for u in uniques] + [-1], dtype=np.int64)
    return ucodes[inverse]  # inverse == -1 (missing) picks the trailing -1


def to_datetime(series: pd.Series) -> pd.Series:
    """A datetime column (or an object column of dates) as datetime64, or a ValueError.

    Dates are read by their wall clock, and time-zone-aware dates are refused
    (:func:`refuse_time_zone`).
    """
    if not pd.api.types.is_datetime64_any_dtype(series.dtype):
        try:
            series = pd.to_datetime(series, errors="raise")
        except (ValueError, TypeError) as exc:
            raise ValueError(f"column {series.name!r} held dates at fit time but cannot be "
                             f"read as dates now ({exc})") from None
    refuse_time_zone(series)
    return series


def refuse_time_zone(series: pd.Series) -> None:
    """A ValueError naming a column of time-zone-aware dates.

    A part such as ``hour(x)`` of an aware date has no single meaning: pandas
    reads the wall clock of the value's own zone, while SQLite, DuckDB and
    PostgreSQL convert to UTC or to the session's zone first (a
    ``TIMESTAMPTZ`` keeps no zone at all).  No export could agree with
    ``predict`` on every row, so rulekit takes naive dates only and says how
    to make them (docs/export.md).
    """
    zone = getattr(series.dtype, "tz", None)
    if zone is not None:
        name = series.name
        raise ValueError(
            f"column {name!r} holds time-zone-aware dates ({zone}); rulekit reads dates by "
            "their wall clock and refuses time zones, which databases read differently. "
            f"Convert the column first: X[{name!r}].dt.tz_convert('UTC').dt.tz_localize(None) "
            f"for UTC, or X[{name!r}].dt.tz_localize(None) for the local wall clock")


def datetime_parts(series: pd.Series, part: str) -> pd.Series:
    """One derived part (year, month, weekday, hour) of a datetime column; NaN where missing."""
    d = to_datetime(series)
    out = DATETIME_PARTS[part][1](d)
    if DATETIME_PARTS[part][0] == "numeric":
        return pd.Series(out.to_numpy(dtype=float, na_value=np.nan), index=series.index)
    return pd.Series(out.to_numpy(dtype=object, na_value=None), index=series.index, dtype=object)


def has_time_of_day(series: pd.Series) -> bool:
    """True when some present value of a datetime column is not at midnight."""
    d = to_datetime(series)
    present = d[d.notna()]
    return bool(present.size) and bool((present.dt.normalize() != present).any())
