"""Compiled branch-and-bound loop of CORELS (numba).

The search is the one of Angelino, Larus-Stone, Alabi, Seltzer and Rudin,
"Learning Certifiably Optimal Rule Lists for Categorical Data", Journal of
Machine Learning Research 18(234), 2018 (below, "the paper"): best-first
search over prefixes (Section 4, "Implementation"), pruned by the bounds of
Section 3.  Everything here is numba code over flat arrays; the Python driver
in ``_search.py`` owns the arrays, grows them when a kernel asks for room
(within the memory budget), and turns the state into a result.  No Python
object exists per search node.

Partial expansion.  Expanding a prefix evaluates every child (each child's
rule list may become the best list), but the children that survive the
bounds are not made into tree nodes.  The parent keeps them in a shared arena
as a list of (key, lower bound, antecedent) triples, 12 bytes each, sorted by
key, and sits in the queue under the key of its next child.  When it reaches
the front, that one child is built (its counts recomputed from the parent's
uncaptured samples), checked against the symmetry-aware map and expanded at
once.  Tree nodes, queue entries and map entries therefore exist only for
expanded prefixes; memory grows with expansions, not with children.

Units.  All scores are in *samples*: a prefix with ``m`` misclassified
samples and ``K`` rules scores ``m + lam*K`` with ``lam = c*N``.  Two scores
closer than ``tol`` (``1e-9*N``) are treated as equal; ties are then broken by
length (shorter wins) and by the antecedent indices (lexicographically lower
wins).  Every pruning rule below only removes rule lists that are strictly
worse *in that total order* than some other rule list, so the unique minimum
is never pruned and the answer is deterministic.

State layout (allocation in ``_search.py``):

* ``nodes`` int32 (cap, N_COLS): one row per expanded prefix, columns ``C_*``;
  ``nlb`` float64 (cap): lower bound of the lists below the node's children
  still waiting in the arena.
* heap: ``hkey`` float64, ``hseq`` int64, ``hnode`` int32 (binary min-heap on
  ``(key, seq)``); an entry is a node whose next waiting child has that key.
* map: ``mhash`` uint64, ``mnode`` int32 (-1 = empty), linear probing.
* arena: ``dkey``, ``dlb`` float32 and ``dante`` int32, the waiting children.
* ``pool`` uint64 (pcap, WM): rejected-antecedent masks of expanded nodes.
* ``S`` int64 counters (``S_*``), ``F`` float64 scalars (``F_*``).

Extension points.  ``can_beat`` is the single pruning test (raise its
threshold to collect every list within some epsilon of the best), and the
per-child loop of ``_store_children`` is where an antecedent could be
excluded from the search.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

# node columns
C_PARENT = 0
C_ANTE = 1
C_DEPTH = 2
C_MIST = 3  # misclassified samples by the prefix rules (integer)
C_B0 = 4  # equivalent-points mistakes among samples not captured (integer)
C_REF = 5  # live children + in-queue + in-map (+1 for the root)
C_FLAGS = 6
C_REJ = 7  # pool slot of this node's rejected-antecedent mask, or -1
C_DNEXT = 8  # next waiting child in the arena
C_DEND = 9  # end of the node's waiting children in the arena
C_LABEL = 10  # label of the node's last rule
N_COLS = 11

FL_DELETED = 1
FL_QUEUE = 2
FL_MAP = 4
FL_EXPANDED = 8

# int64 counters
S_TRIE = 0  # live nodes
S_FREE = 1  # size of the free-slot stack
S_USED = 2  # high-water mark of node rows
S_HEAP = 3
S_SEQ = 4
S_MAP = 5
S_EXPANDED = 6
S_EVALUATED = 7
S_INSERTED = 8  # children stored in the arena
S_BEST_MIST = 9
S_BEST_K = 10
S_MAX_HEAP = 11
S_MAX_TRIE = 12
S_POOL_USED = 13
S_POOL_FREE = 14
S_BEST_UPDATES = 15
S_DROPPED = 16  # waiting children discarded (stale bound or dead ancestor)
S_PR_MINSUP = 17
S_PR_MINACC = 18
S_PR_REJPROP = 19
S_PR_HIER = 20
S_PR_LOOK = 21
S_PR_PLEN = 22
S_PR_SYM = 23
S_SUPERSEDED = 24
S_MAX_MAP = 25
S_PR_EQPTS = 26
S_PR_GAIN = 27
S_PR_REF = 28
S_ATOP = 29  # arena entries in use (live or garbage)
S_MAX_WAITING = 30
S_WAITING = 31  # waiting children not yet built or dropped
S_EXACT_CALLS = 32  # children checked by next_rule_excess_at_least
S_EXACT_COUNTS = 33  # sets counted by it
S_EXACT_YES = 34  # checks that answered yes (the child's bound rose)
EXACT_MAX_COUNTS = 256  # default of cfg[G_EXACT_CAP]
EXACT_SHARE = 64  # default of cfg[G_EXACT_SHARE]
N_S = 40

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
G_FB = 15  # bits per packed field
G_GAIN = 16
G_REFB = 17  # reference-guided bound on
G_NL = 18  # int64 words per packed count
G_EXACT_CAP = 19  # sets next_rule_excess_at_least may count per child
G_EXACT_SHARE = 20  # its counts per check that answered yes (the budget)
G_WORKCAP = 21  # counted sets (children evaluated + exact-check counts) allowed; 0: no cap
N_G = 22

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
R_GROW_ARENA = 7
R_WORK_LIMIT = 8

#: value columns kept per evaluated antecedent: total, class counts, minority, reference
V_TOT = 0
V_CLS = 1  # first class column; class k is V_CLS + k
#: buckets of the next-rule gain bound (see ``_gain_tables``)
N_BUCKETS = 64
#: the next-rule gain bound is built for at most this many classes
MAX_GAIN_CLASSES = 6


#: Options of a kernel that only other kernels call.  numba gives every compiled
#: function two entry points for calls from outside compiled code, one from Python
#: (unboxing each argument: for the workspace tuple, 26 arrays) and one as a C
#: function; a kernel called from kernels only needs neither, and generating them was
#: part of the cold first fit's compilation (issue 37).  Such a kernel cannot be
#: called from Python.
CALLEE = {"cache": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}


@njit(cache=True, inline="always")
def can_beat(score, k, best, best_k, tol):
    """Could some list scoring ``score`` with ``k`` rules beat the best one?

    Conservative on exact ties: a tie in score with ``k <= best_k`` is kept,
    because the lexicographic tie-break might still favour it.
    """
    if score < best - tol:
        return True
    return score <= best + tol and k <= best_k


@njit(**CALLEE)
def lexi_less(a, ka, b, kb):
    """Is prefix ``a[:ka]`` lexicographically lower than ``b[:kb]``?"""
    n = ka if ka < kb else kb
    for i in range(n):
        if a[i] != b[i]:
            return a[i] < b[i]
    return ka < kb


@njit(**CALLEE)
def order_less(score_a, ka, a, score_b, kb, b, tol):
    """Strict total order on (score within tol, length, indices)."""
    if score_a < score_b - tol:
        return True
    if score_a > score_b + tol:
        return False
    if ka != kb:
        return ka < kb
    return lexi_less(a, ka, b, kb)


@njit(cache=True, inline="always")
def f32_down(x):
    """``x`` as float32, rounded down (a stored lower bound stays valid)."""
    f = np.float32(x)
    if np.float64(f) > x:
        f = np.nextafter(f, np.float32(-np.inf))
    return f


# --- heap -------------------------------------------------------------------

@njit(cache=True, inline="always")
def _heap_less(hkey, hseq, i, j):
    if hkey[i] < hkey[j]:
        return True
    if hkey[i] > hkey[j]:
        return False
    return hseq[i] < hseq[j]


@njit(**CALLEE)
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


@njit(**CALLEE)
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


@njit(**CALLEE)
def heap_pop_top(hkey, hseq, hnode, S):
    n = S[S_HEAP] - 1
    hkey[0] = hkey[n]
    hseq[0] = hseq[n]
    hnode[0] = hnode[n]
    S[S_HEAP] = n
    _sift_down(hkey, hseq, hnode, np.int64(0), n)  # a literal 0 would be a type of its own


@njit(**CALLEE)
def heapify(hkey, hseq, hnode, n):
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(hkey, hseq, hnode, i, n)


# --- prefix tree --------------------------------------------------------------

@njit(**CALLEE)
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


@njit(**CALLEE)
def alloc_pool(pool, pool_free, S):
    if S[S_POOL_FREE] > 0:
        S[S_POOL_FREE] -= 1
        return pool_free[S[S_POOL_FREE]]
    slot = S[S_POOL_USED]
    S[S_POOL_USED] = slot + 1
    return slot


@njit(**CALLEE)
def prefix_of(nodes, n, path):
    """Write the antecedents of node ``n`` into ``path``; True if an ancestor is deleted."""
    dead = False
    q = n
    for d in range(nodes[n, C_DEPTH] - 1, -1, -1):
        if nodes[q, C_FLAGS] & FL_DELETED:
            dead = True
        path[d] = nodes[q, C_ANTE]
        q = nodes[q, C_PARENT]
    return dead


@njit(**CALLEE)
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


@njit(**CALLEE)
def waiting_useful(nodes, nlb, n, key, lam, tol, best, best_k, cfg):
    """Can a list below node ``n``'s waiting children still beat the best one?"""
    lb = key if cfg[G_POLICY] == POL_LB else nlb[n]
    return can_beat(lb, nodes[n, C_DEPTH] + 2, best, best_k, tol)


