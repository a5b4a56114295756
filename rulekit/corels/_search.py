"""CORELS: the certifiably optimal rule list, by branch and bound.

The method is the one of Angelino, Larus-Stone, Alabi, Seltzer and Rudin,
"Learning Certifiably Optimal Rule Lists for Categorical Data", Journal of
Machine Learning Research 18(234), 2018.  :func:`search` validates the input,
builds the problem (``_problem.py``) and the state (``_state.py``) and runs
the compiled loop (``_kernels.py``) on the shared anytime driver
(:class:`rulekit._anytime.Anytime`), which owns the clock, Ctrl-C, the
callback and the progress bar.

Bounds (names for ``bounds=``), with ``b`` a prefix's objective lower bound
(its rules' mistakes plus ``c`` per rule) and ``b0`` the equivalent-points
mistakes among the samples it leaves uncaptured:

``hierarchical`` (Section 3.4, Theorem "Hierarchical objective lower bound")
    do not keep a prefix whose ``b + b0`` cannot beat the best list;
``lookahead`` (Section 3.4, Lemma "Objective lower bound with one-step lookahead")
    do not keep a prefix whose ``b + b0 + c`` cannot beat the best (a prefix
    is only kept to be extended);
``prefix_length`` (Section 3.5, Theorems "Upper bound on prefix length" and
    "Prefix-specific upper bound on prefix length")
    do not keep prefixes whose children are longer than the best objective
    allows;
``min_support`` (Section 3.7, Theorem "Lower bound on antecedent support")
    reject a rule capturing at most ``c*N`` new samples;
``min_accurate_support`` (Section 3.7, Theorem "Lower bound on accurate antecedent support")
    reject a rule classifying at most ``c*N`` of its new samples correctly;
``rejection_propagation`` (Section 3.9, Theorem "Antecedent rejection propagates")
    an antecedent rejected after a prefix is skipped in all its extensions;
``equivalent_points`` (Section 3.14, Theorem "Equivalent points bound")
    add ``b0``;
``next_rule_gain`` (new here)
    a kept prefix will get one more rule or at least two.  With two, its
    extensions score at least ``b + b0 + 2c``; with one, at least
    ``b + b0 + c + e``, where ``e`` bounds from below the excess mistakes
    (beyond ``b0``) of the best single rule plus default on what the prefix
    leaves.  ``e`` comes for free from the parent's expansion: a rule can
    only relabel samples it captures, and a child's rule can at most remove
    from another rule's capture the samples the child captures
    (``_kernels.next_rule_excess`` has the inequality).

The symmetry-aware map (Section 4.3; Corollary "Permutation bound" and
Theorem "Equivalent support bound") keeps, among prefixes with the same
antecedent set (``"permutation"``) or the same captured samples
(``"capture"``), the best one only.

Reference-guided search (opt-in, ``reference=``).  After the "guessing"
idea of McTavish, Zhong, Achermann, Karimalis, Chen, Rudin and Seltzer,
"Fast Sparse Decision Tree Optimization via Reference Ensembles", AAAI 2022
(Section 4, lower-bound guessing): a kept prefix's extensions are bounded by
``b + c + r``, with ``r`` the reference model's mistakes on the samples the
prefix leaves uncaptured.  This is no bound for every list, only for lists
that, on the samples each of their non-empty proper prefixes leaves
uncaptured, make at least as many mistakes as the reference.  The other
pruning rules discard a list in favour of one at least as good, which may
itself fall outside that class; so the claim is made for lists that also
meet the support conditions of Section 3.7 (every rule captures more than
``c*N`` samples and classifies more than ``c*N`` of them correctly), and the
adjacent-swap rule is off.  The status is then ``"optimal_relative"`` and
the certificate's scope states exactly this class (:data:`REFERENCE_SCOPE`).

Order and ties.  Scores are compared as ``mistakes + c*N*K`` (integer
mistakes, evaluated in float64); scores closer than ``1e-9 * N`` are ties,
broken in favour of the shorter list, then of the lexicographically lower
antecedent indices.  The result of :func:`search` is the unique minimum of
that order when ``status == "optimal"``.  Every bound only discards lists
that are strictly worse in this order than some other list, which is why the
support bounds may use ``<=`` where the paper has ``<``.  Memory grows with
the prefixes expanded, not with the children evaluated (``_kernels.py``
explains the partial expansion).  Whatever stops the search, the returned
lower bound is the minimum over every prefix not yet refuted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable

import numpy as np

from rulekit._anytime import Anytime, default_max_memory
from rulekit._params import (AnyOf, CallableOrNone, Constraint, Instance, Integer, Options, Real,
                             declared, validated)
from rulekit.corels import _kernels as kr
from rulekit.corels._bounds import BOUNDS, PRUNE_COUNTERS, PRUNE_REASONS  # noqa: F401 (BOUNDS: public here)
from rulekit.corels._problem import check_data, class_totals, prepare
from rulekit.corels._result import REFERENCE_SCOPE, CorelsResult  # noqa: F401 (REFERENCE_SCOPE: public here)
from rulekit.corels._state import MemoryBudgetError, State, workspace
from rulekit.evaluate import capture_counts
from rulekit._tolerances import MAX_NODES_CAP, RATE_SLACK, TIE_PER_SAMPLE

POLICIES = {
    "lower_bound": kr.POL_LB,
    "curious": kr.POL_CURIOUS,
    "objective": kr.POL_OBJ,
    "bfs": kr.POL_BFS,
    "dfs": kr.POL_DFS,
}
SYMMETRIES = {"none": kr.SYM_NONE, "permutation": kr.SYM_PERM, "capture": kr.SYM_CAPTURE}


class MemoryLimitError(ValueError):
    """``max_memory`` is below what the problem needs before its search starts.

    ``need_mb`` is that need; ``held_mb`` (0 here) is what a caller held beside it.
    """

    def __init__(self, need_mb: float, message: str):
        super().__init__(message)
        self.need_mb = need_mb
        self.held_mb = 0.0


class BoundSet(Constraint):
    """``"all"``, ``"none"``, one name of :data:`BOUNDS` or a collection of them."""

    allow_none = True

    def type_ok(self, value) -> bool:
        if isinstance(value, str):
            return True
        return (isinstance(value, Iterable) and not isinstance(value, (bytes, dict))
                and all(isinstance(v, str) for v in value))

    def value_ok(self, value) -> bool:
        if isinstance(value, str):
            return value in ("all", "none") or value in BOUNDS
        return set(value) <= BOUNDS

    def normalize(self, value) -> frozenset:
        if isinstance(value, str):
            return {"all": BOUNDS, "none": frozenset()}.get(value, frozenset({value}))
        return frozenset(value)

    def describe(self) -> str:
        return '"all", "none", or names from ' + ", ".join(sorted(BOUNDS))


#: Declarations of :func:`search`'s parameters (shared with ``CorelsClassifier``).
SEARCH_PARAMETERS = {
    "c": Real(0, None),
    "policy": Options(*POLICIES),
    "symmetry": Options(*SYMMETRIES),
    "bounds": BoundSet(),
    "max_nodes": Integer(1, allow_none=True),
    "max_memory": AnyOf(Real(0, None, closed="neither"), Options("auto")),
    "reference": Instance((np.ndarray, list, tuple), what="an array of predicted labels",
                          allow_none=True),
    "max_work": Integer(1, allow_none=True),
    "time_limit": Real(0, None, closed="neither", allow_none=True),
    "callback": CallableOrNone(),
    "verbose": Integer(0),
    "trace": Options("events", allow_none=True),
}
#: Most events a recording search keeps (``trace="events"``); later ones are counted only.
EVENT_CAP = 200_000
#: Antecedent indices the log's prefixes may take in all.
_PREFIX_WORDS = 8 * EVENT_CAP
_EVENT_KINDS = ("expand", "prune", "best")
_MAX_TRACE = 512
#: A counted set costs about this many 64-bit words of overhead (bounds, map look-ups,
#: queue) beside its own words: measured on this project's benchmark machine, one
#: evaluated child took 0.4 us on breast cancer (9 words) and 2.6 us on adult (763 words).
WORK_OVERHEAD_WORDS = 128


def work_cap(max_work, words: int) -> int:
    """Counted sets allowed by ``max_work`` work units at ``words`` words a set (0: no cap)."""
    if max_work is None:
        return 0
    return max(1, int(max_work) // (WORK_OVERHEAD_WORDS + int(words)))

_TRACE_KEYS = ("time", "nodes", "queue_size", "trie_size", "best_objective",
               "lower_bound", "log10_remaining", "memory_mb")
_PRUNED = PRUNE_COUNTERS
_COUNTERS = {"nodes_expanded": kr.S_EXPANDED, "nodes_evaluated": kr.S_EVALUATED,
             "nodes_inserted": kr.S_INSERTED, "superseded": kr.S_SUPERSEDED,
             "dropped_from_queue": kr.S_DROPPED, "max_queue_size": kr.S_MAX_WAITING,
             "max_trie_size": kr.S_MAX_TRIE, "map_size": kr.S_MAP, "max_map_size": kr.S_MAX_MAP,
             "best_updates": kr.S_BEST_UPDATES, "exact_gain_checks": kr.S_EXACT_CALLS,
             "exact_gain_counts": kr.S_EXACT_COUNTS,
             "exact_gain_yes": kr.S_EXACT_YES}


def _class_counts(A: np.ndarray, codes: np.ndarray, n_classes: int, prefix,
                  weights=None) -> np.ndarray:
    """Samples of each class each rule of ``prefix`` captures, default last (int64)."""
    counts = capture_counts(A, [(a,) for a in prefix], codes, n_classes, weights)
    # weighted sums come back as float64: exact, since the total is below 2**53
    return counts.astype(np.int64)


def log10_remaining(depth_counts, m: int, kmax: int) -> float:
    """log10 of an upper bound on the prefixes left to evaluate.

    Section 3.6, Proposition "Coarse-grained upper bound on remaining prefix
    evaluations", with ``depth_counts[j]`` the prefixes of length ``j``
    waiting and ``kmax`` the longest prefix the best objective allows.
    """
    terms = []
    for j, qj in enumerate(int(q) for q in depth_counts):
        inner = [math.lgamma(m - j + 1) - math.lgamma(m - j - k + 1)
                 for k in range(0, max(kmax - j, -1) + 1) if m - j - k >= 0]
        if qj == 0 or not inner:
            continue
        top = max(inner)
        terms.append(math.log(qj) + top + math.log(sum(math.exp(v - top) for v in inner)))
    if not terms:
        return float("-inf")
    top = max(terms)
    return (top + math.log(sum(math.exp(v - top) for v in terms))) / math.log(10)


def _initial_state(problem, max_memory, fixed: int) -> State:
    """The search state, within ``max_memory``; a clear error when even its start does not fit."""
    limit_mb = default_max_memory() if max_memory == "auto" else float(max_memory)
    wm, sym = int(problem.cfg[kr.G_WM]), int(problem.cfg[kr.G_SYM])
    state = State(problem.m, wm, sym, None)
    need_mb = (fixed + state.nbytes()) / 2**20
    if need_mb > limit_mb:
        raise MemoryLimitError(need_mb,
            f"max_memory={limit_mb:.4g} MB is below the {need_mb:.2f} MB that this problem "
            f"needs before the search starts (antecedent bit sets, count tables and the initial "
            f"search state); set max_memory to at least {math.ceil(need_mb * 100) / 100:g}")
    state.budget = int(limit_mb * 2**20) - fixed
    return state


def _trivial_result(A, codes, classes, c, stats_keys, weights=None) -> CorelsResult:
    counts = _class_counts(A, codes, len(classes), (), weights)
    default = int(np.argmax(counts[-1]))
    n = int(counts.sum())
    mistakes = n - int(counts[-1, default])
    obj = mistakes / n
    stats = {k: 0 for k in stats_keys} | {"pruned": {k: 0 for k in _PRUNED}}
    stats.update(time_to_best=0.0, total_time=0.0, cpu_time=0.0, memory_mb=0.0, work=0)
    trace = {k: np.array([0.0]) for k in _TRACE_KEYS}
    trace.update(best_objective=np.array([obj]), lower_bound=np.array([obj]),
                 log10_remaining=np.array([-np.inf]))
    return CorelsResult(prefix=(), rule_labels=(), default_label=classes[default].item(),
                        objective=obj, mistakes=mistakes, lower_bound=obj, status="optimal",
                        classes=classes, counts=counts, c=c, stats=stats, trace=trace)


class _Run:
    """One search: the problem, its state, the trace, and the step the driver calls."""

    def __init__(self, problem, state: State, fixed: int, events: bool = False):
        self.pb, self.st, self.fixed = problem, state, fixed
        # the event log's buffers (None: the kernel's non-recording specialization)
        self.ev = None
        self.ev_expanded = []  # (events recorded, expansions done) after each kernel call
        if events:
            self.ev = (np.zeros((EVENT_CAP, 4), np.int32), np.zeros(EVENT_CAP, np.float64),
                       np.zeros(_PREFIX_WORDS, np.int32), np.zeros(4, np.int64))
        m, cfg = problem.m, problem.cfg
        self.ws = workspace(m, int(cfg[kr.G_W]), int(cfg[kr.G_WM]), problem.n_classes)
        self.best_prefix = np.zeros(m + 1, dtype=np.int64)
        self.depth_counts = np.zeros(m + 2, dtype=np.int64)
        self.trace = {k: [] for k in _TRACE_KEYS}
        self.t0 = time.perf_counter()
        self.cpu0 = time.process_time()
        self.best_seen = (0, 0.0)  # best-list updates seen, and when the last came
        # the trace samples the queue's bound now and then: when it last did, how long
        # to wait before the next sample, and the bound it read
        self.sampled_at, self.sample_every, self.sampled_bound = -1.0, 0.0, 0.0
        self.peak_bytes = 0
        S, F = state.S, state.F
        F[kr.F_LAM], F[kr.F_TOL] = problem.lam, problem.tol
        F[kr.F_BEST] = float(problem.empty_mistakes)
        S[kr.S_BEST_MIST], S[kr.S_BEST_K] = problem.empty_mistakes, 0
        # the root (empty prefix): one permanent reference keeps it alive
        root = kr.alloc_node(state.nodes, state.free, S)
        state.nodes[root] = 0
        state.nodes[root, [kr.C_PARENT, kr.C_ANTE, kr.C_REJ]] = -1
        state.nodes[root, kr.C_REF] = 2
        state.nodes[root, kr.C_FLAGS] = kr.FL_QUEUE
        state.nlb[root] = problem.b0_root + problem.lam
        kr.heap_push(state.hkey, state.hseq, state.hnode, S, 0.0, 0, root)
        S[kr.S_SEQ] = 1

    def nbytes(self) -> int:
        """Bytes of the whole search: fixed arrays and state (what ``max_memory`` limits)."""
        return self.fixed + self.st.nbytes()

    def record(self, now: float) -> float:
        """Sample the trace; return the lower bound (in samples) of what is left."""
        st, pb = self.st, self.pb
        lb = kr.queue_summary(st.nodes, st.nlb, st.hkey, st.hnode, st.S, st.F, pb.cfg,
                              self.depth_counts)
        best = st.F[kr.F_BEST]
        kmax = pb.m if pb.lam <= 0 else min(int(math.floor(best / pb.lam + RATE_SLACK)), pb.m)
        values = (now, int(st.S[kr.S_EXPANDED]), int(st.S[kr.S_WAITING]), int(st.S[kr.S_TRIE]),
                  best / pb.n, min(lb, best) / pb.n,
                  log10_remaining(self.depth_counts, pb.m, kmax), self.nbytes() / 2**20)
        for key, v in zip(_TRACE_KEYS, values):
            self.trace[key].append(v)
        if len(self.trace["time"]) > 2 * _MAX_TRACE:
            self.trace = {k: v[:-1:2] + [v[-1]] for k, v in self.trace.items()}
        return lb

    def advance(self, budget: int) -> str | None:
        """Run the kernel for ``budget`` expansions; None to go on, else a stop status."""
        st, pb = self.st, self.pb
        while True:
            if self.ev is None:
                code = kr.run(pb.Ap, pb.lut, pb.valid, pb.zob, pb.cfg, st.arrays(), st.S, st.F,
                              self.best_prefix, budget, self.ws)
            else:
                code = kr.run(pb.Ap, pb.lut, pb.valid, pb.zob, pb.cfg, st.arrays(), st.S, st.F,
                              self.best_prefix, budget, self.ws, self.ev)
            self.peak_bytes = max(self.peak_bytes, self.nbytes())
            if code in (kr.R_GROW_NODES, kr.R_GROW_HEAP, kr.R_GROW_MAP, kr.R_GROW_POOL,
                        kr.R_GROW_ARENA):
                try:
                    st.grow(code)
                except MemoryBudgetError:
                    return "memory_limit"
                self.peak_bytes = max(self.peak_bytes, self.nbytes())
                continue
            return {kr.R_DONE: "done", kr.R_NODE_LIMIT: "node_limit",
                    kr.R_WORK_LIMIT: "work_limit"}.get(code)

    def step(self, budget: int, run: Anytime):
        """The step :meth:`Anytime.drive` calls."""
        status = self.advance(budget)
        S, F, n = self.st.S, self.st.F, self.pb.n
        elapsed = time.perf_counter() - self.t0
        if S[kr.S_BEST_UPDATES] != self.best_seen[0]:
            self.best_seen = (int(S[kr.S_BEST_UPDATES]), elapsed)
        if status is None and elapsed - self.sampled_at >= self.sample_every:
            # the queue scan costs time: sample it at most 1/20 of the time
            t_rec = time.perf_counter()
            self.sampled_bound = self.record(elapsed)
            self.sampled_at = elapsed
            self.sample_every = max(0.1, 20 * (time.perf_counter() - t_rec))
        return status, run.state(
            int(S[kr.S_EXPANDED]), best_objective=F[kr.F_BEST] / n,
            lower_bound=min(self.sampled_bound, F[kr.F_BEST]) / n, memory_mb=self.nbytes() / 2**20,
            info={"queue": int(S[kr.S_HEAP]), "waiting": int(S[kr.S_WAITING])})


@validated(SEARCH_PARAMETERS, "corels.search")
def search(A, y, c, *, policy="lower_bound", symmetry="permutation", bounds="all",
           max_nodes=None, max_memory="auto", reference=None, max_work=None, time_limit=None,
           callback=None, verbose=0, trace=None, sample_weight=None) -> CorelsResult:
    """Find a certifiably optimal rule list by branch and bound (CORELS).

    Minimizes ``R(d) = mistakes(d) / N + c * K`` over rule lists ``d`` whose
    ``K`` rules are distinct columns of ``A``; each rule predicts the majority
    class of the samples it captures, the default rule the majority of the
    rest.  With ``sample_weight``, ``N`` and the mistakes are sums of the
    weights: the result (list, labels, objective, bound, status) is the one
    on the data with each row repeated as often as its weight says.

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
        Order in which prefixes are expanded.
    symmetry : {"permutation", "capture", "none"}
        Symmetry-aware map: keep only the best permutation of each antecedent
        set, or the best prefix per set of captured samples, or nothing.
    bounds : "all", "none" or iterable of str
        Which pruning bounds to use; names in :data:`BOUNDS` (see the module
        docstring for what each one does and where it comes from).
    max_nodes : int or None
        Most prefix-tree nodes (expanded prefixes still referenced) held at
        once; reaching it stops the search with status ``"node_limit"``.
    max_memory : float or "auto"
        MB the search may take in all (bit sets, count tables, search
        state); reaching it stops with status ``"memory_limit"``.  ``"auto"``:
        :func:`rulekit._anytime.default_max_memory`.  Below what the problem
        needs before the search starts: an error naming that need.
    reference : array_like of int, shape (N,), or None
        A reference model's predicted label for each sample.  Opt-in
        reference-guided bound (module docstring): faster, and the proof is
        relative to the reference (status ``"optimal_relative"``).
    max_work : int or None
        Work budget: stop with status ``"work_limit"`` after counting
        ``max_work / (WORK_OVERHEAD_WORDS + words)`` sets of samples (``words``
        per set after merging identical rows): the same list and bound on any
        machine at any load, unlike ``time_limit``.  None: no budget.
    time_limit : float or None
        Wall-clock seconds; stops with status ``"time_limit"``.
    callback : callable or None
        Called 4 times a second with a :class:`rulekit._anytime.SearchState`
        (``work`` = prefixes expanded, best objective, bound, ``memory_mb``;
        ``info``: ``queue`` prefixes with children waiting, ``waiting`` those
        children); True stops the search (status ``"interrupted"``).
    verbose : int
        1 or more: a progress bar on stderr.
    trace : {None, "events"}
        ``"events"``: record an event log (expansions, prunes with their
        bound, new best lists) in ``CorelsResult.events``, at most
        :data:`EVENT_CAP` events (later ones counted in ``"truncated"``).
        Without it the search costs nothing more (separate compiled kernel).
    sample_weight : array_like of int, shape (N,), or None
        Frequency weights: a row of weight ``k`` counts as ``k`` identical
        rows (whole numbers >= 0; a fractional or negative weight is a
        ``ValueError``, since mistakes are counted exactly).  Rows of weight
        0 count for nothing.  Folding identical (row, class) pairs of a large
        data set into one weighted row each gives the same result at the
        cost of the distinct rows.  ``CorelsResult.counts`` and ``mistakes``
        are then sums of weights.  None: every row counts once.

    Returns
    -------
    CorelsResult
        Ctrl-C returns the best list so far (``"interrupted"``); ties: docs/math.md.
    """
    p = declared(SEARCH_PARAMETERS, locals())
    A, classes, codes, refmiss, weights = check_data(A, y, reference, sample_weight)
    if _empty_list_wins(A, codes, classes, c, weights):
        res = _trivial_result(A, codes, classes, c, _COUNTERS, weights)
        if trace == "events":
            object.__setattr__(res, "events", _empty_events(res.objective))
        return res
    job = _start(_problem(A, codes, classes, refmiss, weights, p), p)
    with Anytime("corels", unit="nodes", time_limit=time_limit, callback=callback,
                 verbose=verbose) as run:
        status = run.drive(lambda budget: job.step(budget, run))
        if status == "done":
            status = "optimal" if refmiss is None else "optimal_relative"
        run.finish(status)
    return _result(job, A, codes, classes, c, status, weights)


def _empty_list_wins(A, codes, classes, c, weights=None) -> bool:
    """Whether the empty list is optimal without a search.

    One class, no antecedents, or any rule costing more than the empty
    list's mistakes.
    """
    totals = class_totals(codes, len(classes), weights)
    n = int(totals.sum())
    lam, empty = c * n, n - int(totals.max())
    return len(classes) == 1 or A.shape[1] == 0 or lam > empty + TIE_PER_SAMPLE * n


def _problem(A, codes, classes, refmiss, weights, p: dict):
    """The kernels' problem for the checked parameters ``p`` of :func:`search`."""
    max_nodes = MAX_NODES_CAP if p["max_nodes"] is None else min(p["max_nodes"], MAX_NODES_CAP)
    problem = prepare(A, codes, classes, p["c"], chosen=p["bounds"],
                      policy=POLICIES[p["policy"]], symmetry=SYMMETRIES[p["symmetry"]],
                      max_nodes=max_nodes, refmiss=refmiss, weights=weights)
    problem.cfg[kr.G_WORKCAP] = work_cap(p["max_work"], int(problem.cfg[kr.G_W]))
    return problem


