"""The restricted master LP solved over groups of alike positive rows (large data).

On a million distinct rows the master LP of :mod:`._master` has a cover row
for every distinct positive row (151,300 of them on the 1M-row adult-like
data), and every single condition seeded into it covers about half of them:
20 million nonzeros, and HiGHS's first solve did not finish within the fit's
two minutes.  Yet the LP cannot tell apart two positive rows that every
clause in use covers alike.  This module solves it over groups of such rows
and proves the answer is the LP's over every row and every column:

1. *Groups.*  Positive rows are grouped by which of a few *defining*
   clauses cover them.  A clause is *compatible* with the groups when it
   covers each group wholly or not at all; every defining clause is.
2. *Grouped LP.*  Over the groups and the compatible clauses only: a cover
   row per group, weighing the group's summed ``wp``.  Its optimum is
   feasible for the full master LP (a compatible clause covers a group's
   rows alike, so each row's slack is its group's; the other clauses are 0)
   with the same objective.
3. *Split duals.*  The group's dual ``mu_g`` is shared among its rows in
   proportion to ``wp``: ``mu_u = mu_g wp_u / wp_g``.  So ``mu_u <= wp_u``,
   and a compatible clause's covered duals sum to the grouped ones.  These
   duals are feasible for the full master's dual except, perhaps, for
   clauses left out of the grouped LP.
4. *Check.*  Every clause of the master is priced against the split duals.
   When none has a reduced cost below ``-eps``, the duals are feasible and
   their value equals the primal's: both are optimal for the full master
   LP, which is what pricing and the bounds need.  Otherwise the most
   negative clauses join: a compatible one enters the grouped LP, an
   incompatible one becomes defining and splits the groups.  Groups only
   split, so this ends.

The duals may differ from the vertex HiGHS returns on the full LP (an LP's
optimal duals are seldom unique), and so may the clauses priced next; that
is why the estimator uses this path only above ``group_min_rows`` positive
rows (:class:`~._settings.ColGenSettings`), and small data keep the full LP.

On the 1M-row data the first master, 151,300 rows and 269 clauses, came out
of 14 grouped solves of at most 2,193 groups (docs/scaling.md).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ._master import LPTimeLimit, MasterCosts, SolverFailure
from ._solvers import quiet_highspy

#: Clauses that join at most per check (the most negative first).  More per
#: check means fewer grouped solves but more (and smaller) groups.
JOIN_PER_CHECK = 8


class GroupedMasterLP(MasterCosts):
    """The restricted master LP of :class:`~._master.MasterLP`, solved over groups.

    Same interface as :class:`~._master.MasterLP` for HiGHS: :meth:`add_column`,
    :meth:`solve`, :meth:`set_budget`, :meth:`dual_value`.

    Parameters
    ----------
    wp, wq : ndarray of float, shape (U,)
        Positive / negative weight of each distinct row.
    max_complexity : int or None
        Budget ``C``; None drops the budget row.
    lambda0, lambda1 : float
        Penalty per clause and per literal (loss units).
    should_stop : callable, optional
        Polled by HiGHS and between grouped solves (Ctrl-C, the deadline).
    eps : float, default=1e-6
        Reduced cost below ``-eps`` that makes a clause join (the pricing's
        tolerance).
    """

    def __init__(self, wp, wq, max_complexity, lambda0, lambda1, should_stop=None, eps=1e-6):
        self.wp = np.asarray(wp, dtype=float)
        self.wq = np.asarray(wq, dtype=float)
        self.C = max_complexity
        self.lambda0 = float(lambda0)
        self.lambda1 = float(lambda1)
        self.should_stop = should_stop
        self.eps = float(eps)
        self.pos_rows = np.flatnonzero(self.wp > 0)
        self.wpos = self.wp[self.pos_rows]
        self.n_cover = int(self.pos_rows.size)
        self.cover_pos = np.full(self.wp.shape[0], -1, dtype=np.int64)
        self.cover_pos[self.pos_rows] = np.arange(self.n_cover)
        # each clause's coverage of the positive rows, a bit per row (row k of _bits;
        # rows beyond the clauses are room to grow): as int32 positions, every single
        # condition covering about half the rows, they took half a GB at ten million rows
        self._bits = np.zeros((0, (self.n_cover + 7) // 8), dtype=np.uint8)
        self.costs, self.sizes = [], []
        self._w = np.zeros(0)
        self._in_lp = set()          # clauses of the grouped LP (compatible with the groups)
        self._defining = []          # clauses that define the groups
        self.n_groups = 1
        self.n_solves = 0            # grouped LPs solved, over all calls (for the record)

    # -- interface of MasterLP -------------------------------------------------------
    def set_budget(self, max_complexity):
        """Change the budget ``C`` (the clauses stay: they fit any budget)."""
        self.C = max_complexity

    def add_column(self, mask, n_literals):
        """Add one clause (its coverage ``mask`` over distinct rows)."""
        K = len(self.costs)
        if K == self._bits.shape[0]:
            grown = np.zeros((max(2 * K, 16), self._bits.shape[1]), dtype=np.uint8)
            grown[:K] = self._bits
            self._bits = grown
        self._bits[K] = np.packbits(np.asarray(mask, dtype=bool)[self.pos_rows])
        self.costs.append(self.column_cost(mask, n_literals))
        self.sizes.append(1 + n_literals)
        self._w = np.r_[self._w, 0.0]

    def solve(self, time_limit):
        """Solve the master LP over every clause; return ``(z, mu, lam, w)`` as
        :meth:`~._master.MasterLP.solve` does.

        Raises :class:`~._master.LPTimeLimit` when ``time_limit`` seconds pass
        (or ``should_stop()`` turns true) before the check proves the answer.
        """
        deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
        K = len(self.costs)
        costs = np.asarray(self.costs, dtype=float)
        sizes = np.asarray(self.sizes, dtype=float)
        bits = self._bits[:K]
        # start from the clauses the last answer used: the groups stay few
        self._defining = [k for k in self._defining if self._w[k] > 0]
        gid, n_groups = self._groups(self._defining)
        size = np.bincount(gid, minlength=n_groups)
        self._in_lp = {k for k in self._in_lp if self._compatible(k, gid, size)}
        self._in_lp.update(self._defining)
        while True:
            self._check_clock(deadline)
            wg = np.bincount(gid, weights=self.wpos, minlength=n_groups)
            in_lp = np.array(sorted(self._in_lp), dtype=np.int64)
            z, mu_g, lam, w_lp = self._solve_grouped(gid, n_groups, wg, in_lp, costs, sizes,
                                                     deadline)
            self.n_solves += 1
            mu_rows = mu_g[gid] * (self.wpos / wg[gid])
            rc = costs + lam * sizes - _sums(mu_rows, bits)
            joining = np.flatnonzero(rc < -self.eps)
            if joining.size == 0:
                break
            joining = joining[np.argsort(rc[joining], kind="stable")][:JOIN_PER_CHECK]
            split = [int(k) for k in joining if not self._compatible(k, gid, size)]
            self._in_lp.update(int(k) for k in joining)
            if split:
                self._defining.extend(split)
                gid, n_groups = self._refine(gid, split)
                size = np.bincount(gid, minlength=n_groups)
        self.n_groups = n_groups
        w = np.zeros(K)
        w[in_lp] = w_lp
        self._w = w
        mu = np.zeros(self.wp.shape[0])
        mu[self.pos_rows] = mu_rows
        return z, mu, lam, w.copy()

    # -- groups -------------------------------------------------------------------
    def _rows(self, k):
        """Which positive rows clause ``k`` covers (a boolean mask over them)."""
        return np.unpackbits(self._bits[k], count=self.n_cover).view(bool)

    def _groups(self, defining):
        gid = np.zeros(self.n_cover, dtype=np.int64)
        if not defining:
            return gid, 1
        return self._refine(gid, defining)

    def _refine(self, gid, clauses):
        """Split the groups ``gid`` by which of ``clauses`` cover each row."""
        for start in range(0, len(clauses), 16):
            key = gid << np.int64(16)
            for b, k in enumerate(clauses[start:start + 16]):
                key[self._rows(k)] |= np.int64(1) << np.int64(b)
            _, gid = np.unique(key, return_inverse=True)
            gid = gid.reshape(-1).astype(np.int64)
        return gid, int(gid.max()) + 1 if gid.size else 1

    def _compatible(self, k, gid, size):
        """Whether clause ``k`` covers each group (of ``size`` rows each) wholly or not at all."""
        rows = self._rows(k)
        if not rows.any():
            return True
        hit = np.bincount(gid[rows], minlength=size.size)
        return bool(np.all((hit == 0) | (hit == size)))

    # -- the grouped LP -----------------------------------------------------------
    def _check_clock(self, deadline):
        if self.should_stop is not None and self.should_stop():
            raise LPTimeLimit("master LP stopped (deadline or Ctrl-C)")
        if deadline is not None and time.perf_counter() >= deadline:
            raise LPTimeLimit("master LP hit its time limit")

    def _solve_grouped(self, gid, n_groups, wg, in_lp, costs, sizes, deadline):
        """The LP over the groups and the clauses ``in_lp``: ``(z, mu_g, lam, w)``."""
        highspy = quiet_highspy()
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        if deadline is not None:
            h.setOptionValue("time_limit", max(deadline - time.perf_counter(), 0.01))
        if self.should_stop is not None:
            should_stop = self.should_stop

            def callback(cb_type, msg, data_out, data_in, user):
                if should_stop():
                    data_in.user_interrupt = True

            h.setCallback(callback, None)
            h.startCallback(highspy.cb.HighsCallbackType.kCallbackSimplexInterrupt)
        inf = highspy.kHighsInf
        budget = self.C is not None
        n_rows = n_groups + int(budget)
        lower = np.r_[np.ones(n_groups), [-inf] if budget else []]
        upper = np.r_[np.full(n_groups, inf), [float(self.C)] if budget else []]
        h.addRows(n_rows, lower, upper, 0, np.zeros(n_rows, dtype=np.int32),
                  np.zeros(0, dtype=np.int32), np.zeros(0))
        # a slack per group: cost wg, 1 in its own row
        ones = np.arange(n_groups, dtype=np.int32)
        h.addCols(n_groups, wg, np.zeros(n_groups), np.full(n_groups, inf), n_groups,
                  ones, ones, np.ones(n_groups))
        if in_lp.size:
            index, values, begin = [], [], np.zeros(in_lp.size, dtype=np.int32)
            at = 0
            for j, k in enumerate(in_lp):
                groups = np.unique(gid[self._rows(k)]).astype(np.int32)
                begin[j] = at
                index.append(groups)
                values.append(np.ones(groups.size))
                if budget:
                    index.append(np.array([n_groups], dtype=np.int32))
                    values.append(np.array([sizes[k]]))
                at += groups.size + int(budget)
            index = np.concatenate(index).astype(np.int32)
            values = np.concatenate(values)
            h.addCols(in_lp.size, costs[in_lp], np.zeros(in_lp.size),
                      np.full(in_lp.size, inf), int(index.size), begin, index, values)
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            if status in (highspy.HighsModelStatus.kTimeLimit,
                          highspy.HighsModelStatus.kInterrupt):
                raise LPTimeLimit("master LP hit its time limit")
            raise SolverFailure(f"grouped master LP (HiGHS) returned status {status}")
        sol = h.getSolution()
        duals = np.asarray(sol.row_dual, dtype=float)
        values = np.asarray(sol.col_value, dtype=float)
        mu_g = np.clip(duals[:n_groups], 0.0, None)
        mu_g = np.minimum(mu_g, wg)      # the slack's column: mu_g <= wg (up to rounding)
        lam = max(-float(duals[n_groups]), 0.0) if budget else 0.0
        xi, w = values[:n_groups], np.clip(values[n_groups:], 0.0, None)
        z = float(wg @ xi + costs[in_lp] @ w) if in_lp.size else float(wg @ xi)
        return z, mu_g, lam, w


@njit(cache=True)
def _sums(values, bits):
    """Per clause (a row of ``bits``), the sum of ``values`` over the rows it
    covers, added in the order ``np.add.reduceat`` adds a run of them (the
    first, then numpy's pairwise sum of the rest, :func:`_pairwise`): the sums
    of the rows' positions, as this class held them before, bit for bit."""
    K, nb = bits.shape
    n = values.shape[0]
    out = np.zeros(K)
    buf = np.empty(n)
    for k in range(K):
        m = 0
        for b in range(nb):
            byte = bits[k, b]
            if byte == 0:
                continue
            base = 8 * b
            for t in range(8):
                # packbits puts a byte's first row in its highest bit
                if byte & (128 >> t) and base + t < n:
                    buf[m] = values[base + t]
                    m += 1
        if m > 0:
            # np.add.reduceat's order: the first value, then the pairwise sum of the rest
            out[k] = buf[0] + _pairwise(buf, 1, m - 1)
    return out


@njit(cache=True)
def _pairwise(a, lo, n):
    """numpy's pairwise sum of ``a[lo:lo + n]`` (its order of additions): halves
    cut at multiples of 8 down to blocks of at most 128, each summed by
    :func:`_block_sum`; walked with a stack (a recursive kernel does not cache)."""
    if n <= 128:
        return _block_sum(a, lo, n)
    st_lo = np.empty(64, dtype=np.int64)
    st_n = np.empty(64, dtype=np.int64)
    st_stage = np.empty(64, dtype=np.int64)
    vals = np.empty(64)
    top, nv = 1, 0
    st_lo[0], st_n[0], st_stage[0] = lo, n, 0
    while top > 0:
        t = top - 1
        lo_, n_ = st_lo[t], st_n[t]
        if n_ <= 128:
            vals[nv] = _block_sum(a, lo_, n_)
            nv += 1
            top -= 1
            continue
        n2 = n_ // 2
        n2 -= n2 % 8
        if st_stage[t] == 0:
            st_stage[t] = 1
            st_lo[top], st_n[top], st_stage[top] = lo_, n2, 0
            top += 1
        elif st_stage[t] == 1:
            st_stage[t] = 2
            st_lo[top], st_n[top], st_stage[top] = lo_ + n2, n_ - n2, 0
            top += 1
        else:
            vals[nv - 2] = vals[nv - 2] + vals[nv - 1]
            nv -= 1
            top -= 1
    return vals[0]


@njit(cache=True)
def _block_sum(a, lo, n):
    """numpy's sum of at most 128 values: eight running sums, then the rest."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res
