"""Bounds of exact pricing cut short by its work limit, against brute force (issue 37, item 2).

An enumeration stopped by ``enum_work_limit`` used to prove nothing, so a
fit whose last pricing ran out of work reported a lower bound of 0.  It now
bounds the least reduced cost (the best clause found and the optimistic
bound of every subtree it did not visit) and the least reduced cost per
unit of complexity, which the budget's Lagrangian bound uses.
"""

import itertools
import math

import numpy as np
import pytest

from colgen_helpers import brute_force_optimum, full_mlp_value
from rulekit.colgen import ColGenSettings, search
from rulekit.colgen._enum import enumerate_pricing
from rulekit.colgen._pricing import PricingProblem


def _least_reduced_costs(X, r, lam, D):
    """Brute force over every clause of 1..D literals covering a row: the least reduced
    cost, and the least cost per unit of complexity (1 + literals), at most 0."""
    least, per_unit = math.inf, 0.0
    for k in range(1, D + 1):
        for clause in itertools.combinations(range(X.shape[1]), k):
            covered = X[:, list(clause)].all(axis=1)
            if covered.any():
                rc = float(r[covered].sum()) + lam * (1 + k)
                least, per_unit = min(least, rc), min(per_unit, rc / (1 + k))
    return least, per_unit


@pytest.mark.parametrize("lookahead", [False, True])
def test_enumeration_cut_short_still_bounds_the_least_reduced_cost(lookahead):
    rng = np.random.default_rng(3)
    settings = ColGenSettings()
    cut = 0
    for trial in range(20):
        U, d, D = 12, 7, 3
        X = rng.random((U, d)) < 0.5
        r = rng.normal(size=U).round(3)
        lam = float(rng.random() * 0.3)
        problem = PricingProblem(X, r, lam, 0.0, 0.0, D)
        least, per_unit = _least_reduced_costs(X, r, lam, D)
        full = enumerate_pricing(problem, settings, lookahead=lookahead)
        assert full.proven and full.bound <= least + 1e-9
        assert full.ratio <= per_unit + 1e-9
        for work in (30, 100, 400):
            out = enumerate_pricing(problem, settings, work_limit=work, lookahead=lookahead)
            if out.proven:
                continue
            cut += 1
            # the old search claimed nothing when cut short; its bound must hold
            assert out.bound is not None, (trial, work)
            assert out.bound <= least + 1e-9, (trial, work, out.bound, least)
            assert out.ratio <= per_unit + 1e-9, (trial, work, out.ratio, per_unit)
    assert cut >= 20     # the limits did cut most searches short


@pytest.mark.parametrize("seed", range(6))
def test_bounds_of_enumerations_cut_short_stay_below_the_brute_force_optimum(seed):
    """A work limit too small for any enumeration to finish: every bound still holds."""
    rng = np.random.default_rng(seed)
    B = rng.random((16, 5)) < 0.5
    y = ((B[:, 0] & B[:, 1]) | B[:, 2]).astype(int)
    flip = rng.random(16) < 0.2
    y[flip] = 1 - y[flip]
    w = np.ones(16)
    C, D = 7, 3
    settings = ColGenSettings(pricing="enum", enum_work_limit=60, initial_beam=False,
                              beam_widening=(1,), beam_width=1, beam_max_candidates=1)
    res = search(B, y, max_complexity=C, max_literals=D, settings=settings)
    opt = brute_force_optimum(B, y, w, C, D)
    mlp = full_mlp_value(B, y, w, C, D)[0]
    assert not res.lp_proven or res.lower_bound <= opt + 1e-9
    # the rounds' enumerations were cut short and still gave bounds (they gave none before)
    assert any(t.pricing == "enum" and t.bound is not None for t in res.trace)
    for t in res.trace:
        if t.bound is not None:
            assert t.bound <= math.ceil(mlp - 1e-6) + 1e-9
    if res.lower_bound is not None:
        assert res.lower_bound <= opt + 1e-9


