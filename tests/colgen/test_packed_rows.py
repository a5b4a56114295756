"""The distinct rows kept a bit per row (issue 35: column generation's memory at scale).

Above ``PACKED_MASK_ROWS`` distinct rows the search holds its rows only packed
(:class:`rulekit.colgen._packed.PackedRows`), never as the boolean matrix.
Each reader of the packed rows is checked here against the boolean matrix it
replaces, and whole searches -- every pricing method, both forms, weights,
penalties -- against the same searches on the boolean rows (the threshold
moved below and above the data), which must find the same clauses,
objective and bound.
"""

import numpy as np
import pytest

import rulekit.colgen._beam as beam
import rulekit.colgen._search as s
from rulekit.colgen import ColGenSettings, search
from rulekit.colgen._packed import (PackedRows, all_rows_of, columns, float_rows, float_rows_at,
                                    row_block, take, transposed, weighed_columns)
from rulekit.colgen._search import Problem
from rulekit._patterns import PackedBits
from rulekit.evaluate import all_of, group_rows


@pytest.mark.parametrize("U", [1, 7, 8, 9, 61, 200])
def test_every_reader_of_packed_rows_reads_the_boolean_rows(U, monkeypatch):
    rng = np.random.default_rng(U)
    B = rng.random((U + 5, 11)) < 0.4
    rows = rng.permutation(U + 5)[:U]
    X = B[rows]
    monkeypatch.setattr("rulekit.colgen._packed.PACK_BLOCK_ROWS", 16)   # several blocks
    P = PackedRows.of_rows(B, rows)
    assert P.shape == X.shape and P.bits.dtype == np.uint8 and P.bits.shape == (11, (U + 7) // 8)
    js = [3, 0, 10, 3]
    np.testing.assert_array_equal(columns(P, js), np.ascontiguousarray(X[:, js].T))
    pick = rng.integers(0, U, size=17)
    got = take(P, pick)
    assert got.dtype == bool and got.flags.c_contiguous
    np.testing.assert_array_equal(got, X[pick])
    for start, stop in [(0, U), (U // 3, U), (1, max(1, U - 1)), (U, U)]:
        blk = row_block(P, start, stop)
        assert blk.dtype == bool and blk.flags.c_contiguous
        np.testing.assert_array_equal(blk, X[start:stop])
        for dtype in (np.float32, np.float64):
            f = float_rows(P, start, stop, dtype)
            assert f.dtype == dtype and f.flags.c_contiguous
            np.testing.assert_array_equal(f, X[start:stop].astype(dtype))
    np.testing.assert_array_equal(transposed(P), X.T)
    r = rng.normal(size=U)
    assert np.array_equal(weighed_columns(r, X), r @ X.astype(np.float64))
    for block in (3, 8, 1 << 13):       # several blocks, and one
        np.testing.assert_allclose(weighed_columns(r, P, block=block), r @ X.astype(np.float64),
                                   rtol=1e-12, atol=1e-12)
    for clause in [(), (2,), (1, 4), (0, 5, 9)]:
        np.testing.assert_array_equal(all_rows_of(P, clause), all_of(X, clause))
    N = P.complement()
    np.testing.assert_array_equal(transposed(N), ~X.T)
    # the numbers come from the rows' own bytes, complemented too, or from the
    # conditions' bits when a matrix has no rows' bytes
    assert P.by_row is not None and N.by_row is not None
    for Q, want in ((P, X), (N, ~X), (PackedRows(P.bits, U), X), (PackedRows(N.bits, U), ~X)):
        np.testing.assert_array_equal(float_rows(Q, 0, U, np.float32), want.astype(np.float32))
        at = np.unique(pick)
        buf = np.full((at.size + 3, 11), 7.0)
        got = float_rows_at(Q, at, np.float64, buf)
        np.testing.assert_array_equal(got, want[at].astype(np.float64))
        assert np.shares_memory(got, buf) and np.all(buf[at.size:] == 7.0)
    np.testing.assert_array_equal(all_rows_of(N, (1, 4)), all_of(~X, (1, 4)))
    held = rng.random(U) < 0.5
    assert np.array_equal(N.bits & np.packbits(held), np.packbits(~X.T & held, axis=1))


@pytest.mark.parametrize("d", [1, 7, 8, 9, 16, 17, 70])
def test_rows_unpacked_eight_by_eight_are_the_boolean_rows(d):
    """float_rows transposes 8 x 8 blocks of bits: every width of the last block of
    conditions, and row ranges that start and stop inside a byte."""
    rng = np.random.default_rng(d)
    U = 53
    X = rng.random((U, d)) < 0.5
    P = PackedRows.of_rows(X, np.arange(U))
    for start, stop in [(0, U), (3, 4), (5, 21), (8, 16), (7, 9), (U - 1, U), (10, 10)]:
        for dtype in (np.float32, np.float64, np.uint8):
            np.testing.assert_array_equal(float_rows(P, start, stop, dtype),
                                          X[start:stop].astype(dtype))


@pytest.mark.parametrize("U, d", [(1, 1), (7, 9), (8, 8), (9, 16), (61, 17), (300, 70)])
def test_packed_rows_hold_each_conditions_bits_made_from_boolean_or_counted_rows(U, d):
    """of_rows makes the conditions' bits from the rows' bytes, eight by eight: what
    numpy.packbits of the transposed rows is, for every width of the last byte of rows
    and of conditions, from a boolean matrix and from counted rows already packed."""
    rng = np.random.default_rng(U * 100 + d)
    B = rng.random((U + 4, d)) < 0.4
    rows = rng.permutation(U + 4)[:U]
    X = B[rows]
    for source in (B, PackedBits(np.packbits(B, axis=1), d)):
        P = PackedRows.of_rows(source, rows)
        np.testing.assert_array_equal(P.bits, np.packbits(X.T, axis=1))
        np.testing.assert_array_equal(P.by_row, np.packbits(X, axis=1))


@pytest.mark.parametrize("threshold", [1, 10**9])
def test_a_cnf_checks_the_negation_map_whether_its_rows_are_packed_or_not(threshold,
                                                                            monkeypatch):
    from rulekit.colgen._metadata import ConditionMetadata

    rng = np.random.default_rng(2)
    base = rng.random((300, 3)) < 0.5
    B = np.column_stack([base, ~base])
    y = (rng.random(300) < 0.5).astype(np.int64)
    monkeypatch.setattr(s, "PACKED_MASK_ROWS", threshold)
    good = np.array([3, 4, 5, 0, 1, 2])
    meta = ConditionMetadata(groups=np.arange(6), ops=np.full(6, 4), thresholds=np.zeros(6),
                             negation_of=good)
    p = Problem.build(B, y, np.ones(300), "cnf", meta, 0.0, 0.0)
    first, _ = group_rows(B)        # the distinct rows, complemented
    np.testing.assert_array_equal(transposed(p.X).T, ~B[first])
    bad = ConditionMetadata(groups=np.arange(6), ops=np.full(6, 4), thresholds=np.zeros(6),
                            negation_of=np.array([4, 3, 5, 0, 1, 2]))
    with pytest.raises(ValueError, match="negation_of"):
        Problem.build(B, y, np.ones(300), "cnf", bad, 0.0, 0.0)


def test_a_large_problem_holds_no_boolean_matrix(monkeypatch):
    """Above the threshold the problem's rows are only packed: no (U, d) bool array."""
    rng = np.random.default_rng(0)
    B = rng.random((500, 9)) < 0.5
    y = (rng.random(500) < 0.4).astype(np.int64)
    w = np.ones(500)
    monkeypatch.setattr(s, "PACKED_MASK_ROWS", 64)
    monkeypatch.setattr(s, "FLOAT_COPY_ROWS", 64)
    p = Problem.build(B, y, w, "dnf", None, 0.0, 0.0)
    assert isinstance(p.X, PackedRows) and isinstance(p.Xf, beam.Float32Rows)
    big = [v for v in vars(p).values()
           if isinstance(v, np.ndarray) and v.ndim == 2 and v.size >= p.n_rows]
    assert big == []
    # the same distinct rows, weights and groups as the boolean problem
    monkeypatch.setattr(s, "PACKED_MASK_ROWS", 10**9)
    q = Problem.build(B, y, w, "dnf", None, 0.0, 0.0)
    assert isinstance(q.X, np.ndarray)
    np.testing.assert_array_equal(transposed(p.X), q.X.T)
    for name in ("wp", "wq", "group", "wpos"):
        np.testing.assert_array_equal(getattr(p, name), getattr(q, name))
    np.testing.assert_array_equal(p.conditions_held(p.wp > 0), q.conditions_held(q.wp > 0))
    # without per-sample duals to record, the per-sample maps are not kept
    r = Problem.build(B, y, w, "dnf", None, 0.0, 0.0, False)
    assert r.group is None and r.wpos is None
    np.testing.assert_array_equal(r.wp, q.wp)
    np.testing.assert_array_equal(r.wq, q.wq)


@pytest.mark.parametrize("threshold", [64, 10**9])
def test_rounds_on_packed_rows_give_freed_memory_back(threshold, monkeypatch):
    """A round on many distinct rows hands the pages it freed back (glibc keeps them
    otherwise); rounds on few rows do not spend the call."""
    rng = np.random.default_rng(3)
    B = rng.random((500, 9)) < 0.5
    y = (rng.random(500) < 0.4).astype(np.int64)
    calls = []
    monkeypatch.setattr(s, "give_back_freed_memory", lambda: calls.append(1))
    monkeypatch.setattr(s, "PACKED_MASK_ROWS", threshold)
    res = search(B, y, max_complexity=8, settings=ColGenSettings(max_rounds=3))
    assert res.trace
    # one call per round (the certifying step after the rounds adds a line, not a round)
    assert (1 <= len(calls) <= len(res.trace)) if threshold == 64 else calls == []


def test_giving_back_freed_memory_keeps_every_array():
    from rulekit._anytime import give_back_freed_memory

    keep = np.arange(1 << 20, dtype=np.float64)
    for _ in range(20):
        np.ones(1 << 19)            # 4 MB, made and freed
    give_back_freed_memory()
    give_back_freed_memory()        # twice: the function is looked up once
    assert keep[-1] == (1 << 20) - 1 and keep.sum() == float(((1 << 20) - 1) * (1 << 20) // 2)


CASES = [
    dict(form="dnf", max_complexity=12, settings=ColGenSettings(pricing="auto")),
    dict(form="cnf", max_complexity=10, settings=ColGenSettings(pricing="auto")),
    dict(form="dnf", max_complexity=6, settings=ColGenSettings(pricing="ip", max_rounds=4)),
    dict(form="dnf", max_complexity=None, lambda0=1.0, lambda1=0.5,
         settings=ColGenSettings(pricing="enum")),
    dict(form="dnf", max_complexity=10,
         settings=ColGenSettings(pricing="auto", lp_solver="highs", group_min_rows=0)),
]


@pytest.mark.parametrize("case", [pytest.param(i, marks=pytest.mark.slow) if
                                  CASES[i]["settings"].pricing == "ip" else i
                                  for i in range(len(CASES))])   # the IP case: 10 s
def test_searches_on_packed_rows_find_what_searches_on_boolean_rows_find(case, monkeypatch):
    rng = np.random.default_rng(case)
    n, d = 400, 10
    B = rng.random((n, d)) < 0.45
    y = ((B[:, 0] & B[:, 1]) | (B[:, 2] & ~B[:, 3])).astype(np.int64)
    y[rng.random(n) < 0.1] ^= 1
    w = rng.integers(1, 4, n).astype(float)
    kw = dict(CASES[case], sample_weight=w, time_limit=None, random_state=3)
    plain = search(B, y, **kw)
    # packed rows, a float copy converted in blocks that end mid-byte
    monkeypatch.setattr(s, "PACKED_MASK_ROWS", 1)
    monkeypatch.setattr(s, "FLOAT_COPY_ROWS", 1)
    monkeypatch.setattr(beam, "FLOAT_BLOCK_ROWS", 13)
    packed_blocks = search(B, y, **kw)
    monkeypatch.setattr(s, "FLOAT_COPY_ROWS", 10**9)
    packed_copy = search(B, y, **kw)
    for got in (packed_blocks, packed_copy):
        assert got.clauses == plain.clauses
        assert got.objective == plain.objective and got.lower_bound == plain.lower_bound
        assert got.status == plain.status and got.lp_value == plain.lp_value
        assert got.columns == plain.columns


@pytest.mark.parametrize("U, block", [(1000, 128), (1000, 100), (90, 128), (3000, 1024)])
def test_a_beam_level_weighed_a_block_at_a_time_sums_as_the_whole_product(U, block,
                                                                          monkeypatch):
    """The beam's level sums, block by block, are the product of the stacked masks;
    a row no mask holds, or of weight 0, changes no sum, and the blocks are of the
    other rows only."""
    rng = np.random.default_rng(U + block)
    B = rng.random((U, 12)) < 0.4
    monkeypatch.setattr(beam, "FLOAT_BLOCK_ROWS", block)
    monkeypatch.setattr(beam, "SPAN_BLOCKS", 2)         # several spans searched for rows
    r = rng.normal(size=U).astype(np.float32)
    r[rng.random(U) < 0.2] = 0.0
    neg = np.clip(-r, 0, None)
    masks = [rng.random(U) < p for p in (0.05, 0.2, 0.5)]
    M = np.stack(masks).astype(np.float32)
    exact = np.concatenate([M * r, M * neg]).astype(np.float64) @ B.astype(np.float64)
    live = np.flatnonzero(M.any(axis=0) & (r != 0))
    assert 0 < live.size < U
    for X in (B, PackedRows.of_rows(B, np.arange(U))):
        got = beam.Float32Rows(X).weighted_sums(masks, (r, neg))
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, exact, rtol=1e-5, atol=1e-4)
        Xl = B[live] if isinstance(X, np.ndarray) else PackedRows.of_rows(B, live)
        alone = beam.Float32Rows(Xl).weighted_sums([m[live] for m in masks],
                                                   (r[live], neg[live]))
        assert np.array_equal(got, alone)
        # the same sums from the rows of r > 0 and r < 0 multiplied apart
        signed = beam.Float32Rows(X).signed_sums(masks, r)
        assert signed.dtype == np.float32 and signed.shape == got.shape
        np.testing.assert_allclose(signed, exact, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("d", [1, 7, 8, 9, 20])
@pytest.mark.parametrize("complemented", [False, True])
def test_sums_by_byte_value_are_each_conditions_sums_over_its_rows(d, complemented):
    """``signed_byte_sums`` adds each row's weight once per byte of the row, to that
    byte's value, then hands each value's total to the conditions whose bits it sets:
    for every condition, the sums of ``r`` over the rows (of the mask) where it holds,
    apart for ``r > 0`` and ``r < 0``, as exact sums of the same float32 weights."""
    from fractions import Fraction

    from rulekit.colgen._packed import signed_byte_sums

    rng = np.random.default_rng(d + 10 * complemented)
    U = 300
    B = rng.random((U, d)) < 0.4
    X = PackedRows.of_rows(B, np.arange(U))
    if complemented:
        X, B = X.complement(), ~B
    r = rng.normal(size=U).astype(np.float32)
    r[rng.random(U) < 0.2] = 0.0
    for mask in (None, rng.random(U) < 0.3, np.zeros(U, dtype=bool)):
        rows = np.ones(U, dtype=bool) if mask is None else mask
        pos, neg = signed_byte_sums(X, mask, r)
        assert pos.shape == neg.shape == (d,)
        for j in range(d):
            hold = rows & B[:, j]
            want_pos = sum((Fraction(float(v)) for v in r[hold & (r > 0)]), Fraction(0))
            want_neg = sum((Fraction(float(v)) for v in r[hold & (r < 0)]), Fraction(0))
            assert pos[j] == pytest.approx(float(want_pos), rel=1e-12, abs=1e-12)
            assert neg[j] == pytest.approx(float(want_neg), rel=1e-12, abs=1e-12)
    # the beam's level sums on packed rows come from these: P + N, then -N
    masks = [rng.random(U) < p for p in (0.1, 0.5)]
    got = beam.Float32Rows(X).signed_sums(masks, r)
    M = np.stack(masks).astype(np.float64)
    exact = np.concatenate([M * r, M * np.clip(-r, 0, None)]) @ B.astype(np.float64)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, exact, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("U", [1, 7, 8, 9, 300])
def test_rows_holding_a_condition_are_the_masks_rows(U):
    """``rows_holding`` gives, as ascending indices, the rows (of all, or of a subset)
    where a condition holds: what the boolean column says, also on complemented rows."""
    from rulekit.colgen._packed import rows_holding

    rng = np.random.default_rng(U)
    B = rng.random((U, 13)) < 0.35
    X = PackedRows.of_rows(B, np.arange(U))
    for P, M in ((X, B), (X.complement(), ~B)):
        for j in range(13):
            np.testing.assert_array_equal(rows_holding(P, j), np.flatnonzero(M[:, j]))
            sub = np.flatnonzero(rng.random(U) < 0.5)
            np.testing.assert_array_equal(rows_holding(P, j, sub), sub[M[sub, j]])


def test_a_beam_on_packed_rows_finds_what_it_finds_on_boolean_rows_and_reads_each_clause_once(
        monkeypatch):
    """On packed rows the beam keeps a clause's rows as indices and its sums in a memo
    shared by the widened searches of one pricing: the clauses and scores are those of
    the beam on the boolean rows (float64 sums, the same ranking), and no clause's sums
    are read twice however often the widened searches score it."""
    import rulekit.colgen._packed as packed
    from rulekit.colgen._pricing import PricingProblem

    rng = np.random.default_rng(3)
    U, d = 2000, 14
    B = rng.random((U, d)) < rng.uniform(0.1, 0.6, size=d)
    r = (rng.integers(-3, 4, size=U) * (rng.random(U) < 0.7)).astype(np.float32)
    X = PackedRows.of_rows(B, np.arange(U))
    settings = ColGenSettings()
    read = []
    sums = packed.signed_byte_sums
    monkeypatch.setattr(beam, "signed_byte_sums",
                        lambda X, rows, r: read.append(None if rows is None else tuple(rows))
                        or sums(X, rows, r))
    memo = {}
    for width in (5, 20, 80):
        plain = beam.beam_search(PricingProblem(B, r, 0.0, 1.0, 1.0, 4, Xf=B.astype(np.float64)),
                                 settings, width=width, max_candidates=10 ** 6)
        kept = beam.beam_search(PricingProblem(X, r, 0.0, 1.0, 1.0, 4,
                                               Xf=beam.Float32Rows(X)),
                                settings, width=width, max_candidates=10 ** 6, memo=memo)
        # whole weights: every sum is exact in float32 and float64 alike
        assert kept.ranked == plain.ranked and kept.ranked
    assert read.count(None) == 1                      # the first level, once
    assert len(read) == len(set(read))                # each clause's rows, once
    assert len(memo) == len(read)
