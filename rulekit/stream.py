"""Counts of distinct binarized rows from data of any size, in two passes.

Every learner's objective sees the training rows only through weighted class
counts of the distinct rows of the binarized matrix (``rulekit/_fitdata.py``).
This module produces those counts from data read in chunks, so that memory
grows with the distinct patterns, not with the rows (``docs/streaming.md``):

pass 1, :func:`summarize`
    each chunk gives a :class:`Summary`: per numeric column its distinct
    values with their counts (exact up to :data:`EXACT_VALUES` distinct
    values, then log-spaced buckets of relative width :data:`RELATIVE_ACCURACY`),
    per categorical column the count of each level, the class counts, and a
    sample of at most :data:`SAMPLE_ROWS` rows chosen by a hash of each row.
    Summaries merge associatively and commutatively, so the result does not
    depend on how the data are cut into chunks.  :func:`fit_binarizer` turns
    the merged summary into a fitted :class:`~rulekit.binarize.Binarizer`
    (the reference ensemble, when asked for, is fitted on the sample).
pass 2, :func:`count_table`
    each chunk is binarized, its rows packed into bytes and folded by
    ``numpy.unique`` into a :class:`CountTable` of distinct (pattern, class)
    keys with their counts, in total and per fold.  Tables merge the same way.

:func:`count` runs both passes over a source: a DataFrame, a path or glob of
parquet or CSV files (:class:`Files`), or a callable returning an iterator of
DataFrame chunks (:class:`Chunks`).
"""

from __future__ import annotations

import glob as _glob
import numbers
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import pandas as pd

from . import _columns as col
from ._anytime import stopping
from ._patterns import PackedBits, PatternCounter, unpack_rows
from .evaluate import row_hashes
from ._reference import MAX_ROWS as SAMPLE_ROWS
from .binarize import (IDENTIFIER_MIN_VALUES, IDENTIFIER_SHARE, THRESHOLDS_RESERVE, Binarizer,
                       DataWarning)

__all__ = ["Files", "Chunks", "Summary", "CountTable", "Counts", "PackedBits", "TooManyPatterns",
           "as_source", "summarize", "fit_binarizer", "count_table", "count",
           "EXACT_VALUES", "RELATIVE_ACCURACY", "MAX_LEVELS", "SAMPLE_ROWS"]

#: a numeric column keeps its exact distinct values (so its quantiles are the in-memory
#: ones, bit for bit) up to this many; beyond, values share log-spaced buckets
EXACT_VALUES = 50_000
#: relative width of a bucket: a quantile read from buckets is within this factor of a
#: value of the column near the true quantile (DDSketch's guarantee)
RELATIVE_ACCURACY = 1e-3
#: most distinct levels tracked for one categorical column (an identifier has more)
MAX_LEVELS = 100_000
#: rows read at a time from a CSV file or a parquet file's batches
CHUNK_ROWS = 262_144

_SAMPLE_KEY = "rulekit-sample-0"   # hash keys (16 characters, as pandas asks): the sample
_FOLD_KEY = "rulekit-folds-00"     # and the folds are drawn from two independent hashes
_MISSING_TEXT = "\x00<missing>"


class TooManyPatterns(ValueError):
    """The distinct patterns would need more memory than ``max_memory`` allows."""


