"""Every learner's certificate in one unit: a rate per training row, its count beside it.

Issue 37, item 2: column generation stated raw (weighted) mistake counts
while CORELS and the falling lists state rates; its scope spoke of
one-vs-rest problems on binary data and named neither the form nor the
budget.  Each test recomputes the objective from the model's own
predictions, so a certificate in another unit fails.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     SoftFallingRuleListClassifier)
from rulekit.certificate import Certificate
from rulekit.compare import _certificate_summary


def frame(n=150, seed=0):
    """A binary problem with a threshold, a category and noise (about 10 % flipped)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.integers(18, 70, n).astype(float),
                      "job": rng.choice(["clerk", "nurse", "pilot"], n),
                      "score": rng.normal(size=n).round(2)})
    y = np.where((X["age"] < 35) ^ (X["job"] == "pilot"), "yes", "no")
    flip = rng.random(n) < 0.1
    y[flip] = np.where(y[flip] == "yes", "no", "yes")
    return X, y


def three_classes(n=150, seed=1):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n).round(2), "b": rng.normal(size=n).round(2)})
    y = np.where(X["a"] > 0.5, "high", np.where(X["b"] > 0, "mid", "low"))
    flip = rng.random(n) < 0.08
    y[flip] = rng.choice(["high", "mid", "low"], flip.sum())
    return X, y


def fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


def check_rate(cert, n):
    """Shared by every learner: the count is over the training rows, the bound below the objective."""
    assert cert.n == n and cert.unit == "rows"
    if cert.lower_bound is not None:
        assert 0 <= cert.lower_bound <= cert.objective + 1e-12
    text = cert.summary()
    assert f"/ {n} rows)" in text
    assert "one-vs-rest" not in cert.scope or "class" in cert.scope


# -- CORELS and the falling lists: rates already; the rows are named beside them ---------

def test_corels_objective_is_mistakes_per_row_plus_c_per_rule():
    X, y = frame()
    est = fit(CorelsClassifier(c=0.01, max_card=1), X, y)
    cert = est.certificate_
    check_rate(cert, len(y))
    mistakes = int((est.predict(X) != y).sum())
    assert cert.objective == pytest.approx(mistakes / len(y) + 0.01 * len(est.model_))
    assert cert.count(cert.objective) == pytest.approx(mistakes + 0.01 * len(est.model_) * len(y))
    assert cert.status == "optimal" and cert.lower_bound == cert.objective


@pytest.mark.parametrize("cls", [FallingRuleListClassifier, SoftFallingRuleListClassifier])
def test_falling_lists_state_their_risk_per_row(cls):
    X, y = frame()
    # pairs at C=1e-6: with the small-data defaults of these 150 rows (single
    # conditions, C = ln(n)/n) the search proves its list optimal
    est = fit(cls(n_iter=300, C=1e-6, max_card=2), X, y)
    cert = est.certificate_
    check_rate(cert, len(y))
    # the risk is a rate: at most the weight of every row, plus the penalties
    assert 0 <= cert.objective <= max(est.w_, 1.0) + 1.0
    assert cert.lower_bound is None and cert.status == "heuristic"
    assert "no lower bound" in cert.summary()


# -- column generation: counts divided by N, the form and budget named ------------------

@pytest.mark.parametrize("form", ["dnf", "cnf", "auto"])
def test_colgen_binary_certificate_is_a_rate_of_its_mistakes(form):
    X, y = frame()
    est = fit(BooleanRuleCGClassifier(form=form), X, y)
    cert, res = est.certificate_, est.result_
    check_rate(cert, len(y))
    mistakes = int((est.predict(X) != y).sum())
    # the objective is the training mistakes per row (no penalties, no weights)
    assert cert.objective == pytest.approx(mistakes / len(y))
    assert cert.count(cert.objective) == pytest.approx(mistakes)
    assert cert.objective == pytest.approx(res.objective / len(y))
    if res.lower_bound is None:
        assert cert.lower_bound is None
    else:
        assert cert.lower_bound == pytest.approx(res.lower_bound / len(y))
    if res.lp_proven:
        # the best bound known: the master LP's value (rounded up: mistakes are whole)
        # whenever pricing proved it, never a weaker one
        known = min(math.ceil(res.lp_value - 1e-6), res.objective)
        assert cert.count(cert.lower_bound) >= known - 1e-9
    # words that match the problem: one rule set, its form and its budget
    assert "one-vs-rest" not in cert.scope and "summed" not in cert.scope
    assert (f"{est.form_.upper()} rule sets of complexity (clauses + literals) at most "
            f"{est.max_complexity_}") in cert.scope
    assert "chosen by" in cert.scope or "chosen as" in cert.scope
    assert f"N = {len(y)} rows" in cert.scope


