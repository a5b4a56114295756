"""Antecedent mining: frequent conjunctions of conditions.

CORELS and the falling-rule-list search choose rules from a fixed pool of
*antecedents* (conjunctions of conditions).  :func:`mine_antecedents` builds
that pool from the boolean condition matrix: single conditions and pairs by
one matrix product, longer conjunctions by mlxtend's FP-growth (its apriori on
request).  It drops conjunctions that put two redundant conditions on one
feature and packs the result into bit vectors for the engines.

With frequency weights (``sample_weight``: a row of weight ``k`` stands for
``k`` identical rows), supports are sums of weights; the weighted pairs use the
same matrix product, and longer conjunctions are counted by a depth-first
walk over row subsets (:func:`_frequent_weighted`, mlxtend's miners take no
weights) that applies each miner's own support test, so that the result is
the one of mining the repeated rows.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import bitset
from ._anytime import stopping
from ._checks import check_boolean_matrix, check_counts
from ._params import Boolean, Integer, Options, Real, validated
from .binarize import Condition

__all__ = ["AntecedentSet", "mine_antecedents", "redundant_pair", "MINING_PARAMETERS"]

ALGORITHMS = ("auto", "fpgrowth", "apriori")
#: bytes per antecedent and row a pool with its bits takes in a fit: the packed bits, the
#: boolean matrix an engine unpacks them into (``AntecedentSet.matrix``) and the engine's
#: own copies (CORELS on FICO's 45,379 pairs: about 3 bytes a cell at its peak)
MINING_BYTES_PER_CELL = 3
#: bytes a mined pair takes as a Python tuple in the miner's set, before its row bits exist
PAIR_OBJECT_BYTES = 200
#: most cells of one block of pair counts: counting pairs never holds more at once (wide
#: data has hundreds of thousands of conditions: all their pair counts at once would be
#: a matrix of over 100 GiB)
PAIR_BLOCK_CELLS = 1 << 22
#: rows x antecedents from which the pool's bits are computed by a compiled kernel on
#: packed words (below it by numpy on the boolean matrix, which is then small: a first
#: fit on small data compiles no kernel for it)
COMPILED_BITS_CELLS = 1 << 24
#: Rows whose float copy a pair count holds at once (the rest stay boolean).
ROW_BLOCK = 1 << 16
#: up to this many conditions every pair's count per class is made once and kept (at most
#: 8 MB per class), and the frequent pairs, their supports and the associations are read
#: from it.  Pairs were counted that way already: below 2,048 conditions the first block
#: of pairs is every pair.  Wider data counts block by block, passing over the rows again
GRAM_CONDITIONS = 1024
#: most (pairs x rows) an association cut counts beyond the pairs it keeps, only to report
#: how many pairs were mined (``n_mined``); past it the count is a lower bound
COUNT_ONLY_CELLS = 500_000_000

#: Declarations of the mining parameters (shared with the estimators that mine).
MINING_PARAMETERS = {
    "min_support": Real(0, 1, closed="right"),
    "max_card": Integer(1),
    "max_antecedents": Integer(1, allow_none=True),
    "prefer": Options("support", "association"),
    "algorithm": Options(*ALGORITHMS),
    "keep_bits": Boolean(),
}


class AntecedentNames(Sequence):
    """The antecedents' readable names, each rendered when it is first read.

    A pool of single conditions on wide data holds 10^5 antecedents or more,
    and rendering every name up front took 1 to 3 CPU s after mining, where
    no deadline could stop it (50 rows of 10,000 numeric columns); a model
    reads the names of the few antecedents it uses.  Compares equal to a
    list of the same strings.
    """

    def __init__(self, items, conditions=None):
        self._items = items
        self._conditions = conditions
        self._rendered = {}

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        k = range(len(self._items))[k]          # negative indices; IndexError past the end
        name = self._rendered.get(k)
        if name is None:
            if self._conditions is None:
                name = " and ".join(f"c{j}" for j in self._items[k])
            else:
                name = " and ".join(str(self._conditions[j]) for j in self._items[k])
            self._rendered[k] = name
        return name

    def __eq__(self, other):
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None

    def __repr__(self) -> str:
        shown = ", ".join(repr(self[i]) for i in range(min(len(self), 5)))
        return f"AntecedentNames([{shown}{', ...' if len(self) > 5 else ''}], n={len(self)})"


@dataclass(frozen=True)
class AntecedentSet:
    """A pool of antecedents over one condition matrix.

    Attributes
    ----------
    items : list of tuple of int
        Each antecedent as the sorted indices of the conditions it ANDs.
    names : sequence of str
        Readable form, e.g. ``"age <= 25 and priors > 3"``, rendered when read
        (:class:`AntecedentNames`).
    packed : ndarray of uint64, shape (M, W), or None
        Antecedent-by-sample capture bits on the mining data; None when mined
        with ``keep_bits=False`` (for an engine that builds them from their
        conditions itself).
    n_samples : int
        Number of samples the bits cover.
    support : ndarray of int, shape (M,)
        Samples each antecedent captures on the mining data (sums of the
        frequency weights when mining was weighted).
    n_mined : int or None
        Antecedents found before ``max_antecedents`` cut the pool (None:
        not recorded).
    n_mined_complete : bool
        False when ``n_mined`` is only a lower bound: an association cut on
        wide data stops counting the pairs it leaves out (see
        :data:`COUNT_ONLY_CELLS`), and a time limit or Ctrl-C stops mining.
    """

    items: list
    names: Sequence
    packed: np.ndarray
    n_samples: int
    support: np.ndarray = field(repr=False)
    n_mined: int | None = field(default=None, repr=False)
    n_mined_complete: bool = field(default=True, repr=False)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def matrix(self) -> np.ndarray:
        """Boolean (n_samples, M) antecedent matrix, as the engines take it."""
        if not self.items:
            return np.zeros((self.n_samples, 0), dtype=bool)
        if self.packed is None:
            raise ValueError("these antecedents were mined without their bits "
                             "(keep_bits=False): evaluate them with transform(B)")
        # a transposed view: copying it into row order would cost a pass over all of it
        return bitset.unpack(self.packed, self.n_samples).T

    def transform(self, B) -> np.ndarray:
        """Evaluate the antecedents on a new boolean condition matrix ``B``."""
        return evaluate_antecedents(B, self.items)


def evaluate_antecedents(B, items) -> np.ndarray:
    """Boolean (N, len(items)) matrix: row satisfies every condition of the item.

    Items of one size are evaluated together, on the conditions stored one
    per row (a column of ``B`` is strided; the same condition as a row is
    contiguous): on adult's 2,480 pairs 0.2 s instead of 3.9 s one by one.
    The result is that antecedent-major array, transposed (a view).
    """
    B = np.asarray(B, dtype=bool)
    if B.ndim != 2:
        raise ValueError(f"B must be 2-D (samples x conditions), got {B.ndim}-D")
    conditions = np.ascontiguousarray(B.T)
    out = np.empty((len(items), B.shape[0]), dtype=bool)
    by_size: dict = {}
    for m, item in enumerate(items):
        by_size.setdefault(len(item), []).append(m)
    for size, rows in by_size.items():
        rows = np.asarray(rows)
        if size == 0:
            out[rows] = True
            continue
        idx = np.asarray([items[m] for m in rows], dtype=np.int64).reshape(len(rows), size)
        acc = conditions[idx[:, 0]]
        for t in range(1, size):
            acc &= conditions[idx[:, t]]
        out[rows] = acc
    return out.T


def redundant_pair(a: Condition, b: Condition) -> bool:
    """True if two conditions on one feature contradict or imply each other.

    Such a pair never belongs in one conjunction: it is either always false
    or equal to one of its two conditions alone.  Conditions on different
    features, two different exclusions (``!=`` a category, ``not in`` the
    infrequent group), and a ``>``/``<=`` pair that forms a proper interval
    are not redundant.  Every other pair on one feature is: two tests for
    membership (``==``, ``in``) contradict, and a membership test implies
    every exclusion it does not contradict.
    """
    if a.feature != b.feature:
        return False
    if "is missing" in (a.op, b.op):
        return True  # missing makes every other condition on the column false
    ops = {a.op, b.op}
    if ops <= {"<=", ">"}:
        if a.op == b.op:
            return True  # one threshold implies the other
        low, high = (a, b) if a.op == ">" else (b, a)
        return not low.value < high.value  # empty interval otherwise
    if ops <= {"!=", "not in"}:
        return a == b
    return True  # memberships contradict or imply the other test; mixed kinds cannot meet


class _PairCounter:
    """Frequent single conditions and pairs, counted block by block.

    One matrix product per block of conditions counts their pairs at once
    (where apriori builds a candidate frame per level: on adult, 48,842 rows,
    80 conditions, support 0.001, 0.1 s against 6.6 s), and no block holds
    more than :data:`PAIR_BLOCK_CELLS` counts.  The itemsets are exactly
    apriori's: support is ``count / n_rows >= min_support``, the same
    comparison; with ``y``, frequent within at least one class.
    """

    def __init__(self, B, y, min_support, conditions, w=None, pairs=True):
        if w is not None and not (w > 0).all():   # rows of weight 0 are not there
            B, y = B[w > 0], None if y is None else y[w > 0]   # (nor, then, their classes)
            w = w[w > 0]
        ones = np.ones(B.shape[0], dtype=np.int64) if w is None else w
        rows = [np.ones(B.shape[0], bool)] if y is None else [y == label for label in np.unique(y)]
        self.per_class = y is not None
        total = int(ones.sum())
        # float32 sums are exact below 2**24 rows; float64 beyond
        self.dtype = np.float32 if total < 2**24 else np.float64
        self.B, self.w = B, w
        # each part: its rows and its total weight; the float copies the products need
        # are made ROW_BLOCK rows at a time, so counting never holds a float copy of
        # every row (3.7 million distinct rows of 116 conditions: 1.7 GB in float32)
        self.parts = [(np.flatnonzero(r), int(ones[r].sum())) for r in rows if r.any()]
        self.n_rows = B.shape[0]
        self.min_support = min_support
        m = B.shape[1]
        # narrow data: all of a part's pair counts in one pass over its rows, kept (not
        # after a time limit or Ctrl-C, when no pair will be counted)
        every = slice(None)             # (a slice, not an index: no gathered copies)
        self.gram = ([self._products(idx, every, every) for idx, _ in self.parts]
                     if pairs and m <= GRAM_CONDITIONS and not stopping() else None)
        # the sums are whole numbers, exact in self.dtype; divided there as the pairs are
        singles = ([np.diagonal(g) for g in self.gram] if self.gram is not None
                   else [self._singles(idx).astype(self.dtype) for idx, _ in self.parts])
        self.frequent_single = [c / n >= min_support for c, (_, n) in zip(singles, self.parts)]
        self.singles = np.flatnonzero(np.logical_or.reduce(self.frequent_single)) \
            if self.parts else np.zeros(0, np.int64)
        self.conditions = conditions
        # one code per feature: only conditions on one feature can be a redundant pair
        self.feature = None if conditions is None else pd.factorize(
            np.array([c.feature for c in conditions], dtype=object))[0]

    def _blocks(self, idx):
        """The rows ``idx`` in blocks of :data:`ROW_BLOCK`: (their matrix, their weights)."""
        for start in range(0, idx.size, ROW_BLOCK):
            block = idx[start:start + ROW_BLOCK]
            yield self.B[block], None if self.w is None else self.w[block].astype(self.dtype)

    def _singles(self, idx) -> np.ndarray:
        """Each condition's weight over the rows ``idx`` (exact: integers)."""
        out = np.zeros(self.B.shape[1], dtype=np.float64)
        for g, gw in self._blocks(idx):
            out += g.sum(axis=0) if gw is None else gw.astype(np.float64) @ g
        return out

    def _products(self, idx, rows, cols) -> np.ndarray:
        """Weight of the rows ``idx`` meeting both conditions, for each (row, col) pair
        (``rows`` and ``cols``: condition indices, or a slice)."""
        every = np.arange(self.B.shape[1])
        counts = np.zeros((every[rows].size, every[cols].size), dtype=self.dtype)
        for g, gw in self._blocks(idx):
            right = g[:, cols].astype(self.dtype)
            left = right if rows is cols else g[:, rows].astype(self.dtype)
            if gw is not None:
                left = left * gw[:, None]
            counts += left.T @ right
        return counts

    def frequent(self, rows, cols) -> np.ndarray:
        """Boolean (len(rows), len(cols)): is the pair frequent in some class?"""
        hit = np.zeros((len(rows), len(cols)), dtype=bool)
        for p, ((idx, n), single) in enumerate(zip(self.parts, self.frequent_single)):
            counts = (self.gram[p][np.ix_(rows, cols)] if self.gram is not None
                      else self._products(idx, rows, cols))
            hit |= (counts / n >= self.min_support) & single[rows][:, None] & single[cols][None, :]
        return hit

    def supports(self, items) -> np.ndarray | None:
        """Weight of the rows each antecedent of at most two conditions holds for
        (int64), from the kept pair counts; None without them or for longer ones."""
        if self.gram is None or any(len(item) > 2 for item in items):
            return None
        total = np.zeros(self.gram[0].shape, dtype=np.float64)
        for g in self.gram:
            total += g
        i = np.fromiter((item[0] for item in items), dtype=np.int64, count=len(items))
        j = np.fromiter((item[-1] for item in items), dtype=np.int64, count=len(items))
        return total[i, j].astype(np.int64)

    def association_rank(self) -> np.ndarray | None:
        """:func:`association_rank` of the parts' classes from the kept pair counts
        (None without them, or when the parts are not the classes)."""
        if self.gram is None or not self.per_class:
            return None
        within = [np.diagonal(g).astype(np.float64) for g in self.gram]
        sizes = [float(n) for _, n in self.parts]
        holds, n = sum(within), sum(sizes)
        if len(within) == 2:                 # two classes: the second's association
            within, sizes = within[1:], sizes[1:]
        return _rank_by_phi(holds, within, sizes, n)

    def redundant(self, rows, cols, hit) -> int:
        """How many of the pairs ``hit`` marks (rows x cols) are redundant."""
        if self.feature is None:
            return 0
        r, c = np.nonzero(hit & (self.feature[rows][:, None] == self.feature[cols][None, :]))
        return int((~self.useful(rows[r], cols[c])).sum())

    def useful(self, i, j) -> np.ndarray:
        """Mask of the pairs ``(i[k], j[k])`` without a redundant pair of conditions."""
        keep = np.ones(i.size, dtype=bool)
        if self.feature is None:
            return keep
        for k in np.flatnonzero(self.feature[i] == self.feature[j]):
            keep[k] = not redundant_pair(self.conditions[i[k]], self.conditions[j[k]])
        return keep


