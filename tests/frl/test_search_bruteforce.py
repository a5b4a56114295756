"""The search against brute-force optima on tiny instances: the optimum is
reached, a proof is never wrong, the reported lower bound is never above the
optimum, and the result's objective is the exact objective of its list (the
oracle of ``_brute`` computes everything from the paper's formulas)."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.frl import search

from ._brute import all_lists, exact, is_falling, objective, random_instance

N_INSTANCES = 600


def _optima(lists, w, C, C1):
    w, C, C1 = exact(w), exact(C), exact(C1)
    frl = min(objective(c, w, C) for c in lists.values() if is_falling(c))
    soft_all = min(objective(c, w, C, C1) for c in lists.values())
    # lists the softFRL sampler can build for sure: every rule takes a positive
    soft_reach = min(objective(c, w, C, C1) for c in lists.values()
                     if all(a > 0 for a, _ in c[:-1]))
    return float(frl), float(soft_all), float(soft_reach)


def _check_frl_output(res, A, y, w):
    props = res.proportions
    assert np.all(np.diff(props) <= 0)                       # falling, else included
    for (a, b) in res.counts[:-1]:
        assert w * a > b                                     # Cor. 4.5
        assert a + b >= 1                                    # captures a row
    assert res.counts[-1].sum() >= 1                         # else non-empty
    assert len(set(res.prefix)) == len(res.prefix)
    assert np.array_equal(res.probabilities, res.proportions)
    assert res.counts.sum() == len(y)


def _check_claims(res, optimum):
    """Status, bound and certificate never claim more than brute force allows."""
    cert = res.certificate
    assert res.status in ("optimal", "heuristic")
    if res.lower_bound is not None:
        assert res.lower_bound <= optimum + 1e-9
    if res.status == "optimal":
        assert res.objective == pytest.approx(optimum, abs=1e-9)
        assert cert.proved_optimal and cert.lower_bound == res.objective
        assert res.lower_bound == res.objective
    else:
        assert cert.lower_bound is None and not cert.proved_optimal
    return res.status == "optimal"


@pytest.mark.slow  # about 19 CPU s in all
@pytest.mark.parametrize("memo", [True, False])
def test_frl_and_soft_reach_brute_force_optimum(memo):
    rng = np.random.default_rng(99)
    proofs = 0
    for i in range(N_INSTANCES):
        A, y = random_instance(rng)
        w = float(rng.choice([0.5, 1.0, 2.0, 3.0, 7.0]))
        C = float(rng.choice([0.0, 1e-3, 1e-2, 0.05]))
        C1 = float(rng.choice([0.01, 0.1, 0.5, 5.0]))
        lists = all_lists(A, y)
        frl_opt, soft_opt, soft_reach = _optima(lists, w, C, C1)

        res = search(A, y, w=w, C=C, n_iter=2000, random_state=i, prefix_memo=memo)
        _check_frl_output(res, A, y, w)
        assert res.objective == pytest.approx(frl_opt, abs=1e-9), (A, y, w, C)
        assert res.objective == pytest.approx(
            float(objective(res.counts, w, C)), abs=1e-12)
        proofs += _check_claims(res, frl_opt)

        soft = search(A, y, w=w, C=C, C1=C1, n_iter=2000, random_state=i, prefix_memo=memo)
        assert soft_opt - 1e-9 <= soft.objective <= soft_reach + 1e-9, (A, y, w, C, C1)
        proofs += _check_claims(soft, soft_opt)   # a proof covers every list, reachable or not
        assert soft.objective <= frl_opt + 1e-9                 # invariant 9
        assert np.all(np.diff(soft.probabilities) <= 0)
        assert soft.objective == pytest.approx(
            float(objective(soft.counts, w, C, C1)), abs=1e-12)

        huge = search(A, y, w=w, C=C, C1=1e6, n_iter=2000, random_state=i, prefix_memo=memo)
        assert huge.objective == pytest.approx(frl_opt, abs=1e-9), (A, y, w, C)
        assert is_falling([tuple(c) for c in huge.counts])
    if memo:   # with the memo, tiny instances are solved with a proof
        assert proofs == 2 * N_INSTANCES
