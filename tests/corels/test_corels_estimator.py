"""CorelsClassifier: the thin sklearn wrapper around the engine."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from corels_testutils import brute_force
from helpers import sklearn_checks
from rulekit.corels import CorelsClassifier, search
from rulekit.models import RuleList


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 70, n),
        "priors": rng.poisson(2, n),
        "sex": rng.choice(["F", "M"], n),
    })
    logit = -1.0 + 0.5 * (X["priors"] > 3) + 1.0 * (X["age"] < 25) + 0.3 * (X["sex"] == "M")
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    return X, y


def test_fit_matches_engine_and_brute_force():
    X, y = _frame()
    clf = CorelsClassifier(c=0.02, max_card=1).fit(X, y)
    assert isinstance(clf.model_, RuleList)
    assert clf.is_optimal_ and clf.lower_bound_ == clf.objective_
    A = clf.antecedents_.matrix
    codes = np.searchsorted(clf.classes_, y)
    mistakes, prefix = brute_force(A, codes, 0.02, max_len=3) if A.shape[1] <= 12 else (None, None)
    r = search(A, codes, 0.02)
    assert clf.result_.prefix == r.prefix
    if mistakes is not None and len(prefix) < 3:
        assert (r.mistakes, r.prefix) == (mistakes, prefix)
    assert len(clf.model_) == len(r.prefix)
    # the model reproduces the engine's training mistakes
    pred = clf.predict(X)
    assert int((pred != y).sum()) == clf.result_.mistakes
    assert clf.objective_ == pytest.approx(clf.result_.mistakes / len(y) + 0.02 * len(r.prefix))
    proba = clf.predict_proba(X)
    assert proba.shape == (len(y), 2) and np.allclose(proba.sum(axis=1), 1)
    assert set(clf.stats_) >= {"nodes_expanded", "pruned"} and "lower_bound" in clf.trace_


def test_min_support_none_means_c():
    X, y = _frame()
    clf = CorelsClassifier(c=0.1, max_card=2).fit(X, y)
    assert clf.antecedents_.support.min() >= 0.1 * len(y)
    clf2 = CorelsClassifier(c=0.1, max_card=2, min_support=0.3).fit(X, y)
    assert clf2.antecedents_.support.min() >= 0.3 * len(y)
    assert clf2.objective_ >= clf.objective_ - 1e-12


def test_limit_warns_with_gap():
    X, y = _frame(n=400, seed=3)
    with pytest.warns(ConvergenceWarning, match="gap"):
        clf = CorelsClassifier(c=0.001, max_nodes=1).fit(X, y)
    assert not clf.is_optimal_
    assert clf.result_.status == "node_limit"
    assert clf.lower_bound_ <= clf.objective_


def test_no_warning_when_certified():
    X, y = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        CorelsClassifier(c=0.05).fit(X, y)


def test_verbose_progress_bar(capsys):
    rng = np.random.default_rng(0)
    X = rng.random((2000, 12))
    y = (rng.random(2000) < 0.45).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        CorelsClassifier(c=0.0005, max_card=1, verbose=1, time_limit=0.5).fit(X, y)
    err = capsys.readouterr().err
    assert "CORELS" in err and "nodes" in err and "bound" in err


@pytest.mark.parametrize("params, error", [
    ({"c": -1.0}, ValueError),
    ({"policy": "random"}, ValueError),
    ({"symmetry": "perm"}, ValueError),
    ({"max_nodes": 0}, ValueError),
    ({"max_card": 0}, ValueError),
    ({"time_limit": 0}, ValueError),
    ({"min_support": 1.5}, ValueError),
])
def test_bad_parameters(params, error):
    X, y = _frame(n=50)
    with pytest.raises(error):
        CorelsClassifier(**params).fit(X, y)


@sklearn_checks(CorelsClassifier(c=0.05, max_card=1, time_limit=10))
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)
