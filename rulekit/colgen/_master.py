"""Master problems: the restricted master LP (kept alive) and the restricted MIP.

Rows of the problem are the *distinct* binary rows of the data (identical rows
are merged, their weights summed): ``wp[u]`` is the total false-negative cost
of the positives in row ``u`` and ``wq[u]`` the total cost of the negatives.
A clause ``k`` covers row ``u`` when ``A[u, k]`` is true.

The restricted master LP (the paper's §2.2, over the clauses generated so far)::

    min  sum_u wp_u xi_u + sum_k cost_k w_k
    s.t. xi_u + sum_k A[u,k] w_k >= 1      for u with wp_u > 0   (dual mu_u >= 0)
         sum_k (1 + |k|) w_k     <= C                            (dual lam >= 0)
         xi, w >= 0

with ``cost_k = sum_u wq_u A[u,k] + lambda0 + lambda1 |k|``.
"""

from __future__ import annotations

import numpy as np
import pulp

from rulekit.evaluate import merge_rows

from ._solvers import PersistentHiGHS, _cbc, mip_solver, solve_pulp
from rulekit._tolerances import FLOAT_SLACK, RATE_SLACK, SOLVER_TOL


class SolverFailure(RuntimeError):
    """A back-end returned no usable solution."""


class LPTimeLimit(SolverFailure):
    """The master LP hit its time limit."""


class MasterCosts:
    """What every form of the restricted master LP computes alike (``wq``, ``lambda0``,
    ``lambda1`` and the budget ``C`` set by the subclass)."""

    def column_cost(self, mask, n_literals):
        """``cost_k``: the negatives clause ``k`` covers, plus its penalties."""
        return float(self.wq[mask].sum() + self.lambda0 + self.lambda1 * n_literals)

    def dual_value(self, mu, lam):
        """Dual objective ``sum mu - C lam`` (equals the RMLP value at an optimum)."""
        val = float(mu.sum())
        if self.C is not None:
            val -= self.C * lam
        return val


