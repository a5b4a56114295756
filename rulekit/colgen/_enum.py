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
from ._packed import transposed, weighed_columns
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
def _insert_best(best_val, best_cl, rc, lits, depth, j):
    """Put the clause ``lits[:depth] + (j,)`` of reduced cost ``rc`` into the best list,
    kept sorted by reduced cost (the last entry drops out)."""
    k = best_val.shape[0] - 1
    while k > 0 and best_val[k - 1] > rc:
        best_val[k] = best_val[k - 1]
        best_cl[k] = best_cl[k - 1]
        k -= 1
    best_val[k] = rc
    best_cl[k, :] = -1
    for q in range(depth):
        best_cl[k, q] = lits[q]
    best_cl[k, depth] = j


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
            _insert_best(best_val, best_cl, rc, lits, depth, j)
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


# removal masses kept per child for extensions of up to this many more literals;
# longer ones are bounded as if a literal could drop any row (valid, weaker)
LOOKAHEAD_DEPTH = 8


@njit(cache=True)
def _bnb_lookahead(XT, r, neg, order, compat, lam, lambda0, lambda1, max_literals, n_best,
                   node_limit, eps, ratio_target, first_rows):
    """:func:`_bnb` with a bound that also counts the rows an extension must drop.

    A node's children are all scored before any is visited.  Literal ``j``
    drops the rows of the node it does not hold, whose positive residuals
    sum to ``e_j``.  Any extension of a child ``c`` by ``a`` more literals
    (all later in the order, so among the node's later children) keeps the
    positive residuals of ``c`` less at most the ``a`` largest ``e_j``
    (``c``'s rows are among the node's), and at most the negative ones of
    ``c``: ``rc >= -ng(c) + max(0, ps(c) - top_a) + penalty(|c| + a)``.
    Broad clauses that cover many rows of positive residual are then cut
    although their negative residuals alone would not cut them.  Only rows
    of nonzero residual (``first_rows``) are visited.  Same results as
    :func:`_bnb` when it finishes; cut short, the children scored but not
    visited are bounded the same way.
    """
    d = XT.shape[0]
    ML = max_literals
    TT = min(ML, LOOKAHEAD_DEPTH) + 1
    n0 = first_rows.shape[0]
    pos_r = np.maximum(r, 0.0)
    rows = np.empty((ML + 1, max(n0, 1)), dtype=np.int64)
    nrows = np.zeros(ML + 1, dtype=np.int64)
    lits = np.empty(ML + 1, dtype=np.int64)
    # per level D (a node of D literals): its children's index in `order`, their
    # sums, and the suffix sums of the largest removal masses of the later children
    ch_q = np.empty((ML + 1, d), dtype=np.int64)
    ch_s = np.empty((ML + 1, d))
    ch_ng = np.empty((ML + 1, d))
    ch_e = np.empty((ML + 1, d))
    # ng_up[D, j]: a bound on the negative residual literal j keeps of the node at
    # level D (its own when scored there); a node's rows are its parent's, so the
    # parent's bound holds for it and may cut j without a pass over the rows
    ng_up = np.empty((ML + 1, d))
    top = np.zeros((ML + 1, d + 1, TT))
    largest = np.empty(TT)
    nch = np.zeros(ML + 1, dtype=np.int64)
    cur = np.zeros(ML + 1, dtype=np.int64)
    start = np.zeros(ML + 1, dtype=np.int64)
    allowed = np.ones((ML + 1, d), dtype=np.bool_)
    best_val = np.full(n_best, np.inf)
    best_cl = np.full((n_best, ML), -1, dtype=np.int64)
    for t in range(n0):
        rows[0, t] = first_rows[t]
    nrows[0] = n0
    nodes = 0
    unvisited = np.inf
    ratio = 0.0
    target_cut = False
    complete = True
    depth = 0
    expand = True
    while depth >= 0:
        D = depth
        if expand:
            expand = False
            if nodes + (d - start[D]) * (nrows[D] + 16) > node_limit:
                complete = False
                depth -= 1
                break
            ps_node = 0.0
            for t in range(nrows[D]):
                ps_node += pos_r[rows[D, t]]
            n = 0
            nl = D + 1
            thresh = min(-eps, best_val[n_best - 1])
            for q in range(start[D], d):
                j = order[q]
                if not allowed[D, j]:
                    continue
                nodes += 16
                if D > 0:
                    up = ng_up[D - 1, j]
                    ng_up[D, j] = up
                    if up <= 0.0:
                        continue
                    # every clause of this node's subtree holding j keeps at most `up`
                    rc_lb, ratio_lb = _length_bounds(up, nl, ML, lam, lambda0, lambda1)
                    if rc_lb >= thresh or ratio_lb >= ratio_target:
                        # cut as a scored child would be (see below), unscored
                        ratio = min(ratio, ratio_lb)
                        if rc_lb < thresh:
                            unvisited = min(unvisited, rc_lb)
                            target_cut = True
                        continue
                nodes += nrows[D]
                s = 0.0
                ng = 0.0
                ps = 0.0
                for t in range(nrows[D]):
                    u = rows[D, t]
                    if XT[j, u]:
                        s += r[u]
                        ng += neg[u]
                        ps += pos_r[u]
                ng_up[D, j] = ng
                if ng <= 0.0:
                    # every clause with j covers no row of negative residual here
                    continue
                ch_q[D, n] = q
                ch_s[D, n] = s
                ch_ng[D, n] = ng
                ch_e[D, n] = ps_node - ps
                n += 1
            nch[D] = n
            cur[D] = 0
            # top[D, i, a]: the a largest removal masses among children after i - 1
            for a in range(TT):
                largest[a] = 0.0
                top[D, n, a] = 0.0
            for i in range(n - 1, -1, -1):
                v = ch_e[D, i]
                k = TT - 1
                while k > 0 and largest[k - 1] < v:
                    largest[k] = largest[k - 1]
                    k -= 1
                if k < TT - 1 or largest[k] < v:
                    largest[k] = v
                acc = 0.0
                top[D, i, 0] = 0.0
                for a in range(1, TT):
                    acc += largest[a - 1]
                    top[D, i, a] = acc
            continue
        if cur[D] >= nch[D]:
            depth -= 1
            continue
        i = cur[D]
        cur[D] += 1
        q = ch_q[D, i]
        j = order[q]
        s = ch_s[D, i]
        ng = ch_ng[D, i]
        nl = D + 1
        rc = s + lam * (1 + nl) + lambda0 + lambda1 * nl
        if rc / (1 + nl) < ratio:
            ratio = rc / (1 + nl)
        thresh = min(-eps, best_val[n_best - 1])
        if rc < thresh:
            _insert_best(best_val, best_cl, rc, lits, D, j)
            thresh = min(-eps, best_val[n_best - 1])
        if nl >= ML:
            continue
        rc_lb, ratio_lb = _extension_bounds(s, ng, top[D, i + 1], nl, ML, lam, lambda0,
                                            lambda1)
        if rc_lb >= thresh or ratio_lb >= ratio_target:
            if ratio_lb < ratio:
                ratio = ratio_lb
            if rc_lb < thresh:
                if rc_lb < unvisited:
                    unvisited = rc_lb
                target_cut = True
            continue
        lits[D] = j
        cnt = 0
        for t in range(nrows[D]):
            u = rows[D, t]
            if XT[j, u]:
                rows[D + 1, cnt] = u
                cnt += 1
        nrows[D + 1] = cnt
        for qq in range(d):
            allowed[D + 1, qq] = allowed[D, qq] and compat[j, qq]
        nodes += d + nrows[D]
        start[D + 1] = q + 1
        depth = D + 1
        expand = True
    if not complete:
        if depth < 0:
            # not even the first literals were scored: every clause covers some of
            # the rows, so only the whole negative residual bounds it
            ng = 0.0
            for t in range(n0):
                ng += neg[first_rows[t]]
            for nl in range(1, ML + 1):
                b = -ng + lam * (1 + nl) + lambda0 + lambda1 * nl
                unvisited = min(unvisited, b)
                ratio = min(ratio, b / (1 + nl))
        # the children not yet visited at every level on the path (at the deepest,
        # also the one whose expansion did not fit): themselves, and their extensions
        for D in range(depth + 1):
            first = cur[D] - 1 if D == depth else cur[D]
            for i in range(max(first, 0), nch[D]):
                nl = D + 1
                rc = ch_s[D, i] + lam * (1 + nl) + lambda0 + lambda1 * nl
                unvisited = min(unvisited, rc)
                ratio = min(ratio, rc / (1 + nl))
                if nl < ML:
                    rc_lb, ratio_lb = _extension_bounds(ch_s[D, i], ch_ng[D, i], top[D, i + 1],
                                                        nl, ML, lam, lambda0, lambda1)
                    unvisited = min(unvisited, rc_lb)
                    ratio = min(ratio, ratio_lb)
    return best_val, best_cl, complete, nodes, unvisited, ratio, target_cut


