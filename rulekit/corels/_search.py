"""Python driver of the CORELS branch-and-bound search.

The driver validates the input, packs it into bit vectors, allocates the
search state as flat numpy arrays and calls the compiled loop
(:func:`rulekit.corels._kernels.run`) in short chunks.  Between chunks it
checks the time limit, lets ``KeyboardInterrupt`` through as an anytime stop,
grows arrays when the kernel asks for room, and samples the trace.
"""

from __future__ import annotations

import math
import time

import numpy as np

from rulekit._anytime import Anytime
from rulekit._params import CallableOrNone, Integer, NoValidation, Options, Real, validate
from rulekit.bitset import n_words, pack
from rulekit.corels import _kernels as kr
from rulekit.corels._result import CorelsResult
from rulekit.evaluate import capture_counts, merge_rows

BOUNDS = frozenset({
    "hierarchical",
    "lookahead",
    "prefix_length",
    "min_support",
    "min_accurate_support",
    "rejection_propagation",
    "equivalent_points",
})
POLICIES = {
    "lower_bound": kr.POL_LB,
    "curious": kr.POL_CURIOUS,
    "objective": kr.POL_OBJ,
    "bfs": kr.POL_BFS,
    "dfs": kr.POL_DFS,
}
SYMMETRIES = {"none": kr.SYM_NONE, "permutation": kr.SYM_PERM, "capture": kr.SYM_CAPTURE}

#: Scores closer than ``TOL_FACTOR * N`` samples count as ties.
TOL_FACTOR = 1e-9
DEFAULT_MAX_NODES = 10_000_000

#: Declarations of :func:`search`'s parameters (shared with ``CorelsClassifier``).
SEARCH_PARAMETERS = {
    "c": Real(0, None),
    "policy": Options(*POLICIES),
    "symmetry": Options(*SYMMETRIES),
    # "all", "none" or names from BOUNDS: checked by _check_bounds
    "bounds": NoValidation(),
    "max_nodes": Integer(1),
    "time_limit": Real(0, None, closed="neither", allow_none=True),
    "callback": CallableOrNone(),
    "verbose": Integer(0),
}
_MAX_TRACE = 512
_CHUNK_SECONDS = 0.05


# --- input checks -------------------------------------------------------------

def _check_A(A) -> np.ndarray:
    if A is None:
        raise TypeError("A must be a 2-D boolean array, got None")
    arr = np.asarray(A)
    if arr.ndim != 2:
        raise ValueError(f"A must be a 2-D (n_samples, n_antecedents) array, got {arr.ndim}-D")
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"A must be boolean (or 0/1 numeric), got dtype {arr.dtype}")
    if arr.size and not np.all((arr == 0) | (arr == 1)):
        raise ValueError("A must be boolean: found values other than 0 and 1")
    return arr.astype(bool)


def _check_y(y, n: int):
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D, got {arr.ndim}-D")
    if arr.shape[0] != n:
        raise ValueError(f"y has {arr.shape[0]} labels but A has {n} samples")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise TypeError("y must hold integer class labels")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "biu":
        raise TypeError(f"y must hold integer class labels, got dtype {arr.dtype}")
    classes, codes = np.unique(arr, return_inverse=True)
    return classes, codes.astype(np.int64)


def _check_bounds(bounds) -> frozenset:
    if bounds is None:
        return frozenset()
    if isinstance(bounds, str):
        if bounds == "all":
            return BOUNDS
        if bounds == "none":
            return frozenset()
        bounds = {bounds}
    chosen = frozenset(bounds)
    unknown = chosen - BOUNDS
    if unknown:
        raise ValueError(f"bounds: unknown name(s) {sorted(unknown)}; known: {sorted(BOUNDS)}")
    return chosen


# --- helpers ------------------------------------------------------------------

def group_samples(A: np.ndarray, codes: np.ndarray, n_classes: int):
    """Collapse samples with identical antecedent rows.

    Every rule list captures such samples with the same rule, so the search
    can run over the distinct rows with per-class weights; it is exact.  The
    same groups are the equivalence sets of Thm ``thm:identical``: in each,
    the samples outside the majority class are unavoidable mistakes.

    Returns
    -------
    groups : ndarray of bool, shape (G, M)
        Distinct rows, in order of first appearance.
    table : ndarray of int64, shape (G, n_classes)
        Class counts per distinct row.
    """
    one_hot = [(codes == k).astype(np.int64) for k in range(n_classes)]
    groups, _, table = merge_rows(A, *one_hot)
    return groups, np.column_stack(table)


