"""The two counting passes of :mod:`rulekit.stream` on a dask cluster.

Each partition of a dask DataFrame is summarized (pass 1) and then binarized
and counted (pass 2) on the worker that holds it; the per-partition results
are merged pairwise up a tree of ``split_every``-way merges, so only
summaries and count tables travel, never rows.  The binarizer is fitted
where :func:`count` is called, from the merged summary, and sent to the
workers for pass 2.  Merging is associative and the merges keep the
partitions' order, so the :class:`~rulekit.stream.Counts` are those of
:func:`rulekit.stream.count` on the same rows, bit for bit, whatever the
partitioning.  dask is imported only when these functions run (the
``distributed`` extra).
"""

from __future__ import annotations

import numbers
from functools import reduce

from . import stream
from .binarize import Binarizer

__all__ = ["count", "tree_reduce"]


def tree_reduce(parts: list, merge, split_every: int = 8):
    """One delayed value merging ``parts`` (delayed) ``split_every`` at a time."""
    import dask

    if not parts:
        raise ValueError("the dask collection has no partitions")
    combine = dask.delayed(lambda *xs: reduce(merge, xs), pure=True)
    while len(parts) > 1:
        parts = [combine(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


def _frame(data, target, key):
    """A dask DataFrame and the target and key names, from a dask frame or a Files source."""
    import dask.dataframe as dd

    if isinstance(data, stream.Files):
        files = data.files()
        fmt = {data._format(p) for p in files}
        if len(fmt) > 1:
            raise ValueError("mixing parquet and CSV files in one source is not supported on dask")
        read = dd.read_csv if fmt == {"csv"} else dd.read_parquet
        options = data.read_options if fmt == {"csv"} else {}
        return read(files, **options), data.target, data.key
    if not isinstance(data, dd.DataFrame):
        raise TypeError(f"data must be a dask DataFrame or rulekit.stream.Files, got "
                        f"{type(data).__name__}")
    if target is None:
        raise ValueError("name the label column: target='...'")
    return data, target, key


def count(data, target: str | None = None, *, key: str | None = None,
          binarizer: Binarizer | None = None, n_folds: int = 5,
          max_memory: float | None = None, split_every: int = 8,
          fit=None) -> stream.Counts:
    """Both passes of :func:`rulekit.stream.count`, per partition on the workers.

    Parameters
    ----------
    data : dask DataFrame or rulekit.stream.Files
        The rows, the target column among them.
    target, key, binarizer, n_folds, max_memory, fit
        As in :func:`rulekit.stream.count` (``fit`` runs here, on the client);
        ``max_memory`` bounds each merged count table (on the worker that
        merges it) and so the client's result.
    split_every : int, default=8
        How many results one merge combines.

    Returns
    -------
    rulekit.stream.Counts
        The same as :func:`rulekit.stream.count` on the same rows.
    """
    import dask

    frame, target, key = _frame(data, target, key)
    if not isinstance(n_folds, numbers.Integral) or n_folds < 1:
        raise ValueError(f"n_folds must be a positive integer, got {n_folds!r}")
    template = Binarizer() if binarizer is None else binarizer
    parts = frame.to_delayed()
    summarize = dask.delayed(stream.summarize, pure=True)
    (summary,) = dask.compute(tree_reduce(
        [summarize(p, target, key, template) for p in parts],
        lambda a, b: a.merge(b), split_every))
    if summary.n_rows == 0:
        raise ValueError("the dask collection has no rows")
    fitted = (template if hasattr(template, "conditions_")
              else (fit or stream.fit_binarizer)(summary, template))
    classes = stream.classes_of(summary)
    m = len(fitted.conditions_)
    table_of = dask.delayed(stream.count_table, pure=True)
    fitted_d, classes_d = dask.delayed(fitted), dask.delayed(classes)   # sent once

    def merge(a, b):
        return a.merge(b, max_memory, m)

    (table,) = dask.compute(tree_reduce(
        [table_of(p, fitted_d, classes_d, target, key, n_folds) for p in parts],
        merge, split_every))
    if max_memory is not None:
        table.check_memory(max_memory, m)
    return stream.counts_from_table(table, fitted, classes)
