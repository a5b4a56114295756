"""Compiled inner loops of the FRL / softFRL Monte-Carlo search.

Chen & Rudin, "An Optimization Approach to Learning Falling Rule Lists",
AISTATS 2018: Algorithm FRL (Section 3 and Appendix A, pruned by Proposition
4.2, Corollary 4.5 and Theorem 4.6) and Algorithm softFRL (Section 5 and
Appendix B, pruned by Theorem 5.2).

One source serves both programs: every kernel takes ``C1``, which is
``None`` for FRL and the penalty weight for softFRL.  Numba compiles one
specialisation per argument type and removes the branches on ``C1 is None``
while compiling, so each program runs code with no test of the switch in
its loops.

Data layout (built by :mod:`._search` with :mod:`rulekit.bitset`):
antecedent ``l`` is the AND of one or two *factors*, the rows ``items[l, 0]``
and ``items[l, 1]`` (``-1``: none) of two packed bit matrices, ``P`` over the
*positive* rows only and ``Q`` over the *negative* rows only.  Given a plain
antecedent matrix, each antecedent is its own factor; given the conditions
an estimator mined its antecedents from, the factors are the conditions.
The rows a prefix leaves uncaptured are two vectors ``rem_p``/``rem_n`` of
the same shape, so the counts ``p = |P[a] & P[b] & rem_p|`` and
``q = |Q[a] & Q[b] & rem_n|`` of every antecedent come out of one pass with
no label mask.  Why factors: counting every antecedent is the search's
whole cost, and it is bound by memory traffic.  On breast cancer's 116,000
mined pairs the packed antecedents take 9 MB, read once per rule drawn; the
540 conditions they are made of take 55 kB and stay in the CPU's cache.
The counts, and so the search, are the same.

On millions of distinct rows the factors no longer fit in the cache, and
four things cut the words read (issue 35), none changing a count: with
whole weights the rows of one weight are packed in the order of the bits of
the factors that are first in most pairs, so a factor's rows lie in runs of
words and a pair reads only the runs of its first factor's uncaptured rows;
on factor matrices too large for the shared cache the words are counted in
blocks that stay in a core's cache (:func:`count_candidates`); a prefix
whose last rule took fewer rows than it leaves is counted from its parent's
counts less the rows taken (:func:`count_captured`); and rows sparse in
their words are gathered into dense words before they are counted
(:func:`_count_class_compact`).

One call of :func:`chunk` runs a batch of whole iterations; the anytime
driver calls it repeatedly so that the time limit, Ctrl-C and the callback
are honoured between batches.  All random numbers come from the caller's
``numpy.random.Generator`` (numba shares its state), and a batch boundary
draws none, so the result does not depend on how the work was split.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rulekit.bitset import lowest_bit, popcount64

from . import _objective as _obj

# Compiled twins of the scalar formulas the tests check directly.
_risk_numerator = njit(cache=True)(_obj.risk_numerator)
_frl_prefix_bound = njit(cache=True)(_obj.frl_prefix_bound)
_frl_should_stop = njit(cache=True)(_obj.frl_should_stop)
_soft_bound_terms = njit(cache=True)(_obj.soft_bound_terms)
_soft_g_floor = njit(cache=True)(_obj.soft_g_floor)
_soft_floor_constants = njit(cache=True)(_obj.soft_floor_constants)
_soft_terms_above = njit(cache=True)(_obj.soft_terms_above)
_frl_curiosity = njit(cache=True)(_obj.frl_curiosity)
_soft_curiosity = njit(cache=True)(_obj.soft_curiosity)


@njit(cache=True)
def root_counts(M, items, full, lay):
    """Weight of the rows of ``M``'s class that each antecedent captures."""
    word_w, mix_k, mix_ptr, term_mask, term_w, ones = lay
    out = np.zeros(items.shape[0], dtype=np.float64)
    for l in range(items.shape[0]):
        a = items[l, 0]
        b = items[l, 1]
        total = 0.0
        for k in range(word_w.shape[0]):
            x = M[a, k] & full[k]
            if b >= 0:
                x &= M[b, k]
            total += word_w[k] * popcount64(x)
        for j in range(mix_k.shape[0]):
            k = mix_k[j]
            x = M[a, k] & full[k]
            if b >= 0:
                x &= M[b, k]
            for t in range(mix_ptr[j], mix_ptr[j + 1]):
                total += term_w[t] * popcount64(x & term_mask[t])
        out[l] = total
    return out


@njit(cache=True)
def _capture(rem, cap, M, a, b):
    """``cap = rem & M[a] & M[b]`` (the rows the rule takes), then ``rem &= ~cap``
    (``M[b]`` left out when ``b < 0``).  Returns how many rows ``cap``, and
    ``rem``, hold."""
    n_cap = 0
    n_rem = 0
    for k in range(rem.shape[0]):
        x = rem[k] & M[a, k]
        if b >= 0:
            x &= M[b, k]
        cap[k] = x
        rem[k] &= ~x
        n_cap += popcount64(x)
        n_rem += popcount64(rem[k])
    return n_cap, n_rem


@njit(inline="always")
def _weighted_and(c, rows, M, b, w, n1, k0, k1):
    """``c`` plus the summed weight of the rows of words ``k0 .. k1 - 1`` in both
    ``rows`` and ``M[b]`` (one weight layout; the mixed words are left out).

    Words ``< n1`` weigh 1 per row (plain popcounts); the others weigh
    ``w[k]`` per row.  Indices are unsigned (numba then omits its test for a
    negative index, which made loops not starting at 0 four times slower on
    adult).  The words are added one by one in their order, onto ``c``: a
    count summed over consecutive ranges is the count summed in one go, to
    the last bit of a float.
    """
    for k in range(k0, min(k1, n1)):
        u = np.uint64(k)
        c += popcount64(rows[u] & M[b, u])
    for k in range(max(k0, n1), k1):
        u = np.uint64(k)
        c += w[u] * popcount64(rows[u] & M[b, u])
    return c


@njit(inline="always")
def _weighted_and_mixed(c, rows, M, b, mix, ptr, mask, tw):
    """``c`` plus the weight of the rows in ``rows`` and ``M[b]`` in the mixed words:
    each mixed word ``mix[j]`` adds each of its terms' weight times the rows
    under that term's mask."""
    for j in range(mix.shape[0]):
        k = mix[j]
        x = rows[k] & M[b, k]
        if x:
            for t in range(ptr[j], ptr[j + 1]):
                c += tw[t] * popcount64(x & mask[t])
    return c


#: words per block of :func:`count_candidates`: the block of every factor
#: (116 factors x 4 kB on adult) stays in a core's L2 cache.  Measured on
#: adult at 1 million rows (9.6 MB of factors), 1,000 iterations of the
#: default FRL search: 21 CPU s in blocks of 512 words, 22 in blocks of 256,
#: 42 over whole rows with runs (27 before runs and blocks).
BLOCK_WORDS = 512
#: words a class row needs before the search counts in blocks and runs:
#: on fewer, the work per pair is too small to pay for finding runs, and
#: pairs are counted over whole rows (heart, 5 words: 1.8 CPU s, 2.9 in blocks)
BLOCK_MIN_WORDS = 64


