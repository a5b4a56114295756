"""Counts of distinct binarized rows, streamed: the same from every source and chunking.

The reference everywhere is the in-memory path: ``Binarizer.fit`` on all the rows,
``transform``, then ``numpy.unique`` on (row, class) — written here, not taken from
rulekit.stream.
"""

import numpy as np
import pandas as pd
import pytest

from rulekit import Binarizer, stream
from rulekit._fitdata import FitData


def frame(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "income": rng.lognormal(10, 1, n).round(1),
        "score": rng.normal(size=n).round(2),
        "city": rng.choice(["Lima", "Quito", "Bogota", "La Paz", "Rare"], n,
                           p=[0.4, 0.3, 0.2, 0.095, 0.005]),
        "member": rng.choice([True, False], n),
    })
    df.loc[rng.random(n) < 0.1, "score"] = np.nan
    df.loc[rng.random(n) < 0.05, "city"] = None
    df["label"] = np.where(df.age + 10 * rng.normal(size=n) > 50, "yes", "no")
    return df


def chunked(df, k, seed=1):
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, len(df)), k - 1, replace=False))
    return [df.iloc[a:b] for a, b in zip([0, *cuts], [*cuts, len(df)])]


def in_memory(df, binarizer, classes):
    """(rows, class, count) of the binarized data, sorted as rulekit.stream sorts them."""
    B = binarizer.transform(df.drop(columns="label"))
    y = np.searchsorted(classes, df["label"].to_numpy())
    keyed = np.column_stack([B, y])
    rows, counts = np.unique(keyed, axis=0, return_counts=True)
    return rows, counts


def same(a, b):
    assert a.binarizer.conditions_ == b.binarizer.conditions_
    for name in ("B", "y", "weight", "fold_counts", "classes"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.n_rows == b.n_rows


@pytest.fixture(scope="module")
def data():
    return frame()


@pytest.fixture(scope="module")
def whole(data):
    return stream.count(data, "label")


@pytest.mark.parametrize("params", [{}, {"n_thresholds": 4, "min_frequency": 20},
                                    {"min_frequency": None, "negations": True}])
def test_pass_one_gives_the_in_memory_binarizer(data, params):
    streamed = stream.count(stream.Chunks(lambda: chunked(data, 7), "label"),
                            binarizer=Binarizer(**params)).binarizer
    fitted = Binarizer(**params).fit(data.drop(columns="label"))
    assert streamed.conditions_ == fitted.conditions_
    np.testing.assert_array_equal(streamed.negation_of_, fitted.negation_of_)
    assert streamed.infrequent_categories_ == fitted.infrequent_categories_


def test_counts_equal_the_in_memory_binarized_rows(data, whole):
    rows, counts = in_memory(data, whole.binarizer, whole.classes)
    # the same set of (row, class) pairs with the same counts, in any order
    got = np.column_stack([whole.B, whole.y])
    order_a = np.lexsort(rows.T[::-1])
    order_b = np.lexsort(got.T[::-1])
    np.testing.assert_array_equal(rows[order_a], got[order_b])
    np.testing.assert_array_equal(counts[order_a], whole.weight[order_b])
    assert whole.weight.sum() == len(data) == whole.n_rows
    np.testing.assert_array_equal(whole.fold_counts.sum(axis=1), whole.weight)
    assert list(whole.classes) == ["no", "yes"]


def test_chunks_give_the_same_counts(data, whole):
    same(whole, stream.count(stream.Chunks(lambda: chunked(data, 7), "label")))
    same(whole, stream.count(lambda: chunked(data, 7, seed=5)[::-1], "label"))
    # a fitted binarizer is used as it is
    same(whole, stream.count(lambda: chunked(data, 4), "label", binarizer=whole.binarizer))
    # an empty chunk (an empty parquet batch or dask partition) changes nothing
    same(whole, stream.count(lambda: [data.iloc[:0], *chunked(data, 3), data.iloc[:0]], "label"))


def test_parquet_glob_gives_the_same_counts(data, whole, tmp_path):
    for i, part in enumerate(np.array_split(np.arange(len(data)), 3)):
        data.iloc[part].to_parquet(tmp_path / f"part{i}.parquet")
    same(whole, stream.count(str(tmp_path / "*.parquet"), "label"))
    same(whole, stream.count(stream.Files(str(tmp_path / "*.parquet"), "label", chunk_rows=333)))


def test_each_pass_over_parquet_hands_back_arrow_memory(data, whole, tmp_path, monkeypatch):
    """Arrow's pool keeps the buffers a pass freed (110 MB after ten million rows); each of
    the two passes hands them back, and the counts are the same."""
    import pyarrow as pa

    pool = pa.default_memory_pool()
    calls = []

    class Pool:
        def __getattr__(self, name):
            return getattr(pool, name)

        def release_unused(self):
            calls.append(True)
            pool.release_unused()

    monkeypatch.setattr(pa, "default_memory_pool", lambda: Pool())
    for i, part in enumerate(np.array_split(np.arange(len(data)), 2)):
        data.iloc[part].to_parquet(tmp_path / f"part{i}.parquet")
    same(whole, stream.count(str(tmp_path / "*.parquet"), "label"))
    assert len(calls) == 2


def test_csv_gives_the_same_counts(data, whole, tmp_path):
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    same(whole, stream.count(stream.Files(str(path), "label", chunk_rows=500)))


def test_folds_do_not_depend_on_chunking_and_follow_the_key(data):
    keyed = data.assign(id=np.arange(len(data)) * 7919 % 10007)
    a = stream.count(keyed, "label", key="id", n_folds=3)
    b = stream.count(lambda: chunked(keyed, 11), "label", key="id", n_folds=3)
    same(a, b)
    assert "id" not in a.binarizer.feature_names_in_
    # a row's fold is its key's hash: moving the rows between keys moves the fold counts
    c = stream.count(keyed.assign(id=keyed.id + 1), "label", key="id", n_folds=3)
    assert not np.array_equal(a.fold_counts, c.fold_counts)
    assert (a.fold_counts.sum(axis=0) > 0.25 * len(data)).all()


def test_bucketed_sketch_is_chunking_independent_and_close(monkeypatch):
    monkeypatch.setattr(stream, "EXACT_VALUES", 50)
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"x": rng.lognormal(0, 2, 4000), "label": rng.choice([0, 1], 4000)})
    a = stream.count(df, "label")
    b = stream.count(lambda: chunked(df, 9), "label")
    same(a, b)
    exact = Binarizer().fit(df[["x"]]).conditions_
    for got, want in zip(a.binarizer.conditions_, exact, strict=True):
        assert got.op == want.op
        assert abs(got.value - want.value) <= 2 * stream.RELATIVE_ACCURACY * abs(want.value)


