"""The estimators feed their binarizer the labels, the weights and the shared parameters."""

import warnings

import numpy as np
import pandas as pd
import pytest

from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     SoftFallingRuleListClassifier)
from rulekit.binarize import ESTIMATOR_PARAMETERS, Binarizer, DataWarning
from rulekit.datasets import load_compas
from test_base import OneRule

ESTIMATORS = [CorelsClassifier, FallingRuleListClassifier, SoftFallingRuleListClassifier,
              BooleanRuleCGClassifier]


class WeightedOneRule(OneRule):
    """The contract's test learner, taking sample weights (as column generation does)."""

    def fit(self, X, y, sample_weight=None):
        return self._fit(X, y, sample_weight)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_estimator_exposes_the_binarizer_parameters(cls):
    est = cls()
    for name in ESTIMATOR_PARAMETERS:
        if cls is BooleanRuleCGClassifier and name == "n_thresholds":
            # "auto": the Binarizer's default, and validation may try a finer one
            assert est.get_params()[name] == "auto"
            binarizer = est._binarizer(est._check_params(), 100)
            assert binarizer.n_thresholds == Binarizer().n_thresholds
            continue
        if cls is CorelsClassifier and name == "thresholds":
            # "auto": reference thresholds where an ensemble can be fitted, else quantiles
            assert est.get_params()[name] == "auto"
            assert set(cls._rulekit_parameters[name].values) == {"auto", "quantile",
                                                                     "reference"}
            continue
        assert est.get_params()[name] == Binarizer().get_params()[name]
        assert cls._rulekit_parameters[name] is Binarizer._rulekit_parameters[name]


def test_fit_passes_sample_weight_to_the_binarizer():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=60).round(2),
                      "c": rng.choice(["a", "b", "c", "d"], 60, p=[.5, .3, .17, .03])})
    y = (X["x"] > 0).astype(int).to_numpy()
    w = rng.integers(0, 4, 60)
    rows = np.repeat(np.arange(60), w)
    weighted = WeightedOneRule(min_frequency=0.05).fit(X, y, sample_weight=w)
    repeated = WeightedOneRule(min_frequency=0.05).fit(X.iloc[rows], y[rows])
    assert weighted.binarizer_.conditions_ == repeated.binarizer_.conditions_
    unweighted = WeightedOneRule(min_frequency=0.05).fit(X, y)
    assert weighted.binarizer_.conditions_ != unweighted.binarizer_.conditions_


def test_reference_thresholds_through_an_estimator():
    X, y = load_compas(return_X_y=True)
    X, y = X.iloc[::4], y.iloc[::4]
    ref = CorelsClassifier(c=0.01, max_card=1, thresholds="reference").fit(X, y)
    quant = CorelsClassifier(c=0.01, max_card=1, thresholds="quantile").fit(X, y)
    assert ref.binarizer_.thresholds == "reference"
    assert len(ref.binarizer_.conditions_) < len(quant.binarizer_.conditions_)
    assert ref.score(X, y) >= quant.score(X, y) - 0.02


def test_the_floor_can_be_turned_off_through_the_estimator():
    X, y = load_compas(return_X_y=True)
    X, y = X.iloc[::3], y.iloc[::3]
    names = lambda est: {str(c) for c in est.binarizer_.conditions_}  # noqa: E731
    default = CorelsClassifier(c=0.05, max_card=1, thresholds="quantile").fit(X, y)
    plain = CorelsClassifier(c=0.05, max_card=1, thresholds="quantile", min_frequency=None).fit(X, y)
    assert names(default) < names(plain)
    assert any("juv_misd_count" in n for n in names(plain) - names(default))


def test_unseen_category_handling_through_the_estimator():
    X = pd.DataFrame({"c": list("aabbcc") * 10, "x": np.arange(60) % 7})
    y = (X["c"] == "a").to_numpy()
    est = CorelsClassifier(c=0.01, max_card=1, handle_unknown="error").fit(X, y)
    with pytest.raises(ValueError, match="column 'c'.*zz"):
        est.predict(pd.DataFrame({"c": ["zz"], "x": [1]}))
    est.set_params(handle_unknown="ignore").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        est.predict(pd.DataFrame({"c": ["zz"], "x": [1]}))
