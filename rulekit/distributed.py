"""The two counting passes of :mod:`rulekit.stream` on a dask cluster.

Each partition of a dask DataFrame is summarized (pass 1) and then binarized
and counted (pass 2) on the worker that holds it.  The partitions are taken
in ordered batches: the first partition alone, then runs of consecutive
partitions, each run merged up a tree of ``split_every``-way merges on the
workers, so only summaries and count tables travel, never rows.  Where
:func:`count` is called, the batches' results are merged in the partitions'
order, so the client holds the running result and one batch's at a time.
The binarizer is fitted there, from the merged summary, and sent to the
workers for pass 2.  Merging is associative and the merges keep the
partitions' order, so the :class:`~rulekit.stream.Counts` are those of
:func:`rulekit.stream.count` on the same rows, bit for bit, whatever the
partitioning.

Stops.  Inside a fit whose ``time_limit`` passes, or on Ctrl-C
(:func:`rulekit._anytime.stopping`), a pass keeps the batches merged so far,
a prefix of the partitions, and stops there, as :func:`rulekit.stream.count`
stops between chunks; a pass always keeps its first batch (one partition),
as the in-process pass always reads its first chunk, so the fit has rows to
search.  Each pass also keeps time for what follows it, as the in-process
passes do (pass 1 twice its own time, pass 2 the learner's work on the
patterns merged so far: ``cost_after``).  With a ``distributed.Client`` every batch is submitted at once (the
earlier ones first), the client polls for the next one every
:data:`POLL_SECONDS`, and on a stop it cancels the batches not yet merged on
the cluster.  dask's local schedulers (threads, processes, synchronous) have
no futures to cancel: there the batches are computed one after the other and
the stop is checked between them.  dask is imported only when these functions
run (the ``distributed`` extra).
"""

from __future__ import annotations

import numbers
import sys
import time
from functools import reduce

from . import stream
from ._anytime import stopping
from .binarize import Binarizer

__all__ = ["count", "tree_reduce", "POLL_SECONDS", "MAX_BATCHES"]

#: how often the client looks for a stop while the cluster works on a pass
POLL_SECONDS = 0.1
#: at most this many batches per pass (besides the first partition): each batch's
#: result is merged into the running one on the client, so more batches cost the
#: client more merging, fewer make a stop keep a smaller share of the work done
MAX_BATCHES = 32


