"""Monte-Carlo search for falling (FRL) and softly falling (softFRL) rule lists.

Chen & Rudin, "An Optimization Approach to Learning Falling Rule Lists",
AISTATS 2018: Algorithm FRL (Section 3, Appendix A) minimises Program 2.9
over falling lists, Algorithm softFRL (Section 5, Appendix B) minimises
Program 5.1 over all lists.

Each iteration of :func:`search` builds one compatible rule list top-down:
it stops when the early-termination test proves stopping optimal, with
probability ``stop_prob``, or when no antecedent survives the pruning rules
(falling constraint, Cor. 4.5, Prop. 4.2 feasibility and the prefix bound
against the incumbent); otherwise it draws the next antecedent with
probability proportional to its curiosity.  The best list over all
iterations is returned (the first one found wins ties).

The search ends before ``n_iter`` iterations when the root's bound reaches
the incumbent: the list is then proved optimal over the given antecedents
(status ``"optimal"``) and no iteration could improve it.  The result does
not depend on the machine's speed: the kernel's random draws do not depend on
how the iterations are split into batches.  With no antecedents the result
is the else-only list; if all rows share one class the root's
early-termination test holds and the result is the else-only list with
probability 0 or 1.

``prefix_memo`` is an addition to the paper's algorithm: it only removes
lists that cannot improve the incumbent, so every property of the paper's
search holds, but fewer iterations are spent rebuilding known lists, and the
root's bound gives a valid lower bound.  ``factors`` lets the search count on
the columns of ``B``, which stay in the CPU's cache, instead of reading all
of ``A`` for every rule it draws: the same counts and the same result,
several times faster on many antecedents.  With factors and whole weights,
rows that no antecedent tells apart are folded into one before packing
(:func:`_fold_on_factors`): again the same counts, on fewer words.

The public entry point is :func:`search`.  It checks its input against
:data:`SEARCH_PARAMETERS`, packs the antecedent matrix into per-class bit
vectors (:mod:`rulekit.bitset`) and drives the compiled batch kernel of
:mod:`._kernels` on the shared anytime loop (:class:`rulekit._anytime.Anytime`)
until the iteration budget, a proof of optimality, the time limit, a callback
or Ctrl-C ends the search.  Pure numpy in, frozen dataclass out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rulekit import evaluate
from rulekit._anytime import Anytime, check_allocation, stop_status
from rulekit._checks import check_boolean_matrix, check_labels, check_sample_weight
from rulekit._params import (COMMON_PARAMETERS, Boolean, Integer, Real, as_generator, declared, pick,
                             validated)
from rulekit.bitset import n_words, pack, pack_row_bytes
from rulekit.certificate import Certificate

from . import _kernels
from ._objective import list_objective, monotonicity_penalty, running_minimum

__all__ = ["search", "FRLResult", "SearchTrace", "SEARCH_PARAMETERS", "capture_counts",
           "candidate_set"]

#: Declarations of :func:`search`'s parameters (shared with the estimators).
SEARCH_PARAMETERS = {
    "w": Real(0, None, closed="neither"),
    "C": Real(0, None),
    "C1": Real(0, None, allow_none=True),
    "n_iter": Integer(1),
    "curiosity_lambda": Real(0, 1),
    "stop_prob": Real(0, 1),
    "prefix_memo": Boolean(),
    **pick(COMMON_PARAMETERS, "random_state", "time_limit", "callback", "verbose"),
}

# Prefixes remembered by the memo (hash-table slots and node arrays: about
# 60 bytes each, 56 MB at most); beyond this the search goes on without
# remembering new prefixes.
_MAX_MEMO_NODES = 1_000_000
# Candidates the candidate cache holds over all prefixes (45 bytes each: at
# most 90 MB, touched only as it fills; counts are weights, so float64); beyond this, prefixes not stored
# yet are counted on every visit.
_CACHE_ENTRIES = 2_000_000


@dataclass(frozen=True)
class SearchTrace:
    """What the search did, iteration by iteration.

    Attributes
    ----------
    objective : ndarray of float, shape (n_iter_done,)
        Objective of the list built in each iteration.
    best_objective : ndarray of float, shape (n_iter_done,)
        Incumbent objective after each iteration (non-increasing).
    candidate_sizes : ndarray of int32
        Size of the candidate set at every extension step, all iterations
        concatenated; iteration ``i`` owns
        ``candidate_sizes[candidate_offsets[i]:candidate_offsets[i + 1]]``
        (entry ``d`` = candidates considered for rule ``d``; a final 0 means
        the list ended because no candidate survived).
    candidate_offsets : ndarray of int64, shape (n_iter_done + 1,)
    """

    objective: np.ndarray
    best_objective: np.ndarray
    candidate_sizes: np.ndarray
    candidate_offsets: np.ndarray

    def candidate_set_sizes(self, iteration: int) -> np.ndarray:
        """Per-depth candidate set sizes of one iteration."""
        lo, hi = self.candidate_offsets[iteration], self.candidate_offsets[iteration + 1]
        return self.candidate_sizes[lo:hi]

    @classmethod
    def from_batches(cls, batches) -> "SearchTrace":
        """Concatenate the kernel's ``(objective, best, sizes, offsets)`` batches."""
        sizes, offsets, total = [], [np.zeros(1, np.int64)], 0
        for _, _, sz, off in batches:
            sizes.append(sz)
            offsets.append(off[1:] + total)
            total += sz.shape[0]
        return cls(
            objective=np.concatenate([b[0] for b in batches]) if batches else np.empty(0),
            best_objective=(np.concatenate([b[1] for b in batches]) if batches
                            else np.empty(0)),
            candidate_sizes=(np.concatenate(sizes).astype(np.int32) if sizes
                             else np.empty(0, np.int32)),
            candidate_offsets=np.concatenate(offsets),
        )


