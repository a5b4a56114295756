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
import weakref

import numpy as np
from numba import njit

from ._master import LPTimeLimit, MasterCosts, SolverFailure
from ._solvers import quiet_highspy

#: Clauses that join at most per check (the most negative first).  More per
#: check means fewer grouped solves but more (and smaller) groups.
JOIN_PER_CHECK = 8
#: The grouped LP kept from round to round is made anew, over the groups of the
#: clauses its last answer used, once its groups are this many times those it
#: had when last made (and at least REBUILD_MIN_GROUPS): groups only split, and
#: HiGHS's model of 38,000 groups held 300 MB on 3.4 million distinct rows.
REBUILD_GROWTH, REBUILD_MIN_GROUPS = 2.0, 4096


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
        self.costs, self.sizes, self._reach = [], [], []
        self._w = np.zeros(0)
        self._defining = []          # clauses that define the groups
        self.n_groups = 1
        self.n_solves = 0            # grouped LPs solved, over all calls (for the record)
        self._h = None               # the grouped LP (HiGHS), made by the first solve
        self._row = {}               # clause -> its row in the grouped LP
        self._built_groups = 1       # groups the LP had at the end of its first solve
        self._deadline = None
        # the last answer of the LP, kept while the LP is unchanged (None once a group,
        # a clause or the budget changes it), and how many clauses the last check that
        # found none to join priced against it: a solve after add_column alone then
        # prices the new clauses only, without running HiGHS again
        self._answer = None
        self._checked = 0

    # -- interface of MasterLP -------------------------------------------------------
    def set_budget(self, max_complexity):
        """Change the budget ``C`` (the clauses stay: they fit any budget)."""
        self.C = max_complexity
        if self._h is not None:
            self._set_lam()

    def add_column(self, mask, n_literals):
        """Add one clause (its coverage ``mask`` over distinct rows)."""
        K = len(self.costs)
        if K == self._bits.shape[0]:
            # room for a quarter more: at ten million rows a clause's bits are 0.2 MB, and
            # room for twice the clauses was 50 MB of the peak
            grown = np.zeros((max(K + K // 4, 16), self._bits.shape[1]), dtype=np.uint8)
            grown[:K] = self._bits
            self._bits = grown
        covered = np.asarray(mask, dtype=bool)[self.pos_rows]
        self._bits[K] = np.packbits(covered)
        # the most its covered duals can sum to (mu_u <= wp_u), for the checks
        self._reach.append(float(self.wpos[covered].sum()))
        self.costs.append(self.column_cost(mask, n_literals))
        self.sizes.append(1 + n_literals)
        self._w = np.r_[self._w, 0.0]

    def solve(self, time_limit):
        """Solve the master LP over every clause; return ``(z, mu, lam, w)`` as
        :meth:`~._master.MasterLP.solve` does.

        Raises :class:`~._master.LPTimeLimit` when ``time_limit`` seconds pass
        (or ``should_stop()`` turns true) before the check proves the answer.
        """
        self._deadline = (None if time_limit is None
                          else time.perf_counter() + float(time_limit))
        K = len(self.costs)
        costs = np.asarray(self.costs, dtype=float)
        sizes = np.asarray(self.sizes, dtype=float)
        reach = np.asarray(self._reach, dtype=float)
        bits = self._bits[:K]
        if self._h is not None and self.n_groups >= max(REBUILD_MIN_GROUPS,
                                                         REBUILD_GROWTH * self._built_groups):
            self._h = None
        fresh = self._h is None
        if fresh:
            # the groups of the clauses the last answer used, and the clauses of the last
            # LP that cover them alike
            self._defining = [k for k in self._defining if self._w[k] > 0]
            keep = sorted(self._row)
            self._build()
            if self._defining:
                self._split(self._defining)
                size = np.bincount(self._gid, minlength=self.n_groups)
                self._join([k for k in keep if self._compatible(k, self._gid, size)]
                           + [k for k in self._defining if k not in keep], costs, sizes)
        while True:
            self._check_clock()
            priced_from = 0
            if self._answer is None:
                self._answer = self._run(costs)
                self.n_solves += 1
            else:
                # the LP and its answer are as the last check left them, which found
                # every clause then known priced at least -eps
                priced_from = self._checked
            z, mu_g, lam, in_lp, w_lp = self._answer
            gid = self._gid
            wg = self._wg
            mu_rows = mu_g[gid] * (self.wpos / wg[gid])
            # a clause of the grouped LP covers its groups wholly, so its covered duals
            # sum to the grouped ones and its reduced cost is the LP's, >= 0 at the
            # optimum: only the clauses left out are priced
            out = np.setdiff1d(np.arange(priced_from, K), in_lp)
            priced = costs[out] + lam * sizes[out]
            # a clause whose cost is at least all the duals it could cover (mu_u <= wp_u)
            # cannot price out: its sum is not read (at ten million rows, the sums over
            # 1.6 million positive rows were a tenth of the master's time)
            hopeful = priced - reach[out] < 0.0
            out, priced = out[hopeful], priced[hopeful]
            rc = np.full(K, np.inf)
            rc[out] = priced - _sums(mu_rows, bits, out)
            joining = np.flatnonzero(rc < -self.eps)
            if joining.size == 0:
                self._checked = K
                break
            joining = joining[np.argsort(rc[joining], kind="stable")][:JOIN_PER_CHECK]
            size = np.bincount(gid, minlength=self.n_groups)
            split = [int(k) for k in joining if not self._compatible(k, gid, size)]
            if split:
                self._defining.extend(split)
                self._split(split)
            self._join([int(k) for k in joining], costs, sizes)
        if fresh:
            self._built_groups = self.n_groups
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

    def _refine(self, gid, clauses):
        """Split the groups ``gid`` by which of ``clauses`` cover each row."""
        for start in range(0, len(clauses), 16):
            chunk = clauses[start:start + 16]
            n_groups = int(gid.max()) + 1 if gid.size else 1
            key = gid << np.int64(len(chunk))
            for b, k in enumerate(chunk):
                _or_where_set(key, self._bits[k], np.int64(1) << np.int64(b))
            gid = _dense_ranks(key, n_groups << len(chunk))
        return gid, int(gid.max()) + 1 if gid.size else 1

    def _compatible(self, k, gid, size):
        """Whether clause ``k`` covers each group (of ``size`` rows each) wholly or not at all."""
        rows = self._rows(k)
        if not rows.any():
            return True
        hit = np.bincount(gid[rows], minlength=size.size)
        return bool(np.all((hit == 0) | (hit == size)))

    # -- the grouped LP, kept from solve to solve ---------------------------------------
    #
    # Groups only ever split and clauses only ever join, so the LP of one check is the
    # last one with rows and columns added: HiGHS re-solves it from the last basis
    # (built anew for every check, the grouped LPs took most of a fit's time on a
    # million distinct rows).
    #
    # HiGHS holds the grouped LP's dual:
    #
    #     max  sum_g mu_g - C lam
    #     s.t. sum_{g covered by k} mu_g - size_k lam <= cost_k   (a row per clause k)
    #          0 <= mu_g <= wg_g,  lam >= 0                       (a column per group)
    #
    # The primal has a row per group and a column per clause: thousands of groups and a
    # few hundred clauses, so its simplex basis is as large as the groups, and each of its
    # iterations costs as much. The dual's basis is as large as the clauses. On a grouped
    # LP of 14,141 groups and 166 clauses, HiGHS solved the primal from scratch in 4.3 s
    # (14,437 iterations) and the dual in 0.14 s (518). The clauses' weights ``w`` are the
    # dual's row duals, and the groups' slacks its bound duals. Column 0 is ``lam`` (fixed
    # at 0 without a budget), then a column per group; each clause of the LP has a row.

    def _past_limit(self) -> bool:
        """Ctrl-C, the run's stop or this solve's deadline."""
        return ((self.should_stop is not None and self.should_stop())
                or (self._deadline is not None and time.perf_counter() >= self._deadline))

    def _check_clock(self):
        if self._past_limit():
            raise LPTimeLimit("master LP stopped (deadline or Ctrl-C)")

    def _set_lam(self):
        """``lam``'s cost ``-C`` in the maximised objective (fixed at 0 without a budget)."""
        self._answer = None
        if self.C is None:
            self._h.changeColCost(0, 0.0)
            self._h.changeColBounds(0, 0.0, 0.0)
        else:
            self._h.changeColCost(0, -float(self.C))
            self._h.changeColBounds(0, 0.0, self._inf)

    def _build(self):
        """The LP of one group (every positive row) and no clause."""
        highspy = quiet_highspy()
        self._hs = highspy
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        self._inf = highspy.kHighsInf

        # the model holds its callback where the garbage collector cannot see it: the
        # callback holds this object weakly, or the two (and the search through
        # should_stop) would outlive the fit
        me = weakref.ref(self)

        def callback(cb_type, msg, data_out, data_in, user):
            # the deadline is the current solve's, read from the clock here rather than
            # set as HiGHS's option before each of the model's runs
            lp = me()
            if lp is not None and lp._past_limit():
                data_in.user_interrupt = True

        h.setCallback(callback, None)
        h.startCallback(highspy.cb.HighsCallbackType.kCallbackSimplexInterrupt)
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        h.addVar(0.0, self._inf)                     # lam
        self._h = h
        self._set_lam()
        self._gid = np.zeros(self.n_cover, dtype=np.int64)
        self.n_groups = 1
        self._wg = np.array([float(self.wpos.sum())])
        self._var = np.zeros(0, dtype=np.int64)      # each group's column
        self._values = None                          # the columns' values, last solve
        self._row = {}                               # clause -> its row
        self._add_groups(np.arange(1), np.zeros(1, dtype=np.int64))

    def _add_groups(self, groups, reps):
        """Columns for ``groups``; ``reps``: a positive row of each.

        A clause of the LP covers a group wholly or not at all, so one row of the
        group says whether it covers the group.
        """
        h, n = self._h, groups.size
        first_col = h.getNumCol()
        ks = list(self._row)
        rows = np.array([self._row[k] for k in ks], dtype=np.int32)
        # cover[g, i]: the LP's clause ks[i] covers group g (read at its row reps[g]);
        # column g's entries are its true cells, in order
        cover = ((self._bits[ks][:, reps >> 3] >> (7 - (reps & 7)).astype(np.uint8)) & 1).T
        g, i = np.nonzero(cover)
        index = rows[i]
        starts = np.r_[0, np.cumsum(np.bincount(g, minlength=n))[:-1]].astype(np.int32)
        h.addCols(n, np.ones(n), np.zeros(n), self._wg[groups], int(index.size), starts,
                  index, np.ones(index.size))
        var = np.empty(self.n_groups, dtype=np.int64)
        var[:self._var.size] = self._var
        var[groups] = np.arange(first_col, first_col + n)
        self._var = var

    def _split(self, clauses):
        """Split the groups by ``clauses``: a new group keeps its parent's column (the
        first of its parent's new groups) or gets its own."""
        self._answer = None
        old, old_var, old_wg = self._gid, self._var, self._wg
        gid, n_groups = self._refine(old, clauses)
        first = _first_rows(gid, n_groups)                  # a row of each new group
        parent = old[first]
        _, heir = np.unique(parent, return_index=True)      # the first new group of each
        keeps = np.zeros(n_groups, dtype=bool)
        keeps[heir] = True
        var = np.full(n_groups, -1, dtype=np.int64)
        var[heir] = self._var[parent[heir]]
        self._gid, self.n_groups = gid, n_groups
        self._wg = np.bincount(gid, weights=self.wpos, minlength=n_groups)
        self._var = var
        # the heirs' columns are bounded by their own rows' weight now
        cols = var[heir].astype(np.int32)
        self._h.changeColsBounds(int(heir.size), cols, np.zeros(heir.size), self._wg[heir])
        new = np.flatnonzero(~keeps)
        self._add_groups(new, first[new])
        if new.size and self._values is not None:
            pcol = old_var[parent[new]]
            self._inherit(self._var[new], pcol, self._values[pcol] / old_wg[parent[new]])

    def _inherit(self, cols, parent_cols, fill):
        """Start each new group's column ``cols[i]`` where its parent's column stood.

        In the LP's rows so far a new group's column is its parent's (every clause of
        the LP covers the parent wholly or not at all), so its reduced cost is the
        parent's: at the parent's bound, the basis stays dual feasible, and the dual
        simplex only has the rows that join to repair. A basic parent's reduced cost
        is 0, so either bound will do: the one nearer its share of the parent's value
        (``fill``, the parent's value over its weight). HiGHS's default puts every
        new column at its lower bound; where the parent stood at its upper bound, the
        re-solve began infeasible both ways, and on twelve grouped LPs saved from a
        ten-million-row fit it took 2.1 times the iterations.
        """
        basis = self._h.getBasis()
        if not basis.valid:
            return
        S = self._hs.HighsBasisStatus
        status = list(basis.col_status)
        for c, pc, f in zip(cols.tolist(), parent_cols.tolist(), fill.tolist()):
            st = status[pc]
            if st == S.kBasic:
                st = S.kUpper if f >= 0.5 else S.kLower
            elif st != S.kUpper:
                st = S.kLower
            status[c] = st
        basis.col_status = status
        self._h.setBasis(basis)

    def _join(self, clauses, costs, sizes):
        """Rows for ``clauses`` (compatible with the groups): 1 in the column of each group
        they cover, minus their size in ``lam``'s; at most their cost."""
        clauses = [k for k in clauses if k not in self._row]
        if not clauses:
            return
        self._answer = None
        seen = np.zeros(self.n_groups, dtype=bool)
        index, values, starts = [], [], []
        at = 0
        first_row = self._h.getNumRow()
        for i, k in enumerate(clauses):
            seen[:] = False
            seen[self._gid[self._rows(k)]] = True
            cols = np.sort(self._var[np.flatnonzero(seen)])
            starts.append(at)
            index.append(np.r_[0, cols])
            values.append(np.r_[-sizes[k], np.ones(cols.size)])
            at += cols.size + 1
            self._row[k] = first_row + i
        n = len(clauses)
        index = np.concatenate(index).astype(np.int32)
        self._h.addRows(n, np.full(n, -self._inf), costs[clauses], int(index.size),
                        np.asarray(starts, dtype=np.int32), index, np.concatenate(values))

    def _run(self, costs):
        """Solve the LP as it stands: ``(z, mu_g, lam, in_lp, w)``."""
        hs, h = self._hs, self._h
        h.run()
        status = h.getModelStatus()
        if status != hs.HighsModelStatus.kOptimal:
            if status in (hs.HighsModelStatus.kTimeLimit, hs.HighsModelStatus.kInterrupt):
                raise LPTimeLimit("master LP hit its time limit")
            raise SolverFailure(f"grouped master LP (HiGHS) returned status {status}")
        sol = h.getSolution()
        values = np.asarray(sol.col_value, dtype=float)
        self._values = values
        reduced = np.asarray(sol.col_dual, dtype=float)
        row_duals = np.asarray(sol.row_dual, dtype=float)
        wg = self._wg
        mu_g = np.clip(values[self._var], 0.0, wg)
        lam = max(float(values[0]), 0.0) if self.C is not None else 0.0
        # a maximisation: a row at its upper bound has a dual >= 0 (the clause's weight),
        # and a group's column at its upper bound a reduced cost >= 0 (the group's slack)
        in_lp = np.array(sorted(self._row), dtype=np.int64)
        w = np.clip(row_duals[[self._row[k] for k in in_lp]], 0.0, None)
        xi = np.clip(reduced[self._var], 0.0, None)
        z = float(wg @ xi + costs[in_lp] @ w) if in_lp.size else float(wg @ xi)
        return z, mu_g, lam, in_lp, w


#: :func:`_dense_ranks` marks the keys present in a table of booleans when the keys
#: are below this many times their count (and counts them with ``numpy.unique`` above).
RANK_TABLE_PER_KEY = 4


def _dense_ranks(key, bound):
    """Each key's rank among the distinct keys (what ``numpy.unique(key,
    return_inverse=True)`` returns), for keys in ``[0, bound)``.

    A check splits the groups of a million positive rows and more: sorting their
    keys took most of a grouped solve's own time at ten million rows. Below a few
    times as many possible keys as keys, the keys present are marked in a table and
    counted through it, in a time linear in both.
    """
    if bound > max(RANK_TABLE_PER_KEY * key.size, 1 << 16):
        _, inverse = np.unique(key, return_inverse=True)
        return inverse.reshape(-1).astype(np.int64)
    present = np.zeros(bound, dtype=bool)
    present[key] = True
    rank = np.cumsum(present, dtype=np.int32)
    return rank[key].astype(np.int64) - 1


@njit(cache=True)
def _or_where_set(key, bits, flag):
    """``key[i] |= flag`` for every row ``i`` whose bit is set in ``bits`` (``numpy.packbits``
    of a clause's rows): what ``key[unpackbits(bits)] |= flag`` does, without the mask of
    every row and the scatter through it, which took most of a split at ten million rows.
    A byte of no row covered is passed over whole."""
    n = key.shape[0]
    for byte in range(bits.shape[0]):
        v = bits[byte]
        if v == 0:
            continue
        for t in range(8):
            i = 8 * byte + t
            if (v >> (7 - t)) & 1 and i < n:
                key[i] |= flag


@njit(cache=True)
def _first_rows(gid, n_groups):
    """The first row of each group ``0 .. n_groups - 1`` (every group has one)."""
    first = np.full(n_groups, -1, dtype=np.int64)
    for i in range(gid.size):
        if first[gid[i]] < 0:
            first[gid[i]] = i
    return first


#: Bytes of each clause's bits :func:`_sums` reads at a time (8 rows a byte): the rows'
#: values of one block stay in cache while every clause reads them.
SUM_BLOCK_BYTES = 512


@njit(cache=True)
def _sums(values, bits, which):
    """Per clause ``which[i]`` (a row of ``bits``, ``numpy.packbits`` of its rows), the sum
    of ``values`` over the rows it covers.

    The rows are read a block at a time, and every clause's sum of the block before
    the next block: the block's values stay in cache, where a clause at a time read
    all the values from memory once per clause. Within a block, each of a byte's
    eight rows adds to its own running sum (no branch per bit); the block's eight
    sums are added pairwise, then to the clause's total.
    """
    n = values.shape[0]
    nb = bits.shape[1]
    padded = np.zeros(8 * nb)       # the bits past the last row are 0: they add 0
    padded[:n] = values
    out = np.zeros(which.shape[0])
    for b0 in range(0, nb, SUM_BLOCK_BYTES):
        b1 = min(b0 + SUM_BLOCK_BYTES, nb)
        for i in range(which.shape[0]):
            k = which[i]
            s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
            for b in range(b0, b1):
                byte = bits[k, b]
                v = 8 * b
                s0 += padded[v] * ((byte >> 7) & 1)
                s1 += padded[v + 1] * ((byte >> 6) & 1)
                s2 += padded[v + 2] * ((byte >> 5) & 1)
                s3 += padded[v + 3] * ((byte >> 4) & 1)
                s4 += padded[v + 4] * ((byte >> 3) & 1)
                s5 += padded[v + 5] * ((byte >> 2) & 1)
                s6 += padded[v + 6] * ((byte >> 1) & 1)
                s7 += padded[v + 7] * (byte & 1)
            out[i] += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    return out
