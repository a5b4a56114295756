"""Column generation fits files, chunks, counts and dask frames (issue 35).

Claims tested here:

* the counts of two binarizations stacked side by side project onto the
  counts of each one alone (the finer view of ``n_thresholds="auto"`` is
  counted in the same pass as the deciles);
* with the form, the budget and the thresholds fixed (nothing validated), a
  fit from chunks, files or counts is the same model and certificate whatever
  the chunking, and it is the in-memory fit of the same rows put in the order
  of the count table (column generation meets the distinct rows in order,
  and its ties between rule sets of equal objective follow that order);
* at the defaults, from a source, the fit validates on the hash folds, its
  certificate is honest (the objective is the model's mistakes counted on the
  rows in memory, the bound below it), its binarizers are those of the rows in
  memory, and the printed training counts are those of ``predict``;
* on dask (a ``LocalCluster`` of two worker processes, slow lane) the default
  fit is the fit from the same rows' files;
* what cannot be read from a source says what to do.
"""

import numpy as np
import pandas as pd
import pytest

from rulekit import Binarizer, BooleanRuleCGClassifier, stream
from rulekit.estimators.colgen import RESOLUTIONS
from rulekit.estimators.sources import Stacked

from helpers import rule_set_losses


def _frame(n, seed, classes=2):
    """A numeric column with many values (so 19 thresholds differ from 9), a small
    integer, a category with missing values, and a noisy label."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 30, n), "c": rng.normal(size=n).round(2),
                      "b": rng.choice(["u", "v", "w", None], n, p=[0.4, 0.3, 0.25, 0.05])})
    if classes == 2:
        label = np.where((X["a"] > 13) & (X["c"] > 0.4), "yes", "no")
        label = np.where(rng.random(n) < 0.06, np.where(label == "yes", "no", "yes"), label)
    else:
        label = np.where(X["a"] > 18, "hi", np.where(X["c"] > 0.3, "mid", "lo"))
        flip = rng.random(n) < 0.08
        label[flip] = rng.choice(["hi", "mid", "lo"], int(flip.sum()))
    return X, pd.Series(label, name="t")


def _chunks(X, y, size, order=None):
    frame = X.assign(t=y)
    if order is not None:
        frame = frame.iloc[order]
    return stream.Chunks(lambda: (frame.iloc[i:i + size] for i in range(0, len(frame), size)),
                         target="t")


def _files(X, y, where, cuts):
    frame = X.assign(t=y)
    for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
        frame.iloc[a:b].to_parquet(where / f"part{i}.parquet")
    return stream.Files(str(where / "*.parquet"), target="t")


def _same(a, b):
    assert str(a.model_) == str(b.model_)
    ca, cb = a.certificate_, b.certificate_
    assert (ca.status, ca.scope) == (cb.status, cb.scope)
    # exact on counts; with class weights a pair's weight is count x factor from a
    # source and the factor added count times in memory, which may differ in the last bit
    assert ca.n == pytest.approx(cb.n, rel=1e-12, abs=0)
    assert ca.objective == pytest.approx(cb.objective, rel=1e-12, abs=0)
    assert ca.lower_bound == pytest.approx(cb.lower_bound, rel=1e-12, abs=0)
    assert a.binarizer_.conditions_ == b.binarizer_.conditions_


def _table_order(est, X, y):
    """The rows in the order of the count table: their (packed pattern, class code) keys in
    the table's canonical order (a function of the set of keys, rulekit.stream)."""
    B = est.binarizer_.transform(X)
    codes = np.searchsorted(est.classes_, np.asarray(y))
    keys = np.concatenate([np.packbits(B, axis=1),
                           codes.astype(">u2").view(np.uint8).reshape(-1, 2)], axis=1)
    distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[stream.canonical_order(distinct)] = np.arange(len(distinct))
    return np.argsort(rank[inverse.ravel()], kind="stable")


def test_stacked_counts_project_onto_each_binarization():
    X, y = _frame(200, seed=1)
    coarse = Binarizer(n_thresholds=RESOLUTIONS[0], negations=True)
    fine = Binarizer(n_thresholds=RESOLUTIONS[1], negations=True)
    source = _chunks(X, y, 70)
    both = stream.count(source, binarizer=coarse, n_folds=5, fit=lambda summary, template: Stacked(
        stream.fit_binarizer(summary, coarse), stream.fit_binarizer(summary, fine)))
    assert isinstance(both.binarizer, Stacked)
    for i, template in enumerate((coarse, fine)):
        alone = stream.count(source, binarizer=template, n_folds=5)
        assert both.binarizer.parts[i].conditions_ == alone.binarizer.conditions_
        # regroup the projected rows: their counts, in total and per fold, add up
        block = both.binarizer.block(both.B, i)
        projected = {}
        for row, label, folds in zip(block, both.y, both.fold_counts):
            key = (row.tobytes(), int(label))
            projected[key] = projected.get(key, 0) + folds
        expected = {(row.tobytes(), int(label)): folds
                    for row, label, folds in zip(alone.B, alone.y, alone.fold_counts)}
        assert projected.keys() == expected.keys()
        assert all(np.array_equal(projected[k], expected[k]) for k in expected)
    # the finer conditions split some rows the deciles keep together
    assert len(both.y) > len(stream.count(source, binarizer=coarse, n_folds=5).y)