@dataclass(frozen=True)
class FRLResult:
    """Best rule list found by :func:`search`.

    Attributes
    ----------
    prefix : tuple of int
        Antecedent (column) indices of the rules, in list order.
    proportions : ndarray of float, shape (K + 1,)
        Empirical positive proportion of each rule, the else clause last.
    probabilities : ndarray of float, shape (K + 1,)
        Probabilities the list states: the proportions for FRL, their
        running minimum for softFRL.  Always non-increasing.
    counts : ndarray of int64, shape (K + 1, 2)
        ``(n_pos, n_neg)`` training rows each rule (then the else) captures
        (their summed weights with ``sample_weight``: float64 when a weight
        is fractional).
    objective : float
        ``L(d)`` for FRL, ``L(d) + C1 S(d)`` for softFRL, with the
        proportions (not the stated probabilities).
    risk : float
        Weighted training risk ``R(d)`` (Eq. 4) of the compatible list.
    penalty : float
        Monotonicity penalty ``S(d)`` (0 for FRL).
    threshold : float
        ``1 / (1 + w)``: a rule predicts 1 iff its probability exceeds it.
    soft : bool
        True for the softly falling program.
    status : str
        A :class:`~rulekit.certificate.Certificate` status:
        ``"optimal"`` when the prefix bounds proved that no list of the
        program over the given antecedents is better (common on small
        problems), ``"heuristic"`` when the iterations ran out without a
        proof, ``"time_limit"`` or ``"interrupted"`` (Ctrl-C or the callback)
        when a limit stopped the search first.
    lower_bound : float or None
        The root's node bound (see ``prefix_memo``): no list of the program
        over the given antecedents scores below it.  None when the search
        never computed one (it stopped at the root at random every time).
        The certificate carries it only as the proof of an ``"optimal"``
        result (where it equals the objective).
    n_iter_done : int
        Iterations actually run.
    trace : SearchTrace
    w, C, C1 : float
        The parameters the objective used (``C1`` None for FRL).
    """

    prefix: tuple
    proportions: np.ndarray
    probabilities: np.ndarray
    counts: np.ndarray
    objective: float
    risk: float
    penalty: float
    threshold: float
    soft: bool
    status: str
    lower_bound: float | None
    n_iter_done: int
    trace: SearchTrace
    w: float
    C: float
    C1: float | None = None

    def scope(self, antecedents: str = "the given antecedents") -> str:
        """Which lists the claim covers and what the objective is, in words."""
        program = "softly falling" if self.soft else "falling"
        penalty = "" if self.C1 is None else f" + {self.C1:g} x rise (softly falling penalty)"
        return (f"{program} rule lists over {antecedents}; objective = weighted "
                f"risk (w={self.w:g}) + {self.C:g} x rules{penalty}")

    @property
    def certificate(self) -> Certificate:
        """The claim: status, objective, lower bound, over which lists."""
        # The root's bound is valid but weak on real data (about 0.07 against
        # objectives near 0.56 on bank-full), so an unproved search claims
        # nothing ("heuristic"), as the paper's algorithm does; the bound
        # stays available in ``lower_bound`` and in the progress records.
        return Certificate(self.status, self.objective, None, self.scope())

    def __repr__(self) -> str:  # short: the trace is long
        return (f"FRLResult(prefix={self.prefix}, objective={self.objective:.10g}, "
                f"status={self.status!r}, n_iter_done={self.n_iter_done})")


# --- input checks -------------------------------------------------------------