class MasterLP(MasterCosts):
    """The restricted master LP as one PuLP model that grows column by column.

    Parameters
    ----------
    wp, wq : ndarray of float, shape (U,)
        Positive / negative weight of each distinct row.
    max_complexity : int or None
        Budget ``C``; None drops the budget row.
    lambda0, lambda1 : float
        Penalty per clause and per literal (loss units).
    solver : {"highs", "cbc"}
    idle_rounds : int or None
        With HiGHS: a clause column whose reduced cost has stayed positive
        for this many solves in a row leaves the live model (None: never).
        It stays a column of the master: every solve re-prices the columns
        left out against the new duals and brings back any of negative
        reduced cost, re-solving until none is left, so the value and the
        duals are those of the master LP over every column.

    Notes
    -----
    With HiGHS the columns go straight into a live ``highspy`` model
    (:class:`~._solvers.PersistentHiGHS`).  Writing a new column's cover-row
    coefficients into the PuLP constraint objects costs a few microseconds
    per nonzero in Python (seconds per round on large data), so those
    coefficients are written lazily: :meth:`pulp_problem` brings the PuLP
    model up to date, and it is called before any solve by a solver that
    reads the PuLP rows (CBC).  Objective and budget terms are always
    written immediately.
    """

    def __init__(self, wp, wq, max_complexity, lambda0, lambda1, solver="highs",
                 should_stop=None, idle_rounds=None):
        self.wp = np.asarray(wp, dtype=float)
        self.wq = np.asarray(wq, dtype=float)
        self.C = max_complexity
        self.lambda0 = float(lambda0)
        self.lambda1 = float(lambda1)
        self.solver_name = solver
        self.should_stop = should_stop
        self.pos_rows = np.flatnonzero(self.wp > 0)
        # position of each distinct row among the cover rows (-1: none)
        self.cover_pos = np.full(self.wp.shape[0], -1, dtype=np.int64)
        self.cover_pos[self.pos_rows] = np.arange(self.pos_rows.size)

        self.n_cover = int(self.pos_rows.size)
        self.prob = pulp.LpProblem("rmlp", pulp.LpMinimize)
        # the cover rows and their slacks xi exist as PuLP objects only for a solver that
        # reads the PuLP model (CBC); HiGHS gets them as arrays (PersistentHiGHS), which on
        # millions of distinct rows saves GB and most of the set-up time
        self.xi, self.cover = [], []
        if solver != "highs":
            self.xi = [self.prob.add_variable(f"xi_{u}", lowBound=0) for u in self.pos_rows]
            self.prob.objective = pulp.LpAffineExpression(
                [(v, float(self.wp[u])) for v, u in zip(self.xi, self.pos_rows)]
            )
            for v, u in zip(self.xi, self.pos_rows):
                con = pulp.LpConstraint(pulp.LpAffineExpression([(v, 1.0)]),
                                        sense=pulp.LpConstraintGE, rhs=1.0, name=f"cover_{u}")
                self.prob.addConstraint(con)
                self.cover.append(con)
        else:
            self.prob.objective = pulp.LpAffineExpression()
        self.budget = None
        if self.C is not None:
            self.budget = pulp.LpConstraint(pulp.LpAffineExpression(),
                                            sense=pulp.LpConstraintLE,
                                            rhs=float(self.C), name="budget")
            self.prob.addConstraint(self.budget)
        self.w = []
        self.costs = []
        self.sizes = []
        self._unwritten = []      # (var, cover positions) not yet in the PuLP rows
        # per clause column: its HiGHS rows and coefficients (to bring it
        # back), whether it is in the live model, solves in a row it priced
        # positive
        self._entries, self.live, self._idle = [], [], []
        self.idle_rounds = idle_rounds if solver == "highs" else None
        self._persistent = None
        if solver == "highs":
            self._persistent = PersistentHiGHS(should_stop=should_stop)
            ncov = self.n_cover
            cons = {ncov: self.budget} if self.budget is not None else {}
            lower = np.r_[np.ones(ncov), [-np.inf] if self.budget is not None else []]
            upper = np.r_[np.full(ncov, np.inf), [float(self.C)] if self.budget is not None else []]
            self._persistent.set_rows(cons, lower, upper)
            # xi_u: cost wp_u, coefficient 1 in its own cover row
            self._persistent.set_unit_columns(self.wp[self.pos_rows],
                                              np.arange(ncov, dtype=np.int32))

    def set_budget(self, max_complexity):
        """Change the budget ``C`` (the columns stay: they fit any budget)."""
        if self.budget is None:
            raise ValueError("this master LP was built without a budget row")
        self.C = max_complexity
        self.budget.changeRHS(float(max_complexity))
        if self._persistent is not None:
            self._persistent.set_row_upper(self.prob, self.n_cover, max_complexity)

    # -- columns ---------------------------------------------------------
    def add_column(self, mask, n_literals):
        """Add one clause (its coverage ``mask`` over distinct rows) to the live model."""
        k = len(self.w)
        var = self.prob.add_variable(f"w_{k}", lowBound=0)
        cost = self.column_cost(mask, n_literals)
        c_k = 1 + n_literals
        self.prob.objective.addterm(var, cost)
        rows = self.cover_pos[np.flatnonzero(mask)]
        rows = rows[rows >= 0]
        if self._persistent is None:       # HiGHS has no PuLP cover rows to write
            self._unwritten.append((var, rows))
        coef = np.ones(rows.size)
        if self.budget is not None:
            self.budget.expr.addterm(var, float(c_k))
            rows = np.append(rows, self.n_cover)
            coef = np.append(coef, float(c_k))
        self.prob._register_variable(var)
        if self._persistent is not None:
            self._persistent.add_column(var, cost, rows, coef)
            # the rows only (int32): the coefficients are 1 but the budget row's (_coef)
            self._entries.append(rows.astype(np.int32))
            self.live.append(True)
            self._idle.append(0)
        self.w.append(var)
        self.costs.append(cost)
        self.sizes.append(c_k)

    def pulp_problem(self):
        """The PuLP model with every column's cover-row coefficients written in."""
        for var, rows in self._unwritten:
            for r in rows:
                self.cover[r].expr.addterm(var, 1.0)
        self._unwritten = []
        return self.prob

    # -- solve -----------------------------------------------------------
    def solve(self, time_limit):
        """Solve the RMLP; return ``(z, mu, lam, w)``.

        ``mu`` is indexed by distinct row (zero for rows without a cover row).
        Raises :class:`LPTimeLimit` or :class:`SolverFailure` when the LP is
        not solved to optimality.
        """
        if self._persistent is not None:
            self._solve_highs(time_limit)
        else:
            kw = {} if time_limit is None else {"timeLimit": max(1, int(np.ceil(time_limit)))}
            solve_pulp(self.pulp_problem(), _cbc(msg=False, timeMode="elapsed", **kw),
                       self.should_stop)
            self._check_status()
        mu, lam = self._duals()
        if self._persistent is not None:
            xi = np.array(self._persistent.col_value[:self.n_cover], dtype=float)
        else:
            xi = np.array([v.varValue or 0.0 for v in self.xi])
        w = np.array([v.varValue or 0.0 for v in self.w])
        z = float(self.wp[self.pos_rows] @ xi + np.dot(self.costs, w)) if (xi.size or w.size) else 0.0
        return z, mu, lam, w

    def _check_status(self):
        if self.prob.status != pulp.LpStatusOptimal or self.prob.sol_status not in (
            pulp.LpSolutionOptimal,
        ):
            st = getattr(self._persistent, "last_status", None)
            if st is not None and "TimeLimit" in str(st):
                raise LPTimeLimit("master LP hit its time limit")
            raise SolverFailure(
                f"master LP ({self.solver_name}) returned status "
                f"{pulp.LpStatus.get(self.prob.status)}"
            )

    def _duals(self):
        """``(mu, lam)`` of the last solve: cover duals by distinct row, budget dual."""
        mu = np.zeros(self.wp.shape[0])
        if self._persistent is not None:
            pis = np.array(self._persistent.row_dual[:self.n_cover], dtype=float)
        else:
            pis = np.array([c.pi if c.pi is not None else 0.0 for c in self.cover])
        mu[self.pos_rows] = np.clip(pis, 0.0, None) if pis.size else pis
        lam = 0.0
        if self.budget is not None and self.budget.pi is not None:
            lam = max(-float(self.budget.pi), 0.0)
        return mu, lam

    def _solve_highs(self, time_limit, tol=FLOAT_SLACK):
        """Solve the live model; bring back left-out columns that price out, and re-solve.

        Dense clauses (single conditions cover half the rows) make up most
        of the matrix, and the dual simplex prices every nonbasic column at
        each iteration: on large data a master over only the columns in use
        re-solves several times faster.  Columns idle for ``idle_rounds``
        solves leave after the final solve (they are nonbasic, so the basis
        stays valid).
        """
        while True:
            self._persistent.set_time_limit(time_limit)
            self.prob.solve(self._persistent)
            self._check_status()
            out = [k for k, on in enumerate(self.live) if not on]
            if not out:
                break
            mu, lam = self._duals()
            pis = mu[self.pos_rows]
            back = [k for k in out if self._reduced_cost(k, pis, lam) < -tol]
            if not back:
                break
            for k in back:
                rows = self._entries[k]
                self._persistent.add_column(self.w[k], self.costs[k], rows, self._coef(k))
                self.live[k], self._idle[k] = True, 0
        if self.idle_rounds is None:
            return
        dual = self._persistent.last_col_dual
        leave = []
        for k, on in enumerate(self.live):
            if not on:
                continue
            # a column added since the solve has no index yet: it is not idle
            i = getattr(self.w[k], "index", None)
            if i is not None and i < dual.size and dual[i] > tol:
                self._idle[k] += 1
                if self._idle[k] >= self.idle_rounds:
                    leave.append(k)
            else:
                self._idle[k] = 0
        if leave:
            self._persistent.delete_columns(self.prob, [self.w[k] for k in leave])
            for k in leave:
                self.live[k] = False

    def _coef(self, k):
        """Column ``k``'s coefficients in its rows ``_entries[k]``."""
        coef = np.ones(self._entries[k].size)
        if self.budget is not None:
            coef[-1] = float(self.sizes[k])
        return coef

    def _reduced_cost(self, k, pis, lam):
        """Reduced cost of column ``k`` against cover duals ``pis`` and budget dual ``lam``."""
        rows = self._entries[k]
        cover = rows[rows < pis.size]          # the budget row's position is the last
        rc = self.costs[k] - float(pis[cover].sum())
        if self.budget is not None:
            rc += lam * self.sizes[k]
        return rc