def block_words(n_words):
    """The block :func:`count_candidates` counts in, for class rows of
    ``n_words`` words: None (whole rows, pair after pair) on small data.

    None rather than 0: numba compiles the search once per argument type and
    drops the branches on ``block is None`` while compiling, so a fit on
    small data compiles no blocked counting (a cold first fit of heart took
    6 CPU s more when both ways were compiled into its search)."""
    return BLOCK_WORDS if n_words >= BLOCK_MIN_WORDS else None


#: a prefix is counted from its parent's counts when the rows its last rule
#: took are fewer than this share of the rows it leaves: both ways count only
#: the rows they are given (:func:`_count_class_compact`), so the fewer rows
#: win.  At ten million adult-like rows, 6,000 iterations of the default
#: softFRL search with rows gathered: 58.8 CPU s this way, 69.8 when the
#: words holding a taken row had to be under 0.8 of the words holding a row
#: left (0.5 before rows were gathered).
CAPTURE_SHARE = 1.0


def capture_share(whole, block):
    """The search counts a prefix from its parent's counts
    (:func:`count_captured`) when the rows its last rule took are fewer than
    this share of the rows it leaves: 0 (never) unless the weights are whole,
    when it is exact, and the data large enough to count in blocks
    (``block`` not None)."""
    return CAPTURE_SHARE if compacts(whole, block) else 0.0


#: words :func:`_runs` looks at together (512 rows): a pair's loop over a run
#: costs about as much as a few words, so runs are not split finer
RUN_WORDS = 8


@njit(inline="always")
def _runs(ra, M, a, rem, k0, k1, starts, ends):
    """``ra = M[a] & rem`` over words ``k0 .. k1 - 1`` (``a < 0``: ``rem``), and
    the runs of words holding one of its rows into ``starts``/``ends``;
    returns their number.  Words are looked at ``RUN_WORDS`` at a time: a
    run may hold empty words (they add nothing to a count)."""
    n = 0
    open_run = False
    for g in range(k0, k1, RUN_WORDS):
        nz = np.uint64(0)
        for k in range(g, min(g + RUN_WORDS, k1)):
            u = np.uint64(k)
            x = rem[u] & M[a, u] if a >= 0 else rem[u]
            ra[u] = x
            nz |= x
        if nz != 0:
            if not open_run:
                starts[n] = g
                n += 1
                open_run = True
            ends[n - 1] = min(g + RUN_WORDS, k1)
        else:
            open_run = False
    return n


