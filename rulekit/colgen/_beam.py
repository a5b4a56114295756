"""Beam-search pricing heuristic with lower-bound pruning.

Dash, Günlük, Wei, "Boolean Decision Rules via Column Generation", NeurIPS
2018, §3: the heuristic that extends clauses literal by literal, scoring
them by the pricing objective; here with a beam of fixed width and the
optimistic bound below to stop extending hopeless clauses.

All scoring is vectorised: for a beam clause with coverage mask ``m`` the
reduced-cost sums of its one-literal extensions are the row ``(r * m) @ X``
over all columns at once, and the rows of a whole level are one matrix
product, so one level costs ``O(width * U * d)`` floating-point work in BLAS
(reading ``X`` once) and no Python per child.
The heuristic never proves anything; the driver re-checks every clause it
returns exactly before adding it.
"""

from __future__ import annotations

import numpy as np

from ._packed import (PackedRows, columns, float_rows, float_rows_at, rows_holding,
                      signed_byte_sums)
from ._pricing import PricingOutcome, PricingProblem
from ._settings import ColGenSettings

# operator codes used by the column metadata (see ``condition_metadata``)
OP_LE, OP_GT, OP_EQ, OP_NE, OP_OTHER = 0, 1, 2, 3, 4


def _allowed_extensions(clause, d, meta):
    """Columns that may extend ``clause`` without being redundant or empty.

    After ``x <= t`` only ``x > t'`` with ``t' < t`` on the same original
    column is useful; after ``x > t`` only ``x <= t'`` with ``t' > t``; after
    ``x == v`` nothing else on the column; after ``x != v`` only other ``!=``.
    """
    allowed = np.ones(d, dtype=bool)
    allowed[list(clause)] = False
    if meta is None:
        return allowed
    groups, ops, thr = meta
    for l in clause:
        g = groups[l]
        if g < 0:
            continue
        same = groups == g
        op, t = ops[l], thr[l]
        if op == OP_LE:
            keep = (ops == OP_GT) & (thr < t)
        elif op == OP_GT:
            keep = (ops == OP_LE) & (thr > t)
        elif op == OP_EQ:
            keep = np.zeros(d, dtype=bool)
        elif op == OP_NE:
            keep = ops == OP_NE
        else:
            continue
        allowed &= ~same | keep
    return allowed


class _Stopped(Exception):
    """``should_stop()`` turned true between two blocks of rows of a level's product."""


def beam_search(problem: PricingProblem, settings: ColGenSettings, *, width=None,
                max_candidates=None, should_stop=None, memo=None) -> PricingOutcome:
    """Find clauses with negative reduced cost.

    Parameters
    ----------
    problem : PricingProblem
        Its ``Xf`` (0/1 floats, ``X`` as float64 when None) sets the
        precision of the scores: they only rank candidates, which are
        re-checked exactly.  Clauses in ``problem.exclude`` are expanded
        but not returned; ``problem.meta`` prunes redundant extensions.
    settings : ColGenSettings
        ``beam_width``, ``beam_max_candidates`` (children scored before
        stopping), ``beam_max_literals``, ``columns_per_round`` (clauses
        returned) and ``eps``.
    width, max_candidates : int, optional
        Override the settings' width and candidate limit (a widened beam).
    should_stop : callable, optional
        Polled between levels and, on many rows, between blocks of a level's
        product (a level on millions of rows takes seconds): when it turns
        true the search returns the clauses found by the levels it finished.
    memo : dict, optional
        Shared by the searches of one pricing problem, widened one after the
        other: on packed rows, the sums of each clause scored (and of the first
        level) are kept in it and not read from the rows again. A wider beam
        scores the narrower one's clauses first, and on millions of rows each
        clause's sums are a pass over its rows. The sums are the same either
        way (each clause's are read on their own).

    Returns
    -------
    PricingOutcome
        ``ranked``: ``(approximate rc, clause)`` sorted by rc, all below
        ``-eps``; nothing proved.
    """
    beam = _Beam(problem, settings, should_stop, memo)
    width = settings.beam_width if width is None else width
    max_candidates = settings.beam_max_candidates if max_candidates is None else max_candidates
    max_literals = min(settings.beam_max_literals, problem.max_literals)
    try:
        level = beam.first_level(width, max_literals)
        evaluated = beam.d
        n_lits = 1
        while level and n_lits < max_literals and evaluated < max_candidates:
            if should_stop is not None and should_stop():
                break
            level, scored = beam.next_level(level, n_lits, width, max_literals)
            evaluated += scored
            n_lits += 1
    except _Stopped:
        pass            # the level cut short added nothing: its sums were not whole
    return PricingOutcome.from_ranked(beam.best())


