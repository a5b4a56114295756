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
        remote = distributed.count(dd.from_pandas(data, npartitions=6), "label",
                                   binarizer=Binarizer(**params))
        ran = client.run(lambda: "rulekit.stream" in __import__("sys").modules)
    assert len(ran) == 2 and any(ran.values())   # the passes ran in the workers
    same(local, remote)
