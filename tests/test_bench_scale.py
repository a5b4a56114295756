"""The scale benchmark's bookkeeping (benchmarks/bench_scale.py): records merge by
rows, learner and mode, and the table's ratios compare like with like.  The fits
themselves are the benchmark's business, not the test suite's."""


import pytest

from helpers import load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("bench_scale")


def record(rows, cpu, own, mode="single", learner="corels"):
    return dict(rows=rows, learner=learner, mode=mode, fit_cpu_s=cpu, fit_own_rss_mb=own,
                peak_rss_mb=own + 300.0, status="optimal")


def test_a_new_run_replaces_the_same_measurement_and_keeps_the_others(bench, tmp_path):
    path = tmp_path / "scale.json"
    path.write_text(__import__("json").dumps([record(100, 1.0, 10.0), record(1000, 5.0, 50.0)]))
    merged = bench.merge(path, [record(1000, 4.0, 40.0), record(1000, 9.0, 90.0, mode="dask")])
    by_key = {bench._key(r): r["fit_cpu_s"] for r in merged}
    assert by_key == {(100, "corels", "single"): 1.0, (1000, "corels", "single"): 4.0,
                      (1000, "corels", "dask"): 9.0}


def test_ratios_are_baseline_over_now_for_the_same_rows_learner_and_mode(bench):
    baseline = [record(1000, 40.0, 1000.0), record(100, 10.0, 100.0)]
    table = bench.to_markdown([record(1000, 10.0, 100.0), record(1000, 1.0, 1.0, mode="dask")],
                              baseline)
    lines = table.splitlines()
    single = next(line for line in lines if "| single |" in line)
    dask = next(line for line in lines if "| dask |" in line)
    assert single.endswith("| 4.00x | 10.00x |")
    assert dask.endswith("| — | — |")  # no dask baseline: no ratio invented


def test_a_missing_data_set_is_a_clear_error(bench, tmp_path):
    with pytest.raises(ValueError, match="no parquet files"):
        bench.parquet_files(str(tmp_path / "nowhere"))