# --- symmetry-aware map ---------------------------------------------------------

@njit(**CALLEE)
def map_insert_raw(mhash, mnode, h, n):
    mask = mhash.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    while mnode[i] != -1:
        i = (i + 1) & mask
    mhash[i] = h
    mnode[i] = n


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


@njit(**CALLEE)
def map_find(A, valid, nodes, mhash, mnode, h, sym, inpfx, s, k, fbuf, epath, tmpw):
    """Slot of the map entry equivalent to the prefix (marked in ``inpfx``) + ``s``.

    Equivalent means the same antecedent set (``SYM_PERM``; ``k`` is its
    size) or the same uncaptured samples ``fbuf`` (``SYM_CAPTURE``).  Returns
    the slot holding it (its antecedents are left in ``epath``), or ``-1 - i``
    where ``i`` is the empty slot at which such an entry would go.
    """
    mask = mhash.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    W = fbuf.shape[0]
    while mnode[i] != -1:
        if mhash[i] == h:
            e = np.int64(mnode[i])  # int64 like every node id passed on (one specialization)
            ke = nodes[e, C_DEPTH]
            prefix_of(nodes, e, epath)
            same = True
            if sym == SYM_PERM:
                if ke != k:
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
                return i
        i = (i + 1) & mask
    return -1 - i


# --- packed weighted counts -------------------------------------------------------
#
# Samples with identical antecedent rows are always captured together, so the
# driver collapses them into one bit (a "group") with per-class weights.  The
# weighted sums the search needs (samples, each class but the last, the
# equivalent-points minority, the reference's mistakes) are packed as fields of
# ``fb`` bits into ``NL`` int64 words.  ``lut`` holds them in one of two forms
# (``_problem.count_table`` picks the cheaper one for the data's size):
#
# * byte table, shape (W, 8, 256*NL): ``lut[w, b, v*NL + l]`` is word ``l`` of
#   the packed sums over the groups whose bits are set in byte value ``v`` at
#   byte ``b`` of word ``w``; a set's sums cost 8*NL look-ups per word.  Fast
#   while the table stays in the core's cache (small data).
# * bit planes, shape (nd + 4, 1, L): plane ``p`` marks the groups whose field
#   value has a given bit set, so a field's sum over a set is the sum over its
#   planes of ``popcount(set & plane) << bit``.  A plane with many non-zero
#   words is stored whole (rows ``0 .. nd-1``, counted by a vectorised loop
#   over the words; row ``nd`` holds each one's destination ``l * 64 +
#   shift``: packed word ``l``, bit offset ``shift``); the high bits of the
#   weights, set in a few heavy groups only, are kept as sparse entries (rows
#   ``nd+1 .. nd+3``: word, bits, destination; the list ends at word -1).
#   Fast where the byte table no longer fits in the core's cache, and where
#   most groups weigh one sample.


@intrinsic
def popcount64(typingctx, x):
    """Set bits of a uint64 (LLVM's ``ctpop``, one instruction where the CPU has it)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, args)

    return sig, codegen


@njit(cache=True, inline="always")
def _add_word(lut, w, x, acc, NL):
    """Add the byte table's packed sums of the groups set in word ``w`` (bits ``x``) to ``acc``."""
    for b in range(8):
        v = np.int64((x >> np.uint64(8 * b)) & np.uint64(255))
        for l in range(NL):
            acc[l] += lut[w, b, v * NL + l]


@njit(**CALLEE)
def _planes_and(lut, u, a_row, buf, acc):
    """Add the packed sums over the groups of ``u & a_row``, from the bit planes, to ``acc``.

    ``u & a_row`` goes to ``buf`` first: each dense plane is then one
    branch-free loop over the words, which LLVM vectorises (popcounts of
    several words per instruction where the CPU has them); the sparse
    entries each cost one popcount.  Not inlined: the byte table's loops,
    where it is used, stay as tight as without the planes.
    """
    nd = lut.shape[0] - 4
    W = u.shape[0]
    for w in range(W):
        buf[w] = u[w] & a_row[w]
    for p in range(nd):
        c = np.uint64(0)
        for w in range(W):
            c += popcount64(buf[w] & np.uint64(lut[p, 0, w]))
        d = lut[nd, 0, p]
        acc[d >> 6] += np.int64(c) << (d & 63)
    j = 0
    while lut[nd + 1, 0, j] >= 0:
        d = lut[nd + 3, 0, j]
        x = buf[lut[nd + 1, 0, j]] & np.uint64(lut[nd + 2, 0, j])
        acc[d >> 6] += np.int64(popcount64(x)) << (d & 63)
        j += 1


@njit(cache=True, inline="always")
def count_and(lut, u, a_row, acc, NL, buf):
    """Packed sums over the groups of ``u & a_row`` (``buf``: scratch words)."""
    for l in range(NL):
        acc[l] = 0
    if lut.shape[1] != 8:
        _planes_and(lut, u, a_row, buf, acc)
        return
    for w in range(u.shape[0]):
        x = u[w] & a_row[w]
        if x != 0:
            _add_word(lut, w, x, acc, NL)


@njit(cache=True, inline="always")
def count_set(lut, x_words, acc, NL, buf):
    """Packed sums over the groups of the bit set ``x_words`` (``x & x``) into ``acc``."""
    count_and(lut, x_words, x_words, acc, NL, buf)


@njit(cache=True, inline="always")
def sum_and_one_word(lut, u, a_row, W, buf, acc):
    """:func:`count_and` for ``NL = 1`` over the first ``W`` words, as a scalar.

    It is the search's innermost loop on small data; a scalar sum keeps it
    as fast as before the bit planes existed.
    """
    if lut.shape[1] != 8:
        acc[0] = 0
        _planes_and(lut, u, a_row, buf, acc)
        return acc[0]
    a0 = np.int64(0)
    for w in range(W):
        x = u[w] & a_row[w]
        if x != 0:
            for b in range(8):
                a0 += lut[w, b, np.int64((x >> np.uint64(8 * b)) & np.uint64(255))]
    return a0


