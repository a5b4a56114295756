"""The selection reads the clause masks without stacking them (issue 35), to the same result.

``ColumnMasks`` stands for the stacked ``(U, K)`` coverage matrix, and
``column_costs`` sums the restricted IP's column costs a block of rows at a
time: the selections and costs must be those of the stacked matrix, bit for
bit; stopped by ``should_stop``, each step returns a valid selection.
"""

import numpy as np
import pytest

from rulekit.colgen import _master
from rulekit.colgen._beam import Float32Rows
from rulekit.colgen._master import (ColumnMasks, column_costs, greedy_selection,
                                    improve_selection, prune_selection, rule_objective)


def _problem(seed, U=3000, K=40):
    rng = np.random.default_rng(seed)
    masks = [rng.random(U) < rng.uniform(0.05, 0.6) for _ in range(K)]
    wp = np.where(rng.random(U) < 0.4, rng.random(U) * 3, 0.0)
    wq = np.where(wp > 0, 0.0, rng.random(U) * 3)
    n_lits = [int(k) for k in rng.integers(1, 5, K)]
    return masks, wp, wq, n_lits


@pytest.mark.parametrize("seed", range(4))
def test_masks_select_as_the_stacked_matrix(seed, monkeypatch):
    masks, wp, wq, n_lits = _problem(seed)
    A = np.column_stack(masks)
    M = ColumnMasks(masks, A.shape[0])
    assert np.array_equal(M[:, [3, 1, 7]], A[:, [3, 1, 7]])
    assert np.array_equal(M[np.array([5, 2, 9])], A[[5, 2, 9]])
    assert M[:, 4] is masks[4]
    order = np.random.default_rng(seed).permutation(len(masks))
    args = (n_lits, wp, wq, 24, 0.5, 0.1)
    g = greedy_selection(A, *args, order)
    assert greedy_selection(M, *args, order) == g
    assert (improve_selection(g[0], M, *args, candidates=order[:20])
            == improve_selection(g[0], A, *args, candidates=order[:20]))
    assert (prune_selection(g[0], M, n_lits, wp, wq, 0.5, 0.1)
            == prune_selection(g[0], A, n_lits, wp, wq, 0.5, 0.1))
    # the costs summed by blocks of rows: the same bits as the whole product's sum
    small = improve_selection(g[0], M, *args, candidates=order[:20])
    monkeypatch.setattr(_master, "SUM_BLOCK", 257)
    assert np.array_equal(column_costs(M, wq), (wq[:, None] * A).sum(axis=0))
    # the local search on booleans read a block at a time: on whole weights the same
    # sums, so the same moves; on these fractional ones, the same result here
    assert improve_selection(g[0], M, *args, candidates=order[:20]) == small
    whole = (np.round(wp * 4), np.round(wq * 4))
    blocks = improve_selection(g[0], M, n_lits, *whole, 24, 0.5, 0.1, candidates=order[:20])
    monkeypatch.setattr(_master, "SUM_BLOCK", 65536)
    assert blocks == improve_selection(g[0], A, n_lits, *whole, 24, 0.5, 0.1,
                                       candidates=order[:20])


def test_stopped_selection_steps_return_valid_selections():
    masks, wp, wq, n_lits = _problem(7)
    M = ColumnMasks(masks, len(wp))
    args = (n_lits, wp, wq, 24, 0.0, 0.0)
    calls = []

    def stop_after(n):
        calls.clear()
        return lambda: calls.append(1) or len(calls) > n

    full, _ = greedy_selection(M, *args, range(len(masks)))
    chosen, value = greedy_selection(M, *args, range(len(masks)), should_stop=stop_after(5))
    # a prefix of the greedy's choices, its objective exact
    assert chosen == [k for k in full if k < 5]
    assert value == rule_objective(M[:, chosen], [n_lits[k] for k in chosen], wp, wq, 0, 0)
    assert greedy_selection(M, *args, range(len(masks)), should_stop=lambda: True) == (
        [], rule_objective(M[:, []], [], wp, wq, 0, 0))
    better, v2 = improve_selection(chosen, M, *args, should_stop=stop_after(1))
    assert v2 <= value and sum(1 + n_lits[k] for k in better) <= 24