def _start(problem, p: dict) -> _Run:
    """The search's state, within ``max_memory``, with its first trace record."""
    fixed = problem.nbytes() + sum(a.nbytes for a in workspace(
        problem.m, int(problem.cfg[kr.G_W]), int(problem.cfg[kr.G_WM]), problem.n_classes))
    state = _initial_state(problem, p["max_memory"], fixed)
    job = _Run(problem, state, fixed, events=p["trace"] == "events")
    job.record(0.0)
    return job


def _result(job: _Run, A, codes, classes, c, status: str, weights=None) -> CorelsResult:
    """Turn the final state into a :class:`CorelsResult`."""
    S, F, n = job.st.S, job.st.F, job.pb.n
    total = time.perf_counter() - job.t0
    lb_units = job.record(total)
    k_best = int(S[kr.S_BEST_K])
    prefix = tuple(int(job.pb.keep[a]) for a in job.best_prefix[:k_best])
    counts = _class_counts(A, codes, len(classes), prefix, weights)
    labels = counts.argmax(axis=1)
    mistakes = int(S[kr.S_BEST_MIST])
    assert mistakes == int(counts.sum() - counts.max(axis=1).sum())
    objective = mistakes / n + c * k_best
    proved = status in ("optimal", "optimal_relative")
    stats = {key: int(S[idx]) for key, idx in _COUNTERS.items()}
    stats["pruned"] = {key: int(S[idx]) for key, idx in _PRUNED.items()}
    # the work the budget counts (max_work's units), so callers can share one budget
    stats["work"] = ((int(S[kr.S_EVALUATED]) + int(S[kr.S_EXACT_COUNTS]))
                     * (WORK_OVERHEAD_WORDS + int(job.pb.cfg[kr.G_W])))
    stats.update(time_to_best=job.best_seen[1], total_time=total,
                 cpu_time=time.process_time() - job.cpu0,
                 memory_mb=job.peak_bytes / 2**20)
    return CorelsResult(
        prefix=prefix, rule_labels=tuple(classes[labels[:-1]].tolist()),
        default_label=classes[labels[-1]].item(), objective=objective, mistakes=mistakes,
        lower_bound=objective if proved else min(lb_units / n, objective), status=status,
        classes=classes, counts=counts, c=c, stats=stats,
        trace={k: np.asarray(v, dtype=float) for k, v in job.trace.items()},
        reference=job.pb.cfg[kr.G_REFB] != 0, events=_events(job))


