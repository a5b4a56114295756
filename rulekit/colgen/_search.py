"""Column generation for Boolean rule sets (DNF / CNF): the engine.

Dash, Günlük and Wei, "Boolean Decision Rules via Column Generation",
NeurIPS 2018.  The rule set with the least Hamming loss within a complexity
budget is the integer program of §2.1; its LP relaxation is solved by column
generation (§2.2): a restricted master LP over the clauses found so far, and
a pricing problem that looks for a clause of negative reduced cost -- here
the beam heuristic of §3, an exact branch-and-bound enumeration, then the
pricing IP (sampled on large data, §3).  §2.3 gives the lower bounds of the
certificate; the master IP restricted to the generated clauses selects the
rule set.  A CNF for class 1 is learned as the DNF of the complemented
conditions for class 0 (De Morgan).

Every limit that decides the result counts work (rounds, columns, solver
nodes, enumeration steps), so a run is a function of its inputs and seed.
``time_limit`` is the safety net, kept by the shared anytime driver
(:class:`rulekit._anytime.Anytime`), which also turns Ctrl-C into a prompt
stop with status ``"interrupted"`` and the best rule set found.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from dataclasses import dataclass

import numpy as np

from rulekit._anytime import Anytime, give_back_freed_memory, stop_status
from rulekit._checks import check_boolean_matrix, check_labels, check_sample_weight
from rulekit._params import (COMMON_PARAMETERS, Instance, Integer, NoValidation, Options, Real,
                             as_generator, declared, pick, validated)
from rulekit.evaluate import group_rows

from ._beam import FLOAT_BLOCK_ROWS, Float32Rows, beam_search
from ._enum import check_compatibility_memory, compatibility, enumerate_pricing
from ._grouped import GroupedMasterLP
from ._master import (ClauseMasks, ColumnMasks, LPTimeLimit, MasterLP, SolverFailure,
                      greedy_selection, improve_selection, prune_selection, rule_objective,
                      solve_rmip)
from ._metadata import ConditionMetadata
from ._packed import PackedRows, all_rows_of, float_rows
from ._pricing import PricingOutcome, PricingProblem, price_ip, reduced_cost
from ._result import ColGenResult, IterationRecord, empty_result
from ._settings import ColGenSettings
from ._solvers import SOLVER_ERRORS, fallback_solver
from rulekit._tolerances import FLOAT_SLACK, SOLVER_TOL

__all__ = ["search", "SEARCH_PARAMETERS"]

#: Declarations of :func:`search`'s parameters (shared with ``BooleanRuleCGClassifier``).
SEARCH_PARAMETERS = {
    "form": Options("dnf", "cnf"),
    "max_complexity": Integer(2, allow_none=True),
    "max_literals": Integer(1, allow_none=True),
    "lambda0": Real(0, None),
    "lambda1": Real(0, None),
    "metadata": Instance((ConditionMetadata,), "a ConditionMetadata (see condition_metadata)",
                         allow_none=True),
    # sequences of clauses (tuples of column indices): checked by _check_columns
    "columns": NoValidation(),
    "fallback": NoValidation(),
    "settings": Instance((ColGenSettings,), "a ColGenSettings", allow_none=True),
    **pick(COMMON_PARAMETERS, "time_limit", "random_state", "callback", "verbose"),
}

#: Distinct rows up to which the beam's float32 copy of the rows is made (above:
#: :class:`Float32Rows`, converted a block at a time; every benchmark set is far below).
FLOAT_COPY_ROWS = 131072
#: Distinct rows from which a clause's rows are read from packed conditions
#: (:meth:`Problem.mask`; the same rows, fewer bytes read).
PACKED_MASK_ROWS = 65536
#: Longest clause when neither a budget nor ``max_literals`` bounds it.
DEFAULT_MAX_LITERALS = 10
#: Share of the time left kept for the selection when the time limit stops
#: the rounds: for the restricted master IP (at most RESERVE_SECONDS), or
#: for the local search alone (3 %, at most 3 s).
RESERVE_SHARE, RESERVE_SECONDS = 0.15, 30.0
#: Row operations a widened beam may spend (it scores children row by row).
BEAM_WORK = 500_000_000
#: When the certifying enumeration is cut short, the ratio-targeted searches
#: after it (:meth:`ColumnGeneration.certify`) may spend this many times the
#: enumeration's work limit, aiming at bounds this close to the master LP's
#: value (as fractions of it left unproved), weakest first.
TARGET_WORK, TARGET_SHARES = 4, (0.8, 0.4, 0.2, 0.1, 0.05)
#: Speed of the exact enumeration assumed before it is first measured.
ENUM_RATE_GUESS = 20_000_000
#: Columns (by LP weight) the local search of the selection may bring in,
#: and the rows x columns it may work on.
LOCAL_SEARCH_COLUMNS, LOCAL_SEARCH_WORK = 400, 4_000_000


@validated(SEARCH_PARAMETERS, "rulekit.colgen.search")
def search(B, y, *, form="dnf", max_complexity=30, max_literals=None, lambda0=0.0,
           lambda1=0.0, sample_weight=None, metadata=None, columns=(), fallback=(),
           settings=None, time_limit=120.0, random_state=0, callback=None,
           verbose=0) -> ColGenResult:
    """Learn a Boolean rule set (DNF or CNF) by column generation.

    Parameters
    ----------
    B : array_like of bool, shape (N, d)
        Condition matrix: ``B[i, j]`` is true when sample ``i`` satisfies
        condition ``j``.
    y : array_like of {0, 1}, shape (N,)
    form : {"dnf", "cnf"}
        ``"dnf"``: OR of ANDs.  ``"cnf"``: AND of ORs, learned as a DNF over
        the complemented conditions for ``1 - y`` (De Morgan).
    max_complexity : int >= 2 or None
        Budget ``C`` on ``#clauses + #literals``; None drops it (use
        penalties then).
    max_literals : int >= 1 or None
        Literals per clause; default ``C - 1`` (10 when ``C`` is None).
    lambda0, lambda1 : float >= 0
        Penalty per clause / per literal, in loss units (samples).
    sample_weight : array_like of float >= 0, shape (N,), optional
        Cost of misclassifying each sample (Hamming-loss weights).
    metadata : ConditionMetadata, optional
        Which columns test the same feature and which complement which
        (:func:`rulekit.colgen.condition_metadata`): prunes redundant
        clauses, and lets a CNF reuse ``B``.
    columns : sequence of tuple of int
        Clauses to start from besides the single conditions (a warm start,
        e.g. ``ColGenResult.columns`` of an earlier run on related data).
    fallback : sequence of tuple of int
        A rule set to fall back on (e.g. ``ColGenResult.clauses`` of a run on a
        sample): its clauses join the columns even when a limit cuts the
        seeding short, and a selection made before any master LP was solved
        tries them first.  On millions of rows the seeding alone is seconds
        (a pass over the rows per column), and a fit with little time left
        then returned the empty rule set.
    settings : ColGenSettings, optional
        Solvers, pricing strategy and work limits (defaults when None).
    time_limit : float or None
        Seconds for the whole run, a safety net: the rounds stop early
        enough to leave the restricted master IP a share of the time, and
        every solver call gets at most what is left.  A run inside another
        (an estimator's fit) keeps the earlier deadline.
    random_state : int, Generator, RandomState, SeedSequence or None
        Seed of the sampled pricing on large data.
    callback : callable, optional
        Called with a :class:`rulekit._anytime.SearchState` after every
        round (``work`` = rounds, ``best_objective`` = the greedy rule set
        of the round's LP solution, ``lower_bound`` where one is proved);
        returning True stops the run (status ``"interrupted"``).
    verbose : int
        ``>= 1``: a progress bar on stderr.

    Returns
    -------
    ColGenResult
    """
    p = declared(SEARCH_PARAMETERS, locals())
    B, y, w = check_data(B, y, sample_weight)
    stop = stop_status()
    if stop is not None:
        # the fit around this search is out of time (or interrupted) already: building the
        # problem alone would overrun it on large data; the constant rule set, no bound
        return constant_result(y, w, stop)
    check_compatibility_memory(B.shape[1])   # before anything is built
    if p["metadata"] is not None and p["metadata"].n_columns != B.shape[1]:
        raise ValueError(f"metadata describes {p['metadata'].n_columns} columns but B has "
                         f"{B.shape[1]}")
    columns = _check_columns(columns, B.shape[1])
    fallback = _check_columns(fallback, B.shape[1])
    C = p["max_complexity"]
    D = literal_limit(p["max_literals"], C)
    # the clock runs from here: building the problem on distinct rows is part of the run
    with Anytime("colgen", unit="rounds", time_limit=p["time_limit"], callback=p["callback"],
                 verbose=p["verbose"], report_seconds=0.0) as run:
        settings = p["settings"] or ColGenSettings()
        problem = Problem.build(B, y, w, p["form"], p["metadata"], p["lambda0"], p["lambda1"],
                                settings.record_duals)
        if not isinstance(problem, Problem):
            return problem                 # a single class or weightless positives
        cg = ColumnGeneration(problem, C, D, p["lambda0"], p["lambda1"], settings,
                              as_generator(p["random_state"]), run)
        cg.seed(columns, fallback)
        stop = cg.rounds()
        cg.certify(stop)
        result = cg.result(stop)
        run.finish(result.status)
    return result


def literal_limit(max_literals, C):
    """Literals allowed per clause: ``max_literals`` (default ``C - 1``), within ``C - 1``."""
    D = max_literals if max_literals is not None else (
        C - 1 if C is not None else DEFAULT_MAX_LITERALS)
    return D if C is None else min(D, C - 1)


# --------------------------------------------------------------------------
# input checks

def check_data(B, y, sample_weight):
    """``B`` (bool), ``y`` (int64 0/1) and the weights (all 1 when None), checked.

    The search never writes to ``y`` or the weights, so arrays of the right type
    are kept as given, not copied (two copies of 28 MB held through the search on
    3.7 million distinct rows)."""
    B = check_boolean_matrix(B, "B")
    labels = check_labels(y, B.shape[0], "y", binary=True, rows_of="B")
    y = y if isinstance(y, np.ndarray) and y.dtype == np.int64 else labels.astype(np.int64)
    w = check_sample_weight(sample_weight, B.shape[0], rows_of="B", positive=True, copy=False)
    return B, y, np.ones(B.shape[0]) if w is None else w


def _check_columns(columns, d: int) -> list:
    try:
        out = [tuple(sorted({int(j) for j in c})) for c in columns]
    except TypeError:
        raise TypeError("columns must be a sequence of clauses (tuples of column "
                        "indices)") from None
    if any(not c or c[0] < 0 or c[-1] >= d for c in out):
        raise ValueError(f"columns: every clause must hold column indices in [0, {d})")
    return out


# --------------------------------------------------------------------------
# the problem on distinct rows

@dataclass
class Problem:
    """The data as the master sees it: distinct rows of the (complemented) conditions.

    ``X[u]`` is a distinct row (from :data:`PACKED_MASK_ROWS` distinct rows on,
    ``X`` is a :class:`PackedRows`, a bit per row: every reader takes the part
    it needs through :mod:`._packed`), ``wp[u]`` / ``wq[u]`` the weight of its
    positives / negatives for the DNF being learned (for a CNF: the
    complemented conditions and the other class), ``group[i]`` the row of
    sample ``i`` and ``wpos[i]`` the sample's positive weight (both None unless
    the trace records per-sample duals).
    """

    X: np.ndarray
    Xf: np.ndarray
    wp: np.ndarray
    wq: np.ndarray
    group: np.ndarray | None
    wpos: np.ndarray | None
    metadata: ConditionMetadata | None
    integral: bool
    form: str

    def mask(self, clause) -> np.ndarray:
        """The distinct rows ``clause`` covers: ``all_of(X, clause)``.

        On many distinct rows ``X`` is kept packed (:class:`PackedRows`), a
        condition's bits side by side, and the clause's rows are read from
        those: a column of a boolean ``X`` is a strided read, 17 ms per clause
        on 656,708 rows, and a fit forms thousands.
        """
        return all_rows_of(self.X, clause)

    @property
    def n_rows(self) -> int:
        """Distinct rows."""
        return int(self.X.shape[0])

    def conditions_held(self, rows) -> np.ndarray:
        """Conditions that hold on at least one of the rows ``rows`` (a boolean mask)."""
        if isinstance(self.X, PackedRows):
            return np.flatnonzero((self.X.bits & np.packbits(rows)).any(axis=1))
        return np.flatnonzero(self.X[rows].any(axis=0))

    @property
    def conflict_floor(self) -> float:
        """A lower bound on every rule set's loss, from the data alone.

        A rule set answers alike on every row of one distinct pattern, so on
        pattern ``u`` it pays ``wq[u]`` (or more) when a clause covers it and
        ``wp[u]`` when none does: at least ``min(wp[u], wq[u])``.  Valid
        whatever the search proved, it is the bound left when pricing could
        not be solved exactly.
        """
        return float(np.minimum(self.wp, self.wq).sum())

    @property
    def pruning(self):
        """``(groups, ops, thresholds)`` for the beam, or None."""
        return None if self.metadata is None else self.metadata.pruning()

    @classmethod
    def build(cls, B, y, w, form, metadata, lambda0, lambda1, per_sample=True):
        """The problem, or a finished :class:`ColGenResult` when it is trivial.

        ``per_sample``: keep each sample's row and positive weight (``group``,
        ``wpos``), which only the per-sample duals of the trace read
        (``record_duals``); None otherwise, 54 MB fewer on 3.4 million rows.
        """
        N = B.shape[0]
        if N == 0 or np.all(y == y[0]):
            cls_ = int(y[0]) if N else 0
            return ColGenResult(clauses=(), form=form, objective=0.0, lower_bound=0.0,
                                status="optimal", trace=(), complexity=0, constant=cls_,
                                lp_value=0.0)
        meta, negation_of = metadata, None
        if form == "cnf":
            y = 1 - y
            negation_of = None if meta is None else meta.negation_of
            meta = None if meta is None else meta.complemented()
        # merge_rows' sums, but the distinct rows are gathered straight into their packed
        # form on many rows: their boolean copy would be the largest array of the fit.  A
        # CNF's rows are the complements, which group as the rows themselves do, so only
        # the distinct rows are complemented, never a copy of every row
        first, group = group_rows(B)
        wp, wq = (np.bincount(group, weights=v, minlength=len(first)) for v in (w * y, w * (1 - y)))
        if len(first) < PACKED_MASK_ROWS:
            X = B[first] if form == "dnf" else _complement(B[first], negation_of)
        else:
            X = PackedRows.of_rows(B, first)
            if form == "cnf":
                for start in range(0, len(first), FLOAT_BLOCK_ROWS):  # the map checked
                    _complement(B[first[start:start + FLOAT_BLOCK_ROWS]], negation_of)
                X = X.complement()
        if not np.any(wp > 0):
            # no positive carries weight: the empty DNF (predict 0) costs nothing
            return ColGenResult(clauses=(), form=form, objective=0.0, lower_bound=0.0,
                                status="optimal", trace=(), complexity=0, lp_value=0.0,
                                lp_proven=True)
        integral = _is_integral(w) and _is_integral([lambda0, lambda1])
        # the beam's copy in float32: half the memory, and it only ranks; on many
        # distinct rows not even that, but converted a block at a time (Float32Rows)
        Xf = (float_rows(X, 0, X.shape[0], np.float32) if X.shape[0] <= FLOAT_COPY_ROWS
              else Float32Rows(X))
        if not per_sample:
            return cls(X, Xf, wp, wq, None, None, meta, integral, form)
        return cls(X, Xf, wp, wq, group, w * y, meta, integral, form)


def _is_integral(values, tol=FLOAT_SLACK) -> bool:
    values = np.asarray(values, dtype=float)
    return bool(np.all(np.abs(values - np.round(values)) <= tol))


def _complement(B, negation_of):
    """The complemented condition matrix, reusing B's columns through the negation map."""
    out = ~B
    if negation_of is not None:
        have = np.flatnonzero(negation_of >= 0)
        out[:, have] = B[:, negation_of[have]]
        if not np.array_equal(out, ~B):
            raise ValueError("metadata.negation_of does not map each column to its complement")
    return out