@njit(cache=True, inline="always")
def unpack_counts(acc, fb, C, use_ref, out):
    """Fields of ``acc`` into ``out``: total, C class counts, minority, reference."""
    per = 63 // fb
    fmask = (np.int64(1) << fb) - 1
    nf = C + 2 if use_ref else C + 1  # total, C-1 classes, minority, (reference)
    last = 0
    for f in range(nf):
        word = f // per
        shift = fb * (f % per)
        val = (acc[word] >> shift) & fmask
        if f == 0:
            out[V_TOT] = val
            last = val
        elif f < C:
            out[V_CLS + f - 1] = val
            last -= val
        elif f == C:
            out[V_CLS + C] = val  # minority
        else:
            out[V_CLS + C + 1] = val  # reference mistakes
    out[V_CLS + C - 1] = last
    if not use_ref:
        out[V_CLS + C + 1] = 0


# --- the next-rule gain bound -----------------------------------------------------
#
# For a set X of samples and a class d, M_d(X) = sum over the groups of X of
# (majority count - count of d): the mistakes that labelling all of X with d
# makes beyond the equivalent-points minimum.  A rule t (label l) followed by
# the default d leaves, on the uncaptured samples U of a prefix, excess
# M_d(U) - gain with gain = (count_l - count_d)(U & t) (the default's excess
# is cut by what t relabels).  For a child U' = U \ s,
#     (count_l - count_d)(U' & t) <= (count_l - count_d)(U & t) + min(M_l(U & t), M_l(U & s)),
# because the samples of U & t & s that t no longer sees can have held at most
# M_l of that set more d's than l's.  Every term is known when U is expanded,
# so each child gets, for free, a lower bound on the excess of its best
# one-rule completion.  ``_gain_tables`` buckets the antecedents by
# M_l(U & t) so that the maximum over t costs O(1) per child.

@njit(**CALLEE)
def _gain_tables(tv, tlist, nt, C, gpre, gsuf, gtop):
    """Bucket maxima of the gain terms over the evaluated antecedents.

    For each pair (l, d), with a_t = (count_l - count_d)(U & t) and
    m_t = M_l(U & t), bucket ``q`` of ``[0, gtop[l]]`` holds t with
    ``m_t`` in it; ``gpre[l, d, q]`` is the max of ``a_t + m_t`` over buckets
    ``<= q`` and ``gsuf[l, d, q]`` the max of ``a_t`` over buckets ``>= q``.
    """
    MIN = V_CLS + C
    for l in range(C):
        top = 0
        for i in range(nt):
            t = tlist[i]
            m = tv[t, V_TOT] - tv[t, MIN] - tv[t, V_CLS + l]
            if m > top:
                top = m
        gtop[l] = top
        for d in range(C):
            for q in range(N_BUCKETS):
                gpre[l, d, q] = -np.inf
                gsuf[l, d, q] = -np.inf
        for i in range(nt):
            t = tlist[i]
            m = tv[t, V_TOT] - tv[t, MIN] - tv[t, V_CLS + l]
            q = _bucket(m, top)
            for d in range(C):
                if d == l:
                    continue
                a = np.float64(tv[t, V_CLS + l] - tv[t, V_CLS + d])
                if a + m > gpre[l, d, q]:
                    gpre[l, d, q] = a + m
                if a > gsuf[l, d, q]:
                    gsuf[l, d, q] = a
        for d in range(C):
            for q in range(1, N_BUCKETS):
                if gpre[l, d, q - 1] > gpre[l, d, q]:
                    gpre[l, d, q] = gpre[l, d, q - 1]
            for q in range(N_BUCKETS - 2, -1, -1):
                if gsuf[l, d, q + 1] > gsuf[l, d, q]:
                    gsuf[l, d, q] = gsuf[l, d, q + 1]


@njit(cache=True, inline="always")
def _bucket(m, top):
    if top <= 0:
        return 0
    q = (m * N_BUCKETS) // (top + 1)
    return q if q < N_BUCKETS else N_BUCKETS - 1


@njit(**CALLEE)
def next_rule_excess(tv, s, C, umd, gpre, gsuf, gtop):
    """Lower bound on the excess of the best one-rule completion of U \\ s.

    ``umd[d]`` is M_d(U).  Buckets below the one of ``m_s`` count exactly;
    its own bucket and those above use ``a_t + m_s``, an upper bound there.
    """
    MIN = V_CLS + C
    best = np.inf
    for d in range(C):
        md = umd[d] - (tv[s, V_TOT] - tv[s, MIN] - tv[s, V_CLS + d])  # M_d(U \ s)
        if md <= 0:
            return 0.0
        g = 0.0
        for l in range(C):
            if l == d:
                continue
            ms = tv[s, V_TOT] - tv[s, MIN] - tv[s, V_CLS + l]
            q = _bucket(ms, gtop[l])
            if q > 0 and gpre[l, d, q - 1] > g:
                g = gpre[l, d, q - 1]
            v = gsuf[l, d, q] + ms
            if v > g:
                g = v
        e = md - g
        if e < best:
            best = e
    return best if best > 0 else 0.0


@njit(**CALLEE)
def _gain_order(tv, tlist, nt, C, gord, gkey):
    """``gord[d, :nt]``: the evaluated antecedents by decreasing bucket of M_d(U & t).

    A counting sort into ``N_BUCKETS`` buckets (no allocation); ``gkey[d, i]``
    is the upper edge of the bucket of ``gord[d, i]``, a cap on M_d(U & t)
    for it and every later antecedent.
    """
    MIN = V_CLS + C
    counts = np.zeros(N_BUCKETS + 1, dtype=np.int64)
    for d in range(C):
        top = 0
        for i in range(nt):
            t = tlist[i]
            v = tv[t, V_TOT] - tv[t, MIN] - tv[t, V_CLS + d]
            if v > top:
                top = v
        for q in range(N_BUCKETS + 1):  # a loop, not counts[:] = 0 (a slice compiles more)
            counts[q] = 0
        for i in range(nt):
            t = tlist[i]
            counts[N_BUCKETS - 1 - _bucket(tv[t, V_TOT] - tv[t, MIN] - tv[t, V_CLS + d], top)] += 1
        start = 0
        for q in range(N_BUCKETS):  # q = 0 is the highest bucket
            c = counts[q]
            counts[q] = start
            start += c
        for i in range(nt):
            t = tlist[i]
            q = N_BUCKETS - 1 - _bucket(tv[t, V_TOT] - tv[t, MIN] - tv[t, V_CLS + d], top)
            j = counts[q]
            gord[d, j] = t
            # bucket b holds values up to ((b + 1) * (top + 1) - 1) // N_BUCKETS
            gkey[d, j] = ((N_BUCKETS - q) * (top + 1) - 1) // N_BUCKETS
            counts[q] = j + 1


