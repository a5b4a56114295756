"""Certified rule lists under user constraints: required conditions and fairness.

The constrained optimum is the best list that satisfies the constraints.  Its
objective is at least the unconstrained optimum ``R*``, so it is found with
the Rashomon-set machinery (:mod:`rulekit.corels._capture_graph`): build the
graph of every list with objective at most ``T = R* + epsilon`` and walk it,
keeping the best list that satisfies the constraints; when none does,
``epsilon`` doubles, up to the objective of a list known to satisfy them.
The walk is a branch and bound of its own: a path is abandoned as soon as its
cost plus its exact cost-to-go cannot beat the best feasible list so far.
Every list below the threshold is considered, so the best feasible list
found below it is optimal *under the constraints*.

Constraints (checked on the training rows):

* ``required``: for each requirement, the list must contain a rule whose
  antecedent satisfies it (holds a given condition, or any condition on a
  given feature) and that captures at least one training row;
* fairness between two groups of rows ``a`` and ``b``, for the positive class
  ``p``: statistical parity, ``|P(pred = p | a) - P(pred = p | b)| <= delta``;
  or equal opportunity, the same among the rows whose label is ``p`` (true
  positive rates).  A list predicting one class for every row satisfies
  both, so fairness constraints alone are always feasible.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import numpy as np
from numba import njit

from rulekit._anytime import Anytime
from rulekit.corels import _capture_graph as cg
from rulekit.corels._rashomon import _Enumeration
from rulekit.corels._problem import packed_table
from rulekit.corels._search import search
from rulekit._tolerances import RATE_SLACK, TIE_PER_SAMPLE

__all__ = ["Constraints", "ConstrainedResult", "constrained_search", "FAIRNESS"]

FAIRNESS = ("statistical_parity", "equal_opportunity")


@dataclass(frozen=True)
class Constraints:
    """What a list must satisfy.

    Attributes
    ----------
    required : ndarray of bool, shape (n_requirements, n_antecedents)
        ``required[r, a]``: antecedent ``a`` satisfies requirement ``r``.
    group : ndarray of bool, shape (n_samples,) or None
        Membership of each training row in group ``a`` (else ``b``).
    fairness : {"statistical_parity", "equal_opportunity"} or None
    delta : float
        Largest allowed difference of the groups' rates.
    positive : int
        Class code of the positive prediction.
    """

    required: np.ndarray
    group: np.ndarray | None = None
    fairness: str | None = None
    delta: float = 0.0
    positive: int = 1

    def satisfied(self, A, codes, prefix) -> bool:
        """Does the list ``prefix`` (labels by majority) satisfy every constraint?"""
        n = len(codes)
        where = np.full(n, len(prefix), dtype=np.int64)
        free = np.ones(n, dtype=bool)
        for k, a in enumerate(prefix):
            hit = free & A[:, a]
            where[hit] = k
            free &= ~hit
        used = np.zeros(self.required.shape[0], dtype=bool)
        for k, a in enumerate(prefix):
            if (where == k).any():
                used |= self.required[:, a]
        if not used.all():
            return False
        if self.fairness is None:
            return True
        n_classes = int(codes.max()) + 1
        labels = np.array([np.bincount(codes[where == k], minlength=n_classes).argmax()
                           if (where == k).any() else 0 for k in range(len(prefix) + 1)])
        predicted = labels[where] == self.positive
        return self.gap(predicted, codes) <= self.delta + RATE_SLACK

    def gap(self, predicted, codes) -> float:
        """Difference of the groups' positive rates (all rows, or the true positives)."""
        rows = np.ones(len(codes), bool) if self.fairness == "statistical_parity" else \
            codes == self.positive
        rates = [predicted[rows & g].mean() if (rows & g).any() else 0.0
                 for g in (self.group, ~self.group)]
        return abs(rates[0] - rates[1])


