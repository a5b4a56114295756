"""Column generation's lower bound when the rounds end by their own rule (issue 37, item 2).

Rounds whose beam keeps finding improving clauses never reach the exact
enumeration, so a run stopped by its round limit or by a stalled master LP
had proved nothing and reported a lower bound of 0 (on COMPAS at the
defaults: 0 against an objective of 0.313, in both forms).  The run now
prices the last master LP's duals exactly once more and states the
Lagrangian bound that follows.

The bounds are checked against brute force written here: every DNF (OR of
ANDs) and every CNF (AND of ORs) within the complexity budget, scored with
the paper's objective in exact fractions.
"""

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from rulekit import BooleanRuleCGClassifier
from rulekit.colgen import ColGenSettings, search
import rulekit.colgen._search as cg_search


def paper_objective(B, y, w, clauses, form):
    """The Hamming loss of Dash, Günlük and Wei (2018), in exact fractions.

    DNF (class 1 when some clause's literals all hold): each positive no
    clause covers, plus each negative once per clause covering it.  A CNF
    (class 1 when every clause has a literal that holds) is the DNF of the
    complemented literals for the other class, so: each negative every
    clause accepts, plus each positive once per clause it fails.
    """
    total = Fraction(0)
    for i in range(B.shape[0]):
        wi = Fraction(w[i]).limit_denominator()
        if form == "dnf":
            hits = sum(all(B[i, j] for j in c) for c in clauses)
            total += wi * (hits if y[i] == 0 else int(hits == 0))
        else:
            fails = sum(not any(B[i, j] for j in c) for c in clauses)
            total += wi * (fails if y[i] == 1 else int(fails == 0))
    return total


def brute_force(B, y, w, C, D, form):
    """Least objective over every rule set of complexity (clauses + literals) <= C."""
    clauses = [c for k in range(1, D + 1) for c in itertools.combinations(range(B.shape[1]), k)]
    best = paper_objective(B, y, w, [], form)

    def grow(start, chosen, used):
        nonlocal best
        for k in range(start, len(clauses)):
            cost = 1 + len(clauses[k])
            if used + cost <= C:
                chosen.append(clauses[k])
                best = min(best, paper_objective(B, y, w, chosen, form))
                grow(k + 1, chosen, used + cost)
                chosen.pop()

    grow(0, [], 0)
    return best


def noisy(seed, n=16, d=5):
    rng = np.random.default_rng(seed)
    B = rng.random((n, d)) < 0.5
    y = ((B[:, 0] & B[:, 1]) | B[:, 2]).astype(int)
    flip = rng.random(n) < 0.25
    y[flip] = 1 - y[flip]
    if y.min() == y.max():
        y[0] = 1 - y[0]
    return B, y


#: one round, then the run's own limit; with no heuristic clauses seeded, that round's
#: beam finds some, so the exact enumeration never ran: the rounds prove nothing
ONE_ROUND = ColGenSettings(max_rounds=1, initial_beam=False)


@pytest.mark.slow
@pytest.mark.parametrize("form", ["dnf", "cnf"])
def test_round_limit_no_longer_leaves_the_bound_at_zero(form):
    """Fails on the old code: it claimed 0 whenever the last round priced by beam."""
    unproved, raised = 0, 0
    for seed in range(16):
        B, y = noisy(seed)
        w = np.ones(len(y))
        res = search(B, y, form=form, max_complexity=7, max_literals=3, settings=ONE_ROUND)
        opt = brute_force(B, y, w, 7, 3, form)
        assert res.lower_bound is not None and res.lower_bound <= opt
        assert Fraction(res.objective).limit_denominator() == paper_objective(
            B, y, w, res.clauses, form) >= opt
        if res.trace[0].pricing == "beam" and res.trace[0].n_added > 0 and res.lp_value > 0:
            # the one round priced by beam and proved nothing: the old code said 0,
            # though the last master LP gives more
            unproved += 1
            raised += res.lower_bound > 0
    assert unproved >= 8 and raised >= 0.75 * unproved


@pytest.mark.parametrize("form", ["dnf", "cnf"])
@pytest.mark.parametrize("settings", [None, ONE_ROUND, ColGenSettings(max_rounds=2,
                                                                      enum_work_limit=40)],
                         ids=["defaults", "one-round", "enum-cut-short"])
def test_bounds_hold_against_brute_force(form, settings):
    for seed in range(5):
        B, y = noisy(seed + 20, n=14, d=4)
        w = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
        for C, D in ((4, 2), (6, 3)):
            res = search(B, y, form=form, max_complexity=C, max_literals=D, sample_weight=w,
                         settings=settings)
            opt = brute_force(B, y, w, C, D, form)
            got = paper_objective(B, y, w, res.clauses, form)
            assert Fraction(res.objective).limit_denominator() == got >= opt
            assert res.lower_bound is not None
            assert Fraction(res.lower_bound).limit_denominator() <= opt, (seed, C, D)
            if res.status == "optimal":
                assert got == opt
            for t in res.trace:
                if t.bound is not None:
                    assert Fraction(t.bound).limit_denominator() <= opt