class ClauseMasks:
    """Clause masks over packed rows, kept as the clauses and made again when read.

    A list of boolean masks to its readers (:class:`ColumnMasks` reads
    ``masks[k]``): reading ``masks[k]`` ANDs the packed rows of clause ``k``'s
    conditions (at most a few, a bit per row each), as :meth:`Problem.mask
    <rulekit.colgen._search.Problem.mask>` made it when the clause was added.
    Kept a bit per row, the masks of a ten-million-row fit held 187 MB after
    460 clauses, and grew with every round.
    """

    def __init__(self, X):
        self.X = X
        self.clauses = []

    def append(self, clause):
        self.clauses.append(tuple(clause))

    def __len__(self):
        return len(self.clauses)

    def __getitem__(self, k):
        return self.X.all_of(self.clauses[k])

    def __iter__(self):
        return (self[k] for k in range(len(self)))

    def subset(self, ks) -> "ClauseMasks":
        """The masks of clauses ``ks``, in that order (still made when read)."""
        sub = ClauseMasks(self.X)
        sub.clauses = [self.clauses[k] for k in ks]
        return sub


class ColumnMasks:
    """The coverage matrix ``A`` of the generated clauses, kept as one mask per clause.

    Reads as the ``(U, K)`` boolean matrix the selection functions take --
    ``A[:, k]`` (a clause's mask, no copy), ``A[:, ks]`` and ``A[rows]``
    (copies of those columns or rows only) -- without ever stacking every
    column: on millions of distinct rows that copy was as large as the masks.
    """

    def __init__(self, masks, n_rows: int):
        self.masks = masks
        self.shape = (int(n_rows), len(masks))

    @property
    def size(self) -> int:
        return self.shape[0] * self.shape[1]

    def _stack(self, cols, rows=None):
        if not len(cols):
            n = self.shape[0] if rows is None else np.zeros(self.shape[0])[rows].shape[0]
            return np.zeros((n, 0), dtype=bool)
        return np.column_stack([self.masks[k] if rows is None else self.masks[k][rows]
                                for k in cols])

    def __getitem__(self, key):
        if not isinstance(key, tuple):             # rows, every column
            return self._stack(range(self.shape[1]), key)
        rows, cols = key
        if not (isinstance(rows, slice) and rows == slice(None)):
            raise IndexError("ColumnMasks reads A[:, columns] or A[rows]")
        if isinstance(cols, (int, np.integer)):
            return self.masks[int(cols)]
        return self._stack([int(k) for k in cols])


