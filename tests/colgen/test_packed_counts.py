"""Column generation holds counted rows packed, eight conditions to a byte (issue 35).

Counted from a source, the distinct rows are kept as
:class:`rulekit._patterns.PackedBits` (the keys' bytes) rather than as a boolean
matrix, an eighth of the memory.  Everything that reads them must see the same
booleans: the rows, the pairs and their order, the searches, the model and its
certificate are those of the boolean matrix, bit for bit.
"""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from rulekit import BooleanRuleCGClassifier, evaluate, stream
from rulekit._patterns import PackedBits
from rulekit.estimators.sources import Stacked
from rulekit.estimators.validation import binary_pairs, pair_keys, pair_order


def _bits(seed, n=300, d=13, p=0.4):
    return np.random.default_rng(seed).random((n, d)) < p


@pytest.mark.parametrize("d", [1, 7, 8, 9, 13, 16, 21])
def test_packed_bits_read_as_the_boolean_matrix(d):
    B = _bits(d, d=d)
    P = PackedBits.of(B)
    assert P.shape == B.shape and len(P) == len(B) and P.dtype == bool and P.ndim == 2
    assert P.nbytes == B.shape[0] * ((d + 7) // 8)
    np.testing.assert_array_equal(np.asarray(P), B)
    rng = np.random.default_rng(d)
    rows = rng.permutation(len(B))[:40]
    mask = rng.random(len(B)) < 0.3
    for key in (rows, mask, slice(5, 77), slice(None, None, 3), 17):
        np.testing.assert_array_equal(P[key], B[key])
        np.testing.assert_array_equal(np.asarray(P.take(key)) if not np.isscalar(key)
                                      else P[key], B[key])
    np.testing.assert_array_equal(P[rows, d // 2], B[rows, d // 2])
    np.testing.assert_array_equal(P[rows, : d // 2 + 1], B[rows, : d // 2 + 1])
    np.testing.assert_array_equal(np.array(list(P)), B)
    copy = P.copy()
    copy.packed[0] = 0
    np.testing.assert_array_equal(np.asarray(P), B)       # a copy, not a view


@pytest.mark.parametrize("start, stop", [(0, 8), (0, 5), (3, 11), (8, 21), (13, 21), (2, 3)])
@pytest.mark.parametrize("block", [1 << 16, 7])
def test_a_block_of_columns_stays_packed(start, stop, block):
    B = _bits(start * 31 + stop, d=21)
    part = PackedBits.of(B).columns(start, stop, block=block)
    assert isinstance(part, PackedBits) and part.shape == (len(B), stop - start)
    np.testing.assert_array_equal(np.asarray(part), B[:, start:stop])
    # the bits past the last column are 0, as numpy.packbits leaves them
    np.testing.assert_array_equal(part.packed, np.packbits(B[:, start:stop], axis=1))


def test_packed_bits_refuse_a_width_their_bytes_cannot_hold():
    with pytest.raises(ValueError, match="need 2 bytes a row"):
        PackedBits(np.zeros((4, 1), np.uint8), 9)


@pytest.mark.parametrize("block_bytes", [1 << 21, 40])
def test_rule_sets_and_lists_read_packed_rows_as_booleans(monkeypatch, block_bytes):
    monkeypatch.setattr(evaluate, "BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(evaluate, "MIN_BLOCK_ROWS", 8)
    B = _bits(5, n=2000, d=19)
    P = PackedBits.of(B)
    clauses = [(0, 3), (5,), (7, 11, 18), ()]
    for fn in (evaluate.dnf_holds, evaluate.cnf_holds, evaluate.first_match):
        for cl in (clauses, clauses[:3], []):
            np.testing.assert_array_equal(fn(P, cl), fn(B, cl))
    first, group = evaluate.group_rows(P)
    want = evaluate.group_rows(B)
    np.testing.assert_array_equal(first, want[0])
    np.testing.assert_array_equal(group, want[1])


@pytest.mark.parametrize("d", [3, 8, 9, 16])
def test_pairs_of_packed_rows_are_those_of_the_booleans(d):
    rng = np.random.default_rng(d)
    B = rng.random((400, d)) < 0.5
    y = rng.integers(0, 2, 400)
    P = PackedBits.of(B)
    np.testing.assert_array_equal(pair_keys(P, y), pair_keys(B, y))
    np.testing.assert_array_equal(pair_order(P, y), pair_order(B, y))
    folds = rng.integers(0, 4, (400, 5))
    a = binary_pairs(B, y, np.ones(400), fold_counts=folds)
    b = binary_pairs(P, y, np.ones(400), fold_counts=folds)
    assert isinstance(b.B, PackedBits)
    np.testing.assert_array_equal(np.asarray(b.B), a.B)
    for name in ("y", "w", "fold_weight", "fold_count"):
        np.testing.assert_array_equal(getattr(b, name), getattr(a, name), err_msg=name)


def _frame(seed, n=1500, classes=2):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 40, n), "b": rng.choice(list("xyzw"), n),
                          "c": rng.normal(size=n).round(2), "d": rng.integers(0, 3, n)})
    noise = rng.random(n) < 0.15
    frame["label"] = np.where(noise, rng.integers(0, classes, n),
                              ((frame.a > 20).astype(int) + (frame.b == "x") + frame.d) % classes)
    return frame


def test_counted_rows_are_packed_for_column_generation_only():
    frame = _frame(0)
    assert isinstance(stream.count(frame, "label", packed=True).B, PackedBits)
    plain = stream.count(frame, "label")
    assert isinstance(plain.B, np.ndarray) and plain.B.dtype == bool
    np.testing.assert_array_equal(np.asarray(stream.count(frame, "label", packed=True).B),
                                  plain.B)
    est = BooleanRuleCGClassifier()
    params = est._check_params()
    data = est._prepare_source(stream.Chunks(lambda: iter([frame]), target="label"), None,
                               None, params)
    assert isinstance(data.B, PackedBits)
    finer = data.views["finer"]
    assert finer is not None and isinstance(finer.B, PackedBits)  # both resolutions counted


def _work(trace):
    """A trace's records without their clock (the work each round did)."""
    if trace and isinstance(trace[0], (list, tuple)):
        return [_work(t) for t in trace]
    return [{k: v for k, v in dataclasses.asdict(r).items() if k != "time"} for r in trace]


@pytest.mark.parametrize("seed, classes, form, budget", [
    (0, 2, "dnf", 10),
    # validated choices (both resolutions, both forms): several CPU s each
    pytest.param(0, 2, "auto", "auto", marks=pytest.mark.slow),
    pytest.param(1, 2, "cnf", "auto", marks=pytest.mark.slow),
    pytest.param(2, 3, "auto", "auto", marks=pytest.mark.slow)])
def test_a_fit_on_packed_counts_is_the_fit_on_the_booleans(monkeypatch, seed, classes, form,
                                                           budget):
    """The packed rows change nothing a fit gives: model, certificate, trace, predictions."""
    frame = _frame(seed, classes=classes)
    fits = []
    for packed in (False, True):
        monkeypatch.setattr(BooleanRuleCGClassifier, "_packed_counts", packed)
        est = BooleanRuleCGClassifier(form=form, max_complexity=budget, time_limit=None)
        est.fit(stream.Chunks(lambda: iter([frame.iloc[:900], frame.iloc[900:]]),
                              target="label"))
        fits.append(est)
    a, b = fits
    assert str(a) == str(b)
    assert a.certificate_.objective == b.certificate_.objective
    assert a.certificate_.lower_bound == b.certificate_.lower_bound
    assert a.certificate_.status == b.certificate_.status
    assert _work(a.trace_) == _work(b.trace_)
    X = frame.drop(columns="label")
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_stacked_blocks_of_packed_rows_are_the_boolean_blocks():
    frame = _frame(4)
    est = BooleanRuleCGClassifier()
    counts = stream.count(frame, "label", packed=True,
                          fit=lambda s, t: est._counted_binarizer(est._check_params(), s, t))
    stacked = counts.binarizer
    assert isinstance(stacked, Stacked)
    whole = np.asarray(counts.B)
    for i in (0, 1):
        block = stacked.block(counts.B, i)
        assert isinstance(block, PackedBits)
        np.testing.assert_array_equal(np.asarray(block), stacked.block(whole, i))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("in_order", [True, False])
def test_rows_in_order_group_as_any_rows_do(seed, in_order):
    """Rows already in byte order are grouped by their runs (no hashing): the groups,
    numbered by first appearance, are those of a plain comparison of every row."""
    from rulekit._patterns import runs_if_sorted

    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 3, (500, 2)).astype(np.uint8) << np.uint8(6)
    keys = keys[np.lexsort(keys.T[::-1])] if in_order else keys
    ordered, _ = runs_if_sorted(keys)
    assert ordered == in_order
    first, group = evaluate.group_rows(keys)
    seen = {}
    for i, row in enumerate(map(bytes, keys)):
        seen.setdefault(row, (len(seen), i))
    np.testing.assert_array_equal(group, [seen[bytes(r)][0] for r in keys])
    np.testing.assert_array_equal(first, [i for _, i in sorted(seen.values())])
    # a sorted table of distinct pairs is taken as it is: its pairs are its rows
    B = PackedBits(np.unique(keys, axis=0), 16)
    y = np.zeros(len(B), dtype=np.int64)
    pairs = binary_pairs(B, y, np.ones(len(B)), fold_counts=np.ones((len(B), 2), np.int32))
    assert pairs.B is B
