"""rulekit.distributed: the streamed counts, per dask partition, equal the local ones.

The fast test runs dask's synchronous scheduler on uneven partitions; the slow one
sends the partitions to two worker processes of a LocalCluster on the loopback
address (as tests/test_distributed.py does), so summaries, the binarizer and the
count tables are really pickled across processes.
"""

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from rulekit import Binarizer, distributed, stream

from test_stream import frame, same


@pytest.fixture(scope="module")
def data():
    return frame(2000, seed=4)


def partitions(df, sizes):
    edges = np.cumsum([0, *sizes])
    return dd.from_pandas(df, npartitions=1).repartition(
        divisions=[int(e) for e in edges[:-1]] + [len(df) - 1])


def test_dask_counts_equal_the_local_counts(data):
    local = stream.count(data, "label", n_folds=4)
    with dask.config.set(scheduler="sync"):
        for ddf in (dd.from_pandas(data, npartitions=7), partitions(data, [5, 1200, 300, 495])):
            same(local, distributed.count(ddf, "label", n_folds=4, split_every=2))


def test_dask_reads_a_parquet_glob(data, tmp_path):
    for i, part in enumerate(np.array_split(np.arange(len(data)), 3)):
        data.iloc[part].to_parquet(tmp_path / f"p{i}.parquet")
    files = stream.Files(str(tmp_path / "*.parquet"), "label")
    with dask.config.set(scheduler="sync"):
        same(stream.count(files), distributed.count(files))


def test_dask_refuses_too_many_patterns(data):
    with dask.config.set(scheduler="sync"), pytest.raises(stream.TooManyPatterns, match="max_memory"):
        distributed.count(dd.from_pandas(data, npartitions=3), "label", max_memory=0.01)
    with pytest.raises(TypeError, match="dask DataFrame"):
        distributed.count(data, "label")


@pytest.mark.slow
def test_counts_on_a_local_cluster_of_two_processes(data):
    from distributed import Client, LocalCluster

    params = dict(thresholds="reference", n_thresholds=4)
    local = stream.count(data, "label", binarizer=Binarizer(**params))
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=40)
    with cluster, Client(cluster) as client:
        # split_every=2: four batches (1, 2, 2, 1 partitions) merged in the client
        remote = distributed.count(dd.from_pandas(data, npartitions=6), "label",
                                   binarizer=Binarizer(**params), split_every=2)
        ran = client.run(lambda: "rulekit.stream" in __import__("sys").modules)
    assert len(ran) == 2 and any(ran.values())   # the passes ran in the workers
    same(local, remote)


def test_batches_cover_the_partitions_in_order():
    from rulekit.distributed import MAX_BATCHES, batch_bounds

    for n, split_every in [(1, 8), (2, 8), (9, 8), (10, 8), (7, 2), (1000, 8), (5000, 4)]:
        bounds = batch_bounds(n, split_every)
        assert bounds[0] == (0, 1)                       # the first partition alone
        assert [a for a, _ in bounds[1:]] == [b for _, b in bounds[:-1]]   # contiguous
        assert bounds[-1][1] == n and len(bounds) <= MAX_BATCHES + 1
        assert all(b - a >= split_every for a, b in bounds[1:-1])


def test_a_stop_keeps_the_counts_of_a_prefix_of_the_partitions(data):
    """On a local scheduler a stop is seen between batches: each pass keeps the batches
    merged so far (always the first, one partition), and pass 2 counts only partitions
    pass 1 summarized.  The counts are then those of stream.count on that prefix."""
    import os
    import signal

    from rulekit._anytime import Anytime

    ddf = dd.from_pandas(data, npartitions=7)
    head = data.iloc[:len(ddf.partitions[0].compute())]
    whole = stream.count(data, "label", n_folds=4)

    def fit_then_ctrl_c(summary, template):
        os.kill(os.getpid(), signal.SIGINT)          # a Ctrl-C between the two passes
        return stream.fit_binarizer(summary, template)

    with dask.config.set(scheduler="sync"):
        # a limit passed from the start: both passes read the first partition only
        with Anytime("test", time_limit=0.0):
            same(stream.count(head, "label", n_folds=4),
                 distributed.count(ddf, "label", n_folds=4, split_every=2))
        # stopped after pass 1: the conditions of all the rows, the counts of the first
        # partition's
        with Anytime("test") as run:
            cut = distributed.count(ddf, "label", n_folds=4, split_every=2, fit=fit_then_ctrl_c)
            assert run.interrupted
    assert cut.binarizer.conditions_ == whole.binarizer.conditions_
    same(stream.count(head, "label", n_folds=4, binarizer=whole.binarizer), cut)


