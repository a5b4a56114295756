"""Choosing the form (DNF / CNF) and the complexity budget ``C`` from the data.

The paper chose ``C`` by nested cross-validation.  Two regimes are used here,
because a cross-validation over many budgets is affordable only on small data:

* **small data** (at most ``cv_max_rows`` rows): stratified k-fold validation
  over every (form, budget) pair, then the one-standard-error rule;
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

# 0 is the rule set with no clauses: the constant prediction (the null model)
DEFAULT_GRID = (0, 3, 4, 6, 8, 12, 16, 24, 32, 64)
CV_MAX_ROWS = 5000
PROBE_ROUNDS = 8


@dataclass(frozen=True)
class BudgetChoice:
    """What :func:`choose_complexity` picked, and why.

    Attributes
    ----------
    form : {"dnf", "cnf"}
    max_complexity : int
    method : {"cv", "probe", "largest"}
        ``"cv"``: k-fold validation; ``"probe"``: short runs compared by
        training objective (large data, both forms); ``"largest"``: large
        data with one form, or a grid of one budget.
    errors : dict
        ``(form, C) -> mean validation error`` (``"cv"``), or
        ``(form, C) -> restricted master LP value per unit weight``
        (``"probe"``).
    """

    form: str
    max_complexity: int
    method: str
    errors: dict = field(default_factory=dict)

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

    On at most ``cv_max_rows`` rows every (form, C) candidate is fitted on
    ``n_splits - 1`` folds and scored by the (weighted) misclassification
    rate on the held-out fold; among the candidates whose error exceeds the
    lowest by at most one standard error of the row-by-row difference (both
    are measured on the same held-out rows), the smallest ``C`` wins (ties:
    the lower error, then DNF).  The inner fits are capped at ``max_iter``
    rounds and 2 s per pricing IP, and share ``time_limit`` seconds in
    proportion to their budgets.

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
    """
    B = np.asarray(B, dtype=bool)
    y = np.asarray(y).astype(np.int64)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
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
        return _probe_forms(B, y, w if sample_weight is not None else None, grid[-1], forms,
                            time_limit, random_state, solve_kw)
    if len(grid) == 1 and len(forms) == 1:
        return largest
    n_splits = int(min(n_splits, np.bincount(y, minlength=2).min()))
    if n_splits < 2:
        return largest
    folds = _stratified_folds(y, n_splits, np.random.default_rng(random_state))
    cands = [(f, C) for f in forms for C in grid]
    deadline = time.perf_counter() + time_limit
    inner_kw = dict(solve_kw)
    # inner fits need no certificate: a short pricing IP keeps them quick while
    # the beam and the exact enumeration still find the clauses that matter
    inner_kw["pricing_time_limit"] = min(float(solve_kw.get("pricing_time_limit", 30.0)), 2.0)
    # time is shared in proportion to the budget still to fit (large budgets
    # need more rounds), and each fit may take twice its share: most stop
    # early (converged, or at max_iter) and pass their time on
    work_left = float(sum(C for _, C in cands)) * n_splits
    loss = {}              # (form, C) -> per-row held-out 0/1 loss
    for form, C in cands:
        rows = np.zeros(len(y))
        for k in range(n_splits):
            te = folds[k]
            tr = np.concatenate([folds[j] for j in range(n_splits) if j != k])
            if C == 0:
                pred = empty_result(y[tr], None, form).predict(B[te])
            else:
                share = 2.0 * (deadline - time.perf_counter()) * C / work_left
                work_left -= C
                res = solve(B[tr], y[tr], form=form, max_complexity=C,
                            time_limit=max(share, 0.5), max_iter=max_iter,
                            sample_weight=None if sample_weight is None else w[tr],
                            random_state=random_state, **inner_kw)
                pred = res.predict(B[te])
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
