from fractions import Fraction
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rulekit import Binarizer, Condition, bitset, mine_antecedents
from rulekit import mining
from rulekit.mining import redundant_pair


def brute_force(B, y, min_support, max_card, per_class):
    """Every itemset of size <= max_card that is frequent (in some class)."""
    blocks = [B[y == c] for c in np.unique(y)] if per_class else [B]
    out = set()
    for size in range(1, max_card + 1):
        for items in combinations(range(B.shape[1]), size):
            for block in blocks:
                if block.shape[0] and np.all(block[:, list(items)], axis=1).mean() >= min_support - 1e-12:
                    out.add(items)
                    break
    return out


@given(
    arrays(bool, st.tuples(st.integers(1, 30), st.integers(1, 6))),
    st.sampled_from([0.1, 0.25, 0.5, 1.0]),
    st.integers(1, 3),
    st.booleans(),
    st.sampled_from(["auto", "fpgrowth", "apriori"]),
    st.data(),
)
@settings(max_examples=90, deadline=None)
def test_mining_matches_brute_force(B, min_support, max_card, per_class, algorithm, data):
    y = np.asarray(data.draw(arrays(np.int64, B.shape[0], elements=st.integers(0, 1))))
    got = mine_antecedents(B, y, min_support=min_support, max_card=max_card, per_class=per_class,
                           algorithm=algorithm)
    assert set(got.items) == brute_force(B, y, min_support, max_card, per_class)
    # the packed bits are exactly the conjunctions
    dense = got.matrix
    for m, items in enumerate(got.items):
        assert np.array_equal(dense[:, m], np.all(B[:, list(items)], axis=1))
    assert np.array_equal(bitset.popcount(got.packed), got.support) if len(got) else True


def test_per_class_keeps_minority_patterns():
    # condition 0 covers 3 of 4 positives but only 3 of 40 rows overall
    B = np.zeros((40, 2), dtype=bool)
    y = np.zeros(40, dtype=int)
    y[:4] = 1
    B[:3, 0] = True
    B[:, 1] = True
    assert (0,) in mine_antecedents(B, y, min_support=0.5, max_card=1).items
    assert (0,) not in mine_antecedents(B, y, min_support=0.5, max_card=1, per_class=False).items


def test_order_names_and_single_conditions():
    df = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [1, 2, 3, 4]})
    binz = Binarizer().fit(df)
    ants = mine_antecedents(binz.transform(df), min_support=0.25, max_card=1, conditions=binz.conditions_)
    assert all(len(s) == 1 for s in ants.items)
    assert ants.names == [str(c) for c in binz.conditions_]
    two = mine_antecedents(binz.transform(df), min_support=0.25, max_card=2, conditions=binz.conditions_)
    sizes = [len(s) for s in two.items]
    assert sizes == sorted(sizes)
    assert "a == x and b <= 1" in two.names


def test_names_are_rendered_when_read(monkeypatch):
    """A pool of 10^5 single conditions rendered every name after mining (1-3 CPU s past a
    time limit on wide data); now a name is made when it is read, the same string."""
    df = pd.DataFrame({"a": ["x", "y", "x", "y", "z"], "b": [1, 2, 3, 4, 5],
                       "c": [0.5, 0.1, 0.9, 0.3, 0.7]})
    binz = Binarizer().fit(df)
    B = binz.transform(df)
    eager = None
    rendered = []
    original = Condition.__str__
    monkeypatch.setattr(Condition, "__str__", lambda c: rendered.append(c) or original(c))
    ants = mine_antecedents(B, min_support=0.2, max_card=2, conditions=binz.conditions_)
    assert rendered == []                                # mining rendered no name
    third = ants.names[2]
    assert len(rendered) == len(ants.items[2])           # only the one read
    eager = [" and ".join(original(binz.conditions_[j]) for j in s) for s in ants.items]
    assert ants.names[2] == third == eager[2]
    assert ants.names == eager and list(ants.names) == eager and len(ants.names) == len(eager)
    assert ants.names[-1] == eager[-1] and ants.names[1:4] == eager[1:4]
    assert eager[5] in ants.names and "no such name" not in ants.names
    assert ants.names != eager[:-1] and ants.names != eager[::-1]
    with pytest.raises(IndexError):
        ants.names[len(eager)]
    unnamed = mine_antecedents(B, min_support=0.2, max_card=1)
    assert unnamed.names == [f"c{s[0]}" for s in unnamed.items]