@njit(cache=True)
def _length_bounds(ng, nl, ML, lam, lambda0, lambda1):
    """Least reduced cost and ratio of clauses of ``nl`` to ``ML`` literals keeping ``ng``."""
    rc_lb = np.inf
    ratio_lb = np.inf
    for L in range(nl, ML + 1):
        b = -ng + lam * (1 + L) + lambda0 + lambda1 * L
        rc_lb = min(rc_lb, b)
        ratio_lb = min(ratio_lb, b / (1 + L))
    return rc_lb, ratio_lb


@njit(cache=True)
def _extension_bounds(s, ng, top, nl, ML, lam, lambda0, lambda1):
    """Least reduced cost and least ratio of the extensions of a child (see above).

    ``top[a]``: the ``a`` largest removal masses of the literals that may
    extend it; beyond ``len(top) - 1`` more literals, any row may be dropped.
    """
    ps = s + ng          # the child's positive residuals
    rc_lb = np.inf
    ratio_lb = np.inf
    for a in range(1, ML - nl + 1):
        kept = max(0.0, ps - top[a]) if a < top.shape[0] else 0.0
        b = -ng + kept + lam * (1 + nl + a) + lambda0 + lambda1 * (nl + a)
        rc_lb = min(rc_lb, b)
        ratio_lb = min(ratio_lb, b / (1 + nl + a))
    return rc_lb, ratio_lb


