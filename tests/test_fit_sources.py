"""``fit`` reads files, chunks, dask frames and counts without holding the rows (issue 35).

Claims tested here:

* a fit from parquet files is the same whatever the chunk size, the number of
  files, and whether the rows come as files, chunks, counts or a dask frame
  (hash folds and sorted counts do not depend on where the data are cut);
* with a fixed ``c`` (nothing validated) the fit from a source is the in-memory
  fit: the same model and certificate;
* on dask, ``predict`` and ``predict_proba`` return dask collections equal to
  the in-memory answers;
* what cannot be read this way says so, naming what to do;
* the command line fits parquet globs (column generation too), and
  ``--scheduler`` counts on a 2-process ``LocalCluster`` (slow lane).

Column generation's own claims from sources are in ``tests/colgen/test_sources.py``.
"""

import numpy as np
import pandas as pd
import pytest

from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     SoftFallingRuleListClassifier, stream)
from rulekit.datasets import load_compas

from helpers import rule_set_losses, run_cli


@pytest.fixture(scope="module")
def compas():
    b = load_compas()
    X, y = b.data.reset_index(drop=True), pd.Series(np.asarray(b.target), name="recid")
    return X, y


@pytest.fixture(scope="module")
def parquet(compas, tmp_path_factory):
    X, y = compas
    where = tmp_path_factory.mktemp("parquet")
    frame = X.assign(recid=y)
    cuts = [0, 1000, 4321, len(frame)]
    for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
        frame.iloc[a:b].to_parquet(where / f"part{i}.parquet")
    return where


def _same(a, b):
    assert str(a.model_) == str(b.model_)
    ca, cb = a.certificate_, b.certificate_
    assert (ca.status, ca.objective, ca.lower_bound, ca.n) == (cb.status, cb.objective,
                                                               cb.lower_bound, cb.n)
    assert a.c_ == b.c_


@pytest.mark.slow   # three default fits on 7,214 rows, each counted in two passes
def test_the_default_fit_from_files_does_not_depend_on_chunks_or_files(compas, parquet):
    X, y = compas
    whole = CorelsClassifier().fit(stream.Files(str(parquet / "*.parquet"), target="recid"))
    small = CorelsClassifier().fit(stream.Files(str(parquet / "*.parquet"), target="recid",
                                                chunk_rows=997))
    frame = X.assign(recid=y)
    chunks = CorelsClassifier().fit(stream.Chunks(
        lambda: (frame.iloc[i:i + 2500] for i in range(0, len(frame), 2500)), target="recid"))
    _same(whole, small)
    _same(whole, chunks)
    assert whole.certificate_.n == len(y)
    assert "hash folds" in whole.certificate_.scope
    # the model predicts rows held in memory as usual
    assert whole.predict(X).shape == (len(y),)


@pytest.mark.slow   # compas twice, at two conditions per rule
def test_a_fixed_c_from_files_is_the_in_memory_fit(compas, parquet):
    X, y = compas
    kw = dict(c=0.01, max_card=2)
    streamed = CorelsClassifier(**kw).fit(stream.Files(str(parquet / "*.parquet"),
                                                       target="recid"))
    _same(streamed, CorelsClassifier(**kw).fit(X, y))


@pytest.mark.parametrize("cls", [FallingRuleListClassifier, pytest.param(
    SoftFallingRuleListClassifier, marks=pytest.mark.slow)])
def test_falling_lists_from_chunks_are_the_in_memory_fit(compas, cls):
    """No validation, exact thresholds: counted chunks give the fit on the rows."""
    X, y = compas
    frame = X.assign(recid=y)
    chunks = stream.Chunks(lambda: (frame.iloc[i:i + 1500] for i in range(0, len(frame), 1500)),
                           target="recid")
    a, b = cls().fit(chunks), cls().fit(X, y)
    assert str(a.model_) == str(b.model_)
    assert a.certificate_.objective == b.certificate_.objective
    assert a.certificate_.status == b.certificate_.status


@pytest.mark.slow   # compas counted and fitted twice
def test_counts_computed_once_fit_like_their_source(compas, parquet):
    source = stream.Files(str(parquet / "*.parquet"), target="recid")
    est = CorelsClassifier(c=0.01)
    counts = stream.count(source, binarizer=est._binarizer(est._check_params(), None),
                          n_folds=5)
    _same(CorelsClassifier(c=0.01).fit(counts), CorelsClassifier(c=0.01).fit(source))


