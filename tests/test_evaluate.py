"""Rule evaluation, written once in rulekit.evaluate, against row-by-row loops."""

import numpy as np
import pytest

from rulekit.evaluate import capture_counts, cnf_holds, dnf_holds, first_match, merge_rows


def _random(seed, n=60, d=7):
    rng = np.random.default_rng(seed)
    M = rng.random((n, d)) < 0.45
    rules = [tuple(sorted(rng.choice(d, size=rng.integers(0, 3), replace=False).tolist()))
             for _ in range(rng.integers(0, 5))]
    return M, rules, rng.integers(0, 3, size=n)


@pytest.mark.parametrize("seed", range(8))
def test_first_match_and_counts_row_by_row(seed):
    M, rules, codes = _random(seed)
    where = first_match(M, rules)
    counts = capture_counts(M, rules, codes, 3)
    expected = np.zeros((len(rules) + 1, 3), dtype=int)
    for i, row in enumerate(M):
        k = next((k for k, r in enumerate(rules) if all(row[j] for j in r)), len(rules))
        assert where[i] == k
        expected[k, codes[i]] += 1
    assert np.array_equal(counts, expected)
    w = np.linspace(0.5, 2.0, len(codes))
    weighted = capture_counts(M, rules, codes, 3, sample_weight=w)
    assert weighted.sum() == pytest.approx(w.sum())


@pytest.mark.parametrize("seed", range(8))
def test_dnf_and_cnf_row_by_row(seed):
    M, clauses, _ = _random(seed)
    clauses = [c for c in clauses if c]
    for i, row in enumerate(M):
        assert dnf_holds(M, clauses)[i] == any(all(row[j] for j in c) for c in clauses)
        assert cnf_holds(M, clauses)[i] == all(any(row[j] for j in c) for c in clauses)


@pytest.mark.parametrize("layout", ["C", "F"])
def test_rows_read_a_block_at_a_time_give_every_row(layout, monkeypatch):
    """Many rows are read a block at a time (here 100 rows of 7 conditions, so the
    last of 10 blocks is short): every row still gets its rule, row by row."""
    import rulekit.evaluate as ev

    monkeypatch.setattr(ev, "BLOCK_BYTES", 7 * 100)
    monkeypatch.setattr(ev, "MIN_BLOCK_ROWS", 1)
    rng = np.random.default_rng(5)
    M = np.asarray(rng.random((950, 7)) < 0.5, order=layout)
    assert len(ev._row_blocks(M)) == (10 if layout == "C" else 1)
    rules = [(0, 3), (5,), (1, 2, 6), ()]
    clauses = rules[:3]
    where, dnf, cnf = first_match(M, rules), dnf_holds(M, clauses), cnf_holds(M, clauses)
    for i, row in enumerate(M):
        assert where[i] == next(k for k, r in enumerate(rules) if all(row[j] for j in r))
        assert dnf[i] == any(all(row[j] for j in c) for c in clauses)
        assert cnf[i] == all(any(row[j] for j in c) for c in clauses)

def test_merge_rows_keeps_first_appearance_order_and_sums():
    M = np.array([[1, 0], [0, 1], [1, 0], [1, 1], [0, 1]], dtype=bool)
    rows, group, (ones, w) = merge_rows(M, np.ones(5, dtype=int), np.array([.5, 1, 2, 3, 4]))
    assert rows.tolist() == [[True, False], [False, True], [True, True]]
    assert group.tolist() == [0, 1, 0, 2, 1]
    assert ones.tolist() == [2, 2, 1] and ones.dtype == np.int64
    assert w.tolist() == [2.5, 5.0, 3.0]
    assert np.array_equal(rows[group], M)


def test_merge_rows_without_columns():
    rows, group, (n,) = merge_rows(np.zeros((4, 0), dtype=bool), np.ones(4, dtype=int))
    assert rows.shape == (1, 0) and group.tolist() == [0] * 4 and n.tolist() == [4]