def small_frame(n=60, seed=0, classes=2):
    """Two coarse numeric columns (few conditions, so brute force stays small)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 4, n).astype(float),
                      "b": rng.integers(0, 3, n).astype(float)})
    if classes == 2:
        y = np.where((X["a"] >= 2) & (X["b"] != 1), "yes", "no")
    else:
        y = np.where(X["a"] >= 3, "hi", np.where(X["b"] >= 1, "mid", "lo"))
    flip = rng.random(n) < 0.15
    y[flip] = rng.choice(np.unique(y), flip.sum())
    return X, y


@pytest.mark.slow
@pytest.mark.parametrize("form", ["dnf", "cnf", "auto"])
@pytest.mark.parametrize("classes", [2, 3])
def test_estimator_certificate_holds_against_brute_force(form, classes):
    """Binary and one-vs-rest, each form and the validated choice: bound <= optimum <= objective."""
    X, y = small_frame(classes=classes, seed=classes)
    C = 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BooleanRuleCGClassifier(form=form, max_complexity=C).fit(X, y)
    B = est.binarizer_.transform(X).astype(bool)
    cert, n = est.certificate_, len(y)
    labels = [est.classes_[1]] if classes == 2 else list(est.classes_)
    forms = [est.form_] if classes == 2 else est.form_
    opt = Fraction(0)
    for label, f in zip(labels, forms):
        yk = (y == label).astype(int)
        opt += brute_force(B, yk, np.ones(n), C, C - 1, f)
    assert cert.lower_bound is not None
    assert Fraction(cert.lower_bound).limit_denominator(10 * n) <= opt / n
    assert Fraction(cert.objective).limit_denominator(10 * n) >= opt / n
    # the words say which problem the bound is about: the form solved, per class
    for f in forms:
        assert f"{f.upper()} " in cert.scope
    if "cnf" in forms:
        assert "AND of ORs" in cert.scope


@pytest.mark.slow
@pytest.mark.parametrize("form", ["dnf", "cnf", "auto"])
def test_compas_defaults_state_a_bound_above_zero(form):
    """COMPAS at the defaults: the old code stated 0 in every form (stalled master LP)."""
    from rulekit.datasets import load_compas

    X, y = load_compas(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BooleanRuleCGClassifier(form=form).fit(X, y)
    cert = est.certificate_
    assert cert.status in ("feasible", "optimal")
    assert 0.15 < cert.lower_bound <= cert.objective


@pytest.mark.parametrize("form", ["dnf", "cnf"])
@pytest.mark.parametrize("settings", [None, ColGenSettings(pricing="beam", max_rounds=2)])
def test_patterns_holding_both_classes_bound_every_rule_set(form, settings):
    """However little the rounds proved (here: beam pricing only, which proves nothing),
    the bound is at least the patterns' conflicts: a rule set answers alike on equal
    rows, so each distinct row costs at least the smaller of its two classes' weights
    (counted here row by row, in fractions); and no bound exceeds the brute-force
    optimum's objective."""
    rng = np.random.default_rng(11)
    B = rng.random((120, 3)) < 0.5
    y = ((B[:, 0] & B[:, 1]) ^ (rng.random(120) < 0.25)).astype(int)
    target = y if form == "dnf" else 1 - y
    per_pattern = {}
    for i in range(B.shape[0]):
        key = tuple(B[i])
        pos, neg = per_pattern.get(key, (0, 0))
        per_pattern[key] = (pos + int(target[i] == 1), neg + int(target[i] == 0))
    floor = sum(Fraction(min(p, q)) for p, q in per_pattern.values())
    assert floor > 0
    res = search(B, y, form=form, settings=settings, max_complexity=8, time_limit=None,
                 random_state=0)
    assert res.lower_bound is not None and Fraction(res.lower_bound) >= floor
    assert res.lower_bound <= res.objective + 1e-9


@pytest.mark.parametrize("form", ["dnf", "cnf"])
def test_runs_ended_by_an_enumeration_cut_short_bound_above_zero(form, monkeypatch):
    """The last round's enumeration ran out of work and found nothing: the run ended
    "converged" but unproved, and used to say what the cut-short search gave (mostly 0).
    The ratio-targeted searches at the same duals raise it; it stays below brute force."""
    settings = ColGenSettings(pricing="enum", enum_work_limit=300, initial_beam=False)
    cases, raised = 0, 0
    for seed in range(12):
        B, y = noisy(seed + 40, n=18, d=5)
        w = np.ones(18)
        C, D = 7, 3
        monkeypatch.setattr(cg_search, "TARGET_WORK", 0)
        before = search(B, y, form=form, max_complexity=C, max_literals=D, settings=settings)
        monkeypatch.setattr(cg_search, "TARGET_WORK", 4)
        after = search(B, y, form=form, max_complexity=C, max_literals=D, settings=settings)
        # the bound is all that changes: the same rule set and objective
        assert after.clauses == before.clauses and after.objective == before.objective
        opt = brute_force(B, y, w, C, D, form)
        assert Fraction(after.lower_bound).limit_denominator() <= opt, (seed, after.lower_bound)
        assert after.lower_bound >= before.lower_bound
        if (not before.lp_proven and before.trace[-1].n_added == 0
                and before.trace[-1].pricing == "enum" and before.lower_bound < before.objective):
            cases += 1
            raised += after.lower_bound > before.lower_bound
    assert cases >= 4 and raised >= 0.75 * cases, (cases, raised)
