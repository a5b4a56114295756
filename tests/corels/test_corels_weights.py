"""Frequency weights in the CORELS engine (issue 35: search on counts).

A row of weight ``k`` counts as ``k`` identical rows.  Two claims are tested:

* optimality against brute force written here from the paper's objective
  (Angelino et al., JMLR 2018, Section 3.2) with weighted counts, in exact
  ``fractions.Fraction`` arithmetic, never through the engine's functions;
* equivalence: folding identical (row, class) pairs into one row weighted by
  their count gives exactly the search on all the rows (same list, labels,
  objective, bound, status, and the same work, since the engine merges
  identical rows into the same groups in the same order either way).
"""

from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest

from rulekit import Binarizer, mine_antecedents
from rulekit.corels import rashomon, search
from rulekit.datasets import load_compas, load_monks, load_tictactoe
from rulekit.evaluate import merge_rows


def fold(A, y, *extra):
    """Distinct (row, class, extra...) tuples of ``A`` and ``y``, and the rows each stands for."""
    A = np.asarray(A, dtype=bool)
    classes = np.unique(y)
    columns = [A, np.asarray(y)[:, None] == classes[None, :]]
    columns += [np.asarray(e)[:, None] == np.unique(e)[None, :] for e in extra]
    rows, _, (counts,) = merge_rows(np.column_stack(columns), np.ones(A.shape[0], np.int64))
    m, k = A.shape[1], len(classes)
    out = [rows[:, :m], classes[rows[:, m:m + k].argmax(axis=1)]]
    start = m + k
    for e in extra:
        levels = np.unique(e)
        out.append(levels[rows[:, start:start + len(levels)].argmax(axis=1)])
        start += len(levels)
    return (*out, counts)


def weighted_brute_force(A, y, w, c):
    """The best rule list by the paper's objective with frequency weights, canonical ties.

    ``R(d) = (weighted mistakes) / (total weight) + c * K``; each rule (and the
    default) predicts the class of largest weight among the rows it captures
    (lowest class on ties).  Every list of distinct antecedents is scored,
    except those with ``c * K`` above the empty list's score (they cannot win).
    Returns ``(objective, prefix, labels, weighted mistakes)``.
    """
    A = np.asarray(A, dtype=bool)
    n_rows, m = A.shape
    classes = sorted(set(int(v) for v in y))
    total = int(sum(int(v) for v in w))
    cf = Fraction(c).limit_denominator(10**6)

    def majority(rows):
        weight = {k: sum(int(w[i]) for i in rows if y[i] == k) for k in classes}
        label = max(classes, key=lambda k: (weight[k], -k))
        return label, sum(weight.values()) - weight[label]

    def score(prefix):
        left, labels, mistakes = list(range(n_rows)), [], 0
        for a in prefix:
            captured = [i for i in left if A[i, a]]
            left = [i for i in left if not A[i, a]]
            label, wrong = majority(captured)
            labels.append(label)
            mistakes += wrong
        label, wrong = majority(left)
        mistakes += wrong
        return Fraction(mistakes, total) + cf * len(prefix), labels + [label], mistakes

    empty = score(())[0]
    best = None
    for k in range(m + 1):
        if cf * k > empty:
            break
        for prefix in permutations(range(m), k):
            obj, labels, mistakes = score(prefix)
            key = (obj, k, prefix)
            if best is None or key < best[0]:
                best = (key, labels, mistakes)
    (obj, _, prefix), labels, mistakes = best
    return obj, prefix, labels, mistakes


def _instance(rng, n_max=14, m_max=5, classes=2):
    n = int(rng.integers(2, n_max + 1))
    m = int(rng.integers(1, m_max + 1))
    A = rng.random((n, m)) < rng.uniform(0.2, 0.7)
    y = rng.integers(0, classes, n)
    w = rng.integers(0, 9, n)
    w[rng.integers(0, n)] += 1  # some weight somewhere
    total = int(w.sum())
    c = float(rng.choice([0, 1, 2, 3, 5])) / total + float(rng.choice([0.0, 0.01, 0.05]))
    return A, y, w, c