#: Rows per block when column sums are accumulated block by block.
SUM_BLOCK = 65536


def column_costs(A, wq):
    """``(wq[:, None] * A).sum(axis=0)``, a block of rows at a time.

    The sum runs down the rows in order, exactly as numpy's sum over the
    first axis of the whole product does (the running total is the first row
    of each block's sum), so the costs are the same to the last bit while
    the float64 product is never larger than one block.
    """
    U, K = A.shape
    acc = np.zeros((1, K))
    for start in range(0, U, SUM_BLOCK):
        block = wq[start:start + SUM_BLOCK, None] * A[start:start + SUM_BLOCK]
        acc = np.concatenate([acc, block]).sum(axis=0, keepdims=True)
    return acc[0]


def rule_objective(A_sel, sizes, wp, wq, lambda0, lambda1):
    """Exact objective of a rule set: Hamming loss + penalties.

    ``A_sel`` is the (U, m) coverage of the selected clauses, ``sizes`` their
    literal counts.
    """
    return _counts_objective(_cover_counts(A_sel, wp.shape[0]), sizes, wp, wq, lambda0, lambda1)


def _cover_counts(A_sel, n_rows):
    """How many of the clauses of ``A_sel`` (shape ``(n_rows, m)``) cover each row."""
    return A_sel.sum(axis=1) if A_sel.size else np.zeros(n_rows)