@njit(cache=True)
def _count_class(M, items, rem, sel, out, lay, block):
    """``out[l] = |M[a] & M[b] & rem|`` (a weight) for every ``l`` with ``sel[l]``.

    The words are counted in blocks of ``block`` (0: whole rows), every
    selected pair's count accumulating block after block, then the mixed
    words.  Why blocks: a pair reads its second factor's row in full, so
    counting pair after pair over whole rows streams the factor matrix from
    memory once per first factor; a block of every factor stays in the cache
    while all the pairs read it, and the matrix is read about once.
    A pair reads only the runs of words where ``a``'s uncaptured rows
    (``ra = M[a] & rem``) are: the search packs rows sorted by the first
    factors (see :mod:`._search`), so on large data they are long.
    """
    w, mix, ptr, mask, tw, ones = lay
    n1 = ones[0]
    nw = rem.shape[0]
    n_items = items.shape[0]
    acc = np.zeros(n_items, dtype=w.dtype)
    ra = np.empty_like(rem)
    step = block if 0 < block < nw else max(nw, 1)
    starts = np.empty(step // RUN_WORDS + 1, np.int64)
    ends = np.empty(step // RUN_WORDS + 1, np.int64)
    for k0 in range(0, nw, step):
        k1 = min(k0 + step, nw)
        cur = -2
        n_runs = 0
        for l in range(n_items):
            if not sel[l]:
                continue
            a = items[l, 0]
            b = items[l, 1]
            if b < 0:       # the one factor a: the pair of a with the rows left
                a, b = -1, a
            if a != cur:    # pairs come sorted by a: ra is formed once per run of a
                cur = a
                n_runs = _runs(ra, M, a, rem, k0, k1, starts, ends)
            c = acc[l]
            for r in range(n_runs):
                c = _weighted_and(c, ra, M, b, w, n1, starts[r], ends[r])
            acc[l] = c
    if mix.shape[0] > 0:
        cur = -1
        for l in range(n_items):
            if not sel[l]:
                continue
            a = items[l, 0]
            b = items[l, 1]
            if b < 0:
                acc[l] = _weighted_and_mixed(acc[l], rem, M, a, mix, ptr, mask, tw)
                continue
            if a != cur:
                cur = a
                for j in range(mix.shape[0]):
                    k = mix[j]
                    ra[k] = M[a, k] & rem[k]
            acc[l] = _weighted_and_mixed(acc[l], ra, M, b, mix, ptr, mask, tw)
    for l in range(n_items):
        if sel[l]:
            out[l] = acc[l]


# --- counting only the rows given ------------------------------------------
#
# Deep in a list the rows a count is asked for are a sparse subset of every
# word: the rows a rule just took (:func:`count_captured`), or the few rows a
# long prefix leaves.  Rows sorted by their first factors lie in runs, but a
# rule's rows are spread over most words (at ten million adult-like rows the
# words holding a taken row held 9 of them, of 64), so counting word by word
# reads every factor's words about as often as counting all rows.  Instead
# the rows given are gathered first: each row's factor bits are kept once
# row-major (:func:`row_major`, 16 bytes a row for up to 128 factors), the
# rows given are copied from there 64 at a time and turned back into
# factor-major words (a 64 x 64 bit transpose), and the pairs are counted on
# those dense words.  Gathering costs a few operations per row and factor
# word; counting then reads a word per 64 rows and pair where it read one per
# 9.  Rows of different weights never share a gathered word, so every word
# has one weight and the counts are exact sums of whole weights, whichever
# words they were summed in.

#: gather the rows given when they fill fewer than this many bits of the
#: words holding them (a dense row set is counted in place)
COMPACT_BELOW = 32


def compacts(whole, block):
    """Whether counts gather the rows they are given (:func:`_count_class_compact`):
    for whole weights (regrouping rows into words changes no sum) on data large
    enough to count in blocks (``block`` not None)."""
    return whole and block is not None


@njit(inline="always")
def _transpose64(a):
    """Transpose a 64 x 64 bit matrix in place: bit ``c`` of ``a[r]`` becomes bit
    ``r`` of ``a[c]``.  Six rounds, each swapping the off-diagonal halves of
    blocks of ``j`` x ``j`` bits (``j`` = 32, 16, ..., 1)."""
    j = 32
    m = np.uint64(0x00000000FFFFFFFF)
    while j != 0:
        uj = np.uint64(j)
        for r in range(64):
            if r & j == 0:
                t = ((a[r] >> uj) ^ a[r + j]) & m
                a[r + j] ^= t
                a[r] ^= t << uj
        j >>= 1
        m ^= m << np.uint64(j)


@njit(cache=True)
def row_major(M):
    """Each slot's factor bits, row-major: bit ``f`` of ``R[s, f // 64]`` is bit
    ``s % 64`` of ``M[f, s // 64]`` (``M`` factor-major, as the search packs it)."""
    nf, nw = M.shape
    nfw = (nf + 63) // 64
    R = np.zeros((nw * 64, nfw), np.uint64)
    buf = np.empty(64, np.uint64)
    for k in range(nw):
        for q in range(nfw):
            for f in range(64):
                g = 64 * q + f
                buf[f] = M[g, k] if g < nf else np.uint64(0)
            _transpose64(buf)
            for r in range(64):
                R[64 * k + r, q] = buf[r]
    return R


@njit(inline="always")
def _slot_weight(w, mix, ptr, mask, tw, k, jm, r):
    """The weight of row ``r`` of word ``k`` (``jm``: the word's index in the mixed
    words, or -1 when the word has one weight)."""
    if jm < 0:
        return w[k]
    bit = np.uint64(1) << np.uint64(r)
    c = w[k] * 0
    for t in range(ptr[jm], ptr[jm + 1]):
        if mask[t] & bit:
            c += tw[t]
    return c


@njit(inline="always")
def _emit_word(buf, n, Mc, remc, wc, j, weight, nf):
    """Gathered rows ``buf`` (row-major, ``n`` of 64) become word ``j`` of ``Mc``."""
    for q in range(buf.shape[0]):
        row = buf[q]
        _transpose64(row)
        for f in range(min(64, nf - 64 * q)):
            Mc[64 * q + f, j] = row[f]
        row[:] = 0
    remc[j] = np.uint64(0xFFFFFFFFFFFFFFFF) if n == 64 else (
        (np.uint64(1) << np.uint64(n)) - np.uint64(1))
    wc[j] = weight


@njit(cache=True)
def _count_class_compact(M, R, items, rem, sel, out, lay, block):
    """:func:`_count_class`, on the rows of ``rem`` gathered into dense words when
    they are sparse in their words (``R``: :func:`row_major` of ``M``; no rows
    when the search does not gather).  The counts are the same."""
    if R.shape[0] == 0:
        _count_class(M, items, rem, sel, out, lay, block)
        return
    w, mix, ptr, mask, tw, ones = lay
    nw = rem.shape[0]
    held = 0        # words holding a row, their rows, and those in words of mixed
    rows = 0        # weights (weight 0 in the layout; an empty word holds no row)
    mixed_rows = 0
    for k in range(nw):
        if rem[k] != 0:
            c = popcount64(rem[k])
            held += 1
            rows += c
            if w[k] == 0:
                mixed_rows += c
    if rows >= COMPACT_BELOW * held:
        _count_class(M, items, rem, sel, out, lay, block)
        return
    # a gathered word is full but the last of each run of one weight; a run ends at a
    # word of one weight, or at any row of a word of mixed weights: room for
    # rows // 64 full words and one part word per run (columns beyond the last
    # gathered word are never read)
    room = rows // 64 + held + mixed_rows + 1
    Mc = np.empty((M.shape[0], room), M.dtype)
    remc = np.empty(room, rem.dtype)
    wc = np.empty(room, w.dtype)
    buf = np.zeros((R.shape[1], 64), np.uint64)
    n = 0               # rows in buf
    j = 0               # gathered words
    cur = w[0] * 0 - 1  # the weight of the rows in buf
    jm = 0
    for k in range(nw):
        x = rem[k]
        if x == 0:
            continue
        while jm < mix.shape[0] and mix[jm] < k:
            jm += 1
        here = jm if jm < mix.shape[0] and mix[jm] == k else -1
        v = w[k]
        while x != 0:
            b = lowest_bit(x)
            x &= x - np.uint64(1)
            if here >= 0:
                v = _slot_weight(w, mix, ptr, mask, tw, k, here, b)
            if n > 0 and v != cur:
                _emit_word(buf, n, Mc, remc, wc, j, cur, M.shape[0])
                j += 1
                n = 0
            cur = v
            for q in range(R.shape[1]):
                buf[q, n] = R[64 * k + b, q]
            n += 1
            if n == 64:
                _emit_word(buf, n, Mc, remc, wc, j, cur, M.shape[0])
                j += 1
                n = 0
    if n > 0:
        _emit_word(buf, n, Mc, remc, wc, j, cur, M.shape[0])
        j += 1
    n_ones = 0          # gathered words of weight 1 come first, as in the layout
    while n_ones < j and wc[n_ones] == 1:
        n_ones += 1
    _count_class(Mc, items, remc[:j], sel, out,
                 (wc[:j], np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.uint64),
                  np.zeros(0, w.dtype), np.full(1, n_ones, np.int64)), block)


@njit(inline="always")
def _weighted_and_row(rows, M, b, w, n1, mix, ptr, mask, tw):
    """The summed weight of the rows in both ``rows`` and ``M[b]`` (one weight layout).

    Words ``< n1`` weigh 1 per row (plain popcounts); the others weigh
    ``w[k]`` per row, indexed unsigned (numba then omits its test for a
    negative index, which made loops not starting at 0 four times slower on
    adult); a mixed word ``mix[j]`` adds each of its terms' weight times the
    rows under that term's mask.
    """
    c = 0
    for k in range(n1):
        c += popcount64(rows[k] & M[b, k])
    for k in range(n1, w.shape[0]):
        u = np.uint64(k)    # unsigned: no test for a negative index
        c += w[u] * popcount64(rows[u] & M[b, u])
    return _weighted_and_mixed(c, rows, M, b, mix, ptr, mask, tw)


@njit(cache=True)
def _count_rows(P, Q, items, rem_p, rem_n, active, pc, qc, need_q_without_pos, lay_p, lay_q):
    """:func:`count_candidates` over whole rows, pair after pair (small data).

    A count is a weight: the summed weight of the rows (``lay_p``, ``lay_q``:
    the weight layouts of the two classes, see :func:`weight_layout`).

    ``(a, b) = items[l]`` (``b = -1``: the one factor ``a``).  With
    ``need_q_without_pos`` false, ``qc[l]`` is left at 0 when ``pc[l] == 0``
    (FRL never uses such an antecedent, so its negatives are not counted).

    Pairs come sorted by their first factor (as mining orders them): the
    rows of ``a`` still uncaptured (``ra_p``, ``ra_n``) are formed once per
    run of equal ``a``, so a pair reads two vectors instead of three, and
    when ``a`` has no uncaptured positive FRL skips its pairs uncounted.
    A single factor ``a`` is counted as the pair of ``a`` with the rows
    left.  Each count is one :func:`_weighted_and` over a class's layout.
    """
    p_w, p_mix, p_ptr, p_mask, p_tw, p_ones = lay_p
    q_w, q_mix, q_ptr, q_mask, q_tw, q_ones = lay_q
    p1 = p_ones[0]
    q1 = q_ones[0]
    ra_p = np.empty_like(rem_p)
    ra_n = np.empty_like(rem_n)
    cur = -1
    empty_p = False
    empty_n = False
    for l in range(items.shape[0]):
        if not active[l]:
            continue
        a = items[l, 0]
        b = items[l, 1]
        if b < 0:
            c = _weighted_and_row(rem_p, P, a, p_w, p1, p_mix, p_ptr, p_mask, p_tw)
            pc[l] = c
            if c == 0 and not need_q_without_pos:
                qc[l] = 0
                continue
            qc[l] = _weighted_and_row(rem_n, Q, a, q_w, q1, q_mix, q_ptr, q_mask, q_tw)
            continue
        if a != cur:
            cur = a
            nz = 0
            for k in range(rem_p.shape[0]):
                ra_p[k] = P[a, k] & rem_p[k]
                nz |= ra_p[k]
            empty_p = nz == 0
            nz = 0
            for k in range(rem_n.shape[0]):
                ra_n[k] = Q[a, k] & rem_n[k]
                nz |= ra_n[k]
            empty_n = nz == 0
        if empty_p and (empty_n or not need_q_without_pos):
            pc[l] = 0       # a's rows are all captured: so are the pair's
            qc[l] = 0
            continue
        c = 0
        if not empty_p:
            c = _weighted_and_row(ra_p, P, b, p_w, p1, p_mix, p_ptr, p_mask, p_tw)
        pc[l] = c
        if c == 0 and not need_q_without_pos:
            qc[l] = 0
            continue
        qc[l] = _weighted_and_row(ra_n, Q, b, q_w, q1, q_mix, q_ptr, q_mask, q_tw)


@njit(cache=True)
def count_candidates(P, Q, items, rem_p, rem_n, active, pc, qc, need_q_without_pos, lay_p,
                     lay_q, block, R_p, R_q):
    """Counts ``pc[l] = |P[a] & P[b] & rem_p|``, ``qc[l]`` likewise on ``Q``, active ``l``.

    A count is a weight: the summed weight of the rows (``lay_p``, ``lay_q``:
    the weight layouts of the two classes, see :func:`weight_layout`).

    ``(a, b) = items[l]`` (``b = -1``: the one factor ``a``).  With
    ``need_q_without_pos`` false, ``qc[l]`` is left at 0 when ``pc[l] == 0``
    (FRL never uses such an antecedent, so its negatives are not counted).

    The positives of every active pair are counted first, then the negatives
    of those that need them, each by :func:`_count_class` in blocks of
    ``block`` words (None: whole rows, pair after pair; :func:`block_words` chooses).  The
    counts do not depend on ``block``.  Pairs come sorted by their first
    factor (as mining orders them), so the rows of ``a`` still uncaptured are
    formed once per run of equal ``a`` and block, and a pair reads two
    vectors instead of three.
    """
    if block is None:
        _count_rows(P, Q, items, rem_p, rem_n, active, pc, qc, need_q_without_pos, lay_p, lay_q)
        return
    _count_class_compact(P, R_p, items, rem_p, active, pc, lay_p, block)
    need_q = np.empty_like(active)
    for l in range(items.shape[0]):
        need_q[l] = active[l] and (pc[l] != 0 or need_q_without_pos)
        if active[l] and not need_q[l]:
            qc[l] = 0
    _count_class_compact(Q, R_q, items, rem_n, need_q, qc, lay_q, block)


@njit(cache=True)
def count_captured(P, Q, items, cap_p, cap_n, active, pc, qc, need_q_without_pos, lay_p,
                   lay_q, block, dc, R_p, R_q):
    """:func:`count_candidates` from the counts of the prefix one rule shorter.

    ``pc``/``qc`` hold the counts of every active antecedent on the rows the
    shorter prefix left; ``cap_p``/``cap_n`` are the rows its new rule took.
    A count on the rows now left is the old count less the count on the rows
    taken: exact for whole weights (integers below ``2**53``; the caller
    uses it for those only), and the rows taken are few and, sorted by the
    first factors, in few runs of words, so this reads far less than
    counting anew.  The result is exactly :func:`count_candidates`'s, with
    ``qc[l]`` left at 0 when ``pc[l] == 0`` and not ``need_q_without_pos``
    (counts only shrink: an antecedent with positives left had its negatives
    counted).  ``dc`` is scratch, one float per antecedent.  Small data
    (``block`` None) never count this way: compiled for them, it is empty.
    """
    if block is None:
        return
    _count_class_compact(P, R_p, items, cap_p, active, dc, lay_p, block)
    need_q = np.empty_like(active)
    for l in range(items.shape[0]):
        if active[l]:
            pc[l] -= dc[l]
        need_q[l] = active[l] and (pc[l] != 0 or need_q_without_pos)
        if active[l] and not need_q[l]:
            qc[l] = 0
    _count_class_compact(Q, R_q, items, cap_n, need_q, dc, lay_q, block)
    for l in range(items.shape[0]):
        if need_q[l]:
            qc[l] -= dc[l]


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
# (the candidate rules the paper filters out -- falling, Cor. 4.5, Prop. 4.2
# -- lead to no better list by the paper's own arguments).  The incumbent only
# decreases, so once a prefix's node bound is not below it, no strictly better
# list starts with that prefix: the prefix is dropped from its parent's
# candidate set, exactly like a candidate whose prefix bound is too high.
# This only removes lists that cannot improve the incumbent; among the
# remaining candidates the draw is the paper's curiosity-weighted draw.  The
# root's node bound is a lower bound on every list of the program; once it
# reaches the incumbent, the incumbent is proved optimal and the search stops.


@njit(cache=True, inline="always")
def _slot(keys, key):
    """Slot of ``key`` in the open-addressing table ``keys`` (``-1``: empty):
    where it is, or the empty slot where it would go (linear probing from a
    multiplicative hash; the table is never more than half full)."""
    mask = keys.shape[0] - 1
    i = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask
    while keys[i] != key and keys[i] != -1:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _child(children, node_count, node, l, n_ante, max_nodes, n_children, root_child):
    """Node id of prefix ``node`` + antecedent ``l`` (created on demand).

    ``children = (keys, ids)`` is a hash table from ``node * n_ante + l`` to
    the child's id (numpy arrays: a lookup costs a fraction of a typed
    dict's).  Returns -1 (nothing remembered below) when the memo is full.
    Keeps ``n_children`` (children per node) and ``root_child`` (the root's
    children by antecedent) beside it, so that :func:`_apply_memo` looks
    nothing up for nodes without children and reads the root's from an array.
    """
    if node < 0:
        return -1
    keys, ids = children
    key = node * n_ante + l
    i = _slot(keys, key)
    if keys[i] == key:
        return ids[i]
    if node_count[0] >= max_nodes:
        return -1
    nid = node_count[0]
    node_count[0] += 1
    keys[i] = key
    ids[i] = nid
    n_children[node] += 1
    if node == 0:
        root_child[l] = nid
    return nid


@njit(cache=True, inline="always")
def _put(cand, weight, bounds, stop_after, cand_pen, k, l, wt, b, stop, pen):
    """Write candidate ``k`` of a candidate set (antecedent, curiosity,
    bound, stop flag, added penalty): the arrays always change together."""
    cand[k] = l
    weight[k] = wt
    bounds[k] = b
    stop_after[k] = stop
    cand_pen[k] = pen


@njit(cache=True)
def _apply_memo(cand, weight, bounds, n_cand, children, node_lb, node, n_ante,
                incumbent, stop_after, cand_pen, n_children, root_child):
    """Raise candidate bounds by the children's node bounds and drop those no
    longer below the incumbent.  Returns ``(n_kept, least bound seen)``."""
    low = np.inf
    if node < 0:
        for i in range(n_cand):
            if bounds[i] < low:
                low = bounds[i]
        return n_cand, low
    # most nodes have no child yet: nothing to look up (the root's children
    # are read from an array: the root is visited by every iteration)
    lookup = n_children[node] > 0
    keys, ids = children
    k = 0
    for i in range(n_cand):
        b = bounds[i]
        if lookup:
            c = -1
            if node == 0:
                c = root_child[cand[i]]
            else:
                key = node * n_ante + cand[i]
                j = _slot(keys, key)
                if keys[j] == key:
                    c = ids[j]
            if c >= 0 and node_lb[c] > b:
                b = node_lb[c]
        if b < low:
            low = b
        if b >= incumbent:
            continue
        _put(cand, weight, bounds, stop_after, cand_pen, k, cand[i], weight[i], b,
             stop_after[i], cand_pen[i])
        k += 1
    return k, low


@njit(cache=True)
def _raise_node_bound(node_lb, node, value):
    """``node_lb[node] = max(node_lb[node], value)`` (``-inf``: no bound yet)."""
    if node < 0:
        return
    if value > node_lb[node]:
        node_lb[node] = value


@njit(cache=True)
def root_bound(node_lb):
    """The root's node bound (``-inf`` before the root was visited)."""
    return node_lb[0]


# --- candidate cache -------------------------------------------------------
#
# A prefix's candidate set before the incumbent and the memo filter it is a
# function of the prefix alone: the counts, bounds, curiosities and stop flags
# of its antecedents.  Iterations come back to the same prefixes (the root in
# every iteration, its likely children in many), so a prefix seen a second
# time stores the candidates that survived the incumbent of that moment, with
# their counts, and the least bound of those pruned.  The incumbent only
# decreases, so on later visits the stored list, filtered by the current
# incumbent, is exactly what counting and :func:`candidates` would produce:
# the same candidates in the same order, the same bounds, the same pruned
# minimum.  The search's draws, and so its result, are unchanged; the
# cache's room is fixed (entries, not time), so is what it holds.
#
# Most deep prefixes are never seen again, so they are stored on their second
# visit only.  Prefixes of at most STORE_FIRST_DEPTH rules are few and come
# back often, and on millions of rows counting them is the search's largest
# cost (their rules leave most rows): they are stored on their first visit.

#: prefixes of at most this many rules are cached on their first visit.  Words
#: the FRL search read at one million adult-like rows (3,000 iterations of the
#: default search): 80.3 G when every prefix waited for a second visit, 73.4 G
#: with 2 here, 71.6 G with 3 (deeper prefixes are seldom seen twice).
STORE_FIRST_DEPTH = 2

# A stored prefix holds its candidates' counts only, so the child of a prefix loaded
# from the cache counted every antecedent anew, over all the rows the prefix left,
# where the child of a counted prefix counts from its parent's counts less the rows its
# rule took (``count_captured``).  Prefixes of one or two rules (stored on their first
# visit, and loaded most often) therefore also keep the counts of every antecedent, in
# at most FULL_COUNTS_BYTES; the root's are the search's own.  The counts restored are
# the ones counting would give (an antecedent marked inactive on the way holds 0, its
# count then), so nothing changes but the words read: at one million adult-like rows
# the FRL search read 73.5 G words before, 62.4 G with these (67.0 G with prefixes of
# one rule only).

#: prefixes of 1 .. this many rules keep the counts of every antecedent when stored
FULL_COUNTS_DEPTH = 2
#: most bytes those counts take (two float64 per antecedent and prefix)
FULL_COUNTS_BYTES = 64 << 20


def empty_cache(n_prefixes, n_entries, n_ante=0):
    """A candidate cache for prefixes (memo ids) ``0 .. n_prefixes - 1`` and
    ``n_entries`` candidates over all of them, nothing stored.

    ``(state, start, length, low, ante, p, q, bound, weight, stop, pen, slot,
    full_p, full_q, full_used, full_depth, used, first)``: per prefix 0 unseen
    / 1 seen once / 2 stored, where its entries start, how many, the least
    pruned bound; then one array per entry field (``np.empty``: touched only
    as the cache fills); the counts of every one of ``n_ante`` antecedents
    for prefixes of up to ``full_depth`` (:data:`FULL_COUNTS_DEPTH`) rules
    (the row of each prefix, -1 for none, the rows, how many are used); the
    number of entries used, and the depth up to which prefixes are stored on
    their first visit (:data:`STORE_FIRST_DEPTH` when the cache is made).
    """
    per_prefix = (np.zeros(n_prefixes, np.int8), np.zeros(n_prefixes, np.int64),
                  np.zeros(n_prefixes, np.int32), np.zeros(n_prefixes, np.float64))
    per_entry = tuple(np.empty(n_entries, dtype) for dtype in
                      (np.int32, np.float64, np.float64, np.float64, np.float64, np.bool_,
                       np.float64))
    slots = min(n_prefixes, FULL_COUNTS_BYTES // (16 * n_ante)) if n_ante > 0 else 0
    full = (np.full(n_prefixes if slots else 0, -1, np.int32),
            np.empty((slots, n_ante), np.float64), np.empty((slots, n_ante), np.float64),
            np.zeros(1, np.int64), np.full(1, FULL_COUNTS_DEPTH, np.int64))
    return per_prefix + per_entry + full + (np.zeros(1, np.int64),
                                            np.full(1, STORE_FIRST_DEPTH, np.int64))


@njit(cache=True)
def _full_store(cache, node, depth, pc, qc):
    """Keep the counts of every antecedent for prefix ``node`` of ``depth`` rules,
    when it is shallow enough and there is room."""
    slot, full_p, full_q, full_used, full_depth = cache[11], cache[12], cache[13], cache[14], \
        cache[15]
    if (depth < 1 or depth > full_depth[0] or node >= slot.shape[0] or slot[node] >= 0
            or full_used[0] >= full_p.shape[0]):
        return
    k = full_used[0]
    full_p[k, :] = pc
    full_q[k, :] = qc
    slot[node] = k
    full_used[0] = k + 1


@njit(cache=True)
def _full_load(cache, node, pc, qc):
    """Restore the counts of every antecedent kept for prefix ``node``; whether there
    were any."""
    slot, full_p, full_q = cache[11], cache[12], cache[13]
    if node >= slot.shape[0] or slot[node] < 0:
        return False
    pc[:] = full_p[slot[node]]
    qc[:] = full_q[slot[node]]
    return True


@njit(cache=True)
def _cache_load(cache, node, incumbent, pc, qc, cand, weight, stop_after, cand_pen, bounds,
                pruned_low):
    """Fill the candidate arrays of prefix ``node`` from the cache; returns their number."""
    (state, start, length, low, e_ante, e_p, e_q, e_bound, e_weight, e_stop, e_pen, _, _, _, _,
     _, used, first) = cache
    lo = start[node]
    least = low[node]
    n_cand = 0
    for e in range(lo, lo + length[node]):
        b = e_bound[e]
        if b < incumbent:
            l = e_ante[e]
            _put(cand, weight, bounds, stop_after, cand_pen, n_cand, l, e_weight[e], b,
                 e_stop[e], e_pen[e])
            pc[l] = e_p[e]
            qc[l] = e_q[e]
            n_cand += 1
        elif b < least:
            least = b
    pruned_low[0] = least
    return n_cand


@njit(cache=True)
def _cache_store(cache, node, n_cand, pc, qc, cand, weight, stop_after, cand_pen, bounds,
                 pruned_low, depth):
    """Remember the candidates of prefix ``node`` (``depth`` rules) if there is room: on
    its first visit up to :data:`STORE_FIRST_DEPTH` rules, on its second beyond."""
    (state, start, length, low, e_ante, e_p, e_q, e_bound, e_weight, e_stop, e_pen, _, _, _, _,
     _, used, first) = cache
    if node >= state.shape[0] or state[node] == 2:
        return
    if state[node] == 0 and depth > first[0]:
        state[node] = 1     # first visit: most deep prefixes are never seen again
        return
    lo = used[0]
    if lo + n_cand > e_ante.shape[0]:
        return              # full: this prefix is counted on every visit
    for i in range(n_cand):
        l = cand[i]
        e_ante[lo + i] = l
        e_p[lo + i] = pc[l]
        e_q[lo + i] = qc[l]
        e_bound[lo + i] = bounds[i]
        e_weight[lo + i] = weight[i]
        e_stop[lo + i] = stop_after[i]
        e_pen[lo + i] = cand_pen[i]
    start[node] = lo
    length[node] = n_cand
    low[node] = pruned_low[0]
    used[0] = lo + n_cand
    state[node] = 2


@njit(cache=True)
def g_floor_table(size, w, C1, n):
    """softFRL: :func:`~._objective.soft_g_floor` of every whole weight of
    positives ``0 .. size - 1`` a rule can leave; FRL: one unused zero.

    The search reads the table for a whole remainder below ``size`` and
    computes the same function otherwise (see :func:`g_floor_size`).
    """
    g_floors = np.zeros(size if C1 is not None else 1, dtype=np.float64)
    if C1 is not None:
        for r in range(size):
            g_floors[r] = _soft_g_floor(r, w, C1, n)
    return g_floors


#: most entries of softFRL's table of :func:`~._objective.soft_g_floor` (32 MB)
G_FLOOR_TABLE_MAX = 1 << 22


def g_floor_size(weights_whole, n_pos):
    """Entries of :func:`g_floor_table`: every remainder ``0 .. n_pos`` when the
    weights are whole numbers (then every remainder is one), none otherwise."""
    if not weights_whole or n_pos + 1 > G_FLOOR_TABLE_MAX:
        return 0
    return int(n_pos) + 1


@njit(cache=True, inline="always")
def _g_floor(g_floors, rem_pos, w, C1, n):
    """:func:`~._objective.soft_g_floor` of ``rem_pos``, from the table when it holds it."""
    if rem_pos < g_floors.shape[0]:
        return g_floors[int(rem_pos)]
    return _soft_g_floor(rem_pos, w, C1, n)


def weight_layout(weights, n_rows, whole=True):
    """How the kernels weigh the packed rows of one class: a tuple of arrays.

    ``weights`` are the weights of the ``n_rows`` packed rows (None: every
    row 1; NaN: an empty slot).  A word whose rows all weigh the same is
    counted as ``word_w[k] * popcount``; the first ``ones[0]`` words, of
    weight 1, as a plain popcount.  The other (*mixed*) words
    ``mix_k``, with ``word_w`` 0, are counted as ``sum_t term_w[t] *
    popcount(x & term_mask[t])`` over their terms ``mix_ptr[j] ..
    mix_ptr[j + 1]``: one term per distinct weight in the word or, for whole
    weights when that is fewer, one per binary digit (``2**b`` on the rows
    whose weight has bit ``b``).  Rows sorted by weight (as :mod:`._search`
    packs them) leave few mixed words, or none.  Whole weights give whole
    counts, exact in floating point below ``2**53``, so a row of weight
    ``k`` counts exactly as ``k`` copies of it.  With ``whole`` (every
    weight of the data a whole number) the weights are int64, and so are the
    kernels' sums: integer loops run about as fast as plain popcounts, where
    a float product per word took three times as long on adult.
    """
    n_w = (n_rows + 63) // 64
    kind = np.int64 if whole else np.float64
    if weights is None:
        return (np.ones(n_w, kind), np.zeros(0, np.int64), np.zeros(1, np.int64),
                np.zeros(0, np.uint64), np.zeros(0, kind), np.full(1, n_w, np.int64))
    weights = np.asarray(weights, dtype=np.float64)
    padded = np.full(n_w * 64, np.nan)
    padded[:n_rows] = weights
    words = padded.reshape(n_w, 64)
    with np.errstate(invalid="ignore"):
        empty = np.isnan(words).all(axis=1)
    low = np.where(empty, 0.0, np.nanmin(np.where(empty[:, None], 0.0, words), axis=1))
    high = np.where(empty, 0.0, np.nanmax(np.where(empty[:, None], 0.0, words), axis=1))
    uniform = low == high
    word_w = np.where(uniform, low, 0.0)
    mix_k, mix_ptr, term_mask, term_w = [], [0], [], []
    bit = np.uint64(1) << np.arange(64, dtype=np.uint64)
    for k in np.flatnonzero(~uniform):
        row = words[k]
        held = ~np.isnan(row)
        values = np.unique(row[held])
        terms = [(np.bitwise_or.reduce(bit[row == v]), v) for v in values]
        if np.all(values == np.round(values)) and values[-1] < 2.0 ** 53:
            whole = np.where(held, row, 0).astype(np.uint64)
            digits = [(np.bitwise_or.reduce(bit[(whole >> np.uint64(d)) & np.uint64(1) == 1]),
                       float(2 ** d)) for d in range(int(values[-1]).bit_length())]
            digits = [t for t in digits if t[0]]
            if len(digits) < len(terms):
                terms = digits
        mix_k.append(k)
        for mask, v in terms:
            term_mask.append(mask)
            term_w.append(v)
        mix_ptr.append(len(term_w))
    # the leading words of weight 1 (rows are packed lightest first): counted
    # with plain popcounts, in a loop from 0
    ones = int(np.argmin(np.r_[word_w == 1, False]))
    return (np.ascontiguousarray(word_w, dtype=kind), np.asarray(mix_k, np.int64),
            np.asarray(mix_ptr, np.int64), np.asarray(term_mask, np.uint64).reshape(-1),
            np.asarray(term_w, kind), np.full(1, ones, np.int64))


@njit(cache=True)
def candidates(pc, qc, active, rp, rn, last_p, last_q, alpha_min, numer, penalty, depth,
               w, C, C1, n, lam, incumbent, cand, weight, stop_after, cand_pen, bounds,
               pruned_low, g_floors):
    """Candidate set of one prefix (Appendix A for FRL, Appendix B for softFRL).

    Inputs are the counts ``pc``/``qc`` of every active antecedent on the
    rows the prefix leaves (``rp`` positives, ``rn`` negatives), ``numer`` =
    ``n`` times the prefix's risk, ``depth`` = its length and the incumbent
    objective.  FRL (``C1 is None``) also uses the counts ``(last_p,
    last_q)`` of the prefix's last rule (``(1, 0)`` for the empty prefix);
    softFRL uses ``alpha_min``, the prefix's least proportion (1 when empty),
    and ``penalty``, its ``S(e)``.

    Writes the surviving antecedents, their curiosities and prefix bounds to
    ``cand``/``weight``/``bounds``, and (softFRL) whether closing the list
    right after each is provably optimal (``stop_after``) and the penalty it
    adds (``cand_pen``); returns how many there are.  ``pruned_low[0]``
    receives the least bound among the antecedents pruned by the incumbent
    (``inf`` if none).  Antecedents that can take no part in any extension
    (FRL: no remaining positive; softFRL: no remaining row) are marked
    inactive: counts only shrink down a list.  ``g_floors`` is
    :func:`g_floor_table` (softFRL: the terms of a rule's bound are computed
    only when their floor cannot settle that it is pruned and above
    ``pruned_low``; the result is the same).
    """
    n_cand = 0
    pruned_low[0] = np.inf
    if C1 is not None:
        b1_slope, tau, inv_n = _soft_floor_constants(alpha_min, w, n)
    for l in range(pc.shape[0]):
        if not active[l]:
            continue
        p = pc[l]
        q = qc[l]
        if C1 is None:
            if p == 0:
                active[l] = False
                continue
        elif p + q == 0:
            active[l] = False
            continue
        p2 = rp - p
        q2 = rn - q
        if not p2 + q2 > 0:
            continue            # would leave an empty else clause
        if C1 is None:
            if not w * p > q:
                continue        # Cor. 4.5: proportion must exceed 1/(1+w)
            # falling: p/(p+q) <= last_p/(last_p+last_q), exact in integers
            if p * (last_p + last_q) > last_p * (p + q):
                continue
            # Prop. 4.2 feasibility: the remainder is not richer than the new rule
            if p2 * (p + q) > p * (p2 + q2):
                continue
            alpha = p / (p + q)
            new_obj = (numer + _risk_numerator(p, q, w)) / n + C * (depth + 1)
            bound = _frl_prefix_bound(new_obj, alpha, p2, q2, w, C, n)
            stop = False
            pen = 0.0
        else:
            alpha = p / (p + q)
            pen = alpha - alpha_min if alpha > alpha_min else 0.0
            new_obj = ((numer + _risk_numerator(p, q, w)) / n + C * (depth + 1)
                       + C1 * (penalty + pen))
            # A rule whose bound is not below the incumbent is pruned; it then
            # matters only if it lowers pruned_low.  The bound is new_obj plus
            # three terms >= 0: when a cheap test shows it above both (by far
            # more than rounding), the terms (divisions, square roots) are
            # not computed.  Most rules end here; the result is the same.
            floor = incumbent if incumbent > pruned_low[0] else pruned_low[0]
            if new_obj >= floor:
                continue
            new_min = alpha if alpha < alpha_min else alpha_min
            above = floor + _obj.G_SKIP_MARGIN * (1.0 + abs(floor)) - new_obj
            if _soft_terms_above(above, p, q, alpha < alpha_min, new_min, p2, q2, w, C, C1,
                                 _g_floor(g_floors, p2, w, C1, n), b1_slope, tau, inv_n):
                continue
            b1, gv, tm = _soft_bound_terms(new_min, p2, q2, w, C, C1, n, False)
            bound = new_obj + min(b1, gv, tm)
            stop = tm <= min(b1, gv)
        if bound < incumbent:   # strict: only a better list is worth building
            if C1 is None:
                wt = _frl_curiosity(p, q, rp, lam)
            else:
                wt = _soft_curiosity(p, q, alpha_min, rp, lam)
            _put(cand, weight, bounds, stop_after, cand_pen, n_cand, l, wt, bound, stop, pen)
            n_cand += 1
        elif bound < pruned_low[0]:
            pruned_low[0] = bound
    return n_cand


@njit(cache=True)
def chunk(data, C1, settings, rng, n_iters, incumbent, out, memo):
    """Run up to ``n_iters`` iterations of Algorithm FRL (``C1 is None``) or softFRL.

    The arguments come in tuples, one per role (numba unpacks them at no
    cost); ``C1`` stays on its own because numba removes the branches on
    ``C1 is None`` only for an argument.

    * ``data = (P, Q, items, full_p, full_n, root_p, root_q, root_active,
      n_pos, n_neg, lay_p, lay_q, block, capture_share, R_p, R_q)``: the
      antecedents as factors (see the module docstring), the full row
      vectors, the root's counts, the weight layouts, the block of
      :func:`count_candidates`, :func:`capture_share` (when a prefix's
      counts come from its parent's) and the rows of each class row-major
      (:func:`row_major`; no rows when counts do not gather rows).
    * ``settings = (w, C, lam, stop_prob, g_floors)``: the objective's
      weight and penalty, the curiosity's ``lambda``, the stop probability
      and :func:`g_floor_table` (computed once per search).
    * ``incumbent = (best_prefix, best_len, best_obj)``: updated in place
      (strict improvement only).
    * ``out = (obj_out, best_out)``: ``obj_out[i]`` and ``best_out[i]``
      receive the objective of the list built in iteration ``i`` and the
      incumbent after it.
    * ``memo = (children, node_lb, node_count, max_nodes, n_children,
      root_child, cache)``: the prefix memo and the candidate cache (see
      above; ``cache`` from :func:`empty_cache`), kept by the caller between
      batches.

    The batch ends early when the root's node bound proves the incumbent
    optimal.

    Returns ``(n_done, sizes, offsets)``: iterations run, the candidate set
    size of every extension step, iteration ``i`` owning
    ``sizes[offsets[i]:offsets[i+1]]``.

    One long loop on purpose: splitting an iteration into compiled helpers
    that share this much state costs speed in numba.
    """
    (P, Q, items, full_p, full_n, root_p, root_q, root_active, n_pos, n_neg, lay_p, lay_q,
     block, capture_share, R_p, R_q) = data
    w, C, lam, stop_prob, g_floors = settings
    best_prefix, best_len, best_obj = incumbent
    obj_out, best_out = out
    children, node_lb, node_count, max_nodes, n_children, root_child, cache = memo
    cache_state = cache[0]
    n_ante = items.shape[0]
    n = n_pos + n_neg
    rem_p = np.empty_like(full_p)
    rem_n = np.empty_like(full_n)
    cap_p = np.empty_like(full_p)
    cap_n = np.empty_like(full_n)
    dc = np.empty(n_ante, dtype=np.float64)
    active = np.empty(n_ante, dtype=np.bool_)
    pc = np.zeros(n_ante, dtype=np.float64)
    qc = np.zeros(n_ante, dtype=np.float64)
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
    root_stop = False
    if C1 is not None:
        # softFRL's deterministic stop is tested at the root only (the same
        # for every iteration) and after each added rule (stop_after)
        b1, gv, tm = _soft_bound_terms(1.0, n_pos, n_neg, w, C, C1, n)
        root_stop = tm <= min(b1, gv)
    n_done = 0
    for it in range(n_iters):
        if root_bound(node_lb) >= best_obj[0]:
            break            # the incumbent is proved optimal
        rem_p[:] = full_p
        rem_n[:] = full_n
        active[:] = root_active
        rp = n_pos
        rn = n_neg
        depth = 0
        numer = 0.0          # n * risk of the captured rows, in list order
        last_p = 1.0         # FRL: counts of the last rule; (1, 0) = proportion 1
        last_q = 0.0
        alpha_last = 1.0
        penalty = 0.0        # softFRL: S(e), in list order
        alpha_min = 1.0
        node = 0             # memo id of the current prefix (-1: not tracked)
        # pc/qc hold the counts of every active antecedent on the rows the
        # prefix one rule shorter left (a cached candidate set holds only its own)
        counted = False
        cap_rows = 0         # rows the last rule took, and rows left
        rem_rows = 0
        stopped_by_bound = False
        while True:
            if C1 is None:
                closed = (numer + _risk_numerator(rp, rn, w)) / n + C * depth
                if _frl_should_stop(alpha_last, rp, rn, w, C, n):
                    _raise_node_bound(node_lb, node, closed)
                    break    # Eq. 9: closing now is optimal for this prefix
            elif depth == 0 and root_stop:
                stopped_by_bound = True
                break
            if rng.random() < stop_prob:
                break
            incumbent = best_obj[0]
            if 0 <= node < cache_state.shape[0] and cache_state[node] == 2:
                n_cand = _cache_load(cache, node, incumbent, pc, qc, cand, weight, stop_after,
                                     cand_pen, bounds, pruned_low)
                # with every antecedent's counts (the root's, or kept for a shallow
                # prefix), the child counts from them less its rule's rows, as after
                # counting this prefix
                if depth == 0:
                    pc[:] = root_p
                    qc[:] = root_q
                    counted = True
                else:
                    counted = _full_load(cache, node, pc, qc)
            else:
                if depth == 0:
                    pc[:] = root_p
                    qc[:] = root_q
                elif counted and capture_share * rem_rows > cap_rows:
                    count_captured(P, Q, items, cap_p, cap_n, active, pc, qc, C1 is not None,
                                   lay_p, lay_q, block, dc, R_p, R_q)
                else:
                    count_candidates(P, Q, items, rem_p, rem_n, active, pc, qc,
                                     C1 is not None, lay_p, lay_q, block, R_p, R_q)
                counted = True
                n_cand = candidates(pc, qc, active, rp, rn, last_p, last_q, alpha_min, numer,
                                    penalty, depth, w, C, C1, n, lam, incumbent, cand, weight,
                                    stop_after, cand_pen, bounds, pruned_low, g_floors)
                if node >= 0:
                    _cache_store(cache, node, n_cand, pc, qc, cand, weight, stop_after,
                                 cand_pen, bounds, pruned_low, depth)
                    _full_store(cache, node, depth, pc, qc)
            n_cand, low = _apply_memo(cand, weight, bounds, n_cand, children, node_lb,
                                      node, n_ante, incumbent, stop_after, cand_pen,
                                      n_children, root_child)
            if C1 is not None:
                closed = (numer + _risk_numerator(rp, rn, w)) / n + C * depth + C1 * (
                    penalty + max(rp / (rp + rn) - alpha_min, 0.0))
            _raise_node_bound(node_lb, node, min(closed, low, pruned_low[0]))
            sizes = _push(sizes, n_sizes, n_cand)
            n_sizes += 1
            if n_cand == 0:
                break
            j = _draw(rng, weight, n_cand)
            l = cand[j]
            node = _child(children, node_count, node, l, n_ante, max_nodes, n_children,
                          root_child)
            p = pc[l]
            q = qc[l]
            prefix[depth] = l
            depth += 1
            active[l] = False
            numer += _risk_numerator(p, q, w)
            alpha = p / (p + q)
            if C1 is None:
                last_p = p
                last_q = q
                alpha_last = alpha
            else:
                penalty += cand_pen[j]
                if alpha < alpha_min:
                    alpha_min = alpha
            rp -= p
            rn -= q
            cap_p_rows, rem_p_rows = _capture(rem_p, cap_p, P, items[l, 0], items[l, 1])
            cap_n_rows, rem_n_rows = _capture(rem_n, cap_n, Q, items[l, 0], items[l, 1])
            cap_rows = cap_p_rows + cap_n_rows
            rem_rows = rem_p_rows + rem_n_rows
            if C1 is not None and stop_after[j]:
                stopped_by_bound = True
                break        # closing the new prefix attains its bound
        if C1 is None:
            numer += _risk_numerator(rp, rn, w)
            value = numer / n + C * depth
        else:
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
        n_done += 1
    return n_done, sizes[:n_sizes].copy(), offsets[:n_done + 1].copy()
