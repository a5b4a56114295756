"""Training data a fit reads without holding its rows: files, chunks, dask frames, counts.

A learner that searches on counts (``_on_counts``, or column generation,
which folds each binary problem's rows itself) needs from its training data
only the distinct binarized rows with their class counts, per fold
(``rulekit/_fitdata.py``).  :mod:`rulekit.stream` computes those in two
passes over files or chunks, and :mod:`rulekit.distributed` on a dask
cluster; this module turns what they return into the :class:`FitData` the
learner's ``_solve`` reads, so ``fit`` takes any of

* a :class:`rulekit.stream.Files` (parquet or CSV files, globs) or
  :class:`rulekit.stream.Chunks` (a callable giving DataFrame chunks), each
  naming its label column, with ``y=None``;
* a dask DataFrame ``X`` and a dask Series ``y`` (or ``y=None`` and a
  ``target`` column named by a :class:`rulekit.stream.Files` read on dask);
* a :class:`rulekit.stream.Counts` already computed.

Folds.  Rows are assigned to ``n_folds`` folds by a hash of a key column or
of the row's own values (``docs/streaming.md``), so the folds, and so what
validation chooses, do not depend on how the data are cut into chunks or
partitions.  A learner says which folds each of its validation splits holds
out (``_fold_splits``); every other fold is its training part.
"""

from __future__ import annotations

import numpy as np

from .. import stream
from .._fitdata import FitData
from .._patterns import PackedBits

__all__ = ["is_dask", "is_source", "count_source", "fitdata_from_counts", "dask_predict",
           "Stacked"]


def is_dask(X) -> bool:
    """A dask collection (checked by its module, so dask is never imported for it)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "to_delayed")


def is_source(X) -> bool:
    """Training data the fit reads in chunks, on dask, or as counts, not as rows in memory."""
    return isinstance(X, (stream.Files, stream.Chunks, stream.Counts)) or is_dask(X)


def _dask_frame(X, y):
    """The dask frame with the labels as a column, and that column's name."""
    import dask.dataframe as dd

    if not isinstance(X, dd.DataFrame):
        raise TypeError(f"a dask X must be a dask DataFrame, got {type(X).__name__}")
    if y is None:
        raise ValueError("fit(X, y) on a dask DataFrame needs y: a dask Series of labels with "
                         "the same partitions as X")
    if not isinstance(y, dd.Series):
        raise TypeError(f"with a dask X, y must be a dask Series, got {type(y).__name__}")
    target = "__rulekit_target__"
    if target in X.columns:
        raise ValueError(f"X has a column named {target!r}, which rulekit uses for the labels; "
                         "rename it")
    return X.assign(**{target: y}), target


class Stacked:
    """Fitted binarizers of the same columns, counted side by side in one pass.

    A learner that searches over more than one binarization of its data
    (column generation tries a finer one) counts the patterns of all of them
    at once: pass 2 binarizes each chunk with every part and counts the
    concatenated rows.  The distinct rows of one part are a projection of
    those (:meth:`block`), and their counts are the sums over the rows that
    project alike, so one pass serves every part.  A condition two parts
    share is counted twice; the distinct patterns are the same.

    Parameters
    ----------
    parts : Binarizer
        Fitted, on the same input columns.
    """

    def __init__(self, *parts):
        names = [list(p.feature_names_in_) for p in parts]
        if not parts or any(n != names[0] for n in names):
            raise ValueError("stacked binarizers must read the same columns")
        self.parts = parts
        self.feature_names_in_ = parts[0].feature_names_in_
        self.n_features_in_ = parts[0].n_features_in_
        self._from_array = getattr(parts[0], "_from_array", False)
        self.conditions_ = [c for p in parts for c in p.conditions_]
        self._stops = np.cumsum([0] + [len(p.conditions_) for p in parts])

    def transform(self, X) -> np.ndarray:
        """Every part's condition matrix, side by side."""
        return np.concatenate([p.transform(X) for p in self.parts], axis=1)

    def transform_packed(self, X) -> np.ndarray:
        """:meth:`transform`, eight conditions to a byte (what pass 2 counts)."""
        return np.packbits(self.transform(X), axis=1)

    def block(self, B, i: int):
        """The columns of part ``i`` in a stacked matrix ``B`` (packed if ``B`` is)."""
        if isinstance(B, PackedBits):
            return B.columns(self._stops[i], self._stops[i + 1])
        return np.ascontiguousarray(B[:, self._stops[i]:self._stops[i + 1]])


