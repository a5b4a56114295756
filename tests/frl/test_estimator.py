"""The scikit-learn estimators FallingRuleListClassifier and
SoftFallingRuleListClassifier."""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning

import numpy as np
import pandas as pd
import pytest

from helpers import sklearn_checks
from rulekit.frl import FallingRuleListClassifier, SoftFallingRuleListClassifier, list_objective
from rulekit.models import RuleList


# sklearn's checks require predict == argmax(predict_proba), i.e. a threshold
# of 1/2.  Our predict thresholds at 1/(1+w) (cost-sensitive, by design), which
# is 1/2 exactly when w = 1: the API contract is checked there.
@sklearn_checks(FallingRuleListClassifier(w=1, n_iter=200),
                SoftFallingRuleListClassifier(w=1, n_iter=200))
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 80, n),
        "job": rng.choice(["a", "b", "c"], n),
        "score": rng.normal(size=n),
    })
    logit = -2 + 0.05 * (X["age"] - 18) + 1.5 * (X["job"] == "a") + X["score"]
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    return X, y


@pytest.mark.parametrize("cls", [FallingRuleListClassifier, SoftFallingRuleListClassifier])
def test_fit_model_is_falling_and_predicts_with_strict_threshold(cls):
    X, y = _frame()
    est = cls(w=3, n_iter=500, random_state=0).fit(X, y)
    assert isinstance(est.model_, RuleList)
    assert list(est.classes_) == ["no", "yes"] and est.positive_class_ == "yes"
    probs = est.model_.rule_probabilities()[:, 1]
    assert np.all(np.diff(probs) <= 0)                          # always falling
    assert probs == pytest.approx(est.probabilities_)
    proba = est.predict_proba(X)[:, 1]
    assert np.array_equal(est.predict(X), np.where(proba > 0.25, "yes", "no"))
    assert est.threshold_ == 0.25
    # the training counts shown by the model are the engine's (n+, n-)
    counts = [r.counts for r in [*est.model_.rules, est.model_.default]]
    assert [list(c[::-1]) for c in counts] == est.counts_.tolist()
    C1 = getattr(est, "C1", None)
    assert est.certificate_.objective == list_objective(est.counts_, 3.0, 1e-6, C1)
    assert "p(yes)" in str(est) and "yes:" in str(est)


def test_training_error_is_the_objective_risk():
    X, y = _frame(seed=3)
    est = FallingRuleListClassifier(w=5, n_iter=500, random_state=1).fit(X, y)
    pred = est.predict(X)
    loss = (5 * np.sum((y == "yes") & (pred == "no")) + np.sum((y == "no") & (pred == "yes"))) / len(y)
    assert loss == pytest.approx(est.risk_, abs=1e-12)


def test_pos_label_picks_the_positive_class():
    X, y = _frame(seed=4)
    est = FallingRuleListClassifier(w=2, n_iter=300, pos_label="no", random_state=0).fit(X, y)
    assert est.positive_class_ == "no"
    p_no = est.predict_proba(X)[:, 0]
    # stated probabilities of "no" fall down the list
    assert np.all(np.diff(est.model_.rule_probabilities()[:, 0]) <= 0)
    assert np.array_equal(est.predict(X), np.where(p_no > 1 / 3, "no", "yes"))
    with pytest.raises(ValueError, match="pos_label"):
        FallingRuleListClassifier(pos_label="maybe", n_iter=5).fit(X, y)


def test_soft_states_running_minimum():
    X, y = _frame(seed=5)
    est = SoftFallingRuleListClassifier(w=3, C1=0.01, n_iter=800, random_state=0).fit(X, y)
    assert est.probabilities_ == pytest.approx(np.minimum.accumulate(est.positive_proportions_))


def test_bad_input():
    X, y = _frame(n=60)
    with pytest.raises(ValueError, match="classes"):
        FallingRuleListClassifier(n_iter=5).fit(X, np.array(["a", "b", "c"] * 20))
    with pytest.raises(ValueError, match="one class"):
        FallingRuleListClassifier(n_iter=5).fit(X, np.array(["a"] * 60))
    for kwargs, name in [(dict(w=0), "w"), (dict(C=-1), "C"), (dict(n_iter=0), "n_iter")]:
        with pytest.raises(ValueError, match=name):
            FallingRuleListClassifier(**kwargs).fit(X, y)
    with pytest.raises(ValueError, match="C1"):
        SoftFallingRuleListClassifier(C1=-0.5, n_iter=5).fit(X, y)


def test_no_antecedent_warns_and_gives_else_only():
    # every threshold condition on x leaves out part of each class
    X = pd.DataFrame({"x": np.arange(40.0)})
    y = np.where(np.arange(40) % 4 == 0, "yes", "no")
    with pytest.warns(UserWarning, match="min_support"):
        est = FallingRuleListClassifier(min_support=1.0, n_iter=5).fit(X, y)
    assert len(est.model_) == 0
    assert est.probabilities_ == pytest.approx([0.25])
    assert np.all(est.predict(X) == "yes")          # 0.25 > 1/(1+7)


def test_time_limit_status():
    X, y = _frame(n=400)
    with pytest.warns(ConvergenceWarning, match="time_limit.*raise time_limit"):
        est = FallingRuleListClassifier(n_iter=10**8, time_limit=0.2, random_state=0).fit(X, y)
    assert est.certificate_.status == "time_limit"
    assert est.certificate_.lower_bound is None


def test_verbose_logs_progress(caplog):
    X, y = _frame(n=200)
    with caplog.at_level("INFO", logger="rulekit.frl._estimator"):
        FallingRuleListClassifier(n_iter=3000, verbose=1, random_state=0).fit(X, y)
    assert any("best objective" in r.message for r in caplog.records)
    caplog.clear()
    with caplog.at_level("INFO", logger="rulekit.frl._estimator"):
        FallingRuleListClassifier(n_iter=3000, verbose=0, random_state=0).fit(X, y)
    assert not caplog.records
