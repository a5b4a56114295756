"""Column generation's counted rows keep their folds as a table (issue 35: memory at scale).

Fitted from a source, column generation validates on the counts' hash folds.
Each counted row keeps its count per fold beside it, rather than being cut
into one row per fold (5.7 million rows of conditions for 3.7 million
patterns on 10 million rows), and a two-class problem's pairs are then the
data's own matrix, not a copy.  The pairs and the validation designs must be
those of the rows cut by fold, bit for bit.
"""

import numpy as np
import pandas as pd
import pytest

from rulekit import BooleanRuleCGClassifier, stream
from rulekit.estimators.sources import fitdata_from_counts
from rulekit.estimators.validation import binary_pairs, draw_design, pair_keys


def _counts(seed, n=900, classes=2):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 6, n), "b": rng.choice(list("xyz"), n),
                          "c": rng.normal(size=n).round(1)})
    frame["label"] = (frame.a + rng.integers(0, 3, n)) % classes
    return stream.count(frame, "label", n_folds=5)


@pytest.mark.parametrize("d", [3, 8, 9, 16])
def test_pair_keys_are_the_packed_rows_with_their_label(d):
    rng = np.random.default_rng(d)
    B = rng.random((50, d)) < 0.5
    y = rng.integers(0, 2, 50)
    np.testing.assert_array_equal(pair_keys(B, y), np.packbits(np.column_stack([B, y > 0]),
                                                               axis=1))


@pytest.mark.parametrize("seed, classes, weighted", [(0, 2, False), (1, 2, True),
                                                     (2, 3, False), (3, 3, True)])
def test_a_fold_table_gives_the_pairs_of_the_rows_cut_by_fold(seed, classes, weighted):
    counts = _counts(seed, classes=classes)
    factor = np.array([1.0, 2.5, 0.3])[:classes] if weighted else np.ones(classes)
    cut = fitdata_from_counts(counts, {}, np.eye(5, dtype=bool))   # a row per (row, fold)
    fold = np.argmax(cut.tested, axis=1)
    rng = np.random.default_rng(seed)
    for k in range(classes):
        old = binary_pairs(cut.B, (cut.y == k).astype(np.int64), cut.count * factor[cut.y],
                           fold, cut.count)
        new = binary_pairs(counts.B, (counts.y == k).astype(np.int64), factor[counts.y],
                           fold_counts=counts.fold_counts)
        for name in ("B", "y", "w", "fold_weight", "fold_count"):
            np.testing.assert_array_equal(getattr(new, name), getattr(old, name), err_msg=name)
        assert new.n_rows == old.n_rows == counts.n_rows
        for m in (5000, 100):         # every pair validated, or a sample of the counts
            a = draw_design(old, np.random.default_rng(7), forms=("dnf",), grid=(0, 3, 8),
                            cv_max_rows=10**6, validation_rows=m)
            b = draw_design(new, np.random.default_rng(7), forms=("dnf",), grid=(0, 3, 8),
                            cv_max_rows=10**6, validation_rows=m)
            for name in ("kind", "index", "weight", "T", "sampled"):
                np.testing.assert_array_equal(getattr(b, name), getattr(a, name))
    del rng


def test_counted_two_class_data_are_not_cut_by_fold_nor_copied_into_pairs():
    counts = _counts(5, n=6000)    # above 5000 rows: one resolution, whose rows are distinct
    est = BooleanRuleCGClassifier()
    params = est._check_params()
    data = est._from_counts(counts, params, est._fold_splits(5, counts.n_rows, None, params))
    # one row per counted pattern, the fold counts a table beside them
    assert data.n_rows == len(counts.y) and data.tested is None
    table = data.views["fold_counts"]
    assert table.shape == counts.fold_counts.shape
    # held through the fit as 4-byte counts (half the table the counts came in)
    assert table.dtype == np.int32 and counts.fold_counts.dtype == np.int64
    assert int(table.sum()) == counts.n_rows == data.n_samples
    np.testing.assert_array_equal(table.sum(axis=1), data.count)
    # the same rows (reordered), and already in the order of the binary problem's pairs
    assert sorted(map(bytes, np.packbits(data.B, axis=1))) == \
        sorted(map(bytes, np.packbits(counts.B, axis=1)))
    pairs = binary_pairs(data.B, data.y, np.ones(data.n_rows), fold_counts=table)
    assert pairs.B is data.B
    np.testing.assert_array_equal(pairs.y, data.y)


def test_a_fit_from_counts_validates_on_every_fold_of_the_table():
    """The default fit from a source still validates on the 5 hash folds."""
    counts = _counts(6, n=1500)
    est = BooleanRuleCGClassifier(time_limit=None).fit(counts)
    assert est.choice_ is not None and est.choice_.method in ("cv", "exact")
    assert est.certificate_.n == counts.n_rows
    assert "5" in repr(est.certificate_)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 100])
def test_rows_reordered_in_place_are_the_rows_taken(n):
    from rulekit.estimators.validation import take_rows_in_place

    rng = np.random.default_rng(n)
    M = rng.random((n, 13)) < 0.5
    for order in (rng.permutation(n), np.arange(n), np.arange(n)[::-1].copy()):
        want = M[order]
        take_rows_in_place(M, order)
        np.testing.assert_array_equal(M, want)


def test_counts_given_by_the_caller_are_left_as_they_were():
    """Counts the fit made itself are reordered in place; the caller's are copied first."""
    counts = _counts(8, n=6000)
    before = [a.copy() for a in (counts.B, counts.y, counts.weight, counts.fold_counts)]
    est = BooleanRuleCGClassifier()
    params = est._check_params()
    splits = est._fold_splits(5, counts.n_rows, None, params)
    data = est._from_counts(counts, params, splits)
    assert not np.shares_memory(data.B, counts.B)
    for a, b in zip(before, (counts.B, counts.y, counts.weight, counts.fold_counts)):
        np.testing.assert_array_equal(a, b)
    owned = est._from_counts(counts, params, splits, owned=True)
    assert owned.B is counts.B          # reordered where it was
    np.testing.assert_array_equal(owned.B, data.B)
    np.testing.assert_array_equal(owned.y, data.y)
    np.testing.assert_array_equal(owned.views["fold_counts"], data.views["fold_counts"])


def test_the_sample_counts_its_cells_a_block_at_a_time(monkeypatch):
    """The validation sample's total is taken a block of pairs at a time (no table of
    every cell's count at once on millions of pairs): any block gives the same draw."""
    from rulekit.estimators import validation

    counts = _counts(4, n=2000)
    pairs = binary_pairs(counts.B, (counts.y == 1).astype(np.int64), np.ones(len(counts.y)),
                         fold_counts=counts.fold_counts)
    designs = []
    for block in (1 << 20, 7, 1):
        monkeypatch.setattr(validation, "COUNT_BLOCK", block)
        designs.append(draw_design(pairs, np.random.default_rng(3), forms=("dnf",),
                                   grid=(0, 3, 8), cv_max_rows=10**6, validation_rows=150))
    assert designs[0].sampled and len(pairs.y) > 150
    for d in designs[1:]:
        for name in ("kind", "index", "weight", "T", "sampled"):
            np.testing.assert_array_equal(getattr(d, name), getattr(designs[0], name))
    # counts that cost one share one table of weights and counts
    assert pairs.fold_weight is pairs.fold_count
