"""The search problem in the form the compiled kernels read.

Input checks, the merging of samples with identical antecedent rows into
weighted groups, the packed lookup table of weighted counts and the
configuration vector.  Merging is exact: every rule list captures identical
rows with the same rule.  The groups are also the equivalence classes of the
equivalent points bound (Angelino et al., "Learning Certifiably Optimal Rule
Lists for Categorical Data", JMLR 18(234), 2018, Section 3.14, Theorem
"Equivalent points bound"): in each, the samples outside the majority class
are mistakes every rule list makes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rulekit._checks import check_boolean_matrix, check_counts, check_labels
from rulekit.bitset import n_words, pack
from rulekit.corels import _kernels as kr
from rulekit.corels._bounds import switches
from rulekit.evaluate import merge_rows
from rulekit._tolerances import INT64_MAX_EXCLUSIVE, TIE_PER_SAMPLE

#: Scores closer than ``TOL_FACTOR * N`` samples count as ties (rulekit._tolerances).
TOL_FACTOR = TIE_PER_SAMPLE


def check_reference(reference, y) -> np.ndarray | None:
    """Where the reference model's prediction differs from ``y`` (bool per sample)."""
    if reference is None:
        return None
    ref = check_labels(reference, len(y), "reference", rows_of="y")
    return ref != np.asarray(y)


def check_data(A, y, reference=None, sample_weight=None):
    """The checked data of a search.

    Returns ``A`` (bool, at least one row), the sorted classes, each row's
    class code, where the reference model errs (None without one), and the
    frequency weights (int64; None without them).  Rows of weight zero are
    dropped first: they count for nothing, so the search is the one on the
    other rows (the classes are those of the rows that count).
    """
    A = check_boolean_matrix(A, "A")
    labels = check_labels(y, A.shape[0], "y")
    refmiss = check_reference(reference, labels)
    weights = check_counts(sample_weight, A.shape[0])
    if weights is not None:
        kept = weights > 0
        if not kept.all():
            A, labels, weights = A[kept], labels[kept], weights[kept]
            refmiss = None if refmiss is None else refmiss[kept]
    if A.shape[0] == 0:
        empty = "A has no samples" if weights is None else "sample_weight is zero for every row"
        raise ValueError(f"{empty} (N = 0); the objective is undefined")
    classes, codes = np.unique(labels, return_inverse=True)
    return A, classes, codes.astype(np.int64), refmiss, weights


def group_samples(A: np.ndarray, codes: np.ndarray, n_classes: int, refmiss=None,
                  weights=None):
    """Collapse samples with identical antecedent rows.

    ``weights`` (int64 per sample, or None for ones) are frequency weights:
    a sample of weight ``k`` adds ``k`` to its group's counts.

    Returns
    -------
    groups : ndarray of bool, shape (G, M)
        Distinct rows, in order of first appearance.
    table : ndarray of int64, shape (G, n_classes)
        Class counts (sums of weights) per distinct row.
    ref : ndarray of int64, shape (G,)
        The reference model's mistakes per distinct row (zeros without one).
    """
    w = np.ones(len(codes), np.int64) if weights is None else np.asarray(weights, np.int64)
    one_hot = [np.where(codes == k, w, 0) for k in range(n_classes)]
    extra = [np.zeros(len(codes), np.int64) if refmiss is None else np.where(refmiss, w, 0)]
    groups, _, sums = merge_rows(A, *one_hot, *extra)
    return groups, np.column_stack(sums[:n_classes]), np.asarray(sums[n_classes])


def class_totals(codes: np.ndarray, n_classes: int, weights=None) -> np.ndarray:
    """Samples (sums of frequency weights) of each class, int64."""
    if weights is None:
        return np.bincount(codes, minlength=n_classes).astype(np.int64)
    totals = np.zeros(n_classes, np.int64)
    np.add.at(totals, codes, np.asarray(weights, np.int64))
    return totals


