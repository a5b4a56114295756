"""Counting the candidates faster (issue 35: the search on millions of rows).

:func:`rulekit.frl._kernels.count_candidates` counts the pairs' rows in
blocks of words on large data and over whole rows on small data, and
:func:`~rulekit.frl._kernels.count_captured` counts a prefix from its
parent's counts less the rows its last rule took; for whole weights both
gather the rows they are given into dense words first when those rows are
sparse in their words.  All must give exactly the counts of a brute-force
count over the unpacked rows (written here with numpy), with and without
weights, on words of one weight and on words of mixed weights, gathered or
not; and a fit must not change when blocking, counting from the parent or
gathering is forced on or off.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.bitset import pack
from rulekit.datasets import load_compas, load_heart
from rulekit.frl import FallingRuleListClassifier, SoftFallingRuleListClassifier
from rulekit.frl import _kernels, _search

#: whole rows pair after pair (None, the small-data way), blocks of 0 (whole rows),
#: 1, 2, 3 and 5 words, and one longer than any row
BLOCKS = (None, 0, 1, 2, 3, 5, 1 << 20)
UNTOUCHED = -7.0
#: no rows row-major: counts do not gather rows
NO_ROWS = (np.zeros((0, 1), np.uint64),) * 2


def _instance(seed, n_rows, n_f, kind):
    """Random factors, pairs sorted by first factor (some single), labels, weights."""
    rng = np.random.default_rng(seed)
    density = rng.uniform(0.05, 0.95, n_f)
    B = rng.random((n_rows, n_f)) < density
    if n_f > 1:
        B[:, -1] = False                    # a factor with no row: every pair with it is empty
    y = rng.random(n_rows) < rng.uniform(0.2, 0.8)
    if kind == "none":
        weights = None
    elif kind == "whole":
        # a few distinct whole weights (and zeros): every run of one weight gets its own words
        weights = rng.choice([0, 1, 1, 1, 2, 3, 7, 40], n_rows).astype(float)
    elif kind == "whole-mixed":
        # too many distinct weights for a word each: words of mixed weights
        weights = rng.integers(0, 40, n_rows).astype(float)
    else:
        weights = np.round(rng.uniform(0, 3, n_rows), 3)
        weights[rng.random(n_rows) < 0.1] = 0.0
    pairs = [(a, b) for a in range(n_f) for b in range(a + 1, n_f)]
    singles = [(a, -1) for a in range(n_f)]
    chosen = [p for p in pairs + singles if rng.random() < 0.7] or [(0, -1)]
    items = np.array(sorted(chosen, key=lambda p: p[0]), dtype=np.int64)
    return B, y, weights, items, rng


def _brute(B, rows, weights, rem, items):
    """Summed weight of the rows in ``rows`` that the antecedent captures and ``rem`` keeps."""
    w = np.ones(len(B)) if weights is None else weights
    keep = np.zeros(len(B), bool)
    keep[rows] = True
    keep &= rem
    out = np.empty(len(items))
    for l, (a, b) in enumerate(items):
        hit = keep & B[:, a] & (B[:, b] if b >= 0 else True)
        out[l] = w[hit].sum()
    return out


def _packed_rem(rem, slots):
    """``rem`` over the kernel's slots of one class, packed."""
    bits, _ = _search._pack_rows(rem[:, None], slots)  # one factor: the rows left
    return bits[0]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_rows=st.integers(1, 900), n_f=st.integers(1, 7),
       kind=st.sampled_from(["none", "whole", "whole-mixed", "float"]), need_q=st.booleans())