def _all_pairs(counter, m, check) -> tuple:
    """Every frequent, non-redundant pair ``(i, j)``, ``i < j``, as two index arrays.

    ``check(n_pairs)`` is called after each block with the pairs found so far
    (it raises when they would not fit).  A time limit or Ctrl-C ends the
    count early; the last value says whether it ran to the end.
    """
    step = max(1, PAIR_BLOCK_CELLS // max(m, 1))
    found_i, found_j, total = [], [], 0
    for a in range(0, m, step):
        if stopping():
            return _join(found_i), _join(found_j), False
        b = min(a + step, m)
        r, c = np.nonzero(np.triu(counter.frequent(np.arange(a, b), np.arange(a, m)), k=1))
        i, j = r + a, c + a
        keep = counter.useful(i, j)
        found_i.append(i[keep])
        found_j.append(j[keep])
        total += int(keep.sum())
        check(total)
    return _join(found_i), _join(found_j), True


def _associated_pairs(counter, m, rank, room) -> tuple:
    """The pairs an association cut keeps, counted level by level (see :func:`_most_associated`).

    Conditions are taken in :func:`association_rank` order; a pair's level is
    the later rank of its two conditions.  Levels are counted one block at a
    time until the pairs exceed ``room``: the levels before that one are
    kept whole, and no pair of a later level is ever materialised (wide data:
    billions of pairs, of which a few thousand are kept).  The count then
    goes on, without keeping anything, for :data:`COUNT_ONLY_CELLS`, to
    report how many pairs there were.

    Returns ``(i, j, n_pairs, complete)``: the kept pairs, how many pairs
    were counted, and whether that count is all of them.
    """
    order = np.argsort(rank, kind="stable")
    n_rows = counter.n_rows
    kept_i, kept_j, total, pos, cut, cells = [], [], 0, 0, None, 0
    while pos < m:
        if stopping() or (cut is not None and cells > COUNT_ONLY_CELLS):
            return _join(kept_i), _join(kept_j), total, False
        step = max(1, min(m - pos, PAIR_BLOCK_CELLS // (pos + 2048)))
        rows, cols = order[pos:pos + step], order[:pos + step]
        # (r, c) is a pair of level pos + r when c comes before it: c < pos + r
        hit = np.tril(counter.frequent(rows, cols), k=pos - 1)
        if cut is not None:
            # counting only: the pairs on one feature are the only ones to look at
            total += int(hit.sum()) - counter.redundant(rows, cols, hit)
            cells += step * (pos + step) * n_rows
            pos += step
            continue
        r, c = np.nonzero(hit)
        i, j = rows[r], cols[c]
        keep = counter.useful(i, j)
        r, i, j = r[keep], i[keep], j[keep]
        reached = total + np.cumsum(np.bincount(r, minlength=step))
        over = np.flatnonzero(reached > room)
        if over.size:
            cut = pos + int(over[0])
            inside = r < over[0]
            r, i, j = r[inside], i[inside], j[inside]
        kept_i.append(np.minimum(i, j))
        kept_j.append(np.maximum(i, j))
        total += int(keep.sum())
        pos += step
    return _join(kept_i), _join(kept_j), total, True


def _join(parts) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _direct(B, y, rank_y, min_support, max_card, conditions, max_antecedents, max_bytes,
            w=None, cell_bytes=MINING_BYTES_PER_CELL) -> tuple:
    """Singles and pairs, counted directly: ``(found, n_mined, complete, counter)``.

    With ``max_antecedents`` (an association cut) only the pairs it keeps
    are made; otherwise every frequent pair, refused (before its tuples and
    rows are made) when the pool would not fit ``max_bytes``.
    """
    counter = _PairCounter(B, y, min_support, conditions, w, pairs=max_card >= 2)
    m, n = B.shape[1], B.shape[0]
    found = {(int(j),) for j in counter.singles}
    if max_card < 2 or not found:
        return found, len(found), True, counter
    if max_antecedents is not None:
        room = max_antecedents - len(found)
        # (the per-class counts give the ranks when y is the mined classes' labels)
        rank = counter.association_rank() if y is not None else None
        if rank is None:
            rank = association_rank(B, rank_y, w)
        # room <= 0 keeps no pair: count them (within COUNT_ONLY_CELLS) for n_mined only
        i, j, total, complete = _associated_pairs(counter, m, rank, max(room, 0))
    else:
        def check(n_pairs):
            _check_memory(len(found) + n_pairs, n, min_support, max_card, max_bytes,
                          per_item=PAIR_OBJECT_BYTES, at_least=True, cell_bytes=cell_bytes)

        i, j, complete = _all_pairs(counter, m, check)
        total = i.size
    found |= set(zip(i.tolist(), j.tolist()))
    return found, len(found) - i.size + total, complete, counter


def _frequent(B: np.ndarray, min_support: float, max_card: int, algorithm: str,
              w=None) -> set:
    """Frequent itemsets of one block of rows (``w``: their weights), as sorted tuples."""
    from mlxtend.frequent_patterns import apriori, fpgrowth

    if w is not None:
        B, w = B[w > 0], w[w > 0]  # rows of weight 0 are not there
    if B.shape[0] == 0 or B.shape[1] == 0:
        return set()
    if w is not None:
        return _frequent_weighted(B, w, min_support, max_card, algorithm)
    frame = pd.DataFrame(B, columns=range(B.shape[1]))
    miner = apriori if algorithm == "apriori" else fpgrowth  # "auto": longer itemsets
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        found = miner(frame, min_support=min_support, max_len=max_card, use_colnames=True)
    return {tuple(sorted(int(j) for j in s)) for s in found["itemsets"]}


def _support_test(n: int, min_support: float, algorithm: str):
    """``passes(counts, size)``: which itemsets of ``size`` conditions and counts are frequent.

    Each miner's own comparison, so that weighted mining finds what the miner
    finds on the repeated rows: apriori keeps ``count / n >= min_support``;
    FP-growth also builds its conditional trees from the items counted at least
    ``ceil(min_support * n)`` times, which every itemset of two or more
    conditions must then reach as well (the two tests differ only where
    ``min_support * n`` rounds).
    """
    least = math.ceil(min_support * n)

    def passes(counts: np.ndarray, size: int) -> np.ndarray:
        ok = counts / float(n) >= min_support
        if algorithm != "apriori" and size >= 2:
            ok &= counts >= least
        return ok

    return passes


def _frequent_weighted(B: np.ndarray, w: np.ndarray, min_support: float, max_card: int,
                       algorithm: str) -> set:
    """Frequent itemsets of weighted rows (all weights positive), as sorted tuples.

    A depth-first walk (the vertical layout of Eclat): an itemset keeps the
    rows where it holds and the conditions after its last one that are
    frequent with its parent; its extensions are counted at once, as the
    weights of its rows summed per candidate condition.  Exact: the counts are
    whole numbers below 2**53 summed in float64.  Support is anti-monotone,
    so an itemset with an infrequent subset is never reached, nor needed.
    """
    n = int(w.sum())
    passes = _support_test(n, min_support, algorithm)
    conditions = np.ascontiguousarray(B.T)
    weights = w.astype(np.float64)
    found: set = set()

    def grow(items: tuple, rows: np.ndarray, tail: np.ndarray) -> None:
        block = conditions[tail][:, rows]
        counts = block @ weights[rows]
        keep = passes(counts, len(items) + 1)
        frequent, blocks = tail[keep], block[keep]
        for t, j in enumerate(frequent.tolist()):
            child = items + (j,)
            found.add(child)
            if len(child) < max_card and t + 1 < len(frequent):
                grow(child, rows[blocks[t]], frequent[t + 1:])

    grow((), np.arange(B.shape[0]), np.arange(B.shape[1]))
    return found


@validated(MINING_PARAMETERS, "mine_antecedents")
def mine_antecedents(
    B,
    y=None,
    *,
    min_support: float,
    max_card: int,
    per_class: bool = True,
    max_antecedents: int | None = None,
    prefer: str = "support",
    conditions: list | None = None,
    algorithm: str = "auto",
    max_bytes: int | None = None,
    sample_weight=None,
    keep_bits: bool = True,
) -> AntecedentSet:
    """Mine frequent conjunctions of conditions (counted directly, or by FP-growth or apriori).

    Parameters
    ----------
    B : array-like of bool, shape (n_samples, n_conditions)
        Condition matrix, e.g. from :meth:`rulekit.Binarizer.transform`.
    y : array-like, shape (n_samples,), optional
        Labels; needed when ``per_class`` is true.
    min_support : float in (0, 1]
        Minimum fraction of rows an itemset must cover.  With ``per_class``
        the fraction is measured inside each class separately.
    max_card : int >= 1
        Most conditions per antecedent (1 gives single conditions).
    per_class : bool, default=True
        Keep an itemset frequent within at least one class (the
        falling-rule-list paper's choice, which keeps rules that are rare
        overall but common among the minority class).  Ignored without ``y``.
    max_antecedents : int, optional
        Keep at most this many (see ``prefer``).
    prefer : {"support", "association"}, default="support"
        Which antecedents ``max_antecedents`` keeps.  ``"support"``: the
        highest supports (ties by order).  ``"association"``: every single
        condition, and the conjunctions made only of the conditions most
        associated with the class (largest ``|phi|``, the correlation of a
        condition with a class of ``y``), taking conditions in that order
        for as long as all conjunctions of the conditions taken so far fit.
        A cut by support keeps the broad conjunctions, which say little
        more than their conditions alone; this cut keeps the conjunctions
        of informative conditions at every threshold.  Needs ``y``; applied
        before the antecedents are evaluated, so it saves their memory too.
    conditions : list of Condition, optional
        What each column of ``B`` tests; with it, conjunctions holding two
        conditions on one feature that contradict or imply each other are
        dropped (see :func:`redundant_pair`).
    algorithm : {"auto", "fpgrowth", "apriori"}, default="auto"
        Miner to use; all return exactly the frequent itemsets.
        ``"auto"`` counts single conditions and pairs directly with one
        matrix product for ``max_card <= 2``, and runs mlxtend's FP-growth
        otherwise; ``"fpgrowth"`` and ``"apriori"`` force mlxtend's miners.
    max_bytes : int, optional
        Memory the antecedents may take (:data:`MINING_BYTES_PER_CELL` per
        antecedent and row: their packed bits and the boolean matrix an engine
        unpacks them into; none with ``keep_bits=False``).  More is a
        ``ValueError`` that says how much they need, raised before any of it
        is allocated.
    sample_weight : array-like of int, shape (n_samples,), optional
        Frequency weights: a row of weight ``k`` counts as ``k`` identical
        rows (whole numbers >= 0, else a ``ValueError``); supports are
        fractions of the total weight (of the class's total with
        ``per_class``), and ``prefer`` ranks by weighted supports and
        associations.  The antecedents are exactly those mined from the
        rows repeated, in the same order; the bits are over the rows given.
        Conjunctions of three or more conditions are then counted by this
        module rather than by mlxtend (see ``algorithm``).
    keep_bits : bool, default=True
        Keep each antecedent's capture bits (``AntecedentSet.packed``).
        ``False`` computes the supports without keeping the bits, for an
        engine that evaluates antecedents from their conditions itself (the
        falling lists' search on pairs); ``packed`` is then None.

    Returns
    -------
    AntecedentSet
        Antecedents ordered by size, then by condition indices.
    """
    B = check_boolean_matrix(B, "B")
    w = check_counts(sample_weight, B.shape[0], rows_of="B")
    if conditions is not None and len(conditions) != B.shape[1]:
        raise ValueError(
            f"conditions has {len(conditions)} entries but B has {B.shape[1]} columns"
        )
    if prefer == "association" and y is None:
        raise ValueError("prefer='association' ranks conditions by their association with the "
                         "class: pass y, or use prefer='support'")
    y_mine = None if y is None or not per_class else np.asarray(y)
    if y_mine is not None and y_mine.shape[0] != B.shape[0]:
        raise ValueError(f"y has {y_mine.shape[0]} labels but B has {B.shape[0]} rows")
    cut = max_antecedents if prefer == "association" else None
    cell_bytes = MINING_BYTES_PER_CELL if keep_bits else 0.0
    if algorithm == "auto" and max_card <= 2:
        # Binarized data is dense (every row satisfies about half of each column's
        # threshold conditions), which makes FP-growth's trees large (adult, 0.1 within a
        # class, pairs: 23 s against apriori's 0.2 s); counting pairs directly is faster still
        found, n_mined, complete, counter = _direct(B, y_mine, y, min_support, max_card,
                                                    conditions, cut, max_bytes, w, cell_bytes)
    else:
        counter = None
        found = _frequent_itemsets(B, y_mine, min_support, max_card, algorithm, w)
        if conditions is not None:
            found = {s for s in found if not _has_redundant_pair(s, conditions)}
        n_mined, complete = len(found), not stopping()
        if cut is not None:
            found = _most_associated(found, B, y, cut, w)
    items = sorted(found, key=lambda s: (len(s), s))
    _check_memory(len(items), B.shape[0], min_support, max_card, max_bytes,
                  cell_bytes=cell_bytes)
    # supports without bits: read from the pair counts where mining kept them
    support = None if keep_bits or counter is None else counter.supports(items)
    if support is None:
        packed, support = antecedent_bits(B, items, w, keep=keep_bits)
    else:
        packed = None
    if prefer == "support" and max_antecedents is not None and len(items) > max_antecedents:
        keep = np.sort(np.argsort(-support, kind="stable")[:max_antecedents])
        items = [items[k] for k in keep]
        support = support[keep]
        packed = None if packed is None else packed[keep]
    return AntecedentSet(items, AntecedentNames(items, conditions), packed, B.shape[0], support,
                         n_mined, complete)


def antecedent_bits(B, items, w=None, *, keep=True) -> tuple:
    """The antecedents' capture bits and supports, from the conditions' bits.

    ``(packed, support)``: ``packed[l]`` is ``bitset.pack`` of the rows that
    meet every condition of ``items[l]`` (None when ``keep`` is false) and
    ``support[l]`` their number (sum of the whole weights ``w``), int64.  Each
    antecedent is the AND of its conditions' packed words, 64 rows at a time,
    so the boolean matrix of rows x antecedents is never made.
    """
    B = np.asarray(B, dtype=bool)
    n = B.shape[0]
    if n * len(items) < COMPILED_BITS_CELLS:
        # small pools are evaluated by numpy: a first fit then compiles no kernel for it
        dense = evaluate_antecedents(B, items)
        packed = bitset.pack(dense.T) if keep else None
        return packed, _weighted_support(dense, w)
    conditions = bitset.pack(B.T) if B.shape[1] else np.zeros((0, bitset.n_words(n)), np.uint64)
    width = max((len(item) for item in items), default=0)
    table = np.full((len(items), max(width, 1)), -1, dtype=np.int64)
    for l, item in enumerate(items):
        table[l, :len(item)] = item
    weights = np.zeros(0) if w is None else np.asarray(w, dtype=np.float64)
    out = np.zeros((len(items) if keep else 0, bitset.n_words(n)), dtype=np.uint64)
    support = np.zeros(len(items), dtype=np.float64)
    bitset.antecedent_words(conditions, table, bitset.ones(n), weights, keep, out, support)
    return (out if keep else None), support.astype(np.int64)


def _weighted_support(dense: np.ndarray, w) -> np.ndarray:
    """Rows (sums of weights ``w``) each column of ``dense`` holds for, int64."""
    if w is None:
        return dense.sum(axis=0).astype(np.int64)
    weights = w.astype(np.float64)
    n, d = dense.shape
    out = np.zeros(d, dtype=np.int64)
    # blocks of at most PAIR_BLOCK_CELLS cells: the product's float copy of a block is
    # bounded whatever the rows (sums of whole weights: exact in float64, then in int64)
    cols = min(d, 256) or 1
    rows = max(1, PAIR_BLOCK_CELLS // cols)
    for c in range(0, d, cols):
        for r in range(0, n, rows):
            out[c:c + cols] += (weights[r:r + rows] @ dense[r:r + rows, c:c + cols]).astype(np.int64)
    return out


def _frequent_itemsets(B, y, min_support, max_card, algorithm, w=None) -> set:
    """Itemsets frequent overall (``y`` None) or within at least one class of ``y``."""
    if y is None:
        return _frequent(B, min_support, max_card, algorithm, w)
    y = np.asarray(y)
    if y.shape[0] != B.shape[0]:
        raise ValueError(f"y has {y.shape[0]} labels but B has {B.shape[0]} rows")
    found = set()
    for label in np.unique(y):
        if stopping():
            break
        rows = y == label
        found |= _frequent(B[rows], min_support, max_card, algorithm,
                           None if w is None else w[rows])
    return found


def association_rank(B, y, w=None) -> np.ndarray:
    """Rank of each column of ``B`` by its association with the classes of ``y`` (0: strongest).

    The association of a condition is ``|phi|``, the correlation of its
    indicator with a class indicator (the largest over the classes when
    there are more than two); a constant condition has 0.  Ties keep the
    column order.  ``w``: frequency weights of the rows (None: ones); the
    counts below are then sums of weights.
    """
    B = np.asarray(B, dtype=bool)
    y = np.asarray(y)
    if w is not None and not (w > 0).all():  # rows of weight 0 are not there
        B, y, w = B[w > 0], y[w > 0], w[w > 0]  # (nor, then, their classes)
    n = B.shape[0] if w is None else int(w.sum())
    holds = _weighted_support(B, w).astype(np.float64)
    within, sizes = [], []
    labels = np.unique(y)
    for label in labels[1:] if len(labels) == 2 else labels:
        in_class = y == label
        sizes.append(float(in_class.sum() if w is None else w[in_class].sum()))
        # the class's rows weighted 1 and the others 0: no copy of the class's rows
        both = _weighted_support(B, in_class.astype(np.int64) if w is None else w * in_class)
        within.append(both.astype(np.float64))
    return _rank_by_phi(holds, within, sizes, float(n))


def _rank_by_phi(holds, within, sizes, n) -> np.ndarray:
    """Ranks by ``|phi|``, the largest over the classes given, from each condition's
    weight (``holds``), its weight within each class (``within``) and the classes'
    weights (``sizes``), of ``n`` in all (two classes: give the second only)."""
    phi = np.zeros(holds.size)
    for both, n1 in zip(within, sizes):
        # phi = (n * both - holds * n1) / sqrt(holds (n - holds) n1 (n - n1))
        spread = holds * (n - holds) * n1 * (n - n1)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(spread > 0, np.abs(n * both - holds * n1) / np.sqrt(spread), 0.0)
        phi = np.maximum(phi, value)
    # rounded, so that associations equal in exact arithmetic tie (and keep the
    # column order) whichever way the floats were formed
    rank = np.empty(holds.size, dtype=np.int64)
    rank[np.argsort(-np.round(phi, 12), kind="stable")] = np.arange(holds.size)
    return rank


def _most_associated(found, B, y, max_antecedents, w=None) -> set:
    """Every single condition, and the conjunctions of the most associated conditions that fit.

    A conjunction's *level* is the worst :func:`association_rank` of its
    conditions; conjunctions are kept level by level, whole levels only, so
    that the result does not depend on the order inside a level.
    """
    singles = {s for s in found if len(s) == 1}
    longer = [s for s in found if len(s) > 1]
    room = max_antecedents - len(singles)
    if room >= len(longer):
        return found
    if room <= 0:
        return singles
    rank = association_rank(B, y, w)
    level = np.fromiter((max(rank[j] for j in s) for s in longer), dtype=np.int64,
                        count=len(longer))
    first_left_out = np.sort(level)[room]
    return singles | {s for s, v in zip(longer, level) if v < first_left_out}


def _has_redundant_pair(itemset, conditions) -> bool:
    """Whether two conditions of ``itemset`` contradict or imply each other."""
    return any(redundant_pair(conditions[i], conditions[j])
               for a, i in enumerate(itemset) for j in itemset[a + 1:])


def _check_memory(n_items, n_rows, min_support, max_card, max_bytes, *, per_item=0,
                  at_least=False, cell_bytes=MINING_BYTES_PER_CELL) -> None:
    """ValueError, before anything is allocated, when the antecedents exceed ``max_bytes``.

    ``per_item`` bytes are added per antecedent for what exists before its
    rows do (a pair's tuple); ``at_least``: ``n_items`` is a count so far;
    ``cell_bytes``: bytes per antecedent and row (0 when the bits are not kept).
    """
    need = (cell_bytes * n_rows + per_item) * n_items
    if max_bytes is None or need <= max_bytes:
        return
    need /= 2**20
    raise ValueError(
        f"the {'more than ' if at_least else ''}{n_items} antecedents mined at "
        f"min_support={min_support:g} with up to {max_card} conditions need "
        f"{'over' if at_least else 'about'} {need:.2f} MB for {n_rows} rows while they "
        f"are built, more than the {max_bytes / 2**20:.4g} MB allowed (max_memory, or half "
        "the available memory and at most 4 GB for a learner without it): raise min_support "
        "(or c), lower max_card, cap the pool (max_antecedents), use fewer columns or "
        "thresholds, or set max_memory (where the learner has it) to at least "
        f"{np.ceil(need * 100) / 100:g}")
