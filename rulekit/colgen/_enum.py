"""Exact pricing by depth-first branch-and-bound over clauses (numba).

For data with a moderate number of conditions the cheapest *exact* pricing
is often plain enumeration of conjunctions in canonical order, pruned by the
optimistic bound of the beam (:mod:`._beam`): every extension of a clause
covering rows ``m`` has ``rc >= -sum_{u in m} max(-r_u, 0) + penalty(|k|+1)``.
A subtree is cut when that bound cannot beat ``-eps`` (or the K-th best
clause found so far).  When the search finishes within its node limit, the
minimum reduced cost over all clauses with at most ``max_literals`` literals
is known exactly, which certifies the master LP like a solved pricing IP.

Redundant extensions (same original column, see ``_beam._allowed_extensions``)
are skipped through a precomputed compatibility matrix; every skipped clause
has an equivalent clause with fewer literals or covers nothing, so the
minimum is unchanged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._anytime import check_allocation
from ._beam import OP_EQ, OP_GT, OP_LE, OP_NE
from ._packed import float_rows, transposed
from ._pricing import PricingOutcome, PricingProblem
from ._settings import ColGenSettings


def compatibility(d, meta):
    """``compat[l, j]``: literal ``j`` may join a clause containing ``l``.

    Row ``l`` is :func:`._beam._allowed_extensions` of ``(l,)``; only
    literals on one original column can exclude each other, so the matrix is
    made group by group (on wide data a loop over the rows, each a pass over
    every column, took minutes).  The ``d x d`` matrix is checked against the
    memory budget before it is made (:func:`check_compatibility_memory`).
    """
    check_compatibility_memory(d)
    compat = np.ones((d, d), dtype=np.bool_)
    np.fill_diagonal(compat, False)
    if meta is None:
        return compat
    groups, ops, thr = meta
    groups, ops, thr = np.asarray(groups), np.asarray(ops), np.asarray(thr)
    members = np.flatnonzero(groups >= 0)
    members = members[np.argsort(groups[members], kind="stable")]
    bounds = np.flatnonzero(np.diff(groups[members])) + 1
    for idx in np.split(members, bounds):
        if idx.size < 2:
            continue
        o, t = ops[idx], thr[idx]
        row_op, col_op = o[:, None], o[None, :]
        # as _allowed_extensions: after x <= t only x > t' (t' < t); after x > t only
        # x <= t' (t' > t); after x == v nothing; after x != v other !=; other ops free
        keep = (((row_op == OP_LE) & (col_op == OP_GT) & (t[None, :] < t[:, None]))
                | ((row_op == OP_GT) & (col_op == OP_LE) & (t[None, :] > t[:, None]))
                | ((row_op == OP_NE) & (col_op == OP_NE))
                | ~np.isin(o, (OP_LE, OP_GT, OP_EQ, OP_NE))[:, None])
        np.fill_diagonal(keep, False)
        compat[np.ix_(idx, idx)] = keep
    return compat


def check_compatibility_memory(d) -> None:
    """ValueError when the ``d x d`` compatibility matrix exceeds the memory budget."""
    check_allocation(
        float(d) * d,
        f"column generation's compatibility matrix over the {d:,} binarized conditions "
        f"({d:,} x {d:,} bytes)",
        "use fewer columns (drop noise or identifier columns), fewer thresholds "
        "(n_thresholds) or a higher min_frequency")


@njit(cache=True)
def _bnb(XT, r, neg, order, compat, lam, lambda0, lambda1, max_literals, n_best,
         node_limit, eps, ratio_target):
    d, U = XT.shape
    # stack of partial clauses: literal at each depth, index into `order`
    lits = np.empty(max_literals, dtype=np.int64)
    pos = np.empty(max_literals, dtype=np.int64)
    rows = np.empty((max_literals + 1, U), dtype=np.int64)
    nrows = np.zeros(max_literals + 1, dtype=np.int64)
    for u in range(U):
        rows[0, u] = u
    nrows[0] = U
    best_val = np.full(n_best, np.inf)
    best_cl = np.full((n_best, max_literals), -1, dtype=np.int64)
    allowed = np.ones((max_literals + 1, d), dtype=np.bool_)
    nodes = 0
    unvisited = np.inf
    depth = 0
    pos[0] = -1
    complete = True
    # a lower bound on min(0, rc / (1 + literals)) over every clause: what the
    # budget's Lagrangian bound needs (docs/math.md); clauses skipped below
    # (no negative residual, or the same as a shorter one) have a ratio >= 0
    # or >= a shorter clause's
    ratio = 0.0
    # subtrees cut because their clauses' ratios cannot fall below
    # `ratio_target`: the least reduced cost there is not known, only bounded
    target_cut = False
    while depth >= 0:
        pos[depth] += 1
        if pos[depth] >= d:
            depth -= 1
            continue
        j = order[pos[depth]]
        if not allowed[depth, j]:
            continue
        nodes += nrows[depth] + 16
        if nodes > node_limit:
            complete = False
            break
        # rows of the child clause
        cnt = 0
        s = 0.0
        ng = 0.0
        for t in range(nrows[depth]):
            u = rows[depth, t]
            if XT[j, u]:
                rows[depth + 1, cnt] = u
                cnt += 1
                s += r[u]
                ng += neg[u]
        if ng <= 0.0:
            continue
        nl = depth + 1
        pen = lam * (1 + nl) + lambda0 + lambda1 * nl
        rc = s + pen
        if rc / (1 + nl) < ratio:
            ratio = rc / (1 + nl)
        thresh = min(-eps, best_val[n_best - 1])
        if rc < thresh:
            # insert into the sorted best list
            k = n_best - 1
            while k > 0 and best_val[k - 1] > rc:
                best_val[k] = best_val[k - 1]
                best_cl[k] = best_cl[k - 1]
                k -= 1
            best_val[k] = rc
            best_cl[k, :] = -1
            for q in range(depth):
                best_cl[k, q] = lits[q]
            best_cl[k, depth] = j
            thresh = min(-eps, best_val[n_best - 1])
        if nl >= max_literals:
            continue
        bound = -ng + lam * (2 + nl) + lambda0 + lambda1 * (nl + 1)
        if bound >= thresh or bound / (nl + 2) >= ratio_target:
            # every extension has rc >= bound and at least nl + 1 literals, so a ratio
            # >= bound / (nl + 2); cut by the target alone (only the ratio is sought), its
            # reduced costs may still price out: they are bounded, not known
            if bound / (nl + 2) < ratio:
                ratio = bound / (nl + 2)
            if bound < thresh:
                if bound < unvisited:
                    unvisited = bound
                target_cut = True
            continue
        # descend: later literals in `order` only (canonical enumeration)
        lits[depth] = j
        nrows[depth + 1] = cnt
        for q in range(d):
            allowed[depth + 1, q] = allowed[depth, q] and compat[j, q]
        nodes += d
        depth += 1
        pos[depth] = pos[depth - 1]
    # Cut short, the search still bounds the subtrees it did not visit: at each
    # depth, the literals after the one being explored (at the deepest depth,
    # from the one that hit the limit on), each with the beam's optimistic
    # bound over its rows.  Every other clause was visited or pruned against
    # a threshold no lower than the best found (or -eps).
    if not complete:
        for t in range(depth + 1):
            nl = t + 1
            pen = lam * (1 + nl) + lambda0 + lambda1 * nl
            pen_next = lam * (2 + nl) + lambda0 + lambda1 * (nl + 1)
            start = pos[t] if t == depth else pos[t] + 1
            for q in range(start, d):
                j = order[q]
                if not allowed[t, j]:
                    continue
                s = 0.0
                ng = 0.0
                for k in range(nrows[t]):
                    u = rows[t, k]
                    if XT[j, u]:
                        s += r[u]
                        ng += neg[u]
                if ng <= 0.0:
                    continue
                # the clause itself exactly; its extensions by the optimistic bound
                rc = s + pen
                if rc < unvisited:
                    unvisited = rc
                if rc / (1 + nl) < ratio:
                    ratio = rc / (1 + nl)
                if nl < max_literals:
                    if pen_next - ng < unvisited:
                        unvisited = pen_next - ng
                    if (pen_next - ng) / (nl + 2) < ratio:
                        ratio = (pen_next - ng) / (nl + 2)
    return best_val, best_cl, complete, nodes, unvisited, ratio, target_cut


def enumerate_pricing(problem: PricingProblem, settings: ColGenSettings, *,
                      work_limit=None, ratio_target=np.inf) -> PricingOutcome:
    """Exact minimum-reduced-cost clauses by branch-and-bound.

    Parameters
    ----------
    problem : PricingProblem
        Its ``compat`` prunes redundant extensions (every literal pair
        compatible when None).
    settings : ColGenSettings
        ``columns_per_round`` (clauses returned), ``enum_work_limit`` and
        ``eps``.
    work_limit : int, optional
        Row operations allowed, instead of ``settings.enum_work_limit`` (a
        limit cut down when the deadline is near).

    Returns
    -------
    PricingOutcome
        ``ranked``: up to ``columns_per_round`` clauses with ``rc < -eps``,
        best first.  ``proven`` when the search finished: then no other
        clause with at most ``max_literals`` literals has a smaller reduced
        cost than those returned (and none has ``rc < -eps`` if there are
        none), and ``bound`` is the least reduced cost (``-eps`` when
        nothing prices out).  Cut short by the work limit, ``bound`` is
        still a valid (weaker) lower bound on the least reduced cost: the
        least of the best found and the optimistic bounds of the subtrees
        not visited.  ``ratio``: a lower bound (<= 0) on ``rc / (1 + |k|)``
        over every clause ``k``, finished or not.  ``work``: row operations
        spent.
    """
    X, r = problem.X, problem.r
    U, d = X.shape
    compat = compatibility(d, None) if problem.compat is None else problem.compat
    work_limit = settings.enum_work_limit if work_limit is None else work_limit
    neg = np.clip(-r, 0.0, None)
    XT = transposed(X)
    # promising literals first: the incumbent improves early and prunes more
    single = r @ float_rows(X, 0, U, np.float64)
    order = np.argsort(single, kind="stable").astype(np.int64)
    ml = int(min(problem.max_literals, d))
    vals, cls, complete, nodes, unvisited, ratio, target_cut = _bnb(XT, np.ascontiguousarray(r, dtype=np.float64),
                                      neg, order, compat, float(problem.lam),
                                      float(problem.lambda0), float(problem.lambda1), ml,
                                      int(settings.columns_per_round), int(work_limit),
                                      float(settings.eps), float(ratio_target))
    ranked = [(float(v), tuple(sorted(int(x) for x in c if x >= 0)))
              for v, c in zip(vals, cls) if np.isfinite(v)]
    # the least reduced cost is at least the best found (-eps when none prices
    # out) and, when the work limit cut the search, the bound of what it left
    bound = ranked[0][0] if ranked else -settings.eps
    if not complete or target_cut:
        bound = min(bound, float(unvisited))
    return PricingOutcome.from_ranked(ranked, bound=bound, proven=bool(complete and not target_cut),
                                      work=int(nodes), ratio=float(ratio))
