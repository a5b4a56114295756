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
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import bitset
from ._checks import check_boolean_matrix, check_counts
from ._params import Integer, Options, Real, validated
from .binarize import Condition

__all__ = ["AntecedentSet", "mine_antecedents", "redundant_pair", "MINING_PARAMETERS"]

ALGORITHMS = ("auto", "fpgrowth", "apriori")
#: bytes per antecedent and row while antecedents are built: the boolean matrix, the
#: padded copy that packing makes, and the engines' unpacked matrix
MINING_BYTES_PER_CELL = 3

#: Declarations of the mining parameters (shared with the estimators that mine).
MINING_PARAMETERS = {
    "min_support": Real(0, 1, closed="right"),
    "max_card": Integer(1),
    "max_antecedents": Integer(1, allow_none=True),
    "prefer": Options("support", "association"),
    "algorithm": Options(*ALGORITHMS),
}


@dataclass(frozen=True)
class AntecedentSet:
    """A pool of antecedents over one condition matrix.

    Attributes
    ----------
    items : list of tuple of int
        Each antecedent as the sorted indices of the conditions it ANDs.
    names : list of str
        Readable form, e.g. ``"age <= 25 and priors > 3"``.
    packed : ndarray of uint64, shape (M, W)
        Antecedent-by-sample capture bits on the mining data.
    n_samples : int
        Number of samples the bits cover.
    support : ndarray of int, shape (M,)
        Samples each antecedent captures on the mining data (sums of the
        frequency weights when mining was weighted).
    n_mined : int or None
        Antecedents found before ``max_antecedents`` cut the pool (None:
        not recorded).
    """

    items: list
    names: list
    packed: np.ndarray
    n_samples: int
    support: np.ndarray = field(repr=False)
    n_mined: int | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def matrix(self) -> np.ndarray:
        """Boolean (n_samples, M) antecedent matrix, as the engines take it."""
        if not self.items:
            return np.zeros((self.n_samples, 0), dtype=bool)
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


def _frequent_pairs(B: np.ndarray, min_support: float, max_card: int, w=None) -> set:
    """Frequent single conditions and pairs, counted directly.

    One matrix product counts every pair at once (``B.T @ B``), where apriori
    builds a candidate frame per level: on adult (48,842 rows, 80 conditions,
    support 0.001) 0.1 s against 6.6 s.  The itemsets are exactly apriori's:
    support is ``count / n_rows >= min_support``, the same comparison.  With
    frequency weights ``w`` the product is ``(w * B).T @ B`` and ``n_rows``
    their total: the same numbers, in the same precision, as on the rows
    repeated.
    """
    n = B.shape[0] if w is None else int(w.sum())
    # float32 sums are exact below 2**24 rows; float64 beyond
    Bf = B.astype(np.float32 if n < 2**24 else np.float64)
    counts = Bf.T @ Bf if w is None else (Bf * w.astype(Bf.dtype)[:, None]).T @ Bf
    frequent = np.diag(counts) / n >= min_support
    found = {(int(j),) for j in np.flatnonzero(frequent)}
    if max_card >= 2:
        i, j = np.nonzero(np.triu(counts / n >= min_support, k=1))
        keep = frequent[i] & frequent[j]
        found |= {(int(a), int(b)) for a, b in zip(i[keep], j[keep])}
    return found


