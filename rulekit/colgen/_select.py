"""Choosing the form (DNF / CNF) and the complexity budget ``C`` from the data.

The paper chose ``C`` by nested cross-validation.  Two regimes are used here,
because a cross-validation over many budgets is affordable only on small data:

* **small data** (at most ``cv_max_rows`` rows): if the data are noise-free
  (a rule set within the largest budget makes no training error), the
  smallest budget that fits every row, when it also fits every held-out row;
  otherwise stratified k-fold validation over every (form, budget) pair,
  then the one-standard-error rule;
* **large data**: overfitting is slight at these budgets (training and test
  accuracy within 0.6 points on every large benchmark set at C = 64), so
  the largest budget is used, and when both forms are allowed a short probe
  run of each picks the one whose restricted master LP reaches the lower
  training objective.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import time

import numpy as np

from ._result import empty_result
from ._solve import solve
from ._solvers import available_solvers

# 0 is the rule set with no clauses: the constant prediction (the null model)
DEFAULT_GRID = (0, 3, 4, 6, 8, 12, 16, 24, 32, 64)
CV_MAX_ROWS = 5000
PROBE_ROUNDS = 8
INNER_MIP_SECONDS = 0.3
SHARE_OFFSET = 8


@dataclass(frozen=True)
class BudgetChoice:
    """What :func:`choose_complexity` picked, and why.

    Attributes
    ----------
    form : {"dnf", "cnf"}
    max_complexity : int
    method : {"exact", "cv", "probe", "largest"}
        ``"exact"``: the smallest budget at which a rule set fits every
        training row and every held-out row of the validation (noise-free
        data); ``"cv"``: k-fold validation; ``"probe"``: short runs compared
        by training objective (large data, both forms); ``"largest"``: large
        data with one form, or a grid of one budget.
    errors : dict
        ``(form, C) -> mean validation error`` (``"cv"``, ``"exact"``), or
        ``(form, C) -> restricted master LP value per unit weight``
        (``"probe"``).
    result : ColGenResult or None
        With ``"exact"``: the rule set fitted on every row within the chosen
        budget.  It has zero training error (so it is optimal when there are
        no penalties) and needs no second fit.
    """

    form: str
    max_complexity: int
    method: str
    errors: dict = field(default_factory=dict)
    result: object = field(default=None, repr=False, compare=False)

    def __iter__(self):  # ``C, errors = choose_complexity(...)`` keeps working
        return iter((self.max_complexity, self.errors))


def _stratified_folds(y, n_splits, rng):
    folds = [[] for _ in range(n_splits)]
    for cls in (0, 1):
        idx = np.flatnonzero(y == cls)
        rng.shuffle(idx)
        for k, part in enumerate(np.array_split(idx, n_splits)):
            folds[k].extend(part.tolist())
    return [np.array(sorted(f), dtype=np.int64) for f in folds]


def choose_complexity(B, y, *, grid=DEFAULT_GRID, forms=("dnf",), n_splits=3,
                      time_limit=60.0, max_iter=30, cv_max_rows=CV_MAX_ROWS,
                      random_state=0, sample_weight=None, **solve_kw):
    """Pick the form and ``max_complexity`` for :func:`rulekit.colgen.solve`.

    On at most ``cv_max_rows`` rows, noise-free data are recognised first,
    within half of ``time_limit`` (method ``"exact"`` of
    :class:`BudgetChoice`; only without penalties).  Otherwise every
    (form, C) candidate is fitted on ``n_splits - 1`` folds and scored by
    the (weighted) misclassification rate on the held-out fold; among the
    candidates whose error exceeds the lowest by at most one standard error
    of the row-by-row difference (both are measured on the same held-out
    rows), the smallest ``C`` wins (ties: the lower error, then DNF).  The
    inner fits are capped at ``max_iter`` rounds, 2 s per pricing IP and
    0.3 s for the restricted IP (HiGHS when installed), and share
    ``time_limit`` seconds in proportion to their budgets plus 8.

    On more rows the largest budget of ``grid`` is used; with two forms,
    each runs ``8`` rounds (or a share of ``time_limit``) and the lower
    restricted-master-LP value (the training objective CG is heading for)
    decides.

    Parameters
    ----------
    B, y, sample_weight :
        As for :func:`rulekit.colgen.solve`.
    grid : sequence of int
        Candidate budgets, each 0 or >= 2.  0 stands for the rule set with no
        clauses, a constant prediction (0 as a DNF, 1 as a CNF): the null
        model a rule set has to beat on held-out data to be worth its rules.
    forms : sequence of {"dnf", "cnf"}
    n_splits : int
    time_limit : float
        Seconds for the whole choice.
    max_iter : int
        Rounds per inner cross-validation fit.
    cv_max_rows : int
        Largest row count validated by cross-validation.
    random_state : int
    **solve_kw :
        Passed to every :func:`~rulekit.colgen.solve` call.

    Returns
    -------
    BudgetChoice
        Also unpacks as ``(max_complexity, errors)``.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C during an inner fit (the choice has no answer yet).
    """
    B = np.asarray(B, dtype=bool)
    y = np.asarray(y).astype(np.int64)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    sw = None if sample_weight is None else w
    grid = check_grid(grid)
    forms = list(dict.fromkeys(forms))
    for f in forms:
        if f not in ("dnf", "cnf"):
            raise ValueError(f"forms must hold 'dnf' and/or 'cnf', got {f!r}")
    largest = BudgetChoice(forms[0], grid[-1], "largest")
    if np.all(y == y[0]):
        return largest
    if len(y) > cv_max_rows:
        if len(forms) == 1 or grid[-1] == 0:
            return largest
        return _probe_forms(B, y, sw, grid[-1], forms,
                            time_limit, random_state, solve_kw)
    if len(grid) == 1 and len(forms) == 1:
        return largest
    n_splits = int(min(n_splits, np.bincount(y, minlength=2).min()))
    if n_splits < 2:
        return largest
    folds = _stratified_folds(y, n_splits, np.random.default_rng(random_state))
    cands = [(f, C) for f in forms for C in grid]
    deadline = time.perf_counter() + time_limit
    inner_kw = _inner_kw(solve_kw)
    fit_kw = dict(max_iter=max_iter, random_state=random_state, **inner_kw)
    # the zero-error shortcut needs the Hamming loss to be the whole objective
    no_penalty = not solve_kw.get("lambda0") and not solve_kw.get("lambda1")
    if grid[-1] >= 2 and no_penalty:
        # its fits on every row may take more rounds: they are few
        exact = _exact_fit(B, y, sw, grid, forms, folds, time_limit / 2.0,
                           dict(fit_kw, max_iter=2 * max_iter))
        if exact is not None:
            return exact
    # time is shared in proportion to the budget still to fit plus a constant
    # (large budgets need more rounds, but small ones need a few rounds too),
    # and each fit may take twice its share: most stop early (converged, or
    # at max_iter) and pass their time on
    work_left = float(sum(C + SHARE_OFFSET for _, C in cands if C)) * n_splits
    loss = {}              # (form, C) -> per-row held-out 0/1 loss
    for form, C in cands:
        rows = np.zeros(len(y))
        for k in range(n_splits):
            te = folds[k]
            tr = np.concatenate([folds[j] for j in range(n_splits) if j != k])
            if C == 0:
                pred = empty_result(y[tr], None, form).predict(B[te])
            else:
                share = 2.0 * (deadline - time.perf_counter()) * (C + SHARE_OFFSET) / work_left
                work_left -= C + SHARE_OFFSET
                pred = _fit_predict(B, y, sw, tr, te, form, C, max(share, 0.5), fit_kw)
            rows[te] = pred != y[te]
        loss[(form, C)] = rows
    wsum = float(w.sum())
    errors = {fc: float(w @ loss[fc] / wsum) for fc in cands}
    # one-standard-error rule on paired differences: the smallest budget whose
    # error exceeds the best one's by at most the standard error of the
    # difference, computed row by row on the same held-out rows (the binomial
    # SE of each error alone ignores that both are measured on the same rows
    # and is far too wide when two models disagree on few rows)
    n_eff = float(wsum ** 2 / (w ** 2).sum())
    rank = {f: i for i, f in enumerate(forms)}
    best = min(cands, key=lambda fc: (errors[fc], fc[1], rank[fc[0]]))

    def within(fc):
        diff = loss[fc] - loss[best]
        mean = float(w @ diff / wsum)
        se = float(np.sqrt(max(w @ (diff - mean) ** 2 / wsum, 0.0) / n_eff))
        return mean <= se + 1e-12

    form, C = min((fc for fc in cands if within(fc)),
                  key=lambda fc: (fc[1], errors[fc], rank[fc[0]]))
    return BudgetChoice(form, C, "cv", errors)


def _inner_kw(solve_kw):
    """Settings of the quick fits made while choosing (no certificate needed)."""
    kw = dict(solve_kw)
    # a short pricing IP keeps them quick while the beam and the exact
    # enumeration still find the clauses that matter
    kw["pricing_time_limit"] = min(float(solve_kw.get("pricing_time_limit", 30.0)), 2.0)
    # nor an optimal selection: a short in-process restricted IP (warm-started
    # from the greedy selection) instead of a CBC subprocess that needs >= 1 s
    kw["final_mip_time_limit"] = min(float(solve_kw.get("final_mip_time_limit", 60.0)),
                                     INNER_MIP_SECONDS)
    if "highs" in available_solvers():
        kw["mip_solver"] = "highs"
    return kw


def _fit(B, y, sample_weight, tr, form, C, time_limit, fit_kw):
    """Fit on rows ``tr`` with budget ``C``; Ctrl-C stops the whole choice."""
    res = solve(B[tr], y[tr], form=form, max_complexity=C, time_limit=time_limit,
                sample_weight=None if sample_weight is None else sample_weight[tr], **fit_kw)
    if res.status == "interrupted":
        # solve() caught the user's Ctrl-C; the choice must not go on fitting
        raise KeyboardInterrupt
    return res


def _fit_predict(B, y, sample_weight, tr, te, form, C, time_limit, fit_kw):
    """Fit on rows ``tr`` with budget ``C``; predictions for rows ``te``."""
    return _fit(B, y, sample_weight, tr, form, C, time_limit, fit_kw).predict(B[te])


def _exact_fit(B, y, sample_weight, grid, forms, folds, time_limit, fit_kw):
    """The smallest budget that fits every row, if it also fits every held-out row.

    Noise-free data (tic-tac-toe) can be described exactly.  For each form,
    a fit with the largest budget of ``grid`` tells whether some rule set
    makes no training error; if one does, smaller budgets are tried from the
    top down (fitting every row is monotone in the budget, so the first
    failure ends the scan; a rule set found within a budget also fits every
    budget down to its own complexity).  The smallest such budget is kept
    only if its cross-validation error is 0 too, so that no other candidate
    could have validated better.  Noisy data give ``None``, mostly after one
    short fit per form (a few hundred noisy rows can be fitted exactly at a
    large budget; then the held-out check fails), and the full validation
    runs.
    """
    deadline = time.perf_counter() + time_limit
    w = np.ones(len(y)) if sample_weight is None else sample_weight
    all_rows = np.arange(len(y))

    def no_error(res, rows):
        return not np.any((res.predict(B[rows]) != y[rows]) & (w[rows] > 0))

    def fit(form, C, tr, share):
        return _fit(B, y, sample_weight, tr, form, C, share, fit_kw)

    best = None                     # (budget, form, result fitted on every row)
    for form in forms:
        budgets = [C for C in grid if C >= 2 and (best is None or C < best[0])]
        if not budgets:
            continue
        # noisy data fail here, and should not lose much of the time that
        # the validation then needs: an eighth per form
        res = fit(form, budgets[-1], all_rows, time_limit / 8.0)
        if not no_error(res, all_rows):
            continue
        while True:
            # the budgets this rule set already meets need no fit of their own
            j = next(j for j, C in enumerate(budgets) if C >= res.complexity)
            best = (budgets[j], form, res)
            left = deadline - time.perf_counter()
            if j == 0 or left <= 0:
                break
            # a smaller budget gets up to a quarter of the time; one that does
            # not fit every row by then counts as not fitting (a larger budget
            # is kept: never a wrong answer, at worst a larger rule set)
            res = fit(form, budgets[j - 1], all_rows, min(time_limit / 4.0, left))
            if not no_error(res, all_rows):
                break
    if best is None:
        return None
    C, form, res = best
    n = len(folds)
    for k in range(n):
        te = folds[k]
        tr = np.concatenate([folds[j] for j in range(n) if j != k])
        left = (deadline - time.perf_counter()) / (n - k)
        if left <= 0 or not no_error(fit(form, C, tr, max(left, 0.5)), te):
            return None
    return BudgetChoice(form, C, "exact", {(form, C): 0.0}, result=res)


def check_grid(grid):
    """Sorted distinct budgets; each must be 0 (no clauses) or an integer >= 2."""
    try:
        values = [float(c) for c in grid]
    except (TypeError, ValueError):
        values = []
    if not values or any(not v.is_integer() or v < 0 or v == 1 for v in values):
        raise ValueError(f"complexity grid values must be 0 or integers >= 2, got {grid!r}")
    return sorted({int(v) for v in values})


def _probe_forms(B, y, w, C, forms, time_limit, random_state, solve_kw):
    """Short run of each form; the lower restricted master LP value wins."""
    deadline = time.perf_counter() + time_limit
    total = float(len(y)) if w is None else float(w.sum())
    values = {}
    for i, form in enumerate(forms):
        left = (deadline - time.perf_counter()) / (len(forms) - i)
        res = solve(B, y, form=form, max_complexity=C, time_limit=max(left, 0.5),
                    max_iter=PROBE_ROUNDS, sample_weight=w, random_state=random_state,
                    restricted_mip=False, **solve_kw)
        lp = res.lp_value if res.lp_value is not None else res.objective
        values[(form, C)] = float(lp) / total
    form = min(forms, key=lambda f: values[(f, C)])
    return BudgetChoice(form, C, "probe", values)
