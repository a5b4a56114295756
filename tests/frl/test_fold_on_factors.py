"""Folding the rows on the conditions the antecedents use (issue 35).

The falling-list search sees a row only through the antecedents that take
it, so rows that agree on every condition an antecedent uses, and on their
class, are one row of their summed weight
(:func:`rulekit.frl._search._fold_on_factors`).  The folded data must give
every antecedent the same weighted counts as the rows (checked here against
a count over the unfolded rows, written with numpy), and a search must return
the same list, objective, bound and trace whether it folds or not.
"""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.datasets import load_compas
from rulekit.frl import FallingRuleListClassifier, SoftFallingRuleListClassifier
from rulekit.frl import _search


def _instance(seed, n_rows=400, n_f=12, weights="none"):
    """Random conditions of which the antecedents use about half, labels and weights."""
    rng = np.random.default_rng(seed)
    B = rng.random((n_rows, n_f)) < rng.uniform(0.1, 0.9, n_f)
    used = np.sort(rng.choice(n_f, n_f // 2, replace=False))
    # a signal in the used conditions, and noise, so that lists of several rules pay
    signal = (B[:, used[0]] & B[:, used[1]]) | B[:, used[2]]
    y = np.where(rng.random(n_rows) < 0.7, signal, rng.random(n_rows) < 0.5)
    items = [(int(a), -1) for a in used]
    items += [(int(a), int(b)) for i, a in enumerate(used) for b in used[i + 1:]
              if rng.random() < 0.5]
    w = {"none": None,
         "whole": rng.integers(1, 6, n_rows).astype(float),
         "fractional": np.round(rng.uniform(0.1, 3.0, n_rows), 2)}[weights]
    return B, y, np.array(items, dtype=np.int64), w


def _counts(B, y, w, items):
    """Weighted (positive, negative) rows each antecedent takes, from the rows one by one."""
    w = np.ones(len(y)) if w is None else w
    out = []
    for a, b in items:
        takes = B[:, a] & (B[:, b] if b >= 0 else True)
        out.append((w[takes & y].sum(), w[takes & ~y].sum()))
    return np.array(out)


@pytest.mark.parametrize("weights", ["none", "whole"])
@pytest.mark.parametrize("seed", range(4))
def test_folded_rows_count_what_the_rows_count(seed, weights):
    B, y, items, w = _instance(seed, weights=weights)
    folded = _search._fold_on_factors(B, items, y, w)
    assert folded is not None, "half the conditions unused: the rows must fold"
    fB, f_items, f_y, f_w = folded
    used = sorted({int(c) for c in items.ravel() if c >= 0})
    distinct = {(tuple(row[used]), bool(cls)) for row, cls in zip(B, y)}
    assert len(f_y) == len(distinct) < len(y)
    assert fB.shape == (len(distinct), len(used))
    assert f_w.sum() == (len(y) if w is None else w.sum())
    np.testing.assert_array_equal(_counts(fB, f_y, f_w, f_items), _counts(B, y, w, items))


def test_no_fold_for_fractional_weights_or_when_little_is_saved():
    B, y, items, w = _instance(0, weights="fractional")
    assert _search._fold_on_factors(B, items, y, w) is None
    # every condition used and all rows distinct: nothing to gain
    rng = np.random.default_rng(1)
    B = rng.random((200, 16)) < 0.5
    items = np.array([(a, -1) for a in range(16)], dtype=np.int64)
    assert _search._fold_on_factors(B, items, rng.random(200) < 0.5, None) is None


def _result_fields(r):
    return (r.prefix, r.objective, r.lower_bound, r.status, r.counts.tolist(),
            r.trace.objective.tolist(), r.trace.best_objective.tolist(),
            [r.trace.candidate_set_sizes(i).tolist() for i in range(0, len(r.trace.objective),
                                                                     37)])


@pytest.mark.parametrize("soft", [False, True])
@pytest.mark.parametrize("weights", ["none", "whole"])
def test_search_is_the_same_folded_or_not(soft, weights, monkeypatch):
    B, y, items, w = _instance(5, n_rows=1500, weights=weights)
    kwargs = dict(w=1.0, C=0.002, C1=0.5 if soft else None, n_iter=400, random_state=3,
                  factors=(B, [tuple(int(c) for c in it if c >= 0) for it in items]),
                  sample_weight=w)
    results = []
    for share in (1.0, 0.0):  # fold always, then never
        monkeypatch.setattr(_search, "FOLD_AT_MOST", share)
        results.append(_search.search(None, y, **kwargs))
    assert len(results[0].prefix) > 0
    assert _result_fields(results[0]) == _result_fields(results[1])


@pytest.mark.slow  # four default fits: 4 CPU s
@pytest.mark.parametrize("cls", [FallingRuleListClassifier, SoftFallingRuleListClassifier])
def test_fit_is_the_same_folded_or_not(cls, monkeypatch):
    X, y = load_compas(return_X_y=True)
    fits = []
    for share in (1.0, 0.0):
        monkeypatch.setattr(_search, "FOLD_AT_MOST", share)
        fits.append(cls().fit(X, y))
    a, b = fits
    assert a.result_.prefix == b.result_.prefix
    assert a.result_.objective == b.result_.objective
    assert a.result_.lower_bound == b.result_.lower_bound
    np.testing.assert_array_equal(a.result_.trace.objective, b.result_.trace.objective)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("n, n_f, chunk", [(1000, 7, 64), (70_000, 13, 1 << 16), (5, 3, 64),
                                           (0, 4, 64), (300, 0, 64)])
def test_rows_packed_a_block_at_a_time_are_the_rows_packed_at_once(n, n_f, chunk):
    """The factors are packed from the row-major rows a block of rows at a time (no
    transposed copy of every row): bit ``i`` of factor ``f`` is slot ``i``'s value."""
    rng = np.random.default_rng(n + n_f)
    F = rng.random((n, n_f)) < 0.5
    slots = rng.permutation(np.r_[np.arange(n), np.full(n // 7, -1)])
    bits, held = _search._pack_rows(F, slots, chunk)
    assert bits.shape == (n_f, (len(slots) + 63) // 64) and bits.dtype == np.uint64
    unpacked = np.unpackbits(bits.view(np.uint8), axis=1, bitorder="little")[:, :len(slots)]
    want = (F[np.maximum(slots, 0)] & (slots >= 0)[:, None]).T
    np.testing.assert_array_equal(unpacked.astype(bool), want)
    held_bits = np.unpackbits(held.view(np.uint8), bitorder="little")[:len(slots)]
    np.testing.assert_array_equal(held_bits.astype(bool), slots >= 0)