@dataclass(frozen=True)
class ConstrainedResult:
    """The best list under the constraints, and what is proved about it.

    ``status``: ``"optimal"`` (no list satisfying the constraints scores
    lower), ``"infeasible"`` (no list satisfies them; ``prefix`` is empty),
    or the limit that stopped the search, with ``prefix`` the best feasible
    list found (empty if none) and ``lower_bound`` what is proved.
    """

    prefix: tuple
    objective: float
    lower_bound: float
    status: str


@njit(cache=True)
def _sums(x, luts, fb, per, n_fields, out):
    """Field sums of the groups in ``x`` from look-up tables (generic fields)."""
    mask = (np.int64(1) << fb) - 1
    for t in range(luts.shape[0]):
        acc = cg.table_sum(x, luts, t)
        for j in range(per):
            f = t * per + j
            if f < n_fields:
                out[f] = (acc >> (fb * j)) & mask


@njit(cache=True)
def _positives(x, luts, fb, per, glut, ccnt, gsum, positive, equal_opportunity):
    """Label of a rule capturing ``x``, and what it predicts positive in groups a and b.

    The counts are rows (statistical parity) or true positives (equal
    opportunity), 0 when the label is not the positive class.
    """
    nv, _ = cg.stats(x, luts, fb, per, ccnt)
    label = 0
    for k in range(ccnt.shape[0]):
        if ccnt[k] > ccnt[label]:
            label = k
    if label != positive:
        return label, 0, 0
    _sums(x, glut, fb, per, 2, gsum)  # rows of group a, positives of group a
    if equal_opportunity:
        return label, gsum[1], ccnt[positive] - gsum[1]
    return label, gsum[0], nv - gsum[0]


@njit(cache=True)
def _walk(data, limits, graph, edges, rules, budget, stacks, found):
    """Branch and bound over the explored graph for the best feasible list.

    The arguments are tuples, one per role (see :class:`_Walk`):
    ``data = (Ap, luts, fb, per)`` and ``limits = (lam, thr, tol, _)`` as
    for :func:`~rulekit.corels._capture_graph.explore`;
    ``graph = (keys, dflt, flag, hplus)``;
    ``edges = (e_start, e_len, e_child, e_ante, e_mist)``;
    ``rules = (glut, req_bits, full_mask, check_fair, equal_opportunity,
    delta, size_a, size_b, positive, n_classes)`` the constraints;
    ``stacks = (K_, path, cursor, nodes, gs, ca, cb, masks)`` and
    ``found = (best_path, best)``, kept between calls.

    Stacks (level ``K``): node, next edge, cost, positive predictions in each
    group and requirements met, of the prefix ``path[:K]``.  ``best[0]`` is
    the objective to beat (a known feasible list, or the threshold),
    ``best[1]`` the length of ``best_path``, ``best[2]`` 1 once a list was
    found.  Returns 0 when the walk is over, 1 when the budget is spent.
    """
    Ap, luts, fb, per = data
    lam, thr, tol, _ = limits
    keys, dflt, flag, hplus = graph
    e_start, e_len, e_child, e_ante, e_mist = edges
    (glut, req_bits, full_mask, check_fair, equal_opportunity, delta, size_a, size_b,
     positive, n_classes) = rules
    K_, path, cursor, nodes, gs, ca, cb, masks = stacks
    best_path, best = found
    W = Ap.shape[1]
    x = np.empty(W, dtype=np.uint64)
    ccnt = np.zeros(n_classes, dtype=np.int64)
    gsum = np.zeros(2, dtype=np.int64)
    K = K_[0]
    it = 0
    while it < budget:
        if K < 0:
            K_[0] = K
            return 0
        node = nodes[K]
        e = cursor[K]
        if e >= e_start[node] + e_len[node]:
            K -= 1
            continue
        cursor[K] = e + 1
        it += 1
        child = e_child[e]
        g2 = gs[K] + lam + e_mist[e]
        if g2 + min(dflt[child], hplus[child]) >= best[0] - tol:
            continue
        s = e_ante[e]
        for w in range(W):
            x[w] = keys[node, w] & Ap[s, w]
        _, pa, pb = _positives(x, luts, fb, per, glut, ccnt, gsum, positive, equal_opportunity)
        a2 = ca[K] + pa
        b2 = cb[K] + pb
        m2 = masks[K] | req_bits[s]
        path[K] = s
        score = g2 + dflt[child]
        if score < best[0] - tol and m2 == full_mask:
            da, db = 0, 0
            if check_fair:
                _, da, db = _positives(keys[child], luts, fb, per, glut, ccnt, gsum, positive,
                                       equal_opportunity)
            ra = (a2 + da) / size_a if size_a > 0 else 0.0
            rb = (b2 + db) / size_b if size_b > 0 else 0.0
            if not check_fair or abs(ra - rb) <= delta + RATE_SLACK:
                best[0] = score
                best[1] = K + 1
                best[2] = 1
                for d in range(K + 1):
                    best_path[d] = path[d]
        if flag[child] == cg.EXPANDED and g2 + hplus[child] < best[0] - tol:
            K += 1
            nodes[K] = child
            gs[K] = g2
            ca[K] = a2
            cb[K] = b2
            masks[K] = m2
            cursor[K] = e_start[child]
    K_[0] = K
    return 1