def test_reference_thresholds_from_the_hash_sample(data):
    params = {"thresholds": "reference", "n_thresholds": 3}
    a = stream.count(data, "label", binarizer=Binarizer(**params))
    b = stream.count(lambda: chunked(data, 7), "label", binarizer=Binarizer(**params))
    same(a, b)
    assert any(c.feature == "age" and c.op == "<=" for c in a.binarizer.conditions_)


def test_too_many_patterns_is_refused_with_remedies(data):
    with pytest.raises(stream.TooManyPatterns, match=r"104 distinct .*n_thresholds.*max_card=1"):
        stream.count(lambda: chunked(data, 7), "label", max_memory=0.01)


def test_bad_input_is_named(data, tmp_path):
    with pytest.raises(ValueError, match="'nope' is not in the data"):
        stream.count(data, "nope")
    with pytest.raises(FileNotFoundError, match="no file matches"):
        stream.count(str(tmp_path / "*.parquet"), "label")
    with pytest.raises(ValueError, match="missing values"):
        stream.count(data.assign(label=data.label.where(data.age > 20)), "label")
    mixed = [data.iloc[:100], data.iloc[100:].assign(age=data.age.iloc[100:].astype(str))]
    with pytest.raises(ValueError, match="'age' is numeric in some chunks"):
        stream.count(lambda: mixed, "label")
    changing = iter([[data], [data.iloc[:10]]])
    with pytest.raises(ValueError, match="same rows twice"):
        stream.count(lambda: next(changing), "label")


def test_counts_feed_fitdata(data, whole):
    fit = FitData(params={}, classes=whole.classes, n_features_in=whole.binarizer.n_features_in_,
                  feature_names_in=whole.binarizer.feature_names_in_, binarizer=whole.binarizer,
                  B=whole.B, y=whole.y, sample_weight=whole.weight.astype(float))
    rows = FitData(params={}, classes=whole.classes, n_features_in=fit.n_features_in,
                   feature_names_in=fit.feature_names_in, binarizer=whole.binarizer,
                   B=whole.binarizer.transform(data.drop(columns="label")),
                   y=np.searchsorted(whole.classes, data.label)).distinct()
    assert fit.total_weight() == rows.total_weight() == len(data)
    assert rows.n_rows == fit.n_rows