def _frequent(B: np.ndarray, min_support: float, max_card: int, algorithm: str,
              w=None) -> set:
    """Frequent itemsets of one block of rows (``w``: their weights), as sorted tuples."""
    from mlxtend.frequent_patterns import apriori, fpgrowth

    if w is not None:
        B, w = B[w > 0], w[w > 0]  # rows of weight 0 are not there
    if B.shape[0] == 0 or B.shape[1] == 0:
        return set()
    if w is not None and not (algorithm == "auto" and max_card <= 2):
        return _frequent_weighted(B, w, min_support, max_card, algorithm)
    if algorithm == "auto" and max_card <= 2:
        # Binarized data is dense (every row satisfies about half of each column's
        # threshold conditions), which makes FP-growth's trees large (adult, 0.1 within a
        # class, pairs: 23 s against apriori's 0.2 s); counting pairs directly is faster still
        return _frequent_pairs(B, min_support, max_card, w)
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
        Memory the antecedents may take while they are built (about three
        bytes per antecedent and row: the boolean matrix, its packing and the
        engines' copy).  More is a ``ValueError`` that says how much they need,
        raised before any of it is allocated.
    sample_weight : array-like of int, shape (n_samples,), optional
        Frequency weights: a row of weight ``k`` counts as ``k`` identical
        rows (whole numbers >= 0, else a ``ValueError``); supports are
        fractions of the total weight (of the class's total with
        ``per_class``), and ``prefer`` ranks by weighted supports and
        associations.  The antecedents are exactly those mined from the
        rows repeated, in the same order; the bits are over the rows given.
        Conjunctions of three or more conditions are then counted by this
        module rather than by mlxtend (see ``algorithm``).

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
    found = _frequent_itemsets(B, y if per_class else None, min_support, max_card, algorithm, w)
    if conditions is not None:
        found = {s for s in found if not _has_redundant_pair(s, conditions)}
    n_mined = len(found)
    if prefer == "association" and max_antecedents is not None:
        found = _most_associated(found, B, y, max_antecedents, w)
    items = sorted(found, key=lambda s: (len(s), s))
    _check_memory(len(items), B.shape[0], min_support, max_card, max_bytes)
    dense = evaluate_antecedents(B, items)
    support = _weighted_support(dense, w)
    if prefer == "support" and max_antecedents is not None and len(items) > max_antecedents:
        keep = np.sort(np.argsort(-support, kind="stable")[:max_antecedents])
        items = [items[k] for k in keep]
        dense, support = dense[:, keep], support[keep]
    if conditions is not None:
        names = [" and ".join(str(conditions[j]) for j in s) for s in items]
    else:
        names = [" and ".join(f"c{j}" for j in s) for s in items]
    packed = bitset.pack(dense.T) if items else np.zeros((0, bitset.n_words(B.shape[0])), np.uint64)
    return AntecedentSet(items, names, packed, B.shape[0], support, n_mined)


def _weighted_support(dense: np.ndarray, w) -> np.ndarray:
    """Rows (sums of weights ``w``) each column of ``dense`` holds for, int64."""
    if w is None:
        return dense.sum(axis=0).astype(np.int64)
    weights = w.astype(np.float64)
    out = np.zeros(dense.shape[1], dtype=np.int64)
    step = 256  # columns per product: bounds the float copy of the block
    for start in range(0, dense.shape[1], step):
        out[start:start + step] = weights @ dense[:, start:start + step]
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
    if w is not None:  # rows of weight 0 are not there (nor, then, their classes)
        B, y, w = B[w > 0], y[w > 0], w[w > 0]
    n = B.shape[0] if w is None else int(w.sum())
    holds = _weighted_support(B, w).astype(np.float64)
    phi = np.zeros(B.shape[1])
    labels = np.unique(y)
    for label in labels[1:] if len(labels) == 2 else labels:
        in_class = y == label
        n1 = float(in_class.sum() if w is None else w[in_class].sum())
        both = _weighted_support(B[in_class], None if w is None else w[in_class])
        both = both.astype(np.float64)
        # phi = (n * both - holds * n1) / sqrt(holds (n - holds) n1 (n - n1))
        spread = holds * (n - holds) * n1 * (n - n1)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(spread > 0, np.abs(n * both - holds * n1) / np.sqrt(spread), 0.0)
        phi = np.maximum(phi, value)
    # rounded, so that associations equal in exact arithmetic tie (and keep the
    # column order) whichever way the floats were formed
    rank = np.empty(B.shape[1], dtype=np.int64)
    rank[np.argsort(-np.round(phi, 12), kind="stable")] = np.arange(B.shape[1])
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


def _check_memory(n_items, n_rows, min_support, max_card, max_bytes) -> None:
    """ValueError, before anything is allocated, when the antecedents exceed ``max_bytes``."""
    if max_bytes is None or MINING_BYTES_PER_CELL * n_items * n_rows <= max_bytes:
        return
    need = MINING_BYTES_PER_CELL * n_items * n_rows / 2**20
    raise ValueError(
        f"the {n_items} antecedents mined at min_support={min_support:g} with up to "
        f"{max_card} conditions need about {need:.2f} MB for {n_rows} rows while they "
        f"are built, more than the {max_bytes / 2**20:.4g} MB that max_memory allows: raise "
        f"min_support (or c), lower max_card, or set max_memory to at least "
        f"{np.ceil(need * 100) / 100:g}")
