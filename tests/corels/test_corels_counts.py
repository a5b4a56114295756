"""CorelsClassifier searches distinct rows weighted by their counts (issue 35, item 1).

The estimator folds identical ``(conditions, class, validation split)`` rows
into one before it mines and searches.  Claims tested here:

* the fit on folded rows is the fit on the rows: the same list, ``c``, the
  same certificate and the same selection table, at every default (the
  validation splits are drawn on the rows before folding);
* ``sample_weight`` (whole numbers) is the same as repeating rows, where no
  validation decides (a fixed ``c``), and the optimum is the brute-force one
  written from the paper's objective with weighted counts;
* what the fit reports per row (rule counts, ``rashomon_set``, the explorer's
  training-data check) is still about the rows.
"""

import numpy as np
import pandas as pd
import pytest

from rulekit import CorelsClassifier
from rulekit.datasets import load_dataset

from helpers import seeds
from test_corels_weights import weighted_brute_force


class RowByRow(CorelsClassifier):
    """The estimator as it was: every training row searched as a row of its own."""

    _on_counts = False


def _duplicated_frame(seed, n=600):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 4, n), "b": rng.integers(0, 3, n),
                      "c": rng.choice(["x", "y", "z"], n)})
    y = ((X["a"] >= 2) ^ (rng.random(n) < 0.15)) | ((X["c"] == "z") & (X["b"] == 0))
    return X, y.astype(int).to_numpy()


def _same_fit(a, b):
    assert str(a.model_) == str(b.model_)
    assert a.c_ == b.c_ and a.max_card_ == b.max_card_
    ca, cb = a.certificate_, b.certificate_
    assert (ca.status, ca.objective, ca.lower_bound, ca.scope, ca.n) == \
           (cb.status, cb.objective, cb.lower_bound, cb.scope, cb.n)
    if a.selection_ is not None:
        pd.testing.assert_frame_equal(a.selection_.table(), b.selection_.table())
    assert np.array_equal(a.predict_proba(a._X_seen), b.predict_proba(a._X_seen))


def _fit(cls, X, y, **kw):
    est = cls(**kw).fit(X, y)
    est._X_seen = X
    return est


@pytest.mark.parametrize("seed", seeds(3, fast=1))
def test_folded_rows_give_the_row_by_row_fit_at_every_default(seed):
    X, y = _duplicated_frame(seed)
    folded, rows = _fit(CorelsClassifier, X, y), _fit(RowByRow, X, y)
    assert len(np.unique(X.to_numpy().astype(str), axis=0)) < len(X) / 5   # really folded
    _same_fit(folded, rows)


@pytest.mark.slow   # three default fits twice over: benchmark-size work
@pytest.mark.parametrize("name", ["tictactoe", "heart", "monks"])
def test_folded_rows_give_the_row_by_row_fit_on_benchmark_sets(name):
    data = load_dataset(name)
    _same_fit(_fit(CorelsClassifier, data.data, data.target),
              _fit(RowByRow, data.data, data.target))


def test_whole_number_weights_are_repeated_rows_with_a_fixed_c():
    X, y = _duplicated_frame(5, n=200)
    w = np.random.default_rng(5).integers(0, 4, len(y))
    w[:2] = 1                                     # keep both classes
    weighted = CorelsClassifier(c=0.01, max_card=1).fit(X, y, sample_weight=w)
    keep = np.repeat(np.arange(len(y)), w)
    repeated = CorelsClassifier(c=0.01, max_card=1).fit(X.iloc[keep], y[keep])
    assert str(weighted.model_) == str(repeated.model_)
    cw, cr = weighted.certificate_, repeated.certificate_
    assert (cw.status, cw.objective, cw.lower_bound, cw.n) == \
           (cr.status, cr.objective, cr.lower_bound, cr.n)
    assert cw.n == int(w.sum())


def test_weighted_fit_is_the_brute_force_optimum():
    """The paper's objective with weighted counts, in exact fractions, over every list."""
    rng = np.random.default_rng(11)
    n = 40
    X = pd.DataFrame({"a": rng.integers(0, 2, n), "b": rng.integers(0, 2, n),
                      "c": rng.integers(0, 2, n)})
    y = (X["a"].to_numpy() ^ (rng.random(n) < 0.2)).astype(int)
    w = rng.integers(1, 5, n)
    est = CorelsClassifier(c=0.02, max_card=1, n_thresholds=1).fit(X, y, sample_weight=w)
    A = est.antecedents_.transform(est.binarizer_.transform(X))
    objective, *_ = weighted_brute_force(A, y, w, 0.02)
    assert est.certificate_.status == "optimal"
    assert est.certificate_.objective == pytest.approx(float(objective), abs=1e-12)


def test_rule_counts_are_rows_after_folding():
    X, y = _duplicated_frame(2)
    est = CorelsClassifier().fit(X, y)
    counted = sum(sum(rule.counts) for rule in [*est.model_.rules, est.model_.default])
    assert counted == len(y)


@pytest.mark.parametrize("weights", [[0.5], [-1], [np.nan]])
def test_fractional_or_negative_weights_name_sample_weight(weights):
    X, y = _duplicated_frame(1, n=50)
    w = np.ones(len(y))
    w[3] = weights[0]
    with pytest.raises(ValueError, match="sample_weight"):
        CorelsClassifier(c=0.01).fit(X, y, sample_weight=w)


def test_rashomon_set_after_a_folded_fit_is_the_row_by_row_one():
    X, y = _duplicated_frame(4, n=300)
    a = CorelsClassifier(c=0.02, max_card=1).fit(X, y)
    b = RowByRow(c=0.02, max_card=1).fit(X, y)
    sa, sb = a.rashomon_set(0.02), b.rashomon_set(0.02)
    assert len(sa) == len(sb)
    assert np.array_equal(sa.objectives, sb.objectives)
    assert [str(m) for m in sa] == [str(m) for m in sb]


def test_the_explorer_knows_its_training_data_after_folding():
    from rulekit.explore._build import build_payload

    X, y = _duplicated_frame(6, n=300)
    est = CorelsClassifier(c=0.02, max_card=1).fit(X, y)
    assert build_payload(est, X, y)["corels"]["same_data"] is True
    assert build_payload(est, X.iloc[:-1], y[:-1])["corels"]["same_data"] is False
    flipped = y.copy()
    flipped[0] = 1 - flipped[0]
    assert build_payload(est, X, flipped)["corels"]["same_data"] is False
    # a weighted fit keeps its rows folded: its training data are the rows repeated,
    # in any order
    w = np.random.default_rng(1).integers(1, 3, len(y))
    weighted = CorelsClassifier(c=0.02, max_card=1).fit(X, y, sample_weight=w)
    copies = np.random.default_rng(0).permutation(np.repeat(np.arange(len(y)), w))
    assert build_payload(weighted, X.iloc[copies], y[copies])["corels"]["same_data"] is True
    assert build_payload(weighted, X, y)["corels"]["same_data"] is False
