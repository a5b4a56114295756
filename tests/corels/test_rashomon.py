"""The Rashomon set of rule lists against brute-force enumeration with exact fractions.

The oracle is written here from the paper's objective (Angelino et al., JMLR
2018, section 2): a list is an ordered tuple of distinct antecedents, each rule
predicts the majority class of the samples it captures (those not captured by
earlier rules), the default rule the majority of the rest, and
``R = mistakes / N + c K``.  Lists with a rule that captures nothing are not
models of their own and are left out.
"""

from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest

from helpers import feature_shares, seeds
from rulekit.corels import rashomon


def _objective(A, y, prefix, c):
    """Exact objective of one list, or None when a rule captures nothing."""
    n = len(y)
    left = np.ones(n, dtype=bool)
    mistakes = 0
    for a in prefix:
        cap = left & A[:, a]
        if not cap.any():
            return None
        mistakes += int(cap.sum()) - int(np.bincount(y[cap]).max())
        left &= ~cap
    if left.any():
        mistakes += int(left.sum()) - int(np.bincount(y[left]).max())
    return Fraction(mistakes, n) + c * len(prefix)


def brute_force(A, y, c, eps, max_len):
    scored = {}
    for k in range(max_len + 1):
        for prefix in permutations(range(A.shape[1]), k):
            r = _objective(A, y, prefix, c)
            if r is not None:
                scored[prefix] = r
    best = min(scored.values())
    return best, {p: r for p, r in scored.items() if r <= best + eps}


def _instance(seed, n=36, m=6, classes=2):
    rng = np.random.default_rng(seed)
    A = rng.random((n, m)) < rng.uniform(0.2, 0.6)
    y = rng.integers(0, classes, size=n)
    return A, y


def _planted(seed, n=48, m=5):
    """Labels from a hidden three-rule list with 10% noise: deep lists pay off."""
    rng = np.random.default_rng(100 + seed)
    A = rng.random((n, m)) < rng.uniform(0.3, 0.5)
    y = np.where(A[:, 0], 1, np.where(A[:, 1], 0, np.where(A[:, 2], 1, 0)))
    flip = rng.random(n) < 0.1
    return A, np.where(flip, 1 - y, y), rng


@pytest.mark.parametrize("seed", seeds(10, fast=3))
@pytest.mark.parametrize("c,eps", [(Fraction(1, 20), Fraction(1, 20)),
                                   (Fraction(1, 25), Fraction(1, 50)),
                                   (Fraction(1, 10), Fraction(0)),
                                   (Fraction(1, 50), Fraction(1, 10))])
def test_set_equals_brute_force(seed, c, eps):
    A, y = _instance(seed, classes=2 + seed % 2)
    # no list of the set can have more rules than (R* + eps) / c <= (1 + eps) / c
    best, expected = brute_force(A, y, c, eps, max_len=min(A.shape[1], int((1 + eps) / c)))
    r = rashomon(A, y, float(c), float(eps))
    assert r.status == "optimal" and r.complete
    assert r.optimum == pytest.approx(float(best))
    got = list(r.prefixes)
    assert len(got) == len(set(got)) == len(r)
    assert set(got) == set(expected)
    for p, obj in zip(got, r.objectives):
        assert obj == pytest.approx(float(expected[p]), abs=1e-12)
    assert np.all(np.diff(r.objectives) >= 0)


@pytest.mark.parametrize("seed", range(6))
def test_set_equals_brute_force_when_long_lists_pay(seed):
    A, y, _ = _planted(seed, n=60, m=6)
    c, eps = Fraction(1, 60), Fraction(1, 30)
    best, expected = brute_force(A, y, c, eps, max_len=6)
    r = rashomon(A, y, float(c), float(eps))
    assert r.complete and set(r.prefixes) == set(expected)
    assert max(len(p) for p in expected) >= 3


def test_epsilon_zero_keeps_every_optimal_list_and_nothing_else():
    # two antecedents that capture the same samples give two optimal lists
    A, y = _instance(3)
    A = np.column_stack([A, A[:, 0]])
    best, expected = brute_force(A, y, Fraction(1, 20), Fraction(0), max_len=4)
    r = rashomon(A, y, 0.05, 0.0)
    assert set(r.prefixes) == set(expected)
    assert all(v == best for v in expected.values())


def test_limits_return_a_subset_with_the_limit_status():
    A, y = _instance(5, n=60, m=8)
    full = rashomon(A, y, 0.01, 0.05)
    assert len(full) > 5
    cut = rashomon(A, y, 0.01, 0.05, max_models=5)
    assert cut.status == "node_limit" and not cut.complete
    assert 5 <= len(cut) < len(full) and set(cut.prefixes) <= set(full.prefixes)


def test_callback_stop_is_interrupted():
    A, y = _instance(6, n=60, m=8)
    r = rashomon(A, y, 0.01, 0.05, callback=lambda state: True)
    assert r.status == "interrupted"


@pytest.mark.parametrize("kwargs,error", [
    ({"epsilon": -0.01}, ValueError), ({"epsilon": "a"}, TypeError), ({"c": -1}, ValueError),
    ({"max_models": 0}, ValueError), ({"max_models": 1.5}, TypeError),
])
def test_bad_parameters(kwargs, error):
    A, y = _instance(0)
    args = {"c": 0.05, "epsilon": 0.01, **kwargs}
    with pytest.raises(error, match=next(iter(kwargs))):
        rashomon(A, y, args.pop("c"), args.pop("epsilon"), **args)