def test_no_redundant_pairs_on_one_feature():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"age": rng.integers(18, 80, 300), "job": rng.choice(list("abcd"), 300)})
    binz = Binarizer(negations=True).fit(df)
    ants = mine_antecedents(binz.transform(df), min_support=0.01, max_card=3, conditions=binz.conditions_)
    conds = binz.conditions_
    for items in ants.items:
        for i, j in combinations(items, 2):
            assert not redundant_pair(conds[i], conds[j])
    # intervals survive: "age > a and age <= b" with a < b
    assert any(
        len(s) == 2 and {conds[s[0]].op, conds[s[1]].op} == {">", "<="} and conds[s[0]].feature == conds[s[1]].feature == "age"
        for s in ants.items
    )


@pytest.mark.parametrize("a,b,expected", [
    (Condition("x", "<=", 3), Condition("x", "<=", 5), True),
    (Condition("x", ">", 3), Condition("x", ">", 5), True),
    (Condition("x", ">", 3), Condition("x", "<=", 5), False),
    (Condition("x", ">", 5), Condition("x", "<=", 3), True),
    (Condition("x", ">", 5), Condition("x", "<=", 5), True),
    (Condition("c", "==", "a"), Condition("c", "==", "b"), True),
    (Condition("c", "==", "a"), Condition("c", "!=", "b"), True),
    (Condition("c", "!=", "a"), Condition("c", "!=", "b"), False),
    (Condition("c", "is missing"), Condition("c", "!=", "b"), True),
    (Condition("c", "==", "a"), Condition("d", "==", "a"), False),
])
def test_redundant_pair(a, b, expected):
    assert redundant_pair(a, b) is expected
    assert redundant_pair(b, a) is expected


def test_max_antecedents_keeps_highest_support():
    rng = np.random.default_rng(2)
    B = rng.random((100, 8)) < np.linspace(0.1, 0.9, 8)
    full = mine_antecedents(B, min_support=0.05, max_card=2, per_class=False)
    top = mine_antecedents(B, min_support=0.05, max_card=2, per_class=False, max_antecedents=5)
    assert len(top) == 5
    assert sorted(top.support, reverse=True) == sorted(full.support, reverse=True)[:5]


def _phi_squared(column, positive):
    """phi^2 of two indicators, exactly, from the 2x2 table (0 for a constant column)."""
    a = int(np.sum(column & positive))
    b = int(np.sum(column & ~positive))
    c = int(np.sum(~column & positive))
    d = int(np.sum(~column & ~positive))
    spread = (a + b) * (c + d) * (a + c) * (b + d)
    return Fraction(0) if spread == 0 else Fraction((a * d - b * c) ** 2, spread)


@given(
    arrays(bool, st.tuples(st.integers(4, 40), st.integers(2, 7))),
    st.integers(1, 30),
    st.data(),
)
@settings(max_examples=60, deadline=None)
def test_prefer_association_keeps_whole_levels_of_the_most_associated_conditions(B, cap, data):
    y = np.asarray(data.draw(arrays(np.int64, B.shape[0], elements=st.integers(0, 1))))
    full = set(mine_antecedents(B, y, min_support=0.1, max_card=2).items)
    got = mine_antecedents(B, y, min_support=0.1, max_card=2, max_antecedents=cap,
                           prefer="association")
    singles = {s for s in full if len(s) == 1}
    # every single condition stays; nothing new appears
    assert singles <= set(got.items) <= full
    assert got.n_mined == len(full)
    if len(full) <= cap:
        assert set(got.items) == full
        return
    # the conditions in |phi| order (ties: column order), by hand
    phis = [_phi_squared(B[:, j], y == 1) for j in range(B.shape[1])]
    order = sorted(range(B.shape[1]), key=lambda j: (-phis[j], j))
    # the kept pairs are exactly those within the longest prefix of that order
    # whose pairs all fit beside the singles
    best = set()
    for m in range(len(order) + 1):
        top = set(order[:m])
        pairs = {s for s in full if len(s) == 2 and set(s) <= top}
        if len(singles) + len(pairs) <= cap:
            best = pairs
    assert set(got.items) == singles | best


def test_prefer_association_needs_labels():
    B = np.ones((4, 3), dtype=bool)
    with pytest.raises(ValueError, match="pass y"):
        mine_antecedents(B, min_support=0.1, max_card=2, max_antecedents=2,
                         prefer="association")


