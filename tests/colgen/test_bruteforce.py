"""Bounds and optimality against brute-force enumeration on tiny data."""

import numpy as np
import pytest

from colgen_helpers import all_clauses, brute_force_optimum, full_mlp_value, hamming_objective
from rulekit.colgen import ColGenSettings, search


def _instance(seed, n=14, d=4, weighted=False):
    rng = np.random.default_rng(seed)
    B = rng.random((n, d)) < 0.5
    # a noisy DNF target so that there is structure but no perfect fit
    y = ((B[:, 0] & B[:, 1]) | B[:, 2]).astype(int)
    flip = rng.random(n) < 0.2
    y[flip] = 1 - y[flip]
    if y.min() == y.max():
        y[0] = 1 - y[0]
    w = rng.integers(1, 4, n).astype(float) if weighted else np.ones(n)
    return B, y, w


IP = ColGenSettings(pricing="ip")
CASES = [(s, C, D, p) for s in range(6) for (C, D) in [(4, 2), (6, 3), (7, 2)]
         for p in ("enum", "auto", "ip")]


@pytest.mark.parametrize("seed,C,D,pricing", CASES)
def test_bounds_sandwich_brute_force(seed, C, D, pricing):
    B, y, w = _instance(seed)
    res = search(B, y, max_complexity=C, max_literals=D,
                 settings=ColGenSettings(pricing=pricing, record_duals=True))
    opt = brute_force_optimum(B, y, w, C, D)
    # the returned objective is the true objective of the returned rules
    assert res.objective == pytest.approx(hamming_objective(B, y, w, res.clauses))
    assert res.complexity == sum(1 + len(c) for c in res.clauses) <= C
    assert all(1 <= len(c) <= D for c in res.clauses)
    assert res.lower_bound is not None
    assert res.lower_bound <= opt + 1e-9 <= res.objective + 2e-9
    if res.status == "optimal":
        assert res.objective == pytest.approx(opt)
    # strong duality, dual feasibility and monotone RMLP at every iteration
    prev = np.inf
    for t in res.trace:
        assert t.dual_value == pytest.approx(t.rmlp, abs=1e-6)
        assert np.all(t.duals >= -1e-9) and np.all(t.duals <= w * y + 1e-9)
        assert t.lam >= 0
        assert t.rmlp <= prev + 1e-7
        prev = t.rmlp
    mlp, clauses, A = full_mlp_value(B, y, w, C, D)
    # every early bound is below the true MLP value
    for t in res.trace:
        if t.bound is not None:
            assert t.bound <= np.ceil(mlp - 1e-6) + 1e-9
    if pricing == "ip":
        assert res.lp_proven  # tiny data: the exact pricing always finishes
    if res.lp_proven:
        # proven: the last RMLP equals the full MLP and no clause prices out
        last = res.trace[-1]
        assert last.rmlp == pytest.approx(mlp, abs=1e-6)
        r = np.where(y == 1, -last.duals, w)
        rc = r @ A + last.lam * np.array([1 + len(c) for c in clauses])
        assert rc.min() >= -1e-6


@pytest.mark.parametrize("seed", range(4))
def test_weighted_brute_force(seed):
    B, y, w = _instance(seed + 100, weighted=True)
    res = search(B, y, max_complexity=6, max_literals=3, sample_weight=w, settings=IP)
    opt = brute_force_optimum(B, y, w, 6, 3)
    assert res.objective == pytest.approx(hamming_objective(B, y, w, res.clauses))
    assert res.lower_bound <= opt + 1e-9 <= res.objective + 2e-9
    if res.status == "optimal":
        assert res.objective == pytest.approx(opt)


@pytest.mark.parametrize("seed", range(3))
def test_fractional_weights_and_penalties(seed):
    B, y, _ = _instance(seed + 200)
    w = np.random.default_rng(seed).uniform(0.3, 2.0, B.shape[0])
    res = search(B, y, max_complexity=6, max_literals=3, sample_weight=w, lambda0=0.25,
                lambda1=0.1, settings=IP)
    opt = brute_force_optimum(B, y, w, 6, 3, 0.25, 0.1)
    assert res.objective == pytest.approx(hamming_objective(B, y, w, res.clauses, 0.25, 0.1))
    assert res.lower_bound <= opt + 1e-7 <= res.objective + 1e-7


def test_penalty_only_no_budget():
    B, y, w = _instance(7, n=16)
    res = search(B, y, max_complexity=None, max_literals=3, lambda0=1.0, lambda1=0.5,
                settings=IP)
    # a finite budget bigger than any useful rule set gives the same optimum
    opt = brute_force_optimum(B, y, w, 9, 3, 1.0, 0.5)
    assert res.lower_bound <= opt + 1e-7 <= res.objective + 1e-7


def test_optimal_loss_non_increasing_in_C():
    B, y, w = _instance(3, n=16)
    prev = np.inf
    for C in (2, 3, 4, 5, 6, 7):
        res = search(B, y, max_complexity=C, max_literals=3, settings=IP)
        opt = brute_force_optimum(B, y, w, C, 3)
        assert opt <= prev
        prev = opt
        assert res.lower_bound <= opt <= res.objective


def test_unit_weights_equal_unweighted():
    B, y, _ = _instance(11, n=30, d=5)
    a = search(B, y, max_complexity=8, max_literals=3)
    b = search(B, y, max_complexity=8, max_literals=3, sample_weight=np.ones(B.shape[0]))
    assert a.clauses == b.clauses
    assert a.objective == b.objective and a.lower_bound == b.lower_bound
    assert a.status == b.status
    assert [t.rmlp for t in a.trace] == pytest.approx([t.rmlp for t in b.trace])


def test_integer_weight_equals_duplicated_rows():
    B, y, _ = _instance(12, n=16)
    w = np.ones(B.shape[0])
    w[:5] = 2.0
    a = search(B, y, max_complexity=6, max_literals=3, sample_weight=w, settings=IP)
    B2 = np.vstack([B, B[:5]])
    y2 = np.concatenate([y, y[:5]])
    b = search(B2, y2, max_complexity=6, max_literals=3, settings=IP)
    assert a.objective == b.objective
    assert a.lp_value == pytest.approx(b.lp_value)


def test_all_clauses_helper_counts():
    assert len(all_clauses(4, 2)) == 4 + 6


@pytest.mark.parametrize("seed", range(5))
def test_exact_enumeration_and_beam_match_brute_force(seed):
    from rulekit.colgen._beam import beam_search
    from rulekit.colgen._enum import enumerate_pricing
    from rulekit.colgen._pricing import PricingProblem, reduced_cost

    rng = np.random.default_rng(seed)
    X = rng.random((25, 6)) < 0.6
    r = rng.normal(size=25)
    lam, l0, l1 = 0.3, 0.1, 0.05
    rcs = {c: reduced_cost(X, r, c, lam, l0, l1) for c in all_clauses(6, 4)}
    best = min(rcs.values())
    problem = PricingProblem(X, r, lam, l0, l1, 4)
    out = enumerate_pricing(problem, ColGenSettings(columns_per_round=5))
    found, complete = out.ranked, out.proven
    assert complete
    if best < -1e-6:
        assert found[0][0] == pytest.approx(best)
        # the K best are the K smallest reduced costs
        kth = sorted(v for v in rcs.values() if v < -1e-6)[:5]
        assert [v for v, _ in found] == pytest.approx(kth)
    else:
        assert found == []
    beam = beam_search(PricingProblem(X, r, lam, l0, l1, 4, Xf=X.astype(float)),
                       ColGenSettings()).ranked
    for v, c in found + beam:
        assert v == pytest.approx(rcs[c])
