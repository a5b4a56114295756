"""Compiled kernels of the Rashomon-set enumeration, over a graph of captured sets.

What a rule list does after its prefix ``P`` depends only on the samples
``u`` that ``P`` leaves uncaptured (the antecedents of ``P`` capture nothing of
``u``).  So the lists form paths in a graph whose nodes are sets ``u``: a rule
``s`` leads from ``u`` to ``u`` minus what ``s`` captures, at a cost of ``lam``
plus the mistakes of ``s`` on ``u`` (everything in sample units,
``lam = c N``); the default rule ends a path at ``u`` at the cost of its
mistakes ``D(u)``.  A list is a path from the full set; its objective is the
path's cost.  Permutations of a prefix reach the same node, so each node is
expanded once however many prefixes reach it.

1. :func:`explore` runs Dijkstra's algorithm from the full set, so a node is
   expanded with its least cost ``g(u)`` over all prefixes.  A node is expanded
   only when a strict extension could still fit under the threshold, by the
   equivalent-points lookahead bound (``g(u) + b0(u) + lam``, Angelino et al.,
   JMLR 2018, Theorem 20 and Lemma 2), and an edge is kept only when its head
   could still end a list within it.
2. :func:`cost_to_go` computes, children before parents, ``h(u)`` (least cost
   from ``u`` to the end over the explored graph) and ``h+(u)`` (the same with
   at least one more rule).  Edges the exploration dropped cannot be on a path
   within the threshold, so these values are exact for enumeration.
3. :func:`enumerate_paths` walks the graph depth-first from the full set and
   follows a rule only when ``g + cost + h+ <= threshold`` or the default rule
   ends the list within it: every step leads to at least one list, so the
   work grows with the size of the set, not with the search space.

Samples are groups of identical rows with per-class weights (bit planes), as
in the main search.  Accurate-support pruning: a rule classifying fewer than
``min_correct`` samples correctly is never followed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rulekit.corels import _kernels as kr

DONE = 0
BUDGET = 1
GROW = 2

SEEN = 1
EXPANDED = 2


def count_tables(table: np.ndarray, n_words_: int, n: int):
    """Look-up tables for weighted counts of sample groups, 8 look-ups a word per table.

    Fields: group size, the counts of classes ``0 .. C-2`` and the
    unavoidable mistakes (minority) of each group; ``fb`` bits each (sums
    of up to ``n`` samples cannot overflow), as many per int64 as fit.
    Built with the main search's :func:`rulekit.corels._problem.packed_table`.
    """
    from rulekit.corels._problem import packed_table

    totals = table.sum(axis=1)
    fields = np.column_stack([totals, table[:, :-1], totals - table.max(axis=1)])
    fb = max(1, int(n).bit_length())
    per = max(1, 63 // fb)
    tables = [packed_table(fields[:, k:k + per], fb, n_words_)
              for k in range(0, fields.shape[1], per)]
    return np.ascontiguousarray(np.stack(tables)), fb, per


@njit(cache=True, inline="always")
def table_sum(x, luts, t):
    """Packed field sums of table ``t`` over the groups whose bits are set in ``x``."""
    acc = np.int64(0)
    for w in range(x.shape[0]):
        v = x[w]
        if v == 0:
            continue
        for b in range(8):
            acc += luts[t, w, b, np.int64((v >> np.uint64(8 * b)) & np.uint64(255))]
    return acc


@njit(cache=True)
def stats(x, luts, fb, per, ccnt):
    """Weighted size and unavoidable mistakes of the groups in ``x``; class counts in ``ccnt``."""
    C = ccnt.shape[0]
    mask = (np.int64(1) << fb) - 1
    nv = 0
    bmin = 0
    rest = 0
    for t in range(luts.shape[0]):
        acc = table_sum(x, luts, t)
        for j in range(per):
            f = t * per + j
            if f > C:
                break
            value = (acc >> (fb * j)) & mask
            if f == 0:
                nv = value
            elif f == C:
                bmin = value
            else:
                ccnt[f - 1] = value
                rest += value
    ccnt[C - 1] = nv - rest
    return nv, bmin


@njit(cache=True)
def _default_mistakes(counts):
    total = 0
    top = 0
    for k in range(counts.shape[0]):
        total += counts[k]
        if counts[k] > top:
            top = counts[k]
    return total - top


@njit(cache=True)
def find(table, keys, u):
    """(slot, node id) of ``u`` in the open-addressing table; id -1 if absent."""
    mask = table.shape[0] - 1
    i = np.int64(kr.hash_words(u) & np.uint64(mask))
    while table[i] >= 0:
        node = table[i]
        same = True
        for w in range(u.shape[0]):
            if keys[node, w] != u[w]:
                same = False
                break
        if same:
            return i, node
        i = (i + 1) & mask
    return i, -1


@njit(cache=True)
def rehash(table, keys, n_nodes):
    for node in range(n_nodes):
        slot, _ = find(table, keys, keys[node])
        table[slot] = node


@njit(cache=True)
def _push(hkey, hnode, hsize, key, node):
    i = hsize[0]
    hkey[i] = key
    hnode[i] = node
    hsize[0] = i + 1
    while i > 0:
        p = (i - 1) // 2
        if hkey[p] <= hkey[i]:
            break
        hkey[p], hkey[i] = hkey[i], hkey[p]
        hnode[p], hnode[i] = hnode[i], hnode[p]
        i = p


@njit(cache=True)
def _pop(hkey, hnode, hsize):
    key = hkey[0]
    node = hnode[0]
    n = hsize[0] - 1
    hsize[0] = n
    hkey[0] = hkey[n]
    hnode[0] = hnode[n]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        c = left
        if left + 1 < n and hkey[left + 1] < hkey[left]:
            c = left + 1
        if hkey[i] <= hkey[c]:
            break
        hkey[c], hkey[i] = hkey[i], hkey[c]
        hnode[c], hnode[i] = hnode[i], hnode[c]
        i = c
    return key, node


@njit(cache=True)
def explore(data, limits, budget, graph, edges, heap, tallies, scratch):
    """Dijkstra over captured sets, up to ``budget`` expansions; returns a code.

    The arguments are the tuples :class:`~rulekit.corels._rashomon._Enumeration`
    builds (numba unpacks them at no cost; one tuple per role keeps the
    signature short): ``data = (Ap, luts, fb, per)`` the packed rules and
    count tables; ``limits = (lam, thr, tol, min_correct)``;
    ``graph = (keys, g, dflt, flag, table)`` the nodes and their hash
    table; ``edges = (e_start, e_len, e_child, e_ante, e_mist)``;
    ``heap = (hkey, hnode)``; ``tallies = (n_nodes, n_edges, hsize,
    counts)``, one-element counters and ``counts`` = [nodes expanded, edges
    scored]; ``scratch = (x, u2, ucnt, ccnt)``.

    Every node gets its least cost ``g`` and its default-rule mistakes
    ``dflt``; an expanded node records its kept edges (rule ``e_ante``,
    head ``e_child``, the rule's mistakes ``e_mist``: the edge costs ``lam``
    more) in ``e_start``/``e_len``.  Returns ``GROW`` (before popping) when
    a whole expansion might not fit in the arrays.
    """
    Ap, luts, fb, per = data
    lam, thr, tol, min_correct = limits
    keys, g, dflt, flag, table = graph
    e_start, e_len, e_child, e_ante, e_mist = edges
    hkey, hnode = heap
    n_nodes, n_edges, hsize, counts = tallies
    x, u2, ucnt, ccnt = scratch
    M = Ap.shape[0]
    W = Ap.shape[1]
    for _ in range(budget):
        if hsize[0] == 0:
            return DONE
        if (n_nodes[0] + M + 1 > keys.shape[0] or 2 * (n_nodes[0] + M + 1) > table.shape[0]
                or hsize[0] + M + 1 > hkey.shape[0] or n_edges[0] + M > e_child.shape[0]):
            return GROW
        gu, node = _pop(hkey, hnode, hsize)
        if flag[node] == EXPANDED or gu > g[node] + tol:
            continue  # already expanded, or a stale entry (a cheaper path came later)
        flag[node] = EXPANDED
        counts[0] += 1
        e_start[node] = n_edges[0]
        e_len[node] = 0
        nu, b0u = stats(keys[node], luts, fb, per, ucnt)
        if gu + b0u + lam > thr + tol:
            continue  # no list with another rule fits (lookahead bound)
        for s in range(M):
            for w in range(W):
                x[w] = keys[node, w] & Ap[s, w]
            nv, bmin = stats(x, luts, fb, per, ccnt)
            if nv == 0:
                continue  # a rule that captures nothing is not part of a model
            counts[1] += 1
            nc = 0
            for k in range(ccnt.shape[0]):
                if ccnt[k] > nc:
                    nc = ccnt[k]
            if nc < min_correct - tol:
                continue
            cost = lam + (nv - nc)
            g2 = gu + cost
            for k in range(ccnt.shape[0]):
                ccnt[k] = ucnt[k] - ccnt[k]
            end = _default_mistakes(ccnt)
            more = b0u - bmin + lam
            if g2 + min(end, more) > thr + tol:
                continue  # neither ending here nor going on fits
            for w in range(W):
                u2[w] = keys[node, w] & ~Ap[s, w]
            slot, child = find(table, keys, u2)
            if child < 0:
                child = n_nodes[0]
                n_nodes[0] = child + 1
                for w in range(W):
                    keys[child, w] = u2[w]
                table[slot] = child
                g[child] = g2
                dflt[child] = end
                flag[child] = SEEN
                _push(hkey, hnode, hsize, g2, child)
            elif g2 < g[child] - tol:
                g[child] = g2
                _push(hkey, hnode, hsize, g2, child)
            e = n_edges[0]
            e_child[e] = child
            e_ante[e] = s
            e_mist[e] = nv - nc
            n_edges[0] = e + 1
            e_len[node] += 1
    return BUDGET


@njit(cache=True)
def cost_to_go(order, lam, dflt, flag, e_start, e_len, e_child, e_mist, h, hplus):
    """``h`` and ``h+`` of every node, children before parents (``order``)."""
    for node in order:
        hplus[node] = np.inf
        if flag[node] == EXPANDED:
            for e in range(e_start[node], e_start[node] + e_len[node]):
                value = lam + e_mist[e] + h[e_child[e]]
                if value < hplus[node]:
                    hplus[node] = value
        h[node] = min(dflt[node], hplus[node])


@njit(cache=True)
def enumerate_paths(lam, thr, tol, budget, dflt, flag, e_start, e_len, e_child, e_ante, e_mist,
                    hplus, depth, path, cursor, nodes, gs, out_flat, out_off, out_obj, counts):
    """Depth-first walk of the paths within ``thr``; stores every list found.

    Level ``K`` of the stacks holds the node reached by ``path[:K]``, its
    cost ``gs[K]`` and the next of its edges to try; the state survives
    between calls.  ``counts``: [lists stored, flat entries used].  Returns
    ``GROW`` when the output arrays might not hold one more list.
    """
    K = depth[0]
    it = 0
    while it < budget:
        if K < 0:
            return DONE
        if counts[0] + 2 > out_off.shape[0] or counts[1] + K + 1 > out_flat.shape[0]:
            depth[0] = K
            return GROW
        node = nodes[K]
        e = cursor[K]
        if e >= e_start[node] + e_len[node]:
            K -= 1
            continue
        cursor[K] = e + 1
        it += 1
        child = e_child[e]
        g2 = gs[K] + lam + e_mist[e]
        path[K] = e_ante[e]
        if g2 + dflt[child] <= thr + tol:
            start = counts[1]
            for d in range(K + 1):
                out_flat[start + d] = path[d]
            counts[1] = start + K + 1
            out_obj[counts[0]] = g2 + dflt[child]
            out_off[counts[0] + 1] = counts[1]
            counts[0] += 1
        if flag[child] == EXPANDED and g2 + hplus[child] <= thr + tol:
            K += 1
            nodes[K] = child
            gs[K] = g2
            cursor[K] = e_start[child]
    depth[0] = K
    return BUDGET
