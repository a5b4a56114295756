"""CORELS's default: a certified regularization path, with ``c`` chosen by cross-validation.

Why.  With a fixed ``c`` the search's difficulty depends on the data: ``c * n``
is the number of mistakes a rule must fix to pay for itself, so on a few
hundred rows ``c = 0.01`` asks for lists many rules long that nobody can
certify (and that overfit), while the same ``c`` on a large, easy set is too
coarse.  The default therefore walks a path of penalties from large to small
and keeps those it can certify within a work budget; cross-validation then
picks among them the one that predicts best.

How.

1. The antecedent matrix is mined once, at the smallest penalty of the path
   (``min_support = c_min``), with up to two conditions per antecedent; the
   single-condition antecedents are a subset of its columns.
2. For each ``c`` of :data:`C_PATH` at or above ``MIN_FIXES / n`` (a rule must
   fix at least that many rows), largest first: the exact search over the
   one-condition antecedents, then over the two-condition ones, each within
   :data:`SEARCH_WORK` work units.  Each search is a *candidate*.  The
   two-condition searches stop at the first ``c`` they fail to certify; the
   path stops at the first ``c`` where even one condition fails.  The failed
   search stays a candidate: its best list and a valid bound.
3. Stratified cross-validation (:data:`FOLDS` folds, repeated
   :data:`SMALL_REPEATS` times on at most :data:`SMALL_ROWS` rows; above
   :data:`LARGE_ROWS` rows one stratified hold-out of :data:`HOLDOUT` of them) over the
   candidates, on the same antecedent matrix, largest ``c`` first (a point
   whose list repeats a larger penalty's is that model again and is skipped;
   uncertified points are validated last, and only on large data).  Each
   fold's search has the same budget.  The certified candidate with the best
   validation accuracy wins (ties: the larger ``c``, then fewer conditions),
   unless an uncertified one beats it by more than two standard errors of the
   paired per-row difference and makes at least a twentieth fewer validation
   mistakes.
4. The model is the winner's search on all training rows: certified optimal
   over the antecedents it searched at the chosen ``c`` (or, when the
   uncertified point won, its best list with status ``work_limit`` and the
   bound).

Every budget counts work (sets of samples counted), never seconds, so a data
set gives the same model on any machine at any load; the estimator's
``time_limit`` remains a safety net that stops the path early (and says so).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..evaluate import first_match
from .._tolerances import FLOAT_SLACK, MIN_MEMORY_MB, RATE_SLACK

#: penalties tried, largest first (objective units: 0.01 = one percent of the rows per rule)
C_PATH = (0.1, 0.05, 0.03, 0.02, 0.015, 0.01, 0.007, 0.005, 0.003, 0.002, 0.001)
#: a rule must fix at least this many training rows to pay for itself: smaller c are not tried
MIN_FIXES = 2
#: work units (see rulekit.corels.search, max_work) one search of the path may take
SEARCH_WORK = 400_000_000
#: work units for the whole selection (path and cross-validation)
TOTAL_WORK = 3_000_000_000
#: an uncertified point is chosen over the best certified one only when it validates better
#: by more than UNPROVED_MARGIN standard errors of the paired per-row difference (beyond
#: noise) and makes at least UNPROVED_GAIN fewer validation mistakes, relative to the
#: certified one's (a gain worth giving up a proof for).  Relative, not in points of
#: accuracy: one point is a large gain where a model errs on 5 % of rows and a small one
#: where it errs on 30 %, and an empty list that certifies is not a model
UNPROVED_MARGIN = 2.0
UNPROVED_GAIN = 0.05
#: c used by the constrained search (forbidden, required, fairness) when c="auto"
CONSTRAINED_C = 0.01
#: cross-validation folds of the selection; above LARGE_ROWS rows, one stratified hold-out
#: of HOLDOUT of the rows instead (its estimate is already tight, and a search costs more)
FOLDS = 5
LARGE_ROWS = 10_000
#: on at most SMALL_ROWS rows the folds are repeated SMALL_REPEATS times (differently
#: shuffled): there one 5-fold estimate is noisy, and the searches are cheap
SMALL_ROWS = 2_000
SMALL_REPEATS = 3
HOLDOUT = 0.25
#: two-condition antecedents are mined only while (pairs of conditions) x (rows) stays below this
PAIR_CELLS = 300_000_000
#: cells (rows x antecedents) of one block when supports are summed over weights
SUPPORT_BLOCK = 4_000_000


@dataclass
class Candidate:
    """One point of the path: penalty, conditions per antecedent, its full-data search."""

    c: float
    card: int
    columns: np.ndarray          # columns of the antecedent matrix it searched
    result: object               # CorelsResult on all training rows
    correct: np.ndarray | None = field(default=None, repr=False)  # per validation row
    #: what each validation row weighs (its count of training rows); None: one each
    correct_weight: np.ndarray | None = field(default=None, repr=False)
    unvalidated: str = ""        # why ``correct`` is None, in words (empty once validated)

    @property
    def certified(self) -> bool:
        return self.result.status == "optimal"

    @property
    def mean_accuracy(self) -> float:
        """Validation accuracy over every validation row (nan when not validated)."""
        if self.correct is None:
            return float("nan")
        if self.correct_weight is None:
            return float(self.correct.mean())
        # a whole-number sum over whole-number weights: exact, as the mean over the rows is
        return float(self.correct_weight[self.correct].sum() / self.correct_weight.sum())


@dataclass
class Selection:
    """What the default tried and chose; ``CorelsClassifier.selection_``.

    ``path`` has one row per search on all training rows: ``(c, max_card,
    status, objective, lower bound, work)``.  ``candidates`` are the points
    cross-validation compared: every certified point, and for each number of
    conditions the first point whose search ran out of budget (its best list,
    with a valid bound).
    """

    path: list
    candidates: list
    chosen: Candidate | None
    folds: int
    stopped: str | None          # a limit that ended the path early (time, Ctrl-C), or None

    def table(self):
        """The candidates with their mean cross-validated accuracy, as a DataFrame.

        A candidate that was not validated has no ``validation_accuracy``
        (NaN); its ``validation_note`` says why (``c`` was given, a list the
        same as a larger ``c``'s, a limit came first...).
        """
        import pandas as pd

        return pd.DataFrame([
            {"c": cand.c, "max_card": cand.card, "status": cand.result.status,
             "rules": len(cand.result.prefix), "objective": cand.result.objective,
             "lower_bound": cand.result.lower_bound, "validation_accuracy": cand.mean_accuracy,
             "validation_note": "" if cand.correct is not None else cand.unvalidated,
             "chosen": cand is self.chosen} for cand in self.candidates])


def path_penalties(n: int) -> list:
    """The penalties of the path for ``n`` training rows, largest first."""
    cs = [c for c in C_PATH if c * n >= MIN_FIXES]
    return cs or [C_PATH[0]]


def mining_card(n_conditions: int, n_rows: int, memory_mb: float | None = None) -> int:
    """2 when every pair of conditions, as a boolean matrix, fits :data:`PAIR_CELLS` bytes
    and a third of ``memory_mb``; else 1."""
    cells = n_conditions * (n_conditions - 1) // 2 * max(n_rows, 1)
    room = PAIR_CELLS if memory_mb is None else min(PAIR_CELLS, memory_mb * 2**20 / 3)
    return 2 if cells <= room else 1


def splits_of(tested) -> list:
    """``(train, test)`` index arrays of each validation split (``FitData.tested``).

    Column ``s`` of ``tested`` marks the rows split ``s`` holds out; it trains
    on all the others.  None (nothing drawn): no splits.
    """
    if tested is None:
        return []
    return [(np.flatnonzero(~held), np.flatnonzero(held)) for held in np.asarray(tested).T]


def weighted_support(A, weight) -> np.ndarray:
    """Rows (sums of frequency weights) each antecedent captures, counted in row blocks.

    A block at a time, so that the products never hold a whole copy of ``A``
    as numbers.
    """
    if weight is None:
        return A.sum(axis=0)
    out = np.zeros(A.shape[1], dtype=np.int64)
    step = max(1, SUPPORT_BLOCK // max(A.shape[1], 1))
    for start in range(0, A.shape[0], step):
        out += np.asarray(weight[start:start + step], np.int64) @ A[start:start + step]
    return out


def _paired_se(diff, weight) -> float:
    """Standard error of the mean of ``diff`` over the rows the weighted rows stand for."""
    if weight is None:
        return float(diff.std(ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else 0.0
    total = float(weight.sum())
    if total <= 1:
        return 0.0
    mean = float((weight * diff).sum() / total)
    var = float((weight * (diff - mean) ** 2).sum() / (total - 1))
    return float(np.sqrt(var / total))


def _predict_codes(result, A) -> np.ndarray:
    """Class codes a search result predicts for the rows of ``A`` (first match)."""
    labels = np.array([*result.rule_labels, result.default_label], dtype=np.int64)
    return labels[first_match(A, [(a,) for a in result.prefix])]


class _Budget:
    """Work units left for the selection; each search takes at most ``per_search`` of them."""

    def __init__(self, total: int, per_search: int):
        self.left, self.per_search = int(total), int(per_search)

    def next(self) -> int | None:
        if self.left <= 0:
            return None
        return min(self.per_search, self.left)

    def spend(self, result) -> int:
        used = int(result.stats.get("work", 0))
        self.left -= used
        return used


def with_memory_left(search_kw: dict, *held) -> dict:
    """``search_kw`` whose ``max_memory`` (MB) is what the arrays in ``held`` leave.

    ``max_memory`` counts the antecedent matrices a fit holds during a search as
    well as the search's own arrays (counted, not measured, so the same data
    give the same model on any machine).  When nothing is left, the limit is
    one the engine refuses with the number it needs.
    """
    limit = search_kw.get("max_memory")
    if limit is None or limit == "auto":
        return search_kw
    left = limit - sum(a.nbytes for a in held) / 2**20
    return {**search_kw, "max_memory": max(left, MIN_MEMORY_MB)}


def warn_unbounded(max_work, time_limit) -> bool:
    """Warn when a fit is about to search without any bound; True if it is.

    ``max_work=None`` with no ``time_limit`` lets the search run as long as
    it takes to certify, which on some data is longer than anyone waits (the
    two-condition search at ``c = 0.005`` on 1,500 rows did not end in
    minutes, where the default takes seconds).  Asking for that is allowed,
    but knowingly: the fit warns at its start, shows its progress, and Ctrl-C
    returns the best list found with its lower bound.
    """
    if max_work is not None or time_limit is not None:
        return False
    warnings.warn(
        "CorelsClassifier: max_work=None and no time_limit: the search has no bound and "
        "may run for hours. Its progress is shown on stderr; press Ctrl-C to stop it with "
        "the best list found and a valid lower bound (status 'interrupted'). Pass a "
        "time_limit, or keep max_work='auto', for a fit that ends.",
        UserWarning, stacklevel=4)
    return True


def path_budget(max_work) -> tuple:
    """``(total, per search)`` work units of the path for the estimator's ``max_work``.

    ``None`` still bounds every point of the path (and of its validation) as
    ``"auto"`` does: a path of unbounded searches may never reach its end,
    the one search the user asked to run unbounded is the chosen point's
    (:func:`search_to_the_end`).
    """
    if max_work in ("auto", None):
        return TOTAL_WORK, SEARCH_WORK
    return max_work, max_work


def search_to_the_end(A, y, chosen: Candidate, search_kw: dict, weight=None) -> Candidate:
    """``max_work=None``: the chosen point searched again without a work budget.

    Only when its bounded search ran out of work; the candidate's result is
    replaced (in place: the selection's table shows it).
    """
    from ..corels._search import search

    if chosen.result.status != "work_limit":
        return chosen
    columns = chosen.columns
    sub = A if columns.size == A.shape[1] else A[:, columns]
    held = (A,) if sub is A else (A, sub)
    result = search(sub, y, chosen.c, max_work=None, sample_weight=weight,
                    **with_memory_left(search_kw, *held))
    chosen.result = _remap(result, columns)
    return chosen


def _remap(result, columns):
    """The result with its prefix in the full antecedent matrix's column numbers."""
    from dataclasses import replace

    return replace(result, prefix=tuple(int(columns[a]) for a in result.prefix))


def _walk_path(A, y, weight, cards, penalties, budget, search_kw):
    """Searches on all rows along the path; (path rows, candidates, stop reason)."""
    from ..corels._search import MemoryLimitError, search

    n = A.shape[0] if weight is None else int(weight.sum())
    support = weighted_support(A, weight)
    top = int(cards.max()) if cards.size else 1
    levels = (1, top) if top > 1 else (1,)
    alive = {card: True for card in levels}
    path, candidates = [], []
    for c in penalties:
        # the minimum-support theorem: a rule capturing at most c*n rows is never in an
        # optimal list, so those columns are left out (the certificate still covers them)
        usable = support > c * n
        for card in levels:
            if not alive[card]:
                continue
            work = budget.next()
            if work is None:
                return path, candidates, None
            columns = np.flatnonzero(usable & (cards <= card))
            sub = A if columns.size == A.shape[1] else A[:, columns]
            held = (A,) if sub is A else (A, sub)
            try:
                result = search(sub, y, c, max_work=work, sample_weight=weight,
                                **with_memory_left(search_kw, *held))
            except MemoryLimitError as exc:
                if not candidates:
                    exc.held_mb = sum(a.nbytes for a in held) / 2**20
                    raise   # not even the first search fits: the error says what is needed
                return path, candidates, "memory_limit"
            del sub
            path.append((c, card, result.status, result.objective, result.lower_bound,
                         budget.spend(result)))
            # an uncertified point is kept too (its best list and bound): on large data the
            # best predictor may lie just past what the budget certifies
            candidates.append(Candidate(c, card, columns, _remap(result, columns)))
            if result.status != "optimal":
                alive[card] = False
                if result.status in ("time_limit", "interrupted"):
                    return path, candidates, result.status
        if not alive[1]:
            break
    return path, candidates, None


def _cross_validate(A, y, weight, candidates, budget, search_kw, splits):
    """Fill each candidate's ``correct`` (per validation row), in the order given.

    Stops when the budget is spent; candidates not reached keep ``correct =
    None``.  Returns the limit that stopped it (time, Ctrl-C), or None.
    """
    from ..corels._search import MemoryLimitError, search

    for cand in candidates:
        parts = []
        for train, test in splits:
            work = budget.next()
            if work is None:
                return None
            ytr = y[train]
            if np.unique(ytr).size < 2:
                pred = np.full(test.size, ytr[0])
            else:
                # one copy of just the block searched (a fold's whole matrix, kept for
                # every fold, would hold several times the antecedent matrix at once)
                block = A[np.ix_(train, cand.columns)]
                try:
                    res = search(block, ytr, cand.c, max_work=work,
                                 sample_weight=None if weight is None else weight[train],
                                 **with_memory_left(search_kw, A, block))
                except MemoryLimitError:
                    return "memory_limit"
                del block
                budget.spend(res)
                if res.status in ("time_limit", "interrupted"):
                    return res.status
                pred = _predict_codes(res, A[np.ix_(test, cand.columns)])
            parts.append(pred == y[test])
        cand.correct = np.concatenate(parts)
        if weight is not None:
            cand.correct_weight = np.concatenate([weight[test] for _, test in splits])
    return None


def _choose(candidates):
    """The certified candidate with the best validation accuracy, unless an uncertified one beats it.

    Ties go to the larger ``c``, then to fewer conditions.  An uncertified point
    wins only when it is right on more validation rows by more than
    :data:`UNPROVED_MARGIN` standard errors of the paired per-row difference
    (about 98 % one-sided confidence) and makes at least :data:`UNPROVED_GAIN`
    (a twentieth) fewer validation mistakes than it: a proof is given up only
    for a clear, useful gain.
    """
    scored = [cd for cd in candidates if cd.correct is not None]
    if not scored:
        return None
    key = lambda cd: (round(cd.mean_accuracy, 12), cd.c, -cd.card)  # noqa: E731
    proved = [cd for cd in scored if cd.certified]
    unproved = [cd for cd in scored if not cd.certified]
    best = max(proved, key=key) if proved else None
    if not unproved:
        return best
    other = max(unproved, key=key)
    if best is None:
        return other
    diff = other.correct.astype(float) - best.correct.astype(float)
    w = best.correct_weight        # the same validation rows for every candidate
    se = _paired_se(diff, w)
    if w is None:
        mean, gain, mistakes = diff.mean(), diff.sum(), float(diff.size - best.correct.sum())
    else:
        gain = float((w * diff).sum())
        mean, mistakes = gain / float(w.sum()), float(w[~best.correct].sum())
    clear = mean > UNPROVED_MARGIN * se + RATE_SLACK
    useful = gain >= UNPROVED_GAIN * mistakes - FLOAT_SLACK
    return other if clear and useful else best


def _to_validate(candidates, n):
    """The candidates worth validating, cheapest first.

    A certified point whose list is the same as a larger penalty's (the same
    rules, labels and default) is the same model: the larger penalty stands
    for it.  Uncertified points come last, and only on large data: their fold
    searches spend a whole search budget each, and on small data the
    certified points already span the sizes that validate well.
    """
    seen, out = set(), []
    for cand in candidates:
        if not cand.certified:
            continue
        r = cand.result
        key = (r.prefix, r.rule_labels, r.default_label)
        if key not in seen:
            seen.add(key)
            out.append(cand)
    if n > LARGE_ROWS:
        out += [cand for cand in candidates if not cand.certified]
    return out


def select(A, y, cards, *, search_kw: dict, splits, weight=None, total_work=TOTAL_WORK,
           search_work=SEARCH_WORK, penalties=None, by="cv") -> Selection:
    """Walk the path, cross-validate its points, return the :class:`Selection`.

    Parameters
    ----------
    A : ndarray of bool, shape (n, M)
        Antecedent matrix (mined at the smallest penalty of the path).
    y : ndarray of int, shape (n,)
        Class codes ``0 .. k-1``.
    cards : ndarray of int, shape (M,)
        Conditions per antecedent.  The path searches the one-condition
        antecedents, then all of them.
    search_kw : dict
        Further keyword arguments of :func:`rulekit.corels.search` (policy,
        symmetry, bounds, max_memory, max_nodes, time_limit, verbose);
        ``max_memory`` in MB counts the matrices the path holds too (see
        :func:`with_memory_left`).
    splits : callable
        ``splits()`` gives the validation splits, a list of ``(train, test)``
        index arrays (the estimator draws them on the training rows before
        they are folded: stratified folds, or one hold-out on large data; see
        :func:`splits_of`); called only when the path is validated.
    weight : ndarray of int, shape (n,), optional
        Frequency weights: a row of ``A`` standing for ``k`` training rows
        weighs ``k``.  The searches, supports, validation accuracies and
        their standard errors are then those of the rows repeated.
    total_work, search_work : int
        Work units for the whole selection, and for any one search.
    penalties : list of float, optional
        The path (default :func:`path_penalties`).
    by : {"cv", "objective"}
        How to choose: cross-validated accuracy, or (for a path of one
        penalty) the certified point of lowest objective.
    """
    n = A.shape[0] if weight is None else int(weight.sum())
    penalties = path_penalties(n) if penalties is None else list(penalties)
    budget = _Budget(total_work, search_work)
    path, candidates, stopped = _walk_path(A, y, weight, cards, penalties, budget, search_kw)
    proved = [cd for cd in candidates if cd.certified]
    if by == "objective" or stopped is not None or len(candidates) == 1:
        pool = proved or candidates
        chosen = min(pool, key=lambda cd: (cd.result.objective, -cd.c, cd.card)) \
            if by == "objective" else pool[-1]
        why = ("not validated: c was given, so the certified point of lowest objective is "
               "chosen" if by == "objective" else
               f"not validated: the path stopped early ({stopped})" if stopped is not None
               else "not validated: the only candidate")
        for cand in candidates:
            cand.unvalidated = why
        return Selection(path, candidates, chosen, 0, stopped)
    splits = splits() if np.bincount(y, weights=weight).min() >= FOLDS else []
    if not splits:
        # too few rows of some class to validate: the smallest certified penalty
        for cand in candidates:
            cand.unvalidated = (f"not validated: a class has fewer than {FOLDS} rows; the "
                                "smallest certified c is chosen")
        return Selection(path, candidates, (proved or candidates)[-1], 0, None)
    validated = _to_validate(candidates, n)
    stopped = _cross_validate(A, y, weight, validated, budget, search_kw, splits)
    _explain_unvalidated(candidates, validated, stopped)
    chosen = _choose(candidates) or (proved or candidates)[0]
    return Selection(path, candidates, chosen, len(splits), stopped)


def _explain_unvalidated(candidates, validated, stopped):
    """Say, on each candidate left without validation, why (``Selection.table`` shows it)."""
    chosen_ids = {id(cd) for cd in validated}
    for cand in candidates:
        if cand.correct is not None:
            continue
        if id(cand) in chosen_ids:
            cand.unvalidated = (f"not validated: {stopped} stopped the validation first"
                                if stopped else "not validated: the work budget ran out first")
        elif not cand.certified:
            cand.unvalidated = (f"not validated: its search was not certified, and on at most "
                                f"{LARGE_ROWS:,} rows only certified points are validated")
        else:
            key = (cand.result.prefix, cand.result.rule_labels, cand.result.default_label)
            same = next(cd for cd in validated if (cd.result.prefix, cd.result.rule_labels,
                                                   cd.result.default_label) == key)
            cand.unvalidated = (f"not validated: the same list as at c = {same.c:g}, "
                                f"max_card = {same.card}, which stands for it")