@njit(**CALLEE)
def next_rule_excess_at_least(A, lut, cfg, S, u, s, tv, gord, gkey, nt, umd, target, ubuf, acc,
                              row, xbuf):
    """Is the excess of every one-rule completion of U \\ s at least ``target``?

    Called only when the bucketed bound cannot prune a child that only a
    one-rule completion could keep alive.  For each default class d, the
    antecedents whose gain bound (:func:`next_rule_excess`'s, plus
    ``(count_d - count_l)(U & s) + M_d(U \\ t)``, the most that the samples
    of ``U & s`` outside ``t`` can change) could bring the excess below
    ``target`` are counted exactly on ``U \\ s``; the first that does
    answers no.  ``gord[d]`` lists the antecedents by decreasing bucket of
    M_d(U & t), which caps every gain of t; ``gkey[d]`` holds those caps
    (see :func:`_gain_order`).

    At most ``cfg[G_EXACT_CAP]`` sets (default :data:`EXACT_MAX_COUNTS`)
    are counted per call, and over the whole search at most
    ``cfg[G_EXACT_SHARE]`` (:data:`EXACT_SHARE`) per check that answered
    yes, beyond a first ``cfg[G_EXACT_CAP]``; past either the answer is no
    (the child is kept, which is always sound).  Without the cap the check
    is quadratic in the antecedents: on FICO (45,379 antecedents) it took
    360 of 363 search CPU s for 38 expansions.  The budget follows what the
    check earns: on compas it answers yes after about 2-10 sets and is never
    cut; on FICO with a reference it never answers yes, and spending 256
    sets on each child made the search 4 times slower there.  Counted, not
    timed, so the search stays the same on any machine.
    """
    C = cfg[G_C]
    MIN = V_CLS + C
    W = cfg[G_W]
    S[S_EXACT_CALLS] += 1
    counted = 0
    for w in range(W):
        ubuf[w] = u[w] & ~A[s, w]
    for d in range(C):
        md_s = tv[s, V_TOT] - tv[s, MIN] - tv[s, V_CLS + d]  # M_d(U & s)
        md = umd[d] - md_s  # M_d(U \\ s): the default d alone
        if md < target:
            return False
        cap = md - target  # a gain above this brings the excess below target
        for i in range(nt):
            if gkey[d, i] <= cap:
                break  # the gain of this and every later antecedent is at most gkey
            t = gord[d, i]
            mdt = tv[t, V_TOT] - tv[t, MIN] - tv[t, V_CLS + d]
            if t == s or mdt <= cap:
                continue
            ub = 0.0
            for l in range(C):
                if l == d:
                    continue
                a = tv[t, V_CLS + l] - tv[t, V_CLS + d]
                ml = tv[t, V_TOT] - tv[t, MIN] - tv[t, V_CLS + l]
                ml_s = tv[s, V_TOT] - tv[s, MIN] - tv[s, V_CLS + l]
                delta_s = tv[s, V_CLS + d] - tv[s, V_CLS + l]
                # min(ml, ml_s, delta_s + min(md_s, umd[d] - mdt)), written out: numba's
                # min and max compile a generic routine per argument types (issue 37)
                rest = umd[d] - mdt
                shift = delta_s + (md_s if md_s < rest else rest)
                if ml_s < shift:
                    shift = ml_s
                if ml < shift:
                    shift = ml
                if a + shift > ub:
                    ub = a + shift
            if ub <= cap:
                continue
            if counted == cfg[G_EXACT_CAP] or (
                    S[S_EXACT_COUNTS] >= S[S_EXACT_YES] * cfg[G_EXACT_SHARE] + cfg[G_EXACT_CAP]):
                return False
            counted += 1
            S[S_EXACT_COUNTS] += 1
            count_and(lut, ubuf, A[t], acc, cfg[G_NL], xbuf)
            unpack_counts(acc, cfg[G_FB], C, cfg[G_REFB] != 0, row)
            for l in range(C):
                if l != d and row[V_CLS + l] - row[V_CLS + d] > cap:
                    return False
    S[S_EXACT_YES] += 1
    return True


# --- the event log (trace="events") ----------------------------------------------
#
# Recording is opt-in: the kernels below take a last argument ``ev`` that is None
# for an ordinary search.  Numba compiles one specialization per argument type;
# with ``ev`` typed None every ``if ev is not None:`` block is removed at compile
# time, so the machine code of a search that does not record is that of the
# kernel without the log.  A recording search passes ``ev = (evi, evf, evp, evn)``:
# ``evi`` int32 (cap, 4) = kind, reason (an ``S_PR_*`` index for prunes), offset
# and length of the event's prefix in ``evp`` (int32 antecedents); ``evf`` float64
# (cap) the event's value in samples; ``evn`` int64: events used, prefix words
# used, events lost because a buffer was full.
EV_EXPAND = 0  # a prefix expanded; value: its lower bound (mistakes + lam*K + b0)
EV_PRUNE = 1  # a child prefix pruned; reason S_PR_*; value: the bound that failed
EV_BEST = 2  # a new best list (incumbent); value: its objective


@njit(**CALLEE)
def record_event(ev, kind, reason, path, K, s, value):
    """Append one event whose prefix is ``path[:K]`` (+ ``s`` when ``s >= 0``)."""
    evi, evf, evp, evn = ev
    i = evn[0]
    o = evn[1]
    L = K + 1 if s >= 0 else K
    if i >= evi.shape[0] or o + L > evp.shape[0]:
        evn[2] += 1
        return
    evi[i, 0] = kind
    evi[i, 1] = reason
    evi[i, 2] = o
    evi[i, 3] = L
    evf[i] = value
    for d in range(K):
        evp[o + d] = path[d]
    if s >= 0:
        evp[o + K] = s
    evn[0] = i + 1
    evn[1] = o + L


@njit(**CALLEE)
def _cheap_reason(cfg, lam, tol, best, best_k, BQ, lbQ, KQ):
    """The counter :func:`_cheap_bounds` incremented for a pruned child, and the bound."""
    use_eq = cfg[G_EQPTS] != 0
    if cfg[G_PLEN] and not can_beat(lam * (KQ + 1), KQ + 1, best, best_k, tol):
        return S_PR_PLEN, lam * (KQ + 1)
    if cfg[G_HIER] and not can_beat(lbQ, KQ, best, best_k, tol):
        return (S_PR_EQPTS if use_eq and can_beat(BQ, KQ, best, best_k, tol)
                else S_PR_HIER), lbQ
    return (S_PR_EQPTS if use_eq and can_beat(BQ + lam, KQ + 1, best, best_k, tol)
            else S_PR_LOOK), lbQ + lam


# --- expansion ------------------------------------------------------------------

@njit(cache=True, inline="always")
def _cheap_bounds(cfg, S, lam, tol, best, best_k, BQ, lbQ, KQ):
    """Prefix-length, hierarchical and lookahead bounds of a child; counts what they prune.

    Returns the child's bound for its extensions (0 when it is pruned).
    """
    use_eq = cfg[G_EQPTS] != 0
    if cfg[G_PLEN] and not can_beat(lam * (KQ + 1), KQ + 1, best, best_k, tol):
        S[S_PR_PLEN] += 1
        return -1.0
    if cfg[G_HIER] and not can_beat(lbQ, KQ, best, best_k, tol):
        S[S_PR_EQPTS if use_eq and can_beat(BQ, KQ, best, best_k, tol) else S_PR_HIER] += 1
        return -1.0
    if cfg[G_LOOK]:
        if not can_beat(lbQ + lam, KQ + 1, best, best_k, tol):
            S[S_PR_EQPTS if use_eq and can_beat(BQ + lam, KQ + 1, best, best_k, tol)
              else S_PR_LOOK] += 1
            return -1.0
        return lbQ + lam
    return lbQ