def test_colgen_given_form_and_budget_say_so():
    X, y = frame()
    est = fit(BooleanRuleCGClassifier(form="dnf", max_complexity=6), X, y)
    assert "DNF rule sets of complexity (clauses + literals) at most 6" in est.certificate_.scope
    assert "(form and budget as given)" in est.certificate_.scope


def test_colgen_multiclass_certificate_adds_the_members_mistakes_per_row():
    X, y = three_classes()
    est = fit(BooleanRuleCGClassifier(), X, y)
    cert = est.certificate_
    check_rate(cert, len(y))
    # each member's mistakes on its own one-vs-rest labels, counted here, added up
    B = est.binarizer_.transform(X)
    total = sum(int((member.holds(B).astype(bool) != (y == label)).sum())
                for member, label in zip(est.model_.members, est.classes_))
    assert cert.count(cert.objective) == pytest.approx(total)
    bounds = [r.lower_bound for r in est.result_]
    if all(b is not None for b in bounds):
        assert cert.lower_bound == pytest.approx(sum(bounds) / len(y))
    assert "one-vs-rest" in cert.scope
    for label, form, budget in zip(est.classes_, est.form_, est.max_complexity_):
        assert f"class {str(label)!r}: {form.upper()} of complexity at most {budget}" in cert.scope


def test_colgen_weights_make_the_rate_per_unit_of_weight():
    X, y = frame()
    est = fit(BooleanRuleCGClassifier(form="dnf", max_complexity=6, class_weight="balanced"),
              X, y)
    cert = est.certificate_
    assert cert.unit == "units of weight"
    # "balanced" weights add up to the row count; the count is the weighted mistakes
    assert cert.n == pytest.approx(len(y))
    counts = pd.Series(y).value_counts()
    w = {c: len(y) / (2 * counts[c]) for c in counts.index}
    wrong = est.predict(X) != y
    assert cert.count(cert.objective) == pytest.approx(sum(w[c] for c in y[wrong]))


# -- the text, the saved file, compare_models ----------------------------------------------

def test_summary_shows_the_rate_and_the_count_beside_it():
    cert = Certificate("feasible", 43 / 270, 30 / 270, "rule sets", n=270)
    text = cert.summary()
    assert "objective 0.1593 (43 / 270 rows)" in text
    assert "lower bound 0.1111 (30 / 270 rows)" in text
    assert "gap 0.0481 (13 rows)" in text and "30.2 %" in text
    assert Certificate("feasible", 2 / 270, 1 / 270, n=270).summary().count("(1 row)") == 1
    with pytest.raises(ValueError, match="positive count"):
        Certificate("optimal", 0.1, n=0)


def test_per_divides_objective_and_bound_and_keeps_the_count():
    raw = Certificate("feasible", 43.0, 30.0, "counts")
    rate = raw.per(270)
    assert (rate.objective, rate.lower_bound, rate.n) == (43 / 270, 30 / 270, 270)
    assert rate.relative_gap == pytest.approx(raw.relative_gap)
    assert rate.count(rate.gap) == pytest.approx(13)
    assert raw.count(raw.gap) is None


def test_a_saved_model_keeps_the_count(tmp_path):
    from rulekit import load

    X, y = frame()
    est = fit(CorelsClassifier(c=0.01, max_card=1), X, y)
    est.save(tmp_path / "m.json")
    cert = load(tmp_path / "m.json").certificate
    assert cert.n == len(y) and cert.summary() == est.certificate_.summary()


def test_compare_summary_gives_the_gap_as_a_rate_with_its_rows():
    rows = pd.DataFrame({"status": ["feasible", "optimal"], "gap": [148 / 753, 0.0],
                         "gap_rows": [148.0, 0.0], "relative_gap": [0.5, 0.0]})
    text = _certificate_summary(rows)
    assert "max gap 0.197 (148 rows)" in text and "max relative gap 50 %" in text


def test_explorer_shows_each_members_claim_in_the_same_unit():
    from rulekit.explore import build_payload

    X, y = three_classes()
    est = fit(BooleanRuleCGClassifier(form="dnf", max_complexity=6), X, y)
    p = build_payload(est, X, y)
    assert p["certificate"]["n"] == len(y)
    assert p["certificate"]["summary"] == est.certificate_.summary()
    for run, res in zip(p["cg"]["runs"], est.result_):
        assert f"/ {len(y)} rows)" in run["summary"]
        assert run["summary"] == res.certificate.per(len(y)).summary()
    X2, y2 = frame()
    est2 = fit(BooleanRuleCGClassifier(form="dnf", max_complexity=6), X2, y2)
    (run,) = build_payload(est2, X2, y2)["cg"]["runs"]
    assert run["summary"] == est2.certificate_.summary()