@pytest.mark.parametrize("lookahead", [False, True])
def test_a_ratio_target_cuts_work_and_still_bounds_the_least_ratio(lookahead):
    """Seeking only ``rc / (1 + |k|) >= target`` prunes more and stays a valid bound."""
    rng = np.random.default_rng(11)
    settings = ColGenSettings()
    reached, saved = 0, 0
    for trial in range(30):
        U, d, D = 14, 8, 4
        X = rng.random((U, d)) < 0.6
        r = rng.normal(size=U).round(3)
        lam = float(rng.random() * 0.3)
        problem = PricingProblem(X, r, lam, 0.0, 0.0, D)
        least, per_unit = _least_reduced_costs(X, r, lam, D)
        full = enumerate_pricing(problem, settings, lookahead=lookahead)
        for target in (per_unit * 0.5, per_unit * 0.9, -0.5, -2.0):
            out = enumerate_pricing(problem, settings, ratio_target=target,
                                    lookahead=lookahead)
            # valid whatever the target: never above the least ratio or reduced cost
            assert out.ratio <= per_unit + 1e-9, (trial, target, out.ratio, per_unit)
            assert out.bound <= least + 1e-9, (trial, target, out.bound, least)
            # and it gets there: at least the target (or the least ratio, if lower)
            assert out.ratio >= min(target, per_unit) - 1e-9, (trial, target, out.ratio)
            reached += out.ratio >= target - 1e-9
            saved += out.work < full.work
            if not out.proven:
                # a cut the target made hides reduced costs: no claim that none is lower
                assert out.bound <= least + 1e-9
    assert reached >= 30 and saved >= 30



def _threshold_problem(rng, U=18, cols=3, cuts=3, D=4):
    """Conditions ``x <= t`` and ``x > t`` on a few numeric columns (so the
    compatibility matrix prunes), residuals with zeros among them."""
    from rulekit.colgen._beam import OP_GT, OP_LE
    from rulekit.colgen._enum import compatibility

    V = rng.integers(0, cuts + 1, size=(U, cols))
    X, groups, ops, thr = [], [], [], []
    for c in range(cols):
        for t in range(cuts):
            for op in (OP_LE, OP_GT):
                X.append(V[:, c] <= t if op == OP_LE else V[:, c] > t)
                groups.append(c)
                ops.append(op)
                thr.append(float(t))
    X = np.column_stack(X)
    r = rng.normal(size=U).round(2)
    r[rng.random(U) < 0.3] = 0.0
    lam = float(rng.random() * 0.4)
    compat = compatibility(X.shape[1], (groups, ops, thr))
    return PricingProblem(X, r, lam, 0.05, 0.02, D, compat=compat), X, r, lam


def _least_with_penalties(X, r, lam, l0, l1, D):
    """Brute force over every clause of 1..D literals: the least reduced cost
    and the least ratio (at most 0), from the formulas, not the engine."""
    least, per_unit = math.inf, 0.0
    for k in range(1, D + 1):
        for clause in itertools.combinations(range(X.shape[1]), k):
            covered = X[:, list(clause)].all(axis=1)
            rc = float(r[covered].sum()) + lam * (1 + k) + l0 + l1 * k
            if (r[covered] < 0).any():
                least = min(least, rc)
            per_unit = min(per_unit, rc / (1 + k))
    return least, per_unit


@pytest.mark.parametrize("seed", range(8))
def test_the_lookahead_bound_finds_what_the_plain_search_finds(seed):
    """Counting the rows an extension must drop prunes more; finished, both
    searches return the same clauses, and every bound holds against brute force."""
    rng = np.random.default_rng(seed)
    settings = ColGenSettings(columns_per_round=4)
    problem, X, r, lam = _threshold_problem(rng)
    least, per_unit = _least_with_penalties(X, r, lam, 0.05, 0.02, problem.max_literals)
    plain = enumerate_pricing(problem, settings)
    ahead = enumerate_pricing(problem, settings, lookahead=True)
    assert plain.proven and ahead.proven
    assert ahead.values == pytest.approx(plain.values)
    assert ahead.clauses == plain.clauses
    assert ahead.bound == pytest.approx(plain.bound)
    assert ahead.work <= plain.work
    if math.isfinite(least) and least < -settings.eps:
        assert ahead.values[0] == pytest.approx(least)
    assert ahead.ratio <= per_unit + 1e-9
    for target in (per_unit * 0.5, per_unit * 0.9, -0.3):
        out = enumerate_pricing(problem, settings, ratio_target=target, lookahead=True)
        assert per_unit + 1e-9 >= out.ratio >= min(target, per_unit) - 1e-9
        assert out.bound <= least + 1e-9
        for work in (50, 300, 1500):
            cut = enumerate_pricing(problem, settings, ratio_target=target, lookahead=True,
                                    work_limit=work)
            assert cut.ratio <= per_unit + 1e-9, (target, work)
            assert cut.bound <= least + 1e-9, (target, work)
