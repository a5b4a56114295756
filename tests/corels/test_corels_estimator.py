"""CorelsClassifier: the sklearn contract, the certificate, and its promises."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from corels_testutils import brute_force
from helpers import sklearn_checks
from rulekit import CorelsClassifier, RuleList
from rulekit.datasets import load_compas


@sklearn_checks(CorelsClassifier())
def test_sklearn_compatible(estimator, check):
    check(estimator)


def small_frame(seed=0, n=120):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 70, n),
        "priors": rng.poisson(2, n),
        "sex": rng.choice(["F", "M"], n),
        "charge": rng.choice(["F", "M", "O"], n),
    })
    logit = -1 + 0.6 * X["priors"] - 0.04 * (X["age"] - 40) + (X["sex"] == "M")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y


@pytest.mark.parametrize("seed", range(4))
def test_estimator_optimum_matches_brute_force_over_its_antecedents(seed):
    X, y = small_frame(seed)
    # c large enough that the independent brute force (plain Python) stays fast
    est = CorelsClassifier(c=0.1, max_card=1, n_thresholds=2).fit(X, y)
    # the antecedents on the training rows (the fit searched them folded into distinct rows)
    A = est.antecedents_.transform(est.binarizer_.transform(X))
    mistakes, _ = brute_force(A, y, 0.1)
    cert = est.certificate_
    assert cert.status == "optimal" and cert.proved_optimal
    assert cert.objective == pytest.approx(mistakes / len(y) + 0.1 * len(est.model_))
    # the printed model reproduces the certified objective on the training data
    train_mistakes = int((est.predict(X) != y).sum())
    assert train_mistakes == mistakes
    assert cert.lower_bound == pytest.approx(cert.objective) and cert.gap == 0


@pytest.mark.parametrize("seed", range(3))
def test_mining_at_c_loses_no_optimal_antecedent(seed):
    # theorem min-capture: mining at support c (the default) certifies the same
    # optimum as mining every antecedent that occurs at all
    X, y = small_frame(seed, n=90)
    c = 0.04
    default = CorelsClassifier(c=c, max_card=2, n_thresholds=3).fit(X, y)
    everything = CorelsClassifier(c=c, max_card=2, n_thresholds=3, min_support=1 / 90).fit(X, y)
    assert len(everything.antecedents_) >= len(default.antecedents_)
    assert default.certificate_.objective == pytest.approx(everything.certificate_.objective,
                                                           abs=1e-12)
    assert default.certificate_.status == "optimal"
    assert default.certificate_.scope.startswith("all rule lists whose rules are conjunctions of up to 2")


def test_fitted_attributes_and_certificate():
    X, y = small_frame(1)
    est = CorelsClassifier(c=0.02, max_card=2, n_thresholds=3, min_support=0.2).fit(X, y)
    assert isinstance(est.model_, RuleList)
    # mined above c: optimal only over what was mined, and the certificate says so
    assert est.result_.status == "optimal"
    assert est.certificate_.status == "optimal_relative" and est.certificate_.proved_optimal
    assert set(est.certificate_.to_dict()) == {"status", "objective", "lower_bound", "gap",
                                                "scope", "proved_optimal", "n", "unit"}
    assert est.certificate_.n == len(y) and est.certificate_.unit == "rows"
    assert "antecedents mined at min_support=0.2" in est.certificate_.scope
    assert est.stats_["nodes_evaluated"] >= 1
    assert len(est.trace_["time"]) >= 1
    # predict_proba comes from each rule's training counts
    proba = est.predict_proba(X)
    fired = est.model_.apply(est.binarizer_.transform(X))
    for k, rule in enumerate([*est.model_.rules, est.model_.default]):
        counts = np.asarray(rule.counts, dtype=float)
        if (fired == k).any():
            assert np.allclose(proba[fired == k], counts / counts.sum())


def test_limit_warns_once_with_the_gap():
    X, y = load_compas(return_X_y=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = CorelsClassifier(c=0.001, max_nodes=2000).fit(X, y)
    conv = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(conv) == 1 and "gap" in str(conv[0].message)
    cert = est.certificate_
    assert not cert.proved_optimal and cert.status == "node_limit"
    assert cert.lower_bound <= cert.objective and cert.gap > 0
    assert est.score(X, y) > 0.6  # the best list so far is still a real model


def test_multiclass_and_string_labels():
    X, y = small_frame(2)
    labels = np.array(["low", "mid", "high"])[(X["priors"].clip(0, 4) // 2).to_numpy()]
    est = CorelsClassifier(c=0.01, max_card=1, n_thresholds=4).fit(X, labels)
    assert set(est.classes_) == {"high", "low", "mid"}
    assert est.score(X, labels) > 0.9
    assert set(np.unique(est.predict(X))) <= set(labels)


def test_huge_c_gives_the_certified_empty_list():
    X, y = small_frame(3)
    est = CorelsClassifier(c=0.9).fit(X, y)
    assert len(est.model_) == 0 and est.certificate_.proved_optimal
    assert est.model_.default.prediction == np.bincount(y).argmax()


@pytest.mark.parametrize("params,error", [
    ({"c": -0.1}, ValueError), ({"c": "a"}, ValueError), ({"c": [0.1]}, TypeError),
    ({"max_card": "many"}, ValueError), ({"max_work": 0}, ValueError),
    ({"thresholds": "deciles"}, ValueError), ({"max_nodes": 0}, ValueError),
    ({"min_support": 2.0}, ValueError), ({"max_card": 0}, ValueError), ({"policy": "random"}, ValueError),
    ({"symmetry": "mirror"}, ValueError), ({"time_limit": -1}, ValueError),
    ({"max_memory": 0}, ValueError), ({"max_memory": "big"}, ValueError),
    ({"reference": "forest"}, ValueError), ({"reference": 3}, TypeError),
    ({"bounds": ["lookahead", "magic"]}, ValueError), ({"bounds": 7}, TypeError),
])
def test_bad_parameters(params, error):
    X, y = small_frame(0, n=40)
    with pytest.raises(error):
        CorelsClassifier(**params).fit(X, y)


def test_memory_limit_warns_once_with_the_gap():
    X, y = load_compas(return_X_y=True)
    probe = CorelsClassifier(c=0.002, max_card=2, n_thresholds=4)
    # max_memory counts the antecedents while they are mined, then the matrix held during
    # the search and the search's arrays: each step below it names the amount it needs
    floor = 0.01
    for _ in range(3):
        try:
            probe.set_params(max_memory=floor).fit(X, y)
        except ValueError as exc:
            assert "max_memory" in str(exc)
            floor = float(str(exc).rsplit("at least ", 1)[1])
            continue
        break
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = probe.set_params(max_memory=floor + 0.5).fit(X, y)
    conv = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(conv) == 1
    message = str(conv[0].message)
    assert "memory_limit" in message and "gap" in message and "max_memory" in message
    cert = est.certificate_
    assert cert.status == "memory_limit" and 0 < cert.gap == pytest.approx(
        cert.objective - cert.lower_bound)
    held_mb = est.antecedents_.matrix.size / 2**20
    assert est.stats_["memory_mb"] <= floor + 0.5 - held_mb + 1e-9
    assert est.score(X, y) > 0.6


def test_reference_gbdt_certifies_relative_to_it():
    X, y = small_frame(4, n=200)
    est = CorelsClassifier(c=0.01, max_card=1, n_thresholds=3, reference="gbdt").fit(X, y)
    exact = CorelsClassifier(c=0.01, max_card=1, n_thresholds=3).fit(X, y)
    cert = est.certificate_
    assert cert.status == "optimal_relative" and cert.proved_optimal
    assert "reference model ('gbdt')" in cert.scope
    # the exact optimum is never worse than the relative one
    assert exact.certificate_.status == "optimal"
    assert exact.certificate_.objective <= cert.objective + 1e-12


def test_reference_that_cannot_be_fitted_is_a_clear_error():
    from sklearn.linear_model import LogisticRegression

    X, y = small_frame(0, n=60)
    est = CorelsClassifier(c=0.05, max_card=1, n_thresholds=2, reference=LogisticRegression(C=-1.0))
    with pytest.raises(ValueError, match="reference model .* could not be fitted"):
        est.fit(X, y)
    # nothing lost: the same estimator fits once the reference is dropped
    assert est.set_params(reference=None).fit(X, y).certificate_.proved_optimal


def test_verbose_shows_a_readable_progress_bar(capsys):
    X, y = small_frame(5, n=300)
    CorelsClassifier(c=0.02, max_card=2, n_thresholds=4, verbose=1).fit(X, y)
    err = capsys.readouterr().err
    for field in ("nodes", "best=", "bound=", "gap=", "mem="):
        assert field in err
