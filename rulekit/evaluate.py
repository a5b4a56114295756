"""How rules apply to rows: written once, used by every model and learner.

A *rule matrix* is a boolean ``(n_samples, n_columns)`` array: the
binarized conditions (:meth:`rulekit.Binarizer.transform`) or the mined
antecedents.  Rules and clauses are tuples of column indices.

* :func:`first_match` — which rule of an ordered list captures each row
  (the rule lists of CORELS and falling rule lists);
* :func:`capture_counts` — the class counts each rule captures;
* :func:`dnf_holds`, :func:`cnf_holds` — the truth of a rule set;
* :func:`merge_rows` — identical rows merged into one with summed weights
  (every rule treats them alike, so engines search over the distinct rows).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ._checks import check_boolean_matrix
from ._patterns import PackedBits, sorted_groups

__all__ = ["all_of", "any_of", "first_match", "capture_counts", "dnf_holds", "cnf_holds",
           "merge_rows", "check_rule_matrix"]


def _matrix(M) -> np.ndarray:
    if isinstance(M, PackedBits):
        return M        # read a block of rows at a time (_row_blocks), never whole
    M = np.asarray(M)
    if M.ndim != 2:
        raise ValueError(f"rule matrix must be 2-D (samples x columns), got {M.ndim}-D")
    return M.astype(bool, copy=False)


#: A rule matrix given by a user, checked: 2-D, boolean or 0/1 numbers (the one
#: check, :func:`rulekit._checks.check_boolean_matrix`, under its older name here).
check_rule_matrix = check_boolean_matrix


#: Bytes of a row-major matrix read per block by :func:`first_match`,
#: :func:`dnf_holds` and :func:`cnf_holds`: a block stays in cache while each
#: literal reads its column.
BLOCK_BYTES = 1 << 21

#: The fewest rows in such a block (a wide matrix still reads whole blocks).
MIN_BLOCK_ROWS = 1024


def _row_blocks(M):
    """Slices of ``M``'s rows a block at a time, or all rows in one slice.

    One column of a row-major matrix is a strided read that touches a cache line
    per row; a rule set reads as many columns as it has literals.  On millions of
    rows that is one pass over memory per literal, where a block of rows read
    once serves every literal (a 14-clause DNF over 3.7 million rows of 169
    conditions: 1.7 s by columns).
    """
    n, width = M.shape
    if not isinstance(M, PackedBits) and not M.flags.c_contiguous:
        return [slice(0, n)]
    step = max(MIN_BLOCK_ROWS, BLOCK_BYTES // max(width, 1))
    return [slice(s, min(s + step, n)) for s in range(0, n, step)]


def all_of(M, columns: Sequence[int]) -> np.ndarray:
    """Rows where every listed column holds (all rows for an empty tuple)."""
    M = _matrix(M)
    hit = np.ones(M.shape[0], dtype=bool)
    for j in columns:
        hit &= M[:, j]
    return hit


def any_of(M, columns: Sequence[int]) -> np.ndarray:
    """Rows where at least one listed column holds (no row for an empty tuple)."""
    M = _matrix(M)
    hit = np.zeros(M.shape[0], dtype=bool)
    for j in columns:
        hit |= M[:, j]
    return hit


def first_match(M, rules: Sequence[Sequence[int]]) -> np.ndarray:
    """Index of the first rule whose columns all hold, per row.

    Parameters
    ----------
    M : array-like of bool, shape (n_samples, n_columns)
    rules : sequence of tuple of int
        Each rule is the conjunction of its columns (an empty tuple holds on
        every row).

    Returns
    -------
    ndarray of int64, shape (n_samples,)
        ``k`` for the first rule that holds, ``len(rules)`` where none does
        (the default rule of a rule list).
    """
    M = _matrix(M)
    out = np.full(M.shape[0], len(rules), dtype=np.int64)
    for rows in _row_blocks(M):
        block, where = M[rows], out[rows]
        free = np.ones(block.shape[0], dtype=bool)
        for k, rule in enumerate(rules):
            hit = free & all_of(block, rule)
            where[hit] = k
            free &= ~hit
    return out


def capture_counts(M, rules, codes, n_classes: int, sample_weight=None) -> np.ndarray:
    """Class counts captured by each rule of an ordered list, default last.

    Parameters
    ----------
    M, rules : as for :func:`first_match`
    codes : array-like of int, shape (n_samples,)
        Class codes ``0..n_classes-1``.
    n_classes : int
    sample_weight : array-like, optional
        Weights instead of counts (the result is then float).

    Returns
    -------
    ndarray, shape (len(rules) + 1, n_classes)
    """
    where = first_match(M, rules)
    codes = np.asarray(codes, dtype=np.int64)
    flat = where * n_classes + codes
    size = (len(rules) + 1) * n_classes
    if sample_weight is None:
        counts = np.bincount(flat, minlength=size)
    else:
        counts = np.bincount(flat, weights=np.asarray(sample_weight, float), minlength=size)
    return counts.reshape(len(rules) + 1, n_classes)


def dnf_holds(M, clauses) -> np.ndarray:
    """OR of ANDs: rows where some clause has all its columns true."""
    M = _matrix(M)
    out = np.zeros(M.shape[0], dtype=bool)
    for rows in _row_blocks(M):
        block, hit = M[rows], out[rows]
        for clause in clauses:
            hit |= all_of(block, clause)
    return out


def cnf_holds(M, clauses) -> np.ndarray:
    """AND of ORs: rows where every clause has some column true."""
    M = _matrix(M)
    out = np.ones(M.shape[0], dtype=bool)
    for rows in _row_blocks(M):
        block, hit = M[rows], out[rows]
        for clause in clauses:
            hit &= any_of(block, clause)
    return out


def row_hashes(keys: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of a uint8 matrix (its bytes read as 64-bit words, the
    last one padded with zeros): equal rows hash alike; callers settle collisions."""
    n, width = keys.shape
    words = -(-width // 8)
    padded = np.zeros((n, words * 8), dtype=np.uint8)
    padded[:, :width] = keys
    view = padded.view(np.uint64)
    h = np.full(n, 0x9E3779B97F4A7C15, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words):
            h ^= view[:, j]
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(31)
    return h


def _distinct_rows(keys: np.ndarray):
    """``np.unique(keys, axis=0, return_index=True, return_inverse=True)[1:]``, faster.

    Sorting whole rows is slow when they are wide (a thousand antecedents are
    125 bytes a row), so each row is first hashed to one 64-bit number and the
    numbers are grouped.  Rows are then compared with their group's first row;
    a hash collision (two different rows, one number) is detected there and
    the exact row sort is used instead.  The groups are numbered in the order
    of their sorted hash, not of their rows: callers renumber them.
    """
    h = row_hashes(keys)
    _, first, group = np.unique(h, return_index=True, return_inverse=True)
    group = group.reshape(-1)
    if np.array_equal(keys, keys[first[group]]):
        return first, group
    _, first, group = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    return first, group.reshape(-1)


def group_rows(*parts):
    """Groups of identical rows across boolean matrices read side by side.

    Parameters
    ----------
    *parts : ndarray of bool, shape (n_samples, k_i) each
        Read as one matrix ``[parts[0] | parts[1] | ...]``, without building
        it: each part is packed into bytes on its own, so the whole is never
        held twice.  A part of dtype ``uint8`` is taken as already packed
        (``numpy.packbits``'s layout, e.g. ``Binarizer.transform_packed``).

    Returns
    -------
    first : ndarray of int64, shape (n_groups,)
        The first row of each group; groups are numbered in that order.
    group : ndarray of int64, shape (n_samples,)
        The group of each row.
    """
    parts = [p.packed if isinstance(p, PackedBits) else
             p if isinstance(p, np.ndarray) and p.dtype == np.uint8 and p.ndim == 2
             else _matrix(p) for p in parts]
    n = parts[0].shape[0]
    packed = [p if p.dtype == np.uint8 else np.packbits(p, axis=1) for p in parts if p.shape[1]]
    if not packed or n == 0:
        return np.zeros(min(n, 1), dtype=np.int64), np.zeros(n, dtype=np.int64)
    keys = packed[0] if len(packed) == 1 else np.concatenate(packed, axis=1)
    del packed
    runs = sorted_groups(keys)
    if runs is not None:
        return runs     # rows in order: their runs, without hashing (or sorting) every row
    first, group = _distinct_rows(keys)
    # number groups by first appearance, so the layout follows the data order
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order].astype(np.int64), rank[group].astype(np.int64)


def merge_rows(M, *weights):
    """Merge identical rows of a boolean matrix.

    Parameters
    ----------
    M : array-like of bool, shape (n_samples, n_columns)
    *weights : array-like, shape (n_samples,) each
        Per-row quantities to add up within each group (counts, weights).

    Returns
    -------
    rows : ndarray of bool, shape (n_groups, n_columns)
        Distinct rows, in order of first appearance.
    group : ndarray of int64, shape (n_samples,)
        The group of each input row (``rows[group] == M``).
    sums : list of ndarray, shape (n_groups,) each
        One per ``weights`` argument.
    """
    M = _matrix(M)
    first, group = group_rows(M)
    sums = []
    for w in weights:
        w = np.asarray(w)
        total = np.bincount(group, weights=w.astype(float), minlength=len(first))
        sums.append(total.astype(np.int64) if w.dtype.kind in "biu" else total)
    return M[first], group.astype(np.int64), sums