def _counts_objective(counts, sizes, wp, wq, lambda0, lambda1):
    """:func:`rule_objective` from ``counts``, how many selected clauses cover each row."""
    loss = float(wp[counts == 0].sum() + (wq * counts).sum())
    pen = float(sum(lambda0 + lambda1 * s for s in sizes))
    return loss + pen


def greedy_selection(A, n_lits, wp, wq, C, lambda0, lambda1, order, should_stop=None):
    """Add columns in ``order``, keeping each that lowers the objective within the budget.

    ``should_stop()`` (the run's deadline, Ctrl-C) is asked before each
    column: once true, the columns kept so far are the selection.

    Returns ``(chosen, objective)``; the objective is recomputed exactly.
    """
    chosen, used = [], 0
    counts = np.zeros(A.shape[0], dtype=np.int64)
    for k in order:
        if should_stop is not None and should_stop():
            break
        c_k = 1 + n_lits[k]
        if C is not None and used + c_k > C:
            continue
        # the clause's rows as indices: each sum below then reads those rows only, where
        # a mask took a pass over every row per sum (the same rows in the same order, so
        # the same sums); on millions of distinct rows a clause holds a few percent
        rows = np.flatnonzero(A[:, k])
        delta = (wq[rows].sum() - wp[rows[counts[rows] == 0]].sum()
                 + lambda0 + lambda1 * n_lits[k])
        if delta < -RATE_SLACK:
            chosen.append(int(k))
            counts[rows] += 1
            used += c_k
    # counts is what the chosen columns' masks add up to (rule_objective's first step)
    return chosen, _counts_objective(counts, [n_lits[j] for j in chosen], wp, wq,
                                     lambda0, lambda1)