def packed_words(n_fields: int, field_bits: int) -> tuple[int, int]:
    """Fields per int64 word and int64 words per packed sum (``NL``)."""
    per = 63 // field_bits
    return per, -(-n_fields // per)


def packed_table(fields: np.ndarray, field_bits: int, n_words_: int) -> np.ndarray:
    """Lookup table of packed weighted counts, one entry per byte value.

    ``fields`` (G, F) holds non-negative integer weights per group; they are
    packed ``63 // field_bits`` to an int64 word (sums of up to N samples
    cannot overflow a field).  Entry ``(w, b, v, l)`` is word ``l`` of the
    packed sums over the groups whose bits are set in byte value ``v`` at
    byte ``b`` of word ``w``, stored at ``table[w, b, v * NL + l]``.
    """
    g, f = fields.shape
    per, n_l = packed_words(f, field_bits)
    packed = np.zeros((n_words_ * 64, n_l), dtype=np.int64)
    for j in range(f):
        packed[:g, j // per] += fields[:, j].astype(np.int64) << (field_bits * (j % per))
    per_byte = packed.reshape(n_words_, 8, 8, n_l)  # word, byte, bit, packed word
    values = np.arange(256)
    bits = ((values[:, None] >> np.arange(8)[None, :]) & 1).astype(np.int64)  # (256, 8)
    table = np.einsum("vi,wbil->wbvl", bits, per_byte).reshape(n_words_, 8, 256 * n_l)
    return np.ascontiguousarray(table.astype(np.int64))


#: Size (bytes) above which a byte-table look-up is taken to cost more than
#: in cache: :func:`count_table` charges each look-up
#: ``max(1, table bytes / LUT_CACHE_BYTES)`` units.  Measured on the project
#: machine (AMD EPYC, 512 KiB L2 per core): a look-up costs about 0.65 ns
#: from a 66 KB table (compas), 1.3 ns from a 1.1 MB one (FICO) and 18 ns
#: from an 8 MB one (adult with a reference).
LUT_CACHE_BYTES = 2 << 20

#: A bit plane is kept whole when at least this share of its words is
#: non-zero, else as a list of its non-zero words.
DENSE_PLANE_SHARE = 0.25


def bit_planes(fields: np.ndarray, field_bits: int, n_words_: int) -> np.ndarray:
    """The same packed sums as :func:`packed_table`, as bit planes (see ``_kernels``).

    Plane ``p`` is the set of groups whose value of field ``f`` has bit ``k``
    set; a field's sum over a set of groups is ``sum_k 2**k * |set & plane|``.
    Its destination is ``l * 64 + shift``: packed word ``l`` holds fields
    ``l*per ...``, field ``f`` at bit ``field_bits * (f % per)``.  Returns
    int64, shape ``(nd + 4, 1, L)``: the ``nd`` dense planes' words, a row
    of their destinations, then the sparse planes' non-zero words as three
    rows (word index, bits, destination) ended by word index -1.
    """
    g, f = fields.shape
    per, _ = packed_words(f, field_bits)
    masks, dests = [], []
    for j in range(f):
        values = fields[:, j].astype(np.int64)
        for k in range(int(values.max(initial=0)).bit_length()):
            masks.append((values >> k) & 1 == 1)
            dests.append((j // per) * 64 + field_bits * (j % per) + k)
    words = (pack(np.array(masks)).view(np.int64) if masks
             else np.zeros((0, n_words(g)), dtype=np.int64))
    dests = np.array(dests, dtype=np.int64)
    dense = (words != 0).sum(axis=1) >= DENSE_PLANE_SHARE * n_words_
    sparse_w, sparse_p = np.nonzero(words[~dense].T)  # ordered by word
    nd, ns = int(dense.sum()), len(sparse_w)
    out = np.zeros((nd + 4, 1, max(n_words_, nd, ns + 1)), dtype=np.int64)
    out[:nd, 0, :words.shape[1]] = words[dense]
    out[nd, 0, :nd] = dests[dense]
    out[nd + 1, 0, :] = -1
    out[nd + 1, 0, :ns] = sparse_w
    out[nd + 2, 0, :ns] = words[~dense][sparse_p, sparse_w]
    out[nd + 3, 0, :ns] = dests[~dense][sparse_p]
    return out


def plane_sizes(planes: np.ndarray) -> tuple[int, int]:
    """Dense planes and sparse words of :func:`bit_planes`' output."""
    nd = planes.shape[0] - 4
    return nd, int(np.sum(planes[nd + 1, 0] >= 0))


def count_table(fields: np.ndarray, field_bits: int, n_words_: int) -> np.ndarray:
    """The byte table or the bit planes, whichever costs less per set counted.

    In units of one in-cache look-up: the byte table costs ``8 * NL`` a
    word (more once it outgrows the cache, see :data:`LUT_CACHE_BYTES`);
    the planes a half unit a word to form the set, about 4 + W/8 a dense
    plane (a vectorised loop) and one a sparse word.  Fitted to counts
    timed on this machine (compas, FICO, adult; each form forced in turn by
    ``benchmarks/bench_corels.py counting``).
    """
    _, n_l = packed_words(fields.shape[1], field_bits)
    table_bytes = n_words_ * 8 * 256 * n_l * 8
    planes = bit_planes(fields, field_bits, n_words_)
    nd, ns = plane_sizes(planes)
    plane_cost = n_words_ / 2 + nd * (4 + n_words_ / 8) + ns
    if plane_cost < 8 * n_l * n_words_ * max(1.0, table_bytes / LUT_CACHE_BYTES):
        return planes
    return packed_table(fields, field_bits, n_words_)


@dataclass
class Problem:
    """The arrays the kernels read, and the sizes of the problem."""

    n: int
    m: int
    n_classes: int
    lam: float
    tol: float
    empty_mistakes: int
    Ap: np.ndarray  # (M, W) uint64: antecedent bit sets over groups
    lut: np.ndarray  # (W, 8, 256 * NL) int64
    valid: np.ndarray  # (W,) uint64
    zob: np.ndarray  # (M,) uint64 Zobrist keys of the permutation map
    cfg: np.ndarray  # (N_G,) int64
    b0_root: int  # equivalent-points mistakes of all samples
    keep: np.ndarray  # column of A of each antecedent searched (duplicates dropped)

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.Ap, self.lut, self.valid, self.zob, self.cfg,
                                       self.keep))


def prepare(A, codes, classes, c, *, chosen, policy: int, symmetry: int, max_nodes: int,
            refmiss=None, weights=None) -> Problem:
    """Group the samples, pack the bit sets and counts, fill the configuration.

    Antecedents that capture exactly the same samples are kept once (the
    lowest index): a list using another copy ties with one using the first
    and loses the tie-break, or repeats a rule that captures nothing.
    ``weights``: frequency weights (None: one per sample); ``N`` is their
    total, and every count the kernels read is a sum of them.
    """
    n_classes = len(classes)
    groups, table, ref = group_samples(A, codes, n_classes, refmiss, weights)
    n = int(table.sum())
    Ap = np.ascontiguousarray(pack(groups.T))
    keep = np.sort(np.unique(Ap, axis=0, return_index=True)[1]) if Ap.shape[0] else np.arange(0)
    Ap = np.ascontiguousarray(Ap[keep])
    m = len(keep)
    g = groups.shape[0]
    w = n_words(g)
    totals = table.sum(axis=1)
    unavoidable = totals - table.max(axis=1)
    columns = [totals, *(table[:, k] for k in range(n_classes - 1)), unavoidable]
    if refmiss is not None:
        columns.append(ref)
    field_bits = max(1, int(n).bit_length())
    fields = np.column_stack(columns)
    lut = count_table(fields, field_bits, w)
    zob = np.random.default_rng(0x5EED).integers(1, INT64_MAX_EXCLUSIVE, size=m, dtype=np.int64).astype(np.uint64)
    zob ^= np.random.default_rng(0xC0DE).integers(0, INT64_MAX_EXCLUSIVE, size=m, dtype=np.int64).astype(np.uint64) << np.uint64(1)

    cfg = np.zeros(kr.N_G, dtype=np.int64)
    cfg[kr.G_N], cfg[kr.G_M], cfg[kr.G_W], cfg[kr.G_C] = n, m, w, n_classes
    cfg[kr.G_POLICY], cfg[kr.G_SYM] = policy, symmetry
    for slot, on in switches(chosen).items():
        cfg[slot] = on
    cfg[kr.G_REFB] = refmiss is not None
    cfg[kr.G_MAXNODES] = max_nodes
    cfg[kr.G_WM] = max(1, (m + 63) // 64)
    cfg[kr.G_FB] = field_bits
    cfg[kr.G_NL] = packed_words(fields.shape[1], field_bits)[1]
    cfg[kr.G_EXACT_CAP] = kr.EXACT_MAX_COUNTS
    cfg[kr.G_EXACT_SHARE] = kr.EXACT_SHARE
    return Problem(
        n=n, m=m, n_classes=n_classes, lam=c * n, tol=TOL_FACTOR * n,
        empty_mistakes=n - int(table.sum(axis=0).max()),
        Ap=Ap, lut=lut, valid=pack(np.ones(g, dtype=bool)), zob=zob, cfg=cfg,
        b0_root=int(unavoidable.sum()), keep=keep,
    )