@pytest.mark.parametrize("seed", range(4))
def test_weighted_search_equals_weighted_brute_force(seed):
    """60 tiny weighted problems (zero weights, 2-3 classes) against exhaustive scoring."""
    rng = np.random.default_rng(3500 + seed)
    for trial in range(15):
        A, y, w, c = _instance(rng, classes=2 + trial % 2)
        obj, prefix, labels, mistakes = weighted_brute_force(A, y, w, c)
        r = search(A, y, c, sample_weight=w)
        assert r.status == "optimal"
        assert r.prefix == prefix, (A, y, w, c)
        assert r.mistakes == mistakes
        assert list(r.rule_labels) + [r.default_label] == labels
        assert r.objective == pytest.approx(float(obj), abs=1e-12)
        assert r.lower_bound == r.objective
        assert r.counts.sum() == w.sum()


def test_weights_are_repetitions_on_a_planted_case():
    """One row of weight 5 outvotes five single rows: it is five rows."""
    A = np.array([[1, 0], [1, 0], [1, 0], [1, 0], [1, 0], [1, 0], [0, 1]], dtype=bool)
    y = np.array([1, 0, 0, 0, 0, 0, 0])
    unweighted = search(A, y, 0.0)
    assert unweighted.rule_labels == () or 1 not in unweighted.rule_labels
    w = np.array([5, 1, 1, 1, 1, 0, 3])
    r = search(A, y, 0.0, sample_weight=w)
    # rows under column 0 weigh 5 for class 1 against 4 for class 0
    assert r.prefix[:1] == (0,) and r.rule_labels[0] == 1
    assert r.mistakes == 4 and r.objective == pytest.approx(4 / 12)
    assert search(np.repeat(A, w, axis=0), np.repeat(y, w), 0.0).prefix == r.prefix


def _same_result(full, weighted, work=True):
    assert weighted.prefix == full.prefix
    assert weighted.rule_labels == full.rule_labels
    assert weighted.default_label == full.default_label
    assert weighted.objective == full.objective
    assert weighted.lower_bound == full.lower_bound
    assert weighted.status == full.status
    assert weighted.mistakes == full.mistakes
    assert np.array_equal(weighted.counts, full.counts)
    assert np.array_equal(weighted.classes, full.classes)
    if work:
        assert weighted.stats["work"] == full.stats["work"]
        assert weighted.stats["nodes_expanded"] == full.stats["nodes_expanded"]


@pytest.mark.parametrize("seed", range(3))
def test_folded_rows_give_the_search_on_all_rows(seed):
    """Random data with many repeated rows; default settings, a work budget, three classes."""
    rng = np.random.default_rng(350 + seed)
    n, m = 1500, 9
    patterns = rng.random((60, m)) < 0.45
    A = patterns[rng.integers(0, 60, n)]
    y = ((A[:, 0] & ~A[:, 2]) ^ (rng.random(n) < 0.2)).astype(int)
    if seed == 2:
        y[A[:, 4] & (rng.random(n) < 0.5)] = 2
    Ad, yd, counts = fold(A, y)
    assert len(Ad) < n and counts.sum() == n
    for c in (0.002, 0.01, 0.03):
        full = search(A, y, c)
        _same_result(full, search(Ad, yd, c, sample_weight=counts))
    # a budget stops both at the same point: the same search, step for step
    budget = search(A, y, 0.002).stats["work"] // 3
    full = search(A, y, 0.002, max_work=budget)
    weighted = search(Ad, yd, 0.002, sample_weight=counts, max_work=budget)
    assert full.status == "work_limit"
    _same_result(full, weighted)


def test_folded_rows_with_a_reference_and_zero_weights():
    rng = np.random.default_rng(77)
    n, m = 800, 7
    A = (rng.random((40, m)) < 0.5)[rng.integers(0, 40, n)]
    y = (A[:, 1] ^ (rng.random(n) < 0.25)).astype(int)
    reference = np.where(A[:, 1], 1, 0)
    Ad, yd, refd, counts = fold(A, y, reference)
    _same_result(search(A, y, 0.005, reference=reference),
                 search(Ad, yd, 0.005, reference=refd, sample_weight=counts))
    # rows of weight 0 (here: a contradicting copy of every row) change nothing
    A0 = np.vstack([Ad, Ad])
    y0 = np.concatenate([yd, 1 - yd])
    w0 = np.concatenate([counts, np.zeros_like(counts)])
    _same_result(search(A, y, 0.005), search(A0, y0, 0.005, sample_weight=w0))