# -- sources ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Files:
    """Parquet or CSV files, read in chunks.

    Parameters
    ----------
    paths : str or list of str
        Paths or glob patterns (``"data/*.parquet"``); matched files are read
        in sorted order.
    target : str
        The label column.
    key : str, optional
        A column whose value assigns each row to a fold (see :func:`count`);
        it is not a feature.  Default: the row's own values.
    format : {"parquet", "csv"}, optional
        Default: from each file's suffix (``.csv``, ``.csv.gz``... are CSV).
    chunk_rows : int
        Rows per chunk.
    read_options : dict
        Passed to ``pandas.read_csv`` (``dtype=``, ``sep=``...) for CSV files.
    """

    paths: Any
    target: str
    key: str | None = None
    format: str | None = None
    chunk_rows: int = CHUNK_ROWS
    read_options: dict = field(default_factory=dict)

    def files(self) -> list:
        patterns = [self.paths] if isinstance(self.paths, (str, os.PathLike)) else list(self.paths)
        found = []
        for p in patterns:
            matched = sorted(_glob.glob(os.fspath(p)))
            if not matched:
                raise FileNotFoundError(f"no file matches {os.fspath(p)!r}")
            found += matched
        return found

    def _format(self, path: str) -> str:
        if self.format is not None:
            if self.format not in ("parquet", "csv"):
                raise ValueError(f"format must be 'parquet' or 'csv', got {self.format!r}")
            return self.format
        return "csv" if ".csv" in os.path.basename(path).lower() else "parquet"

    def chunks(self) -> Iterator[pd.DataFrame]:
        for path in self.files():
            if self._format(path) == "csv":
                yield from pd.read_csv(path, chunksize=self.chunk_rows, **self.read_options)
            else:
                _, pq = _pyarrow()
                with pq.ParquetFile(path, read_dictionary=_text_columns(path)) as f:
                    for batch in f.iter_batches(batch_size=self.chunk_rows):
                        yield batch.to_pandas()


