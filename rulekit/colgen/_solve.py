"""Column-generation driver (design note §5): RMLP, pricing, bounds, RMIP."""

from __future__ import annotations

import logging
import math
import time
import warnings

import numpy as np

from ._beam import OP_EQ, OP_GT, OP_LE, OP_NE, beam_search
from ._enum import compatibility, enumerate_pricing
from ._master import (LPTimeLimit, MasterLP, SolverFailure, greedy_selection, prune_selection,
                      rule_objective, solve_rmip)
from ._pricing import clause_mask, price_ip, reduced_cost
from ._result import ColGenResult, IterationRecord
from ._solvers import check_solver, fallback_solver

log = logging.getLogger("rulekit.colgen")

_FLIP = {OP_LE: OP_GT, OP_GT: OP_LE, OP_EQ: OP_NE, OP_NE: OP_EQ}


# --------------------------------------------------------------------------
# validation
def _check_binary_matrix(B):
    B = np.asarray(B)
    if B.ndim != 2:
        raise ValueError(f"B must be a 2-D boolean matrix, got shape {B.shape}")
    if B.dtype == bool:
        return B
    if not (np.issubdtype(B.dtype, np.integer) or np.issubdtype(B.dtype, np.floating)):
        raise ValueError(f"B must be boolean (or 0/1 numbers), got dtype {B.dtype}")
    if not np.all((B == 0) | (B == 1)):
        raise ValueError("B must be boolean: found values other than 0/1")
    return B.astype(bool)