def improve_selection(chosen, A, n_lits, wp, wq, C, lambda0, lambda1, *, candidates=None,
                      max_moves=30, should_stop=None):
    """Local search from ``chosen``: the best add, drop or swap of one clause, repeated.

    Each move lowers the exact objective and keeps the budget; the search
    stops when no single move improves (or after ``max_moves``, or once
    ``should_stop()`` is true: every selection it passes through is valid).
    Only ``candidates`` (default: every column) may join.  Costs one
    matrix-vector product per chosen clause per move.

    Returns ``(chosen, objective)``.
    """
    n_lits = np.asarray(n_lits, dtype=float)
    chosen = [int(k) for k in chosen]
    cand = np.arange(A.shape[1]) if candidates is None else np.asarray(candidates, dtype=np.int64)
    cand = np.union1d(cand, np.asarray(chosen, dtype=np.int64))
    Af = _Cover(A[:, cand])
    sizes = 1.0 + n_lits[cand]
    cost = wq @ Af + lambda0 + lambda1 * n_lits[cand]     # false positives + penalty
    where = {int(k): j for j, k in enumerate(cand)}
    inside = np.zeros(cand.size, dtype=bool)
    inside[[where[k] for k in chosen]] = True
    budget = np.inf if C is None else float(C)
    for _ in range(max_moves):
        if should_stop is not None and should_stop():
            break
        counts = Af.counts(inside)
        used = sizes[inside].sum()
        bare = wp * (counts == 0)                          # positives no clause covers
        gain_add = cost - bare @ Af                        # delta of adding each column
        ok_add = ~inside & (used + sizes <= budget + FLOAT_SLACK)
        best = (np.min(gain_add[ok_add]) if ok_add.any() else 0.0, None, None)
        if ok_add.any():
            best = (best[0], None, int(np.flatnonzero(ok_add)[np.argmin(gain_add[ok_add])]))
        for i in np.flatnonzero(inside):
            alone = wp * ((counts == 1) & Af.column(i))    # positives only i covers
            drop = alone.sum() - cost[i]
            if drop < best[0]:
                best = (drop, int(i), None)
            swap = drop + cost - (bare + alone) @ Af
            ok = ~inside & (used - sizes[i] + sizes <= budget + FLOAT_SLACK)
            if ok.any():
                k = int(np.flatnonzero(ok)[np.argmin(swap[ok])])
                if swap[k] < best[0]:
                    best = (swap[k], int(i), k)
        if best[0] >= -FLOAT_SLACK or (best[1] is None and best[2] is None):
            break
        if best[1] is not None:
            inside[best[1]] = False
        if best[2] is not None:
            inside[best[2]] = True
    chosen = [int(k) for k in cand[inside]]
    return chosen, rule_objective(A[:, chosen], [int(n_lits[k]) for k in chosen], wp, wq,
                                  lambda0, lambda1)


class _Cover:
    """The candidates' coverage for the local search: ``v @ cover`` and its columns.

    Up to :data:`SUM_BLOCK` rows it is the float64 matrix the products read.
    On more rows the booleans are kept, and a product converts a block of rows at
    a time: the float64 copy of 45 candidates on 3.7 million distinct rows was
    1.3 GB, the largest array of the fit.  The products then add up block by
    block, which on whole weights (counts of rows) is the same sum.
    """

    # numpy then leaves ``ndarray @ self`` to __rmatmul__
    __array_ufunc__ = None

    def __init__(self, cover):
        self.small = cover.shape[0] <= SUM_BLOCK
        self.M = np.ascontiguousarray(cover, dtype=np.float64 if self.small else bool)

    def __rmatmul__(self, v):
        if self.small:
            return v @ self.M
        out = np.zeros(self.M.shape[1])
        for start in range(0, self.M.shape[0], SUM_BLOCK):
            stop = start + SUM_BLOCK
            out += v[start:stop] @ self.M[start:stop].astype(np.float64)
        return out

    def counts(self, inside):
        """Per row, how many of the columns ``inside`` (a mask) cover it."""
        return self.M[:, inside].sum(axis=1)

    def column(self, i):
        """Which rows column ``i`` covers."""
        return self.M[:, i] > 0


def prune_selection(chosen, A, n_lits, wp, wq, lambda0, lambda1, should_stop=None):
    """Drop clauses whose removal does not increase the objective (until ``should_stop()``).

    The clock is asked before every trial, and the selection is valid after any of
    them. A trial's cover counts are the kept clauses' less the one it drops: one mask
    read a trial, where summing every kept clause's mask again took 0.13 s a trial on
    14 clauses over 3.7 million rows. The counts are whole numbers, so the objective is
    the one :func:`rule_objective` gives on the trial's masks, to the last bit.
    """
    chosen = list(chosen)
    counts = _cover_counts(A[:, chosen], wp.shape[0])
    best = _counts_objective(counts, [n_lits[j] for j in chosen], wp, wq, lambda0, lambda1)
    stopped = should_stop if should_stop is not None else (lambda: False)
    changed = True
    while changed and not stopped():
        changed = False
        # try the biggest clauses first: removing them saves the most complexity
        for k in sorted(chosen, key=lambda j: -n_lits[j]):
            if stopped():
                break
            trial = [j for j in chosen if j != k]
            trial_counts = counts - A[:, k]
            val = _counts_objective(trial_counts, [n_lits[j] for j in trial], wp, wq,
                                    lambda0, lambda1)
            if val <= best + FLOAT_SLACK:
                chosen, best, changed, counts = trial, min(best, val), True, trial_counts
                break
    return chosen, best