# --- the estimator's view ----------------------------------------------------------------

def _frame(seed, n=120):
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.integers(18, 70, n), "priors": rng.integers(0, 8, n),
                      "sex": rng.choice(["F", "M"], n)})
    logit = -1 + 0.4 * X["priors"] - 0.03 * (X["age"] - 40) + 0.5 * (X["sex"] == "M")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y


@pytest.mark.slow  # about 4 CPU s
def test_estimator_set_matches_brute_force_over_every_antecedent():
    from rulekit import CorelsClassifier
    from rulekit.mining import mine_antecedents

    X, y = _frame(0)
    est = CorelsClassifier(c=0.05, max_card=1, n_thresholds=2).fit(X, y)
    rset = est.rashomon_set(0.02)
    assert rset.complete and rset.count.startswith("exactly")
    # the oracle sees every antecedent that occurs at all, not only those mined at c
    B = est.binarizer_.transform(X)
    everything = mine_antecedents(B, y, min_support=1 / 240, max_card=1, per_class=False,
                                  conditions=est.binarizer_.conditions_)
    best, expected = brute_force(everything.matrix, y, Fraction(1, 20), Fraction(1, 50), 4)
    names = lambda ants, p: tuple(ants.names[a] for a in p)  # noqa: E731
    assert {names(rset.antecedents, p) for p in rset.result.prefixes} == \
        {names(everything, p) for p in expected}
    assert rset.optimum == pytest.approx(float(best))
    assert rset.optimum == pytest.approx(est.certificate_.objective)
    # the lists are models: list 0 is the estimator's optimum, all predict like themselves
    assert str(rset[0]) == str(est.model_)
    for model, obj in zip(rset, rset.objectives):
        B = est.binarizer_.transform(X)
        mistakes = int((model.predict(B) != y).sum())
        assert obj == pytest.approx(mistakes / len(y) + 0.05 * len(model))


def _set_on_frame_1(max_card):
    """An estimator on ``_frame(1)``, its Rashomon set at 0.03 and the binarized rows."""
    from rulekit import CorelsClassifier

    X, y = _frame(1)
    est = CorelsClassifier(c=0.02, max_card=max_card, n_thresholds=3).fit(X, y)
    rset = est.rashomon_set(0.03)
    assert len(rset) >= 3
    return X, y, est, rset, est.binarizer_.transform(X)


@pytest.mark.slow  # about 3 CPU s
def test_importance_and_disagreement_against_the_lists_themselves():
    X, y, est, rset, B = _set_on_frame_1(max_card=1)
    models = list(rset)
    # share of lists per predicted class, computed from each list's own predictions
    votes = np.mean([m.predict(B) == 1 for m in models], axis=0)
    share = rset.disagreement()
    assert list(share.columns) == [0, 1]
    assert np.allclose(share[1].to_numpy(), votes) and np.allclose(share.sum(axis=1), 1)
    assert np.allclose(rset.disagreement(X.iloc[:7])[1].to_numpy(), votes[:7])
    usage = rset.condition_importance()
    for cond, value in usage.items():
        uses = [any(cond == str(m.conditions[j]) for r in m.rules for j in r.conditions)
                for m in models]
        assert value == pytest.approx(np.mean(uses))
    weighted = rset.condition_importance(weighted=True)
    for cond, value in weighted.items():
        shares = [sum(sum(r.counts) for r in m.rules
                      if any(cond == str(m.conditions[j]) for j in r.conditions)) / len(y)
                  for m in models]
        assert value == pytest.approx(np.mean(shares))


def test_feature_importance_ranges_against_each_lists_own_captures():
    X, y, est, rset, B = _set_on_frame_1(max_card=2)
    features, shares, tests = feature_shares(list(rset), B, est.binarizer_.conditions_)
    got = rset.feature_importance()
    used = [f for k, f in enumerate(features) if tests[:, k].any()]
    assert sorted(got.index) == sorted(used)
    for f in used:
        col = shares[:, features.index(f)]
        assert got.loc[f, "min"] == pytest.approx(col.min(), abs=1e-12)
        assert got.loc[f, "max"] == pytest.approx(col.max(), abs=1e-12)
        assert got.loc[f, "mean"] == pytest.approx(col.mean(), abs=1e-12)
        assert got.loc[f, "share of lists"] == pytest.approx(
            np.mean(tests[:, features.index(f)]), abs=1e-12)
    assert list(got["max"]) == sorted(got["max"], reverse=True)


def test_rashomon_set_plots_and_bad_epsilon():
    import matplotlib

    matplotlib.use("Agg")
    from rulekit import CorelsClassifier

    X, y = _frame(2)
    est = CorelsClassifier(c=0.02, max_card=1, n_thresholds=3).fit(X, y)
    rset = est.rashomon_set(0.02)
    assert rset.plot_objectives().axes[0].get_ylabel() == "rule lists"
    assert len(rset.plot_conditions(top=3).axes[0].patches) <= 3
    assert "exactly" in str(rset) and "best list" in str(rset)
    with pytest.raises(ValueError, match="epsilon"):
        est.rashomon_set(-0.1)