class _Walk:
    """Stacks and tables of one constrained walk over an explored graph."""

    def __init__(self, graph, constraints, codes, best_objective, best_prefix):
        self.graph = graph
        c = constraints
        m = graph.Ap.shape[0]
        n_req = c.required.shape[0]
        self.req_bits = np.zeros(m, dtype=np.int64)
        for r in range(n_req):
            self.req_bits[c.required[r]] |= np.int64(1) << r
        self.full_mask = (1 << n_req) - 1
        self.check_fair = c.fairness is not None
        self.eo = c.fairness == "equal_opportunity"
        self.delta, self.positive = float(c.delta), int(c.positive)
        table, groups = graph.table_counts, graph.groups
        in_a = groups[:, -1] if graph.split else np.zeros(len(table), dtype=bool)
        fields = np.column_stack([table.sum(axis=1) * in_a, table[:, self.positive] * in_a])
        self.glut = np.ascontiguousarray(packed_table(fields, graph.fb, graph.keys.shape[1])[None])
        if self.check_fair:
            rows = codes == self.positive if self.eo else np.ones(len(codes), dtype=bool)
            self.size_a = float((rows & c.group).sum())
            self.size_b = float((rows & ~c.group).sum())
        else:
            self.size_a = self.size_b = 0.0
        levels = graph.path.shape[0]
        self.K = np.zeros(1, dtype=np.int64)
        self.path = np.zeros(levels, dtype=np.int64)
        self.cursor = np.zeros(levels, dtype=np.int64)
        self.cursor[0] = graph.e_start[0]
        self.nodes = np.zeros(levels, dtype=np.int64)
        self.gs = np.zeros(levels)
        self.ca = np.zeros(levels, dtype=np.int64)
        self.cb = np.zeros(levels, dtype=np.int64)
        self.masks = np.zeros(levels, dtype=np.int64)
        self.best_path = np.zeros(levels, dtype=np.int64)
        self.best_path[:len(best_prefix)] = best_prefix
        self.best = np.array([best_objective, len(best_prefix), 0.0])

    def step(self, budget):
        g = self.graph
        rules = (self.glut, self.req_bits, self.full_mask, self.check_fair, self.eo,
                 self.delta, self.size_a, self.size_b, self.positive, g.ucnt.shape[0])
        stacks = (self.K, self.path, self.cursor, self.nodes, self.gs, self.ca, self.cb,
                  self.masks)
        code = _walk(g.data(), g.limits(), (g.keys, g.dflt, g.flag, g.hplus), g.edges(),
                     rules, budget, stacks, (self.best_path, self.best))
        return "done" if code == 0 else None

    @property
    def prefix(self):
        return tuple(int(a) for a in self.best_path[:int(self.best[1])])