def test_a_small_fixed_fit_from_chunks_is_the_in_memory_fit_of_its_rows_in_table_order():
    """The fast lane's check: two fits of 150 rows."""
    X, y = _frame(150, seed=7)
    kw = dict(form="dnf", max_complexity=4, n_thresholds=4)
    est = BooleanRuleCGClassifier(**kw).fit(_chunks(X, y, 40))
    order = _table_order(est, X, y)
    _same(est, BooleanRuleCGClassifier(**kw).fit(X.iloc[order], y.iloc[order]))
    _check_honest(est, X, y)


@pytest.mark.slow   # five fits of each case
@pytest.mark.parametrize("classes, kw", [
    (2, dict(form="dnf", max_complexity=6, n_thresholds=9)),
    (2, dict(form="cnf", max_complexity=8, n_thresholds=5)),
    (3, dict(form="dnf", max_complexity=6, n_thresholds=9, class_weight="balanced")),
])
def test_a_fixed_form_and_budget_from_any_source_is_the_in_memory_fit(tmp_path, classes, kw):
    X, y = _frame(240 if classes == 2 else 300, seed=2, classes=classes)
    chunks = BooleanRuleCGClassifier(**kw).fit(_chunks(X, y, 70))
    reordered = BooleanRuleCGClassifier(**kw).fit(
        _chunks(X, y, 110, np.random.default_rng(0).permutation(len(y))))
    files = BooleanRuleCGClassifier(**kw).fit(_files(X, y, tmp_path, [0, 50, len(y)]))
    est = BooleanRuleCGClassifier(**kw)
    counts = stream.count(_chunks(X, y, 1000), binarizer=est._binarizer(est._check_params(), None))
    counted = est.fit(counts)
    for other in (reordered, files, counted):
        _same(chunks, other)
    order = _table_order(chunks, X, y)
    _same(chunks, BooleanRuleCGClassifier(**kw).fit(X.iloc[order], y.iloc[order]))
    assert chunks.certificate_.n == pytest.approx(len(y), rel=1e-12)
    assert "hash folds" not in chunks.certificate_.scope      # nothing was validated


def _check_honest(est, X, y):
    """The certificate and the printed counts, recounted on the rows in memory."""
    cert = est.certificate_
    assert cert.n == len(y)
    assert cert.lower_bound <= cert.objective + 1e-12
    B = est.binarizer_.transform(X)
    if len(est.classes_) == 2:
        # predict on the rows in memory: the positive class where the rule set holds
        assert np.array_equal(est.predict(X), np.where(est.model_.holds(B), *est.classes_[::-1]))
    members = [est.model_] if len(est.classes_) == 2 else est.model_.members
    loss, counts = rule_set_losses(est, X, y)
    assert [(m.counts_true, m.counts_false) for m in members] == counts
    # no penalties at the defaults: the objective is the Hamming loss per row
    assert cert.objective == pytest.approx(loss / len(y), abs=1e-12)
    if cert.status == "optimal":
        assert cert.lower_bound == pytest.approx(cert.objective, abs=1e-9)


@pytest.mark.slow   # four default fits (2 forms x 5 hash folds x 2 resolutions each)
def test_the_default_fit_from_a_source_validates_on_hash_folds_and_is_honest(tmp_path):
    X, y = _frame(400, seed=3)
    est = BooleanRuleCGClassifier().fit(_chunks(X, y, 150))
    _same(est, BooleanRuleCGClassifier().fit(_files(X, y, tmp_path, [0, 123, 300, len(y)])))
    _same(est, BooleanRuleCGClassifier().fit(
        _chunks(X, y, 64, np.random.default_rng(1).permutation(len(y)))))
    assert "5-fold validation on hash folds" in est.certificate_.scope
    assert est.n_thresholds_ in RESOLUTIONS
    # the binarizer of the resolution kept is the one Binarizer.fit gives on the rows
    assert est.binarizer_.conditions_ == Binarizer(
        n_thresholds=est.n_thresholds_, negations=True).fit(X).conditions_
    _check_honest(est, X, y)
    memory = BooleanRuleCGClassifier().fit(X, y)
    # other folds may choose another budget; both are fits of the same rows
    assert abs(est.score(X, y) - memory.score(X, y)) < 0.05


@pytest.mark.slow   # one default one-vs-rest fit from chunks, three validated problems
def test_the_default_multiclass_fit_from_a_source_is_honest():
    X, y = _frame(300, seed=4, classes=3)
    est = BooleanRuleCGClassifier().fit(_chunks(X, y, 100))
    assert len(est.model_.members) == 3 and est.n_thresholds_ == RESOLUTIONS[0]
    assert "hash folds" in est.certificate_.scope
    _check_honest(est, X, y)