@pytest.mark.slow   # three default fits through dask
def test_a_dask_frame_fits_like_its_files_and_predicts_lazily(compas, parquet):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    X, y = compas
    with dask.config.set(scheduler="synchronous"):
        est = CorelsClassifier().fit(dd.from_pandas(X, npartitions=3),
                                     dd.from_pandas(y, npartitions=3))
        other = CorelsClassifier().fit(dd.from_pandas(X, npartitions=7),
                                       dd.from_pandas(y, npartitions=7))
        _same(est, other)
        _same(est, CorelsClassifier().fit(stream.Files(str(parquet / "*.parquet"),
                                                       target="recid")))
        lazy = est.predict(dd.from_pandas(X, npartitions=4))
        proba = est.predict_proba(dd.from_pandas(X, npartitions=4))
        assert type(lazy).__module__.startswith("dask")
        assert type(proba).__module__.startswith("dask")
        assert np.array_equal(lazy.compute().to_numpy(), est.predict(X))
        assert np.allclose(proba.compute().to_numpy(), est.predict_proba(X))


def test_a_small_source_fits_like_the_rows_in_memory():
    """The fast lane's check of a counted fit: a fixed c, a small frame in three chunks."""
    rng = np.random.default_rng(3)
    n = 1200
    X = pd.DataFrame({"a": rng.integers(0, 30, n), "b": rng.choice(["u", "v", "w"], n)})
    y = pd.Series(np.where((X["a"] > 12) ^ (rng.random(n) < 0.1), "yes", "no"), name="t")
    frame = X.assign(t=y)
    source = stream.Chunks(lambda: (frame.iloc[i:i + 500] for i in range(0, n, 500)),
                           target="t")
    _same(CorelsClassifier(c=0.01, max_card=1).fit(source),
          CorelsClassifier(c=0.01, max_card=1).fit(X, y))


class _RowsOnly(CorelsClassifier):
    """A learner that fits rows held in memory only (every built-in one reads sources)."""

    _fits_sources = False


def test_what_cannot_be_read_from_a_source_says_what_to_do(parquet):
    source = stream.Files(str(parquet / "*.parquet"), target="recid")
    with pytest.raises(TypeError, match="DataFrame or array.*BooleanRuleCGClassifier"):
        _RowsOnly().fit(source)
    with pytest.raises(ValueError, match="sample_weight"):
        BooleanRuleCGClassifier().fit(source, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="y=None"):
        CorelsClassifier().fit(source, np.zeros(3))
    with pytest.raises(ValueError, match="sample_weight"):
        CorelsClassifier().fit(source, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="in memory"):
        CorelsClassifier(forbidden=["age"]).fit(source)


def test_too_many_patterns_are_refused_before_they_are_held(parquet):
    source = stream.Files(str(parquet / "*.parquet"), target="recid", chunk_rows=500)
    with pytest.raises(stream.TooManyPatterns, match="max_card|thresholds"):
        CorelsClassifier(max_memory=0.01).fit(source)


def test_the_command_line_fits_a_parquet_glob(parquet, tmp_path):
    out = tmp_path / "model.json"
    done = run_cli("fit", parquet / "*.parquet", "--target", "recid", "--model", "corels",
                   "--corels-c", "0.01", "--save", out)
    assert done.returncode == 0, done.stderr
    assert "optimal" in done.stdout and "training accuracy" in done.stdout and out.is_file()


@pytest.mark.slow   # a subprocess fits column generation on compas at its defaults
def test_the_command_line_fits_column_generation_from_a_parquet_glob(compas, parquet, tmp_path):
    from rulekit import load

    out = tmp_path / "cg.json"
    done = run_cli("fit", parquet / "*.parquet", "--target", "recid", "--model", "cg",
                   "--save", out)
    assert done.returncode == 0, done.stderr
    assert "hash folds" not in done.stdout    # 7,214 rows: the forms are probed, not validated
    X, y = compas
    est = BooleanRuleCGClassifier().fit(stream.Files(str(parquet / "*.parquet"),
                                                     target="recid"))
    accuracy = float(done.stdout.split("training accuracy: ")[1].split()[0])
    assert accuracy == pytest.approx(est.score(X, y), abs=1e-4)
    # the certificate of the fit from files, recounted on the rows in memory
    cert = est.certificate_
    assert cert.n == len(y) and cert.lower_bound <= cert.objective
    loss, counts = rule_set_losses(est, X, y)
    assert cert.objective == pytest.approx(loss / len(y), abs=1e-12)
    assert [(est.model_.counts_true, est.model_.counts_false)] == counts
    assert np.array_equal(load(out).predict(X), est.predict(X))