def weight_planes(weights: np.ndarray, n_planes: int | None = None) -> np.ndarray:
    """Bit planes of non-negative integer weights, shape (W, n_planes) uint64."""
    weights = np.asarray(weights, dtype=np.int64)
    if n_planes is None:
        n_planes = max(1, int(weights.max()).bit_length())
    planes = np.stack([pack(((weights >> j) & 1).astype(bool)) for j in range(n_planes)], axis=1)
    return np.ascontiguousarray(planes)


def _class_counts(A: np.ndarray, codes: np.ndarray, n_classes: int, prefix) -> np.ndarray:
    return capture_counts(A, [(a,) for a in prefix], codes, n_classes)


def _log10_remaining(depth_counts, m: int, kmax: int) -> float:
    """Prop ``prop:remaining-eval-coarse``: log10 of an upper bound."""
    terms = []
    for j in range(len(depth_counts)):
        qj = int(depth_counts[j])
        if qj == 0:
            continue
        inner = []
        for k in range(0, max(kmax - j, -1) + 1):
            if m - j - k < 0:
                break
            inner.append(math.lgamma(m - j + 1) - math.lgamma(m - j - k + 1))
        if not inner:
            continue
        top = max(inner)
        log_inner = top + math.log(sum(math.exp(v - top) for v in inner))
        terms.append(math.log(qj) + log_inner)
    if not terms:
        return float("-inf")
    top = max(terms)
    return (top + math.log(sum(math.exp(v - top) for v in terms))) / math.log(10)


def byte_table(fields: np.ndarray, field_bits: int, n_words_: int) -> np.ndarray:
    """Lookup table of packed weighted counts, one entry per byte value.

    ``fields`` (G, F) holds non-negative integer weights per group; they are
    packed into one int64 per group, ``field_bits`` bits each (sums of up to
    N samples cannot overflow a field).  ``table[w, b, v]`` is the packed sum
    over the groups whose bits are set in byte ``v`` at byte ``b`` of word
    ``w``, so a weighted count of all fields costs 8 look-ups per word.
    """
    g = fields.shape[0]
    packed = np.zeros(n_words_ * 64, dtype=np.int64)
    for f in range(fields.shape[1]):
        packed[:g] += fields[:, f].astype(np.int64) << (field_bits * f)
    per_byte = packed.reshape(n_words_, 8, 8)  # word, byte, bit
    values = np.arange(256)
    bits = ((values[:, None] >> np.arange(8)[None, :]) & 1).astype(np.int64)  # (256, 8)
    table = np.einsum("vi,wbi->wbv", bits, per_byte)
    return np.ascontiguousarray(table.astype(np.int64))


class _State:
    """The flat arrays the kernel works on, plus their growth rules."""

    def __init__(self, m: int, wm: int, sym: int, max_nodes: int):
        self.m = m
        self.max_nodes = max_nodes
        ncap = min(max_nodes + 1, 4096)
        self.nodes = np.zeros((ncap, kr.N_COLS), dtype=np.int32)
        self.free = np.zeros(ncap, dtype=np.int32)
        hcap = 4096
        self.hkey = np.zeros(hcap, dtype=np.float64)
        self.hseq = np.zeros(hcap, dtype=np.int64)
        self.hnode = np.zeros(hcap, dtype=np.int32)
        mcap = 8192 if sym != kr.SYM_NONE else 2
        self.mhash = np.zeros(mcap, dtype=np.uint64)
        self.mnode = np.full(mcap, -1, dtype=np.int32)
        self.pool = np.zeros((256, wm), dtype=np.uint64)
        self.pool_free = np.zeros(256, dtype=np.int32)
        self.S = np.zeros(kr.N_S, dtype=np.int64)
        self.F = np.zeros(kr.N_F, dtype=np.float64)

    def nbytes(self) -> int:
        """Bytes the search state takes (what ``max_memory`` would limit)."""
        return sum(a.nbytes for a in (self.nodes, self.free, self.hkey, self.hseq, self.hnode,
                                      self.mhash, self.mnode, self.pool, self.pool_free))

    def grow(self, code: int) -> None:
        if code == kr.R_GROW_NODES:
            cap = self.nodes.shape[0]
            new = min(max(2 * cap, cap + self.m + 1), self.max_nodes + 1)
            self.nodes = np.concatenate([self.nodes, np.zeros((new - cap, kr.N_COLS), np.int32)])
            self.free = np.concatenate([self.free, np.zeros(new - cap, np.int32)])
        elif code == kr.R_GROW_HEAP:
            cap = self.hkey.shape[0]
            self.hkey = np.concatenate([self.hkey, np.zeros(cap, np.float64)])
            self.hseq = np.concatenate([self.hseq, np.zeros(cap, np.int64)])
            self.hnode = np.concatenate([self.hnode, np.zeros(cap, np.int32)])
        elif code == kr.R_GROW_MAP:
            cap = 2 * self.mhash.shape[0]
            new_hash = np.zeros(cap, dtype=np.uint64)
            new_node = np.full(cap, -1, dtype=np.int32)
            kr.rehash(self.mhash, self.mnode, new_hash, new_node)
            self.mhash, self.mnode = new_hash, new_node
        elif code == kr.R_GROW_POOL:
            cap = self.pool.shape[0]
            self.pool = np.concatenate([self.pool, np.zeros_like(self.pool)])
            self.pool_free = np.concatenate([self.pool_free, np.zeros(cap, np.int32)])
        else:  # pragma: no cover - kernel contract
            raise RuntimeError(f"unknown kernel request {code}")