def _check_data(A, y):
    """The antecedent matrix (at least one row) and the binary labels, checked."""
    A = check_boolean_matrix(A, "A", min_rows=1)
    return A, check_labels(y, A.shape[0], "y", binary=True)


# --- the search -----------------------------------------------------------

class _Packed:
    """The data as the kernel reads it: per-class bit vectors of the factors and root counts.

    Without ``factors`` each antecedent is its own factor (``P[l]``, ``Q[l]``
    are antecedent ``l``); with ``factors = (B, items)`` the factors are
    ``B``'s columns and antecedent ``l`` is the AND of the columns in
    ``items[l]`` (see :mod:`._kernels`).  With weights, every count is the
    summed weight of the rows: rows of weight 0 are left out, and each
    class's rows are packed lightest first, so that words of one weight are
    counted with one popcount (:func:`._kernels.weight_layout`).
    """

    def __init__(self, A, yb, soft, factors=None, weights=None):
        if factors is None:
            n_ante = A.shape[1]
            F = A
            self.items = np.column_stack([np.arange(n_ante, dtype=np.int64),
                                          np.full(n_ante, -1, dtype=np.int64)])
        else:
            F, self.items = factors
        rows_p, rows_n = np.flatnonzero(yb), np.flatnonzero(~yb)
        self.n_pos = float(len(rows_p) if weights is None else weights[rows_p].sum())
        self.n_neg = float(len(rows_n) if weights is None else weights[rows_n].sum())
        pos, neg, self.whole = _class_slots(F, self.items, yb, weights)
        # P over the positive rows, Q over the negative rows (factor-major)
        self.P, self.full_p = _pack_rows(F, pos)
        self.Q, self.full_n = _pack_rows(F, neg)
        self.lay_p = _kernels.weight_layout(_slot_weights(pos, weights), len(pos), self.whole)
        self.lay_q = _kernels.weight_layout(_slot_weights(neg, weights), len(neg), self.whole)
        self.root_p = _kernels.root_counts(self.P, self.items, self.full_p, self.lay_p)
        self.root_q = _kernels.root_counts(self.Q, self.items, self.full_n, self.lay_q)
        # antecedents that can never be a candidate in any list are left out early
        self.root_active = (self.root_p > 0) if not soft else (self.root_p + self.root_q > 0)
        # counting in cache-sized blocks of words pays on large data only
        self.block = _kernels.block_words(max(self.P.shape[1], self.Q.shape[1]))
        # when a prefix's counts come from its parent's less the rows its last
        # rule took (exact for whole weights only)
        self.capture_share = _kernels.capture_share(self.whole, self.block)
        # each row's factor bits, row-major, for counts that gather the rows they
        # are given (none when they do not: small data, fractional weights)
        gather = _kernels.compacts(self.whole, self.block)
        self.R_p, self.R_q = (_kernels.row_major(M) if gather else np.zeros((0, 1), np.uint64)
                              for M in (self.P, self.Q))

    def kernel_data(self) -> tuple:
        """The tuple :func:`._kernels.chunk` unpacks first."""
        return (self.P, self.Q, self.items, self.full_p, self.full_n, self.root_p, self.root_q,
                self.root_active, self.n_pos, self.n_neg, self.lay_p, self.lay_q, self.block,
                self.capture_share, self.R_p, self.R_q)


def _class_slots(F, items, yb, weights):
    """The slots of the positive and the negative rows (see :func:`_slots`), and
    whether the weights are whole (then the kernels sum them as int64: exact
    below ``2**53``).

    With whole weights, the rows of one weight are packed in the order of
    their first factors' bits (:func:`_row_key`; integer counts do not depend
    on the order), so that a factor's rows are runs of words
    (see :func:`._kernels._count_class`).
    """
    pos, neg = np.flatnonzero(yb), np.flatnonzero(~yb)
    whole = _whole(weights)
    key = _row_key(F, items) if whole else None
    if weights is not None:
        pos, neg = (_slots(rows, weights, key) for rows in (pos, neg))
    elif key is not None:
        pos, neg = (rows[np.argsort(key[rows], kind="stable")] for rows in (pos, neg))
    return pos, neg, whole


def _whole(weights) -> bool:
    """Whether every weight is a whole number (None: every row 1) and their sum is
    below ``2**53``, so that every summed count is exact in floating point."""
    return weights is None or bool(np.all(weights == np.round(weights))
                                   and weights.sum() < 2.0 ** 53)


