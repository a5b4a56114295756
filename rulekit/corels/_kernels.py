"""Compiled branch-and-bound loop for CORELS.

Everything here is numba code over flat arrays; the Python driver in
``_search.py`` owns the arrays, grows them when a kernel asks for it, and
turns the state into a result.  No Python object exists per search node.

Units.  All scores are in *samples*: a prefix with ``m`` misclassified
samples and ``K`` rules scores ``m + lam*K`` with ``lam = c*N``.  Two scores
closer than ``tol`` (``1e-9*N``) are treated as equal; ties are then broken by
length (shorter wins) and by the antecedent indices (lexicographically lower
wins).  Every pruning rule below only removes rule lists that are strictly
worse *in that total order* than some other rule list, so the unique minimum
is never pruned and the answer is deterministic.

State layout (see ``_search.py`` for allocation):

* ``nodes`` int32 (cap, 8): one row per prefix-tree node, columns ``C_*``.
* heap: ``hkey`` float64, ``hseq`` int64, ``hnode`` int32 (binary min-heap on
  ``(key, seq)``).
* map: ``mhash`` uint64, ``mnode`` int32 (-1 = empty), linear probing.
* ``pool`` uint64 (pcap, WM): rejected-antecedent masks of expanded nodes.
* ``S`` int64 counters (``S_*``), ``F`` float64 scalars (``F_*``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rulekit.bitset import popcount64

# node columns
C_PARENT = 0
C_ANTE = 1
C_DEPTH = 2
C_MIST = 3  # misclassified samples by the prefix rules (integer)
C_B0 = 4  # equivalent-points mistakes among samples not captured (integer)
C_REF = 5  # live children + in-queue + in-map (+1 for the root)
C_FLAGS = 6
C_REJ = 7  # pool slot of this node's rejected-antecedent mask, or -1
N_COLS = 8

FL_DELETED = 1
FL_QUEUE = 2
FL_MAP = 4

# int64 counters
S_TRIE = 0  # live nodes
S_FREE = 1  # size of the free-slot stack
S_USED = 2  # high-water mark of node rows
S_HEAP = 3
S_SEQ = 4
S_MAP = 5
S_EXPANDED = 6
S_EVALUATED = 7
S_INSERTED = 8
S_BEST_MIST = 9
S_BEST_K = 10
S_MAX_HEAP = 11
S_MAX_TRIE = 12
S_POOL_USED = 13
S_POOL_FREE = 14
S_BEST_UPDATES = 15
S_DROPPED = 16  # popped nodes discarded (stale bound or dead ancestor)
S_PR_MINSUP = 17
S_PR_MINACC = 18
S_PR_REJPROP = 19
S_PR_HIER = 20
S_PR_LOOK = 21
S_PR_PLEN = 22
S_PR_SYM = 23
S_SUPERSEDED = 24
S_MAX_MAP = 25
S_GC_RUNS = 26
S_PR_EQPTS = 27
N_S = 32

F_LAM = 0
F_TOL = 1
F_BEST = 2
N_F = 4

# configuration vector
G_N = 0
G_M = 1
G_W = 2
G_C = 3
G_POLICY = 4
G_SYM = 5
G_HIER = 6
G_LOOK = 7
G_PLEN = 8
G_MINSUP = 9
G_MINACC = 10
G_REJPROP = 11
G_EQPTS = 12
G_MAXNODES = 13
G_WM = 14
G_LUT = 15  # field width in bits when the byte lookup table is used, else 0
N_G = 16

POL_LB = 0
POL_CURIOUS = 1
POL_OBJ = 2
POL_BFS = 3
POL_DFS = 4

SYM_NONE = 0
SYM_PERM = 1
SYM_CAPTURE = 2

# kernel return codes
R_DONE = 0
R_BUDGET = 1
R_GROW_NODES = 2
R_GROW_HEAP = 3
R_GROW_MAP = 4
R_GROW_POOL = 5
R_NODE_LIMIT = 6


@njit(cache=True, inline="always")
def can_beat(score, k, best, best_k, tol):
    """Could some list scoring ``score`` with ``k`` rules beat the best one?

    Conservative on exact ties: a tie in score with ``k <= best_k`` is kept,
    because the lexicographic tie-break might still favour it.
    """
    if score < best - tol:
        return True
    return score <= best + tol and k <= best_k


@njit(cache=True)
def lexi_less(a, ka, b, kb):
    """Is prefix ``a[:ka]`` lexicographically lower than ``b[:kb]``?"""
    n = ka if ka < kb else kb
    for i in range(n):
        if a[i] != b[i]:
            return a[i] < b[i]
    return ka < kb


@njit(cache=True)
def order_less(score_a, ka, a, score_b, kb, b, tol):
    """Strict total order on (score within tol, length, indices)."""
    if score_a < score_b - tol:
        return True
    if score_a > score_b + tol:
        return False
    if ka != kb:
        return ka < kb
    return lexi_less(a, ka, b, kb)


# --- heap -------------------------------------------------------------------

@njit(cache=True, inline="always")
def _heap_less(hkey, hseq, i, j):
    if hkey[i] < hkey[j]:
        return True
    if hkey[i] > hkey[j]:
        return False
    return hseq[i] < hseq[j]


@njit(cache=True)
def _heap_swap(hkey, hseq, hnode, i, j):
    tk = hkey[i]
    hkey[i] = hkey[j]
    hkey[j] = tk
    ts = hseq[i]
    hseq[i] = hseq[j]
    hseq[j] = ts
    tn = hnode[i]
    hnode[i] = hnode[j]
    hnode[j] = tn


@njit(cache=True)
def _sift_down(hkey, hseq, hnode, i, n):
    while True:
        left = 2 * i + 1
        if left >= n:
            return
        best = left
        right = left + 1
        if right < n and _heap_less(hkey, hseq, right, left):
            best = right
        if _heap_less(hkey, hseq, best, i):
            _heap_swap(hkey, hseq, hnode, best, i)
            i = best
        else:
            return


@njit(cache=True)
def heap_push(hkey, hseq, hnode, S, key, seq, node):
    i = S[S_HEAP]
    hkey[i] = key
    hseq[i] = seq
    hnode[i] = node
    S[S_HEAP] = i + 1
    while i > 0:
        parent = (i - 1) // 2
        if _heap_less(hkey, hseq, i, parent):
            _heap_swap(hkey, hseq, hnode, i, parent)
            i = parent
        else:
            break
    if S[S_HEAP] > S[S_MAX_HEAP]:
        S[S_MAX_HEAP] = S[S_HEAP]


@njit(cache=True)
def heap_pop_top(hkey, hseq, hnode, S):
    n = S[S_HEAP] - 1
    hkey[0] = hkey[n]
    hseq[0] = hseq[n]
    hnode[0] = hnode[n]
    S[S_HEAP] = n
    _sift_down(hkey, hseq, hnode, 0, n)


@njit(cache=True)
def heapify(hkey, hseq, hnode, n):
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(hkey, hseq, hnode, i, n)


# --- prefix tree --------------------------------------------------------------

@njit(cache=True)
def release_ref(nodes, free, pool_free, S, n):
    """Drop one reference to node ``n``; free it (and childless ancestors)."""
    nodes[n, C_REF] -= 1
    while nodes[n, C_REF] == 0:
        slot = nodes[n, C_REJ]
        if slot >= 0:
            pool_free[S[S_POOL_FREE]] = slot
            S[S_POOL_FREE] += 1
            nodes[n, C_REJ] = -1
        parent = nodes[n, C_PARENT]
        nodes[n, C_FLAGS] = 0
        free[S[S_FREE]] = n
        S[S_FREE] += 1
        S[S_TRIE] -= 1
        if parent < 0:
            return
        nodes[parent, C_REF] -= 1
        n = parent


@njit(cache=True)
def alloc_node(nodes, free, S):
    if S[S_FREE] > 0:
        S[S_FREE] -= 1
        n = free[S[S_FREE]]
    else:
        n = S[S_USED]
        S[S_USED] = n + 1
    S[S_TRIE] += 1
    if S[S_TRIE] > S[S_MAX_TRIE]:
        S[S_MAX_TRIE] = S[S_TRIE]
    return n


@njit(cache=True)
def alloc_pool(pool, pool_free, S):
    if S[S_POOL_FREE] > 0:
        S[S_POOL_FREE] -= 1
        return pool_free[S[S_POOL_FREE]]
    slot = S[S_POOL_USED]
    S[S_POOL_USED] = slot + 1
    return slot


@njit(cache=True)
def node_useful(nodes, n, lam, tol, best, best_k, cfg):
    """Can extensions of node ``n`` still beat the best list (own fields only)?"""
    k = nodes[n, C_DEPTH]
    if k >= cfg[G_M]:
        return False
    lb = nodes[n, C_MIST] + nodes[n, C_B0] + lam * k
    if cfg[G_PLEN] and not can_beat(lam * (k + 1), k + 1, best, best_k, tol):
        return False
    if cfg[G_LOOK] and not can_beat(lb + lam, k + 1, best, best_k, tol):
        return False
    if cfg[G_HIER] and not can_beat(lb, k, best, best_k, tol):
        return False
    return True


@njit(cache=True)
def map_insert_raw(mhash, mnode, h, n):
    mask = mhash.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    while mnode[i] != -1:
        i = (i + 1) & mask
    mhash[i] = h
    mnode[i] = n


@njit(cache=True)
def garbage_collect(nodes, free, pool_free, hkey, hseq, hnode, mhash, mnode, S, F, cfg):
    """After the best objective dropped: purge stale queue and map entries."""
    lam = F[F_LAM]
    tol = F[F_TOL]
    best = F[F_BEST]
    best_k = S[S_BEST_K]
    S[S_GC_RUNS] += 1
    # queue
    n = S[S_HEAP]
    j = 0
    for i in range(n):
        nd = hnode[i]
        if (nodes[nd, C_FLAGS] & FL_DELETED) == 0 and node_useful(nodes, nd, lam, tol, best, best_k, cfg):
            hkey[j] = hkey[i]
            hseq[j] = hseq[i]
            hnode[j] = nd
            j += 1
        else:
            S[S_DROPPED] += 1
            nodes[nd, C_FLAGS] &= ~FL_QUEUE
            release_ref(nodes, free, pool_free, S, nd)
    S[S_HEAP] = j
    heapify(hkey, hseq, hnode, j)
    # map: collect the survivors, clear, re-insert
    if cfg[G_SYM] != SYM_NONE:
        # temporary copies, allocated only here (the best improves rarely)
        tmp_hash = np.empty(S[S_MAP], dtype=np.uint64)
        tmp_node = np.empty(S[S_MAP], dtype=np.int32)
        cnt = 0
        for i in range(mnode.shape[0]):
            nd = mnode[i]
            if nd < 0:
                continue
            mnode[i] = -1
            if node_useful(nodes, nd, lam, tol, best, best_k, cfg):
                tmp_hash[cnt] = mhash[i]
                tmp_node[cnt] = nd
                cnt += 1
            else:
                nodes[nd, C_FLAGS] &= ~FL_MAP
                release_ref(nodes, free, pool_free, S, nd)
        for i in range(cnt):
            map_insert_raw(mhash, mnode, tmp_hash[i], tmp_node[i])
        S[S_MAP] = cnt


@njit(cache=True)
def rehash(mhash, mnode, new_hash, new_node):
    for i in range(mnode.shape[0]):
        if mnode[i] >= 0:
            map_insert_raw(new_hash, new_node, mhash[i], mnode[i])


@njit(cache=True, inline="always")
def mix64(h):
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@njit(cache=True)
def hash_words(f):
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in range(f.shape[0]):
        h = mix64(h ^ f[w]) + np.uint64(w)
    return h


# --- weighted counts ------------------------------------------------------------
#
# Samples with identical antecedent rows are always captured together, so the
# driver collapses them into one bit (a "group") with a per-class weight.  A
# weight table is stored as bit planes: ``planes[w, j]`` holds bit ``j`` of the
# weight of each group in word ``w``, so a weighted count is
# ``sum_j popcount(x & planes[w, j]) << j``.  Without duplicates there is one
# plane of ones and this is a plain popcount.

@njit(cache=True, inline="always")
def wcount(x, planes, w):
    t = 0
    for j in range(planes.shape[1]):
        t += popcount64(x & planes[w, j]) << j
    return t


@njit(cache=True, inline="always")
def wcount_class(x, Y, k, w):
    t = 0
    for j in range(Y.shape[2]):
        t += popcount64(x & Y[k, w, j]) << j
    return t


# --- the search loop ------------------------------------------------------------

@njit(cache=True)
def run(A, T, Y, minority, lut, valid, zob, cfg, nodes, free, hkey, hseq, hnode,
        mhash, mnode, pool, pool_free, S, F, best_prefix, budget, ws):
    """Expand up to ``budget`` prefixes; return an ``R_*`` code.

    ``ws`` is a tuple of scratch arrays (see ``_search.py``).
    """
    path, epath, inpfx, u, fbuf, tmpw, ucnt, ccnt, pmask = ws
    M = cfg[G_M]
    W = cfg[G_W]
    C = cfg[G_C]
    WM = cfg[G_WM]
    policy = cfg[G_POLICY]
    sym = cfg[G_SYM]
    use_minsup = cfg[G_MINSUP] != 0
    use_minacc = cfg[G_MINACC] != 0
    use_rejprop = cfg[G_REJPROP] != 0
    use_eq = cfg[G_EQPTS] != 0
    use_hier = cfg[G_HIER] != 0
    use_look = cfg[G_LOOK] != 0
    use_plen = cfg[G_PLEN] != 0
    max_nodes = cfg[G_MAXNODES]
    lam = F[F_LAM]
    tol = F[F_TOL]
    N = cfg[G_N]
    fb = cfg[G_LUT]
    use_lut = fb > 0
    fmask = (np.int64(1) << fb) - 1

    for _it in range(budget):
        if S[S_HEAP] == 0:
            return R_DONE
        # room for a whole expansion, so nothing grows mid-way
        if nodes.shape[0] - S[S_USED] + S[S_FREE] < M + 1 and nodes.shape[0] < max_nodes + 1:
            return R_GROW_NODES
        if hkey.shape[0] - S[S_HEAP] < M + 1:
            return R_GROW_HEAP
        if sym != SYM_NONE and 2 * (S[S_MAP] + M + 1) > mhash.shape[0]:
            return R_GROW_MAP
        if pool.shape[0] - S[S_POOL_USED] + S[S_POOL_FREE] < 1:
            return R_GROW_POOL

        p = hnode[0]
        pkey = hkey[0]
        pseq = hseq[0]
        heap_pop_top(hkey, hseq, hnode, S)

        K = nodes[p, C_DEPTH]
        dead = False
        q = p
        for d in range(K - 1, -1, -1):
            if nodes[q, C_FLAGS] & FL_DELETED:
                dead = True
            path[d] = nodes[q, C_ANTE]
            q = nodes[q, C_PARENT]
        best = F[F_BEST]
        best_k = S[S_BEST_K]
        if dead or not node_useful(nodes, p, lam, tol, best, best_k, cfg):
            S[S_DROPPED] += 1
            nodes[p, C_FLAGS] &= ~FL_QUEUE
            release_ref(nodes, free, pool_free, S, p)
            continue

        # samples not captured by the prefix, and their class counts
        for w in range(W):
            u[w] = valid[w]
        for d in range(K):
            a = path[d]
            inpfx[a] = True
            for w in range(W):
                u[w] &= ~A[a, w]
        nu = 0
        for w in range(W):
            nu += wcount(u[w], T, w)
        for k in range(C):
            t = 0
            for w in range(W):
                t += wcount_class(u[w], Y, k, w)
            ucnt[k] = t
        umin = 0
        if use_eq:
            for w in range(W):
                umin += wcount(u[w], minority, w)
        zh = np.uint64(0)
        for d in range(K):
            zh ^= zob[path[d]]

        # rejected antecedents: inherited from the parent, extended here
        parent = nodes[p, C_PARENT]
        pslot_parent = nodes[parent, C_REJ] if parent >= 0 else -1
        if use_rejprop:
            if pslot_parent >= 0:
                for w in range(WM):
                    pmask[w] = pool[pslot_parent, w]
            else:
                for w in range(WM):
                    pmask[w] = 0
        n_rejected_here = 0

        pmist = nodes[p, C_MIST]
        n_children = 0
        aborted = False
        improved = False
        for s in range(M):
            if inpfx[s]:
                continue
            if use_rejprop and (pmask[s >> 6] >> np.uint64(s & 63)) & np.uint64(1):
                # only inherited bits can be set for s at this point
                S[S_PR_REJPROP] += 1
                continue
            # support of s in the context of the prefix (Thm min-capture)
            # one pass: support, class counts, unavoidable mistakes
            nv = 0
            bmin = 0
            if use_lut:
                # packed (total, class 0..C-2, minority) sums, 8 bits at a time
                acc = np.int64(0)
                for w in range(W):
                    x = u[w] & A[s, w]
                    if x == 0:
                        continue
                    for b in range(8):
                        acc += lut[w, b, np.int64((x >> np.uint64(8 * b)) & np.uint64(255))]
                nv = acc & fmask
                for k in range(C - 1):
                    ccnt[k] = (acc >> (fb * (k + 1))) & fmask
                bmin = (acc >> (fb * C)) & fmask
            else:
                for k in range(C - 1):
                    ccnt[k] = 0
                for w in range(W):
                    x = u[w] & A[s, w]
                    if x == 0:
                        continue
                    nv += wcount(x, T, w)
                    for k in range(C - 1):
                        ccnt[k] += wcount_class(x, Y, k, w)
                    if use_eq:
                        bmin += wcount(x, minority, w)
            if use_minsup and nv <= lam + tol:
                S[S_PR_MINSUP] += 1
                if use_rejprop:
                    pmask[s >> 6] |= np.uint64(1) << np.uint64(s & 63)
                    n_rejected_here += 1
                continue
            rest = nv
            for k in range(C - 1):
                rest -= ccnt[k]
            ccnt[C - 1] = rest
            nc = -1
            for k in range(C):
                if ccnt[k] > nc:
                    nc = ccnt[k]
            # accurate support (Thm min-capture-correct)
            if use_minacc and nc <= lam + tol:
                S[S_PR_MINACC] += 1
                if use_rejprop:
                    pmask[s >> 6] |= np.uint64(1) << np.uint64(s & 63)
                    n_rejected_here += 1
                continue
            S[S_EVALUATED] += 1
            KQ = K + 1
            mistQ = pmist + nv - nc
            dmax = -1
            for k in range(C):
                t = ucnt[k] - ccnt[k]
                if t > dmax:
                    dmax = t
            dm = (nu - nv) - dmax
            score = mistQ + dm + lam * KQ
            path[K] = s
            if order_less(score, KQ, path, F[F_BEST], S[S_BEST_K], best_prefix, tol):
                for d in range(KQ):
                    best_prefix[d] = path[d]
                S[S_BEST_MIST] = mistQ + dm
                S[S_BEST_K] = KQ
                F[F_BEST] = score
                S[S_BEST_UPDATES] += 1
                improved = True
            best = F[F_BEST]
            best_k = S[S_BEST_K]
            if KQ >= M:
                continue
            b0 = umin - bmin if use_eq else 0
            BQ = mistQ + lam * KQ
            lbQ = BQ + b0
            if use_plen and not can_beat(lam * (KQ + 1), KQ + 1, best, best_k, tol):
                S[S_PR_PLEN] += 1
                continue
            if use_hier and not can_beat(lbQ, KQ, best, best_k, tol):
                if use_eq and can_beat(BQ, KQ, best, best_k, tol):
                    S[S_PR_EQPTS] += 1
                else:
                    S[S_PR_HIER] += 1
                continue
            if use_look and not can_beat(lbQ + lam, KQ + 1, best, best_k, tol):
                if use_eq and can_beat(BQ + lam, KQ + 1, best, best_k, tol):
                    S[S_PR_EQPTS] += 1
                else:
                    S[S_PR_LOOK] += 1
                continue
            if S[S_TRIE] >= max_nodes:
                aborted = True
                break

            # symmetry-aware map
            slot = -1
            if sym != SYM_NONE:
                if sym == SYM_PERM:
                    h = zh ^ zob[s]
                else:
                    for w in range(W):
                        fbuf[w] = u[w] & ~A[s, w]
                    h = hash_words(fbuf)
                mask = mhash.shape[0] - 1
                i = np.int64(h & np.uint64(mask))
                found = -1
                while mnode[i] != -1:
                    if mhash[i] == h:
                        e = mnode[i]
                        ke = nodes[e, C_DEPTH]
                        q = e
                        for d in range(ke - 1, -1, -1):
                            epath[d] = nodes[q, C_ANTE]
                            q = nodes[q, C_PARENT]
                        same = True
                        if sym == SYM_PERM:
                            if ke != KQ:
                                same = False
                            else:
                                for d in range(ke):
                                    a = epath[d]
                                    if not (inpfx[a] or a == s):
                                        same = False
                                        break
                        else:
                            for w in range(W):
                                tmpw[w] = 0
                            for d in range(ke):
                                a = epath[d]
                                for w in range(W):
                                    tmpw[w] |= A[a, w]
                            for w in range(W):
                                if (valid[w] & ~tmpw[w]) != fbuf[w]:
                                    same = False
                                    break
                        if same:
                            found = e
                            break
                    i = (i + 1) & mask
                if found >= 0:
                    e = found
                    ke = nodes[e, C_DEPTH]
                    escore = nodes[e, C_MIST] + lam * ke
                    if not order_less(BQ, KQ, path, escore, ke, epath, tol):
                        S[S_PR_SYM] += 1
                        continue
                    # the new prefix wins: retire the old one and its subtree
                    nodes[e, C_FLAGS] |= FL_DELETED
                    nodes[e, C_FLAGS] &= ~FL_MAP
                    S[S_SUPERSEDED] += 1
                    mnode[i] = -1  # re-filled below with the same hash
                    release_ref(nodes, free, pool_free, S, e)
                    S[S_MAP] -= 1
                slot = i
                mhash[slot] = h

            n = alloc_node(nodes, free, S)
            nodes[n, C_PARENT] = p
            nodes[n, C_ANTE] = s
            nodes[n, C_DEPTH] = KQ
            nodes[n, C_MIST] = mistQ
            nodes[n, C_B0] = b0
            nodes[n, C_REF] = 1
            nodes[n, C_FLAGS] = FL_QUEUE
            nodes[n, C_REJ] = -1
            nodes[p, C_REF] += 1
            if slot >= 0:
                mnode[slot] = n
                nodes[n, C_FLAGS] |= FL_MAP
                nodes[n, C_REF] += 1
                S[S_MAP] += 1
                if S[S_MAP] > S[S_MAX_MAP]:
                    S[S_MAX_MAP] = S[S_MAP]
            if policy == POL_LB:
                key = lbQ
            elif policy == POL_CURIOUS:
                ncap = N - (nu - nv)
                key = BQ * N / ncap if ncap > 0 else np.inf
            elif policy == POL_OBJ:
                key = score
            elif policy == POL_BFS:
                key = float(KQ)
            else:
                key = -float(KQ)
            seq = S[S_SEQ]
            S[S_SEQ] = seq + 1
            heap_push(hkey, hseq, hnode, S, key, -seq if policy == POL_DFS else seq, n)
            S[S_INSERTED] += 1
            n_children += 1

        for d in range(K):
            inpfx[path[d]] = False
        if aborted:
            # keep the prefix in the queue: its subtree is not fully explored
            heap_push(hkey, hseq, hnode, S, pkey, pseq, p)
            return R_NODE_LIMIT
        S[S_EXPANDED] += 1
        # children of p inherit its rejected set
        if use_rejprop and (n_rejected_here > 0 or pslot_parent >= 0) and n_children > 0:
            slot2 = alloc_pool(pool, pool_free, S)
            for w in range(WM):
                pool[slot2, w] = pmask[w]
            nodes[p, C_REJ] = slot2
        nodes[p, C_FLAGS] &= ~FL_QUEUE
        release_ref(nodes, free, pool_free, S, p)
        if improved:
            garbage_collect(nodes, free, pool_free, hkey, hseq, hnode, mhash, mnode, S, F, cfg)
    return R_BUDGET


@njit(cache=True)
def queue_summary(nodes, hnode, S, F, cfg, depth_counts):
    """Min lower bound of what is left, and live queue entries per depth."""
    lam = F[F_LAM]
    lb = F[F_BEST]
    for j in range(depth_counts.shape[0]):
        depth_counts[j] = 0
    for i in range(S[S_HEAP]):
        nd = hnode[i]
        if nodes[nd, C_FLAGS] & FL_DELETED:
            continue
        k = nodes[nd, C_DEPTH]
        depth_counts[k] += 1
        # every list strictly extending the node scores at least this much
        v = nodes[nd, C_MIST] + nodes[nd, C_B0] + lam * (k + 1)
        if v < lb:
            lb = v
    return lb