_PRUNE_KEYS = sorted(BOUNDS) + ["symmetry"]
_TRACE_KEYS = ("time", "nodes", "queue_size", "trie_size", "best_objective",
               "lower_bound", "log10_remaining")
_STAT_KEYS = ("nodes_expanded", "nodes_evaluated", "nodes_inserted", "superseded",
              "dropped_from_queue", "max_queue_size", "max_trie_size", "map_size",
              "max_map_size", "best_updates")


def _zero_stats() -> dict:
    stats = {k: 0 for k in _STAT_KEYS}
    stats["pruned"] = {k: 0 for k in _PRUNE_KEYS}
    stats.update(time_to_best=0.0, total_time=0.0, cpu_time=0.0)
    return stats


def _trivial_result(A, codes, classes, c, status="optimal", stats=None) -> CorelsResult:
    n = A.shape[0]
    counts = _class_counts(A, codes, len(classes), ())
    default = int(np.argmax(counts[-1]))
    mistakes = int(n - counts[-1, default])
    obj = mistakes / n
    return CorelsResult(
        prefix=(), rule_labels=(), default_label=classes[default].item(),
        objective=obj, mistakes=mistakes, lower_bound=obj, status=status,
        classes=classes, counts=counts, c=c, stats=stats or _zero_stats(),
        trace={k: np.array([0.0 if k != "best_objective" and k != "lower_bound" else obj])
               for k in _TRACE_KEYS} | {"log10_remaining": np.array([-np.inf])},
    )


# --- public entry point ---------------------------------------------------------

