"""Certified search under constraints, against brute force with exact fractions.

The oracle enumerates every rule list (ordered distinct antecedents, no rule
capturing nothing), scores it from the paper's objective with fractions, and
checks the constraint from its definition: a required condition must be in a
rule that captures a training row; statistical parity compares the share of
each group predicted positive, equal opportunity the same among the rows
whose label is positive.
"""

from fractions import Fraction
import numpy as np
import pandas as pd
import pytest
from helpers import seeds

from rulekit import CorelsClassifier


def _lists(A, y, c, prefix=(), left=None, pred=None, mistakes=0):
    """(prefix, objective, per-row prediction) of every list without an empty rule.

    Depth first: a prefix whose last rule captures nothing is not extended
    (every list through it has an empty rule).
    """
    n, m = A.shape
    if left is None:
        left, pred = np.ones(n, dtype=bool), np.zeros(n, dtype=int)
    final, total = pred.copy(), mistakes
    if left.any():
        label = int(np.argmax(np.bincount(y[left], minlength=2)))
        final[left] = label
        total += int((y[left] != label).sum())
    yield prefix, Fraction(total, n) + c * len(prefix), final
    for a in range(m):
        if a in prefix:
            continue
        cap = left & A[:, a]
        if not cap.any():
            continue
        label = int(np.argmax(np.bincount(y[cap], minlength=2)))
        nxt = pred.copy()
        nxt[cap] = label
        yield from _lists(A, y, c, prefix + (a,), left & ~cap, nxt,
                          mistakes + int((y[cap] != label).sum()))


def _gap(pred, y, group, kind):
    rows = np.ones(len(y), bool) if kind == "statistical_parity" else y == 1
    rates = []
    for g in (group, ~group):
        mask = rows & g
        rates.append(Fraction(int((pred[mask] == 1).sum()), int(mask.sum())) if mask.any()
                     else Fraction(0))
    return abs(rates[0] - rates[1])


def _data(seed, n=60):
    # small enough for the oracle: 8 conditions, every list enumerated
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 2, n),
                      "sex": rng.choice(["F", "M"], n)})
    logit = -1 + 0.8 * X["a"] - 0.5 * X["b"] + 0.8 * (X["sex"] == "M")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y


def _fit(X, y, **kw):
    return CorelsClassifier(c=0.02, max_card=1, n_thresholds=3, min_frequency=None, **kw).fit(X, y)


def _oracle(est, X, y, ok):
    A = est.antecedents_.matrix
    conds = est.binarizer_.conditions_
    best = None
    for prefix, obj, pred in _lists(A, y, Fraction(1, 50)):
        items = [est.antecedents_.items[a] for a in prefix]
        if ok(items, conds, pred) and (best is None or obj < best):
            best = obj
    return best


@pytest.mark.slow  # about 16 CPU s in all
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("kind,delta", [("statistical_parity", 0.0), ("statistical_parity", 0.1),
                                        ("equal_opportunity", 0.05)])
def test_fairness_limit_is_optimal_under_the_limit(seed, kind, delta):
    X, y = _data(seed)
    est = _fit(X, y, fairness=(kind, "sex", delta))
    group = (X["sex"] == "F").to_numpy()
    best = _oracle(est, X, y, lambda items, conds, pred:
                   _gap(pred, y, group, kind) <= Fraction(delta).limit_denominator(1000))
    cert = est.certificate_
    assert cert.status == "optimal" and "within" in cert.scope
    assert cert.objective == pytest.approx(float(best))
    pred = est.predict(X)
    assert float(_gap(pred, y, group, kind)) <= delta + 1e-12


@pytest.mark.parametrize("seed", seeds(3, fast=1))
def test_required_condition_is_in_a_capturing_rule(seed):
    X, y = _data(seed)
    free = _fit(X, y)
    used = {str(free.binarizer_.conditions_[j]) for r in free.model_.rules for j in r.conditions}
    unused = [str(cnd) for cnd in free.binarizer_.conditions_ if str(cnd) not in used]
    name = unused[seed % len(unused)]
    est = _fit(X, y, required=[name])
    best = _oracle(est, X, y, lambda items, conds, pred:
                   any(name in {str(conds[j]) for j in item} for item in items))
    assert est.certificate_.status == "optimal"
    assert est.certificate_.objective == pytest.approx(float(best))
    assert any(name in {str(est.model_.conditions[j]) for j in r.conditions} and sum(r.counts)
               for r in est.model_.rules)


def test_forbidden_feature_removes_every_condition_on_it():
    X, y = _data(7)
    est = _fit(X, y, forbidden=["sex"])
    assert all(est.model_.conditions[j].feature != "sex"
               for r in est.model_.rules for j in r.conditions)
    best = _oracle(est, X, y, lambda items, conds, pred:
                   all(conds[j].feature != "sex" for item in items for j in item))
    assert est.certificate_.objective == pytest.approx(float(best))
    assert "use none of 'sex'" in est.certificate_.scope


def test_unconstrained_path_is_unchanged():
    X, y = _data(3)
    plain = _fit(X, y)
    assert plain.certificate_.status == "optimal" and "that" not in plain.certificate_.scope


@pytest.mark.parametrize("kw,error,match", [
    ({"forbidden": ["nope"]}, ValueError, "forbidden: 'nope'"),
    ({"required": ["a <= 99"]}, ValueError, "required"),
    ({"required": ["sex"], "forbidden": ["sex"]}, ValueError, "also forbidden"),
    ({"fairness": ("parity", "sex", 0.1)}, ValueError, "kind"),
    ({"fairness": ("statistical_parity", "race", 0.1)}, ValueError, "'race'"),
    ({"fairness": ("statistical_parity", "sex", 2)}, ValueError, "largest difference"),
    ({"fairness": "sex"}, TypeError, "fairness"),
])
def test_bad_constraints(kw, error, match):
    X, y = _data(0)
    with pytest.raises(error, match=match):
        _fit(X, y, **kw)


def test_one_group_is_a_clear_error():
    X, y = _data(0)
    X["sex"] = "F"
    with pytest.raises(ValueError, match="exactly two groups"):
        _fit(X, y, fairness=("statistical_parity", "sex", 0.1))


def test_infeasible_requirement_says_so():
    X, y = _data(1)
    est = _fit(X, y)
    # two requirements only one antecedent can meet, each, with identical captures
    X2 = X.assign(copy=X["sex"])
    with pytest.warns(UserWarning, match="no rule list satisfies"):
        bad = _fit(X2, y, required=["sex == F", "copy == F"], forbidden=["sex == M", "copy == M"])
    assert bad.certificate_.status == "infeasible" and len(bad.model_) == 0
    assert est.certificate_.status == "optimal"