@njit(**CALLEE)
def _evaluate_children(A, lut, cfg, S, F, best_prefix, ws, K, pmist, pslot_parent, pool,
                       ev=None):
    """Evaluate every child of the prefix in ``ws`` (path, inpfx, u set).

    One long loop on purpose: it is the innermost loop of the search (every
    child of every expansion), and splitting it into calls per child costs
    measurable speed in numba.

    Updates the best list, applies the support bounds and rejection
    propagation, keeps each evaluated antecedent's counts in ``tv`` (listed in
    ``tlist``), and lists in ``clist`` the children that pass the cheap bounds.
    Returns (number evaluated, candidates, rejected here, best improved).
    """
    path, epath, inpfx, u, fbuf, tmpw, acc, pmask, tv, tlist, ucnt = ws[:11]
    clist = ws[19]
    tpk = ws[20]
    xbuf = ws[25]
    M = cfg[G_M]
    C = cfg[G_C]
    WM = cfg[G_WM]
    use_eq = cfg[G_EQPTS] != 0
    extendable = K + 1 < M
    NL = cfg[G_NL]
    fb = cfg[G_FB]
    fmask = (np.int64(1) << fb) - 1
    W = cfg[G_W]
    use_minsup = cfg[G_MINSUP] != 0
    use_minacc = cfg[G_MINACC] != 0
    use_rejprop = cfg[G_REJPROP] != 0
    use_ref = cfg[G_REFB] != 0
    lam = F[F_LAM]
    tol = F[F_TOL]
    if use_rejprop:
        for w in range(WM):
            if pslot_parent >= 0:
                pmask[w] = pool[pslot_parent, w]
            else:
                pmask[w] = np.uint64(0)
    n_rejected = 0
    nt = 0
    ncand = 0
    improved = False
    KQ = K + 1
    for s in range(M):
        if inpfx[s]:
            continue
        if use_rejprop and (pmask[s >> 6] >> np.uint64(s & 63)) & np.uint64(1):
            S[S_PR_REJPROP] += 1  # only inherited bits can be set for s here
            if ev is not None:
                record_event(ev, EV_PRUNE, S_PR_REJPROP, path, K, s, 0.0)
            continue
        if NL == 1:
            # the common case, one packed word: a scalar sum, fields read on demand
            a0 = sum_and_one_word(lut, u, A[s], W, xbuf, acc)
            nv = a0 & fmask
        else:
            count_and(lut, u, A[s], acc, NL, xbuf)
            unpack_counts(acc, fb, C, use_ref, tv[s])
            nv = tv[s, V_TOT]
        # support of s in the context of the prefix (Thm "Lower bound on antecedent support")
        if use_minsup and nv <= lam + tol:
            S[S_PR_MINSUP] += 1
            if ev is not None:
                record_event(ev, EV_PRUNE, S_PR_MINSUP, path, K, s, float(nv))
            if use_rejprop:
                pmask[s >> 6] |= np.uint64(1) << np.uint64(s & 63)
                n_rejected += 1
            continue
        nc = 0
        dmax = -1
        if NL == 1:
            last = nv
            for k in range(C):
                if k < C - 1:
                    ck = (a0 >> (fb * (k + 1))) & fmask
                    last -= ck
                else:
                    ck = last
                if ck > nc:
                    nc = ck
                if ucnt[k] - ck > dmax:
                    dmax = ucnt[k] - ck
            bmin = (a0 >> (fb * C)) & fmask
        else:
            for k in range(C):
                ck = tv[s, V_CLS + k]
                if ck > nc:
                    nc = ck
                if ucnt[k] - ck > dmax:
                    dmax = ucnt[k] - ck
            bmin = tv[s, V_CLS + C]
        # Thm "Lower bound on accurate antecedent support"
        if use_minacc and nc <= lam + tol:
            S[S_PR_MINACC] += 1
            if ev is not None:
                record_event(ev, EV_PRUNE, S_PR_MINACC, path, K, s, float(nc))
            if use_rejprop:
                pmask[s >> 6] |= np.uint64(1) << np.uint64(s & 63)
                n_rejected += 1
            continue
        S[S_EVALUATED] += 1
        tlist[nt] = s
        nt += 1
        if NL == 1:
            tpk[s] = a0  # unpacked below, only if some child is kept
        mist = pmist + nv - nc + (ucnt[C] - nv) - dmax  # rules + default
        score = mist + lam * KQ
        path[K] = s
        if order_less(score, KQ, path, F[F_BEST], S[S_BEST_K], best_prefix, tol):
            for d in range(KQ):
                best_prefix[d] = path[d]
            S[S_BEST_MIST] = mist
            S[S_BEST_K] = KQ
            F[F_BEST] = score
            S[S_BEST_UPDATES] += 1
            improved = True
            if ev is not None:
                record_event(ev, EV_BEST, 0, path, KQ, -1, score)
        if extendable:
            # the cheap bounds now, with the best so far (it only gets lower)
            BQ = pmist + nv - nc + lam * KQ
            lbQ = BQ + (ucnt[C + 1] - bmin if use_eq else 0)
            if _cheap_bounds(cfg, S, lam, tol, F[F_BEST], S[S_BEST_K], BQ, lbQ, KQ) >= 0:
                clist[ncand] = s
                ncand += 1
            elif ev is not None:
                why, v = _cheap_reason(cfg, lam, tol, F[F_BEST], S[S_BEST_K], BQ, lbQ, KQ)
                record_event(ev, EV_PRUNE, why, path, K, s, v)
    if NL == 1 and ncand > 0:
        for i in range(nt):
            t = tlist[i]
            a0 = tpk[t]
            tv[t, V_TOT] = a0 & fmask
            last = a0 & fmask
            for k in range(C - 1):
                ck = (a0 >> (fb * (k + 1))) & fmask
                tv[t, V_CLS + k] = ck
                last -= ck
            tv[t, V_CLS + C - 1] = last
            tv[t, V_CLS + C] = (a0 >> (fb * C)) & fmask
            tv[t, V_CLS + C + 1] = (a0 >> (fb * (C + 1))) & fmask if use_ref else 0
    return nt, ncand, n_rejected, improved


@njit(**CALLEE)
def _child_key(policy, N, BQ, lb, score, KQ, ncap):
    if policy == POL_LB:
        return lb
    if policy == POL_CURIOUS:
        return BQ * N / ncap if ncap > 0 else np.inf
    if policy == POL_OBJ:
        return score
    if policy == POL_BFS:
        return float(KQ)
    return -float(KQ)


