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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pulp

from rulekit.evaluate import all_of

from ._solvers import mip_solver, solve_pulp


@dataclass
class PricingOutcome:
    clauses: list = field(default_factory=list)   # candidate clauses (tuples), unchecked
    bound: float | None = None                    # valid lower bound on min rc (None: none)
    proven: bool = False                          # min rc found exactly
    sampled: bool = False                         # rows or features were sampled


def reduced_cost(Xu, r, clause, lam, lambda0, lambda1):
    """Exact reduced cost of ``clause`` on the full (distinct-row) data."""
    m = all_of(Xu, clause)
    n = len(clause)
    return float(r[m].sum() + lam * (1 + n) + lambda0 + lambda1 * n)


def price_ip(Xu, r, lam, lambda0, lambda1, max_literals, *, solver="highs", node_limit=2000,
             early_nodes=200, time_limit=None, should_stop=None, eps=1e-6, max_columns=10,
             sample_rows=2000, sample_nnz=100_000, rng=None, warm_clause=None):
    """Solve (or approximately solve) the pricing IP.

    The search stops at ``node_limit`` nodes, ``early_nodes`` nodes after
    HiGHS found a clause of negative reduced cost (or once it holds
    ``max_columns`` of them), when ``should_stop()`` turns true, or at
    ``time_limit`` seconds (the run's safety net).

    Returns
    -------
    PricingOutcome
        ``clauses`` are the integer solutions the solver reported (to be
        re-checked exactly by the caller); ``bound`` is valid only when not
        ``sampled``.
    """
    out = PricingOutcome()
    r = np.asarray(r, dtype=float)
    plus = np.flatnonzero(r < -eps)
    zero = np.flatnonzero(r > eps)
    if plus.size == 0:
        # no row has negative residual: every clause has rc >= lam * c_k >= 0
        out.proven, out.bound = True, 0.0
        return out
    wplus, wzero = -r[plus], r[zero]
    n_rows = plus.size + zero.size
    if n_rows > sample_rows and rng is not None:
        rho = sample_rows / n_rows
        kp = rng.random(plus.size) < rho
        kz = rng.random(zero.size) < rho
        plus, wplus = plus[kp], wplus[kp] / rho
        zero, wzero = zero[kz], wzero[kz] / rho
        out.sampled = True
        if plus.size == 0:
            return out
    Xp, Xz = Xu[plus], Xu[zero]
    allowed = np.flatnonzero(Xp.any(axis=0))
    nnz = 2 * int((~Xp[:, allowed]).sum()) + int((~Xz[:, allowed]).sum()) + Xz.shape[0] + 2 * allowed.size
    if nnz > sample_nnz and rng is not None:
        sigma = sample_nnz / nnz
        keep = rng.random(allowed.size) < sigma
        if not keep.any():
            keep[rng.integers(allowed.size)] = True
        allowed = allowed[keep]
        out.sampled = True
    if allowed.size == 0:
        out.proven, out.bound = (not out.sampled), (0.0 if not out.sampled else None)
        return out

    prob = pulp.LpProblem("pricing", pulp.LpMinimize)
    z = [prob.add_variable(f"z_{j}", cat=pulp.LpBinary) for j in allowed]
    dp = [prob.add_variable(f"dp_{i}", lowBound=0, upBound=1) for i in range(plus.size)]
    dz = [prob.add_variable(f"dz_{i}", lowBound=0) for i in range(zero.size)]
    nz = pulp.lpSum(z)
    prob += (lam + lambda0) + (lam + lambda1) * nz + pulp.lpSum(
        float(wzero[i]) * dz[i] for i in range(zero.size)) - pulp.lpSum(
        float(wplus[i]) * dp[i] for i in range(plus.size))
    Sp = ~Xp[:, allowed]
    for i in range(plus.size):
        for jj in np.flatnonzero(Sp[i]):
            prob += dp[i] + z[jj] <= 1
    Sz = ~Xz[:, allowed]
    for i in range(zero.size):
        prob += dz[i] + pulp.lpSum(z[jj] for jj in np.flatnonzero(Sz[i])) >= 1
    prob += nz >= 1
    prob += nz <= int(max_literals)
    constant = lam + lambda0

    found = []
    if solver == "highs":
        _solve_highs(prob, z, allowed, constant, found, out, node_limit, early_nodes,
                     time_limit, should_stop, eps, max_columns)
    else:
        if warm_clause is not None:
            ws = set(warm_clause)
            for j, v in zip(allowed, z):
                v.setInitialValue(1 if j in ws else 0)
        solve_pulp(prob, mip_solver("cbc", time_limit, node_limit,
                                    warm_start=warm_clause is not None), should_stop)
        out.proven = (prob.sol_status == pulp.LpSolutionOptimal) and not out.sampled
    if prob.status == pulp.LpStatusOptimal:
        vals = np.array([v.varValue if v.varValue is not None else np.nan for v in z])
        if np.all(np.isfinite(vals)) and np.all(np.abs(vals - np.round(vals)) <= 1e-6):
            found.append(tuple(int(allowed[j]) for j in np.flatnonzero(np.round(vals) == 1)))
    if out.proven and found:
        # the optimum itself, recomputed exactly, is the tightest valid bound
        best = reduced_cost(Xu, r, found[-1], lam, lambda0, lambda1)
        out.bound = best if out.bound is None else min(out.bound, best)
    seen, uniq = set(), []
    for c in found:
        if c and c not in seen:
            seen.add(c)
            uniq.append(c)
    out.clauses = uniq
    return out


def _solve_highs(prob, z, allowed, constant, found, out, node_limit, early_nodes, time_limit,
                 should_stop, eps, max_columns):
    """HiGHS on the pricing IP, collecting every improving integer solution."""
    import highspy

    kinds = highspy.cb.HighsCallbackType
    good = {"n": 0, "node": None}

    def on_event(kind, data_out, data_in):
        if kind == kinds.kCallbackMipImprovingSolution:
            sol = np.asarray(data_out.mip_solution)
            vals = np.array([sol[v.index] for v in z])
            if np.all(np.abs(vals - np.round(vals)) <= 1e-6):
                found.append(tuple(int(allowed[j]) for j in np.flatnonzero(np.round(vals) == 1)))
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
    prob.solve(mip_solver("highs", time_limit, node_limit, should_stop=should_stop,
                          on_event=on_event, gapRel=0.0, gapAbs=1e-9))
    info = prob.solverModel.getInfo()
    status = prob.solverModel.getModelStatus()
    if not out.sampled:
        bnd = info.mip_dual_bound
        if np.isfinite(bnd):
            out.bound = float(bnd) + constant
    out.proven = status == highspy.HighsModelStatus.kOptimal and not out.sampled