def test_the_passes_on_dask_keep_time_for_what_follows_them(data):
    """As stream.count's passes do, the dask passes stop early enough under a time limit
    for what follows them: pass 2 stops once the learner's work on the patterns merged so
    far (``cost_after`` times the pass's seconds per row, per pattern) no longer fits.
    Nothing is kept for without a limit or with cost_after=0.  The counts are then those
    of the first partition on the conditions of all the rows, and the run records the
    cut that the clock does not show."""
    from rulekit._anytime import Anytime

    ddf = dd.from_pandas(data, npartitions=5)
    head = data.iloc[:len(ddf.partitions[0].compute())]
    whole = stream.count(data, "label", n_folds=4)
    with dask.config.set(scheduler="sync"):
        with Anytime("test", time_limit=1000.0) as run:
            same(whole, distributed.count(ddf, "label", n_folds=4, split_every=2))
            assert run.cut is None
            cut = distributed.count(ddf, "label", n_folds=4, split_every=2, cost_after=1e15)
            assert run.cut == "time_limit"
        with Anytime("test") as run:
            same(whole, distributed.count(ddf, "label", n_folds=4, split_every=2,
                                          cost_after=1e15))
            assert run.cut is None
    assert cut.binarizer.conditions_ == whole.binarizer.conditions_
    same(stream.count(head, "label", n_folds=4, binarizer=whole.binarizer), cut)


def test_partitions_that_change_between_the_passes_are_refused(data):
    """Without a stop, both passes read every partition: a collection that gives other
    rows the second time is named, as stream.count names such a source."""
    halved = {"now": False}

    def between_passes(summary, template):
        halved["now"] = True
        return stream.fit_binarizer(summary, template)

    ddf = dd.from_pandas(data, npartitions=4).map_partitions(
        lambda part: part.iloc[:len(part) // 2] if halved["now"] else part, meta=data.iloc[:0])
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="same rows twice"):
        distributed.count(ddf, "label", fit=between_passes)


@pytest.mark.slow
@pytest.mark.serial  # asserts the wall time the fits took
def test_a_time_limit_or_ctrl_c_stops_the_passes_on_a_cluster():
    """The two passes on a cluster are inside the fit's time limit and Ctrl-C: partitions
    that take 12 s to read on two workers (6 s a pass) are cut, the work left on the
    cluster is cancelled, and the fit returns soon after its 1 s limit (or the Ctrl-C),
    searching the partitions read, with the status, the warning and a certificate that
    says the search saw part of the data."""
    import os
    import signal
    import threading
    import time
    import warnings

    from distributed import Client, LocalCluster
    from sklearn.exceptions import ConvergenceWarning

    from rulekit import CorelsClassifier

    rng = np.random.default_rng(0)
    rows = pd.DataFrame({"a": rng.integers(0, 10, 4_800), "b": rng.integers(0, 5, 4_800)})
    rows["label"] = (rows["a"] + rng.integers(0, 4, 4_800) > 6).astype(int)

    def slow(part):               # a slow disk or network: 0.25 s a partition
        time.sleep(0.25)
        return part

    ddf = dd.from_pandas(rows, npartitions=48).map_partitions(slow, meta=rows.iloc[:0])
    X, y = ddf.drop(columns="label"), ddf["label"]

    def fit(**params):
        start, cpu = time.perf_counter(), time.process_time()
        with pytest.warns(ConvergenceWarning) as caught:
            est = CorelsClassifier(c=0.01, **params).fit(X, y)
        wall = time.perf_counter() - start
        print(f"\n{params or 'Ctrl-C after 1 s'}: {wall:.2f} s wall, "
              f"{time.process_time() - cpu:.2f} CPU s in the client, "
              f"{est.certificate_.n:.0f} of {len(rows)} rows counted")
        return est, wall, " ".join(str(w.message) for w in caught)

    def idle(client):
        """Does the scheduler hold no task of ours within 2 s (cancelled, not finished)?"""
        for _ in range(20):
            if client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0:
                return True
            time.sleep(0.1)
        return False

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=40)
    with cluster, Client(cluster) as client:
        # kernels compiled here and rulekit's modules loaded on the workers outside the
        # clock (a first fit on a fresh cluster takes 1-2 s more for them)
        fast = dd.from_pandas(rows, npartitions=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            CorelsClassifier(c=0.01).fit(fast.drop(columns="label"), fast["label"])

        est, wall, said = fit(time_limit=1.0)
        cut = idle(client)
        cert = est.certificate_
        assert wall < 1.0 + 2.5, f"{wall:.1f} s"              # an uncut fit takes 12 s
        assert cut and "time_limit" in said
        assert cert.status == "time_limit" and "before the limit" in cert.scope
        assert cert.lower_bound is not None and cert.lower_bound <= cert.objective
        assert est.predict(rows.drop(columns="label").iloc[:5]).shape == (5,)

        timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        est, wall, said = fit()
        timer.join()
        cut = idle(client)
        assert wall < 1.0 + 2.5, f"{wall:.1f} s"
        assert cut and "interrupted" in said
        assert est.certificate_.status == "interrupted"
        assert "before the limit" in est.certificate_.scope