def test_transform_evaluates_on_new_rows():
    B = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=bool)
    ants = mine_antecedents(B, min_support=0.3, max_card=2, per_class=False)
    new = np.array([[1, 1, 1], [0, 0, 0]], dtype=bool)
    out = ants.transform(new)
    assert out[0].all() and not out[1].any()


@pytest.mark.parametrize("kwargs,match", [
    ({"min_support": 0, "max_card": 2}, "min_support"),
    ({"min_support": 1.5, "max_card": 2}, "min_support"),
    ({"min_support": 0.1, "max_card": 0}, "max_card"),
    ({"min_support": 0.1, "max_card": 2, "max_antecedents": 0}, "max_antecedents"),
    ({"min_support": 0.1, "max_card": 2, "algorithm": "eclat"}, "algorithm"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mine_antecedents(np.ones((3, 2), dtype=bool), **kwargs)


def test_bad_matrix():
    with pytest.raises(ValueError, match="boolean"):
        mine_antecedents(np.array([[2, 0]]), min_support=0.5, max_card=1)
    with pytest.raises(TypeError, match="min_support"):
        mine_antecedents(np.ones((2, 2), bool), min_support="x", max_card=1)


def _truth(cond, value):
    """What a categorical condition says about one value (None = missing), from its meaning."""
    if value is None or cond.op == "is missing":
        return value is None and cond.op == "is missing"
    if cond.op in ("in", "not in"):
        return (value in cond.value) == (cond.op == "in")
    return (value == cond.value) == (cond.op == "==")


CATEGORY_CONDITIONS = [Condition("c", op, v) for op, v in
                       [("==", "a"), ("==", "b"), ("!=", "a"), ("!=", "b"), ("in", ("r", "s")),
                        ("not in", ("r", "s")), ("is missing", None)]]


@pytest.mark.parametrize("a", CATEGORY_CONDITIONS, ids=str)
@pytest.mark.parametrize("b", CATEGORY_CONDITIONS, ids=str)
def test_redundant_pair_on_categories_by_enumeration(a, b):
    universe = ["a", "b", "r", "s", "t", None]
    both = [_truth(a, v) and _truth(b, v) for v in universe]
    only_a = [_truth(a, v) for v in universe]
    only_b = [_truth(b, v) for v in universe]
    # redundant: the conjunction never holds, or it is one of the two conditions alone
    expected = not any(both) or both == only_a or both == only_b
    assert redundant_pair(a, b) == expected


@given(
    arrays(bool, st.tuples(st.integers(1, 150), st.integers(1, 7))),
    st.integers(1, 3),
    st.booleans(),
    st.data(),
)
@settings(max_examples=60, deadline=None)
def test_supports_and_bits_are_the_conjunctions_with_or_without_kept_bits(B, max_card, weighted,
                                                                        data):
    """Supports are counted from the conditions' packed words (weighted: the whole
    weights of the rows met, summed here row by row); ``keep_bits=False`` gives the same
    pool and supports with no bits."""
    y = np.asarray(data.draw(arrays(np.int64, B.shape[0], elements=st.integers(0, 1))))
    w = (np.asarray(data.draw(arrays(np.int64, B.shape[0], elements=st.integers(0, 9))))
         if weighted else None)
    if w is not None and w.sum() == 0:
        w[0] = 1
    kept = mine_antecedents(B, y, min_support=0.1, max_card=max_card, sample_weight=w)
    bare = mine_antecedents(B, y, min_support=0.1, max_card=max_card, sample_weight=w,
                            keep_bits=False)
    assert kept.items == bare.items and bare.packed is None
    assert np.array_equal(kept.support, bare.support)
    for m, items in enumerate(kept.items):
        holds = np.all(B[:, list(items)], axis=1)
        expected = int(holds.sum()) if w is None else int(sum(int(v) for v in w[holds]))
        assert int(kept.support[m]) == expected
        assert np.array_equal(kept.matrix[:, m], holds)
    if len(bare):
        with pytest.raises(ValueError, match="keep_bits"):
            bare.matrix
    # the compiled path (used on large pools) gives the same bits and supports
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mining, "COMPILED_BITS_CELLS", 0)
        packed, support = mining.antecedent_bits(B, kept.items, w)
    assert np.array_equal(support, kept.support)
    assert np.array_equal(packed, kept.packed) if len(kept) else packed.shape[0] == 0