def _pyarrow():
    """``(pyarrow, pyarrow.parquet)``, or an ImportError that says how to install them."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as exc:
        raise ImportError("reading parquet files needs pyarrow: pip install "
                          "'rulekit[parquet]' (or read the files with pandas and pass "
                          "DataFrame chunks)") from exc
    return pyarrow, pyarrow.parquet


def _text_columns(path: str) -> list:
    """The text columns of a parquet file, read as categoricals: parquet stores them as a
    dictionary and codes, which pandas then keeps, so a million values are never made into
    a million strings (the same categories, the same model: :func:`_columns.category_codes`
    reads both alike)."""
    pa, pq = _pyarrow()
    schema = pq.read_schema(path)
    return [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]


@dataclass(frozen=True)
class Chunks:
    """DataFrame chunks from a callable that returns a fresh iterator (read twice).

    Parameters
    ----------
    make : callable
        ``make()`` returns an iterable of DataFrames with the same columns.
    target : str
        The label column.
    key : str, optional
        The fold key column (see :class:`Files`).
    """

    make: Callable[[], Iterable[pd.DataFrame]]
    target: str
    key: str | None = None

    def chunks(self) -> Iterator[pd.DataFrame]:
        for chunk in self.make():
            if not isinstance(chunk, pd.DataFrame):
                raise TypeError(f"a chunk must be a pandas DataFrame, got {type(chunk).__name__}")
            yield chunk


def as_source(data, target: str | None = None, key: str | None = None):
    """A :class:`Files` or :class:`Chunks` from a source, a DataFrame, a path or glob,
    a list of them, or a callable returning chunks."""
    if isinstance(data, (Files, Chunks)):
        return data
    if target is None:
        raise ValueError("name the label column: target='...'")
    if isinstance(data, pd.DataFrame):
        return Chunks(lambda: [data], target, key)
    if isinstance(data, (str, os.PathLike)) or (
            isinstance(data, (list, tuple)) and data and all(isinstance(p, (str, os.PathLike))
                                                             for p in data)):
        return Files(data, target, key)
    if callable(data):
        return Chunks(data, target, key)
    raise TypeError("data must be a DataFrame, a path or glob of parquet/CSV files, a list of "
                    "them, or a callable returning an iterator of DataFrame chunks; "
                    f"got {type(data).__name__}")


# -- pass 1: summaries ------------------------------------------------------------------
#: mixes one column's hash into the row's (an odd 64-bit constant: FNV-1a's prime)
_MIX = np.uint64(0x100000001B3)


def _column_hash(s: pd.Series, hash_key: str) -> np.ndarray:
    """One 64-bit hash per value, as the row hash reads it: numbers as floats, everything
    else as text, so that a value hashes the same from a DataFrame, a CSV or a parquet file.

    Text is hashed once per distinct value (factorized in C), not once per row.
    """
    if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
        x = s.to_numpy(dtype=float, na_value=np.nan) + 0.0   # -0.0 hashes as 0.0
        return pd.util.hash_array(np.where(np.isnan(x), np.nan, x), hash_key=hash_key)
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes, uniques = s.cat.codes.to_numpy(), s.cat.categories   # pandas holds them
    else:
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
    text = pd.Series(uniques)
    if pd.api.types.infer_dtype(text, skipna=True) != "string":
        text = text.astype(str)                 # only when not text already
    values = np.append(text.to_numpy(dtype=object), _MISSING_TEXT)
    return pd.util.hash_array(values, hash_key=hash_key)[codes]   # code -1: missing


def _row_hash(frame: pd.DataFrame, hash_key: str) -> np.ndarray:
    """A 64-bit hash of each row's values (column by column, in order)."""
    out = np.zeros(len(frame), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for name in frame.columns:
            out = (out ^ _column_hash(frame[name], hash_key)) * _MIX
    return out


def _bucket(values: np.ndarray) -> np.ndarray:
    """Log-spaced bucket of each value (a DDSketch index, signed; 0 for zero)."""
    log_gamma = np.log1p(2 * RELATIVE_ACCURACY / (1 - RELATIVE_ACCURACY))
    with np.errstate(divide="ignore"):
        k = np.ceil(np.log(np.abs(values)) / log_gamma)
    k = np.where(values == 0, 0.0, k + 2_000_000.0)   # above any log of a double
    return np.sign(values) * k


@dataclass
class _Numeric:
    values: np.ndarray          # sorted distinct values (or each bucket's smallest value)
    counts: np.ndarray          # int64
    integral: bool | None       # None: no present value seen yet
    bucketed: bool = False

    def merged(self, other: "_Numeric") -> "_Numeric":
        values = np.concatenate([self.values, other.values])
        counts = np.concatenate([self.counts, other.counts])
        integral = (self.integral if other.integral is None else other.integral
                    if self.integral is None else self.integral and other.integral)
        bucketed = self.bucketed or other.bucketed
        if not bucketed:
            uniq, inverse = np.unique(values, return_inverse=True)
            if uniq.size <= EXACT_VALUES:
                return _Numeric(uniq, np.bincount(inverse, counts, uniq.size).astype(np.int64),
                                integral)
        # a bucket's smallest value lies in the bucket, so bucketing again changes nothing:
        # the result is the same whichever chunks were bucketed first
        keys, inverse = np.unique(_bucket(values), return_inverse=True)
        lowest = np.full(keys.size, np.inf)
        np.minimum.at(lowest, inverse, values)
        order = np.argsort(lowest, kind="stable")
        summed = np.bincount(inverse, counts, keys.size).astype(np.int64)
        return _Numeric(lowest[order], summed[order], integral, True)


@dataclass
class _Levels:
    counts: dict                # category key -> [representative value, count]

    def merged(self, other: "_Levels", name: str) -> "_Levels":
        out = {k: list(v) for k, v in self.counts.items()}
        for k, (rep, n) in other.counts.items():
            if k in out:
                out[k][1] += n
            else:
                out[k] = [rep, n]
        if len(out) > MAX_LEVELS:
            raise ValueError(
                f"column {name!r} has more than {MAX_LEVELS} distinct values, like an "
                "identifier; drop it from the data (or name it as the fold key), or convert it "
                "to a number if it is one")
        return _Levels(out)


@dataclass
class Summary:
    """What pass 1 learns from some rows; :meth:`merge` combines two in any order.

    Attributes
    ----------
    features : list of str
        The feature columns (every column but the target and the key), in order.
    columns : dict
        Per feature: a numeric or categorical summary, or None while every value
        seen was missing.
    missing : dict of str -> int
        Missing values per feature.
    classes : dict
        Label key -> [label, count].
    sample : DataFrame
        At most :data:`SAMPLE_ROWS` rows, those of smallest row hash (column
        ``"__hash__"``), so the same rows whatever the chunking.
    n_rows : int
    """

    features: list
    columns: dict
    missing: dict
    classes: dict
    sample: pd.DataFrame
    n_rows: int

    def merge(self, other: "Summary") -> "Summary":
        if other.features != self.features:
            raise ValueError(f"chunks have different columns: {self.features} and {other.features}")
        columns = {}
        for name in self.features:
            a, b = self.columns[name], other.columns[name]
            if a is None or b is None:
                columns[name] = b if a is None else a
            elif type(a) is not type(b):
                raise ValueError(
                    f"column {name!r} is numeric in some chunks and not in others; give it "
                    "one type (for CSV: read_options={'dtype': {...}})")
            else:
                columns[name] = a.merged(b) if isinstance(a, _Numeric) else a.merged(b, name)
        classes = _Levels(self.classes).merged(_Levels(other.classes), "target").counts
        sample = pd.concat([self.sample, other.sample], ignore_index=True)
        # the smallest hashes of the union: the same rows whatever the order of merging
        order = np.argsort(sample["__hash__"].to_numpy(), kind="stable")[:SAMPLE_ROWS]
        sample = sample.iloc[order].reset_index(drop=True)
        return Summary(self.features, columns,
                       {n: self.missing[n] + other.missing[n] for n in self.features},
                       classes, sample, self.n_rows + other.n_rows)


def _features(chunk: pd.DataFrame, target: str, key: str | None) -> list:
    names = [str(c) for c in chunk.columns]
    col.check_unique_columns(names)
    for needed, what in ((target, "target"), (key, "key")):
        if needed is not None and needed not in names:
            raise ValueError(f"the {what} column {needed!r} is not in the data (columns: {names})")
    return [n for n in names if n not in (target, key)]


def _forced(template: Binarizer, features: list) -> set:
    chosen = set()
    for c in template.categorical_features or ():
        if isinstance(c, numbers.Integral) and not isinstance(c, bool):
            chosen.add(features[c])
        elif str(c) in features:
            chosen.add(str(c))
        else:
            raise ValueError(f"categorical_features names unknown column {c!r}")
    return chosen


def summarize(chunk: pd.DataFrame, target: str, key: str | None = None,
              template: Binarizer | None = None) -> Summary:
    """Pass 1 on one chunk (see :class:`Summary`)."""
    template = Binarizer() if template is None else template
    chunk = chunk.rename(columns=str)
    features = _features(chunk, target, key)
    forced = _forced(template, features)
    columns, missing = {}, {}
    for name in features:
        series = chunk[name]
        is_missing = col.is_missing(series)
        missing[name] = int(is_missing.sum())
        if is_missing.all():
            columns[name] = None
            continue
        kind = "categorical" if name in forced else col.column_kind(series)
        if kind == "datetime":
            raise TypeError(f"column {name!r} holds dates: streaming does not split dates into "
                            "parts yet; add numeric columns (year, month...) before streaming")
        if kind == "numeric":
            x = col.as_float(series)[~is_missing]
            if np.isinf(x).any():
                raise ValueError(f"column {name!r} contains infinite values; replace them "
                                 "(e.g. by NaN, read as missing) before fitting")
            values, counts = np.unique(x, return_counts=True)
            columns[name] = _Numeric(np.empty(0), np.empty(0, np.int64), None).merged(
                _Numeric(values, counts.astype(np.int64),
                         bool(pd.api.types.is_integer_dtype(series.dtype))))
        else:
            raw = col.column_values(series, ~is_missing)   # text stays a Series
            col.refuse_bytes(raw, name)
            columns[name] = _levels(raw, name)
    labels = chunk[target]
    if col.is_missing(labels).any():
        raise ValueError(f"the target column {target!r} has missing values; drop those rows")
    inverse, uniques = _factorize(labels)
    per = np.bincount(inverse, minlength=len(uniques))
    classes = _Levels({}).merged(_Levels({col.category_key(u): [col.plain(u), int(k)]
                                          for u, k in zip(uniques, per)}), target).counts
    h = _row_hash(chunk[features + [target]], _SAMPLE_KEY)
    order = np.argsort(h, kind="stable")[:SAMPLE_ROWS]
    sample = chunk.iloc[order][features + [target]].reset_index(drop=True)
    sample["__hash__"] = h[order]
    return Summary(features, columns, missing, classes, sample, int(len(chunk)))


def _levels(raw, name: str) -> _Levels:
    cats, weights = col.category_weights(raw, np.ones(len(raw)))
    return _Levels({col.category_key(c): [c, int(w)] for c, w in zip(cats, weights)}).merged(
        _Levels({}), name)


def _sorted_levels(levels: dict) -> tuple[list, np.ndarray]:
    """Levels in :func:`_columns.category_weights` order (type name, then value)."""
    items = sorted(levels.values(), key=lambda item: (type(item[0]).__name__, item[0]))
    return [v for v, _ in items], np.array([n for _, n in items], dtype=np.int64)


def fit_binarizer(summary: Summary, template: Binarizer | None = None) -> Binarizer:
    """A fitted :class:`Binarizer` from a merged pass-1 summary.

    ``template`` carries the parameters (``n_thresholds``, ``min_frequency``...);
    with exact summaries (at most :data:`EXACT_VALUES` distinct values per numeric
    column) the conditions are those ``template.fit`` gives on all the rows.
    With ``thresholds="reference"`` the ensemble is fitted on the summary's
    sample, as the in-memory fit fits it on a sample of at most as many rows.
    """
    from sklearn.base import clone

    binarizer = clone(Binarizer() if template is None else template)
    specs = []
    for name in summary.features:
        s, w_missing = summary.columns[name], summary.missing[name]
        if s is None:
            continue                      # every value missing: a single value, no condition
        if isinstance(s, _Numeric):
            specs.append((name, "numeric", s.values, s.counts, w_missing, bool(s.integral)))
            continue
        cats, weights = _sorted_levels(s.counts)
        present = int(weights.sum())
        if len(cats) >= IDENTIFIER_MIN_VALUES and len(cats) >= IDENTIFIER_SHARE * present:
            warnings.warn(f"column {name!r} looks like an identifier ({len(cats)} distinct "
                          f"values in {present} rows); drop it from the data", DataWarning,
                          stacklevel=2)
        specs.append((name, "categorical", cats, weights, w_missing, False))
    cuts = None
    if binarizer.thresholds == "reference":
        cuts = _sample_cuts(binarizer, summary)
    return binarizer.fit_summaries(summary.features, specs, summary.n_rows, cuts)


def _sample_cuts(binarizer: Binarizer, summary: Summary) -> dict:
    """Reference thresholds from the ensemble fitted on the hash-chosen sample."""
    sample = summary.sample.drop(columns="__hash__")
    frame = sample[summary.features]
    y = sample.iloc[:, -1].to_numpy()
    w = np.ones(len(frame))
    floor = binarizer.min_frequency
    if isinstance(floor, numbers.Integral):
        floor = floor * len(frame) / summary.n_rows     # the same share of the sample
    elif floor is not None:
        floor = floor * len(frame)
    columns = binarizer._columns(frame, _forced(binarizer, summary.features))
    return binarizer._reference_cuts(columns, y, w, floor)


# -- pass 2: count tables ---------------------------------------------------------------
@dataclass
class CountTable:
    """Distinct (pattern, class) keys with their counts; :meth:`merge` in the rows' order.

    ``keys`` are rows of bytes: the packed conditions, then the class code (2 bytes, big
    endian), in the order each key first occurs in the rows; ``counts`` (int64) and
    ``fold_counts`` (int64, one column per fold).  Merging the tables of consecutive
    parts of the rows, left to right in any grouping, gives the table of all of them.
    """

    keys: np.ndarray
    counts: np.ndarray
    fold_counts: np.ndarray
    n_rows: int

    @classmethod
    def of_counter(cls, counter: PatternCounter) -> "CountTable":
        keys, fold_counts = counter.result()
        return cls(keys, fold_counts.sum(axis=1), fold_counts, counter.n_rows)

    def merge(self, other: "CountTable", max_memory: float | None = None,
              n_conditions: int | None = None) -> "CountTable":
        """This table's rows followed by ``other``'s (a key already here keeps its place)."""
        counter = PatternCounter(self.keys.shape[1], self.fold_counts.shape[1])
        counter.add_counts(self.keys, self.fold_counts)
        counter.add_counts(other.keys, other.fold_counts)
        counter.release()
        table = CountTable.of_counter(counter)
        if max_memory is not None:
            table.check_memory(max_memory, n_conditions)
        return table

    def nbytes(self, n_conditions: int) -> int:
        """Bytes of the table and of the unpacked boolean matrix made from it."""
        return pattern_bytes(self.keys.shape[0], self.keys.shape[1], self.fold_counts.shape[1],
                             n_conditions)

    def check_memory(self, max_memory: float, n_conditions: int) -> None:
        check_patterns(self.keys.shape[0], self.keys.shape[1], self.fold_counts.shape[1],
                       n_conditions, self.n_rows, max_memory)


def pattern_bytes(distinct: int, width: int, n_folds: int, n_conditions: int) -> int:
    """Bytes of ``distinct`` counted keys and of the unpacked boolean matrix made from them."""
    return distinct * (width + 8 * (1 + n_folds) + n_conditions + 8)


def check_patterns(distinct: int, width: int, n_folds: int, n_conditions: int, n_rows: int,
                   max_memory: float) -> None:
    """:class:`TooManyPatterns` when the distinct patterns would need more than ``max_memory``."""
    need = pattern_bytes(distinct, width, n_folds, n_conditions)
    if need > max_memory * 2 ** 20:
        raise TooManyPatterns(
            f"{distinct:,} distinct (pattern, class) rows over {n_conditions} "
            f"conditions (after {n_rows:,} rows) would need {need / 2 ** 20:,.2f} MB, "
            f"over max_memory={max_memory:g} MB.  Remedies: fewer thresholds "
            "(n_thresholds=4, or thresholds='reference'), max_card=1, fewer categorical "
            "levels (a larger min_frequency or max_categories, or categorical_features "
            "naming only the columns to split by level), or a larger max_memory")


def chunk_keys(chunk: pd.DataFrame, binarizer: Binarizer, classes: np.ndarray, target: str,
               key: str | None = None, n_folds: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Pass 2 on one chunk: each row's key (its packed conditions, then its class code in
    2 bytes, big endian) and its fold."""
    if len(classes) > 2 ** 16:
        raise ValueError(f"{len(classes)} classes: at most {2 ** 16} are counted")
    chunk = chunk.rename(columns=str)
    features = list(binarizer.feature_names_in_)
    packed = binarizer.transform_packed(chunk[features])
    codes = _class_codes(chunk[target], classes, target)
    keys = np.concatenate([packed, codes.astype(">u2").view(np.uint8).reshape(-1, 2)], axis=1)
    return keys, _folds(chunk, features, target, key, n_folds)


def count_table(chunk: pd.DataFrame, binarizer: Binarizer, classes: np.ndarray, target: str,
                key: str | None = None, n_folds: int = 5) -> CountTable:
    """Pass 2 on one chunk: binarize it and count its distinct (pattern, class) rows."""
    keys, fold = chunk_keys(chunk, binarizer, classes, target, key, n_folds)
    counter = PatternCounter(keys.shape[1], n_folds)
    counter.add(keys, fold)
    counter.release()
    return CountTable.of_counter(counter)


def _factorize(series: pd.Series):
    """``pandas.factorize`` of a column: typed columns directly (fast), object columns
    keeping booleans apart from 0 and 1 (:func:`rulekit._columns._factorize`)."""
    if series.dtype == object:
        return col._factorize(series.to_numpy(dtype=object))
    inverse, uniques = pd.factorize(series, use_na_sentinel=True)
    return inverse, np.asarray(uniques, dtype=object)


def _class_codes(labels: pd.Series, classes: np.ndarray, target: str) -> np.ndarray:
    lookup = {col.category_key(c): i for i, c in enumerate(classes)}
    inverse, uniques = _factorize(labels)
    codes = np.array([lookup.get(col.category_key(u), -1) for u in uniques] + [-1])[inverse]
    if (codes < 0).any():
        raise ValueError(f"the target column {target!r} holds a label the first pass did not "
                         "see (or a missing one): the source must give the same rows twice")
    return codes


def _folds(chunk, features, target, key, n_folds) -> np.ndarray:
    """Each row's fold: a hash of the key column, or of the row's values, mod ``n_folds``."""
    if n_folds == 1:
        return np.zeros(len(chunk), dtype=np.int64)     # one fold: nothing to hash
    frame = chunk[[key]] if key is not None else chunk[features + [target]]
    return (_row_hash(frame, _FOLD_KEY) % np.uint64(n_folds)).astype(np.int64)


# -- both passes ------------------------------------------------------------------------
@dataclass(frozen=True)
class Counts:
    """The distinct binarized rows of some data, with their class counts.

    Attributes
    ----------
    B : ndarray of bool, shape (n_distinct, n_conditions), or PackedBits
        Distinct (pattern, class) rows, in :func:`canonical_order` (the same whatever
        the order of the rows or how they are split into chunks); packed eight to a
        byte when counted with ``packed=True``.
    y : ndarray of int64, shape (n_distinct,)
        Class codes into ``classes``.
    weight : ndarray of int64, shape (n_distinct,)
        How many rows each stands for.
    fold_counts : ndarray of int64, shape (n_distinct, n_folds)
        The same, per fold (a row's fold is a hash of its key, mod ``n_folds``).
    classes : ndarray
        The sorted labels.
    binarizer : Binarizer
        Fitted in pass 1; ``B`` holds its conditions.
    n_rows : int
    """

    B: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    fold_counts: np.ndarray
    classes: np.ndarray
    binarizer: Binarizer
    n_rows: int

    @property
    def n_folds(self) -> int:
        return int(self.fold_counts.shape[1])


def counts_from_table(table: CountTable, binarizer: Binarizer, classes: np.ndarray,
                      packed: bool = False) -> Counts:
    """A :class:`Counts` from a merged pass-2 table, its rows in :func:`canonical_order`.

    ``packed``: ``Counts.B`` is a :class:`PackedBits` (the keys' bytes, an eighth of
    the booleans) for a learner that reads it so.
    """
    m = len(binarizer.conditions_)
    order = canonical_order(table.keys)
    nb = table.keys.shape[1] - 2
    B = (PackedBits(table.keys[order, :nb], m) if packed else unpack_rows(table.keys, order, m))
    y = np.ascontiguousarray(table.keys[order, nb:]).view(">u2").ravel().astype(np.int64)
    return Counts(B, y, table.counts[order], table.fold_counts[order], classes, binarizer,
                  table.n_rows)


def _release_arrow_memory() -> None:
    """Hand back to the system what Arrow's allocator keeps after a pass over files.

    Reading parquet leaves freed buffers cached in Arrow's memory pool (about
    110 MB after a pass over ten million rows, with 10 MB in use), which the
    fit after the passes would otherwise carry as resident memory.
    """
    import sys

    pa = sys.modules.get("pyarrow")     # only when a pass read through Arrow
    if pa is not None:
        pa.default_memory_pool().release_unused()


def canonical_order(keys: np.ndarray) -> np.ndarray:
    """An order of distinct keys (uint8 rows) that depends only on the set of keys.

    By a 64-bit hash of each key (one sort of integers, far faster than sorting the
    rows); should two keys share a hash, by the keys' bytes instead.  So the counts,
    and the model fitted on them, are the same whatever the order of the rows.
    """
    h = row_hashes(keys)
    order = np.argsort(h, kind="stable")
    if len(h) > 1 and (h[order][1:] == h[order][:-1]).any():
        order = np.lexsort(keys.T[::-1])      # a hash tie (rare): by the bytes, first first
    return order


def classes_of(summary: Summary) -> np.ndarray:
    """The labels, sorted as ``numpy.unique`` sorts them."""
    return np.unique(np.array([rep for rep, _ in summary.classes.values()]))


#: pass 1 over a source stops, under a time limit, once this many times its own time so
#: far no longer fits in the time left (pass 2 reads those rows again, then the fit runs):
#: it chooses the thresholds, and keeps the share the binarizer keeps for rows in memory
PASS_ONE_RESERVE = THRESHOLDS_RESERVE


def reserve_after_counting(cost_after: float, seconds: float, n_rows: int,
                           n_patterns: int) -> float:
    """Seconds a counting pass keeps for the fit after it: ``cost_after`` times the
    pass's seconds per row so far, per pattern counted (see :func:`count`)."""
    return cost_after * seconds / max(n_rows, 1) * n_patterns


def count(data, target: str | None = None, *, key: str | None = None,
          binarizer: Binarizer | None = None, n_folds: int = 5,
          max_memory: float | None = None, fit: Callable | None = None,
          cost_after: float = 0.0, packed: bool = False) -> Counts:
    """Both passes over a source: thresholds from summaries, then counts.

    Parameters
    ----------
    data : DataFrame, str, list of str, callable, Files or Chunks
        See :func:`as_source`.
    target : str
        The label column (not needed for a :class:`Files` or :class:`Chunks`).
    key : str, optional
        The fold key column; default: the row's own values.
    binarizer : Binarizer, optional
        An unfitted binarizer whose parameters are used (default ``Binarizer()``).
        A fitted one is used as it is (pass 1 then only finds the classes and
        checks the rows).
    n_folds : int, default=5
    max_memory : float, optional
        MB the distinct patterns may take; over it, :class:`TooManyPatterns`
        is raised as soon as the running table passes it.
    fit : callable, optional
        ``fit(summary, binarizer)`` gives the fitted binarizer pass 2 counts
        over, from the merged pass-1 summary and the unfitted ``binarizer``
        (default :func:`fit_binarizer`); anything with ``feature_names_in_``,
        ``conditions_`` and ``transform`` will do (column generation counts
        two resolutions side by side this way).
    cost_after : float, default=0.0
        Inside a fit with a time limit: what the fit does with the counts
        (mining, the search's set-up) costs about ``cost_after`` times pass
        2's seconds per row, per distinct pattern.  Pass 2 stops reading
        once that would no longer fit in the time left, and pass 1 once
        twice its own time would not, so that the fit as a whole keeps its
        limit.  0 reads until the limit itself.
    packed : bool, default=False
        Hold ``Counts.B`` packed, eight conditions to a byte (a :class:`PackedBits`,
        read like the boolean matrix), as column generation does: on ten million
        distinct rows the booleans alone take over a gigabyte.

    Returns
    -------
    Counts
    """
    source = as_source(data, target, key)
    if not isinstance(n_folds, numbers.Integral) or n_folds < 1:
        raise ValueError(f"n_folds must be a positive integer, got {n_folds!r}")
    template = Binarizer() if binarizer is None else binarizer
    summary, n_chunks, cut = None, 0, False
    # inside a fit, a time limit or Ctrl-C stops either pass between chunks: the fit
    # then searches the rows read so far and its certificate says it was cut short.
    # Each pass stops early enough for what follows it: pass 1 keeps twice its own time
    # (pass 2 reads the same rows again, then the counts are mined and searched), pass 2
    # what its patterns will cost the fit after it
    start = time.perf_counter()
    for chunk in source.chunks():
        if n_chunks and stopping(reserve=PASS_ONE_RESERVE * (time.perf_counter() - start)):
            cut = True
            break
        part = summarize(chunk, source.target, source.key, template)
        summary = part if summary is None else summary.merge(part)
        n_chunks += 1
    _release_arrow_memory()
    if summary is None or summary.n_rows == 0:
        raise ValueError("the source gave no rows")
    fitted = (template if hasattr(template, "conditions_")
              else (fit or fit_binarizer)(summary, template))
    classes = classes_of(summary)
    m = len(fitted.conditions_)
    # every chunk's rows go into one hash table of distinct keys
    counter = PatternCounter(-(-m // 8) + 2, n_folds)
    start = time.perf_counter()
    for i, chunk in enumerate(source.chunks()):
        if cut and i == n_chunks:
            break                       # pass 1 was cut: the rows it summarized, no more
        keep = reserve_after_counting(cost_after, time.perf_counter() - start,
                                      counter.n_rows, counter.used)
        if i and stopping(reserve=keep):
            cut = True
            break
        keys, fold = chunk_keys(chunk, fitted, classes, source.target, source.key, n_folds)
        counter.add(keys, fold)
        if max_memory is not None:
            check_patterns(counter.used, counter.width, n_folds, m, counter.n_rows, max_memory)
    counter.release()
    _release_arrow_memory()
    table = CountTable.of_counter(counter)
    del counter
    if table.n_rows == 0:
        raise ValueError("the source gave no rows")
    if table.n_rows != summary.n_rows and not (cut or stopping()):
        raise ValueError(f"the source gave {summary.n_rows} rows, then {table.n_rows}: "
                         "it must give the same rows twice")
    return counts_from_table(table, fitted, classes, packed)