def test_counts_equal_brute_force_in_every_block_size(seed, n_rows, n_f, kind, need_q):
    B, y, weights, items, rng = _instance(seed, n_rows, n_f, kind)
    data = _search._Packed(None, y, need_q, factors=(B, items), weights=weights)
    rem = rng.random(n_rows) < rng.uniform(0.0, 1.0)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    slots_p, slots_n, _ = _search._class_slots(B, items, y, weights)
    rem_p = _packed_rem(rem, slots_p)
    rem_n = _packed_rem(rem, slots_n)
    active = rng.random(len(items)) < 0.8
    want_p = _brute(B, pos, weights, rem, items)
    want_q = _brute(B, neg, weights, rem, items)
    # FRL leaves the negatives of an antecedent with no positive uncounted (0)
    want_q = np.where((want_p != 0) | need_q, want_q, 0.0)
    # the rows row-major, as the search keeps them to gather rows (whole weights), and none
    gathered = [] if kind == "float" else [(_kernels.row_major(data.P),
                                            _kernels.row_major(data.Q))]
    ways = [(block, R) for block in BLOCKS for R in [NO_ROWS] + gathered]
    got = {}
    for block, (R_p, R_q) in ways:
        pc = np.full(len(items), UNTOUCHED)
        qc = np.full(len(items), UNTOUCHED)
        _kernels.count_candidates(data.P, data.Q, data.items, rem_p, rem_n, active, pc, qc,
                                  need_q, data.lay_p, data.lay_q, block, R_p, R_q)
        # inactive antecedents are not written
        assert np.all(pc[~active] == UNTOUCHED) and np.all(qc[~active] == UNTOUCHED)
        if kind == "float":     # the brute force sums in another order
            np.testing.assert_allclose(pc[active], want_p[active], rtol=1e-12, atol=1e-9)
            np.testing.assert_allclose(qc[active], want_q[active], rtol=1e-12, atol=1e-9)
            # ... except for counts that are 0 by their rows, not by rounding
            assert np.all(pc[active & (want_p == 0)] == 0)
            assert np.all(qc[active & (want_q == 0)] == 0)
        else:
            assert np.array_equal(pc[active], want_p[active])
            assert np.array_equal(qc[active], want_q[active])
        got[block, len(R_p)] = (pc, qc)
    # to the last bit of a float, whatever the block, gathered or not
    for key in got:
        assert np.array_equal(got[key][0], got[None, 0][0])
        assert np.array_equal(got[key][1], got[None, 0][1])
    if kind == "float":
        return              # the search counts from the parent's counts for whole weights only
    # the same counts from those of a parent prefix that also held the rows ``taken``
    taken = ~rem & (rng.random(n_rows) < rng.uniform(0.0, 1.0))
    parent_p = _packed_rem(rem | taken, slots_p)
    parent_n = _packed_rem(rem | taken, slots_n)
    for block, (R_p, R_q) in ways:
        if block is None:       # small data never count from the parent's counts
            continue
        pc = np.full(len(items), UNTOUCHED)
        qc = np.full(len(items), UNTOUCHED)
        _kernels.count_candidates(data.P, data.Q, data.items, parent_p, parent_n, active, pc, qc,
                                  need_q, data.lay_p, data.lay_q, block, R_p, R_q)
        cap_p, cap_n = parent_p.copy(), parent_n.copy()
        for cap, rem_packed in ((cap_p, rem_p), (cap_n, rem_n)):
            cap &= ~rem_packed
        _kernels.count_captured(data.P, data.Q, data.items, cap_p, cap_n, active, pc, qc,
                                need_q, data.lay_p, data.lay_q, block, np.empty(len(items)),
                                R_p, R_q)
        assert np.array_equal(pc, got[None, 0][0])
        assert np.array_equal(qc, got[None, 0][1])


def test_mixed_words_are_exercised():
    """The random instances above hold words of mixed weights and words of one weight."""
    for kind, mixed in (("whole", False), ("whole-mixed", True), ("float", True)):
        B, y, weights, items, _ = _instance(3, 900, 4, kind)
        word_w, mix_k, *_, ones = _search._Packed(None, y, False, factors=(B, items),
                                                  weights=weights).lay_p
        assert (mix_k.shape[0] > 0) == mixed
        if kind == "whole":         # words of weight 1, then words of one other weight each
            assert 0 < ones[0] < word_w.shape[0] and np.all(word_w[ones[0]:] != 1)


def test_block_and_capture_share_are_chosen_by_size_and_weights():
    assert _kernels.block_words(_kernels.BLOCK_MIN_WORDS) == _kernels.BLOCK_WORDS
    assert _kernels.block_words(_kernels.BLOCK_MIN_WORDS - 1) is None
    assert _kernels.capture_share(True, _kernels.BLOCK_WORDS) == _kernels.CAPTURE_SHARE > 0
    assert _kernels.capture_share(False, _kernels.BLOCK_WORDS) == 0
    assert _kernels.capture_share(True, None) == 0
    assert _kernels.compacts(True, _kernels.BLOCK_WORDS)
    assert not _kernels.compacts(False, _kernels.BLOCK_WORDS)
    assert not _kernels.compacts(True, None)