@pytest.mark.slow
def test_two_million_rows_from_parquet_in_bounded_memory(tmp_path):
    """The counting pass keeps memory to the distinct patterns: four times the rows add next
    to nothing to the peak (prints rows/s and peak RSS)."""
    import subprocess
    import sys

    def peak(n, folder):
        folder.mkdir()
        rng = np.random.default_rng(0)
        for i in range(4):
            m = n // 4
            pd.DataFrame({"a": rng.integers(0, 100, m), "b": rng.normal(size=m).round(3),
                          "c": rng.choice(list("pqrstu"), m), "label": rng.choice([0, 1], m)}
                         ).to_parquet(folder / f"p{i}.parquet")
        script = (
            "import resource, time, sys\n"
            "from rulekit import stream\n"
            # a first small count, so that whatever is loaded or compiled once is in both peaks
            f"stream.count({str(folder / 'p0.parquet')!r}, 'label')\n"
            "t = time.process_time()\n"
            f"c = stream.count({str(folder / '*.parquet')!r}, 'label')\n"
            "cpu = time.process_time() - t\n"
            "print(c.n_rows, c.B.shape[0], cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             check=True).stdout.split()
        return int(out[0]), int(out[1]), float(out[2]), int(out[3]) / 1024

    rows, distinct, cpu, rss_mb = peak(2_000_000, tmp_path / "large")
    small_rows, _, _, small_mb = peak(500_000, tmp_path / "small")
    print(f"\n{rows} rows, {distinct} patterns, {rows / cpu:,.0f} rows/CPU s (both passes), "
          f"peak RSS {rss_mb:.0f} MB ({small_mb:.0f} MB for {small_rows} rows)")
    assert rows == 2_000_000 and small_rows == 500_000
    # 1.5 million more rows of 4 columns would take over 100 MB as a frame (the text column
    # alone); counted chunk by chunk they take none of it
    assert rss_mb - small_mb < 100


@pytest.mark.slow
@pytest.mark.serial  # asserts the wall time the fit took
def test_a_time_limit_stops_the_passes_over_a_source_between_chunks():
    """The two passes over chunks or files are inside the fit's time limit: a source
    that takes 12 s to read twice is cut between chunks, and the fit returns soon after
    its 1 s limit with status time_limit, a certificate that says the search saw part of
    the data, and a warning."""
    import time
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from rulekit import CorelsClassifier

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 10, 2_000), "b": rng.integers(0, 5, 2_000)})
    frame["label"] = (frame["a"] + rng.integers(0, 4, 2_000) > 6).astype(int)

    def slow_chunks():
        for _ in range(60):
            time.sleep(0.1)          # a slow disk or network: 6 s per pass
            yield frame

    with warnings.catch_warnings():            # kernels compiled outside the clock
        warnings.simplefilter("ignore")
        CorelsClassifier(c=0.01).fit(stream.Chunks(lambda: iter([frame]), "label"))
    start = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        est = CorelsClassifier(c=0.01, time_limit=1.0).fit(stream.Chunks(slow_chunks, "label"))
    # pass 1 stops once twice its own time no longer fits (about 0.35 s in), pass 2 reads
    # the same chunks again: the fit ends inside its limit, not one pass-length after it
    assert time.perf_counter() - start < 1.0 + 0.5
    cert = est.certificate_
    assert cert.status == "time_limit" and "before the limit" in cert.scope
    assert cert.lower_bound is None or cert.lower_bound <= cert.objective


def test_the_counting_pass_keeps_time_for_what_follows_it(data, monkeypatch):
    """Under a time limit, pass 2 stops reading once what the fit will do with its
    patterns (``cost_after`` times its own seconds per row, per pattern) no longer fits in
    the time left, long before the deadline itself: the counts then hold the chunks read,
    the run records the cut, and a fit says in its certificate that it searched part of
    the data.  Without a limit, or with nothing to keep time for, every row is counted."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from rulekit import FallingRuleListClassifier
    from rulekit._anytime import Anytime

    parts = chunked(data, 6)
    source = stream.Chunks(lambda: iter(parts), "label")
    with Anytime("test", time_limit=1000.0) as run:
        whole = stream.count(source, cost_after=0.0)
        assert run.cut is None
        cut = stream.count(source, cost_after=1e15)     # no time is ever enough for this
        assert run.cut == "time_limit"
    with Anytime("test") as run:                        # no limit: nothing is kept for
        unlimited = stream.count(source, cost_after=1e15)
        assert run.cut is None
    assert whole.n_rows == unlimited.n_rows == len(data)
    assert cut.n_rows == len(parts[0])

    monkeypatch.setattr(FallingRuleListClassifier, "_cost_after_counting", 1e15)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        est = FallingRuleListClassifier(time_limit=1000.0).fit(source)
    cert = est.certificate_
    assert cert.status == "time_limit" and "before the limit" in cert.scope
    assert cert.lower_bound == 0.0
    assert any(issubclass(w.category, ConvergenceWarning) for w in said)


def test_parquet_without_pyarrow_says_what_to_install(data, tmp_path, monkeypatch):
    """pyarrow is the ``parquet`` extra: without it, reading a parquet file is an
    ImportError that names the extra, not a bare ModuleNotFoundError from inside."""
    import sys

    data.to_parquet(tmp_path / "part.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)        # import pyarrow now fails
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=r"pip install 'rulekit\[parquet\]'"):
        list(stream.Files(tmp_path / "part.parquet", target="label").chunks())