def solve_rmip(A, n_lits, wp, wq, C, lambda0, lambda1, solver, *, node_limit, time_limit=None,
               warm=None, should_stop=None):
    """Restricted master IP over the generated columns.

    Positive rows with identical coverage over the columns are merged first
    (an exact reduction), and positives no column covers become a constant.

    Returns
    -------
    chosen : list of int or None
        Selected column indices (None if the solver gave no integer solution).
    proven : bool
        True when the solver proved optimality.
    """
    K = A.shape[1]
    if K == 0:
        return [], True
    n_lits = np.asarray(n_lits)
    costs = column_costs(A, wq) + lambda0 + lambda1 * n_lits
    pos = np.flatnonzero(wp > 0)
    Ap = np.ascontiguousarray(A[pos])
    covered = Ap.any(axis=1)
    Asig, _, (wsig,) = merge_rows(Ap[covered], wp[pos][covered])

    prob = pulp.LpProblem("rmip", pulp.LpMinimize)
    w = [prob.add_variable(f"w_{k}", cat=pulp.LpBinary) for k in range(K)]
    xi = [prob.add_variable(f"xi_{s}", lowBound=0, upBound=1) for s in range(Asig.shape[0])]
    # expressions built from term lists: much faster than lpSum on big models
    prob.objective = pulp.LpAffineExpression(
        [(xi[s], float(wsig[s])) for s in range(len(xi))]
        + [(w[k], float(costs[k])) for k in range(K)])
    for s in range(len(xi)):
        terms = [(xi[s], 1.0)] + [(w[k], 1.0) for k in np.flatnonzero(Asig[s])]
        prob.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression(terms),
                                             sense=pulp.LpConstraintGE, rhs=1.0,
                                             name=f"c{s}"))
    if C is not None:
        prob.addConstraint(pulp.LpConstraint(
            pulp.LpAffineExpression([(w[k], float(1 + n_lits[k])) for k in range(K)]),
            sense=pulp.LpConstraintLE, rhs=float(C), name="budget"))
    if warm is not None:
        _warm_start(w, xi, Asig, warm)
    solve_pulp(prob, mip_solver(solver, time_limit, node_limit, should_stop=should_stop,
                                warm_start=warm is not None), should_stop)
    # a solver stopped by a limit may still hold an integer solution
    if prob.status != pulp.LpStatusOptimal and prob.sol_status != pulp.LpSolutionIntegerFeasible:
        return None, False
    vals = np.array([v.varValue if v.varValue is not None else np.nan for v in w])
    if np.any(np.isnan(vals)) or np.any(np.abs(vals - np.round(vals)) > SOLVER_TOL):
        return None, False
    chosen = [int(k) for k in np.flatnonzero(np.round(vals) == 1)]
    if C is not None and sum(1 + n_lits[k] for k in chosen) > C:
        return None, False
    return chosen, prob.sol_status == pulp.LpSolutionOptimal


def _warm_start(w, xi, Asig, warm):
    ws = set(int(k) for k in warm)
    for k, v in enumerate(w):
        v.setInitialValue(1 if k in ws else 0)
    covered = Asig[:, sorted(ws)].any(axis=1) if ws else np.zeros(len(xi), bool)
    for s, v in enumerate(xi):
        v.setInitialValue(0 if covered[s] else 1)