#: Rows of the 0/1 float32 copy a product converts at a time (:class:`Float32Rows`):
#: a block of 8192 rows of 185 conditions is 6 MB, which stays in cache between its
#: conversion and its product (a block of 65,536 rows took twice the time per row).
FLOAT_BLOCK_ROWS = 8192

#: Blocks of rows :meth:`Float32Rows.weighted_sums` searches for live rows at a time.
SPAN_BLOCKS = 16


class Float32Rows:
    """The 0/1 matrix ``X`` as float32 on the right of a product, converted a block at a time.

    ``M @ Float32Rows(X)`` is ``M @ X.astype(np.float32)`` without the copy,
    which is four times ``X`` (2.4 GB on 3.7 million distinct rows of 160
    conditions): the rows are converted :data:`FLOAT_BLOCK_ROWS` at a time,
    into one buffer kept for every product, and the blocks' products added in
    float64.  The beam only ranks with these scores (every candidate's reduced
    cost is then computed exactly), and on at most one block the product is
    the float32 one.
    """

    # numpy then leaves ``ndarray @ self`` to __rmatmul__
    __array_ufunc__ = None
    dtype = np.dtype(np.float32)

    def __init__(self, X):
        self.X = X
        self.shape = X.shape
        self._block = None

    def __rmatmul__(self, M):
        return self.product(M)

    def _buffer(self):
        """The one block of float32 rows every conversion writes into."""
        if self._block is None:
            self._block = np.empty((min(FLOAT_BLOCK_ROWS, self.shape[0]), self.shape[1]),
                                   dtype=self.dtype)
        return self._block

    def _rows(self, start, stop):
        """Rows ``start:stop`` as float32, in the buffer (valid until the next call)."""
        return float_rows(self.X, start, stop, self.dtype, out=self._buffer())

    def product(self, M, should_stop=None):
        """``M @ self``; ``should_stop`` is polled between blocks (:class:`_Stopped`)."""
        M = np.asarray(M)
        U = self.shape[0]
        if U <= FLOAT_BLOCK_ROWS:
            return M @ self._rows(0, U)
        out = np.zeros(M.shape[:-1] + (self.shape[1],))
        for start in range(0, U, FLOAT_BLOCK_ROWS):
            _poll(should_stop)
            stop = min(start + FLOAT_BLOCK_ROWS, U)
            out += M[..., start:stop] @ self._rows(start, stop)
        return out.astype(np.float32)

    def first_sums(self, r, neg, should_stop=None):
        """``(r @ X, neg @ X)`` with ``neg = max(-r, 0)``: the beam's first level.

        Both in one pass over the rows: on packed rows over their own bytes
        (:meth:`signed_sums` with a mask holding every row), otherwise with each
        block converted once (a stacked product may round otherwise than
        ``r @ Xf`` and ``neg @ Xf`` do on a copy, as the blocks' sums already do).
        """
        if isinstance(self.X, PackedRows):
            return self.signed_sums([None], r, should_stop)
        return self.product(np.stack([r, neg]), should_stop)

    def weighted_sums(self, masks, weights, should_stop=None) -> np.ndarray:
        """``np.concatenate([M * w for w in weights]) @ self`` with ``M`` the masks stacked
        as float32, made a block of rows at a time: the stacked masks and their weighted
        copies (on 3.7 million rows, 15 MB a mask and weight) are never made whole.

        Only the rows some mask holds and some weight is not zero on are converted and
        multiplied: every other row adds exact zeros to every sum. The beam's masks
        past its first level hold on a few rows (a median of 9 % of 716,289 distinct
        rows in a fit on a million), so most of the conversion is skipped. The blocks
        are of those rows, in order, so the sums may round otherwise than one product
        over every row would (the beam only ranks with them).
        """
        U = self.shape[0]
        rows = len(masks) * len(weights)
        if U <= FLOAT_BLOCK_ROWS:
            M = np.stack(masks).astype(self.dtype)
            return np.concatenate([M * w for w in weights]) @ self
        out = np.zeros((rows, self.shape[1]))
        for idx in self._live_blocks(masks, weights, should_stop):
            M = np.stack([m[idx] for m in masks]).astype(self.dtype)
            out += np.concatenate([M * w[idx] for w in weights]) @ float_rows_at(
                self.X, idx, self.dtype, self._buffer())
        return out.astype(np.float32)

    def signed_sums(self, masks, r, should_stop=None) -> np.ndarray:
        """``weighted_sums(masks, (r, neg))`` with ``neg = max(-r, 0)``, in half the
        products: on a row where ``r > 0`` the second weight is 0, and where ``r < 0``
        it is ``-r``, so with ``P`` and ``N`` the sums over those rows, the two blocks of
        sums are ``P + N`` and ``-N``. On packed rows, ``P`` and ``N`` are read from the
        rows' own bytes a mask at a time (:func:`~._packed.signed_byte_sums`; a mask
        there may also be ascending row indices, as the beam's are on packed rows, and
        None holds every row); otherwise each block of live rows is converted with its
        rows of ``r > 0`` first, and multiplied in two parts.
        """
        U, K = self.shape[0], len(masks)
        if isinstance(self.X, PackedRows):
            # from the rows' own bytes, a mask at a time: no row is converted
            out = np.zeros((2 * K, self.shape[1]))
            for k, m in enumerate(masks):
                _poll(should_stop)
                pos, neg = signed_byte_sums(self.X, m, r)
                out[k] = pos + neg
                out[K + k] = -neg
            return out.astype(np.float32)
        if U <= FLOAT_BLOCK_ROWS:
            return self.weighted_sums(masks, (r, np.clip(-r, 0.0, None)), should_stop)
        pos_sums = np.zeros((K, self.shape[1]))
        neg_sums = np.zeros((K, self.shape[1]))
        for idx in self._live_blocks(masks, (r,), should_stop):
            up = r[idx] > 0
            idx = np.concatenate([idx[up], idx[~up]])
            n_up = int(up.sum())
            rows = float_rows_at(self.X, idx, self.dtype, self._buffer())
            W = np.stack([m[idx] for m in masks]).astype(self.dtype) * r[idx]
            if n_up:
                pos_sums += W[:, :n_up] @ rows[:n_up]
            if n_up < idx.size:
                neg_sums += W[:, n_up:] @ rows[n_up:]
        return np.concatenate([pos_sums + neg_sums, -neg_sums]).astype(np.float32)

    def _live_blocks(self, masks, weights, should_stop):
        """The rows some mask holds and some weight is not 0 on, in order, in blocks of
        :data:`FLOAT_BLOCK_ROWS` (the last one shorter)."""
        U = self.shape[0]
        # a span of rows is searched for live rows at a time, so that no index or mask
        # of every row is made; the blocks are the live rows in order, FLOAT_BLOCK_ROWS
        # at a time, whatever the spans
        span = SPAN_BLOCKS * FLOAT_BLOCK_ROWS
        carry = np.zeros(0, dtype=np.intp)
        for lo in range(0, U, span):
            hi = min(lo + span, U)
            live = masks[0][lo:hi].copy()
            for m in masks[1:]:
                live |= m[lo:hi]
            some = weights[0][lo:hi] != 0
            for w in weights[1:]:
                some |= w[lo:hi] != 0
            at = np.concatenate([carry, np.flatnonzero(live & some) + lo])
            whole = at.size - at.size % FLOAT_BLOCK_ROWS
            for start in range(0, whole, FLOAT_BLOCK_ROWS):
                _poll(should_stop)
                yield at[start:start + FLOAT_BLOCK_ROWS]
            carry = at[whole:]
        if carry.size:
            _poll(should_stop)
            yield carry


