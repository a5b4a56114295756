"""Compiled inner loops of the FRL / softFRL Monte-Carlo search.

Data layout (built by :mod:`._search`): antecedent ``l`` is two packed bit
vectors, ``P[l]`` over the *positive* rows only and ``Q[l]`` over the
*negative* rows only (layout of :mod:`rulekit.bitset`).  The rows a prefix
leaves uncaptured are two vectors ``rem_p``/``rem_n`` of the same shape, so the
counts ``p = |P[l] & rem_p|`` and ``q = |Q[l] & rem_n|`` of every antecedent
come out of one pass over the matrices, one AND and one popcount per word,
with no label mask.

One call of :func:`frl_chunk` / :func:`soft_chunk` runs a batch of whole
iterations; the Python driver calls it repeatedly so that the time limit,
Ctrl-C and the callback are honoured between batches.  All random numbers
come from the caller's ``numpy.random.Generator`` (numba shares its state).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rulekit.bitset import popcount64

from . import _objective as _obj

# Compiled twins of the scalar formulas the tests check directly.
_risk_numerator = njit(cache=True)(_obj.risk_numerator)
_frl_prefix_bound = njit(cache=True)(_obj.frl_prefix_bound)
_frl_should_stop = njit(cache=True)(_obj.frl_should_stop)
_soft_bound_terms = njit(cache=True)(_obj.soft_bound_terms)
_frl_curiosity = njit(cache=True)(_obj.frl_curiosity)
_soft_curiosity = njit(cache=True)(_obj.soft_curiosity)


@njit(cache=True)
def count_candidates(P, Q, rem_p, rem_n, active, pc, qc, need_q_without_pos):
    """Counts ``pc[l] = |P[l] & rem_p|``, ``qc[l] = |Q[l] & rem_n|`` for active ``l``.

    With ``need_q_without_pos`` false, ``qc[l]`` is left at 0 when
    ``pc[l] == 0`` (FRL never uses such an antecedent, so its negatives are
    not counted).
    """
    n_ante = P.shape[0]
    wp = P.shape[1]
    wn = Q.shape[1]
    for l in range(n_ante):
        if not active[l]:
            continue
        c = 0
        for k in range(wp):
            c += popcount64(P[l, k] & rem_p[k])
        pc[l] = c
        if c == 0 and not need_q_without_pos:
            qc[l] = 0
            continue
        c = 0
        for k in range(wn):
            c += popcount64(Q[l, k] & rem_n[k])
        qc[l] = c


@njit(cache=True)
def _remove_rows(rem, cover):
    for k in range(rem.shape[0]):
        rem[k] &= ~cover[k]


@njit(cache=True)
def _draw(rng, weights, n_cand):
    """Index in ``[0, n_cand)`` drawn with probability ``weights / sum``.

    Zero-weight candidates are never drawn unless every weight is zero, in
    which case the draw is uniform.  One uniform number per call.
    """
    total = 0.0
    for i in range(n_cand):
        total += weights[i]
    u = rng.random()
    if not total > 0.0:
        j = int(u * n_cand)
        return j if j < n_cand else n_cand - 1
    target = u * total
    acc = 0.0
    last_positive = -1
    for i in range(n_cand):
        if weights[i] > 0.0:
            acc += weights[i]
            last_positive = i
            if acc > target:
                return i
    return last_positive  # rounding left target above the running sum


@njit(cache=True)
def _push(buf, count, value):
    """Append to a growable int32 buffer; returns the (possibly new) buffer."""
    if count >= buf.shape[0]:
        bigger = np.empty(2 * buf.shape[0] + 16, dtype=np.int32)
        bigger[:count] = buf[:count]
        buf = bigger
    buf[count] = value
    return buf


# --- prefix memo -----------------------------------------------------------
#
# Iterations revisit the same prefixes.  The search remembers, for every
# prefix it has extended, a lower bound on the objective of all its
# completions ("node bound"), computed when the prefix was last visited:
#
#   min( objective of the prefix closed by the else clause,
#        bound of every surviving candidate (raised by its own node bound),
#        least bound of the candidates the incumbent pruned )
#
# (the candidate rules the spec filters out -- falling, Cor. 4.5, Prop. 4.2
# -- lead to no better list by the spec's own arguments).  The incumbent only
# decreases, so once a prefix's node bound is not below it, no strictly better
# list starts with that prefix: the prefix is dropped from its parent's
# candidate set, exactly like a candidate whose prefix bound is too high.
# This only removes lists that cannot improve the incumbent; among the
# remaining candidates the draw is the spec's curiosity-weighted draw.  When
# the root's node bound reaches the incumbent, the search has proved the
# incumbent optimal (over the lists the program admits).


@njit(cache=True)
def _child(children, node_count, node, l, n_ante, max_nodes):
    """Node id of prefix ``node`` + antecedent ``l`` (created on demand).

    Returns -1 (nothing remembered below) when the memo is full.
    """
    if node < 0:
        return -1
    key = node * n_ante + l
    if key in children:
        return children[key]
    if node_count[0] >= max_nodes:
        return -1
    nid = node_count[0]
    node_count[0] += 1
    children[key] = nid
    return nid


@njit(cache=True)
def _apply_memo(cand, weight, bounds, n_cand, children, node_lb, node, n_ante,
                incumbent, extra_b, extra_f):
    """Raise candidate bounds by the children's node bounds and drop those no
    longer below the incumbent.  Returns ``(n_kept, least bound seen)``."""
    low = np.inf
    if node < 0:
        for i in range(n_cand):
            if bounds[i] < low:
                low = bounds[i]
        return n_cand, low
    k = 0
    for i in range(n_cand):
        b = bounds[i]
        key = node * n_ante + cand[i]
        if key in children:
            c = children[key]
            if c in node_lb and node_lb[c] > b:
                b = node_lb[c]
        if b < low:
            low = b
        if b >= incumbent:
            continue
        cand[k] = cand[i]
        weight[k] = weight[i]
        bounds[k] = b
        extra_b[k] = extra_b[i]
        extra_f[k] = extra_f[i]
        k += 1
    return k, low


@njit(cache=True)
def _raise_node_bound(node_lb, node, value):
    if node < 0:
        return
    if node in node_lb:
        if value > node_lb[node]:
            node_lb[node] = value
    else:
        node_lb[node] = value


@njit(cache=True)
def frl_candidates(pc, qc, active, rp, rn, last_p, last_q, numer, depth,
                   w, C, n, lam, incumbent, cand, weight, bounds, pruned_low):
    """FRL candidate set of one prefix (spec 6.1 step c).

    Inputs are the counts ``pc``/``qc`` of every active antecedent on the
    rows the prefix leaves (``rp`` positives, ``rn`` negatives), the counts
    ``(last_p, last_q)`` of the prefix's last rule (``(1, 0)`` for the empty
    prefix), ``numer`` = ``n`` times the prefix's risk, ``depth`` = its
    length and the incumbent objective.  Writes the surviving antecedents,
    their curiosities and prefix bounds to ``cand``/``weight``/``bounds``
    and returns how many there are; ``pruned_low[0]`` receives the least
    bound among the antecedents pruned by the incumbent (``inf`` if none).
    Antecedents capturing no remaining positive are marked inactive (they
    stay useless deeper in this list).
    """
    n_cand = 0
    pruned_low[0] = np.inf
    for l in range(pc.shape[0]):
        if not active[l]:
            continue
        p = pc[l]
        if p == 0:
            active[l] = False   # counts only shrink: dead for this list
            continue
        q = qc[l]
        p2 = rp - p
        q2 = rn - q
        if p2 + q2 == 0:
            continue            # would leave an empty else clause
        if not w * p > q:
            continue            # Cor. 4.5: proportion must exceed 1/(1+w)
        # falling: p/(p+q) <= last_p/(last_p+last_q), exact in integers
        if p * (last_p + last_q) > last_p * (p + q):
            continue
        # Prop. 4.2 feasibility: the remainder is not richer than the new rule
        # (the paper's test, not the reference code's, spec D1)
        if p2 * (p + q) > p * (p2 + q2):
            continue
        alpha = p / (p + q)
        new_obj = (numer + _risk_numerator(p, q, w)) / n + C * (depth + 1)
        bound = _frl_prefix_bound(new_obj, alpha, p2, q2, w, C, n)
        if bound < incumbent:   # strict: only a better list is worth building
            cand[n_cand] = l
            weight[n_cand] = _frl_curiosity(p, q, rp, lam)
            bounds[n_cand] = bound
            n_cand += 1
        elif bound < pruned_low[0]:
            pruned_low[0] = bound
    return n_cand


@njit(cache=True)
def soft_candidates(pc, qc, active, rp, rn, alpha_min, numer, penalty, depth,
                    w, C, C1, n, lam, incumbent, cand, weight, stop_after,
                    cand_pen, bounds, pruned_low):
    """softFRL candidate set of one prefix (spec 6.2).

    Like :func:`frl_candidates`, with ``alpha_min`` the prefix's minimum
    proportion (1 when empty) and ``penalty`` its ``S(e)``.  Also writes, per
    candidate, whether closing the list right after it is provably optimal
    (``stop_after``) and the penalty it adds (``cand_pen``).
    """
    n_cand = 0
    pruned_low[0] = np.inf
    for l in range(pc.shape[0]):
        if not active[l]:
            continue
        p = pc[l]
        q = qc[l]
        if p + q == 0:
            active[l] = False   # captures nothing now, nor deeper
            continue
        p2 = rp - p
        q2 = rn - q
        if p2 + q2 == 0:
            continue
        alpha = p / (p + q)
        pen = alpha - alpha_min if alpha > alpha_min else 0.0
        new_obj = ((numer + _risk_numerator(p, q, w)) / n + C * (depth + 1)
                   + C1 * (penalty + pen))
        new_min = alpha if alpha < alpha_min else alpha_min
        b1, gv, tm = _soft_bound_terms(new_min, p2, q2, w, C, C1, n)
        bound = new_obj + min(b1, gv, tm)
        if bound < incumbent:
            cand[n_cand] = l
            weight[n_cand] = _soft_curiosity(p, q, alpha_min, rp, lam)
            stop_after[n_cand] = tm <= min(b1, gv)
            cand_pen[n_cand] = pen
            bounds[n_cand] = bound
            n_cand += 1
        elif bound < pruned_low[0]:
            pruned_low[0] = bound
    return n_cand


@njit(cache=True)
def frl_chunk(P, Q, full_p, full_n, root_p, root_q, root_active, n_pos, n_neg,
              w, C, lam, stop_prob, rng, n_iters,
              best_prefix, best_len, best_obj, obj_out, best_out,
              children, node_lb, node_count, max_nodes):
    """Run ``n_iters`` iterations of Algorithm FRL (spec 6.1).

    ``best_prefix``/``best_len``/``best_obj`` hold the incumbent and are
    updated in place (strict improvement only).  ``obj_out[i]`` and
    ``best_out[i]`` receive the objective of the list built in iteration ``i``
    and the incumbent after it.  ``children``/``node_lb``/``node_count`` are
    the prefix memo (see above), kept by the caller between batches.
    Returns ``(sizes, offsets)``: the candidate set size of every extension
    step, iteration ``i`` owning ``sizes[offsets[i]:offsets[i+1]]``.
    """
    n_ante = P.shape[0]
    n = n_pos + n_neg
    rem_p = np.empty_like(full_p)
    rem_n = np.empty_like(full_n)
    active = np.empty(n_ante, dtype=np.bool_)
    pc = np.zeros(n_ante, dtype=np.int64)
    qc = np.zeros(n_ante, dtype=np.int64)
    cand = np.empty(n_ante, dtype=np.int64)
    weight = np.empty(n_ante, dtype=np.float64)
    bounds = np.empty(n_ante, dtype=np.float64)
    unused_b = np.empty(n_ante, dtype=np.bool_)
    unused_f = np.empty(n_ante, dtype=np.float64)
    pruned_low = np.empty(1, dtype=np.float64)
    prefix = np.empty(n_ante, dtype=np.int64)
    sizes = np.empty(64, dtype=np.int32)
    offsets = np.zeros(n_iters + 1, dtype=np.int64)
    n_sizes = 0
    for it in range(n_iters):
        rem_p[:] = full_p
        rem_n[:] = full_n
        active[:] = root_active
        rp = n_pos
        rn = n_neg
        depth = 0
        numer = 0.0          # n * risk of the captured rows, in list order
        last_p = 1           # counts of the last rule; (1, 0) = proportion 1
        last_q = 0
        alpha_last = 1.0
        node = 0             # memo id of the current prefix (-1: not tracked)
        while True:
            closed = (numer + _risk_numerator(rp, rn, w)) / n + C * depth
            if _frl_should_stop(alpha_last, rp, rn, w, C, n):
                _raise_node_bound(node_lb, node, closed)
                break        # Eq. 9: closing now is optimal for this prefix
            if rng.random() < stop_prob:
                break
            if depth == 0:
                pc[:] = root_p
                qc[:] = root_q
            else:
                count_candidates(P, Q, rem_p, rem_n, active, pc, qc, False)
            incumbent = best_obj[0]
            n_cand = frl_candidates(pc, qc, active, rp, rn, last_p, last_q, numer, depth,
                                    w, C, n, lam, incumbent, cand, weight, bounds, pruned_low)
            n_cand, low = _apply_memo(cand, weight, bounds, n_cand, children, node_lb,
                                      node, n_ante, incumbent, unused_b, unused_f)
            _raise_node_bound(node_lb, node, min(closed, low, pruned_low[0]))
            sizes = _push(sizes, n_sizes, n_cand)
            n_sizes += 1
            if n_cand == 0:
                break
            l = cand[_draw(rng, weight, n_cand)]
            node = _child(children, node_count, node, l, n_ante, max_nodes)
            p = pc[l]
            q = qc[l]
            prefix[depth] = l
            depth += 1
            active[l] = False
            numer += _risk_numerator(p, q, w)
            rp -= p
            rn -= q
            last_p = p
            last_q = q
            alpha_last = p / (p + q)
            _remove_rows(rem_p, P[l])
            _remove_rows(rem_n, Q[l])
        numer += _risk_numerator(rp, rn, w)
        value = numer / n + C * depth
        if value < best_obj[0]:
            best_obj[0] = value
            best_len[0] = depth
            best_prefix[:depth] = prefix[:depth]
        obj_out[it] = value
        best_out[it] = best_obj[0]
        offsets[it + 1] = n_sizes
    return sizes[:n_sizes].copy(), offsets


@njit(cache=True)
def soft_chunk(P, Q, full_p, full_n, root_p, root_q, root_active, n_pos, n_neg,
               w, C, C1, lam, stop_prob, rng, n_iters,
               best_prefix, best_len, best_obj, obj_out, best_out,
               children, node_lb, node_count, max_nodes):
    """Run ``n_iters`` iterations of Algorithm softFRL (spec 6.2).

    Same contract as :func:`frl_chunk`; the objective is
    ``L(d) + C1 * S(d)`` and no falling constraint is imposed.
    """
    n_ante = P.shape[0]
    n = n_pos + n_neg
    rem_p = np.empty_like(full_p)
    rem_n = np.empty_like(full_n)
    active = np.empty(n_ante, dtype=np.bool_)
    pc = np.zeros(n_ante, dtype=np.int64)
    qc = np.zeros(n_ante, dtype=np.int64)
    cand = np.empty(n_ante, dtype=np.int64)
    weight = np.empty(n_ante, dtype=np.float64)
    stop_after = np.empty(n_ante, dtype=np.bool_)
    cand_pen = np.empty(n_ante, dtype=np.float64)
    bounds = np.empty(n_ante, dtype=np.float64)
    pruned_low = np.empty(1, dtype=np.float64)
    prefix = np.empty(n_ante, dtype=np.int64)
    sizes = np.empty(64, dtype=np.int32)
    offsets = np.zeros(n_iters + 1, dtype=np.int64)
    n_sizes = 0
    # Root stop test (spec D4): the same for every iteration.
    b1, gv, tm = _soft_bound_terms(1.0, n_pos, n_neg, w, C, C1, n)
    root_stop = tm <= min(b1, gv)
    for it in range(n_iters):
        rem_p[:] = full_p
        rem_n[:] = full_n
        active[:] = root_active
        rp = n_pos
        rn = n_neg
        depth = 0
        numer = 0.0
        penalty = 0.0        # S(e), in list order
        alpha_min = 1.0
        node = 0
        stopped_by_bound = False
        while True:
            if depth == 0 and root_stop:
                stopped_by_bound = True
                break
            if rng.random() < stop_prob:
                break
            if depth == 0:
                pc[:] = root_p
                qc[:] = root_q
            else:
                count_candidates(P, Q, rem_p, rem_n, active, pc, qc, True)
            incumbent = best_obj[0]
            n_cand = soft_candidates(pc, qc, active, rp, rn, alpha_min, numer, penalty,
                                     depth, w, C, C1, n, lam, incumbent, cand, weight,
                                     stop_after, cand_pen, bounds, pruned_low)
            n_cand, low = _apply_memo(cand, weight, bounds, n_cand, children, node_lb,
                                      node, n_ante, incumbent, stop_after, cand_pen)
            closed = (numer + _risk_numerator(rp, rn, w)) / n + C * depth + C1 * (
                penalty + max(rp / (rp + rn) - alpha_min, 0.0))
            _raise_node_bound(node_lb, node, min(closed, low, pruned_low[0]))
            sizes = _push(sizes, n_sizes, n_cand)
            n_sizes += 1
            if n_cand == 0:
                break
            j = _draw(rng, weight, n_cand)
            l = cand[j]
            node = _child(children, node_count, node, l, n_ante, max_nodes)
            p = pc[l]
            q = qc[l]
            prefix[depth] = l
            depth += 1
            active[l] = False
            numer += _risk_numerator(p, q, w)
            penalty += cand_pen[j]
            alpha = p / (p + q)
            if alpha < alpha_min:
                alpha_min = alpha
            rp -= p
            rn -= q
            _remove_rows(rem_p, P[l])
            _remove_rows(rem_n, Q[l])
            if stop_after[j]:
                stopped_by_bound = True
                break           # closing the new prefix attains its bound
        if rp + rn > 0:
            numer += _risk_numerator(rp, rn, w)
            alpha_else = rp / (rp + rn)
            if alpha_else > alpha_min:
                penalty += alpha_else - alpha_min
        value = numer / n + C * depth + C1 * penalty
        if stopped_by_bound:
            _raise_node_bound(node_lb, node, value)
        if value < best_obj[0]:
            best_obj[0] = value
            best_len[0] = depth
            best_prefix[:depth] = prefix[:depth]
        obj_out[it] = value
        best_out[it] = best_obj[0]
        offsets[it + 1] = n_sizes
    return sizes[:n_sizes].copy(), offsets