def count_source(X, y, *, binarizer, n_folds: int, max_memory: float | None,
                 fit=None, cost_after: float = 0.0, packed: bool = False) -> stream.Counts:
    """The distinct binarized rows of a source, with their class counts per fold.

    Parameters
    ----------
    X : Files, Chunks, Counts or dask DataFrame
    y : dask Series or None
        The labels of a dask ``X``; None for a source that names its label column.
    binarizer : Binarizer
        Unfitted (its parameters are used in the first pass).
    n_folds : int
        Folds to count per row (a hash of the key or the row, mod ``n_folds``).
    max_memory : float or None
        MB the distinct patterns may take; beyond it
        :class:`rulekit.stream.TooManyPatterns` is raised before they are held.
    fit : callable, optional
        ``fit(summary, binarizer)``: the fitted binarizer (or :class:`Stacked`)
        to count over, from pass 1's summary (default
        :func:`rulekit.stream.fit_binarizer`).  Not used for counts given as such.
    cost_after : float
        What the fit does after counting costs, per pattern, in units of the
        counting pass's seconds per row (:func:`rulekit.stream.count`): the
        passes over files or chunks stop early enough for it under a time limit.
    packed : bool, default=False
        Counted here (not given as counts): hold ``Counts.B`` packed
        (:class:`rulekit._patterns.PackedBits`), for a learner that reads it so.
    """
    if isinstance(X, stream.Counts):
        if y is not None:
            raise ValueError("fit(counts): the counts hold their labels; pass y=None")
        return X
    if is_dask(X):
        from .. import distributed

        frame, target = _dask_frame(X, y)
        return distributed.count(frame, target, binarizer=binarizer, n_folds=n_folds,
                                 max_memory=max_memory, fit=fit, cost_after=cost_after,
                                 packed=packed)
    if y is not None:
        raise ValueError(f"fit({type(X).__name__}(...)): the source names its label column "
                         f"(target={X.target!r}); pass y=None")
    return stream.count(X, binarizer=binarizer, n_folds=n_folds, max_memory=max_memory, fit=fit,
                        cost_after=cost_after, packed=packed)


def fitdata_from_counts(counts: stream.Counts, params, splits) -> FitData:
    """The :class:`FitData` of counted rows: one row per distinct pattern, class and fold part.

    ``splits`` is None (no validation) or a bool matrix ``(n_folds,
    n_splits)``: ``splits[f, s]`` when split ``s`` holds fold ``f`` out.  A
    distinct row is cut into one row per set of folds that the splits treat
    alike, weighted by its count there, and then rows the splits cannot tell
    apart are folded again.
    """
    binarizer = counts.binarizer
    names = getattr(binarizer, "feature_names_in_", None)
    from_array = getattr(binarizer, "_from_array", False)
    base = dict(params=params, classes=counts.classes,
                n_features_in=int(binarizer.n_features_in_),
                feature_names_in=None if names is None or from_array else np.asarray(names,
                                                                                      dtype=object),
                binarizer=binarizer)
    if splits is None:
        return FitData(**base, B=counts.B, y=counts.y, count=counts.weight)
    splits = np.asarray(splits, dtype=bool)
    row, fold = np.nonzero(counts.fold_counts)
    # The counted rows are distinct (pattern, class) rows already, so two parts merge only
    # when they are folds of one counted row that the splits treat alike: group the pairs
    # (row, the folds' split pattern), numbered by first appearance, as FitData.distinct
    # would number them, without hashing every row of conditions again.
    _, pattern = np.unique(splits, axis=0, return_inverse=True)
    key = row * (int(pattern.max()) + 1) + pattern.ravel()[fold]
    _, first, group = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    group, first = rank[group.ravel()], first[order]
    count = np.bincount(group, weights=counts.fold_counts[row, fold], minlength=first.size)
    return FitData(**base, B=np.ascontiguousarray(counts.B[row[first]]), y=counts.y[row[first]],
                   count=count.astype(np.int64), tested=splits[fold[first]])


def dask_predict(est, X, method: str):
    """``est.predict`` or ``predict_proba`` on each partition of a dask DataFrame, lazily.

    Returns a dask Series of labels (``predict``) or a dask DataFrame with one
    column per class (``predict_proba``), partitioned as ``X``.
    """
    import pandas as pd

    if method == "predict":
        meta = pd.Series(np.asarray(est.classes_)[:0], name="prediction")
        return X.map_partitions(
            lambda part: pd.Series(est.predict(part), index=part.index, name="prediction"),
            meta=meta)
    columns = [str(c) for c in est.classes_]
    meta = pd.DataFrame({c: pd.Series(dtype=float) for c in columns})
    return X.map_partitions(
        lambda part: pd.DataFrame(est.predict_proba(part), index=part.index, columns=columns),
        meta=meta)