def _poll(should_stop):
    if should_stop is not None and should_stop():
        raise _Stopped


class _Beam:
    """The scores of one beam search and the clauses it found (``found``)."""

    def __init__(self, problem, settings, should_stop=None, memo=None):
        self.should_stop = should_stop
        X = problem.X
        Xf = float_rows(X, 0, X.shape[0], np.float64) if problem.Xf is None else problem.Xf
        self.Xf, self.p = Xf, problem
        self.d = Xf.shape[1]
        self.r = np.asarray(problem.r, dtype=Xf.dtype)     # float32 data: scores in float32
        self.neg = np.clip(-self.r, 0.0, None)
        exclude = problem.exclude
        self.excl = exclude if isinstance(exclude, (set, dict, frozenset)) else set(exclude)
        self.n_best, self.eps = settings.columns_per_round, settings.eps
        self.found = {}
        # on packed rows a clause's rows are ascending indices, not a mask of every row:
        # a level's clauses hold a few percent of millions of rows, and their sums and
        # children then cost what those rows cost (_packed.rows_holding)
        self.indexed = isinstance(X, PackedRows) and isinstance(Xf, Float32Rows)
        # each clause's sums there are its own (signed_byte_sums), so they can be kept
        self.memo = memo if self.indexed else None

    def allowed(self, clause):
        """Columns that may extend ``clause`` (see :func:`_allowed_extensions`).

        With the problem's compatibility matrix, the rows of the clause's
        literals ANDed: the same columns (``compat[l]`` is
        ``_allowed_extensions((l,))``, and the rules of a clause are those of
        its literals together), without the per-literal passes over the
        metadata that a beam level would repeat for each of its clauses.
        """
        if self.p.compat is None:
            return _allowed_extensions(clause, self.d, self.p.meta)
        return self.p.compat[list(clause)].all(axis=0)

    def keep_found(self, clause, js, rc):
        """Record the best children ``clause + j`` (``j`` in ``js``) of negative rc."""
        # only the n_best new clauses of each parent can reach the overall n_best
        kept = 0
        for j in js[np.argsort(rc[js], kind="stable")]:
            child = tuple(sorted(clause + (int(j),)))
            if child in self.excl:
                continue
            self.found[child] = float(rc[j])
            kept += 1
            if kept >= self.n_best:
                break

    def first_level(self, width, max_literals):
        """Score the single literals; the first beam ``[(clause, mask)]``."""
        if isinstance(self.Xf, Float32Rows):
            # () is no clause: the key of the first level's sums, over every row
            s, nb = self._kept((), lambda: self.Xf.first_sums(self.r, self.neg,
                                                               self.should_stop))
        else:
            s, nb = self.r @ self.Xf, self.neg @ self.Xf
        rc = s + self.p.penalty(1)
        bound = -nb + self.p.penalty(2)
        self.keep_found((), np.flatnonzero(rc < -self.eps), rc)
        if max_literals <= 1:
            return []
        ok = np.flatnonzero((bound < -self.eps) & (nb > 0))
        score = 0.5 * rc[ok] + 0.5 * bound[ok]
        top = ok[np.argsort(score, kind="stable")[:width]]
        if self.indexed:
            return [((int(j),), rows_holding(self.p.X, int(j))) for j in top]
        return list(zip([(int(idx),) for idx in top], self._columns(top)))

    def _columns(self, js):
        """The coverage masks of columns ``js``, one contiguous row each.

        One gather over the rows of ``X``: reading the columns one by one
        would walk the whole (row-major) matrix once per column.
        """
        return columns(self.p.X, js)

    def _children(self, ranked):
        """``[(child, its rows)]`` of ``ranked`` (``(child, (score, parent rows, j))``):
        the parent's rows where condition ``j`` holds."""
        if self.indexed:
            return [(c, rows_holding(self.p.X, j, m)) for c, (_, m, j) in ranked]
        cols = self._columns([j for _, (_, _, j) in ranked])
        return [(c, m & col) for (c, (_, m, _)), col in zip(ranked, cols)]

    def next_level(self, level, n_lits, width, max_literals):
        """Extend every clause of ``level`` (``n_lits`` literals each) by one literal.

        Returns the next beam and the number of children scored.
        """
        eps, children, scored = self.eps, {}, 0
        # every clause of the level scored in one matrix product: a product
        # per clause reads all of ``Xf`` from memory once per clause, which is
        # what the beam's time went to on large data
        if self.memo is not None:
            sums = self._memo_sums(level)
        elif isinstance(self.Xf, Float32Rows):
            # many rows: the level's masks are weighed a block of rows at a time
            sums = self.Xf.signed_sums([m for _, m in level], self.r, self.should_stop)
        else:
            masks = np.stack([m for _, m in level]).astype(self.Xf.dtype)
            sums = np.concatenate([masks * self.r, masks * self.neg]) @ self.Xf
        n = len(level)
        for i, (clause, m) in enumerate(level):
            nb = sums[n + i]
            rc = sums[i] + self.p.penalty(n_lits + 1)
            bound = -nb + self.p.penalty(n_lits + 2)
            allowed = self.allowed(clause) & (nb > 0)
            scored += int(allowed.sum())
            self.keep_found(clause, np.flatnonzero(allowed & (rc < -eps)), rc)
            if n_lits + 1 < max_literals:
                # a child in the overall top `width` is in its parent's top `width`
                js = np.flatnonzero(allowed & (bound < -eps))
                score = 0.5 * rc[js] + 0.5 * bound[js]
                for t in np.argsort(score, kind="stable")[:width]:
                    child = tuple(sorted(clause + (int(js[t]),)))
                    if child not in children:
                        children[child] = (float(score[t]), m, int(js[t]))
        ranked = sorted(children.items(), key=lambda kv: (kv[1][0], kv[0]))[:width]
        return self._children(ranked), scored

    def _kept(self, key, compute):
        """``compute()``, kept in ``memo`` under ``key`` when the beam has one."""
        if self.memo is None:
            return compute()
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def _memo_sums(self, level):
        """The level's sums as :meth:`Float32Rows.signed_sums` gives them, each clause's
        read from the rows once per pricing problem (``memo``)."""
        new = [(c, m) for c, m in level if c not in self.memo]
        if new:
            got = self.Xf.signed_sums([m for _, m in new], self.r, self.should_stop)
            for i, (c, _) in enumerate(new):
                self.memo[c] = (got[i], got[len(new) + i])
        return np.stack([self.memo[c][0] for c, _ in level]
                        + [self.memo[c][1] for c, _ in level])

    def best(self):
        """The ``n_best`` clauses found, ``(rc, clause)`` by rc."""
        out = sorted(((v, c) for c, v in self.found.items() if c not in self.excl),
                     key=lambda t: (t[0], t[1]))
        return out[:self.n_best]
