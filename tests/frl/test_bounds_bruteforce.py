"""Bound soundness and early termination against brute-force enumeration
(the exact oracle of ``_brute``), and the compiled candidate kernel against
an independent re-implementation of the candidate rules (Chen & Rudin,
AISTATS 2018, Appendices A and B)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rulekit.frl import (
    candidate_set,
    frl_curiosity,
    frl_prefix_bound,
    frl_should_stop,
    soft_curiosity,
    soft_prefix_bound,
    soft_should_stop,
)

from ._brute import (
    all_lists,
    best_completions,
    frl_value,
    is_falling,
    objective,
    prefix_objective,
    proportions,
    random_instance,
    soft_value,
)

W_GRID = [0.5, 1.0, 2.0, 3.0, 7.0, 2.5]
C_GRID = [0.0, 1e-3, 1e-2, 0.05]
C1_GRID = [0.01, 0.1, 0.5, 5.0]
TOL = 1e-12


def _prefix_state(counts, n, w, C, C1=None):
    """L(e) (or L~(e)), last / minimum proportion and remainder of prefix e
    (exact values from the oracle, handed to the engine's bounds as floats)."""
    pre = counts[:-1]
    value = prefix_objective(pre, n, w, C, C1)
    props = proportions(pre)
    last = props[-1] if props else 1
    amin = min(props) if props else 1
    return float(value), float(last), float(amin), counts[-1]


def _params(rng):
    return (float(rng.choice(W_GRID)), float(rng.choice(C_GRID)), float(rng.choice(C1_GRID)))


@pytest.mark.slow  # about 6 CPU s
def test_bounds_and_stops_never_exceed_best_completion():
    rng = np.random.default_rng(2024)
    cases = {"frl_bound": 0, "frl_stop": 0, "soft_bound": 0, "soft_stop": 0}
    for _ in range(1500):
        A, y = random_instance(rng)
        n = len(y)
        lists = all_lists(A, y)
        for _rep in range(2):
            w, C, C1 = _params(rng)
            best_f = best_completions(lists, frl_value(w, C))
            best_s = best_completions(lists, soft_value(w, C, C1))
            for order, counts in lists.items():
                # FRL: feasible prefixes are those whose "prefix + else" falls
                if is_falling(counts):
                    Le, last, _, (rp, rn) = _prefix_state(counts, n, w, C)
                    bound = frl_prefix_bound(Le, last, rp, rn, w, C, n)
                    closed = float(objective(counts, w, C))
                    assert bound <= float(best_f[order]) + TOL, (A, y, order, w, C)
                    assert bound <= closed + TOL
                    cases["frl_bound"] += 1
                    if frl_should_stop(last, rp, rn, w, C, n):
                        assert closed <= float(best_f[order]) + TOL, (A, y, order, w, C)
                        cases["frl_stop"] += 1
                # softFRL: every prefix
                Le, _, amin, (rp, rn) = _prefix_state(counts, n, w, C, C1)
                bound = soft_prefix_bound(Le, amin, rp, rn, w, C, C1, n)
                closed = float(objective(counts, w, C, C1))
                assert bound <= float(best_s[order]) + TOL, (A, y, order, w, C, C1)
                assert bound <= closed + TOL
                cases["soft_bound"] += 1
                if soft_should_stop(amin, rp, rn, w, C, C1, n):
                    assert closed <= float(best_s[order]) + TOL, (A, y, order, w, C, C1)
                    cases["soft_stop"] += 1
    # the random instances really exercise every rule
    assert min(cases.values()) > 1000, cases


def _expected_frl_candidates(lists, order, counts, n, w, C, lam):
    """Appendix A's candidate rules, written independently of the kernel."""
    _, last, _, (rp, rn) = _prefix_state(counts, n, w, C)
    out = {}
    for child, ccounts in lists.items():
        if len(child) != len(order) + 1 or child[:-1] != order:
            continue
        l = child[-1]
        p, q = ccounts[-2]
        p2, q2 = ccounts[-1]
        alpha = p / (p + q)
        if not (alpha <= last and w * p > q and p2 / (p2 + q2) <= alpha):
            continue
        new = float(prefix_objective(ccounts[:-1], n, w, C))
        out[l] = (p, q, frl_prefix_bound(new, alpha, p2, q2, w, C, n),
                  frl_curiosity(p, q, rp, lam))
    return out


def _expected_soft_candidates(lists, order, counts, n, w, C, C1, lam):
    """Appendix B's candidate rules, written independently of the kernel."""
    _, _, amin, (rp, rn) = _prefix_state(counts, n, w, C, C1)
    out = {}
    for child, ccounts in lists.items():
        if len(child) != len(order) + 1 or child[:-1] != order:
            continue
        l = child[-1]
        p, q = ccounts[-2]
        p2, q2 = ccounts[-1]
        alpha = p / (p + q)
        new = float(prefix_objective(ccounts[:-1], n, w, C, C1))
        new_min = min(amin, alpha)
        out[l] = (p, q, soft_prefix_bound(new, new_min, p2, q2, w, C, C1, n),
                  soft_curiosity(p, q, amin, rp, lam),
                  soft_should_stop(new_min, p2, q2, w, C, C1, n))
    return out


def _same_up_to_ties(got, expected, incumbent):
    """Kernel keeps bound < incumbent; bounds within 1e-9 of it may go either
    way (the kernel and the test sum the same terms in another order)."""
    sure_in = {l for l, v in expected.items() if v[2] < incumbent - 1e-9}
    maybe = {l for l, v in expected.items() if abs(v[2] - incumbent) <= 1e-9}
    assert sure_in <= set(got) <= sure_in | maybe


def test_candidate_kernels_match_spec_and_never_discard_better_lists():
    rng = np.random.default_rng(77)
    checked = pruned = 0
    for _ in range(150):
        A, y = random_instance(rng)
        n = len(y)
        lists = all_lists(A, y)
        w, C, C1 = _params(rng)
        lam = float(rng.choice([0.0, 0.8, 1.0]))
        best_f = best_completions(lists, frl_value(w, C))
        best_s = best_completions(lists, soft_value(w, C, C1))
        opt_f, opt_s = float(best_f[()]), float(best_s[()])
        for order, counts in lists.items():
            # FRL kernel on feasible prefixes whose rules pass Cor. 4.5
            props = proportions(counts)
            if is_falling(counts) and all(w * a > b for a, b in counts[:-1]):
                expected = _expected_frl_candidates(lists, order, counts, n, w, C, lam)
                got = candidate_set(A, y, order, w=w, C=C, curiosity_lambda=lam)
                assert set(got) == set(expected), (A, y, order, w, C)
                for l, (p, q, bound, cur) in expected.items():
                    assert (got[l]["p"], got[l]["q"]) == (p, q)
                    assert got[l]["bound"] == pytest.approx(bound, abs=1e-12)
                    assert got[l]["curiosity"] == pytest.approx(cur, abs=1e-12)
                    assert cur > 0
                # with the optimum as incumbent, pruning keeps exactly the
                # candidates whose bound is below it, and discards nothing better
                got_inc = candidate_set(A, y, order, w=w, C=C, incumbent=opt_f,
                                        curiosity_lambda=lam)
                _same_up_to_ties(got_inc, expected, opt_f)
                for l in set(expected) - set(got_inc):
                    assert best_f[order + (l,)] >= opt_f - TOL
                    pruned += 1
                checked += 1
            del props
            # softFRL kernel on every prefix
            expected = _expected_soft_candidates(lists, order, counts, n, w, C, C1, lam)
            got = candidate_set(A, y, order, w=w, C=C, C1=C1, curiosity_lambda=lam)
            assert set(got) == set(expected), (A, y, order, w, C, C1)
            for l, (p, q, bound, cur, stop) in expected.items():
                assert got[l]["bound"] == pytest.approx(bound, abs=1e-12)
                assert got[l]["curiosity"] == pytest.approx(cur, abs=1e-12)
                assert got[l]["stop_after"] == stop
                if stop:
                    child = order + (l,)
                    assert objective(lists[child], w, C, C1) <= best_s[child]
            got_inc = candidate_set(A, y, order, w=w, C=C, C1=C1, incumbent=opt_s,
                                    curiosity_lambda=lam)
            _same_up_to_ties(got_inc, expected, opt_s)
            for l in set(expected) - set(got_inc):
                assert best_s[order + (l,)] >= opt_s - TOL
                pruned += 1
    assert checked > 300 and pruned > 300, (checked, pruned)


def test_example_candidate_sets(example):
    A, y = example
    root = candidate_set(A, y, [], w=2, C=0.01)
    assert set(root) == {0, 1, 2}
    cur = np.array([root[l]["curiosity"] for l in (0, 1, 2)])
    assert cur == pytest.approx([46 / 75, 3 / 5, 12 / 25], abs=1e-12)
    assert cur / cur.sum() == pytest.approx([46 / 127, 45 / 127, 36 / 127], abs=1e-12)
    assert [root[l]["bound"] for l in (0, 1, 2)] == pytest.approx([0.27, 53 / 150, 0.51], abs=1e-12)
    pruned = candidate_set(A, y, [], w=2, C=0.01, incumbent=0.42)
    assert set(pruned) == {0, 1}
    cur = np.array([pruned[l]["curiosity"] for l in (0, 1)])
    assert cur / cur.sum() == pytest.approx([46 / 91, 45 / 91], abs=1e-12)
    after_a1 = candidate_set(A, y, [0], w=2, C=0.01)
    assert set(after_a1) == {1, 2}
    assert after_a1[1]["bound"] == pytest.approx(0.28, abs=1e-12)
    assert after_a1[2]["bound"] == pytest.approx(0.43, abs=1e-12)
    assert after_a1[1]["curiosity"] == pytest.approx(2 / 3, abs=1e-12)
    assert after_a1[2]["curiosity"] == pytest.approx(7 / 15, abs=1e-12)
    assert set(candidate_set(A, y, [0], w=2, C=0.01, incumbent=0.42)) == {1}
    assert candidate_set(A, y, [1], w=2, C=0.01) == {}      # a1, a3 would rise to 1
    assert candidate_set(A, y, [0, 1], w=2, C=0.01) == {}   # a3 would rise to 1
    soft = candidate_set(A, y, [0, 1], w=2, C=0.01, C1=0.5)
    assert set(soft) == {2}
    assert soft[2]["curiosity"] == pytest.approx(0.2, abs=1e-12)
    assert soft[2]["stop_after"] is True
    assert soft[2]["bound"] == pytest.approx(119 / 300, abs=1e-12)
    soft_root = candidate_set(A, y, [], w=2, C=0.01, C1=0.5)
    assert [soft_root[l]["curiosity"] for l in (0, 1, 2)] == pytest.approx(
        [46 / 75, 3 / 5, 12 / 25], abs=1e-12)
    assert math.isclose(soft_root[0]["bound"], 0.261263, abs_tol=5e-7)
