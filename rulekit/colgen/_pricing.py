"""The pricing problem of column generation as an integer program, built with PuLP.

Dash, Günlük, Wei, "Boolean Decision Rules via Column Generation", NeurIPS
2018, §2.2 (the pricing problem) and §3 (sampled rows and features on large
data).

Given residuals ``r_u`` over distinct rows (``r_u = wq_u - mu_u``) and the
budget dual ``lam``, the reduced cost of clause ``k`` is::

    rc_k = sum_u r_u a_uk + lam (1 + |k|) + lambda0 + lambda1 |k|

The IP minimises it over clauses with ``1 <= |k| <= max_literals``.  With
HiGHS every improving incumbent is collected through the solver callback and
the solve is interrupted early once enough good columns are known; the
solver's dual bound is a valid lower bound on the minimum reduced cost
(used for the bound of the paper's §2.3).  CBC returns only its final
incumbent and, when it proves optimality, that value as the bound.

The module also defines what every pricing method (this IP, the beam of
:mod:`._beam`, the enumeration of :mod:`._enum`) takes and returns:
:class:`PricingProblem` and :class:`PricingOutcome`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pulp

from ._packed import all_rows_of, take
from ._settings import ColGenSettings
from ._solvers import mip_solver, solve_pulp
from rulekit._tolerances import FLOAT_SLACK, SOLVER_TOL


@dataclass(frozen=True)
class PricingProblem:
    """One round's pricing problem, the input of every pricing method.

    :func:`price_ip`, :func:`~rulekit.colgen._beam.beam_search` and
    :func:`~rulekit.colgen._enum.enumerate_pricing` all take one of these
    and the run's :class:`~rulekit.colgen.ColGenSettings`, and return a
    :class:`PricingOutcome`.

    Attributes
    ----------
    X : ndarray of bool, shape (U, d)
        Distinct data rows.
    r : ndarray of float, shape (U,)
        Residuals ``wq - mu``.
    lam, lambda0, lambda1 : float
        Budget dual, penalty per clause, penalty per literal.
    max_literals : int
        Longest clause wanted (the beam also stops at the settings'
        ``beam_max_literals``).
    Xf : ndarray of float, shape (U, d), optional
        ``X`` as 0/1 floats for the beam's scores (float32 halves the
        memory; they only rank candidates); default ``X`` as float64.
    meta : tuple of arrays or None
        ``(groups, ops, thresholds)`` of the columns, to skip redundant
        extensions (see :class:`~rulekit.colgen.ConditionMetadata`).
    compat : ndarray of bool, shape (d, d), optional
        The enumeration's compatibility matrix (``compat[l, j]``: literal
        ``j`` may join a clause holding ``l``); every pair of distinct
        literals when None.
    exclude : collection of tuple
        Clauses already in the master: the beam does not return them.
    """

    X: np.ndarray
    r: np.ndarray
    lam: float
    lambda0: float
    lambda1: float
    max_literals: int
    Xf: np.ndarray | None = None
    meta: tuple | None = None
    compat: np.ndarray | None = None
    exclude: object = ()

    def penalty(self, n_lits):
        """The part of a clause's reduced cost that depends on its length only."""
        return self.lam * (1 + n_lits) + self.lambda0 + self.lambda1 * n_lits


@dataclass
class PricingOutcome:
    """What a pricing method found, the output of every pricing method.

    Attributes
    ----------
    clauses : list of tuple
        Candidate clauses, unchecked (the caller recomputes their exact
        reduced costs before adding any); best first when ``values`` is
        given.
    values : list of float
        The method's own reduced cost of each clause (beam and enumeration;
        empty for the IP, whose solutions come unscored).
    bound : float or None
        A valid lower bound on the least reduced cost (None: none proved).
    proven : bool
        The least reduced cost is known: no clause beats ``bound``.
    sampled : bool
        Rows or columns were sampled (then nothing is proved).
    work : int
        Row operations spent (the enumeration).
    ratio : float or None
        The enumeration's lower bound (<= 0) on ``rc / (1 + |k|)``, the
        reduced cost per unit of complexity, over every clause; valid even
        when the search was cut short (None from the other methods).
    """

    clauses: list = field(default_factory=list)
    values: list = field(default_factory=list)
    bound: float | None = None
    proven: bool = False
    sampled: bool = False
    work: int = 0
    ratio: float | None = None

    @property
    def ranked(self) -> list:
        """``(value, clause)`` pairs, best first (beam and enumeration)."""
        return list(zip(self.values, self.clauses))

    @classmethod
    def from_ranked(cls, pairs, **kw) -> "PricingOutcome":
        """An outcome from ``(value, clause)`` pairs already sorted."""
        return cls(clauses=[c for _, c in pairs], values=[v for v, _ in pairs], **kw)