@pytest.mark.parametrize("n_f", [1, 63, 64, 65, 130])
def test_row_major_holds_each_slots_factor_bits(n_f):
    """Bit f of R[s, f // 64] is factor f of slot s, for factors in one word and in several."""
    rng = np.random.default_rng(n_f)
    bits = rng.random((n_f, 200)) < 0.4
    R = _kernels.row_major(pack(bits))
    assert R.shape == (256, -(-n_f // 64))
    unpacked = np.unpackbits(R.view(np.uint8), axis=1, bitorder="little").astype(bool)
    assert np.array_equal(unpacked[:200, :n_f], bits.T)
    assert not unpacked[200:].any() and not unpacked[:, n_f:].any()


def test_gathering_runs_on_sparse_rows_and_leaves_dense_ones_in_place():
    """Both ways of the instances above are taken: the rows given are gathered when they
    fill few bits of their words (a rule's rows, the rows a long list leaves) and counted
    in place when dense, and the counts agree with the brute force either way."""
    rng = np.random.default_rng(5)
    n_rows, n_f = 64 * 40, 5
    B = rng.random((n_rows, n_f)) < 0.5
    y = np.zeros(n_rows, bool)
    items = np.array([(a, b) for a in range(n_f) for b in range(a + 1, n_f)], np.int64)
    weights = rng.choice([1.0, 1.0, 2.0, 5.0], n_rows)
    data = _search._Packed(None, y, True, factors=(B, items), weights=weights)
    R = _kernels.row_major(data.Q)
    slots = _search._class_slots(B, items, y, weights)[1]
    for share, gathers in ((0.05, True), (0.95, False)):
        rem = rng.random(n_rows) < share
        rem_n = _packed_rem(rem, slots)
        filled = np.unpackbits(rem_n.view(np.uint8)).sum() / np.count_nonzero(rem_n)
        assert (filled < _kernels.COMPACT_BELOW) == gathers
        out = np.zeros(len(items), np.int64)
        _kernels._count_class_compact(data.Q, R, items, rem_n, np.ones(len(items), bool), out,
                                      data.lay_q, 3)
        assert np.array_equal(out, _brute(B, np.arange(n_rows), weights, rem, items))


def _fits(cls, X, y, monkeypatch, settings):
    """Fits at every default, with (block, counts from the parent, gathering rows) forced to
    each setting."""
    fits, used = [], []
    for block, by_capture, gather in settings:
        def choose(n_words, block=block):
            used.append(block)
            return block
        monkeypatch.setattr(_kernels, "block_words", choose)
        share = 1e300 if by_capture else 0.0        # always when it can, or never
        monkeypatch.setattr(_kernels, "capture_share", lambda whole, block, share=share: share)
        monkeypatch.setattr(_kernels, "compacts", lambda whole, block, gather=gather: gather)
        fits.append(cls().fit(X, y))
    assert used == [block for block, _, _ in settings]
    return fits


def _same(a, b):
    assert str(a.model_) == str(b.model_)
    assert a.certificate_.status == b.certificate_.status
    assert a.certificate_.objective == b.certificate_.objective
    assert a.certificate_.lower_bound == b.certificate_.lower_bound
    assert np.array_equal(a.result_.trace.objective, b.result_.trace.objective)
    assert np.array_equal(a.result_.trace.candidate_sizes, b.result_.trace.candidate_sizes)


SETTINGS = [(None, False, False), (1, False, False), (0, True, False), (2, True, True),
            (1, False, True)]


@pytest.mark.slow   # five fits each, two counting a word at a time
@pytest.mark.parametrize("cls", [FallingRuleListClassifier, SoftFallingRuleListClassifier])
def test_fit_is_the_same_with_blocks_and_parent_counts_forced_on_and_off(cls, monkeypatch):
    """heart at every default: the model, certificate and trace do not depend on how it counts."""
    X, y = load_heart(return_X_y=True)
    first, *others = _fits(cls, X, y, monkeypatch, SETTINGS)
    assert len(first.model_.rules) >= 1
    for other in others:
        _same(first, other)


@pytest.mark.slow
@pytest.mark.parametrize("cls", [FallingRuleListClassifier, SoftFallingRuleListClassifier])
def test_compas_fit_is_the_same_however_it_counts(cls, monkeypatch):
    """compas (6,000 rows, 12 words a factor) at every default, as above."""
    X, y = load_compas(return_X_y=True)
    first, *others = _fits(cls, X, y, monkeypatch, [(None, False, False), (3, True, True)])
    assert len(first.model_.rules) >= 1
    for other in others:
        _same(first, other)