def enumerate_pricing(problem: PricingProblem, settings: ColGenSettings, *,
                      work_limit=None, ratio_target=np.inf, lookahead=False) -> PricingOutcome:
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
    ratio_target : float, default=inf
        Cut every subtree whose clauses' ``rc / (1 + |k|)`` cannot fall
        below it (only the ratio is sought; ``proven`` is then False).
    lookahead : bool, default=False
        Search with :func:`_bnb_lookahead`, whose bound also counts the rows
        an extension must drop.  It finds the same clauses when it finishes
        and finishes far sooner on broad clauses, but spends its work limit
        differently when cut short, so the rounds (whose clauses shape the
        model) keep :func:`_bnb` and only the certifying searches use it.

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
    single = weighed_columns(r, X)
    order = np.argsort(single, kind="stable").astype(np.int64)
    ml = int(min(problem.max_literals, d))
    args = (XT, np.ascontiguousarray(r, dtype=np.float64), neg, order, compat,
            float(problem.lam), float(problem.lambda0), float(problem.lambda1), ml,
            int(settings.columns_per_round), int(work_limit), float(settings.eps),
            float(ratio_target))
    if lookahead:
        # rows of zero residual change no sum: visiting them is work for nothing
        first_rows = np.flatnonzero(np.asarray(r) != 0).astype(np.int64)
        out = _bnb_lookahead(*args, first_rows)
    else:
        out = _bnb(*args)
    vals, cls, complete, nodes, unvisited, ratio, target_cut = out
    ranked = [(float(v), tuple(sorted(int(x) for x in c if x >= 0)))
              for v, c in zip(vals, cls) if np.isfinite(v)]
    # the least reduced cost is at least the best found (-eps when none prices
    # out) and, when the work limit cut the search, the bound of what it left
    bound = ranked[0][0] if ranked else -settings.eps
    if not complete or target_cut:
        bound = min(bound, float(unvisited))
    return PricingOutcome.from_ranked(ranked, bound=bound, proven=bool(complete and not target_cut),
                                      work=int(nodes), ratio=float(ratio))