def reduced_cost(Xu, r, clause, lam, lambda0, lambda1, mask=None):
    """Exact reduced cost of ``clause`` on the full (distinct-row) data (``mask``: the
    rows it covers, when known)."""
    m = all_rows_of(Xu, clause) if mask is None else mask
    n = len(clause)
    return float(r[m].sum() + lam * (1 + n) + lambda0 + lambda1 * n)


def price_ip(problem: PricingProblem, settings: ColGenSettings, *, solver=None,
             time_limit=None, should_stop=None, rng=None, warm_clause=None) -> PricingOutcome:
    """Solve (or approximately solve) the pricing IP.

    The search stops at ``settings.pricing_node_limit`` nodes,
    ``settings.pricing_early_nodes`` nodes after HiGHS found a clause of
    negative reduced cost (or once it holds ``settings.columns_per_round``
    of them), when ``should_stop()`` turns true, or at ``time_limit``
    seconds (the run's safety net).

    Parameters
    ----------
    problem : PricingProblem
    settings : ColGenSettings
        Node limits, sampling thresholds, ``eps``, and the back-end
        (``pricing_solver``) unless ``solver`` names another.
    solver : {"highs", "cbc"}, optional
    time_limit : float or None
    should_stop : callable, optional
    rng : numpy.random.Generator, optional
        Samples the rows and columns on large data (None: never sample).
    warm_clause : tuple, optional
        A clause CBC starts from.

    Returns
    -------
    PricingOutcome
        ``clauses`` are the integer solutions the solver reported (to be
        re-checked exactly by the caller); ``bound`` is valid only when not
        ``sampled``.
    """
    rows = _pricing_rows(problem, settings, rng)
    if isinstance(rows, PricingOutcome):
        return rows                  # settled without an IP
    prob, z, constant = _pricing_model(problem, rows)
    solver = solver or settings.pricing_solver
    if solver == "highs":
        found, bound, proven = _solve_highs(prob, z, rows.allowed, constant, settings,
                                            time_limit, should_stop)
    else:
        found, bound, proven = _solve_cbc(prob, z, rows.allowed, settings, time_limit,
                                          should_stop, warm_clause)
    out = PricingOutcome(sampled=rows.sampled)
    out.proven = proven and not rows.sampled
    if not rows.sampled:
        out.bound = bound
    if prob.status == pulp.LpStatusOptimal:
        vals = np.array([v.varValue if v.varValue is not None else np.nan for v in z])
        if np.all(np.isfinite(vals)) and np.all(np.abs(vals - np.round(vals)) <= SOLVER_TOL):
            found.append(_clause(rows.allowed, vals))
    if out.proven and found:
        # the optimum itself, recomputed exactly, is the tightest valid bound
        best = reduced_cost(problem.X, problem.r, found[-1], problem.lam, problem.lambda0,
                            problem.lambda1)
        out.bound = best if out.bound is None else min(out.bound, best)
    out.clauses = [c for c in dict.fromkeys(found) if c]
    return out


def _clause(allowed, vals):
    """The clause of an integer solution ``vals`` of the ``z`` variables."""
    return tuple(int(allowed[j]) for j in np.flatnonzero(np.round(vals) == 1))


@dataclass
class _Rows:
    """The rows and columns the pricing IP is built on (sampled on large data)."""

    plus: np.ndarray      # rows of negative residual (the clause should cover them)
    zero: np.ndarray      # rows of positive residual
    wplus: np.ndarray     # their weights (|r|, scaled up when sampled)
    wzero: np.ndarray
    allowed: np.ndarray   # columns a clause may use
    sampled: bool


def _pricing_rows(problem, settings, rng):
    """The IP's rows and columns, or a :class:`PricingOutcome` when no IP is needed."""
    eps, X = settings.eps, problem.X
    r = np.asarray(problem.r, dtype=float)
    plus = np.flatnonzero(r < -eps)
    zero = np.flatnonzero(r > eps)
    if plus.size == 0:
        # no row has negative residual: every clause has rc >= lam * c_k >= 0
        return PricingOutcome(proven=True, bound=0.0)
    wplus, wzero = -r[plus], r[zero]
    sampled = False
    n_rows = plus.size + zero.size
    if n_rows > settings.sample_rows and rng is not None:
        rho = settings.sample_rows / n_rows
        kp = rng.random(plus.size) < rho
        kz = rng.random(zero.size) < rho
        plus, wplus = plus[kp], wplus[kp] / rho
        zero, wzero = zero[kz], wzero[kz] / rho
        sampled = True
        if plus.size == 0:
            return PricingOutcome(sampled=True)
    Xp, Xz = take(X, plus), take(X, zero)
    allowed = np.flatnonzero(Xp.any(axis=0))
    nnz = (2 * int((~Xp[:, allowed]).sum()) + int((~Xz[:, allowed]).sum()) + Xz.shape[0]
           + 2 * allowed.size)
    if nnz > settings.sample_nnz and rng is not None:
        sigma = settings.sample_nnz / nnz
        keep = rng.random(allowed.size) < sigma
        if not keep.any():
            keep[rng.integers(allowed.size)] = True
        allowed = allowed[keep]
        sampled = True
    if allowed.size == 0:
        return PricingOutcome(proven=not sampled, bound=None if sampled else 0.0,
                              sampled=sampled)
    return _Rows(plus, zero, wplus, wzero, allowed, sampled)