@njit(**CALLEE)
def _store_children(A, lut, valid, zob, cfg, nodes, mhash, mnode, S, F, ws, K, pmist, nt, ncand,
                    zh, last, last_label, ev=None):
    """Bound the candidate children; collect the survivors (key, bound, antecedent).

    The symmetry-aware map is consulted when a child is built, not here: an
    equivalent prefix is rarely expanded before its siblings are stored.  Here,
    with a map in use, a child whose rule ``s`` could swap places with the
    prefix's last rule ``r > s`` is dropped: when both rules may carry the
    same label, or capture disjoint samples, the swapped prefix leaves the
    same samples uncaptured, scores no worse and is lexicographically lower
    (the same argument as the paper's Section 3.11, "Permutation Bound").
    Not with a reference model: the swapped prefix leaves other samples after
    its first rule, where the reference's bound may cut it.
    ``last`` is ``r`` (-1 for the root) and ``capw`` holds what ``r`` captures.

    Returns the number of survivors, left in ``skey``, ``slb``, ``sante``.

    Long on purpose: one pass over the candidates applies every bound in turn
    to values computed once per child; split into per-bound helpers, numba
    would pass (or recompute) that state per call in the search's hot loop.
    """
    (path, epath, inpfx, u, fbuf, tmpw, acc, pmask, tv, tlist, ucnt,
     skey, slb, sante, gpre, gsuf, gtop, umd) = ws[:18]
    clist = ws[19]
    capw = ws[21]
    M = cfg[G_M]
    C = cfg[G_C]
    N = cfg[G_N]
    W = cfg[G_W]
    sym = cfg[G_SYM]
    use_eq = cfg[G_EQPTS] != 0
    use_gain = cfg[G_GAIN] != 0 and C <= MAX_GAIN_CLASSES
    use_ref = cfg[G_REFB] != 0
    lam = F[F_LAM]
    tol = F[F_TOL]
    best = F[F_BEST]
    best_k = S[S_BEST_K]
    KQ = K + 1
    if KQ >= M or ncand == 0:
        return 0
    MIN = V_CLS + C
    umin = ucnt[C + 1]
    uref = ucnt[C + 2]
    gord, gkey = ws[23], ws[24]
    ordered = False
    if use_gain:
        _gain_tables(tv, tlist, nt, C, gpre, gsuf, gtop)
        for d in range(C):
            umd[d] = ucnt[C] - umin - ucnt[d]
    ns = 0
    for i in range(ncand):
        s = clist[i]
        nv = tv[s, V_TOT]
        nc = 0
        for k in range(C):
            if tv[s, V_CLS + k] > nc:
                nc = tv[s, V_CLS + k]
        mistQ = pmist + nv - nc
        b0 = umin - tv[s, MIN] if use_eq else 0
        BQ = mistQ + lam * KQ
        lbQ = BQ + b0
        ext = _cheap_bounds(cfg, S, lam, tol, best, best_k, BQ, lbQ, KQ)
        if ext < 0:
            if ev is not None:
                why, v = _cheap_reason(cfg, lam, tol, best, best_k, BQ, lbQ, KQ)
                record_event(ev, EV_PRUNE, why, path, K, s, v)
            continue
        if s < last and sym != SYM_NONE and not use_ref:
            swap = tv[s, V_CLS + last_label] == nc
            if not swap:
                swap = True
                for w in range(W):
                    if capw[w] & A[s, w]:
                        swap = False
                        break
            if swap:
                S[S_PR_SYM] += 1
                if ev is not None:
                    record_event(ev, EV_PRUNE, S_PR_SYM, path, K, s, lbQ)
                continue
        if use_gain:
            e1 = next_rule_excess(tv, s, C, umd, gpre, gsuf, gtop)
            if (can_beat(lbQ + lam + e1, KQ + 1, best, best_k, tol)
                    and not can_beat(lbQ + 2 * lam, KQ + 1, best, best_k, tol)):
                # only a one-rule completion could still win: can it, exactly?
                # (the excess is an integer; target just past what can_beat keeps)
                target = (best + tol if KQ + 1 <= best_k else best - tol) - lbQ - lam
                target = np.floor(target) + 1.0 if KQ + 1 <= best_k else np.ceil(target)
                if not ordered:
                    _gain_order(tv, tlist, nt, C, gord, gkey)
                    ordered = True
                if next_rule_excess_at_least(A, lut, cfg, S, u, s, tv, gord, gkey, nt, umd,
                                             target, fbuf, acc, ws[22], ws[25]):
                    if target > e1:
                        e1 = target
            # lbQ + min(lam + e1, 2 lam), written out (numba's min: see next_rule_excess_at_least)
            v = lbQ + (lam + e1 if lam + e1 < 2 * lam else 2 * lam)
            if not can_beat(v, KQ + 1, best, best_k, tol):
                S[S_PR_GAIN] += 1
                if ev is not None:
                    record_event(ev, EV_PRUNE, S_PR_GAIN, path, K, s, v)
                continue
            if v > ext:
                ext = v
        if use_ref:
            v = BQ + lam + (uref - tv[s, MIN + 1])
            if not can_beat(v, KQ + 1, best, best_k, tol):
                S[S_PR_REF] += 1
                if ev is not None:
                    record_event(ev, EV_PRUNE, S_PR_REF, path, K, s, v)
                continue
            if v > ext:
                ext = v
        dm = (ucnt[C] - nv) - _max_rest(ucnt, tv, s, C)
        skey[ns] = _child_key(cfg[G_POLICY], N, BQ, ext, mistQ + dm + lam * KQ, KQ,
                              N - (ucnt[C] - nv))
        slb[ns] = ext
        sante[ns] = s
        ns += 1
    return ns


@njit(cache=True, inline="always")
def _max_rest(ucnt, tv, s, C):
    dmax = -1
    for k in range(C):
        r = ucnt[k] - tv[s, V_CLS + k]
        if r > dmax:
            dmax = r
    return dmax


@njit(cache=True, inline="always")
def expand(A, lut, valid, zob, cfg, st, S, F, best_prefix, ws, c, ready, ev=None):
    """Expand node ``c``: evaluate its children, store the survivors, queue it.

    ``ready``: ``path``, ``inpfx`` and ``u`` already describe ``c`` (as
    :func:`build_child` leaves them).  Returns True when the best list improved.
    """
    nodes, nlb, free, hkey, hseq, hnode, mhash, mnode, pool, pool_free, dkey, dlb, dante = st
    (path, epath, inpfx, u, fbuf, tmpw, acc, pmask, tv, tlist, ucnt,
     skey, slb, sante) = ws[:14]
    C = cfg[G_C]
    W = cfg[G_W]
    WM = cfg[G_WM]
    K = nodes[c, C_DEPTH]
    zh = np.uint64(0)
    if ready:
        for d in range(K):
            zh ^= zob[path[d]]
    else:
        prefix_of(nodes, c, path)
        for w in range(W):
            u[w] = valid[w]
        for d in range(K):
            a = path[d]
            inpfx[a] = True
            zh ^= zob[a]
            for w in range(W):
                u[w] &= ~A[a, w]
    # totals of the uncaptured samples: classes, all, minority, reference
    count_set(lut, u, acc, cfg[G_NL], ws[25])
    unpack_counts(acc, cfg[G_FB], C, cfg[G_REFB] != 0, tv[A.shape[0]])
    for k in range(C):
        ucnt[k] = tv[A.shape[0], V_CLS + k]
    ucnt[C] = tv[A.shape[0], V_TOT]
    ucnt[C + 1] = tv[A.shape[0], V_CLS + C]
    ucnt[C + 2] = tv[A.shape[0], V_CLS + C + 1]
    nodes[c, C_B0] = ucnt[C + 1] if cfg[G_EQPTS] else 0

    parent = nodes[c, C_PARENT]
    pslot_parent = nodes[parent, C_REJ] if parent >= 0 else -1
    pmist = nodes[c, C_MIST]
    if ev is not None:
        record_event(ev, EV_EXPAND, 0, path, K, -1, pmist + F[F_LAM] * K + nodes[c, C_B0])
    nt, ncand, n_rejected, improved = _evaluate_children(A, lut, cfg, S, F, best_prefix, ws, K,
                                                         pmist, pslot_parent, pool, ev)
    last = path[K - 1] if ready and K > 0 else -1
    ns = _store_children(A, lut, valid, zob, cfg, nodes, mhash, mnode, S, F, ws, K, pmist, nt,
                         ncand, zh, last, nodes[c, C_LABEL], ev)
    for d in range(K):
        inpfx[path[d]] = False
    S[S_EXPANDED] += 1
    nodes[c, C_FLAGS] |= FL_EXPANDED
    if ns == 0:
        return improved
    order = ws[18]
    _sort_survivors(skey, ns, order)
    top = S[S_ATOP]
    low = np.inf
    for i in range(ns):
        j = order[i]
        dkey[top + i] = f32_down(skey[j])
        dlb[top + i] = f32_down(slb[j])
        dante[top + i] = sante[j]
        if slb[j] < low:
            low = slb[j]
    nodes[c, C_DNEXT] = top
    nodes[c, C_DEND] = top + ns
    S[S_ATOP] = top + ns
    S[S_INSERTED] += ns
    S[S_WAITING] += ns
    if S[S_WAITING] > S[S_MAX_WAITING]:
        S[S_MAX_WAITING] = S[S_WAITING]
    nlb[c] = f32_down(low)
    # children inherit the rejected set of their parent
    if cfg[G_REJPROP] and (n_rejected > 0 or pslot_parent >= 0):
        slot = alloc_pool(pool, pool_free, S)
        for w in range(WM):
            pool[slot, w] = pmask[w]
        nodes[c, C_REJ] = slot
    _queue(nodes, hkey, hseq, hnode, S, cfg, c, np.float64(dkey[top]))
    return improved