def _row_key(F, items, chunk=1 << 16):
    """A sort key of every row of the factor matrix ``F``: the bits of the 64
    factors that are first in the most pairs, the most frequent first."""
    if F.shape[1] == 0:
        return None
    order = np.argsort(-np.bincount(items[:, 0], minlength=F.shape[1]), kind="stable")[:64]
    key = np.empty(F.shape[0], np.uint64)
    for lo in range(0, F.shape[0], chunk):  # a byte a cell at a time: chunks bound it
        bits = np.zeros((min(chunk, F.shape[0] - lo), 64), bool)
        bits[:, :len(order)] = F[lo:lo + chunk][:, order]
        key[lo:lo + chunk] = np.packbits(bits, axis=1).view(">u8")[:, 0]
    return key


def _slots(rows, weights, key=None):
    """Where the kernels keep each row of one class: row indices, -1 for an empty slot.

    Rows of weight 0 are left out, the others are ordered lightest first
    (the rows of weight 1, most of them when the rows are folded copies,
    come first and are counted with plain popcounts), rows of one weight by
    ``key`` when given,
    and, when it costs at most a quarter more words, each run of one weight
    starts a new 64-row word: every word then holds rows of one weight and
    is counted with one popcount (:func:`._kernels.weight_layout`).
    """
    rows = rows[weights[rows] > 0]
    if key is None:
        rows = rows[np.argsort(weights[rows], kind="stable")]
    else:           # by weight, then by key
        rows = rows[np.lexsort((key[rows], weights[rows]))]
    starts = np.flatnonzero(np.r_[True, np.diff(weights[rows]) != 0])
    if len(starts) * 64 > len(rows) // 4 + 256:
        return rows
    lengths = np.diff(np.r_[starts, len(rows)])
    padded = (lengths + 63) // 64 * 64
    out = np.full(int(padded.sum()), -1, dtype=np.int64)
    at = np.r_[0, np.cumsum(padded)[:-1]]
    for begin, first, size in zip(at, starts, lengths):
        out[begin:begin + size] = rows[first:first + size]
    return out


def _slot_weights(slots, weights):
    """The weight in each slot (NaN: empty), or None without weights."""
    if weights is None:
        return None
    return np.where(slots >= 0, weights[np.maximum(slots, 0)], np.nan)