@pytest.mark.slow   # counts given as such fix the conditions: the deciles' only
def test_counts_given_as_such_validate_on_their_own_conditions():
    X, y = _frame(300, seed=5)
    est = BooleanRuleCGClassifier()
    # docs/streaming.md: Binarizer(negations=True) is the estimator's default binarizer
    template = Binarizer(negations=True)
    assert template.get_params() == est._binarizer(est._check_params(), None).get_params()
    counts = stream.count(_chunks(X, y, 100), binarizer=template)
    est.fit(counts)
    assert est.binarizer_.conditions_ == counts.binarizer.conditions_
    assert est.n_thresholds_ == RESOLUTIONS[0]
    _check_honest(est, X, y)


def test_what_a_source_cannot_give_is_refused_with_what_to_do(tmp_path):
    X, y = _frame(60, seed=6)
    source = _files(X, y, tmp_path, [0, len(y)])
    with pytest.raises(ValueError, match="sample_weight"):
        BooleanRuleCGClassifier().fit(source, sample_weight=np.ones(len(y)))
    with pytest.raises(ValueError, match="y=None"):
        BooleanRuleCGClassifier().fit(source, y)
    counts = stream.count(source, n_folds=5)
    with pytest.raises(ValueError, match="y=None"):
        BooleanRuleCGClassifier().fit(counts, y)


@pytest.mark.slow   # a dask cluster: a scheduler and two worker processes
def test_a_dask_frame_on_a_local_cluster_fits_like_its_files(tmp_path):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    X, y = _frame(400, seed=3)
    files = BooleanRuleCGClassifier().fit(_files(X, y, tmp_path, [0, 200, len(y)]))
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=40)
    with cluster, Client(cluster) as client:
        est = BooleanRuleCGClassifier().fit(dd.from_pandas(X, npartitions=3),
                                            dd.from_pandas(y, npartitions=3))
        ran = client.run(lambda: "rulekit.stream" in __import__("sys").modules)
        lazy = est.predict(dd.from_pandas(X, npartitions=4))
        proba = est.predict_proba(dd.from_pandas(X, npartitions=4))
        assert type(lazy).__module__.startswith("dask")
        assert np.array_equal(lazy.compute().to_numpy(), est.predict(X))
        assert np.allclose(proba.compute().to_numpy(), est.predict_proba(X))
    assert len(ran) == 2 and any(ran.values())        # counted on the workers
    _same(est, files)
    _check_honest(est, X, y)


def test_a_sample_drawn_from_counts_weighs_whole_rows():
    """A validation sample drawn from per-fold counts takes whole rows: each pair's weight
    in each fold is the number of its rows taken, exactly (a share multiplied after the
    division, ``7 * (3 / 7)``, could miss it by a bit and break ties between forms)."""
    from rulekit.estimators.validation import binary_pairs, draw_design

    rng = np.random.default_rng(8)
    n = 12000                 # about 40 rows in each (pair, fold) cell
    B = rng.random((n, 5)) < 0.5
    y = (B[:, 0] & B[:, 1] | (rng.random(n) < 0.2)).astype(np.int64)
    fold = rng.integers(0, 5, n)
    pairs = binary_pairs(B, y, None, fold)
    design = draw_design(pairs, np.random.default_rng(0), forms=("dnf",), grid=(0, 3),
                         cv_max_rows=n, validation_rows=50)
    assert len(pairs.y) > 50 and design.kind == "cv" and design.sampled
    assert np.array_equal(design.T, np.round(design.T))
    assert np.array_equal(design.weight, design.T.sum(axis=1))
    assert abs(design.T.sum() - 50) <= 2             # about the rows asked for


def test_out_of_time_before_the_pairs_predicts_the_counted_majority(monkeypatch):
    """A counted fit whose time ran out before a binary problem's pairs were folded
    returns the constant rule set of the majority *of the rows*: here the positives
    are 600 copies of one row and the negatives 400 distinct rows, so a majority of
    distinct rows (each weighing one) would predict the wrong class."""
    import rulekit.estimators.colgen as est_module

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": np.r_[np.full(600, 1000.0), rng.permutation(400).astype(float)],
                      "b": np.r_[np.full(600, 7.0), rng.normal(size=400).round(3)]})
    y = np.r_[np.ones(600, int), np.zeros(400, int)]
    frame = X.assign(t=y)
    source = stream.Chunks(lambda: (frame.iloc[i:i + 300] for i in range(0, 1000, 300)),
                           target="t")
    monkeypatch.setattr(est_module, "stop_status", lambda: "time_limit")
    with pytest.warns(UserWarning):
        est = BooleanRuleCGClassifier().fit(source)
    assert est.certificate_.status == "time_limit"
    assert (est.predict(X) == 1).all()