@njit(**CALLEE)
def _sort_survivors(skey, ns, order):
    """``order[:ns]``: survivors by key, ties by antecedent (their original order)."""
    if ns > 48:
        stable_argsort(skey, ns, order, np.empty(ns, dtype=np.int64))
        return
    for i in range(ns):  # stable insertion sort: no allocation for the usual few
        j = i
        while j > 0 and skey[order[j - 1]] > skey[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@njit(cache=True)
def stable_argsort(keys, n, order, tmp):
    """``order[:n]``: ``0 .. n-1`` by ``keys``, ties in index order (``tmp``: n scratch slots).

    The permutation of ``np.argsort(keys[:n], kind="stable")``, written out: numpy's
    sorts inside a kernel made numba compile its generic sort routines (and the error
    messages of a sliced assignment) on a cold first fit, about 5 CPU s of the cold
    demo (issue 37).  Bottom-up merge sort over runs of 16 sorted by insertion.
    """
    RUN = 16
    for lo in range(0, n, RUN):
        hi = lo + RUN if lo + RUN < n else n
        for i in range(lo, hi):
            j = i
            while j > lo and keys[order[j - 1]] > keys[i]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
    src, dst = order, tmp
    in_order = True  # src is order
    width = RUN
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = lo + width if lo + width < n else n
            hi = lo + 2 * width if lo + 2 * width < n else n
            a, b, k = lo, mid, lo
            while a < mid and b < hi:
                if keys[src[b]] < keys[src[a]]:  # strictly less: ties keep the left run first
                    dst[k] = src[b]
                    b += 1
                else:
                    dst[k] = src[a]
                    a += 1
                k += 1
            while a < mid:
                dst[k] = src[a]
                a += 1
                k += 1
            while b < hi:
                dst[k] = src[b]
                b += 1
                k += 1
        src, dst = dst, src
        in_order = not in_order
        width *= 2
    if not in_order:
        for i in range(n):
            order[i] = src[i]


@njit(**CALLEE)
def _queue(nodes, hkey, hseq, hnode, S, cfg, c, key):
    seq = S[S_SEQ]
    S[S_SEQ] = seq + 1
    heap_push(hkey, hseq, hnode, S, key, -seq if cfg[G_POLICY] == POL_DFS else seq, c)
    if (nodes[c, C_FLAGS] & FL_QUEUE) == 0:
        nodes[c, C_FLAGS] |= FL_QUEUE
        nodes[c, C_REF] += 1


@njit(**CALLEE)
def _skip_rest(nodes, S, p):
    S[S_DROPPED] += nodes[p, C_DEND] - nodes[p, C_DNEXT]
    S[S_WAITING] -= nodes[p, C_DEND] - nodes[p, C_DNEXT]
    nodes[p, C_DNEXT] = nodes[p, C_DEND]


@njit(cache=True, inline="always")
def build_child(A, lut, valid, zob, cfg, st, S, F, ws, p, s, ev=None):
    """Make the waiting child ``p + s`` a node, unless the map says it cannot win.

    Returns the new node, or -1 when a better equivalent prefix exists.
    """
    nodes, nlb, free, hkey, hseq, hnode, mhash, mnode, pool, pool_free, dkey, dlb, dante = st
    path, epath, inpfx, u, fbuf, tmpw, acc = ws[:7]
    tv = ws[8]
    C = cfg[G_C]
    W = cfg[G_W]
    sym = cfg[G_SYM]
    lam = F[F_LAM]
    K = nodes[p, C_DEPTH]
    for w in range(W):
        u[w] = valid[w]
    zh = np.uint64(0)
    for d in range(K):
        a = path[d]
        inpfx[a] = True
        zh ^= zob[a]
        for w in range(W):
            u[w] &= ~A[a, w]
    count_and(lut, u, A[s], acc, cfg[G_NL], ws[25])
    row = tv[A.shape[0]]
    unpack_counts(acc, cfg[G_FB], C, cfg[G_REFB] != 0, row)
    nc = 0
    label = 0
    for k in range(C):
        if row[V_CLS + k] > nc:
            nc = row[V_CLS + k]
            label = k
    mist = nodes[p, C_MIST] + row[V_TOT] - nc
    KQ = K + 1
    slot = -1
    if sym != SYM_NONE:
        if sym == SYM_PERM:
            h = zh ^ zob[s]
        else:
            for w in range(W):
                fbuf[w] = u[w] & ~A[s, w]
            h = hash_words(fbuf)
        found = map_find(A, valid, nodes, mhash, mnode, h, sym, inpfx, s, KQ, fbuf, epath, tmpw)
        if found >= 0:
            e = np.int64(mnode[found])
            ke = np.int64(nodes[e, C_DEPTH])
            path[K] = s
            score = mist + lam * KQ
            escore = nodes[e, C_MIST] + lam * ke
            if not order_less(score, KQ, path, escore, ke, epath, F[F_TOL]):
                for d in range(K):
                    inpfx[path[d]] = False
                S[S_PR_SYM] += 1
                if ev is not None:
                    record_event(ev, EV_PRUNE, S_PR_SYM, path, K, s, score)
                return -1
            S[S_SUPERSEDED] += 1
            # the new prefix wins: retire the old one and its subtree
            nodes[e, C_FLAGS] |= FL_DELETED
            nodes[e, C_FLAGS] &= ~FL_MAP
            mnode[found] = -1  # re-filled below with the same hash
            release_ref(nodes, free, pool_free, S, e)
            S[S_MAP] -= 1
            slot = found
        else:
            slot = -1 - found
        mhash[slot] = h
    # leave path, inpfx and u describing the new prefix, for expand(..., ready=True),
    # and in capw the samples its last rule captures
    capw = ws[21]
    path[K] = s
    inpfx[s] = True
    for w in range(W):
        capw[w] = u[w] & A[s, w]
        u[w] &= ~A[s, w]
    n = alloc_node(nodes, free, S)
    nodes[n, C_PARENT] = p
    nodes[n, C_ANTE] = s
    nodes[n, C_DEPTH] = KQ
    nodes[n, C_MIST] = mist
    nodes[n, C_B0] = 0
    nodes[n, C_REF] = 1  # held by the caller until its expansion is done
    nodes[n, C_FLAGS] = 0
    nodes[n, C_REJ] = -1
    nodes[n, C_DNEXT] = 0
    nodes[n, C_DEND] = 0
    nodes[n, C_LABEL] = label
    nodes[p, C_REF] += 1
    if slot >= 0:
        mnode[slot] = n
        nodes[n, C_FLAGS] |= FL_MAP
        nodes[n, C_REF] += 1
        S[S_MAP] += 1
        if S[S_MAP] > S[S_MAX_MAP]:
            S[S_MAX_MAP] = S[S_MAP]
    return n


@njit(cache=True, inline="always")
def garbage_collect(nodes, nlb, free, pool_free, hkey, hseq, hnode, mhash, mnode, S, F, cfg):
    """After the best objective dropped: purge stale queue and map entries."""
    lam = F[F_LAM]
    tol = F[F_TOL]
    best = F[F_BEST]
    best_k = S[S_BEST_K]
    n = S[S_HEAP]
    j = np.int64(0)  # not a literal 0: heapify(..., j) would compile for that type too
    for i in range(n):
        nd = np.int64(hnode[i])
        if (nodes[nd, C_FLAGS] & FL_DELETED) == 0 and waiting_useful(
                nodes, nlb, nd, hkey[i], lam, tol, best, best_k, cfg):
            hkey[j] = hkey[i]
            hseq[j] = hseq[i]
            hnode[j] = nd
            j += 1
        else:
            _skip_rest(nodes, S, nd)
            nodes[nd, C_FLAGS] &= ~FL_QUEUE
            release_ref(nodes, free, pool_free, S, nd)
    S[S_HEAP] = j
    heapify(hkey, hseq, hnode, j)
    if cfg[G_SYM] != SYM_NONE:
        # survivors: collect, clear, re-insert (the best improves rarely)
        tmp_hash = np.empty(S[S_MAP], dtype=np.uint64)
        tmp_node = np.empty(S[S_MAP], dtype=np.int32)
        cnt = 0
        for i in range(mnode.shape[0]):
            nd = np.int64(mnode[i])
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


# --- the search loop ------------------------------------------------------------

@njit(**CALLEE)
def _room(cfg, st, S):
    """Ask for room for one more expansion; 0 when there is enough."""
    nodes, nlb, free, hkey, hseq, hnode, mhash, mnode, pool, pool_free, dkey, dlb, dante = st
    M = cfg[G_M]
    if nodes.shape[0] - S[S_USED] + S[S_FREE] < 2:
        return R_GROW_NODES
    if hkey.shape[0] - S[S_HEAP] < 2:
        return R_GROW_HEAP
    if cfg[G_SYM] != SYM_NONE and 2 * (S[S_MAP] + 2) > mhash.shape[0]:
        return R_GROW_MAP
    if pool.shape[0] - S[S_POOL_USED] + S[S_POOL_FREE] < 1:
        return R_GROW_POOL
    if dkey.shape[0] - S[S_ATOP] < M:
        return R_GROW_ARENA
    return 0


@njit(cache=True)
def run(A, lut, valid, zob, cfg, st, S, F, best_prefix, budget, ws, ev=None):
    """Expand up to ``budget`` prefixes; return an ``R_*`` code.

    Each round pops the front of the queue: the root (expanded in place), or
    a parent whose next waiting child is then built and expanded.  The state
    is consistent between rounds, so any return leaves a valid queue whose
    minimum bounds every list not yet evaluated.
    """
    nodes, nlb, free, hkey, hseq, hnode, mhash, mnode, pool, pool_free, dkey, dlb, dante = st
    path = ws[0]
    lam = F[F_LAM]
    tol = F[F_TOL]
    for _it in range(budget):
        if S[S_HEAP] == 0:
            return R_DONE
        # the work cap is checked here, between rounds, so the search stops at the
        # same state however the driver sliced its calls into chunks
        if cfg[G_WORKCAP] > 0 and S[S_EVALUATED] + S[S_EXACT_COUNTS] >= cfg[G_WORKCAP]:
            return R_WORK_LIMIT
        code = _room(cfg, st, S)
        if code != 0:
            return code
        if S[S_TRIE] >= cfg[G_MAXNODES]:
            return R_NODE_LIMIT
        # one node type and one call of expand below: numba compiles a kernel once per
        # argument types, and a constant argument (True, 0) is a type of its own, so two
        # calls, one with p (int32) and False and one with c (int64) and True, made it
        # compile expand, with everything it calls, twice (issue 37: the cold first fit)
        p = np.int64(hnode[0])
        heap_pop_top(hkey, hseq, hnode, S)
        root = (nodes[p, C_FLAGS] & FL_EXPANDED) == 0
        c = p  # the node to expand: the root itself, or the child built below (-1: none)
        leaving = False
        if root:
            nodes[p, C_FLAGS] &= ~FL_QUEUE
            nodes[p, C_REF] -= 1
        else:
            i = nodes[p, C_DNEXT]
            s = dante[i]
            lb = np.float64(dlb[i])
            nodes[p, C_DNEXT] = i + 1
            S[S_WAITING] -= 1
            dead = prefix_of(nodes, p, path)
            useful = not dead and can_beat(lb, nodes[p, C_DEPTH] + 2, F[F_BEST], S[S_BEST_K], tol)
            if dead or (not useful and cfg[G_POLICY] == POL_LB):
                _skip_rest(nodes, S, p)  # sorted by bound: none of the rest can win either
            leaving = nodes[p, C_DNEXT] >= nodes[p, C_DEND]
            if leaving:
                nodes[p, C_FLAGS] &= ~FL_QUEUE  # its reference is dropped below
            else:
                _queue(nodes, hkey, hseq, hnode, S, cfg, p, np.float64(dkey[nodes[p, C_DNEXT]]))
            c = -1
            if useful:
                c = np.int64(build_child(A, lut, valid, zob, cfg, st, S, F, ws, p, s, ev))
            else:
                S[S_DROPPED] += 1
        improved = False
        if c >= 0:
            # ready: build_child left path, inpfx and u describing the child (not the root)
            ready = not root
            improved = expand(A, lut, valid, zob, cfg, st, S, F, best_prefix, ws, c, ready, ev)
            if not root:
                release_ref(nodes, free, pool_free, S, c)
        if leaving:
            release_ref(nodes, free, pool_free, S, p)
        if improved:
            garbage_collect(nodes, nlb, free, pool_free, hkey, hseq, hnode, mhash, mnode, S, F, cfg)
    return R_BUDGET


@njit(cache=True)
def queue_summary(nodes, nlb, hkey, hnode, S, F, cfg, depth_counts):
    """Min lower bound of what is left, and waiting children per depth."""
    lb = F[F_BEST]
    for j in range(depth_counts.shape[0]):
        depth_counts[j] = 0
    for i in range(S[S_HEAP]):
        nd = hnode[i]
        if nodes[nd, C_FLAGS] & FL_DELETED:
            continue
        k = nodes[nd, C_DEPTH]
        if nodes[nd, C_FLAGS] & FL_EXPANDED:
            depth_counts[k + 1] += nodes[nd, C_DEND] - nodes[nd, C_DNEXT]
            v = hkey[i] if cfg[G_POLICY] == POL_LB else nlb[nd]
        else:
            depth_counts[k] += 1
            v = nlb[nd]
        if v < lb:
            lb = v
    return lb


@njit(cache=True)
def compact_arena(nodes, hnode, S, dkey, dlb, dante):
    """Move the waiting children of queued nodes to the front of the arena."""
    n = S[S_HEAP]
    # as float64 (exact below 2**53), the arena's sort is the survivors' one (one kernel)
    starts = np.empty(n, dtype=np.float64)
    for i in range(n):
        starts[i] = nodes[hnode[i], C_DNEXT]
    order = np.empty(n, dtype=np.int64)
    stable_argsort(starts, n, order, np.empty(n, dtype=np.int64))
    top = 0
    for j in range(n):
        nd = hnode[order[j]]
        lo = nodes[nd, C_DNEXT]
        hi = nodes[nd, C_DEND]
        if (nodes[nd, C_FLAGS] & FL_EXPANDED) == 0:
            continue
        for i in range(lo, hi):
            dkey[top + i - lo] = dkey[i]
            dlb[top + i - lo] = dlb[i]
            dante[top + i - lo] = dante[i]
        nodes[nd, C_DNEXT] = top
        nodes[nd, C_DEND] = top + hi - lo
        top += hi - lo
    S[S_ATOP] = top
    return top
