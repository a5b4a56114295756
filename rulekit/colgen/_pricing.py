"""Pricing IP (design note §3.1), built with PuLP, with optional sampling (§3.3).

Given residuals ``r_u`` over distinct rows (``r_u = wq_u - mu_u``) and the
budget dual ``lam``, the reduced cost of clause ``k`` is::

    rc_k = sum_u r_u a_uk + lam (1 + |k|) + lambda0 + lambda1 |k|

The IP minimises it over clauses with ``1 <= |k| <= max_literals``.  With
HiGHS every improving incumbent is collected through the solver callback and
the solve is interrupted early once enough good columns are known; the
solver's dual bound is a valid lower bound on the minimum reduced cost
(used for the early-termination bound of §4.2).  CBC returns only its final
incumbent and, when it proves optimality, that value as the bound.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pulp

from ._solvers import mip_solver


@dataclass
class PricingOutcome:
    clauses: list = field(default_factory=list)   # candidate clauses (tuples), unchecked
    bound: float | None = None                    # valid lower bound on min rc (None: none)
    proven: bool = False                          # min rc found exactly
    sampled: bool = False                         # rows or features were sampled


def clause_mask(Xu, clause):
    """Coverage of a clause (conjunction of columns) over the rows of ``Xu``."""
    if len(clause) == 0:
        return np.ones(Xu.shape[0], dtype=bool)
    return np.logical_and.reduce(Xu[:, list(clause)], axis=1)


def reduced_cost(Xu, r, clause, lam, lambda0, lambda1):
    """Exact reduced cost of ``clause`` on the full (distinct-row) data."""
    m = clause_mask(Xu, clause)
    n = len(clause)
    return float(r[m].sum() + lam * (1 + n) + lambda0 + lambda1 * n)


def price_ip(Xu, r, lam, lambda0, lambda1, max_literals, *, solver="highs",
             time_limit=30.0, eps=1e-6, max_columns=10, early_stop=1.0,
             sample_rows=2000, sample_nnz=100_000, rng=None, warm_clause=None,
             allow_sampling=True):
    """Solve (or approximately solve) the pricing IP.

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
    if allow_sampling and n_rows > sample_rows and rng is not None:
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
    if allow_sampling and nnz > sample_nnz and rng is not None:
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
        import highspy

        start = time.perf_counter()
        n_good = [0]

        def cb(cb_type, msg, data_out, data_in, user):
            if cb_type == highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution:
                sol = np.asarray(data_out.mip_solution)
                vals = np.array([sol[v.index] for v in z])
                if np.all(np.abs(vals - np.round(vals)) <= 1e-6):
                    cl = tuple(int(allowed[j]) for j in np.flatnonzero(np.round(vals) == 1))
                    found.append(cl)
                    if data_out.objective_function_value + constant < -eps:
                        n_good[0] += 1
            elif cb_type == highspy.cb.HighsCallbackType.kCallbackMipInterrupt:
                if n_good[0] >= max_columns or (
                        n_good[0] > 0 and early_stop is not None
                        and time.perf_counter() - start > early_stop):
                    data_in.user_interrupt = True

        # gapRel=0: "optimal" must mean proven, not within HiGHS' default 1e-4
        slv = mip_solver("highs", time_limit, callbackTuple=(cb, None), gapRel=0.0,
                         gapAbs=1e-9,
                         callbacksToActivate=[
                             highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution,
                             highspy.cb.HighsCallbackType.kCallbackMipInterrupt])
        prob.solve(slv)
        info = prob.solverModel.getInfo()
        status = prob.solverModel.getModelStatus()
        if not out.sampled:
            bnd = info.mip_dual_bound
            if np.isfinite(bnd):
                out.bound = float(bnd) + constant
        out.proven = status == highspy.HighsModelStatus.kOptimal and not out.sampled
    else:
        if warm_clause is not None:
            ws = set(warm_clause)
            for j, v in zip(allowed, z):
                v.setInitialValue(1 if j in ws else 0)
        prob.solve(mip_solver("cbc", time_limit, warm_start=warm_clause is not None))
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