def test_pruning_asks_the_clock_before_every_trial(monkeypatch):
    """A pass of the pruning tries each clause kept; on millions of rows a trial reads
    a mask, so the clock is asked between trials, not only between passes: stopped
    after its first trial, it has valued two selections (the one given, then one
    trial) and returns a valid selection at that value."""
    masks, wp, wq, n_lits = _problem(3)
    M = ColumnMasks(masks, len(wp))
    reads = []
    counted = _master._counts_objective

    def counting(*a):
        reads.append(1)
        return counted(*a)

    chosen = list(range(12))
    unstopped, _ = prune_selection(chosen, M, n_lits, wp, wq, 0.0, 0.0)
    assert len(unstopped) < len(chosen)       # this selection does prune
    monkeypatch.setattr(_master, "_counts_objective", counting)
    calls = []
    kept, value = prune_selection(chosen, M, n_lits, wp, wq, 0.0, 0.0,
                                  should_stop=lambda: calls.append(1) or len(calls) > 2)
    assert len(reads) == 2
    assert value == rule_objective(M[:, kept], [n_lits[k] for k in kept], wp, wq, 0.0, 0.0)


def test_float32_rows_product():
    rng = np.random.default_rng(0)
    X = rng.random((1000, 30)) < 0.5
    r = rng.normal(size=(3, 1000)).astype(np.float32)
    # within one block: the float32 product itself
    assert np.array_equal(r @ Float32Rows(X), r @ X.astype(np.float32))
    Xl = rng.random((150_000, 5)) < 0.5
    rl = rng.normal(size=150_000).astype(np.float32)
    got = rl @ Float32Rows(Xl)
    assert got.dtype == np.float32 and got.shape == (5,)
    np.testing.assert_allclose(got, rl.astype(np.float64) @ Xl, rtol=1e-5, atol=1e-2)


@pytest.mark.parametrize("seed", range(6))
def test_pruning_drops_what_a_full_recount_would_drop(seed):
    """prune_selection counts a trial as the kept clauses' cover less the dropped one's:
    the clauses it keeps and their objective are those of recounting every trial from
    its masks (written here from the loss's definition), bit for bit."""
    masks, wp, wq, n_lits = _problem(seed, U=900, K=14)
    rng = np.random.default_rng(seed)
    # whole and fractional weights; penalties that make some drops pay
    if seed % 2:
        wp, wq = np.round(wp * 3), np.round(wq * 3)
    lam0, lam1 = [(0.0, 0.0), (2.0, 0.5), (15.0, 3.0)][seed % 3]
    chosen = [int(k) for k in rng.permutation(14)[:9]]

    def objective(sel):
        counts = np.sum([masks[j] for j in sel], axis=0) if sel else np.zeros(len(wp))
        return (float(wp[counts == 0].sum() + (wq * counts).sum())
                + float(sum(lam0 + lam1 * n_lits[j] for j in sel)))

    want, best = list(chosen), objective(chosen)
    changed = True
    while changed:
        changed = False
        for k in sorted(want, key=lambda j: -n_lits[j]):
            trial = [j for j in want if j != k]
            if objective(trial) <= best + 1e-9:
                want, best, changed = trial, min(best, objective(trial)), True
                break
    got, value = prune_selection(chosen, ColumnMasks(masks, len(wp)), n_lits, wp, wq, lam0, lam1)
    assert got == want and value == best
    assert value == rule_objective(np.column_stack([masks[j] for j in got]) if got else
                                   np.zeros((len(wp), 0), dtype=bool),
                                   [n_lits[j] for j in got], wp, wq, lam0, lam1)