def _empty_events(objective: float) -> dict:
    return {"kind": np.array(["best"]), "reason": np.array([""]), "prefix": [()],
            "value": np.array([objective]), "expanded": np.array([0], np.int64),
            "cap": EVENT_CAP, "truncated": 0}


def _events(job: _Run) -> dict | None:
    """The recorded event log in the caller's terms (antecedent indices, objective units)."""
    if job.ev is None:
        return None
    evi, evf, evp, evn = job.ev
    pb, n = job.pb, job.pb.n
    k = int(evn[0])
    names = PRUNE_REASONS
    kinds = evi[:k, 0]
    prefixes = [()] + [tuple(int(pb.keep[a]) for a in evp[o:o + L])
                       for o, L in zip(evi[:k, 2].tolist(), evi[:k, 3].tolist())]
    value = np.concatenate(([pb.empty_mistakes / n], evf[:k] / n))
    # an event's value in samples is mistakes + lam*K (+ b0): objective units divide by N
    expanded = np.concatenate(([0], np.cumsum(kinds == kr.EV_EXPAND)))
    return {"kind": np.array(["best"] + [_EVENT_KINDS[v] for v in kinds.tolist()]),
            "reason": np.array([""] + [names[r] if t == kr.EV_PRUNE else ""
                                       for t, r in zip(kinds.tolist(), evi[:k, 1].tolist())]),
            "prefix": prefixes, "value": value, "expanded": expanded.astype(np.int64),
            "cap": EVENT_CAP, "truncated": int(evn[2])}
