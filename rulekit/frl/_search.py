"""Monte-Carlo search for falling (FRL) and softly falling (softFRL) rule lists.

The public entry point is :func:`search`.  It validates its input, packs the
antecedent matrix into per-class bit vectors, and drives the compiled batch
kernels of :mod:`._kernels` until the iteration budget, the time limit, a
callback or Ctrl-C ends the search.  Pure numpy in, frozen dataclass out.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass

import numpy as np
from numba import typed, types

from rulekit.bitset import n_words, pack, popcount

from .._interrupt import DeferredInterrupt, is_interrupt
from . import _kernels
from ._objective import list_objective, monotonicity_penalty, running_minimum

__all__ = ["search", "FRLResult", "SearchTrace"]

# Wall time one kernel batch should take: short enough for a responsive time
# limit / Ctrl-C, long enough that the Python driver costs nothing.
_BATCH_SECONDS = 0.1
# Prefixes remembered by the memo (two typed-dict entries each, ~60 bytes);
# beyond this the search goes on without remembering new prefixes.
_MAX_MEMO_NODES = 1_000_000


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
        ``(n_pos, n_neg)`` training rows each rule (then the else) captures.
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
        ``"completed"``, ``"time_limit"`` or ``"interrupted"`` (Ctrl-C or
        the callback asked to stop).
    n_iter_done : int
        Iterations actually run.
    proved_optimal : bool
        True when the bounds showed that no list of the program beats the
        result (every candidate at the root pruned), which is common on small
        problems.  False says nothing either way.
    trace : SearchTrace
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
    n_iter_done: int
    proved_optimal: bool
    trace: SearchTrace


# --- validation -----------------------------------------------------------

def _as_real(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def _check_matrix(A):
    A = np.asarray(A)
    if A.ndim != 2:
        raise ValueError(f"A must be a 2-D (n_samples, n_antecedents) array, got {A.ndim}-D")
    if A.shape[0] == 0:
        raise ValueError("A must have at least one row (sample)")
    if A.dtype != np.bool_:
        if A.dtype.kind not in "biuf":
            raise TypeError(f"A must be boolean (or 0/1 numbers), got dtype {A.dtype}")
        if A.size and not np.all((A == 0) | (A == 1)):
            raise ValueError("A must contain only 0/1 (boolean) values")
        A = A.astype(bool)
    return A


def _check_labels(y, n_rows):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if y.shape[0] != n_rows:
        raise ValueError(f"y has {y.shape[0]} labels but A has {n_rows} rows")
    if y.dtype == np.bool_:
        return y
    if y.dtype.kind not in "biuf" or not np.all((y == 0) | (y == 1)):
        raise ValueError("y must be binary with values in {0, 1} (1 = positive class)")
    return y.astype(bool)


def _make_rng(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        # sklearn hands out RandomState objects: derive a Generator from it.
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.SeedSequence)):
        if isinstance(random_state, bool):
            raise TypeError("random_state must be None, an int, a SeedSequence or a Generator")
        if isinstance(random_state, numbers.Integral) and random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
        return np.random.default_rng(random_state)
    raise TypeError(
        "random_state must be None, an int, a SeedSequence, a numpy Generator or "
        f"RandomState, got {type(random_state).__name__}"
    )


# --- the search -----------------------------------------------------------

def search(A, y, *, w, C, C1=None, n_iter, curiosity_lambda=0.8, stop_prob=0.01,
           random_state, time_limit=None, callback=None, prefix_memo=True) -> FRLResult:
    """Monte-Carlo search for a falling or softly falling rule list.

    Each iteration builds one compatible rule list top-down: it stops when
    the early-termination test proves stopping optimal, with probability
    ``stop_prob``, or when no antecedent survives the pruning rules
    (falling constraint, Cor. 4.5, Prop. 4.2 feasibility and the prefix bound
    against the incumbent); otherwise it draws the next antecedent with
    probability proportional to its curiosity.  The best list over all
    iterations is returned (the first one found wins ties).

    Parameters
    ----------
    A : array_like of bool, shape (n_samples, n_antecedents)
        ``A[i, l]`` is true iff row ``i`` satisfies antecedent ``l``.
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
    random_state : None, int, SeedSequence, numpy Generator or RandomState
        Source of randomness; the global numpy state is never used.  A
        Generator passed in is advanced.
    time_limit : float or None, default=None
        Wall-clock seconds after which the search returns its incumbent with
        ``status="time_limit"`` (checked between short batches of iterations,
        about every 0.1 s).
    callback : callable or None, default=None
        Called between batches as ``callback(n_iter_done, best_objective)``;
        a truthy return value stops the search (``status="interrupted"``).
    prefix_memo : bool, default=True
        Remember a lower bound for every prefix already extended and drop a
        prefix from its parent's candidate set once that bound is not below
        the incumbent (no strictly better list starts with it).  This is an
        addition to the paper's algorithm: it only removes lists that cannot
        improve the incumbent, so every property of the spec's search holds,
        but fewer iterations are spent rebuilding known lists.  ``False``
        runs the spec's algorithm exactly.

    Returns
    -------
    FRLResult
        The best list, its counts, proportions, stated probabilities,
        objective, the trace and the status.  Ctrl-C (KeyboardInterrupt)
        during the search also returns the incumbent, with
        ``status="interrupted"``.

    Raises
    ------
    ValueError, TypeError
        Invalid parameters or data; the message names the parameter.

    Notes
    -----
    With no antecedents (``n_antecedents == 0``) the result is the else-only
    list.  If all rows share one class the root's early-termination test
    holds and the result is the else-only list with probability 0 or 1.
    """
    A = _check_matrix(A)
    n_rows, n_ante = A.shape
    yb = _check_labels(y, n_rows)
    w = _as_real(w, "w")
    if w <= 0:
        raise ValueError(f"w must be > 0, got {w}")
    C = _as_real(C, "C")
    if C < 0:
        raise ValueError(f"C must be >= 0, got {C}")
    soft = C1 is not None
    if soft:
        C1 = _as_real(C1, "C1")
        if C1 < 0:
            raise ValueError(f"C1 must be >= 0, got {C1}")
    if isinstance(n_iter, bool) or not isinstance(n_iter, numbers.Integral):
        raise TypeError(f"n_iter must be an integer, got {type(n_iter).__name__}")
    n_iter = int(n_iter)
    if n_iter < 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}")
    lam = _as_real(curiosity_lambda, "curiosity_lambda")
    if not 0 <= lam <= 1:
        raise ValueError(f"curiosity_lambda must be in [0, 1], got {lam}")
    stop_prob = _as_real(stop_prob, "stop_prob")
    if not 0 <= stop_prob <= 1:
        raise ValueError(f"stop_prob must be in [0, 1], got {stop_prob}")
    if time_limit is not None:
        time_limit = _as_real(time_limit, "time_limit")
        if time_limit <= 0:
            raise ValueError(f"time_limit must be > 0 seconds, got {time_limit}")
    if callback is not None and not callable(callback):
        raise TypeError("callback must be callable or None")
    rng = _make_rng(random_state)

    # Per-class packed coverage: P over positive rows, Q over negative rows.
    A_t = np.ascontiguousarray(A.T)
    P = pack(A_t[:, yb]) if n_ante else np.zeros((0, n_words(yb.sum())), np.uint64)
    Q = pack(A_t[:, ~yb]) if n_ante else np.zeros((0, n_words((~yb).sum())), np.uint64)
    n_pos = int(yb.sum())
    n_neg = n_rows - n_pos
    full_p = pack(np.ones(n_pos, dtype=bool))
    full_n = pack(np.ones(n_neg, dtype=bool))
    root_p = popcount(P).astype(np.int64) if n_ante else np.zeros(0, np.int64)
    root_q = popcount(Q).astype(np.int64) if n_ante else np.zeros(0, np.int64)
    root_p = np.asarray(root_p, dtype=np.int64).reshape(n_ante)
    root_q = np.asarray(root_q, dtype=np.int64).reshape(n_ante)
    # Antecedents that can never be a candidate in any list are left out early.
    root_active = (root_p > 0) if not soft else (root_p + root_q > 0)

    best_prefix = np.zeros(max(n_ante, 1), dtype=np.int64)
    best_len = np.zeros(1, dtype=np.int64)
    best_obj = np.full(1, np.inf)
    batches = []            # (objective, best, sizes, offsets) per kernel call
    done = 0
    status = "completed"
    start = time.perf_counter()
    batch = 8
    snapshot = (best_prefix.copy(), best_len.copy(), best_obj.copy())
    n_before = 0
    # Prefix memo (see _kernels): child links and node bounds, kept between
    # batches.  max_nodes = 0 keeps only the root, i.e. the spec's search.
    children = typed.Dict.empty(types.int64, types.int64)
    node_lb = typed.Dict.empty(types.int64, types.float64)
    node_count = np.ones(1, np.int64)
    max_nodes = _MAX_MEMO_NODES if prefix_memo else 0
    sigint = DeferredInterrupt().install()
    try:
        while done < n_iter:
            k = min(batch, n_iter - done)
            obj_out = np.empty(k)
            best_out = np.empty(k)
            snapshot = (best_prefix.copy(), best_len.copy(), best_obj.copy())
            n_before = len(batches)
            t0 = time.perf_counter()
            if soft:
                sz, off = _kernels.soft_chunk(
                    P, Q, full_p, full_n, root_p, root_q, root_active, n_pos, n_neg,
                    w, C, C1, lam, stop_prob, rng, k,
                    best_prefix, best_len, best_obj, obj_out, best_out,
                    children, node_lb, node_count, max_nodes)
            else:
                sz, off = _kernels.frl_chunk(
                    P, Q, full_p, full_n, root_p, root_q, root_active, n_pos, n_neg,
                    w, C, lam, stop_prob, rng, k,
                    best_prefix, best_len, best_obj, obj_out, best_out,
                    children, node_lb, node_count, max_nodes)
            batches.append((obj_out, best_out, sz, off))
            elapsed_batch = time.perf_counter() - t0
            done += k
            # Aim each batch at _BATCH_SECONDS (and at the remaining time).
            per_iter = max(elapsed_batch / k, 1e-7)
            target = _BATCH_SECONDS
            if time_limit is not None:
                remaining = time_limit - (time.perf_counter() - start)
                if remaining <= 0 and done < n_iter:
                    status = "time_limit"
                    break
                target = min(target, remaining)
            batch = int(min(max(1, target / per_iter), 4 * batch + 1, 1_000_000))
            if sigint.received and done < n_iter:
                status = "interrupted"
                break
            if callback is not None and done < n_iter:
                if callback(done, float(best_obj[0])):
                    status = "interrupted"
                    break
    except (KeyboardInterrupt, SystemError) as exc:
        if not is_interrupt(exc):
            raise
        status = "interrupted"
        if len(batches) == n_before:
            # The batch in flight was not recorded: return the incumbent of
            # the recorded iterations so that result and trace agree.
            best_prefix[:], best_len[:], best_obj[:] = snapshot
        done = sum(len(b[0]) for b in batches)
    finally:
        sigint.restore()

    prefix = tuple(int(l) for l in best_prefix[: int(best_len[0])])
    # The root's node bound reaching the incumbent proves it optimal.
    proved = bool(0 in node_lb and node_lb[0] >= best_obj[0])
    sizes, offsets, total = [], [np.zeros(1, np.int64)], 0
    for _, _, sz, off in batches:
        sizes.append(sz)
        offsets.append(off[1:] + total)
        total += sz.shape[0]
    trace = SearchTrace(
        objective=np.concatenate([b[0] for b in batches]) if batches else np.empty(0),
        best_objective=np.concatenate([b[1] for b in batches]) if batches else np.empty(0),
        candidate_sizes=(np.concatenate(sizes).astype(np.int32) if sizes
                         else np.empty(0, np.int32)),
        candidate_offsets=np.concatenate(offsets),
    )
    return _finish(A, yb, prefix, w, C, C1 if soft else None, status, done, trace, proved)


def capture_counts(A, y, prefix):
    """``(n_pos, n_neg)`` captured by each rule of ``prefix`` and the else clause.

    Parameters
    ----------
    A : ndarray of bool, shape (n_samples, n_antecedents)
    y : ndarray of bool or {0, 1}, shape (n_samples,)
    prefix : sequence of int
        Antecedent indices in list order.

    Returns
    -------
    ndarray of int64, shape (len(prefix) + 1, 2)
    """
    A = np.asarray(A, dtype=bool)
    y = np.asarray(y).astype(bool)
    remaining = np.ones(A.shape[0], dtype=bool)
    out = np.zeros((len(prefix) + 1, 2), dtype=np.int64)
    for j, l in enumerate(prefix):
        hit = remaining & A[:, l]
        out[j] = (np.count_nonzero(hit & y), np.count_nonzero(hit & ~y))
        remaining &= ~hit
    out[-1] = (np.count_nonzero(remaining & y), np.count_nonzero(remaining & ~y))
    return out


def _finish(A, y, prefix, w, C, C1, status, done, trace, proved):
    """Recompute the incumbent from scratch and package the result."""
    counts = capture_counts(A, y, prefix)
    totals = counts.sum(axis=1)
    proportions = np.where(totals > 0, counts[:, 0] / np.maximum(totals, 1), 0.0)
    soft = C1 is not None
    probabilities = (np.asarray(running_minimum(list(proportions)), dtype=float)
                     if soft else proportions.copy())
    risk = list_objective(counts, w, 0.0)
    objective = list_objective(counts, w, C, C1)
    penalty = 0.0
    if soft:
        penalty = monotonicity_penalty([float(a) for a, t in zip(proportions, totals) if t > 0])
    return FRLResult(
        prefix=prefix,
        proportions=proportions,
        probabilities=probabilities,
        counts=counts,
        objective=float(objective),
        risk=float(risk),
        penalty=float(penalty),
        threshold=1.0 / (1.0 + w),
        soft=soft,
        status=status,
        n_iter_done=int(done),
        proved_optimal=proved,
        trace=trace,
    )


def candidate_set(A, y, prefix, *, w, C, C1=None, incumbent=math.inf, curiosity_lambda=0.8):
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

    Returns
    -------
    dict
        ``{l: {"p", "q", "bound", "curiosity"[, "stop_after"]}}`` for every
        surviving antecedent ``l``, in index order.
    """
    A = _check_matrix(A)
    yb = _check_labels(y, A.shape[0])
    n_ante = A.shape[1]
    n = A.shape[0]
    counts = capture_counts(A, yb, list(prefix))
    rp, rn = (int(v) for v in counts[-1])
    remaining = ~A[:, list(prefix)].any(axis=1) if len(prefix) else np.ones(n, bool)
    pc = (A & (remaining & yb)[:, None]).sum(axis=0).astype(np.int64)
    qc = (A & (remaining & ~yb)[:, None]).sum(axis=0).astype(np.int64)
    active = np.ones(n_ante, dtype=bool)
    active[list(prefix)] = False
    numer = 0.0
    for a, b in counts[:-1]:
        numer += _kernels._risk_numerator(int(a), int(b), float(w))
    cand = np.empty(n_ante, np.int64)
    weight = np.empty(n_ante)
    bounds = np.empty(n_ante)
    out = {}
    if C1 is None:
        last_p, last_q = (1, 0) if not len(prefix) else (int(v) for v in counts[-2])
        k = _kernels.frl_candidates(pc, qc, active, rp, rn, last_p, last_q, numer,
                                    len(prefix), float(w), float(C), n,
                                    float(curiosity_lambda), float(incumbent),
                                    cand, weight, bounds, np.empty(1))
        for i in range(k):
            l = int(cand[i])
            out[l] = {"p": int(pc[l]), "q": int(qc[l]), "bound": float(bounds[i]),
                      "curiosity": float(weight[i])}
        return out
    props = [a / (a + b) for a, b in counts[:-1]]
    alpha_min = min(props) if props else 1.0
    penalty = monotonicity_penalty(props) if props else 0.0
    stop_after = np.empty(n_ante, bool)
    cand_pen = np.empty(n_ante)
    k = _kernels.soft_candidates(pc, qc, active, rp, rn, float(alpha_min), float(numer),
                                 float(penalty), len(prefix), float(w), float(C), float(C1),
                                 n, float(curiosity_lambda), float(incumbent), cand, weight,
                                 stop_after, cand_pen, bounds, np.empty(1))
    for i in range(k):
        l = int(cand[i])
        out[l] = {"p": int(pc[l]), "q": int(qc[l]), "bound": float(bounds[i]),
                  "curiosity": float(weight[i]), "stop_after": bool(stop_after[i])}
    return out
