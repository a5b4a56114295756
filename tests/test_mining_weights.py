"""Frequency weights in mine_antecedents (issue 35: search on counts).

Mining rows with weights must give exactly what mining the rows repeated
gives: the same antecedents in the same order, the same supports and the same
count before the cap, for every miner, cap and preference.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rulekit import Binarizer, mine_antecedents
from rulekit.datasets import load_compas
from rulekit.evaluate import merge_rows


def _same(expanded, weighted):
    assert weighted.items == expanded.items
    assert weighted.names == expanded.names
    assert np.array_equal(weighted.support, expanded.support)
    assert weighted.n_mined == expanded.n_mined


@given(
    arrays(bool, st.tuples(st.integers(1, 25), st.integers(1, 6))),
    st.sampled_from([0.05, 0.1, 0.25, 0.5, 1.0]),
    st.integers(1, 4),
    st.booleans(),
    st.sampled_from(["auto", "fpgrowth", "apriori"]),
    st.sampled_from([("support", None), ("support", 3), ("association", 4)]),
    st.data(),
)
@settings(max_examples=60, deadline=None)
def test_weighted_rows_mine_like_the_rows_repeated(B, min_support, max_card, per_class, algorithm,
                                                   cut, data):
    n = B.shape[0]
    y = np.asarray(data.draw(arrays(np.int64, n, elements=st.integers(0, 2))))
    w = np.asarray(data.draw(arrays(np.int64, n, elements=st.integers(0, 6))))
    prefer, cap = cut
    kw = dict(min_support=min_support, max_card=max_card, per_class=per_class,
              algorithm=algorithm, prefer=prefer, max_antecedents=cap)
    expanded = mine_antecedents(np.repeat(B, w, axis=0), np.repeat(y, w), **kw)
    weighted = mine_antecedents(B, y, sample_weight=w, **kw)
    _same(expanded, weighted)
    assert weighted.n_samples == n  # the bits are over the rows given


def _fold(B, y):
    rows, _, (counts,) = merge_rows(np.column_stack([B, y == 1]), np.ones(len(y), np.int64))
    return rows[:, :-1], rows[:, -1].astype(int), counts


@pytest.mark.parametrize("max_card", [1, 2, pytest.param(3, marks=pytest.mark.slow)])
@pytest.mark.parametrize("per_class", [True, False])
@pytest.mark.parametrize("cut", [("support", None), ("support", 150), ("association", 150)])
def test_folded_compas_mines_like_all_rows(max_card, per_class, cut):
    """compas at the default binarization: distinct (row, class) pairs with their counts."""
    X, y = load_compas(return_X_y=True)
    y = np.asarray(y)
    binz = Binarizer().fit(X, y)
    B = binz.transform(X)
    Bd, yd, counts = _fold(B, y)
    assert len(Bd) < len(B)
    prefer, cap = cut
    kw = dict(min_support=0.01, max_card=max_card, per_class=per_class, prefer=prefer,
              max_antecedents=cap, conditions=binz.conditions_)
    _same(mine_antecedents(B, y, **kw), mine_antecedents(Bd, yd, sample_weight=counts, **kw))


def test_weighted_triples_are_counted_without_mlxtend_and_match_it():
    """Card 3 goes through the module's own weighted counting; it agrees with FP-growth."""
    rng = np.random.default_rng(4)
    B = (rng.random((80, 9)) < 0.6)[rng.integers(0, 80, 3000)]
    y = (B[:, 0] ^ (rng.random(3000) < 0.3)).astype(int)
    Bd, yd, counts = _fold(B, y)
    for algorithm in ("auto", "fpgrowth", "apriori"):
        kw = dict(min_support=0.07, max_card=4, algorithm=algorithm)
        expanded = mine_antecedents(B, y, **kw)
        assert max(len(s) for s in expanded.items) == 4
        _same(expanded, mine_antecedents(Bd, yd, sample_weight=counts, **kw))


@pytest.mark.parametrize("per_class", [True, False])
@pytest.mark.parametrize("cut", [("support", None), ("support", 150), ("association", 150)])
def test_kept_pair_counts_mine_what_block_counts_mine(monkeypatch, per_class, cut):
    """Up to GRAM_CONDITIONS conditions, every pair's count per class is made once and
    the frequent pairs, the association ranks and (without bits) the supports are read
    from it; wider data counts block by block and evaluates the antecedents' bits.  On
    folded compas, weighted, both give the same antecedents, supports and counts."""
    from rulekit import mining

    X, y = load_compas(return_X_y=True)
    y = np.asarray(y)
    binz = Binarizer().fit(X, y)
    Bd, yd, counts = _fold(binz.transform(X), y)
    prefer, cap = cut
    kw = dict(min_support=0.01, max_card=2, per_class=per_class, prefer=prefer,
              max_antecedents=cap, conditions=binz.conditions_, sample_weight=counts)
    kept = [mine_antecedents(Bd, yd, keep_bits=keep, **kw) for keep in (True, False)]
    monkeypatch.setattr(mining, "GRAM_CONDITIONS", 0)
    blocks = [mine_antecedents(Bd, yd, keep_bits=keep, **kw) for keep in (True, False)]
    assert len(kept[0].items) > Bd.shape[1]          # pairs were mined
    for a in kept + blocks[1:]:
        _same(blocks[0], a)
        assert a.n_mined_complete == blocks[0].n_mined_complete
    assert np.array_equal(kept[0].packed, blocks[0].packed) and kept[1].packed is None