def tree_reduce(parts: list, merge, split_every: int = 8):
    """One delayed value merging ``parts`` (delayed) ``split_every`` at a time."""
    import dask

    if not parts:
        raise ValueError("the dask collection has no partitions")
    combine = dask.delayed(lambda *xs: reduce(merge, xs), pure=True)
    while len(parts) > 1:
        parts = [combine(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


def batch_bounds(n_parts: int, split_every: int = 8) -> list:
    """``(start, stop)`` of each batch of partitions: the first partition alone (a stop
    before anything is merged waits for it only), then runs of equal length, at least
    ``split_every`` and at most :data:`MAX_BATCHES` of them."""
    if n_parts < 1:
        raise ValueError("the dask collection has no partitions")
    size = max(split_every, -(-(n_parts - 1) // MAX_BATCHES))
    starts = [0, *range(1, n_parts, size)]
    return list(zip(starts, [*starts[1:], n_parts]))


def _client():
    """The ``distributed.Client`` dask.compute would use now, or None (a local scheduler)."""
    if "distributed" not in sys.modules:      # no client can exist without it imported
        return None
    import dask.base
    from distributed import Client

    owner = getattr(dask.base.get_scheduler(), "__self__", None)
    return owner if isinstance(owner, Client) else None


def _ordered_merge(parts: list, merge, split_every: int, reserve=None):
    """Merge the ``parts`` (delayed) in order, batch by batch; a stop keeps a prefix.

    ``reserve(total, seconds)``: the seconds to keep for what follows the pass,
    from the merge so far and the seconds the pass has taken (None: none); the
    pass stops once they no longer fit in the time left
    (:func:`rulekit._anytime.stopping`).

    Returns
    -------
    result, n_done
        The merge of ``parts[:n_done]`` (``n_done >= 1``; ``len(parts)`` unless
        a stop came first).
    """
    import dask

    bounds = batch_bounds(len(parts), split_every)
    graphs = [tree_reduce(parts[a:b], merge, split_every) for a, b in bounds]
    total, n_done = None, 0
    start = time.perf_counter()

    def stop_now() -> bool:
        keep = (0.0 if reserve is None or total is None
                else reserve(total, time.perf_counter() - start))
        return stopping(keep)

    def take(value, stop):
        nonlocal total, n_done
        total = value if total is None else merge(total, value)
        n_done = stop

    client = _client()
    if client is None:
        # a local scheduler: no future to cancel, so one batch at a time, the stop
        # checked between them (as the in-process pass checks it between chunks)
        for (_, stop), graph in zip(bounds, graphs):
            if n_done and stop_now():
                break
            (value,) = dask.compute(graph)
            take(value, stop)
        return total, n_done

    from distributed import wait

    # every batch at once, the earlier ones first, so the merged prefix grows steadily
    futures = [client.compute(graph, priority=-i) for i, graph in enumerate(graphs)]
    cancelled = False
    try:
        for i, future in enumerate(futures):
            while not future.done():
                if stop_now():
                    if i:
                        return total, n_done   # the batches left are cancelled below
                    if not cancelled:
                        # nothing merged yet: wait for the first batch (one partition),
                        # which the pass keeps, and cancel the others now
                        client.cancel(futures[1:])
                        futures[1:] = [None] * (len(futures) - 1)
                        cancelled = True
                try:
                    wait(future, timeout=POLL_SECONDS)
                except TimeoutError:
                    pass
            # (batches already done when a stop comes are merged too: they cost no wait)
            value = future.result()
            # released at once: a reference cycle (a caught timeout's traceback) could
            # otherwise keep the future, and its result on a worker, until gc runs
            future.release()
            futures[i] = None
            take(value, bounds[i][1])
            del value
            if cancelled:
                break                          # the first batch, waited for on a stop
        return total, n_done
    finally:
        # a stop, an error or a KeyboardInterrupt: nothing left running for us
        left = [f for f in futures if f is not None]
        if left:
            client.cancel(left)


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
          fit=None, cost_after: float = 0.0, packed: bool = False) -> stream.Counts:
    """Both passes of :func:`rulekit.stream.count`, per partition on the workers.

    Parameters
    ----------
    data : dask DataFrame or rulekit.stream.Files
        The rows, the target column among them.
    target, key, binarizer, n_folds, max_memory, fit, cost_after, packed
        As in :func:`rulekit.stream.count` (``fit`` runs here, on the client);
        ``max_memory`` bounds each merged count table (on the worker that
        merges it, and here as the batches merge) and so the client's result.
    split_every : int, default=8
        How many results one merge combines; a batch holds at least as many
        partitions.

    Returns
    -------
    rulekit.stream.Counts
        The same as :func:`rulekit.stream.count` on the same rows.  Inside a
        fit stopped by its time limit or Ctrl-C: the counts of a prefix of the
        partitions (at least the first), on conditions chosen from a prefix
        at least as long (see the module's notes).
    """
    import dask

    frame, target, key = _frame(data, target, key)
    if not isinstance(n_folds, numbers.Integral) or n_folds < 1:
        raise ValueError(f"n_folds must be a positive integer, got {n_folds!r}")
    template = Binarizer() if binarizer is None else binarizer
    parts = frame.to_delayed()
    summarize = dask.delayed(stream.summarize, pure=True)
    # each pass keeps time for what follows it, as stream.count's passes do: pass 1
    # twice its own time, pass 2 the learner's work on the patterns merged so far
    summary, n_read = _ordered_merge([summarize(p, target, key, template) for p in parts],
                                     lambda a, b: a.merge(b), split_every,
                                     reserve=lambda total, seconds:
                                     stream.PASS_ONE_RESERVE * seconds)
    if summary.n_rows == 0:
        raise ValueError("the dask collection has no rows" + (
            "" if n_read == len(parts) else
            f" in the {n_read} partition(s) summarized before the fit's time limit or Ctrl-C"))
    fitted = (template if hasattr(template, "conditions_")
              else (fit or stream.fit_binarizer)(summary, template))
    classes = stream.classes_of(summary)
    m = len(fitted.conditions_)
    table_of = dask.delayed(stream.count_table, pure=True)
    fitted_d, classes_d = dask.delayed(fitted), dask.delayed(classes)   # one key each

    def merge(a, b):
        return a.merge(b, max_memory, m)

    # only the partitions pass 1 summarized: their labels are the classes counted
    table, n_counted = _ordered_merge(
        [table_of(p, fitted_d, classes_d, target, key, n_folds) for p in parts[:n_read]],
        merge, split_every,
        reserve=lambda total, seconds: stream.reserve_after_counting(
            cost_after, seconds, total.n_rows, len(total.keys)))
    if max_memory is not None:
        table.check_memory(max_memory, m)
    if table.n_rows != summary.n_rows and n_counted == n_read == len(parts):
        raise ValueError(f"the dask collection gave {summary.n_rows} rows, then "
                         f"{table.n_rows}: its partitions must give the same rows twice")
    return stream.counts_from_table(table, fitted, classes, packed)