def _pack_rows(F, slots, chunk=1 << 16):
    """The factors' bits over ``slots`` (empty slots 0), factor-major, and the bits of
    the rows held.

    ``F`` is row-major (rows x factors).  The slots are packed a block of
    ``chunk`` rows (a multiple of 64: whole words) at a time, so no transposed
    or gathered copy of every row is made (at ten million rows each was a
    few hundred MB).
    """
    held = slots >= 0
    out = np.empty((F.shape[1], n_words(len(slots))), np.uint64)
    for lo in range(0, len(slots), chunk):
        part = slots[lo:lo + chunk]
        bits = F[np.maximum(part, 0)].T
        if not held[lo:lo + chunk].all():
            bits = bits & held[lo:lo + chunk]
        out[:, lo // 64:lo // 64 + n_words(len(part))] = pack(bits)
    return out, pack(held)


#: fold the rows on the factors the antecedents use when that leaves at most
#: this share of them (a few rows fewer do not pay for the weights they bring)
FOLD_AT_MOST = 0.9


def _fold_on_factors(B, items, yb, weights):
    """The rows of ``B`` that agree on every column an antecedent uses, in one class,
    as one row weighing what they weigh together: ``(B', items', y', weights')``,
    or None when that leaves more than :data:`FOLD_AT_MOST` of the rows or the
    weights are not whole.

    The search sees the rows only through the summed weights of the rows an
    antecedent takes, so rows that no antecedent tells apart count as one row
    of their summed weight: the same whole counts, hence the same lists,
    certificates and traces, on fewer words.  Conditions that reached no
    antecedent (below ``min_support`` in both classes, say) are what tells the
    data's distinct rows apart here: on adult-like data at ten million rows, 82
    of 116 conditions are used and 3.73 million distinct rows fold to 2.35
    million.  Non-whole weights are left as they are, since summing them
    could change a float count in its last bit.
    """
    if not _whole(weights):
        return None
    n = B.shape[0]
    used = np.unique(items[items >= 0])
    if n < 2 or len(used) == 0:
        return None
    keys = pack_row_bytes(B, used)    # no boolean copy of every row's used columns
    first, group = evaluate.group_rows(keys, yb[:, None])
    del keys
    if len(first) > FOLD_AT_MOST * n:
        return None
    count = np.ones(n) if weights is None else weights
    folded_w = np.bincount(group, weights=count, minlength=len(first))
    remap = np.full(B.shape[1], -1, np.int64)
    remap[used] = np.arange(len(used))
    folded_items = np.where(items >= 0, remap[np.maximum(items, 0)], -1)
    return B[np.ix_(first, used)], folded_items, yb[first], folded_w


def _check_factors(factors, A):
    """``factors = (B, items)`` as the kernel takes them, or ValueError/TypeError
    (``A`` None: the antecedents are the ANDs, and B needs at least one row)."""
    try:
        B, items = factors
    except (TypeError, ValueError):
        raise TypeError("factors must be a pair (B, items)") from None
    B = check_boolean_matrix(B, "B", min_rows=1 if A is None else 0)
    if A is not None and B.shape[0] != A.shape[0]:
        raise ValueError(f"factors: B has {B.shape[0]} rows but A has {A.shape[0]}")
    if A is not None and len(items) != A.shape[1]:
        raise ValueError(f"factors: {len(items)} items for the {A.shape[1]} columns of A")
    sizes = np.fromiter((len(item) for item in items), dtype=np.int64, count=len(items))
    out = np.full((len(items), 2), -1, dtype=np.int64)
    bad = np.flatnonzero((sizes < 1) | (sizes > 2))
    if bad.size == 0:
        for size in (1, 2):
            rows = np.flatnonzero(sizes == size)
            if rows.size:
                out[rows, :size] = np.asarray([items[l] for l in rows]).reshape(-1, size)
        bad = np.flatnonzero((((out < 0) & (np.arange(2) < sizes[:, None]))
                              | (out >= B.shape[1])).any(axis=1))[:1]
    if bad.size:
        raise ValueError(f"factors: item {bad[0]} must hold one or two column indices of B "
                         f"(0..{B.shape[1] - 1}), got {tuple(items[bad[0]])!r}")
    return B, out


def _check_memory(A, factors) -> None:
    """Refuse, before the search allocates, what the memory budget does not allow.

    The search holds the prefix memo and the candidate cache (fixed tables,
    about 150 MB at most, and 64 MB at most of every antecedent's counts for
    shallow prefixes), a few numbers per antecedent, and its factors'
    rows twice while it packs them (the rows folded on the factors used,
    never more than the rows given, and their bits), and once more
    row-major, 8 bytes a row per 64 factors (:func:`._kernels.row_major`).
    """
    F = A if factors is None else factors[0]
    n_ante = A.shape[1] if factors is None else factors[1].shape[0]
    fixed = 60 * _MAX_MEMO_NODES + 45 * _CACHE_ENTRIES + _kernels.FULL_COUNTS_BYTES
    need = (fixed + 100 * n_ante + 1.125 * F.shape[0] * F.shape[1]
            + 8 * F.shape[0] * -(-F.shape[1] // 64))
    check_allocation(need, f"the falling-rule-list search over {n_ante:,} antecedents "
                     f"and {F.shape[0]:,} rows",
                     "mine fewer antecedents (a higher min_support, max_card=1, a smaller "
                     "max_antecedents) or use fewer columns")


class _Run:
    """Incumbent, prefix memo and trace batches of one search, kept between steps."""

    def __init__(self, data: _Packed, p: dict, rng):
        n_ante = data.items.shape[0]
        self.data, self.p, self.rng = data, p, rng
        self.best_prefix = np.zeros(max(n_ante, 1), dtype=np.int64)
        self.best_len = np.zeros(1, dtype=np.int64)
        self.best_obj = np.full(1, np.inf)
        self.batches = []           # (objective, best, sizes, offsets) per kernel call
        self.done = 0
        self.proved = False
        # The prefix memo (see _kernels): child links and node bounds.
        # max_nodes = 0 keeps only the root, i.e. the paper's search.
        self.max_nodes = _MAX_MEMO_NODES if p["prefix_memo"] else 0
        # child links: a hash table at most half full (see _kernels._child);
        # node bounds by node id, -inf until the node is bounded
        size = 1 << max(2, (2 * self.max_nodes - 1).bit_length())
        self.children = (np.full(size, -1, np.int64), np.zeros(size, np.int64))
        self.node_lb = np.full(max(self.max_nodes, 1), -np.inf)
        self.node_count = np.ones(1, np.int64)
        # children per node and the root's children by antecedent (see _kernels._child);
        # np.zeros of the 1M-node table costs nothing until nodes are made
        self.n_children = np.zeros(max(self.max_nodes, 1), np.int32)
        self.root_child = np.full(max(n_ante, 1), -1, np.int64)
        # the candidate cache (see _kernels), for the prefixes the memo names
        self.cache = _kernels.empty_cache(max(self.max_nodes, 1), _CACHE_ENTRIES,
                                          n_ante if _CACHE_ENTRIES else 0)
        # softFRL's table for its cheap test (see _kernels.candidates)
        self.g_floors = _kernels.g_floor_table(_kernels.g_floor_size(data.whole, data.n_pos),
                                               p["w"], p["C1"], data.n_pos + data.n_neg)
        self._saved = None

    def lower_bound(self) -> float | None:
        """The root's node bound, capped by the incumbent (None before any bound)."""
        root = float(_kernels.root_bound(self.node_lb))
        if not math.isfinite(root):
            return None
        return min(root, float(self.best_obj[0]))

    def step(self, budget: int, run: Anytime):
        """One kernel batch of at most ``budget`` iterations (the driver's step)."""
        d, p = self.data, self.p
        k = min(budget, p["n_iter"] - self.done)
        obj_out, best_out = np.empty(k), np.empty(k)
        # if a second Ctrl-C lands before the batch is recorded, the incumbent
        # goes back to this copy so that result and trace agree
        self._saved = (self.best_prefix.copy(), self.best_len.copy(), self.best_obj.copy())
        n_done, sizes, offsets = _kernels.chunk(
            d.kernel_data(), p["C1"], (p["w"], p["C"], p["curiosity_lambda"], p["stop_prob"],
                                       self.g_floors),
            self.rng, k, (self.best_prefix, self.best_len, self.best_obj), (obj_out, best_out),
            (self.children, self.node_lb, self.node_count, self.max_nodes, self.n_children,
             self.root_child, self.cache))
        self.batches.append((obj_out[:n_done], best_out[:n_done], sizes, offsets))
        self._saved = None
        self.done += n_done
        self.proved = bool(_kernels.root_bound(self.node_lb) >= self.best_obj[0])
        status = "done" if self.proved or self.done >= p["n_iter"] else None
        state = run.state(self.done, best_objective=float(self.best_obj[0]),
                          lower_bound=self.lower_bound(),
                          info={"memo": int(self.node_count[0])})
        return status, state

    def restore_if_unrecorded(self) -> None:
        if self._saved is not None:
            self.best_prefix[:], self.best_len[:], self.best_obj[:] = self._saved
            self._saved = None


@validated(SEARCH_PARAMETERS, "frl.search")
def search(A, y, *, w, C, C1=None, n_iter, curiosity_lambda=0.8, stop_prob=0.01,
           random_state=0, time_limit=None, callback=None, verbose=0,
           prefix_memo=True, factors=None, sample_weight=None) -> FRLResult:
    """Monte-Carlo search for a falling or softly falling rule list.

    How the lists are built and when the search ends: see the module docstring.

    Parameters
    ----------
    A : array_like of bool, shape (n_samples, n_antecedents), or None
        ``A[i, l]`` is true iff row ``i`` satisfies antecedent ``l``.  None
        when ``factors`` are given: each antecedent is then the AND of its
        item's columns of ``B``, and no matrix of rows x antecedents is made.
    y : array_like, shape (n_samples,)
        Labels in {0, 1}; 1 is the positive ("desired") class.
    w : float
        Positive-class weight, ``w > 0``; the decision threshold is
        ``1/(1+w)``.
    C : float
        Cost per rule, ``C >= 0``.
    C1 : float or None, default=None
        ``None`` solves the falling program (FRL).  A number ``>= 0`` solves
        the softly falling program (softFRL) with penalty weight ``C1``.
    n_iter : int
        Number of iterations (lists built), ``>= 1``.
    curiosity_lambda : float, default=0.8
        Mix ``lambda`` of the curiosity function (Eq. 11/12), in [0, 1].
    stop_prob : float, default=0.01
        Probability of closing the list at each extension step, in [0, 1].
    random_state : None, int, SeedSequence, numpy Generator or RandomState, default=0
        Source of randomness; the global numpy state is never used.  A
        Generator passed in is advanced.
    time_limit : float or None, default=None
        Wall-clock seconds after which the search returns its incumbent with
        status ``"time_limit"`` (checked between short batches of
        iterations, about every 0.05 s).  Inside an estimator's fit the
        earlier deadline of the two applies.
    callback : callable or None, default=None
        Called about four times a second with a
        :class:`rulekit._anytime.SearchState` (``work`` = iterations done,
        ``best_objective``, ``lower_bound`` = the root's memo bound or None,
        ``info["memo"]`` = prefixes remembered); a truthy return value stops
        the search (status ``"interrupted"``).
    verbose : int, default=0
        1 or more: a progress bar on stderr.
    prefix_memo : bool, default=True
        Remember a lower bound for every prefix already extended and drop a
        prefix from its parent's candidate set once that bound is not below
        the incumbent (no strictly better list starts with it).  ``False``
        runs the paper's algorithm exactly.
    factors : tuple (B, items) or None, default=None
        What ``A`` is made of, when it is known: ``B`` a boolean (n_samples,
        d) matrix and ``items`` one tuple of one or two column indices of
        ``B`` per column of ``A``, whose AND that column is (as
        :func:`rulekit.mine_antecedents` builds them).  It is the caller's
        promise that ``A`` equals the ANDs; ``A`` itself is only read for
        the final list's counts.
    sample_weight : array_like of float, shape (n_samples,), or None, default=None
        Non-negative weight of each row (None: every row 1).  Every count of
        the objective and the bounds (the positives and negatives a rule
        captures, the rows left, ``n``) is then a sum of weights.  A row of
        whole weight ``k`` is exactly ``k`` copies of it: the same search,
        list, objective and certificate (whole counts are exact in floating
        point below ``2**53``).  Rows of weight 0 take no part.

    Returns
    -------
    FRLResult
        The best list, its counts, proportions, stated probabilities,
        objective, the trace, the status and ``.certificate``.  Ctrl-C during
        the search also returns the incumbent, with status ``"interrupted"``.

    Raises
    ------
    ValueError, TypeError
        Invalid parameters or data; the message names the parameter.
    """
    p = declared(SEARCH_PARAMETERS, locals())
    if A is None:
        if factors is None:
            raise TypeError("A is None: pass the antecedent matrix, or factors=(B, items) "
                            "whose ANDs are its columns")
        factors = _check_factors(factors, None)
        yb = check_labels(y, factors[0].shape[0], "y", binary=True)
    else:
        A, yb = _check_data(A, y)
        if factors is not None:
            factors = _check_factors(factors, A)
    n_rows = yb.shape[0]
    weights = check_sample_weight(sample_weight, n_rows, rows_of="A" if A is not None else "B",
                                  positive=True)
    _check_memory(A, factors)
    stop = stop_status()
    if stop is not None:
        # out of time (or interrupted) before the rows are folded and packed, which takes
        # seconds on millions of rows: the empty list, with the status that stopped it
        if A is None:
            A = np.zeros((n_rows, 0), dtype=bool)
        return _finish(A, yb, weights, ((), ()), p, stop, 0, SearchTrace.from_batches([]),
                       None)
    folded = _fold_on_factors(*factors, yb, weights) if A is None else None
    if folded is None:
        packed = _Packed(A, yb, C1 is not None, factors, weights)
    else:  # the folded rows are packed, then let go: the search reads only the bits
        fB, f_items, f_yb, f_weights = folded
        packed = _Packed(None, f_yb, C1 is not None, (fB, f_items), f_weights)
        del folded, fB
    job = _Run(packed, p, as_generator(random_state))
    del packed
    status = _drive(job, p)
    prefix = tuple(int(l) for l in job.best_prefix[: int(job.best_len[0])])
    trace = SearchTrace.from_batches(job.batches)
    if A is None:
        # the list's own columns, from their conditions: the counts read nothing else
        B, items = factors
        A = np.column_stack([B[:, items[l][items[l] >= 0]].all(axis=1) for l in prefix]
                            ) if prefix else np.zeros((n_rows, 0), dtype=bool)
        prefix = tuple(range(len(prefix))), prefix
    else:
        prefix = prefix, prefix
    return _finish(A, yb, weights, prefix, p, status, job.done, trace, job.lower_bound())


def _drive(job: _Run, p: dict) -> str:
    """Run the iterations on the anytime loop; return the final status."""
    with Anytime("frl", unit="iterations", time_limit=p["time_limit"], callback=p["callback"],
                 verbose=p["verbose"], total=p["n_iter"]) as run:
        stop = run.drive(lambda budget: job.step(budget, run))
        job.restore_if_unrecorded()
        if job.proved:
            status = "optimal"
        else:
            status = "heuristic" if stop == "done" else stop
        run.finish(status)
    return status


def capture_counts(A, y, prefix, sample_weight=None):
    """``(n_pos, n_neg)`` captured by each rule of ``prefix`` and the else clause.

    Parameters
    ----------
    A : ndarray of bool, shape (n_samples, n_antecedents)
    y : ndarray of bool or {0, 1}, shape (n_samples,)
    prefix : sequence of int
        Antecedent indices in list order.
    sample_weight : ndarray of float, shape (n_samples,), optional
        Row weights: the counts are then sums of weights.

    Returns
    -------
    ndarray, shape (len(prefix) + 1, 2)
        int64 when every weight is a whole number (or there are none), else
        float64.
    """
    codes = np.asarray(y).astype(bool).astype(np.int64)
    counts = evaluate.capture_counts(A, [(int(l),) for l in prefix], codes, 2,
                                     sample_weight=sample_weight)
    if sample_weight is not None and np.all(counts == np.round(counts)):
        counts = counts.astype(np.int64)
    return np.ascontiguousarray(counts[:, ::-1])


def _finish(A, y, weights, prefix, p, status, done, trace, lower_bound):
    """Recompute the incumbent from scratch and package the result (``prefix``: the
    list's columns of ``A``, and its antecedents)."""
    w, C, C1 = p["w"], p["C"], p["C1"]
    columns, prefix = prefix
    counts = capture_counts(A, y, columns, weights)
    totals = counts.sum(axis=1)
    proportions = np.where(totals > 0, counts[:, 0] / np.where(totals > 0, totals, 1), 0.0)
    soft = C1 is not None
    probabilities = (np.asarray(running_minimum(list(proportions)), dtype=float)
                     if soft else proportions.copy())
    objective = float(list_objective(counts, w, C, C1))
    penalty = 0.0
    if soft:
        penalty = monotonicity_penalty([float(a) for a, t in zip(proportions, totals) if t > 0])
    if lower_bound is not None:
        lower_bound = min(lower_bound, objective)
    return FRLResult(
        prefix=prefix, proportions=proportions, probabilities=probabilities, counts=counts,
        objective=objective, risk=float(list_objective(counts, w, 0.0)),
        penalty=float(penalty), threshold=1.0 / (1.0 + w), soft=soft, status=status,
        lower_bound=lower_bound, n_iter_done=int(done), trace=trace, w=w, C=C, C1=C1,
    )


def candidate_set(A, y, prefix, *, w, C, C1=None, incumbent=math.inf, curiosity_lambda=0.8,
                  sample_weight=None):
    """Candidate set the search would build after ``prefix`` (for tests, plots).

    Runs the same compiled candidate kernel as :func:`search` on the state a
    given prefix leaves.

    Parameters
    ----------
    A, y : arrays as for :func:`search`
    prefix : sequence of int
        Antecedent indices already in the list (assumed valid for the
        program: distinct, each capturing at least one row).
    w, C, C1 : float
        As for :func:`search` (``C1=None`` for FRL).
    incumbent : float, default=inf
        Best objective known; candidates whose prefix bound is not below it
        are pruned.
    curiosity_lambda : float, default=0.8
    sample_weight : array_like, optional
        Row weights, as for :func:`search`.

    Returns
    -------
    dict
        ``{l: {"p", "q", "bound", "curiosity"[, "stop_after"]}}`` for every
        surviving antecedent ``l``, in index order (``stop_after`` for
        softFRL only).
    """
    A, yb = _check_data(A, y)
    weights = check_sample_weight(sample_weight, A.shape[0], rows_of="A", positive=True)
    rw = np.ones(A.shape[0]) if weights is None else weights
    prefix = [int(l) for l in prefix]
    n_ante = A.shape[1]
    counts = capture_counts(A, yb, prefix, weights)
    left = evaluate.first_match(A, [(l,) for l in prefix]) == len(prefix)
    pc = np.ascontiguousarray((rw * (left & yb)) @ A, dtype=np.float64)
    qc = np.ascontiguousarray((rw * (left & ~yb)) @ A, dtype=np.float64)
    active = np.ones(n_ante, dtype=bool)
    active[prefix] = False
    w, C = float(w), float(C)
    C1 = None if C1 is None else float(C1)
    numer = 0.0
    for a, b in counts[:-1]:
        numer += _kernels._risk_numerator(float(a), float(b), w)
    props = [a / (a + b) for a, b in counts[:-1]]
    last_p, last_q = (1.0, 0.0) if not prefix else (float(v) for v in counts[-2])
    alpha_min = min(props) if props else 1.0
    penalty = monotonicity_penalty(props) if props else 0.0
    cand, weight, bounds = np.empty(n_ante, np.int64), np.empty(n_ante), np.empty(n_ante)
    stop_after, cand_pen = np.empty(n_ante, bool), np.empty(n_ante)
    k = _kernels.candidates(pc, qc, active, float(counts[-1, 0]), float(counts[-1, 1]), last_p,
                            last_q, float(alpha_min), numer, float(penalty), len(prefix), w, C,
                            C1, float(rw.sum()), float(curiosity_lambda), float(incumbent), cand,
                            weight, stop_after, cand_pen, bounds, np.empty(1), np.zeros(0))
    whole = weights is None or bool(np.all(weights == np.round(weights)))
    out = {}
    for i in range(k):
        p_i, q_i = float(pc[cand[i]]), float(qc[cand[i]])
        entry = {"p": int(p_i) if whole else p_i, "q": int(q_i) if whole else q_i,
                 "bound": float(bounds[i]),
                 "curiosity": float(weight[i])}
        if C1 is not None:
            entry["stop_after"] = bool(stop_after[i])
        out[int(cand[i])] = entry
    return out