# --------------------------------------------------------------------------
# the column-generation state

class ColumnGeneration:
    """The master LP, the clauses generated so far and the bounds of one problem.

    One object serves a whole run, and a path of runs over growing budgets
    (:meth:`set_budget`): the clauses found for one budget stay in the
    master for the next.  :meth:`rounds` runs the rounds under the open
    :class:`~rulekit._anytime.Anytime` run ``run``; :meth:`result` selects
    the rule set.
    """

    def __init__(self, problem: Problem, C, D, lambda0, lambda1, settings: ColGenSettings,
                 rng, run: Anytime):
        self.p, self.s, self.rng, self.run = problem, settings, rng, run
        # what solvers poll for Ctrl-C and the deadline; it must not refer to
        # self: HiGHS keeps its callback in C++, out of the garbage collector's
        # sight, so a cycle through it would never be freed
        self.should_stop = lambda: run.limit_reached() is not None
        self.lambda0, self.lambda1 = float(lambda0), float(lambda1)
        idle = (settings.idle_rounds if settings.idle_rounds > 0
                and problem.n_rows > settings.idle_min_rows else None)
        if (settings.lp_solver == "highs"
                and np.count_nonzero(problem.wp > 0) > settings.group_min_rows):
            # many distinct positive rows: the LP over groups of rows alike (exact)
            self.master = GroupedMasterLP(problem.wp, problem.wq, C, lambda0, lambda1,
                                          should_stop=self.should_stop, eps=settings.eps)
        else:
            self.master = MasterLP(problem.wp, problem.wq, C, lambda0, lambda1,
                                   solver=settings.lp_solver, should_stop=self.should_stop,
                                   idle_rounds=idle)
        # each clause's rows; on many distinct rows (packed) made again when read
        self.masks = (ClauseMasks(problem.X) if isinstance(problem.X, PackedRows) else [])
        self.clauses, self.index = [], {}
        # the best rule set of a round's LP support (incumbent): (objective, clause indices)
        self.best_support = None
        self.trace = []
        self.compat = None
        self.z, self.w_lp = None, np.zeros(0)
        self.last_duals = None        # (z, mu, lam) of the last round's master LP
        self.C, self.D = C, D
        self.enum_rate = ENUM_RATE_GUESS   # row operations per second, measured
        self.clock_capped = False
        self.fallback = []              # the columns of seed()'s fallback rule set
        self._seed_reserve = 0.0        # seconds the seeding leaves for the fallback
        self._new_budget()

    # -- clock ----------------------------------------------------------------------
    def _new_budget(self):
        self.lb_best, self.lp_proven, self.sampled = None, False, False
        self.budget_rounds = 0
        left = self.run.time_left()
        reserve = 0.0
        if left is not None:
            share, most = (RESERVE_SHARE, RESERVE_SECONDS) if self.s.restricted_mip else (0.03, 3.0)
            reserve = min(share * left, most)
        self.rounds_deadline = None if left is None else self.run.deadline - reserve

    def _rounds_time_left(self):
        if self.rounds_deadline is None:
            return None
        left = self.run.time_left()
        return max(0.0, left - (self.run.deadline - self.rounds_deadline))

    # -- columns ---------------------------------------------------------------------
    def add(self, clause) -> bool:
        """Add a clause to the master (False when it is there already or too long)."""
        if clause in self.index or not clause or len(clause) > self.D:
            return False
        if self.C is not None and 1 + len(clause) > self.C:
            return False
        m = self.p.mask(clause)
        self.master.add_column(m, len(clause))
        self.index[clause] = len(self.clauses)
        self.clauses.append(clause)
        self.masks.append(clause if isinstance(self.masks, ClauseMasks) else m)
        return True

    def seed(self, columns=(), fallback=()):
        """Single conditions that hold on some positive row, ``columns``, one beam round;
        then the clauses of ``fallback`` not among them, which join even when the clock
        stopped the rest (see :func:`search`)."""
        self._seed(columns, len(fallback))
        if self.run.limit_reached() == "interrupted":
            return                      # Ctrl-C or a callback: no further pass over the rows
        for c in fallback:
            self.add(c)                 # nothing when it is a column already
            k = self.index.get(c)       # None: too long for the budget
            if k is not None and k not in self.fallback:
                self.fallback.append(k)

    def _seed_stopped(self) -> bool:
        # each column is a pass over the rows: the seeding stops where the rounds would,
        # and early enough to add the fallback's clauses and select among them
        left = self._rounds_time_left()
        return self.should_stop() or (left is not None and left <= self._seed_reserve)

    def _seed(self, columns, n_fallback=0):
        added, spent = 0, 0.0
        for c in itertools.chain(((int(j),) for j in self.p.conditions_held(self.p.wp > 0)),
                                 columns):
            if self._seed_stopped():
                return
            start = time.perf_counter()
            self.add(c)
            added, spent = added + 1, spent + time.perf_counter() - start
            # a fallback clause costs a column's pass to add and about one more to select
            self._seed_reserve = 2.0 * n_fallback * spent / added
        s = self.s
        if s.initial_beam and self.D > 1 and s.pricing != "ip" and not self._seed_stopped():
            # one heuristic round at mu = wp, lam = 0: clauses that cover many
            # positives and few negatives
            for c in beam_search(self.pricing_problem(self.p.wq - self.p.wp, 0.0), s,
                                 should_stop=self._seed_stopped).clauses:
                if len(c) > 1:
                    self.add(c)

    def set_budget(self, C, D):
        """Move to budget ``C`` (literals per clause ``D``), keeping every clause."""
        self.C, self.D = C, D
        self.master.set_budget(C)
        self.best_support = None
        self.last_duals = None        # another budget: another dual objective
        self._new_budget()

    # -- rounds ---------------------------------------------------------------------------
    def rounds(self, max_rounds=None) -> str:
        """Run rounds until no clause improves, a limit, or ``max_rounds`` at this budget.

        Returns the reason: ``"converged"``, ``"max_rounds"``, ``"stalled"``, ``"failed"``
        or the run's stop status (``"time_limit"``, ``"interrupted"``).
        """
        limit = self.s.max_rounds if max_rounds is None else max_rounds
        if limit <= 0:
            return "max_rounds"

        def step(_work):
            stop = self.run.limit_reached()
            # before any master LP, the time the seeding left for the fallback stays its
            if stop is None and self.rounds_deadline is not None and self._rounds_time_left() <= (
                    self._seed_reserve if self.z is None else 0.0):
                stop = "time_limit"
            if stop is not None:
                return stop, self.state()
            rec = self.round()
            self.budget_rounds += 1
            if rec.n_added == 0:
                return "converged", self.state()
            if self.budget_rounds >= limit:
                return "max_rounds", self.state()
            if self._stalled():
                return "stalled", self.state()
            return None, self.state()

        try:
            return self.run.drive(step)
        except (SolverFailure, *SOLVER_ERRORS) as exc:
            # a solver stopped by Ctrl-C or the deadline (CBC too gets the
            # terminal's SIGINT) is no failure
            stop = self.run.limit_reached()
            if stop is not None or isinstance(exc, LPTimeLimit):
                return stop or "time_limit"
            # a solver crashed mid-run: keep what we have
            what = exc if isinstance(exc, SolverFailure) else repr(exc)
            warnings.warn(f"column generation stopped after a solver error: {what}",
                          RuntimeWarning, stacklevel=3)
            return "failed"

    def _stalled(self):
        """Whether the master LP value fell by at most ``stall_tol`` (relative) over
        the last ``stall_rounds`` rounds of this budget."""
        k, tol = self.s.stall_rounds, self.s.stall_tol
        if k <= 0 or self.budget_rounds <= k:
            return False
        old, new = self.trace[-k - 1].rmlp, self.trace[-1].rmlp
        return old - new <= tol * max(abs(new), 1.0)

    def state(self):
        """The run's :class:`~rulekit._anytime.SearchState` after the last round."""
        return self.run.state(len(self.trace), best_objective=self.incumbent(),
                              lower_bound=self.lower_bound(),
                              info={"columns": len(self.clauses), "C": self.C})

    def round(self) -> IterationRecord:
        """One master LP and one pricing; the clauses found join the master."""
        z, mu, lam, w = self.master.solve(self._rounds_time_left())
        self.z, self.w_lp = z, w
        self.last_duals = (z, mu, lam)
        r = self.p.wq - mu
        kind, cands, bound = "none", [], None
        self.ratio = None             # set by an enumeration this round
        if z <= FLOAT_SLACK:
            # every objective coefficient is >= 0, so 0 bounds the master LP:
            # it is solved without pricing
            self.lp_proven = True
        else:
            kind, cands, bound = self.price(r, lam)
        scored = self._admit(cands, r, lam)
        for _, c in scored:
            self.add(c)
        lb = None
        if bound is not None:
            lb = _early_bound(z, bound, self.C, self.lambda0, self.lambda1, self.p.integral)
        if self.ratio is not None and self.C is not None:
            by_ratio = _ratio_bound(z, self.ratio, self.C, self.p.integral)
            lb = by_ratio if lb is None else max(lb, by_ratio)
        if lb is not None:
            self.lb_best = lb if self.lb_best is None else max(self.lb_best, lb)
        duals = self._duals(mu) if self.s.record_duals else None
        if isinstance(self.p.X, PackedRows):
            # a round on many distinct rows frees masks and sums of megabytes each
            give_back_freed_memory()
        rec = IterationRecord(
            iteration=len(self.trace) + 1, rmlp=z, dual_value=self.master.dual_value(mu, lam),
            bound=lb, n_added=len(scored), pricing=kind,
            best_rc=scored[0][0] if scored else None, time=self.run.elapsed,
            n_columns=len(self.clauses), lam=lam, duals=duals)
        self.trace.append(rec)
        return rec

    def _admit(self, cands, r, lam):
        """The new candidates of negative exact reduced cost, best first."""
        scored = []
        for c in dict.fromkeys(cands):
            if c in self.index or not c or len(c) > self.D:
                continue
            if self.C is not None and 1 + len(c) > self.C:
                continue
            rc = reduced_cost(self.p.X, r, c, lam, self.lambda0, self.lambda1,
                              mask=self.p.mask(c))
            if rc < -self.s.eps:
                scored.append((rc, c))
        scored.sort()
        return scored[:self.s.columns_per_round]

    # -- pricing -------------------------------------------------------------------------------
    def pricing_problem(self, r, lam) -> PricingProblem:
        """The pricing problem of residuals ``r`` and budget dual ``lam`` at this budget."""
        return PricingProblem(self.p.X, r, lam, self.lambda0, self.lambda1, self.D, Xf=self.p.Xf,
                              meta=self.p.pruning, compat=self.compatibility(),
                              exclude=self.index)

    def compatibility(self):
        """The compatibility matrix of the columns (made once; see :mod:`._enum`).

        The beam reads its allowed extensions from it, and the enumeration
        prunes with it.
        """
        if self.compat is None:
            self.compat = (compatibility(self.p.X.shape[1], None) if self.p.metadata is None
                           else self.p.metadata.compatibility())
        return self.compat

    def price(self, r, lam):
        """Clauses of negative reduced cost, and a valid bound on the least one (or None)."""
        s = self.s
        if s.pricing == "ip":
            kind, out = self._price_ip(r, lam, None)
            if self._admit(out.clauses, r, lam):
                return kind, out.clauses, out.bound
            if out.proven:        # no clause prices out: the master LP is solved
                self.lp_proven = True
                return kind, out.clauses, out.bound
        found = self._price_beam(r, lam)
        if self._admit(found.clauses, r, lam) or s.pricing in ("beam", "ip"):
            return "beam", found.clauses, None
        cut_short = None
        if s.enum_work_limit > 0 and not self.should_stop():
            out = self._enumerate(r, lam)
            if out.clauses or out.proven:
                if out.proven and not out.clauses:
                    self.lp_proven = True
                return "enum", out.clauses, out.bound
            # the work limit cut it short with nothing found: its bound still holds
            cut_short = out.bound
        if s.pricing == "auto":
            kind, out = self._price_ip(r, lam, found.clauses[0] if found.clauses else None)
            if out.proven and not self._admit(out.clauses, r, lam):
                self.lp_proven = True
            bounds = [b for b in (out.bound, cut_short) if b is not None]
            return kind, out.clauses, max(bounds) if bounds else None
        return ("enum" if cut_short is not None else "none"), [], cut_short

    def _price_beam(self, r, lam):
        """The beam, widened (``beam_widening``) before the dearer exact methods are tried."""
        s = self.s
        found = PricingOutcome()
        # a scored child costs one pass over the rows: widening stops adding
        # candidates at BEAM_WORK row operations (large data)
        most = max(s.beam_max_candidates, BEAM_WORK // max(self.p.X.shape[0], 1))
        problem = self.pricing_problem(r, lam)
        memo = {}                 # each clause's sums, read once for every width
        for mult in s.beam_widening:
            found = beam_search(problem, s, width=s.beam_width * mult,
                                max_candidates=min(s.beam_max_candidates * mult, most),
                                should_stop=self.should_stop, memo=memo)
            if self._admit(found.clauses, r, lam) or self.should_stop():
                break
        return found

    def _enumerate(self, r, lam, shapes_model=True, work=None, ratio_target=np.inf):
        """The exact enumeration, its work capped when the deadline is near.

        The compiled search cannot look at the clock, so its work limit is
        cut to what the measured speed allows in half the time left; when
        that binds and the enumeration's clauses could join the master
        (``shapes_model``), the run's result is marked ``time_limit`` (the
        clock shaped it).  The certifying enumeration (:meth:`certify`)
        adds no clause: the clock can only weaken its bound, which holds
        all the same.
        """
        s = self.s
        work = s.enum_work_limit if work is None else work
        left = self._rounds_time_left()
        if left is not None and self.enum_rate * left / 2 < work:
            work = max(int(self.enum_rate * left / 2), 1)
            self.clock_capped |= shapes_model
        t0 = time.perf_counter()
        # a search whose clauses cannot join the master may use the bound that
        # finishes sooner (its clauses differ only when cut short)
        out = enumerate_pricing(self.pricing_problem(r, lam), s, work_limit=work,
                                ratio_target=ratio_target, lookahead=not shapes_model)
        self.ratio = out.ratio
        spent = time.perf_counter() - t0
        if out.work >= 1_000_000:   # small calls measure the call, not the search
            self.enum_rate = out.work / spent
        return out

    def _price_ip(self, r, lam, warm):
        """One pricing IP (the fallback back-end when the first one raises)."""
        s = self.s
        kw = dict(time_limit=self._rounds_time_left(), should_stop=self.should_stop,
                  rng=self.rng, warm_clause=warm)
        problem = self.pricing_problem(r, lam)
        try:
            out = price_ip(problem, s, solver=s.pricing_solver, **kw)
        except (SolverFailure, *SOLVER_ERRORS) as exc:
            other = fallback_solver(s.pricing_solver)
            if other is None or self.should_stop():
                raise
            warnings.warn(f"pricing IP with {s.pricing_solver!r} failed ({exc!r}); retrying "
                          f"with {other!r}", RuntimeWarning, stacklevel=4)
            out = price_ip(problem, s, solver=other, **kw)
        self.sampled |= out.sampled
        return ("ip-sampled" if out.sampled else "ip"), out

    # -- bounds and the rule set ----------------------------------------------------------------
    def certify(self, stop):
        """Bound the master LP with one exact pricing when the rounds ended without one.

        Rounds whose beam keeps finding improving clauses never reach the
        exact enumeration, so a run ended by its own rule (the master LP
        value stalled, or the round limit) had proved nothing and reported
        a lower bound of 0 however close the master LP came.  The master
        LP over the clauses found is solved once more and the enumeration
        prices its duals: the Lagrangian bounds of §2.3 (:func:`_early_bound`,
        :func:`_ratio_bound`) hold for any duals, so whatever the
        enumeration finds -- finished or cut short by its work limit -- the
        bound is valid; and when it finishes with no improving clause, the
        master LP is solved.  Nothing joins the master and the LP weights
        that order the selection are kept: the rule set is the one the
        rounds led to, only what is proved about it grows.

        On the grouped master (many distinct rows) the master is not solved
        again: the last round's duals at this budget are priced as they
        are, which bounds the master LP all the same, and only an
        enumeration that finds no clause at all there proves it solved.

        Rounds that ended because the last enumeration, cut short by its
        work limit, found nothing ("converged" unproved) get the ratio-
        targeted searches of :meth:`_targeted_bound` at the same duals.
        """
        s = self.s
        if (self.lp_proven or not self.trace or s.pricing not in ("enum", "auto")
                or s.enum_work_limit <= 0 or self.should_stop()):
            return
        unpriced = stop in ("stalled", "max_rounds") and self.trace[-1].bound is None
        cut_short = (stop == "converged" and self.trace[-1].pricing == "enum"
                     and self.C is not None)
        if not (unpriced or cut_short):
            return
        # on many distinct rows (the grouped master) the duals of the last round's master
        # are priced as they are: any duals bound the master LP (the bounds of §2.3), and
        # solving it once more with the last round's clauses took 13 of 155 s at ten
        # million rows. Those clauses price out at these duals, so only an enumeration
        # that finds no clause at all proves the master LP solved.
        stale = isinstance(self.master, GroupedMasterLP) and self.last_duals is not None
        if stale:
            z, mu, lam = self.last_duals
        else:
            try:
                z, mu, lam, _ = self.master.solve(self._rounds_time_left())
            except (SolverFailure, *SOLVER_ERRORS):
                return                    # no bound is claimed; the rule set stands
        if z <= FLOAT_SLACK:
            self.z, self.lp_proven = z, True
            return
        r = self.p.wq - mu
        if cut_short:
            lb = self._targeted_bound(z, r, lam)
            self.lb_best = lb if self.lb_best is None else max(self.lb_best, lb)
            self._record_certifying(z, mu, lam, lb, None)
            return
        out = self._enumerate(r, lam, shapes_model=False)
        lb = _early_bound(z, out.bound, self.C, self.lambda0, self.lambda1, self.p.integral)
        if self.C is not None:
            lb = max(lb, _ratio_bound(z, out.ratio, self.C, self.p.integral))
            if not out.proven:
                lb = max(lb, self._targeted_bound(z, r, lam))
        if out.proven and not (out.clauses if stale else self._admit(out.clauses, r, lam)):
            # no clause prices out at these duals: z is the master LP's value
            self.z, self.lp_proven = z, True
        self.lb_best = lb if self.lb_best is None else max(self.lb_best, lb)
        self._record_certifying(z, mu, lam, lb, out.values[0] if out.values else None)

    def _record_certifying(self, z, mu, lam, lb, best_rc):
        """The certifying step's line of the trace (it adds no clause)."""
        self.trace.append(IterationRecord(
            iteration=len(self.trace) + 1, rmlp=z, dual_value=self.master.dual_value(mu, lam),
            bound=lb, n_added=0, pricing="enum", best_rc=best_rc,
            time=self.run.elapsed, n_columns=len(self.clauses), lam=lam,
            duals=self._duals(mu) if self.s.record_duals else None))

    def _targeted_bound(self, z, r, lam):
        """The budget's Lagrangian bound from enumerations that seek only the ratio.

        An enumeration cut short bounds the clauses it did not reach by the
        rows they could cover at best, which on a few hundred rows leaves the
        bound at 0 however close the master LP came.  The bound
        ``z + C * ratio`` needs no clause's reduced cost, only a lower bound
        on ``rc / (1 + |k|)``: aiming at ``ratio >= -f z / C`` (a bound of
        ``(1 - f) z``), the search cuts every subtree whose optimistic ratio
        reaches the target, which cuts far more than the reduced cost's
        threshold.  Targets go from the weakest to the strongest while
        each improves the bound and the work budget
        (``TARGET_WORK * enum_work_limit``) lasts; every result is a valid
        bound, finished or not.
        """
        best = 0.0
        budget = TARGET_WORK * self.s.enum_work_limit
        for share in TARGET_SHARES:
            if budget <= 0 or z <= 0 or self.should_stop():
                break
            out = self._enumerate(r, lam, shapes_model=False, work=budget,
                                  ratio_target=-share * z / self.C)
            budget -= out.work
            bound = _ratio_bound(z, out.ratio, self.C, self.p.integral)
            if bound <= best:
                break
            best = bound
        return best

    def _duals(self, mu):
        """Per-sample cover duals: each row's dual shared by its positive samples."""
        share = np.divide(self.p.wpos, self.p.wp[self.p.group],
                          out=np.zeros_like(self.p.wpos), where=self.p.wp[self.p.group] > 0)
        return mu[self.p.group] * share

    def lower_bound(self):
        """Best proven lower bound on the objective at this budget.

        Only exact steps add to it: a bound of the exact enumeration (cut
        short or not), a pricing IP on every row, or a proof that the master
        LP is solved; and the patterns' conflicts (:attr:`Problem.conflict_floor`),
        which hold whatever was searched.  A sampled pricing IP proves nothing,
        but it does not take away what the other steps proved; only when
        nothing was proved after sampling and no pattern holds both classes is
        the bound None (no claim) rather than 0.
        """
        floor = self.p.conflict_floor
        if self.p.integral:
            floor = math.ceil(floor - SOLVER_TOL)
        if self.sampled and self.lb_best is None and not self.lp_proven and floor <= 0:
            return None
        best = max(0.0, floor) if self.lb_best is None else max(0.0, floor, self.lb_best)
        if self.lp_proven and self.z is not None:
            best = max(best, math.ceil(self.z - SOLVER_TOL) if self.p.integral else self.z)
        return float(best)

    def incumbent(self):
        """Objective of the greedy rule set over the LP's support (None before a round)."""
        if self.z is None:
            return None
        support = [k for k in np.argsort(-self.w_lp, kind="stable") if self.w_lp[k] > FLOAT_SLACK]
        if not support:
            return rule_objective(np.zeros((self.p.X.shape[0], 0), bool), [], self.p.wp,
                                  self.p.wq, self.lambda0, self.lambda1)
        # on packed rows the support's masks are made as the greedy reads them, one at a
        # time: made all at once they were a few hundred MB at ten million rows
        masks = (self.masks.subset(support) if isinstance(self.masks, ClauseMasks)
                 else [self.masks[k] for k in support])
        A = ColumnMasks(masks, self.p.X.shape[0])
        chosen, value = greedy_selection(A, [len(self.clauses[k]) for k in support], self.p.wp,
                                         self.p.wq, self.C, self.lambda0, self.lambda1,
                                         range(len(support)), should_stop=self.should_stop)
        if self.best_support is None or value < self.best_support[0]:
            # kept for a selection the clock cuts short (select)
            self.best_support = (value, [int(support[j]) for j in chosen])
        return value

    def select(self, stop):
        """The rule set: greedy by LP weight, local search, the restricted master IP, pruning.

        Returns ``(clauses, objective, lower_bound, stop)``, ``stop`` updated
        when a limit cut the IP short.
        """
        X, s = self.p.X, self.s
        n_lits = [len(c) for c in self.clauses]
        # the masks read as one matrix, never stacked whole (ColumnMasks)
        A = ColumnMasks(self.masks, X.shape[0])
        w = np.concatenate([self.w_lp, np.zeros(max(0, A.shape[1] - self.w_lp.size))])
        args = (n_lits, self.p.wp, self.p.wq, self.C, self.lambda0, self.lambda1)
        order = np.argsort(-w, kind="stable")
        if self.z is None and self.fallback:
            # no master LP solved (the clock stopped the seeding or the first solve):
            # no weights to order by, so the fallback rule set's clauses come first
            first = np.asarray(self.fallback, dtype=order.dtype)
            order = np.concatenate([first, order[~np.isin(order, first)]])
        # every step below asks the clock between columns or moves: past the deadline
        # each returns the valid selection it has, and the run's status says time_limit
        chosen, ub = greedy_selection(A, *args, order, should_stop=self.should_stop)
        # the local search looks at the columns the LP weighs most: all of them
        # on small data, fewer as the rows grow (its work is rows x columns)
        k = int(np.clip(LOCAL_SEARCH_WORK // max(X.shape[0], 1), 30, LOCAL_SEARCH_COLUMNS))
        if not self.should_stop():    # its set-up alone is a pass over k columns
            chosen, ub = improve_selection(chosen, A, *args, candidates=order[:k],
                                           should_stop=self.should_stop)
        if self.should_stop():
            # cut short: a round's incumbent may be the better rule set
            if self.best_support is not None and self.best_support[0] < ub - FLOAT_SLACK:
                ub, chosen = self.best_support
        lower = self.lower_bound()
        # no IP can beat a greedy selection that already meets the lower bound
        settled = lower is not None and ub <= lower + SOLVER_TOL * max(1.0, abs(ub))
        if (A.shape[1] and s.restricted_mip and not settled and stop != "interrupted"
                and not self.should_stop()):
            chosen, ub = self._restricted_ip(A, args, chosen, ub)
            stop = self.run.limit_reached() or stop
        chosen, ub = prune_selection(chosen, A, n_lits, self.p.wp, self.p.wq, self.lambda0,
                                     self.lambda1, should_stop=self.should_stop)
        if stop != "interrupted":     # a callback's stop is not the clock's to overrule
            stop = self.run.limit_reached() or stop
        if lower is not None:
            lower = min(lower, ub)
        return [self.clauses[k] for k in chosen], ub, lower, stop

    def _restricted_ip(self, A, args, chosen, ub):
        for name in (self.s.mip_solver, fallback_solver(self.s.mip_solver)):
            if name is None:
                continue
            try:
                sel, _ = solve_rmip(A, *args, name, node_limit=self.s.mip_node_limit,
                                    time_limit=self.run.time_left(), warm=chosen,
                                    should_stop=self.should_stop)
            except (SolverFailure, *SOLVER_ERRORS) as exc:
                if self.should_stop():      # stopped, not failed: keep the greedy set
                    break
                warnings.warn(f"restricted master IP with {name!r} failed: {exc!r}",
                              RuntimeWarning, stacklevel=4)
                continue
            # no solution within the limits is no failure: the greedy selection
            # stands, and the other back-end is not tried
            if sel is not None:
                val = rule_objective(A[:, sel], [args[0][k] for k in sel], *args[1:3],
                                     self.lambda0, self.lambda1)
                if val < ub - FLOAT_SLACK:
                    chosen, ub = sel, val
            break
        return chosen, ub

    def result(self, stop) -> ColGenResult:
        """Select the rule set and state what is proved about it."""
        clauses, ub, lower, stop = self.select(stop)
        tol = SOLVER_TOL * max(1.0, abs(ub))
        if stop == "interrupted":
            status = "interrupted"
        elif lower is not None and ub <= lower + tol:
            status, lower = "optimal", ub
        elif stop == "time_limit" or self.clock_capped:
            status = "time_limit"
        elif lower is None:
            status = "heuristic"
        else:
            status = "feasible"
        clauses = sorted(clauses, key=lambda c: (len(c), c))
        return ColGenResult(
            clauses=tuple(clauses), form=self.p.form, objective=float(ub), lower_bound=lower,
            status=status, trace=tuple(self.trace),
            complexity=int(sum(1 + len(c) for c in clauses)), lp_value=self.z,
            n_columns=len(self.clauses), lp_proven=bool(self.lp_proven),
            columns=tuple(self.clauses))


def _early_bound(z, beta, C, lambda0, lambda1, integral):
    """The bound of the paper's §2.3 from a valid lower bound ``beta`` on the least reduced cost.

    At most ``C / 2`` clauses fit in the budget (each costs at least 2), so
    ``z + (C / 2) beta`` bounds the master LP; with penalties, at most
    ``z / (lambda0 + lambda1)`` clauses can pay for themselves.  Rounded up
    when the objective is integral.
    """
    beta = min(beta, 0.0)
    mults = []
    if C is not None:
        mults.append(C / 2.0)
    if lambda0 + lambda1 > 0:
        mults.append(z / (lambda0 + lambda1))
    if not mults:
        return 0.0 if beta < 0 else z
    val = z + min(mults) * beta
    if integral:
        val = math.ceil(val - SOLVER_TOL)
    return float(max(val, 0.0))


def _ratio_bound(z, ratio, C, integral):
    """The budget's Lagrangian bound from ``ratio <= min_k rc_k / (1 + |k|)``.

    With the round's duals, the master LP is at least ``sum(mu)`` plus the
    least ``sum_k (cost_k - mu(k)) w_k`` over ``w >= 0`` within the budget
    ``sum_k (1 + |k|) w_k <= C``: ``C`` times the least cost per unit of
    complexity, ``ratio - lam`` (or 0).  As ``z = sum(mu) - C lam`` and
    ``lam >= 0``, that is at least ``z + C min(ratio, 0)``.  Never weaker
    than :func:`_early_bound`'s ``z + (C / 2) beta``: every clause costs at
    least 2, so ``ratio >= beta / 2``; much stronger when the negative
    reduced costs belong to long clauses.  Rounded up when the objective is
    integral.
    """
    val = z + C * min(ratio, 0.0)
    if integral:
        val = math.ceil(val - SOLVER_TOL)
    return float(max(val, 0.0))


def constant_result(y, sample_weight, status="optimal") -> ColGenResult:
    """The empty rule set predicting the (weighted) majority class.

    An empty DNF predicts 0 and an empty CNF 1; the form is the one whose
    constant is the majority.  With a status other than ``"optimal"`` (an
    interrupted fit) it proves nothing.
    """
    y = np.asarray(y).astype(np.int64)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    form = "dnf" if w[y == 1].sum() <= w[y == 0].sum() else "cnf"
    res = empty_result(y, w, form)
    if status == "optimal":
        return res
    return ColGenResult(clauses=(), form=form, objective=res.objective, lower_bound=None,
                        status=status, trace=(), complexity=0)