def test_folded_rashomon_set_is_the_set_on_all_rows():
    rng = np.random.default_rng(5)
    n = 600
    A = (rng.random((30, 6)) < 0.5)[rng.integers(0, 30, n)]
    y = ((A[:, 0] | A[:, 3]) ^ (rng.random(n) < 0.2)).astype(int)
    Ad, yd, counts = fold(A, y)
    for c, eps in ((0.01, 0.01), (0.02, 0.03)):
        full = rashomon(A, y, c, eps)
        weighted = rashomon(Ad, yd, c, eps, sample_weight=counts)
        assert full.status == weighted.status == "optimal" and len(full) > 1
        assert list(weighted.prefixes) == list(full.prefixes)
        assert np.array_equal(weighted.objectives, full.objectives)
        assert weighted.optimum == full.optimum


def _benchmark(name):
    loader = {"compas": load_compas, "monks": load_monks, "tictactoe": load_tictactoe}[name]
    X, y = loader(return_X_y=True)
    y = np.unique(np.asarray(y), return_inverse=True)[1]
    B = Binarizer().fit_transform(X, y)
    return B, y


@pytest.mark.slow
@pytest.mark.parametrize("name,max_card,c", [("compas", 1, 0.005), ("compas", 2, 0.025),
                                              ("monks", 2, 0.01), ("tictactoe", 1, 0.005)])
def test_benchmark_sets_folded_equal_all_rows(name, max_card, c):
    B, y = _benchmark(name)
    ants = mine_antecedents(B, y, min_support=0.01, max_card=max_card)
    Bd, yd, counts = fold(B, y)
    weighted_ants = mine_antecedents(Bd, yd, min_support=0.01, max_card=max_card,
                                     sample_weight=counts)
    assert weighted_ants.items == ants.items
    assert np.array_equal(weighted_ants.support, ants.support)
    full = search(ants.matrix, y, c)
    weighted = search(weighted_ants.matrix, yd, c, sample_weight=counts)
    assert full.status == "optimal"
    _same_result(full, weighted)


@pytest.mark.parametrize("weights,match", [
    ([1, 2, 0.5, 1], "whole numbers"),
    ([1, -1, 1, 1], "non-negative"),
    ([0, 0, 0, 0], "zero for every row"),
    ([1, 1, 1], "3 entries"),
    ([1, np.nan, 1, 1], "finite"),
    ([1, 2**53, 1, 1], "adds up to"),
])
def test_bad_weights_are_named(weights, match):
    A = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=bool)
    y = np.array([0, 1, 1, 0])
    with pytest.raises(ValueError, match=match):
        search(A, y, 0.01, sample_weight=weights)
    with pytest.raises(ValueError, match=match):
        rashomon(A, y, 0.01, 0.01, sample_weight=weights)
    if match == "zero for every row":
        # mining no rows finds nothing, as on an empty matrix
        assert len(mine_antecedents(A, y, min_support=0.1, max_card=2,
                                    sample_weight=weights)) == 0
        return
    with pytest.raises(ValueError, match=match):
        mine_antecedents(A, y, min_support=0.1, max_card=2, sample_weight=weights)


def test_text_weights_are_a_type_error():
    A = np.array([[1], [0]], dtype=bool)
    with pytest.raises(TypeError, match="sample_weight"):
        search(A, [0, 1], 0.01, sample_weight=["a", "b"])


def test_empty_list_shortcut_uses_the_weights():
    """c*N above the weighted empty-list mistakes: no search, the weighted majority."""
    A = np.array([[1], [0], [1]], dtype=bool)
    y = np.array([1, 0, 0])
    r = search(A, y, 0.5, sample_weight=[5, 1, 1])
    assert r.prefix == () and r.default_label == 1
    assert r.mistakes == 2 and r.objective == pytest.approx(2 / 7)
    assert r.counts.tolist() == [[2, 5]]
