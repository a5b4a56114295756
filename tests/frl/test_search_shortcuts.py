"""The search's shortcuts change nothing: the candidate cache, the cheap test
that spares softFRL the terms of its bound, and the lower bound of ``G`` it
uses.  The bound's terms are written here from the paper's formulas (Chen &
Rudin 2018, Eq. 10: ``B1``, ``G`` as a dense minimisation, ``Tm``), not
taken from the engine."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from rulekit.frl import _kernels, _search, search
from rulekit.frl._objective import (soft_bound_terms, soft_floor_constants, soft_g_floor,
                                    soft_terms_above)


def _terms_from_the_paper(amin, rp, rn, w, C, C1, n):
    """``(B1, G, Tm)`` of Eq. 10: ``G`` minimised on a dense grid (from above)."""
    rem = rp + rn
    alpha_rem = F(rp, rem)
    rise = max(alpha_rem - amin, 0)
    tm = F(min(w * rp, rn)) / n + C1 * rise
    if rp == 0 or rn == 0:
        return math.inf, math.inf, float(tm)
    b1 = math.inf
    if amin > 0:
        b1 = (1 / amin - 1) * F(rp, n) + C
        if alpha_rem >= amin:
            b1 += w * F(rp, n) + C1 * rise
    zeta = max(amin, alpha_rem, 1 / (1 + w))
    betas = np.linspace(float(zeta), 1.0, 5001)
    g = ((1 / betas - 1) * rp / n + float(C) + float(C1) * (betas - float(amin))).min()
    return float(b1), float(g), float(tm)


def _random_case(rng):
    n = int(rng.integers(4, 400))
    rp = int(rng.integers(0, n))
    rn = int(rng.integers(0, n - rp + 1))
    if rp + rn == 0:
        rn = 1
    w = F(int(rng.choice([1, 2, 3, 7])), int(rng.choice([1, 2])))
    C = F(int(rng.choice([0, 1, 10])), 1000)
    C1 = F(int(rng.choice([0, 1, 5, 10])), 10)
    return n, rp, rn, w, C, C1


def test_g_floor_is_the_minimum_over_tau_to_one():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n, rp, _, w, _, C1 = _random_case(rng)
        tau = 1 / (1 + float(w))
        betas = np.linspace(tau, 1.0, 40001)
        dense = ((1 / betas - 1) * rp / n + float(C1) * betas).min()
        h = soft_g_floor(rp, float(w), float(C1), n)
        assert h <= dense + 1e-12                      # never above the minimum
        assert h == pytest.approx(dense, abs=1e-6)     # and it is the minimum


def test_terms_above_never_claims_too_much():
    """Whenever the cheap test says the terms exceed d, they do (from the
    paper's formulas), for rules that set the list's minimum and rules that
    do not; and it does say so for a fair share of the cases far below."""
    rng = np.random.default_rng(5)
    said, far_below = 0, 0
    for _ in range(1500):
        n, rp, rn, w, C, C1 = _random_case(rng)
        alpha_min = F(int(rng.integers(0, 11)), 10)
        p, q = int(rng.integers(0, 30)), int(rng.integers(0, 30))
        if p + q == 0:
            p = 1
        alpha = F(p, p + q)
        sets_min = alpha < alpha_min
        new_min = alpha if sets_min else alpha_min
        b1, g, tm = _terms_from_the_paper(new_min, rp, rn, w, C, C1, n)
        least = min(b1, g, tm)
        b1_slope, tau, inv_n = soft_floor_constants(float(alpha_min), float(w), n)
        g_floor = soft_g_floor(rp, float(w), float(C1), n)
        for d in (least * 0.5, least - 1e-6, least, least + 1e-6, least * 2 + 1e-3):
            above = soft_terms_above(d, p, q, sets_min, float(new_min), rp, rn, float(w),
                                     float(C), float(C1), g_floor, b1_slope, tau, inv_n)
            if above:
                assert least > d - 1e-9, (n, rp, rn, w, C, C1, alpha_min, p, q, d, least)
                said += 1
            if d == least * 0.5 and least > 0:
                far_below += 1
    assert said > 0.3 * far_below


def test_search_terms_give_the_same_minimum_and_stop():
    """``exact_g=False`` may return a lower bound of G, never another minimum."""
    rng = np.random.default_rng(7)
    skipped = 0
    for _ in range(2000):
        n, rp, rn, w, C, C1 = _random_case(rng)
        amin = float(rng.choice([rng.uniform(0, 1), 1.0, 0.0]))
        args = (amin, rp, rn, float(w), float(C), float(C1), n)
        exact = soft_bound_terms(*args)
        fast = soft_bound_terms(*args, exact_g=False)
        assert min(fast) == min(exact)
        assert (fast[2] <= min(fast[:2])) == (exact[2] <= min(exact[:2]))
        skipped += fast[1] != exact[1]
    assert skipped > 20


def _kernel_candidates(A, y, prefix, w, C, C1, incumbent):
    """The compiled candidate kernel on the state ``prefix`` leaves; returns
    ``(survivors {l: bound}, pruned_low)``."""
    counts = _search.capture_counts(A, y, prefix)
    left = np.ones(len(y), bool)
    for l in prefix:
        left &= ~A[:, l]
    pc = (A & (left & y)[:, None]).sum(axis=0).astype(np.int64)
    qc = (A & (left & ~y)[:, None]).sum(axis=0).astype(np.int64)
    props = [a / (a + b) for a, b in counts[:-1]]
    alpha_min = min(props) if props else 1.0
    penalty = sum(max(props[k] - min(props[:k]), 0) for k in range(1, len(props)))
    numer = sum(float(min(w * a, b)) for a, b in counts[:-1])
    active = np.ones(A.shape[1], bool)
    active[list(prefix)] = False
    m = A.shape[1]
    cand, weight, bounds = np.empty(m, np.int64), np.empty(m), np.empty(m)
    stop, pen, low = np.empty(m, bool), np.empty(m), np.empty(1)
    k = _kernels.candidates(pc, qc, active, int(counts[-1, 0]), int(counts[-1, 1]), 1, 0,
                            float(alpha_min), numer, float(penalty), len(prefix), w, C, C1,
                            len(y), 0.8, incumbent, cand, weight, stop, pen, bounds, low,
                            _kernels.g_floor_table(int(y.sum()), w, C1, len(y)))
    return dict(zip(cand[:k].tolist(), bounds[:k].tolist())), low[0], (pc, qc, counts, props,
                                                                     numer, penalty, alpha_min)


@pytest.mark.slow  # about 3 CPU s
def test_soft_candidates_keep_the_exact_pruned_minimum():
    """Survivors and the least bound of the pruned rules are those of the
    formulas, although most pruned rules' terms are never computed."""
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(120):
        n, m = int(rng.integers(20, 120)), int(rng.integers(5, 40))
        A = rng.random((n, m)) < rng.uniform(0.1, 0.6)
        y = rng.random(n) < rng.uniform(0.2, 0.8)
        w, C, C1 = float(rng.choice([1, 2, 3])), float(rng.choice([0, 0.001, 0.01])), 0.5
        prefix = [int(l) for l in rng.choice(m, size=int(rng.integers(0, 3)), replace=False)]
        if len(_search.capture_counts(A, y, prefix)) != len(prefix) + 1:
            continue
        for incumbent in (0.05, 0.2, 0.4, math.inf):
            got, low, (pc, qc, counts, props, numer, penalty, amin) = _kernel_candidates(
                A, y, prefix, w, C, C1, incumbent)
            rp, rn = int(counts[-1, 0]), int(counts[-1, 1])
            want, want_low = {}, math.inf
            for l in range(m):
                p, q = int(pc[l]), int(qc[l])
                if l in prefix or p + q == 0 or (rp - p) + (rn - q) == 0:
                    continue
                alpha = p / (p + q)
                new_min = min(alpha, amin)
                obj = ((numer + min(w * p, q)) / n + C * (len(prefix) + 1)
                       + C1 * (penalty + max(alpha - amin, 0)))
                b1, g, tm = _terms_from_the_paper(F(new_min), rp - p, rn - q, F(w), F(C),
                                                  F(C1), n)
                bound = obj + min(b1, g, tm)
                if bound < incumbent - 1e-6:
                    want[l] = bound
                elif bound > incumbent + 1e-6:
                    want_low = min(want_low, bound)
            assert set(want) <= set(got)
            for l, b in want.items():
                assert got[l] == pytest.approx(b, abs=1e-6)
            pruned = [l for l in range(m) if l not in got]
            if want_low < math.inf and pruned:
                assert low == pytest.approx(want_low, abs=1e-6) or low < want_low
                assert low >= min(want_low, incumbent) - 1e-6
            checked += 1
    assert checked > 200


def _spy_runs(monkeypatch) -> list:
    """The list every search's ``_Run`` (its memo and cache) is appended to."""
    used = []
    real_run = _search._Run

    class Spy(real_run):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            used.append(self)

    monkeypatch.setattr(_search, "_Run", Spy)
    return used



def _same_search(a, b):
    """Two searches did the same: list, objective, status, bound and the whole trace."""
    assert a.prefix == b.prefix and a.objective == b.objective
    assert a.status == b.status and a.lower_bound == b.lower_bound
    assert np.array_equal(a.trace.objective, b.trace.objective)
    assert np.array_equal(a.trace.candidate_sizes, b.trace.candidate_sizes)

@pytest.mark.parametrize("C1", [None, 0.5])
@pytest.mark.parametrize("memo", [True, False])
def test_candidate_cache_changes_no_result(monkeypatch, C1, memo):
    """The same lists, trace and bound with the cache and without it."""
    rng = np.random.default_rng(13)
    used = _spy_runs(monkeypatch)
    for seed in range(6):
        n, m = 300, 60
        A = rng.random((n, m)) < 0.3
        y = (A[:, :3].sum(1) + rng.random(n) > 1.5).astype(int)
        runs = []
        for entries in (0, 10_000):
            monkeypatch.setattr(_search, "_CACHE_ENTRIES", entries)
            runs.append(search(A, y, w=2.0, C=0.002, C1=C1, n_iter=400, random_state=seed,
                               prefix_memo=memo))
        a, b = runs
        _same_search(a, b)
        # every prefix's remembered bound, not only the root's
        assert np.array_equal(used[-2].node_lb, used[-1].node_lb)
    # the cache did hold prefixes in the runs that had room
    assert all(run.cache[-2][0] > 0 for run in used[1::2])


@pytest.mark.parametrize("C1", [None, 0.5])
def test_caching_shallow_prefixes_at_once_changes_no_result(monkeypatch, C1):
    """Prefixes of up to ``STORE_FIRST_DEPTH`` rules are cached on their first visit.

    On rows enough for the blocked counts (and, with whole weights, the
    counts from the parent's), the lists, traces and node bounds are those
    of the search that caches every prefix on its second visit only, and of
    the search with no cache; the cache then holds more prefixes."""
    rng = np.random.default_rng(5)
    used = _spy_runs(monkeypatch)
    n, m = 12_000, 40
    A = rng.random((n, m)) < 0.3
    y = (A[:, :3].sum(1) + 1.4 * rng.random(n) > 1.2).astype(int)
    # whole weights: the rows fold and count from their parents' counts
    weight = rng.integers(1, 4, n)
    assert _kernels.block_words((int((y == 0).sum()) + 63) // 64) is not None
    runs, stored = [], []
    for entries, first in ((0, 2), (1_000_000, -1), (1_000_000, 2)):
        monkeypatch.setattr(_search, "_CACHE_ENTRIES", entries)
        monkeypatch.setattr(_kernels, "STORE_FIRST_DEPTH", first)
        runs.append(search(A, y, w=2.0, C=0.002, C1=C1, n_iter=300, random_state=3,
                           sample_weight=weight))
        stored.append(int(used[-1].cache[-2][0]))      # the entries the cache holds
    for other in runs[1:]:
        _same_search(runs[0], other)
    assert np.array_equal(used[-3].node_lb, used[-1].node_lb)
    assert np.array_equal(used[-2].node_lb, used[-1].node_lb)
    assert stored[2] > stored[1] > stored[0] == 0
    assert all(len(run.trace.objective) > 100 for run in runs)


@pytest.mark.parametrize("C1", [None, 0.5])
def test_every_count_kept_for_shallow_prefixes_changes_no_result(monkeypatch, C1):
    """Prefixes of up to ``FULL_COUNTS_DEPTH`` rules keep every antecedent's counts, so
    that the child of such a prefix loaded from the cache counts from them less its
    rule's rows.  The lists, traces and node bounds are those of the search that keeps
    no such counts (and so counts those children anew), and the counts were kept."""
    rng = np.random.default_rng(5)
    used = _spy_runs(monkeypatch)
    n, m = 12_000, 40
    A = rng.random((n, m)) < 0.3
    y = (A[:, :3].sum(1) + 1.4 * rng.random(n) > 1.2).astype(int)
    weight = rng.integers(1, 4, n)          # whole weights: counts from the parent's
    runs, kept = [], []
    for room in (0, 64 << 20):
        monkeypatch.setattr(_kernels, "FULL_COUNTS_BYTES", room)
        runs.append(search(A, y, w=2.0, C=0.002, C1=C1, n_iter=300, random_state=3,
                           sample_weight=weight))
        kept.append(int(used[-1].cache[14][0]))     # prefixes whose counts were kept
    a, b = runs
    _same_search(a, b)
    assert np.array_equal(used[-2].node_lb, used[-1].node_lb)
    assert kept[0] == 0 < kept[1]
    assert len(a.trace.objective) > 100