@pytest.mark.slow
def test_the_command_line_counts_on_a_dask_scheduler(parquet):
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=40)
    with cluster:
        remote = run_cli("fit", parquet / "*.parquet", "--target", "recid", "--model", "corels",
                         "--scheduler", cluster.scheduler_address)
    assert remote.returncode == 0, remote.stderr
    local = run_cli("fit", parquet / "*.parquet", "--target", "recid", "--model", "corels")
    assert local.returncode == 0, local.stderr
    # the same rows, counted on the workers or here: the same model and certificate
    assert remote.stdout == local.stdout
    assert "optimal" in remote.stdout


@pytest.mark.parametrize("splits", [None, "one", "each"])
def test_counts_become_the_rows_distinct_would_fold(splits):
    """fitdata_from_counts folds the parts of a counted row the splits treat alike, and
    nothing else: the same FitData as cutting every row by fold and calling distinct()."""
    from rulekit._fitdata import FitData
    from rulekit.estimators.sources import fitdata_from_counts

    rng = np.random.default_rng(4)
    n_folds = 5
    frame = pd.DataFrame({"a": rng.integers(0, 6, 600), "b": rng.choice(list("xyz"), 600)})
    frame["label"] = (frame.a + rng.integers(0, 3, 600) > 4).astype(int)
    counts = stream.count(frame, "label", n_folds=n_folds)
    if splits == "one":
        held = np.zeros((n_folds, 1), bool)
        held[0, 0] = True
    elif splits == "each":
        held = np.eye(n_folds, dtype=bool)
    else:
        held = None
    got = fitdata_from_counts(counts, {}, held)
    if held is None:
        np.testing.assert_array_equal(got.count, counts.weight)
        return
    row, fold = np.nonzero(counts.fold_counts)
    expected = FitData(params={}, classes=counts.classes, n_features_in=2, feature_names_in=None,
                       binarizer=counts.binarizer, B=counts.B[row], y=counts.y[row],
                       count=counts.fold_counts[row, fold].astype(np.int64),
                       tested=held[fold]).distinct()
    for name in ("B", "y", "count", "tested"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)
    assert got.n_samples == counts.n_rows


def _fold_spies(monkeypatch):
    """Lists of the folds each fit counts and of the keys rows are hashed with."""
    import rulekit.base as base

    folds, hashed = [], []
    real_count, real_hash = base.count_source, stream._row_hash
    monkeypatch.setattr(base, "count_source",
                        lambda *a, **k: folds.append(k["n_folds"]) or real_count(*a, **k))
    monkeypatch.setattr(stream, "_row_hash",
                        lambda frame_, key: hashed.append(key) or real_hash(frame_, key))
    return folds, hashed


def _check_folds(cases, frame, folds, hashed):
    for est, want in cases:
        folds.clear()
        hashed.clear()
        est.fit(stream.Chunks(lambda: [frame.iloc[:2500], frame.iloc[2500:]], target="recid"))
        assert folds == [want], type(est).__name__
        # pass 1 hashes each chunk for its sample; pass 2 hashes for folds only if any
        assert len(hashed) == (2 if want == 1 else 4), (type(est).__name__, hashed)


def test_a_learner_that_validates_nothing_counts_one_fold(compas, monkeypatch):
    """No row is hashed to a fold when the parameters validate nothing, and the
    model is the one fitted from counts of five folds."""
    X, y = compas
    frame = X.assign(recid=y).iloc[:4000]
    folds, hashed = _fold_spies(monkeypatch)
    _check_folds([(FallingRuleListClassifier(), 1), (CorelsClassifier(c=0.01), 1),
                  (BooleanRuleCGClassifier(form="dnf", max_complexity=10), 1)],
                 frame, folds, hashed)
    source = stream.Chunks(lambda: [frame], target="recid")
    for make in (FallingRuleListClassifier, lambda: CorelsClassifier(c=0.01)):
        a = make().fit(source)
        with monkeypatch.context() as m:
            m.setattr(type(a), "_may_validate", lambda self, params: True)
            folds.clear()
            b = make().fit(source)
            assert folds == [5]
        assert str(a.model_) == str(b.model_)
        assert a.certificate_.objective == b.certificate_.objective


@pytest.mark.slow   # the default CORELS and column generation validate (c path, budgets)
def test_a_learner_that_may_validate_counts_five_folds(compas, monkeypatch):
    X, y = compas
    frame = X.assign(recid=y).iloc[:4000]
    folds, hashed = _fold_spies(monkeypatch)
    _check_folds([(CorelsClassifier(), 5), (BooleanRuleCGClassifier(max_complexity=10), 5)],
                 frame, folds, hashed)
    # counts given in one fold hold nothing out, even for a learner that could validate
    one = stream.count(frame, "recid", n_folds=1)
    assert one.fold_counts.shape[1] == 1
    assert CorelsClassifier().fit(one).score(X.iloc[:4000], y.iloc[:4000]) > 0.6