def search(A, y, c, *, policy="lower_bound", symmetry="permutation", bounds="all",
           max_nodes=DEFAULT_MAX_NODES, time_limit=None, callback=None,
           verbose=0) -> CorelsResult:
    """Find a certifiably optimal rule list by branch and bound (CORELS).

    Minimizes ``R(d) = mistakes(d) / N + c * K`` over rule lists ``d`` whose
    ``K`` rules are distinct columns of ``A``; each rule predicts the majority
    class of the samples it captures, the default rule the majority of the
    rest.

    Parameters
    ----------
    A : array_like of bool, shape (N, M)
        ``A[i, j]`` is True when antecedent ``j`` holds for sample ``i``.
        Used exactly as given (no negations are added). 0/1 numbers accepted.
    y : array_like of int, shape (N,)
        Class labels; two or more classes (multi-class is supported).
    c : float
        Regularization per rule, ``c >= 0``.
    policy : {"lower_bound", "curious", "objective", "bfs", "dfs"}
        Order in which the queue is explored.
    symmetry : {"permutation", "capture", "none"}
        Symmetry-aware map: keep only the best permutation of each antecedent
        set, or the best prefix per set of captured samples, or nothing.
    bounds : "all", "none" or iterable of str
        Which pruning bounds to use; names in :data:`BOUNDS`.
    max_nodes : int
        Maximum number of live prefix-tree nodes; reaching it stops the search
        with status ``"node_limit"``.
    time_limit : float or None
        Wall-clock seconds; stops with status ``"time_limit"``.
    callback : callable or None
        Called about four times a second with a
        :class:`rulekit._anytime.SearchState` (``work`` = prefixes expanded,
        ``best_objective``, ``lower_bound``, ``info["queue"]``); returning
        True stops the search (status ``"interrupted"``).
    verbose : int
        1 or more: a progress bar on stderr.

    Returns
    -------
    CorelsResult

    Notes
    -----
    Scores are compared as ``mistakes + c*N*K`` (integer mistakes, evaluated
    in float64); scores closer than ``1e-9 * N`` are ties, broken in favour
    of the shorter list, then of the lexicographically lower antecedent
    indices.  The result is the unique minimum of that order when
    ``status == "optimal"``.  Every bound below only discards lists that are
    strictly worse in this order than some other list, which is why the
    support bounds may use ``<=`` where the paper has ``<``.

    Bounds (names for ``bounds=``; theorem labels of corels-jmlr2018.tex),
    with ``b`` the prefix lower bound and ``b0`` the equivalent-points term:

    ``hierarchical`` (Thm ``thm:bound``)
        do not queue a prefix whose ``b + b0`` cannot beat the best;
    ``lookahead`` (Lemma ``lemma:lookahead``)
        do not queue a prefix whose ``b + b0 + c`` cannot beat the best
        (a prefix is only queued to be extended; it implies the above);
    ``prefix_length`` (Thms ``thm:ub-prefix-length``, ``thm:ub-prefix-specific``)
        do not queue prefixes whose children are longer than the best
        objective allows (``c * K' >= best``);
    ``min_support`` (Thm ``thm:min-capture``)
        reject a rule capturing ``<= c*N`` new samples;
    ``min_accurate_support`` (Thm ``thm:min-capture-correct``)
        reject a rule classifying ``<= c*N`` of its new samples correctly;
    ``rejection_propagation`` (Thm ``thm:reject``)
        an antecedent rejected by a support bound after prefix P is skipped
        without evaluation in every extension of P;
    ``equivalent_points`` (Thm ``thm:identical``)
        add ``b0``, the unavoidable mistakes among uncaptured samples whose
        antecedent rows are identical but whose labels differ.

    The prefix-tree nodes that a queue entry, a child or a map entry refers
    to stay alive; everything else is freed lazily (a popped prefix whose
    bound went stale or whose ancestor was superseded by a better
    permutation/capture-equivalent prefix is dropped; queue and map are
    purged whenever the best objective drops).  Samples with identical
    antecedent rows are merged into weighted groups before the search, which
    changes nothing in the objective.  Memory is about 140 bytes per live
    node on top of ~160 MB for numba itself.

    Ctrl-C (``KeyboardInterrupt``) returns the best list so far with status
    ``"interrupted"``.
    """
    A = _check_A(A)
    n, m = A.shape
    if n == 0:
        raise ValueError("A has no samples (N = 0); the objective is undefined")
    classes, codes = _check_y(y, n)
    p = validate(SEARCH_PARAMETERS, dict(c=c, policy=policy, symmetry=symmetry, bounds=bounds,
                                         max_nodes=max_nodes, time_limit=time_limit,
                                         callback=callback, verbose=verbose), "corels.search")
    c = p["c"]
    chosen = _check_bounds(bounds)
    max_nodes = int(min(p["max_nodes"], 2**31 - 2))

    n_classes = len(classes)
    lam = c * n
    tol = TOL_FACTOR * n
    empty_mistakes = n - int(np.bincount(codes).max())
    if n_classes == 1 or m == 0 or lam > empty_mistakes + tol:
        # Any rule costs more than the empty list's mistakes: it is optimal.
        return _trivial_result(A, codes, classes, c)

    t_wall0 = time.perf_counter()
    t_cpu0 = time.process_time()
    groups, table = group_samples(A, codes, n_classes)
    g = groups.shape[0]
    w = n_words(g)
    wm = max(1, (m + 63) // 64)
    Ap = np.ascontiguousarray(pack(groups.T))
    totals = table.sum(axis=1)
    T = weight_planes(totals)
    Y = np.ascontiguousarray(np.stack([weight_planes(table[:, k], T.shape[1])
                                       for k in range(n_classes)]))
    unavoidable = totals - table.max(axis=1)
    minority = weight_planes(unavoidable)
    valid = pack(np.ones(g, dtype=bool))
    field_bits = max(1, int(n).bit_length())
    if (n_classes + 1) * field_bits <= 63:
        lut = byte_table(np.column_stack([totals, table[:, :-1], unavoidable]), field_bits, w)
    else:
        field_bits = 0
        lut = np.zeros((1, 8, 256), dtype=np.int64)
    zob = np.random.default_rng(0x5EED).integers(1, 2**63, size=m, dtype=np.int64).astype(np.uint64)
    zob ^= np.random.default_rng(0xC0DE).integers(0, 2**63, size=m, dtype=np.int64).astype(np.uint64) << np.uint64(1)

    cfg = np.zeros(kr.N_G, dtype=np.int64)
    cfg[kr.G_N] = n
    cfg[kr.G_M] = m
    cfg[kr.G_W] = w
    cfg[kr.G_C] = n_classes
    cfg[kr.G_POLICY] = POLICIES[policy]
    cfg[kr.G_SYM] = SYMMETRIES[symmetry]
    cfg[kr.G_HIER] = "hierarchical" in chosen
    cfg[kr.G_LOOK] = "lookahead" in chosen
    cfg[kr.G_PLEN] = "prefix_length" in chosen
    cfg[kr.G_MINSUP] = "min_support" in chosen
    cfg[kr.G_MINACC] = "min_accurate_support" in chosen
    cfg[kr.G_REJPROP] = "rejection_propagation" in chosen
    cfg[kr.G_EQPTS] = "equivalent_points" in chosen
    cfg[kr.G_MAXNODES] = max_nodes
    cfg[kr.G_WM] = wm
    cfg[kr.G_LUT] = field_bits

    st = _State(m, wm, int(cfg[kr.G_SYM]), max_nodes)
    S, F = st.S, st.F
    F[kr.F_LAM] = lam
    F[kr.F_TOL] = tol
    F[kr.F_BEST] = float(empty_mistakes)
    S[kr.S_BEST_MIST] = empty_mistakes
    S[kr.S_BEST_K] = 0
    best_prefix = np.zeros(m + 1, dtype=np.int64)
    # root = empty prefix; one permanent reference keeps it alive
    root = kr.alloc_node(st.nodes, st.free, S)
    st.nodes[root] = (-1, -1, 0, 0, 0, 2, kr.FL_QUEUE, -1)
    if cfg[kr.G_EQPTS]:
        st.nodes[root, kr.C_B0] = int((totals - table.max(axis=1)).sum())
    kr.heap_push(st.hkey, st.hseq, st.hnode, S, 0.0, 0, root)
    S[kr.S_SEQ] = 1

    path = np.zeros(m + 1, dtype=np.int64)
    epath = np.zeros(m + 1, dtype=np.int64)
    inpfx = np.zeros(m, dtype=np.bool_)
    u = np.zeros(w, dtype=np.uint64)
    fbuf = np.zeros(w, dtype=np.uint64)
    tmpw = np.zeros(w, dtype=np.uint64)
    ucnt = np.zeros(n_classes, dtype=np.int64)
    ccnt = np.zeros(n_classes, dtype=np.int64)
    pmask = np.zeros(wm, dtype=np.uint64)
    depth_counts = np.zeros(m + 2, dtype=np.int64)

    trace = {k: [] for k in _TRACE_KEYS}

    def record(now):
        lb_units = kr.queue_summary(st.nodes, st.hnode, S, F, cfg, depth_counts)
        best_units = F[kr.F_BEST]
        kmax = m if lam <= 0 else min(int(math.floor(best_units / lam + 1e-12)), m)
        trace["time"].append(now)
        trace["nodes"].append(int(S[kr.S_EXPANDED]))
        trace["queue_size"].append(int(S[kr.S_HEAP]))
        trace["trie_size"].append(int(S[kr.S_TRIE]))
        trace["best_objective"].append(best_units / n)
        trace["lower_bound"].append(min(lb_units, best_units) / n)
        trace["log10_remaining"].append(_log10_remaining(depth_counts, m, kmax))
        if len(trace["time"]) > 2 * _MAX_TRACE:
            for key in trace:
                vals = trace[key]
                trace[key] = vals[:-1:2] + [vals[-1]]
        return lb_units

    best_seen = [0, 0.0]  # best-list updates already seen, and when the last one came

    def step(budget):
        while True:
            code = kr.run(Ap, T, Y, minority, lut, valid, zob, cfg, st.nodes, st.free, st.hkey,
                          st.hseq, st.hnode, st.mhash, st.mnode, st.pool, st.pool_free,
                          S, F, best_prefix, budget, ws)
            if code in (kr.R_GROW_NODES, kr.R_GROW_HEAP, kr.R_GROW_MAP, kr.R_GROW_POOL):
                st.grow(code)
                continue
            break
        elapsed = time.perf_counter() - t_wall0
        if S[kr.S_BEST_UPDATES] != best_seen[0]:
            best_seen[:] = [int(S[kr.S_BEST_UPDATES]), elapsed]
        status = {kr.R_DONE: "done", kr.R_NODE_LIMIT: "node_limit"}.get(code)
        if status is None and elapsed - trace_clock[0] >= trace_clock[1]:
            # the queue scan costs time: sample it at most 1/20 of the time
            t_rec = time.perf_counter()
            trace_clock[2] = record(elapsed)
            trace_clock[:2] = [elapsed, max(0.1, 20 * (time.perf_counter() - t_rec))]
        return status, run.state(
            int(S[kr.S_EXPANDED]), best_objective=F[kr.F_BEST] / n,
            lower_bound=min(trace_clock[2], F[kr.F_BEST]) / n,
            memory_mb=st.nbytes() / 2**20, info={"queue": int(S[kr.S_HEAP])})

    # last trace sample, seconds between samples, lower bound then (in samples)
    trace_clock = [-1.0, 0.0, 0.0]
    ws = (path, epath, inpfx, u, fbuf, tmpw, ucnt, ccnt, pmask)
    record(0.0)
    with Anytime("corels", unit="nodes", time_limit=p["time_limit"], callback=callback,
                 verbose=p["verbose"]) as run:
        status = run.drive(step)
        run.finish("optimal" if status == "done" else status)
    status = "optimal" if status == "done" else status
    time_to_best = best_seen[1]

    total = time.perf_counter() - t_wall0
    lb_units = record(total)
    if status == "optimal":
        lb_units = F[kr.F_BEST]
    k_best = int(S[kr.S_BEST_K])
    prefix = tuple(int(a) for a in best_prefix[:k_best])
    counts = _class_counts(A, codes, n_classes, prefix)
    labels = counts.argmax(axis=1)
    mistakes = int(S[kr.S_BEST_MIST])
    assert mistakes == int(counts.sum() - counts.max(axis=1).sum())
    objective = mistakes / n + c * k_best
    lower_bound = min(lb_units / n, objective)
    if status == "optimal":
        lower_bound = objective
    stats = {
        "nodes_expanded": int(S[kr.S_EXPANDED]),
        "nodes_evaluated": int(S[kr.S_EVALUATED]),
        "nodes_inserted": int(S[kr.S_INSERTED]),
        "pruned": {
            "min_support": int(S[kr.S_PR_MINSUP]),
            "min_accurate_support": int(S[kr.S_PR_MINACC]),
            "rejection_propagation": int(S[kr.S_PR_REJPROP]),
            "hierarchical": int(S[kr.S_PR_HIER]),
            "lookahead": int(S[kr.S_PR_LOOK]),
            "prefix_length": int(S[kr.S_PR_PLEN]),
            "equivalent_points": int(S[kr.S_PR_EQPTS]),
            "symmetry": int(S[kr.S_PR_SYM]),
        },
        "superseded": int(S[kr.S_SUPERSEDED]),
        "dropped_from_queue": int(S[kr.S_DROPPED]),
        "max_queue_size": int(S[kr.S_MAX_HEAP]),
        "max_trie_size": int(S[kr.S_MAX_TRIE]),
        "map_size": int(S[kr.S_MAP]),
        "max_map_size": int(S[kr.S_MAX_MAP]),
        "best_updates": int(S[kr.S_BEST_UPDATES]),
        "time_to_best": time_to_best,
        "total_time": total,
        "cpu_time": time.process_time() - t_cpu0,
    }
    return CorelsResult(
        prefix=prefix,
        rule_labels=tuple(classes[labels[:-1]].tolist()),
        default_label=classes[labels[-1]].item(),
        objective=objective,
        mistakes=mistakes,
        lower_bound=lower_bound,
        status=status,
        classes=classes,
        counts=counts,
        c=c,
        stats=stats,
        trace={k: np.asarray(v, dtype=float) for k, v in trace.items()},
    )
