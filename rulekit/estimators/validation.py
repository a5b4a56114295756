"""Validation designs, drawn on the estimator side and handed to the engines.

A learner that chooses a parameter by validation (column generation's form and
complexity budget) needs to know which rows it validates on and in which fold
each of them is held out.  That choice is made here, from the fit's distinct
``(binarized row, class)`` pairs and their weights, and given to the engine
as a :class:`Design`; the engines never draw folds themselves.

How folds are drawn
-------------------
The data are first folded into distinct ``(binarized row, class)`` pairs, each
with its summed weight (:func:`binary_pairs`).  Then, for data in memory (no
fold column):

* a pair of total weight ``W`` is cut into ``min(floor(W), n_splits)`` equal
  units (one unit when ``W < 2``); the units of each class are shuffled with
  the fit's random generator and dealt into ``n_splits`` folds, so the folds
  are stratified, and a row of weight 2 and the same row twice are the same
  data (the same folds, the same choice).  ``T[g, k]`` is the weight of pair
  ``g`` tested in fold ``k``;
* with more distinct pairs than ``validation_rows``, a stratified sample of
  that many rows is drawn first (same generator) and only its pairs are
  validated; with more rows than ``cv_max_rows`` no folds are drawn, only a
  stratified sample of ``cv_max_rows`` rows for the form probe.

With a fold column (for data counted from a source, each row's hash fold:
``BooleanRuleCGClassifier._fold_splits`` holds one fold out per split, so
``FitData.tested`` is one-hot and its column is the fold) the fold table is the
weight of each pair in each fold, so it does not depend on how the data were
split into chunks, nor on their order: the pairs are put in a canonical
order (by their bits), and a sample, when one is needed, is drawn from the
per-fold counts in that order (a multivariate hypergeometric draw per
class).  Weights then count as frequencies: the row count is the summed
weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .._params import as_generator, declared, validated
from .._patterns import PackedBits, runs_if_sorted
from .._tolerances import FLOAT_SLACK
from ..evaluate import group_rows, merge_rows
from ..colgen._select import (CHOICE_PARAMETERS, BudgetChoice, CV_MAX_ROWS, DEFAULT_GRID, INNER_FOLDS, PATIENCE,
                             VALIDATION_ROWS, check_grid)
from ..colgen import _select

__all__ = ["Pairs", "Design", "binary_pairs", "pair_keys", "draw_design", "unit_folds",
           "probe_rows", "choose_complexity"]


@dataclass(frozen=True)
class Pairs:
    """A binary problem's distinct ``(row, label)`` pairs and what the draws read.

    Attributes
    ----------
    B : ndarray of bool or PackedBits, shape (n_pairs, d)
        Packed when the counted rows were (column generation from a source).
    y : ndarray of int64 in {0, 1}, shape (n_pairs,)
    w : ndarray of float, shape (n_pairs,)
        The summed weight of each pair's rows.
    n_rows : int
        The rows the pairs stand for.
    rows : tuple or None
        In memory: ``(y, w, pair)`` of every row, for draws made row by row.
    fold_weight, fold_count : ndarray, shape (n_pairs, n_folds), or None
        With a fold column: each pair's weight and row count in each fold.
    """

    B: np.ndarray
    y: np.ndarray
    w: np.ndarray
    n_rows: int
    rows: tuple | None = None
    fold_weight: np.ndarray | None = None
    fold_count: np.ndarray | None = None


@dataclass(frozen=True)
class Design:
    """What a complexity choice validates on (see the module's docstring).

    Attributes
    ----------
    kind : {"cv", "probe", "largest"}
        ``"cv"``: validation along the path over ``index`` with fold table
        ``T``; ``"probe"``: the form probe on the pairs ``index``;
        ``"largest"``: nothing to validate (the largest budget).
    index : ndarray of int or None
        The pairs used, in the order the engine sees them.
    weight : ndarray of float or None
        Their weight in the validation (less than the pair's when sampled).
    T : ndarray, shape (len(index), n_folds), or None
        ``T[g, k]``: the weight of pair ``index[g]`` tested in fold ``k``.
    sampled : bool
        Whether the pairs are a sample (no exact shortcut then).
    """

    kind: str
    index: np.ndarray | None = None
    weight: np.ndarray | None = None
    T: np.ndarray | None = None
    sampled: bool = False


def binary_pairs(B, y, sample_weight=None, fold=None, frequency=None, *,
                 fold_counts=None) -> Pairs:
    """The distinct ``(row, label)`` pairs of a binary problem, each with its summed weight.

    Pairs keep the order of their first row (so a search sees its distinct
    rows in the same order as on the rows themselves), except with a
    ``fold`` column: then they are sorted by their bits, so that the order
    of the rows does not matter.  ``frequency`` (default ``sample_weight``)
    is what the per-fold counts add up.

    ``fold_counts`` (counted rows, shape ``(n_rows, n_folds)``) is the other
    way to give folds: how many rows each row stands for in each fold, and
    ``sample_weight`` the cost of one of them.  The pairs are the same as those
    of the rows cut into one row per fold (``fold``, with ``frequency`` their
    counts and weights the counts times the cost), but nothing is cut, and when
    the rows are distinct pairs already and in the pairs' order
    (:func:`pair_keys`), ``Pairs.B`` is ``B`` itself, not a copy.
    """
    if fold_counts is not None:
        return _counted_pairs(B, y, sample_weight, fold_counts)
    B = np.asarray(B, dtype=bool)
    y = np.asarray(y).astype(np.int64)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    P, group, (W,) = merge_rows(np.column_stack([B, y.astype(bool)]), w)
    if fold is None:
        return Pairs(np.ascontiguousarray(P[:, :-1]), P[:, -1].astype(np.int64), W, len(y),
                     rows=(y, w, group))
    keys = np.packbits(P, axis=1)
    order = np.lexsort(keys.T[::-1]) if keys.shape[1] else np.arange(len(P))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    P, group = P[order], rank[group]
    codes, fold_code = np.unique(np.asarray(fold), return_inverse=True)
    freq = w if frequency is None else np.asarray(frequency, dtype=float)
    fw = np.zeros((len(P), len(codes)))
    fc = np.zeros((len(P), len(codes)))
    np.add.at(fw, (group, fold_code), w)
    np.add.at(fc, (group, fold_code), freq)
    return Pairs(np.ascontiguousarray(P[:, :-1]), P[:, -1].astype(np.int64), fw.sum(axis=1),
                 int(round(float(fc.sum()))), fold_weight=fw, fold_count=fc)


def pair_keys(B, y) -> np.ndarray:
    """``numpy.packbits`` of the rows ``[B | y]``, made without that boolean matrix."""
    if isinstance(B, PackedBits):
        d, keys = B.shape[1], B.packed.copy()    # packbits' layout already
    else:
        B = np.asarray(B, dtype=bool)
        d, keys = B.shape[1], np.packbits(B, axis=1)
    if d % 8 == 0:          # the label starts a byte of its own
        keys = np.concatenate([keys, np.zeros((len(keys), 1), np.uint8)], axis=1)
    keys[:, d // 8] |= (np.asarray(y) != 0).astype(np.uint8) << np.uint8(7 - d % 8)
    return keys


def pair_order(B, y) -> np.ndarray:
    """The order of distinct ``(row, label)`` rows that :func:`binary_pairs` gives them
    with folds (by their bits)."""
    keys = pair_keys(B, y)
    return np.lexsort(keys.T[::-1]) if keys.shape[1] else np.arange(len(keys))


@njit(cache=True)
def take_rows_in_place(M, order):
    """``M[:] = M[order]`` for a permutation ``order``, without a copy of ``M``.

    Follows each cycle of the permutation, holding one row aside.
    """
    n = order.shape[0]
    done = np.zeros(n, dtype=np.bool_)
    held = np.empty(M.shape[1], dtype=M.dtype)
    for start in range(n):
        if done[start]:
            continue
        held[:] = M[start]
        i = start
        while True:
            done[i] = True
            k = order[i]
            if k == start:
                M[i] = held
                break
            M[i] = M[k]
            i = k


def _counted_pairs(B, y, unit, fold_counts) -> Pairs:
    """:func:`binary_pairs` of counted rows with their counts per fold (see there)."""
    y = np.asarray(y).astype(np.int64)
    n = len(y)
    unit = np.ones(n) if unit is None else np.asarray(unit, dtype=float)
    F = np.asarray(fold_counts)
    F = F[:, (F != 0).any(axis=0)]          # the folds that hold rows, as a fold column has
    keys = pair_keys(B, y)
    ordered, new = runs_if_sorted(keys)
    if ordered and new.all():
        # distinct pairs in their order already (counted rows held in pair order,
        # _in_pair_order): what the grouping and the sort below would give, without them
        rows = group = np.arange(n)
    else:
        first, group = group_rows(keys)
        order = np.lexsort(keys[first].T[::-1]) if keys.shape[1] else np.arange(len(first))
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        rows, group = first[order], rank[group]
    del keys, new
    # the same products count x cost as the cut rows' weights, added in the rows' order
    fw = np.zeros((len(rows), F.shape[1]))
    # a counted row that costs one (no class weight): the weights are the counts, one
    # table for both (150 MB each at ten million rows); neither is written to after
    ones = bool(np.all(unit == 1.0))
    fc = fw if ones else np.zeros((len(rows), F.shape[1]))
    same = len(rows) == n and np.array_equal(rows, np.arange(n))
    if same:                # distinct pairs in order: each row is its pair, no temporary
        np.multiply(F, unit[:, None], out=fw)
        if not ones:
            fc[:] = F
    elif len(rows) == n:    # distinct pairs already: nothing adds up
        fw[group] = F * unit[:, None]
        if not ones:
            fc[group] = F
    else:
        np.add.at(fw, group, F * unit[:, None])
        if not ones:
            np.add.at(fc, group, F.astype(float))
    if isinstance(B, PackedBits):
        PB = B if same else B.take(rows)
    else:
        B = B if isinstance(B, np.ndarray) and B.dtype == bool else np.asarray(B, dtype=bool)
        PB = B if same else np.ascontiguousarray(B[rows])
    return Pairs(PB, y[rows], fw.sum(axis=1), int(round(float(fc.sum()))), fold_weight=fw,
                 fold_count=fc)


def draw_design(pairs: Pairs, rng, *, forms, grid, n_splits=INNER_FOLDS,
                cv_max_rows=CV_MAX_ROWS, validation_rows=VALIDATION_ROWS) -> Design:
    """The validation design of one binary problem, drawn with ``rng`` (consumed).

    The draws are those the module's docstring describes, in this order:
    the probe's sample (more than ``cv_max_rows`` rows and two forms), or the
    validation sample (more than ``validation_rows`` distinct pairs), then
    the folds.
    """
    grid = check_grid(grid)
    forms = tuple(dict.fromkeys(forms))
    Y = pairs.y
    if len(Y) == 0 or np.all(Y == Y[0]) or (len(grid) == 1 and len(forms) == 1):
        return Design("largest")
    if pairs.n_rows > cv_max_rows:
        if len(forms) == 1 or grid[-1] == 0:
            return Design("largest")
        index, weight, _ = _sample(pairs, max(cv_max_rows, 1), rng)
        return Design("probe", index, weight)
    sampled = len(Y) > validation_rows
    if sampled:
        index, weight, T = _sample(pairs, validation_rows, rng)
    else:
        index, weight, T = np.arange(len(Y)), pairs.w, pairs.fold_weight
    if pairs.fold_weight is None:
        T = unit_folds(Y[index], weight, n_splits, rng)
    else:
        T = _fold_table(Y[index], T)
    if T is None:
        return Design("largest")
    return Design("cv", index, weight, T, sampled)


def unit_folds(Y, W, n_splits, rng):
    """Stratified folds over units of weight; ``T[g, k]``: pair ``g``'s weight tested in fold ``k``.

    A pair of total weight ``W`` >= 2 is cut into ``min(floor(W), n_splits)``
    equal units, and the units of each class are shuffled and dealt to the
    folds.  So a row of weight 2 and the same row twice are the same data
    (the same folds and the same choice), and copies of a row spread over
    the folds as they would in a plain row-by-row split.  None when a class
    has fewer units than 2 folds need.
    """
    n_units = np.where(W > 0, np.clip(np.floor(W + FLOAT_SLACK), 1, n_splits), 0).astype(np.int64)
    unit_pair = np.repeat(np.arange(W.size), n_units)
    k = int(min(n_splits, *(np.sum(Y[unit_pair] == c) for c in (0, 1))))
    if k < 2:
        return None
    fold = np.empty(unit_pair.size, dtype=np.int64)
    for cls in (0, 1):
        members = np.flatnonzero(Y[unit_pair] == cls)
        rng.shuffle(members)
        for j, part in enumerate(np.array_split(members, k)):
            fold[part] = j
    T = np.zeros((W.size, k))
    np.add.at(T, (unit_pair, fold), (W / np.maximum(n_units, 1))[unit_pair])
    return T


def _fold_table(Y, T):
    """The folds of a fold column that hold weight, or None when fewer than 2 can validate."""
    T = T[:, T.sum(axis=0) > 0]
    if T.shape[1] < 2 or len(np.unique(Y[T.sum(axis=1) > 0])) < 2:
        return None
    return T


def _sample(pairs: Pairs, m, rng):
    """A stratified sample of ``m`` rows as ``(pair index, weight, fold table or None)``."""
    if pairs.rows is not None:
        y, w, group = pairs.rows
        keep = probe_rows(y, m, rng)
        g = group[keep]
        # the pairs of the sample in the order of their first sampled row: the
        # order in which a search over the sampled rows would meet them
        seen, first = np.unique(g, return_index=True)
        index = seen[np.argsort(first, kind="stable")]
        weight = np.bincount(g, weights=w[keep], minlength=len(pairs.y))[index]
        return index, weight, None
    # a fold column: draw from the counts, in the pairs' canonical order; the whole
    # table of counts is never made, only each class's cells in turn (150 MB at ten
    # million rows, on top of the draw's own)
    F, block = pairs.fold_count, COUNT_BLOCK
    total = sum(int(_cell_counts(F[i:i + block]).sum()) for i in range(0, len(F), block))
    if total <= m:
        return np.arange(len(pairs.y)), pairs.w, pairs.fold_weight
    # the draw keeps, per class, only the pairs it took from: on millions of pairs a
    # table of the draws of every pair would be as large as the counts
    parts = []
    for label in np.unique(pairs.y):
        rows = np.flatnonzero(pairs.y == label)
        cells = _cell_counts(pairs.fold_count, rows)
        want = max(1, int(round(m * cells.sum() / total)))
        flat = cells.ravel()
        got = rng.multivariate_hypergeometric(flat, min(want, int(flat.sum())))
        got = got.reshape(cells.shape)
        hit = got.sum(axis=1) > 0
        parts.append((rows[hit], got[hit]))
        del cells, flat, got
    index = np.concatenate([r for r, _ in parts])
    order = np.argsort(index, kind="stable")
    index = index[order]
    taken = np.concatenate([t for _, t in parts])[order]
    count = _cell_counts(pairs.fold_count[index])
    # the weight of the rows taken, multiplied before it is divided: on counts (weight =
    # count) that is the number of rows taken, exactly, as in a sample of the rows
    # (a share times the weight, 49 * (1 / 49), can miss it by a bit)
    T = np.divide(pairs.fold_weight[index] * taken, count, out=np.zeros(count.shape),
                  where=count > 0)
    return index, T.sum(axis=1), T


#: Pairs whose cells are counted at a time when the sample's total is taken.
COUNT_BLOCK = 1 << 20


def _cell_counts(fold_count, rows=None):
    """Rows in each (pair, fold) cell of ``fold_count`` (or of its ``rows``), as whole
    numbers: a cell with any weight holds one.

    Made :data:`COUNT_BLOCK` pairs at a time, into the one table returned: the
    temporaries of the whole (a gathered copy, the sum, its floor) were three more
    tables as large, a gigabyte at fifty million adult-like rows.
    """
    n = len(fold_count) if rows is None else len(rows)
    out = np.empty((n, fold_count.shape[1]), dtype=np.int64)
    for i in range(0, n, COUNT_BLOCK):
        part = fold_count[i:i + COUNT_BLOCK] if rows is None else fold_count[rows[i:i + COUNT_BLOCK]]
        count = np.floor(part + FLOAT_SLACK).astype(np.int64)
        count[(part > 0) & (count == 0)] = 1
        out[i:i + len(count)] = count
    return out


def probe_rows(y, m, rng):
    """A stratified sample of ``m`` rows (sorted indices), drawn with ``rng``."""
    if len(y) <= m:
        return np.arange(len(y))
    parts = []
    for label in np.unique(y):
        rows = np.flatnonzero(y == label)
        take = max(1, int(round(m * len(rows) / len(y))))
        parts.append(rng.choice(rows, size=min(take, len(rows)), replace=False))
    return np.sort(np.concatenate(parts))


@validated(CHOICE_PARAMETERS, "rulekit.colgen.choose_complexity")
def choose_complexity(B, y, *, grid=DEFAULT_GRID, forms=("dnf",), n_splits=INNER_FOLDS,
                      cv_max_rows=CV_MAX_ROWS, validation_rows=VALIDATION_ROWS,
                      patience=PATIENCE, max_literals=None,
                      lambda0=0.0, lambda1=0.0, sample_weight=None, metadata=None,
                      settings=None, time_limit=None, random_state=0) -> BudgetChoice:
    """Pick the form and ``max_complexity`` for :func:`rulekit.colgen.search`.

    Parameters
    ----------
    B, y, sample_weight, max_literals, lambda0, lambda1, metadata :
        As for :func:`rulekit.colgen.search`.
    grid : sequence of int
        Candidate budgets, each 0 or >= 2.  0 stands for the rule set with no
        clauses, a constant prediction (0 as a DNF, 1 as a CNF): the null
        model a rule set has to beat on held-out rows to be worth its rules.
    forms : sequence of {"dnf", "cnf"}
    n_splits : int
        Inner folds (default :data:`INNER_FOLDS`).
    cv_max_rows : int
        Largest row count validated; above it the largest budget is used,
        and the form is probed on a stratified sample of this many rows.
    validation_rows : int
        With more distinct (row, label) pairs than this, the validation runs
        on a stratified sample of this many rows (drawn with
        ``random_state``), so its work stays bounded whatever the size of
        the data; the path then never ends with the ``"exact"`` shortcut (a
        rule set that fits the sample need not fit every row).
    patience : int
        The path of a form stops after this many budgets without a lower
        validation error; the grid's largest budget is then validated too
        (one more budget per fold path), so that a rule set that needs many
        clauses is not missed for a plateau of small budgets.
    settings : ColGenSettings, optional
        Settings of the inner fits (default :data:`INNER_SETTINGS`: rounds,
        enumeration and solver nodes bounded, no pricing IP).
    time_limit : float or None
        Seconds, a safety net (nested in an estimator's fit it keeps the
        earlier deadline).  Cut short, the choice is the best so far.
    random_state : int, Generator, RandomState, SeedSequence or None
        Seeds the folds, the probe's sample (and any sampled pricing).

    Returns
    -------
    BudgetChoice

    Notes
    -----
    The rows are folded into distinct ``(row, label)`` pairs first, and the
    folds are drawn over them as :mod:`rulekit.estimators.validation` describes; the
    search then runs on the pairs.
    """
    p = declared(CHOICE_PARAMETERS, locals())
    forms = tuple(dict.fromkeys(forms))
    if not forms or any(f not in ("dnf", "cnf") for f in forms):
        raise ValueError(f"forms must hold 'dnf' and/or 'cnf', got {forms!r}")
    grid = check_grid(grid)
    B, y, w = _select.check_data(B, y, sample_weight)
    rng = as_generator(p["random_state"])
    pairs = binary_pairs(B, y, w)
    design = draw_design(pairs, rng, forms=forms, grid=grid, n_splits=p["n_splits"],
                         cv_max_rows=p["cv_max_rows"], validation_rows=p["validation_rows"])
    return _select.choose_complexity(
        pairs.B, pairs.y, design=design, grid=grid, forms=forms, patience=p["patience"],
        max_literals=p["max_literals"], lambda0=p["lambda0"], lambda1=p["lambda1"],
        sample_weight=pairs.w, metadata=p["metadata"], settings=p["settings"],
        time_limit=p["time_limit"], random_state=rng)
