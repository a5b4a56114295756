"""Every rule list whose objective is within epsilon of the optimum (the Rashomon set).

One optimal rule list hides the many lists that are almost as good.  Given
the certified optimum ``R*`` of :func:`rulekit.corels.search`, :func:`rashomon`
enumerates, by a depth-first branch and bound over the same antecedents, every
rule list ``d`` with ``R(d) <= R* + epsilon``, where, as in the search,
``R(d) = mistakes(d) / N + c * K``, each rule predicts the majority class of
what it captures and the default rule the majority of the rest.

A list is its prefix: an ordered tuple of distinct antecedent indices.  Two
orderings of the same antecedents are two lists.  A list in which some rule
captures no training sample predicts exactly like the list without that rule
and is not counted as a model of its own.

Bounds (Angelino, Larus-Stone, Alabi, Seltzer and Rudin, "Learning
Certifiably Optimal Rule Lists for Categorical Data", JMLR 18(234), 2018,
section 3), with the pruning threshold raised from ``R*`` to ``R* + epsilon``:

* hierarchical objective lower bound with the equivalent-points term
  (Theorems 1 and 20 of the paper, "thm:bound" and "thm:identical"): every
  strict extension of a prefix ``P`` with ``K`` rules scores at least
  ``(mistakes of P's rules + unavoidable mistakes among the samples P leaves)
  / N + c (K + 1)``; when that exceeds the threshold, no extension is
  enumerated;
* accurate support (Theorem "thm:min-capture-correct", generalised): deleting
  a rule that classifies ``a`` samples correctly from a list ``d`` gives a
  list ``d'`` with ``R(d') <= R(d) - c + a / N``, and ``R(d') >= R*``; so a
  list of the set has ``a >= (c - epsilon) N`` for each of its rules.  For
  ``epsilon >= c`` this bound is void.

The enumeration is exact: the tests compare it with brute-force enumeration
of every list on small instances, with exact fractions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from rulekit._anytime import Anytime, default_max_memory
from rulekit._params import AnyOf, CallableOrNone, Integer, Options, Real, declared, validated
from rulekit.bitset import n_words, pack, popcount
from rulekit.corels import _capture_graph as cg
from rulekit.corels._problem import check_data, class_totals, group_samples
from rulekit.corels._search import search
from rulekit._tolerances import INT32_MAX, TIE_PER_SAMPLE

__all__ = ["rashomon", "RashomonResult", "RASHOMON_PARAMETERS"]

#: Declarations of :func:`rashomon`'s parameters.
RASHOMON_PARAMETERS = {
    "c": Real(0, None),
    "epsilon": Real(0, None),
    "max_models": Integer(1),
    "max_memory": AnyOf(Real(0, None, closed="neither"), Options("auto"), allow_none=True),
    "time_limit": Real(0, None, closed="neither", allow_none=True),
    "callback": CallableOrNone(),
    "verbose": Integer(0),
}
DEFAULT_MAX_MODELS = 10_000_000

# kernel return codes
_DONE = 0
_BUDGET = 1
_GROW = 2


class PrefixArray(Sequence):
    """Many prefixes in two flat arrays; item ``i`` is a tuple of antecedent indices."""

    def __init__(self, flat: np.ndarray, offsets: np.ndarray):
        self._flat = flat
        self._offsets = offsets

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return tuple(int(a) for a in self._flat[self._offsets[i]:self._offsets[i + 1]])

    def lengths(self) -> np.ndarray:
        """Number of rules of every list."""
        return np.diff(self._offsets)

    def arrays(self):
        """``(flat, offsets)``: list ``i`` is ``flat[offsets[i]:offsets[i + 1]]``."""
        return self._flat, self._offsets

    def __repr__(self) -> str:
        head = ", ".join(repr(self[i]) for i in range(min(3, len(self))))
        more = ", ..." if len(self) > 3 else ""
        return f"PrefixArray([{head}{more}], n={len(self)})"


@dataclass(frozen=True)
class RashomonResult:
    """The rule lists within ``epsilon`` of the optimum.

    Attributes
    ----------
    prefixes : PrefixArray
        Each list's antecedent indices, in rule order; sorted by objective,
        ties in lexicographic order of the prefix (so ``prefixes[0]`` is the
        optimal list of :func:`search`'s tie-break).
    objectives : ndarray of float
        ``mistakes / N + c * K`` of each list, in the same order.
    optimum : float or None
        The certified optimal objective ``R*`` (None when the search for it
        stopped at a limit).
    epsilon, c : float
    status : str
        ``"optimal"`` when the set is complete (every list within epsilon is
        in it); otherwise the limit that stopped the enumeration
        (``"time_limit"``, ``"interrupted"``, ``"node_limit"`` for
        ``max_models``), and the set is a subset.
    stats : dict
        ``nodes_expanded`` (prefixes extended), ``evaluated`` (lists
        scored), ``pruned_support``, ``time``.
    """

    prefixes: PrefixArray
    objectives: np.ndarray
    optimum: float | None
    epsilon: float
    c: float
    status: str
    stats: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.prefixes)

    @property
    def complete(self) -> bool:
        """True when every list within epsilon was found."""
        return self.status == "optimal"

    @property
    def threshold(self) -> float | None:
        """``optimum + epsilon``: the largest objective in the set."""
        return None if self.optimum is None else self.optimum + self.epsilon


class _Enumeration:
    """The graph of captured sets and the output arrays; the driver's steps."""

    def __init__(self, A, codes, n_classes, lam, thr, tol, min_correct, kmax, max_models,
                 walk=True, split=None, weights=None):
        # ``split``: a row attribute that groups must not mix (a fairness group)
        self.split = split is not None
        keyed = A if split is None else np.column_stack([A, split])
        groups, table, _ = group_samples(keyed, codes, n_classes, weights=weights)
        g, m = groups.shape[0], A.shape[1]
        w = n_words(g)
        self.Ap = np.ascontiguousarray(pack(groups[:, :m].T))
        self.luts, self.fb, self.per = cg.count_tables(table, w, int(table.sum()))
        self.lam, self.thr, self.tol, self.min_correct = lam, thr, tol, min_correct
        self.max_models = max_models
        self.walk = walk  # False: stop once the graph and its cost-to-go are built
        self.groups, self.table_counts = groups, table
        self.phase = "explore"
        # graph: node 0 is the full set
        cap = 1024
        self.keys = np.zeros((cap, w), dtype=np.uint64)
        self.keys[0] = pack(np.ones(g, dtype=bool))
        self.g = np.zeros(cap)
        self.dflt = np.zeros(cap, dtype=np.int32)  # the default rule's mistakes at each node
        self.dflt[0] = int(table.sum()) - int(table.sum(axis=0).max())
        self.flag = np.zeros(cap, dtype=np.int8)
        self.flag[0] = cg.SEEN
        self.e_start = np.zeros(cap, dtype=np.int64)
        self.e_len = np.zeros(cap, dtype=np.int32)
        self.e_child = np.zeros(8 * cap, dtype=np.int32)
        self.e_ante = np.zeros(8 * cap, dtype=np.int32)
        self.e_mist = np.zeros(8 * cap, dtype=np.int32)
        self.n_edges = np.zeros(1, dtype=np.int64)
        self.n_nodes = np.ones(1, dtype=np.int64)
        self.table = np.full(4 * cap, -1, dtype=np.int32)
        cg.rehash(self.table, self.keys, 1)
        self.hkey = np.zeros(cap)
        self.hnode = np.zeros(cap, dtype=np.int32)
        self.hsize = np.ones(1, dtype=np.int64)  # the full set, at cost 0
        self.x = np.zeros(w, dtype=np.uint64)
        self.u2 = np.zeros(w, dtype=np.uint64)
        self.ucnt = np.zeros(n_classes, dtype=np.int64)
        self.ccnt = np.zeros(n_classes, dtype=np.int64)
        self.counts = np.zeros(2, dtype=np.int64)
        # walk: stacks and output
        levels = min(m, kmax, g) + 2
        self.depth = np.zeros(1, dtype=np.int64)
        self.path = np.zeros(levels, dtype=np.int64)
        self.cursor = np.zeros(levels, dtype=np.int64)
        self.nodes = np.zeros(levels, dtype=np.int64)
        self.gs = np.zeros(levels)
        self.flat = np.zeros(4096, dtype=np.int32)
        self.off = np.zeros(1025, dtype=np.int64)
        self.obj = np.zeros(1024)
        self.found = np.zeros(2, dtype=np.int64)

    def step(self, budget):
        """One chunk of the current phase; the driver's step protocol."""
        if self.phase == "explore":
            code = cg.explore(self.data(), self.limits(), budget,
                              (self.keys, self.g, self.dflt, self.flag, self.table),
                              self.edges(), (self.hkey, self.hnode),
                              (self.n_nodes, self.n_edges, self.hsize, self.counts),
                              (self.x, self.u2, self.ucnt, self.ccnt))
            if code == cg.GROW:
                self._grow_graph()
            elif code == cg.DONE:
                self._cost_to_go()
                self.phase = "walk"
                if not self.walk:
                    return "done"
            return None
        code = cg.enumerate_paths(self.lam, self.thr, self.tol, budget, self.dflt, self.flag,
                                  self.e_start, self.e_len, self.e_child, self.e_ante,
                                  self.e_mist, self.hplus,
                                  self.depth, self.path, self.cursor, self.nodes, self.gs,
                                  self.flat, self.off, self.obj, self.found)
        if self.found[0] >= self.max_models:
            return "node_limit"
        if code == cg.GROW:
            self._grow_output()
            return None
        return "done" if code == cg.DONE else None

    # the tuples the kernels take (rebuilt each call: growing replaces arrays)
    def data(self) -> tuple:
        """The packed rules and their count tables: ``(Ap, luts, fb, per)``."""
        return (self.Ap, self.luts, self.fb, self.per)

    def limits(self) -> tuple:
        """``(lam, thr, tol, min_correct)``, as floats (one compiled signature)."""
        return (float(self.lam), float(self.thr), float(self.tol), float(self.min_correct))

    def edges(self) -> tuple:
        """``(e_start, e_len, e_child, e_ante, e_mist)``."""
        return (self.e_start, self.e_len, self.e_child, self.e_ante, self.e_mist)

    def _cost_to_go(self):
        n = int(self.n_nodes[0])
        sizes = popcount(self.keys[:n])  # distinct sample groups left: children have fewer
        order = np.argsort(sizes, kind="stable")
        self.h = np.zeros(n)
        self.hplus = np.zeros(n)
        cg.cost_to_go(order, self.lam, self.dflt, self.flag, self.e_start, self.e_len,
                      self.e_child, self.e_mist, self.h, self.hplus)
        self.cursor[0] = self.e_start[0]
        self.hkey = self.hnode = None
        if self.walk:  # the enumeration's walk needs neither the keys nor the table
            self.keys = self.table = None

    def _grow_graph(self):
        n = int(self.n_nodes[0])
        m = self.Ap.shape[0]
        if n + m + 1 > self.keys.shape[0]:
            for name in ("keys", "g", "dflt", "flag", "e_start", "e_len"):
                setattr(self, name, _grown(getattr(self, name)))
        if self.n_edges[0] + m > self.e_child.shape[0]:
            for name in ("e_child", "e_ante", "e_mist"):
                setattr(self, name, _grown(getattr(self, name)))
        if 2 * (n + m + 1) > self.table.shape[0]:
            self.table = np.full(2 * self.table.shape[0], -1, dtype=np.int32)
            cg.rehash(self.table, self.keys, n)
        if self.hsize[0] + m + 1 > self.hkey.shape[0]:
            self.hkey = _grown(self.hkey)
            self.hnode = _grown(self.hnode)

    def _grow_output(self):
        if self.found[0] + 2 > self.off.shape[0]:
            self.off = np.concatenate([self.off, np.zeros(self.off.shape[0], np.int64)])
            # one objective per list: one fewer than offsets
            self.obj = np.concatenate([self.obj, np.zeros(self.off.shape[0] - 1 - self.obj.shape[0])])
        if self.found[1] + self.path.shape[0] > self.flat.shape[0]:
            self.flat = np.concatenate([self.flat, np.zeros(self.flat.shape[0], np.int32)])

    def nbytes(self) -> int:
        """Bytes of the graph and the lists found (what ``max_memory`` limits)."""
        arrays = (self.keys, self.g, self.dflt, self.flag, self.table, self.hkey, self.hnode,
                  self.e_start, self.e_len, self.e_child, self.e_ante, self.e_mist, self.flat,
                  self.off, self.obj, getattr(self, "h", None), getattr(self, "hplus", None))
        return sum(a.nbytes for a in arrays if a is not None)


def _grown(a: np.ndarray) -> np.ndarray:
    """A copy half as long again, zero-filled (1.5x keeps the peak of the copy low)."""
    out = np.zeros((a.shape[0] + a.shape[0] // 2 + 1,) + a.shape[1:], dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


@validated(RASHOMON_PARAMETERS, "corels.rashomon")
def rashomon(A, y, c, epsilon, *, max_models=DEFAULT_MAX_MODELS, max_memory="auto",
             time_limit=None, callback=None, verbose=0, sample_weight=None) -> RashomonResult:
    """Enumerate every rule list within ``epsilon`` of the optimal objective.

    Parameters
    ----------
    A : array_like of bool, shape (N, M)
        Antecedent matrix, as for :func:`rulekit.corels.search`.
    y : array_like of int, shape (N,)
        Class labels.
    c : float
        Penalty per rule, ``c >= 0``.
    epsilon : float
        How far above the optimum a list may score, in objective units
        (``0.01`` admits lists with up to ``0.01 * N`` more mistakes, or one
        more rule at ``c = 0.01``); ``epsilon >= 0``.
    max_models : int
        Most lists to keep; reaching it stops the enumeration with status
        ``"node_limit"``.
    max_memory : float, "auto" or None
        MB the graph and the lists may take (their arrays, as counted by
        the engine); reaching it stops with status ``"memory_limit"``.
        ``"auto"``: half the available memory, at most 4 GB; None: no limit.
    time_limit : float or None
        Seconds for the optimum search and the enumeration together.
    callback : callable or None
        Called with a :class:`rulekit._anytime.SearchState` (``work`` =
        lists scored, ``info["lists"]`` = lists found); True stops.
    verbose : int
        1 or more: a progress bar on stderr.
    sample_weight : array_like of int, shape (N,), or None
        Frequency weights, as for :func:`rulekit.corels.search`: a row of
        weight ``k`` counts as ``k`` identical rows, ``N`` is their total
        (below ``2**31``: the enumeration keeps mistakes in 32 bits).  The
        set is the one of the data with each row repeated that often.

    Returns
    -------
    RashomonResult
    """
    p = declared(RASHOMON_PARAMETERS, locals())
    if p["max_memory"] == "auto":
        p["max_memory"] = default_max_memory()
    A, classes, codes, _, weights = check_data(A, y, sample_weight=sample_weight)
    totals = class_totals(codes, len(classes), weights)
    n, m = int(totals.sum()), A.shape[1]
    if n > INT32_MAX:
        raise ValueError(f"sample_weight adds up to {n} rows; the enumeration counts "
                         "mistakes in 32 bits, so the total must stay below 2**31")
    c, eps = p["c"], p["epsilon"]
    with Anytime("rashomon", unit="nodes", time_limit=p["time_limit"],
                 max_memory=p["max_memory"], callback=p["callback"],
                 verbose=p["verbose"]) as run:
        best = search(A, codes, c, sample_weight=weights)
        if best.status != "optimal":
            # without the certified optimum the threshold is unknown: no set
            return _assemble(np.zeros(0, np.int32), np.zeros(1, np.int64), np.zeros(0), None,
                             None, eps, c, best.status, {})
        lam, tol = c * n, TIE_PER_SAMPLE * n
        thr = best.mistakes + lam * len(best.prefix) + eps * n
        kmax = m if lam <= 0 else int(math.floor((thr + tol) / lam))
        state = _Enumeration(A, codes, len(classes), lam, thr, tol, max(lam - eps * n, 0.0),
                             kmax, p["max_models"], weights=weights)

        def step(budget):
            status = state.step(budget)
            return status, run.state(int(state.counts[0]), best_objective=best.objective,
                                     memory_mb=state.nbytes() / 2**20,
                                     info={"phase": state.phase, "lists": int(state.found[0])})

        status = run.drive(step)
        run.finish(status)
    k = int(state.found[0])
    empty = n - int(totals.max())  # mistakes of the list without rules
    stats = {"nodes": int(state.n_nodes[0]), "nodes_expanded": int(state.counts[0]),
             "edges_scored": int(state.counts[1]), "edges_kept": int(state.n_edges[0]),
             "time": run.elapsed}
    return _assemble(state.flat[:state.found[1]], state.off[:k + 1], state.obj[:k] / n,
                     empty / n if empty <= thr + tol else None, best.objective, eps, c,
                     "optimal" if status == "done" else status, stats)


def _assemble(flat, off, objectives, empty, optimum, eps, c, status, stats):
    """Sort the lists by objective (stably: ties stay in prefix order), the empty one first."""
    lengths = np.diff(off)
    if empty is not None:
        lengths = np.concatenate([[0], lengths])
        objectives = np.concatenate([[empty], objectives])
        off = np.concatenate([[0], off])
    order = np.argsort(objectives, kind="stable")
    new_len = lengths[order]
    new_off = np.concatenate([[0], np.cumsum(new_len)]).astype(np.int64)
    # gather each list's antecedents from its old place to its new one
    shift = np.repeat(off[:-1][order] - new_off[:-1], new_len)
    new_flat = flat[np.arange(new_off[-1]) + shift].astype(np.int32)
    return RashomonResult(PrefixArray(new_flat, new_off), objectives[order], optimum, eps, c,
                          status, stats)
