"""Objective, penalty and prefix bounds: a worked example of ten rows and three
antecedents (exact, with Fractions where no square root is involved; every
figure was computed by hand from the formulas of Chen & Rudin, AISTATS 2018,
Sections 2, 4 and 5) and identities."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from rulekit.frl import (
    frl_curiosity,
    frl_prefix_bound,
    frl_should_stop,
    list_objective,
    monotonicity_penalty,
    risk_numerator,
    rule_risk,
    running_minimum,
    soft_bound_terms,
    soft_curiosity,
    soft_prefix_bound,
    soft_should_stop,
)

from ._brute import all_lists, is_falling, objective
from .conftest import A1, A2, A3, EXAMPLE_A, EXAMPLE_Y

W, C, C1, N = F(2), F(1, 100), F(1, 2), 10

# Spec table "All 16 compatible lists": order -> (counts, L, S, L~).
SIXTEEN = {
    (): ([(5, 5)], F(50, 100), 0, F(50, 100)),
    (A1,): ([(2, 1), (3, 4)], F(51, 100), 0, F(51, 100)),
    (A2,): ([(3, 2), (2, 3)], F(51, 100), 0, F(51, 100)),
    (A3,): ([(2, 2), (3, 3)], F(51, 100), 0, F(51, 100)),
    (A1, A2): ([(2, 1), (2, 1), (1, 3)], F(42, 100), 0, F(42, 100)),
    (A1, A3): ([(2, 1), (1, 1), (2, 3)], F(52, 100), 0, F(52, 100)),
    (A2, A1): ([(3, 2), (1, 0), (1, 3)], F(42, 100), F(2, 5), F(62, 100)),
    (A2, A3): ([(3, 2), (1, 0), (1, 3)], F(42, 100), F(2, 5), F(62, 100)),
    (A3, A1): ([(2, 2), (1, 0), (2, 3)], F(52, 100), F(1, 2), F(77, 100)),
    (A3, A2): ([(2, 2), (2, 0), (1, 3)], F(42, 100), F(1, 2), F(67, 100)),
    (A1, A2, A3): ([(2, 1), (2, 1), (1, 0), (0, 3)], F(23, 100), F(1, 3), F(119, 300)),
    (A1, A3, A2): ([(2, 1), (1, 1), (2, 0), (0, 3)], F(23, 100), F(1, 2), F(48, 100)),
    (A2, A1, A3): ([(3, 2), (1, 0), (1, 0), (0, 3)], F(23, 100), F(4, 5), F(63, 100)),
    (A2, A3, A1): ([(3, 2), (1, 0), (1, 0), (0, 3)], F(23, 100), F(4, 5), F(63, 100)),
    (A3, A1, A2): ([(2, 2), (1, 0), (2, 0), (0, 3)], F(23, 100), 1, F(73, 100)),
    (A3, A2, A1): ([(2, 2), (2, 0), (1, 0), (0, 3)], F(23, 100), 1, F(73, 100)),
}


def fprops(counts):
    return [F(a, a + b) for a, b in counts]


def prefix_objective(prefix_counts, w=W, c=C, n=N):
    """L(e): risk of the rows the prefix captures plus C per rule."""
    return sum((risk_numerator(a, b, w) for a, b in prefix_counts), F(0)) / n + c * len(prefix_counts)


def test_sixteen_lists_exact():
    lists = all_lists(EXAMPLE_A, EXAMPLE_Y)
    assert set(lists) == set(SIXTEEN)
    for order, (counts, L, S, Ls) in SIXTEEN.items():
        assert lists[order] == counts, order
        assert list_objective(counts, W, C) == L, order
        assert monotonicity_penalty(fprops(counts)) == S, order
        assert list_objective(counts, W, C, C1) == Ls, order
        # the tests' own oracle agrees with the hand-computed table too
        assert objective(counts, W, C) == L and objective(counts, W, C, C1) == Ls, order
        # falling <=> S == 0 (invariant 3)
        assert is_falling(counts) == (S == 0), order
        # floats agree with the exact values
        assert list_objective(counts, 2.0, 0.01) == pytest.approx(float(L), abs=1e-12)
        assert list_objective(counts, 2.0, 0.01, 0.5) == pytest.approx(float(Ls), abs=1e-12)


def test_optima_of_example():
    frl = {o: v[1] for o, v in SIXTEEN.items() if v[2] == 0}
    assert min(frl.values()) == F(42, 100)
    assert [o for o, v in frl.items() if v == F(42, 100)] == [(A1, A2)]
    soft = {o: v[3] for o, v in SIXTEEN.items()}
    assert min(soft, key=soft.get) == (A1, A2, A3)
    hundred = {o: list_objective(v[0], W, C, F(100)) for o, v in SIXTEEN.items()}
    assert min(hundred.values()) == F(42, 100)
    assert running_minimum(fprops(SIXTEEN[(A1, A2, A3)][0])) == [F(2, 3)] * 3 + [0]


def test_hand_check_a1_a2():
    # rule a1 (2,1): 2*2 > 1 -> predicts 1, pays its negative
    assert rule_risk(2, 1, W, N) == F(1, 10)
    assert rule_risk(1, 3, W, N) == F(2, 10)   # else predicts 0, pays w per positive


@pytest.mark.parametrize("w", [F(1, 3), F(1), F(2), F(7), F(5, 2)])
def test_rule_risk_is_min(w):
    for p in range(8):
        for q in range(8):
            assert risk_numerator(p, q, w) == min(w * p, q)
            # threshold test w p > q  <=>  p/(p+q) > 1/(1+w)
            if p + q:
                assert (w * p > q) == (F(p, p + q) > 1 / (1 + w))


def test_penalty_uses_running_minimum():
    assert monotonicity_penalty([F(1, 2), F(1, 5), F(2, 5), F(3, 10)]) == F(3, 10)
    assert monotonicity_penalty([0.5, 0.2, 0.4, 0.3]) == pytest.approx(0.3, abs=1e-15)
    assert monotonicity_penalty([F(3, 5), F(1), F(1), F(0)]) == F(4, 5)


def test_running_minimum_properties():
    rng = np.random.default_rng(5)
    for _ in range(200):
        a = list(rng.random(rng.integers(1, 7)))
        p = running_minimum(a)
        assert p[0] == a[0]
        assert all(p[j] >= p[j + 1] for j in range(len(p) - 1))
        assert all(pj <= aj for pj, aj in zip(p, a))
        assert running_minimum(p) == p                       # idempotent
        s = sorted(a, reverse=True)
        assert running_minimum(s) == s                       # identity on falling lists


# FRL prefix bounds table: prefix -> (L(e), alpha_last, rem, three terms, L*, stop)
FRL_TABLE = {
    (): (F(0), F(1), (5, 5), (F(1, 100), F(1), F(1, 2)), F(1, 100), False),
    (A1,): (F(11, 100), F(2, 3), (3, 4), (F(16, 100), F(6, 10), F(4, 10)), F(27, 100), False),
    (A2,): (F(21, 100), F(3, 5), (2, 3), (F(43, 300), F(4, 10), F(3, 10)), F(53, 150), False),
    (A3,): (F(21, 100), F(1, 2), (3, 3), (F(31, 100), F(6, 10), F(3, 10)), F(51, 100), True),
    (A1, A2): (F(22, 100), F(2, 3), (1, 3), (F(6, 100), F(2, 10), F(3, 10)), F(28, 100), False),
    (A1, A3): (F(22, 100), F(1, 2), (2, 3), (F(21, 100), F(4, 10), F(3, 10)), F(43, 100), False),
}
# best falling completion of each prefix
FRL_BEST = {(): F(42, 100), (A1,): F(42, 100), (A2,): F(51, 100), (A3,): F(51, 100),
            (A1, A2): F(42, 100), (A1, A3): F(52, 100)}


@pytest.mark.parametrize("prefix", list(FRL_TABLE))
def test_frl_bound_table(prefix):
    Le, a_last, (rp, rn), terms, Lstar, stop = FRL_TABLE[prefix]
    counts = SIXTEEN[prefix][0]
    assert counts[-1] == (rp, rn)
    assert prefix_objective(counts[:-1]) == Le
    props = fprops(counts[:-1])
    assert (props[-1] if props else 1) == a_last
    assert (1 / a_last - 1) * rp / N + C == terms[0]
    assert W * rp / N == terms[1]
    assert F(rn, N) == terms[2]
    assert frl_prefix_bound(Le, a_last, rp, rn, W, C, N) == Lstar
    assert frl_should_stop(a_last, rp, rn, W, C, N) is stop
    assert Lstar <= FRL_BEST[prefix]
    # compiled-twin inputs (floats) agree
    assert frl_prefix_bound(float(Le), float(a_last), rp, rn, 2.0, 0.01, N) == pytest.approx(
        float(Lstar), abs=1e-12)


# softFRL bounds table: prefix -> (L~(e), alpha_min, B1, G, Tm, L~*, stop)
SOFT_TABLE = {
    (): (0, 1, 0.01, 0.01, 0.5, 0.01, False),
    (A1,): (0.11, F(2, 3), 0.16, 0.151263, 0.4, 0.261263, False),
    (A2,): (0.21, F(3, 5), 0.143333, 0.142456, 0.3, 0.352456, False),
    (A3,): (0.21, F(1, 2), 0.91, 0.234597, 0.3, 0.444597, False),
    (A1, A2): (0.22, F(2, 3), 0.06, 0.06, 0.2, 0.28, False),
    (A1, A3): (0.22, F(1, 2), 0.21, 0.192456, 0.3, 0.412456, False),
    (A2, A1): (0.42, F(3, 5), 0.076667, 0.076667, 0.2, 0.496667, False),
    (A3, A2): (0.47, F(1, 2), 0.11, 0.11, 0.2, 0.58, False),
    (A1, A2, A3): (F(119, 300), F(2, 3), math.inf, math.inf, 0, F(119, 300), True),
}
SOFT_BEST = {(): F(119, 300), (A1,): F(119, 300), (A1, A2): F(119, 300), (A2,): F(51, 100),
             (A3,): F(51, 100), (A1, A3): F(48, 100), (A2, A1): F(62, 100),
             (A3, A2): F(67, 100), (A1, A2, A3): F(119, 300)}


@pytest.mark.parametrize("prefix", list(SOFT_TABLE))
def test_soft_bound_table(prefix):
    Le, amin, b1, g, tm, Lstar, stop = SOFT_TABLE[prefix]
    counts = SIXTEEN[prefix][0]
    rp, rn = counts[-1]
    props = fprops(counts[:-1])
    exact_le = prefix_objective(counts[:-1]) + C1 * monotonicity_penalty(props)
    assert exact_le == pytest.approx(float(Le), abs=1e-12)
    assert (min(props) if props else 1) == amin
    got = soft_bound_terms(float(amin), rp, rn, 2.0, 0.01, 0.5, N)
    assert got == pytest.approx((b1, g, tm), abs=5e-7)   # table rounded to 6 digits
    bound = soft_prefix_bound(float(exact_le), float(amin), rp, rn, 2.0, 0.01, 0.5, N)
    assert bound == pytest.approx(float(Lstar), abs=5e-7)
    assert soft_should_stop(float(amin), rp, rn, 2.0, 0.01, 0.5, N) is stop
    assert bound <= float(SOFT_BEST[prefix]) + 1e-12


def test_soft_bound_a3_detail_and_a2a1_rule_cost():
    # (a3): alpha~ = 1/2 >= alpha_min = 1/2 so B1 = 0.3 + 0.01 + 0.6 + 0
    b1, _, _ = soft_bound_terms(F(1, 2), 3, 3, W, C, C1, N)
    assert b1 == F(91, 100)
    # (a2, a1): rule a1 costs 0 + C + C1 (1 - 3/5) = 0.21
    with_a1 = prefix_objective([(3, 2), (1, 0)]) + C1 * monotonicity_penalty([F(3, 5), F(1)])
    without = prefix_objective([(3, 2)])
    assert with_a1 - without == F(21, 100)
    assert with_a1 == F(42, 100)


def test_soft_bound_root_uses_g_of_one():
    # root: zeta = 1 so the interval is empty and G = g(1) = C
    _, g, _ = soft_bound_terms(1.0, 5, 5, 2.0, 0.01, 0.5, N)
    assert g == pytest.approx(0.01, abs=1e-15)


def test_curiosities_of_example():
    assert frl_curiosity(2, 1, 5, F(4, 5)) == F(46, 75)
    assert frl_curiosity(3, 2, 5, F(4, 5)) == F(3, 5)
    assert frl_curiosity(2, 2, 5, F(4, 5)) == F(12, 25)
    assert frl_curiosity(2, 1, 3, F(4, 5)) == F(2, 3)
    assert frl_curiosity(1, 1, 3, F(4, 5)) == F(7, 15)
    # softFRL at the root equals FRL (alpha <= alpha_min = 1)
    for p, q in [(2, 1), (3, 2), (2, 2)]:
        assert soft_curiosity(p, q, 1.0, 5, 0.8) == pytest.approx(float(frl_curiosity(p, q, 5, F(4, 5))))
    # after (a1, a2): a3 captures (1, 0), alpha = 1 > 1.01 * 2/3 -> first term 0
    assert soft_curiosity(1, 0, 2 / 3, 1, 0.8) == pytest.approx(0.2, abs=1e-15)
    # guard: no remaining positive -> share term 0
    assert soft_curiosity(0, 3, 0.5, 0, 0.8) == 0


def test_soft_curiosity_fades_within_one_percent():
    amin = 0.5
    assert soft_curiosity(1, 1, amin, 10, 1.0) == pytest.approx(0.5)
    assert soft_curiosity(101, 99, amin, 1000, 1.0) == pytest.approx(
        101 * 0.5 - 100 * 0.505, abs=1e-12)
    assert soft_curiosity(102, 98, amin, 1000, 1.0) == 0


def _dense_inf(zeta, amin, rp, C, C1, n):
    betas = np.linspace(zeta, 1.0, 200_001)[1:]
    g = (1 / betas - 1) * rp / n + C + C1 * (betas - amin)
    return min(g.min(), (1 / zeta - 1) * rp / n + C + C1 * (zeta - amin))


def test_G_equals_dense_minimisation():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(400):
        n = int(rng.integers(2, 60))
        rp = int(rng.integers(1, n))
        rn = int(rng.integers(1, n - rp + 1))
        w = float(rng.choice([0.5, 1, 2, 3, 7]))
        C = float(rng.choice([0, 1e-3, 1e-2, 0.05]))
        C1 = float(rng.choice([0.0, 0.01, 0.1, 0.5, 5]))
        amin = float(rng.choice([rng.uniform(0.01, 1), 1.0, rng.uniform(0.01, 0.3)]))
        zeta = max(amin, rp / (rp + rn), 1 / (1 + w))
        if zeta >= 1:
            continue
        _, g, _ = soft_bound_terms(amin, rp, rn, w, C, C1, n)
        assert g == pytest.approx(_dense_inf(zeta, amin, rp, C, C1, n), abs=1e-9)
        checked += 1
    assert checked > 200


def _risk_eq4(counts, probs, tau, w):
    """Eq. 4 evaluated group by group (= row by row) for stated probabilities."""
    n = sum(a + b for a, b in counts)
    total = F(0)
    for (a, b), p in zip(counts, probs):
        total += b if p > tau else w * a
    return total / n


def test_theorem_2_8_on_example():
    counts = SIXTEEN[(A1, A2)][0]
    probs = fprops(counts)
    assert _risk_eq4(counts, probs, F(1, 5), W) == F(1, 2)
    for tau in (F(1, 4), F(1, 3), F(1, 2), F(2, 3) - F(1, 10**9)):
        assert _risk_eq4(counts, probs, tau, W) == F(2, 5)
    assert _risk_eq4(counts, probs, F(2, 3), W) == 1
    assert list_objective(counts, W, 0) == _risk_eq4(counts, probs, 1 / (1 + W), W)


def test_theorem_2_8_random_lists():
    rng = np.random.default_rng(3)
    for _ in range(300):
        k = int(rng.integers(1, 6))
        counts = [(int(a), int(b)) for a, b in rng.integers(0, 9, size=(k, 2)) if a + b > 0]
        if not counts:
            continue
        w = F(int(rng.integers(1, 9)), int(rng.integers(1, 4)))
        probs = fprops(counts)
        tau_star = 1 / (1 + w)
        best = _risk_eq4(counts, probs, tau_star, w)
        assert best == list_objective(counts, w, 0)
        grid = {F(0), F(1)} | set(probs)
        grid |= {p + F(1, 10**9) for p in probs} | {p - F(1, 10**9) for p in probs if p > 0}
        for tau in grid:
            assert best <= _risk_eq4(counts, probs, tau, w)