def _pricing_model(problem, rows):
    """The pricing IP over ``rows``: ``(model, z variables, objective constant)``."""
    lam, lambda0, lambda1 = problem.lam, problem.lambda0, problem.lambda1
    plus, zero, wplus, wzero, allowed = rows.plus, rows.zero, rows.wplus, rows.wzero, rows.allowed
    prob = pulp.LpProblem("pricing", pulp.LpMinimize)
    z = [prob.add_variable(f"z_{j}", cat=pulp.LpBinary) for j in allowed]
    dp = [prob.add_variable(f"dp_{i}", lowBound=0, upBound=1) for i in range(plus.size)]
    dz = [prob.add_variable(f"dz_{i}", lowBound=0) for i in range(zero.size)]
    nz = pulp.lpSum(z)
    prob += (lam + lambda0) + (lam + lambda1) * nz + pulp.lpSum(
        float(wzero[i]) * dz[i] for i in range(zero.size)) - pulp.lpSum(
        float(wplus[i]) * dp[i] for i in range(plus.size))
    Sp = ~take(problem.X, plus)[:, allowed]
    for i in range(plus.size):
        for jj in np.flatnonzero(Sp[i]):
            prob += dp[i] + z[jj] <= 1
    Sz = ~take(problem.X, zero)[:, allowed]
    for i in range(zero.size):
        prob += dz[i] + pulp.lpSum(z[jj] for jj in np.flatnonzero(Sz[i])) >= 1
    prob += nz >= 1
    prob += nz <= int(problem.max_literals)
    return prob, z, lam + lambda0


def _solve_cbc(prob, z, allowed, settings, time_limit, should_stop, warm_clause):
    """CBC on the pricing IP: ``([], None, proven)`` (its final solution is read after)."""
    if warm_clause is not None:
        ws = set(warm_clause)
        for j, v in zip(allowed, z):
            v.setInitialValue(1 if j in ws else 0)
    solve_pulp(prob, mip_solver("cbc", time_limit, settings.pricing_node_limit,
                                warm_start=warm_clause is not None), should_stop)
    return [], None, prob.sol_status == pulp.LpSolutionOptimal


def _solve_highs(prob, z, allowed, constant, settings, time_limit, should_stop):
    """HiGHS on the pricing IP, collecting every improving integer solution.

    Returns ``(found, bound, proven)``: the clauses of the improving
    solutions in the order found, HiGHS's dual bound on the least reduced
    cost (None when not finite), and whether it proved optimality.
    """
    import highspy

    kinds = highspy.cb.HighsCallbackType
    eps, max_columns, early_nodes = (settings.eps, settings.columns_per_round,
                                     settings.pricing_early_nodes)
    found = []
    good = {"n": 0, "node": None}

    def on_event(kind, data_out, data_in):
        if kind == kinds.kCallbackMipImprovingSolution:
            sol = np.asarray(data_out.mip_solution)
            vals = np.array([sol[v.index] for v in z])
            if np.all(np.abs(vals - np.round(vals)) <= SOLVER_TOL):
                found.append(_clause(allowed, vals))
                if data_out.objective_function_value + constant < -eps:
                    good["n"] += 1
                    if good["node"] is None:
                        good["node"] = int(data_out.mip_node_count)
        elif kind == kinds.kCallbackMipInterrupt and good["n"]:
            if good["n"] >= max_columns or (
                    early_nodes is not None
                    and int(data_out.mip_node_count) - good["node"] >= early_nodes):
                data_in.user_interrupt = True

    # gapRel=0: "optimal" must mean proven, not within HiGHS' default 1e-4
    prob.solve(mip_solver("highs", time_limit, settings.pricing_node_limit,
                          should_stop=should_stop, on_event=on_event, gapRel=0.0, gapAbs=FLOAT_SLACK))
    bnd = prob.solverModel.getInfo().mip_dual_bound
    bound = float(bnd) + constant if np.isfinite(bnd) else None
    proven = prob.solverModel.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return found, bound, proven