def _feasible_start(A, codes, constraints, n):
    """A list known to satisfy the constraints, as (prefix, mistakes), or None.

    Fairness alone: the empty list (one class for every row).  Required
    conditions: a shortest list made of antecedents that satisfy them, each
    capturing at least one row, found by trying orders of one satisfying
    antecedent per requirement (the rarest first); None when that fails.
    """
    def mistakes(prefix):
        free = np.ones(n, dtype=bool)
        total = 0
        for a in prefix:
            hit = free & A[:, a]
            if not hit.any():
                return None
            total += int(hit.sum()) - int(np.bincount(codes[hit]).max())
            free &= ~hit
        return total + (int(free.sum()) - int(np.bincount(codes[free]).max()) if free.any()
                        else 0)

    req = constraints.required
    if req.shape[0] == 0:
        return (), mistakes(())
    support = A.sum(axis=0)
    choices = [np.flatnonzero(req[r] & (support > 0)) for r in range(req.shape[0])]
    if any(len(ch) == 0 for ch in choices):
        return None
    picks = list(dict.fromkeys(int(ch[np.argmin(support[ch])]) for ch in choices))
    for order in permutations(picks):
        m = mistakes(order)
        if m is not None and constraints.satisfied(A, codes, order):
            return order, m
    return None


def constrained_search(A, codes, c, constraints, *, time_limit=None, callback=None,
                       verbose=0) -> ConstrainedResult:
    """The best rule list under ``constraints`` (see the module docstring).

    ``A`` (bool, samples x antecedents), ``codes`` (class codes), ``c`` as
    for :func:`rulekit.corels.search`; objectives in the result are in
    objective units (``mistakes / N + c K``).
    """
    n, m = A.shape
    lam, tol = c * n, TIE_PER_SAMPLE * n
    with Anytime("corels", unit="nodes", time_limit=time_limit, callback=callback,
                 verbose=verbose) as run:
        opt = search(A, codes, c)
        r_star = opt.mistakes + lam * len(opt.prefix)
        if opt.status != "optimal":
            if constraints.satisfied(A, codes, opt.prefix):
                return ConstrainedResult(opt.prefix, opt.objective, opt.lower_bound, opt.status)
            return ConstrainedResult((), np.nan, opt.lower_bound, opt.status)
        if constraints.satisfied(A, codes, opt.prefix):
            return ConstrainedResult(opt.prefix, opt.objective, opt.objective, "optimal")
        start = _feasible_start(A, codes, constraints, n)
        if start is None and constraints.fairness is None:
            return ConstrainedResult((), np.nan, np.inf, "infeasible")
        prefix, upper = ((), np.inf) if start is None else (start[0], start[1] + lam * len(start[0]))
        # beyond the largest objective a list can have, nothing is left to find
        ceiling = min(upper, n + lam * m)
        eps = max(lam, 1.0)
        lower = r_star
        while True:
            thr = min(r_star + eps, ceiling)
            graph = _Enumeration(A, codes, int(codes.max()) + 1, lam, thr, tol,
                                 max(lam - (thr - r_star), 0.0), m if lam <= 0 else
                                 int(np.floor((thr + tol) / lam)), 1, walk=False,
                                 split=constraints.group)
            status = run.drive(lambda b: (graph.step(b), run.state(int(graph.counts[0]))))
            if status != "done":
                break
            walk = _Walk(graph, constraints, codes, min(upper, thr + 2 * tol), prefix)
            status = run.drive(lambda b: (walk.step(b), run.state(int(graph.counts[0]))))
            if status != "done":
                break
            if walk.best[2]:
                prefix, upper = walk.prefix, float(walk.best[0])
            lower = thr
            if upper <= thr + tol or thr >= ceiling:
                status = "optimal"
                break
            eps *= 2
    if status == "optimal" and not np.isfinite(upper):
        return ConstrainedResult((), np.nan, lower / n, "infeasible")
    objective = upper / n if np.isfinite(upper) else np.nan
    return ConstrainedResult(prefix, objective, min(lower, upper) / n, status)