def _check_int(name, value, low, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    return int(value)


def _check_nonneg(name, value):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a non-negative number, got {value!r}") from None
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")
    return v


def _check_positive(name, value):
    v = _check_nonneg(name, value)
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return v


def _is_integral(values, tol=1e-9):
    values = np.asarray(values, dtype=float)
    return bool(np.all(np.abs(values - np.round(values)) <= tol))


# --------------------------------------------------------------------------
def solve(B, y, *, form="dnf", max_complexity=30, max_literals=None, lambda0=0.0,
          lambda1=0.0, sample_weight=None, pricing="auto", time_limit=120.0,
          pricing_time_limit=30.0, lp_solver="highs", pricing_solver="highs",
          mip_solver="cbc", random_state=0, callback=None, negation_of=None,
          column_groups=None, column_ops=None, column_thresholds=None,
          beam_width=5, beam_max_literals=5, max_columns_per_iter=10,
          beam_max_candidates=20_000, max_iter=100, sample_rows=2000,
          sample_nnz=100_000, final_mip_time_limit=60.0, ip_early_stop=1.0,
          exact_work_limit=100_000_000, initial_beam=True, restricted_mip=True,
          eps=1e-6, record_duals=False):
    """Learn a Boolean rule set (DNF or CNF) by column generation.

    Parameters
    ----------
    B : array_like of bool, shape (N, d)
        Condition matrix: ``B[i, j]`` is true when sample ``i`` satisfies
        condition ``j``.
    y : array_like of {0, 1}, shape (N,)
    form : {"dnf", "cnf"}
        ``"dnf"``: OR of ANDs.  ``"cnf"``: AND of ORs, learned by De Morgan
        as a DNF over the complemented conditions on ``1 - y`` (§6).
    max_complexity : int >= 2 or None
        Budget ``C`` on ``#clauses + #literals``; None drops it (use
        penalties then).
    max_literals : int >= 1 or None
        Literals per clause ``D``; default ``C - 1`` (10 when ``C`` is None).
    lambda0, lambda1 : float >= 0
        Penalty per clause / per literal in loss units (AIX360's values times N).
    sample_weight : array_like of float >= 0, shape (N,), optional
        Cost of misclassifying each sample (Hamming loss weights).
    pricing : {"auto", "beam", "ip"}
        ``"auto"``: beam heuristic (widened x4, x16 when it finds nothing),
        then an exact branch-and-bound enumeration with a work limit
        (``exact_work_limit``), then the pricing IP when neither found a
        column nor proved there is none; ``"ip"``: the IP first (paper
        order), beam when the IP finds nothing; ``"beam"``: heuristic only
        (no certificate).
    time_limit : float
        Wall-clock seconds for the whole run, enforced by the driver.
    pricing_time_limit : float
        Seconds per pricing IP (clipped to the time left).
    lp_solver, pricing_solver, mip_solver : {"highs", "cbc"}
        PuLP back-ends for the master LP, the pricing IP and the restricted
        master IP.
    random_state : int
        Seed of the row/feature sampling for large data.
    callback : callable, optional
        Called with each :class:`IterationRecord`; returning True stops.
    negation_of : array_like of int, shape (d,), optional
        ``negation_of[j]`` is the column that complements ``j`` (or -1).
        Only used for CNF; when complete, ``B`` is reused with the map.
    column_groups, column_ops, column_thresholds : array_like, shape (d,), optional
        Metadata for the beam's redundancy pruning: original feature id
        (-1 unknown), operator code (0 ``<=``, 1 ``>``, 2 ``==``, 3 ``!=``,
        4 other) and threshold.  See :func:`condition_metadata`.
    beam_width, beam_max_literals, max_columns_per_iter, beam_max_candidates :
        Beam-search settings (§3.2).
    max_iter : int
        Column-generation rounds.
    sample_rows, sample_nnz : int
        Pricing rows / IP nonzeros above which pricing is sampled (§3.3).
    final_mip_time_limit : float
        Seconds for the restricted master IP (clipped to the time left).
    exact_work_limit : int
        Row operations allowed to the exact branch-and-bound pricing that
        ``"auto"`` tries between the beam and the IP (0 disables it).  When
        it finishes, it certifies the master LP like a solved pricing IP.
    ip_early_stop : float or None
        Seconds after which a HiGHS pricing run that already holds an
        improving column is interrupted (it keeps going while it has none).
        None never interrupts on time, which makes runs whose solver calls
        finish within their limits exactly reproducible.
    restricted_mip : bool
        Solve the restricted master IP at the end (default).  False keeps the
        greedy selection from the LP weights, for quick probe runs whose LP
        value is all that is wanted.
    initial_beam : bool
        Seed the master with the best multi-literal clauses of one beam round
        at ``mu = p`` besides all singletons (not with ``pricing="ip"``).
    eps : float
        Reduced-cost tolerance.
    record_duals : bool
        Store per-sample duals in the trace (for tests).

    Returns
    -------
    ColGenResult
    """
    t0 = time.perf_counter()
    # ---- validation ------------------------------------------------------
    if form not in ("dnf", "cnf"):
        raise ValueError(f"form must be 'dnf' or 'cnf', got {form!r}")
    B = _check_binary_matrix(B)
    N, d = B.shape
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != N:
        raise ValueError(f"y must be 1-D of length {N}, got shape {y.shape}")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must contain only 0/1 labels")
    y = y.astype(np.int64)
    C = _check_int("max_complexity", max_complexity, 2, allow_none=True)
    D = _check_int("max_literals", max_literals, 1, allow_none=True)
    if D is None:
        D = (C - 1) if C is not None else 10
    if C is not None:
        D = min(D, C - 1)
    lambda0 = _check_nonneg("lambda0", lambda0)
    lambda1 = _check_nonneg("lambda1", lambda1)
    if sample_weight is None:
        w = np.ones(N)
    else:
        w = np.asarray(sample_weight, dtype=float)
        if w.shape != (N,):
            raise ValueError(f"sample_weight must have shape ({N},), got {w.shape}")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("sample_weight must be finite and non-negative")
        if N and not np.any(w > 0):
            raise ValueError("sample_weight is zero for every sample; at least one "
                             "weight must be positive")
    if pricing not in ("auto", "beam", "ip"):
        raise ValueError(f"pricing must be 'auto', 'beam' or 'ip', got {pricing!r}")
    time_limit = _check_positive("time_limit", time_limit)
    pricing_time_limit = _check_positive("pricing_time_limit", pricing_time_limit)
    final_mip_time_limit = _check_positive("final_mip_time_limit", final_mip_time_limit)
    lp_solver = check_solver(lp_solver, "lp_solver")
    pricing_solver = check_solver(pricing_solver, "pricing_solver")
    mip_solver = check_solver(mip_solver, "mip_solver")
    beam_width = _check_int("beam_width", beam_width, 1)
    beam_max_literals = _check_int("beam_max_literals", beam_max_literals, 1)
    max_columns_per_iter = _check_int("max_columns_per_iter", max_columns_per_iter, 1)
    max_iter = _check_int("max_iter", max_iter, 0)
    meta = _metadata(d, column_groups, column_ops, column_thresholds)

    # ---- single class ----------------------------------------------------
    if np.all(y == y[0]) or N == 0:
        cls = int(y[0]) if N else 0
        return ColGenResult(clauses=(), form=form, objective=0.0, lower_bound=0.0,
                            gap=0.0, status="optimal", trace=(), complexity=0,
                            constant=cls, lp_value=0.0)

    # ---- CNF by De Morgan: DNF on complemented conditions and 1 - y ------
    if form == "cnf":
        Bd = _complement(B, negation_of)
        yd = 1 - y
        if meta is not None:
            g, ops, thr = meta
            meta = (g, np.array([_FLIP.get(int(o), o) for o in ops], dtype=np.int64), thr)
    else:
        Bd, yd = B, y

    # ---- merge identical rows -------------------------------------------
    packed = np.packbits(Bd, axis=1)
    _, first, inv = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    inv = inv.ravel()
    Xu = Bd[first]
    U = Xu.shape[0]
    wp = np.bincount(inv, weights=w * yd, minlength=U)
    wq = np.bincount(inv, weights=w * (1 - yd), minlength=U)
    Xf = Xu.astype(np.float64)
    if not np.any(wp > 0):
        # no positive carries weight: the empty DNF (predict 0) costs nothing
        return ColGenResult(clauses=(), form=form, objective=0.0, lower_bound=0.0, gap=0.0,
                            status="optimal", trace=(), complexity=0, lp_value=0.0,
                            lp_proven=True)
    integral = _is_integral(w) and _is_integral([lambda0, lambda1])

    deadline = t0 + time_limit
    # time kept back for the restricted master IP (none when it is skipped)
    rmip_reserve = min(final_mip_time_limit, max(0.25 * time_limit, 0.5)) if restricted_mip else 0.0

    master = MasterLP(wp, wq, C, lambda0, lambda1, solver=lp_solver)
    clauses, masks, in_master = [], [], set()

    def add(clause):
        m = clause_mask(Xu, clause)
        master.add_column(m, len(clause))
        clauses.append(clause)
        masks.append(m)
        in_master.add(clause)

    if C is None or C >= 2:
        for j in np.flatnonzero(Xu[wp > 0].any(axis=0)):
            add((int(j),))
        if initial_beam and D > 1 and pricing != "ip":
            # one heuristic pricing round at mu = p, lam = 0 (design note §1.2):
            # clauses that cover many positives and few negatives
            for _, c in beam_search(Xf, wq - wp, 0.0, lambda0, lambda1,
                                    min(beam_max_literals, D), width=beam_width,
                                    max_candidates=beam_max_candidates,
                                    n_best=max_columns_per_iter, exclude=in_master,
                                    eps=eps, meta=meta):
                if len(c) > 1 and (C is None or 1 + len(c) <= C):
                    add(c)

    trace = []
    compat = None
    lb_best = None          # best early bound (valid only without sampling)
    sampled_any = False
    mlp_proven = False
    timed_out = failed = interrupted = False
    z = None
    w_lp = np.zeros(0)
    rng_base = int(random_state) if random_state is not None else 0
    it = 0
    try:
        for it in range(1, max_iter + 1):
            now = time.perf_counter()
            if deadline - now < rmip_reserve:
                timed_out = True
                break
            try:
                z, mu, lam, w_lp = master.solve(max(deadline - now - rmip_reserve, 0.1))
            except LPTimeLimit:
                timed_out = True
                break
            except SolverFailure as exc:
                failed = True
                warnings.warn(f"column generation stopped: {exc}", RuntimeWarning, stacklevel=2)
                break
            r = wq - mu
            if z <= 1e-9:
                # every objective coefficient is >= 0, so 0 is a lower bound on
                # the MLP: the RMLP is optimal without pricing
                mlp_proven = True
                trace.append(IterationRecord(
                    iteration=it, rmlp=z, dual_value=master.dual_value(mu, lam), bound=0.0,
                    n_added=0, pricing="none", best_rc=None, time=time.perf_counter() - t0,
                    n_columns=len(clauses), lam=lam,
                    duals=_sample_duals(mu, inv, w * yd, wp) if record_duals else None))
                break
            kind, cands, bound = "none", [], None
            use_beam = pricing in ("auto", "beam")
            use_ip = pricing in ("auto", "ip")
            if pricing == "ip":
                kind, cands, bound, proven, sampled = _ip_round(
                    Xu, r, lam, lambda0, lambda1, D, C, pricing_solver, pricing_time_limit,
                    deadline, rmip_reserve, eps, max_columns_per_iter, sample_rows,
                    sample_nnz, rng_base + it, ip_early_stop, None)
                sampled_any |= sampled
                if _checked(cands, Xu, r, lam, lambda0, lambda1, eps, in_master):
                    use_beam = False
                elif proven:
                    use_beam = False
                    mlp_proven = True
            if use_beam:
                kappa = min(beam_max_literals, D)
                # widen the beam (x4, x16) before paying for an IP: a wider beam
                # is still far cheaper and often finds what the narrow one missed
                for mult in (1, 4, 16):
                    found = beam_search(Xf, r, lam, lambda0, lambda1, kappa,
                                        width=beam_width * mult,
                                        max_candidates=beam_max_candidates * mult,
                                        n_best=max_columns_per_iter, exclude=in_master,
                                        eps=eps, meta=meta)
                    bc = [c for _, c in found]
                    ok = _checked(bc, Xu, r, lam, lambda0, lambda1, eps, in_master)
                    if ok or time.perf_counter() > deadline - rmip_reserve:
                        break
                if ok:
                    kind, cands = "beam", bc
                if not ok and pricing == "auto" and exact_work_limit > 0:
                    if compat is None:
                        compat = compatibility(d, meta)
                    found_e, complete, _ = enumerate_pricing(
                        Xu, r, lam, lambda0, lambda1, D if C is None else min(D, C - 1),
                        n_best=max_columns_per_iter, work_limit=exact_work_limit,
                        eps=eps, compat=compat)
                    if found_e or complete:
                        kind, cands = "enum", [c for _, c in found_e]
                        ok = True
                        if complete:
                            bound = found_e[0][0] if found_e else -eps
                            if not found_e:
                                mlp_proven = True
                if not ok and pricing == "auto" and use_ip:
                    warm = found[0][1] if found else None
                    kind, cands, bound, proven, sampled = _ip_round(
                        Xu, r, lam, lambda0, lambda1, D, C, pricing_solver,
                        pricing_time_limit, deadline, rmip_reserve, eps,
                        max_columns_per_iter, sample_rows, sample_nnz, rng_base + it,
                        ip_early_stop, warm)
                    sampled_any |= sampled
                    if proven and not _checked(cands, Xu, r, lam, lambda0, lambda1, eps,
                                               in_master):
                        mlp_proven = True
            # exact re-check on the full data, best first
            scored = []
            for c in dict.fromkeys(cands):
                if c in in_master or len(c) == 0 or len(c) > D:
                    continue
                if C is not None and 1 + len(c) > C:
                    continue
                rc = reduced_cost(Xu, r, c, lam, lambda0, lambda1)
                if rc < -eps:
                    scored.append((rc, c))
            scored.sort()
            scored = scored[:max_columns_per_iter]
            for _, c in scored:
                add(c)
            lb_t = None
            if bound is not None and z is not None:
                lb_t = _early_bound(z, bound, C, lambda0, lambda1, integral)
                lb_best = lb_t if lb_best is None else max(lb_best, lb_t)
            rec = IterationRecord(
                iteration=it, rmlp=z, dual_value=master.dual_value(mu, lam), bound=lb_t,
                n_added=len(scored), pricing=kind,
                best_rc=scored[0][0] if scored else None,
                time=time.perf_counter() - t0, n_columns=len(clauses), lam=lam,
                duals=_sample_duals(mu, inv, w * yd, wp) if record_duals else None)
            trace.append(rec)
            log.debug("iter %d rmlp=%.6g added=%d pricing=%s", it, z, len(scored), kind)
            if callback is not None and callback(rec):
                break
            if not scored:
                break
    except KeyboardInterrupt:
        interrupted = True
    except Exception as exc:  # a solver crashed mid-run: keep what we have
        failed = True
        warnings.warn(f"column generation stopped after a solver error: {exc!r}",
                      RuntimeWarning, stacklevel=2)

    # ---- restricted master IP --------------------------------------------
    n_lits = [len(c) for c in clauses]
    A = np.column_stack(masks) if masks else np.zeros((U, 0), dtype=bool)
    if w_lp.size < A.shape[1]:
        w_lp = np.concatenate([w_lp, np.zeros(A.shape[1] - w_lp.size)])
    order = list(np.argsort(-w_lp, kind="stable"))
    chosen, ub = greedy_selection(A, n_lits, wp, wq, C, lambda0, lambda1, order)
    lower = None if sampled_any else _lower_bound(z, lb_best, mlp_proven, integral)
    # no IP can beat a greedy selection that already meets the lower bound
    settled = lower is not None and ub <= lower + 1e-6 * max(1.0, abs(ub))
    if A.shape[1] and not interrupted and restricted_mip and not settled:
        left = deadline - time.perf_counter()
        for name in (mip_solver, fallback_solver(mip_solver)):
            if name is None:
                continue
            # CBC overruns its limit and PuLP spends time writing the model
            # for it (/4), and it only takes whole seconds; HiGHS runs in-process
            tl = max(min(final_mip_time_limit, left / 4.0), 1.0 if name == "cbc" else 0.05)
            try:
                sel, _ = solve_rmip(A, n_lits, wp, wq, C, lambda0, lambda1, name, tl,
                                    warm=chosen)
            except KeyboardInterrupt:
                interrupted = True
                break
            except Exception as exc:
                failed = True
                warnings.warn(f"restricted MIP with {name!r} failed: {exc!r}",
                              RuntimeWarning, stacklevel=2)
                continue
            # no solution within the time limit is no failure: the greedy
            # selection stands, and the fallback solver is not tried
            if sel is not None:
                val = rule_objective(A[:, sel], [n_lits[k] for k in sel], wp, wq,
                                     lambda0, lambda1)
                if val < ub - 1e-9:
                    chosen, ub = sel, val
            break
    chosen, ub = prune_selection(chosen, A, n_lits, wp, wq, lambda0, lambda1)

    # ---- bounds and status ------------------------------------------------
    if lower is not None and ub < lower < ub + 1e-6:
        lower = ub
    tol = 1e-6 * max(1.0, abs(ub))
    if interrupted:
        status = "interrupted"
    elif lower is not None and ub <= lower + tol:
        status = "optimal"
    elif failed:
        status = "feasible"
    elif mlp_proven:
        status = "lp_optimal"
    elif timed_out:
        status = "time_limit"
    else:
        status = "feasible"
    gap = None
    if lower is not None:
        gap = 0.0 if ub <= tol else max(ub - lower, 0.0) / max(ub, 1e-9)
    sel = sorted((clauses[k] for k in chosen), key=lambda c: (len(c), c))
    return ColGenResult(
        clauses=tuple(tuple(int(j) for j in c) for c in sel), form=form,
        objective=float(ub), lower_bound=lower, gap=gap, status=status,
        trace=tuple(trace), complexity=int(sum(1 + len(c) for c in sel)),
        lp_value=z, n_columns=len(clauses), lp_proven=bool(mlp_proven and not sampled_any))


# --------------------------------------------------------------------------
def _lower_bound(z, lb_best, mlp_proven, integral):
    """Best proven lower bound on the objective: 0, the early bound, the MLP."""
    cands = [0.0]
    if lb_best is not None:
        cands.append(lb_best)
    if mlp_proven and z is not None:
        cands.append(math.ceil(z - 1e-6) if integral else z)
    return float(max(cands))


def _ip_round(Xu, r, lam, lambda0, lambda1, D, C, solver, pricing_time_limit, deadline,
              reserve, eps, max_columns, sample_rows, sample_nnz, seed, early_stop, warm):
    """One pricing-IP call with the driver's clock; returns (kind, clauses, bound, proven, sampled)."""
    left = deadline - time.perf_counter() - reserve
    # solvers overrun their limits (2-3x measured): give them a fraction of what is left
    tl = min(pricing_time_limit, max(left / 2.5, 0.2))
    max_lits = D if C is None else min(D, C - 1)
    rng = np.random.default_rng(seed)
    try:
        out = price_ip(Xu, r, lam, lambda0, lambda1, max_lits, solver=solver, time_limit=tl,
                       eps=eps, max_columns=max_columns, early_stop=early_stop,
                       sample_rows=sample_rows, sample_nnz=sample_nnz, rng=rng,
                       warm_clause=warm)
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        other = fallback_solver(solver)
        if other is None:
            raise
        warnings.warn(f"pricing IP with {solver!r} failed ({exc!r}); retrying with {other!r}",
                      RuntimeWarning, stacklevel=3)
        out = price_ip(Xu, r, lam, lambda0, lambda1, max_lits, solver=other, time_limit=tl,
                       eps=eps, max_columns=max_columns, early_stop=early_stop,
                       sample_rows=sample_rows, sample_nnz=sample_nnz, rng=rng,
                       warm_clause=warm)
    kind = "ip-sampled" if out.sampled else "ip"
    bound = None if out.sampled else out.bound
    return kind, out.clauses, bound, out.proven, out.sampled


def _checked(cands, Xu, r, lam, lambda0, lambda1, eps, in_master):
    """True if some candidate has exact negative reduced cost and is new."""
    for c in cands:
        if c and c not in in_master and reduced_cost(Xu, r, c, lam, lambda0, lambda1) < -eps:
            return True
    return False


def _early_bound(z, beta, C, lambda0, lambda1, integral):
    """Lagrangian bound of §4.2 from a valid lower bound ``beta`` on min rc."""
    beta = min(beta, 0.0)
    mults = []
    if C is not None:
        mults.append(C / 2.0)
    if lambda0 + lambda1 > 0:
        mults.append(z / (lambda0 + lambda1))
    if not mults:
        return 0.0 if beta < 0 else z
    val = z + min(mults) * beta
    if integral:
        val = math.ceil(val - 1e-6)
    return float(max(val, 0.0))


def _sample_duals(mu, inv, wpos, wp):
    """Split each merged row's dual over its positives in proportion to weight."""
    share = np.divide(wpos, wp[inv], out=np.zeros_like(wpos), where=wp[inv] > 0)
    return mu[inv] * share


def _complement(B, negation_of):
    """Complemented condition matrix, reusing B through the negation map when complete."""
    if negation_of is None:
        return ~B
    neg = np.asarray(negation_of)
    if neg.shape != (B.shape[1],) or not np.issubdtype(neg.dtype, np.integer):
        raise ValueError(f"negation_of must be an int array of shape ({B.shape[1]},)")
    if np.any(neg >= B.shape[1]) or np.any(neg < -1):
        raise ValueError("negation_of entries must be -1 or valid column indices")
    if np.all(neg >= 0):
        Bn = B[:, neg]
        if not np.array_equal(Bn, ~B):
            raise ValueError("negation_of does not map each column to its complement")
        return Bn
    out = ~B
    have = neg >= 0
    out[:, have] = B[:, neg[have]]
    if not np.array_equal(out, ~B):
        raise ValueError("negation_of does not map each column to its complement")
    return out


def _metadata(d, groups, ops, thresholds):
    if groups is None:
        if ops is not None or thresholds is not None:
            raise ValueError("column_ops/column_thresholds need column_groups")
        return None
    g = np.asarray(groups, dtype=np.int64)
    if g.shape != (d,):
        raise ValueError(f"column_groups must have shape ({d},), got {g.shape}")
    o = np.full(d, 4, dtype=np.int64) if ops is None else np.asarray(ops, dtype=np.int64)
    t = np.full(d, np.nan) if thresholds is None else np.asarray(thresholds, dtype=float)
    if o.shape != (d,) or t.shape != (d,):
        raise ValueError(f"column_ops and column_thresholds must have shape ({d},)")
    if np.any((o < 0) | (o > 4)):
        raise ValueError("column_ops codes must be in 0..4")
    return g, o, t
