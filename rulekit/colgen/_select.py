"""Choosing the form (DNF / CNF) and the complexity budget ``C`` from the data.

The paper (Dash, Günlük, Wei, "Boolean Decision Rules via Column
Generation", NeurIPS 2018, §4) chose ``C`` by nested cross-validation.  Here
that validation is a *path*: for each form and each inner fold one master LP
is kept while the budget grows through the grid, so the clauses generated
for one budget are the start of the next, and the path stops once the
validation error has not improved for ``patience`` budgets.

* **Small data** (at most ``cv_max_rows`` rows): k-fold validation along the
  path (:data:`INNER_FOLDS` folds), then the one-standard-error rule on the
  row-by-row difference from the best candidate.  A path stopped by
  ``patience`` is also validated at the grid's largest budget.  A finer binarization
  (``fit_binary``'s ``finer``) is validated afterwards in the form chosen
  over the first one only.  Noise-free data end the path at the first budget
  whose rule sets make no error on any held-out row and, fitted on every
  row, no training error either (that fit is the model).  With more than
  ``validation_rows`` distinct rows the path runs on a stratified sample of
  that many rows, so its work stays bounded (no exact shortcut then).
* **Large data**: overfitting is slight at these budgets (training and test
  accuracy within 0.6 points on every large benchmark set at C = 64), so the
  largest budget is used; with both forms, a short run of each (a fixed
  number of rounds, on a stratified sample of ``cv_max_rows`` rows) picks
  the one whose restricted master LP reaches the lower training objective.

Every fit made while choosing is bounded by work (rounds, enumeration
steps, solver nodes), never by a share of the clock, so the choice is a
function of the data and ``random_state`` alone; the time limit only cuts
the path short (``BudgetChoice.stopped`` says so).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from rulekit._anytime import Anytime, current_run
from rulekit._params import (Instance, Integer, NoValidation, Real, SeedLike, as_generator,
                             declared, validated)

from ._metadata import ConditionMetadata
from ._result import empty_result
from ._enum import check_compatibility_memory
from ._search import (ColumnGeneration, Problem, check_data, constant_result, literal_limit,
                      search)
from ._settings import ColGenSettings
from rulekit._tolerances import FLOAT_SLACK, RATE_SLACK

__all__ = ["choose_complexity", "BudgetChoice", "DEFAULT_GRID", "INNER_SETTINGS", "check_grid",
           "BinaryFit", "fit_binary"]

# 0 is the rule set with no clauses: the constant prediction (the null model)
DEFAULT_GRID = (0, 3, 4, 6, 8, 12, 16, 24, 32, 64)
CV_MAX_ROWS = 5000
#: Distinct (row, label) pairs above which the validation path runs on a
#: stratified sample of this many rows.  The path's cost grows faster than the
#: distinct rows (master LPs per form, fold and resolution, one row per distinct
#: row, whose simplex iterations each touch every row): on a 5,000-row sample
#: of bank marketing it took over 100 CPU s and 1.7 GB (with 5 folds), and the
#: default time limit cut it short, so the clock picked the budget.
VALIDATION_ROWS = 1000
PATIENCE = 3
#: Inner folds of the validation path (``choose_complexity``'s ``n_splits``).
#: Every distinct row is held out once whatever the number of folds, so the
#: validation errors rest on as many rows with 3 folds as with 5; the paths
#: (one master LP per form and fold) are 3 instead of 5.
INNER_FOLDS = 3
PROBE_ROUNDS = 8
#: Settings of the fits made while choosing: beam and exact enumeration (no
#: pricing IP), a few rounds per budget, a narrow beam, a short enumeration
#: (validation makes up to 2 forms x 3 folds of these paths, and 3 more at
#: the finer resolution).
INNER_SETTINGS = ColGenSettings(pricing="enum", max_rounds=10, beam_widening=(1,),
                                enum_work_limit=2_000_000)
#: Enumeration work of the probe's rounds (two fits on up to ``cv_max_rows`` rows).
PROBE_ENUM_WORK = 10_000_000
#: Share of a binary fit's time the choice may take when the time limit binds.
CHOICE_SHARE = 0.85


@dataclass(frozen=True)
class BudgetChoice:
    """What :func:`choose_complexity` picked, and why.

    Attributes
    ----------
    form : {"dnf", "cnf"}
    max_complexity : int
    method : {"exact", "cv", "probe", "largest"}
        ``"exact"``: the first budget of the path at which the rule sets fit
        every held-out row and, fitted on every row, every training row
        (noise-free data); ``"cv"``: validation along the path;
        ``"probe"``: short runs compared by training objective (large data,
        both forms); ``"largest"``: large data with one form, or nothing to
        choose.
    errors : dict
        ``(form, C) -> validation error`` (``"cv"``, ``"exact"``), or
        ``(form, C) -> restricted master LP value per unit weight``
        (``"probe"``), for every candidate evaluated.
    columns : tuple of tuple of int
        Clauses generated while choosing for the chosen form: a warm start
        for the final fit (``search(columns=...)``).
    fallback : tuple of tuple of int
        With ``"probe"``: the rule set the chosen form's short run selected, for
        the final fit to fall back on when the clock leaves it no master LP
        (``search(fallback=...)``).
    stopped : str or None
        ``"time_limit"`` or ``"interrupted"`` when a limit, Ctrl-C or a
        callback cut the choice short: it is then the best among the
        candidates evaluated so far (none: the grid's first budget).
    result : ColGenResult or None
        With ``"exact"``: the rule set fitted on every row within the chosen
        budget; it needs no second fit.
    """

    form: str
    max_complexity: int
    method: str
    errors: dict = field(default_factory=dict)
    columns: tuple = field(default=(), repr=False, compare=False)
    stopped: str | None = None
    fallback: tuple = field(default=(), repr=False, compare=False)
    result: object = field(default=None, repr=False, compare=False)


def check_grid(grid):
    """Sorted distinct budgets; each must be 0 (no clauses) or an integer >= 2."""
    try:
        values = [float(c) for c in grid]
    except (TypeError, ValueError):
        values = []
    if not values or any(not v.is_integer() or v < 0 or v == 1 for v in values):
        raise ValueError(f"complexity grid values must be 0 or integers >= 2, got {grid!r}")
    return tuple(sorted({int(v) for v in values}))


#: Declarations of :func:`choose_complexity`'s parameters.
CHOICE_PARAMETERS = {
    "forms": Instance((tuple, list), "a tuple of 'dnf' / 'cnf'"),
    "n_splits": Integer(2),
    "cv_max_rows": Integer(0),
    "validation_rows": Integer(2),
    "patience": Integer(1),
    "max_literals": Integer(1, allow_none=True),
    "lambda0": Real(0, None),
    "lambda1": Real(0, None),
    "metadata": Instance((ConditionMetadata,), "a ConditionMetadata", allow_none=True),
    "settings": Instance((ColGenSettings,), "a ColGenSettings", allow_none=True),
    "time_limit": Real(0, None, closed="neither", allow_none=True),
    "random_state": SeedLike(),
}


#: Declarations of the engine's :func:`choose_complexity`: the design replaces the
#: numbers it was drawn with (``n_splits``, ``cv_max_rows``, ``validation_rows``).
ENGINE_CHOICE_PARAMETERS = {
    **{k: v for k, v in CHOICE_PARAMETERS.items()
       if k not in ("n_splits", "cv_max_rows", "validation_rows")},
    # a rulekit.estimators.validation.Design (drawn on the estimator side): checked below
    "design": NoValidation(),
}


@validated(ENGINE_CHOICE_PARAMETERS, "choose_complexity")
def choose_complexity(B, y, *, design, grid=DEFAULT_GRID, forms=("dnf",), patience=PATIENCE,
                      max_literals=None, lambda0=0.0, lambda1=0.0, sample_weight=None,
                      metadata=None, settings=None, time_limit=None,
                      random_state=0) -> BudgetChoice:
    """Pick the form and ``max_complexity`` along the validation ``design`` given.

    The engine draws nothing: which pairs are validated and in which fold
    each unit of their weight is held out come with ``design`` (a
    :class:`rulekit.estimators.validation.Design`, drawn on the estimator side; the
    public :func:`rulekit.colgen.choose_complexity` draws it and calls this).

    Parameters
    ----------
    B, y, sample_weight :
        The binary problem's distinct ``(row, label)`` pairs and their summed
        weights (``design.index`` refers to them).
    design : Design
        ``"largest"``, ``"probe"`` (the pairs ``design.index`` with weights
        ``design.weight`` are the probe's sample) or ``"cv"`` (validation
        over those pairs with the fold table ``design.T``).
    grid, forms, patience, max_literals, lambda0, lambda1, metadata, settings,
    time_limit, random_state :
        As for :func:`rulekit.colgen.choose_complexity`; ``random_state``
        seeds the inner fits only.

    Returns
    -------
    BudgetChoice
    """
    p = declared(ENGINE_CHOICE_PARAMETERS, locals())
    forms = tuple(dict.fromkeys(forms))
    if not forms or any(f not in ("dnf", "cnf") for f in forms):
        raise ValueError(f"forms must hold 'dnf' and/or 'cnf', got {forms!r}")
    grid = check_grid(grid)
    B, y, w = check_data(B, y, sample_weight)
    if getattr(design, "kind", None) not in ("largest", "probe", "cv"):
        raise TypeError("design must be a rulekit.estimators.validation.Design")
    p.update(settings=p["settings"] or INNER_SETTINGS, rng=as_generator(p["random_state"]))
    if np.all(y == y[0]) or (len(grid) == 1 and len(forms) == 1) or design.kind == "largest":
        return BudgetChoice(forms[0], grid[-1], "largest")
    with Anytime("colgen", unit="fits", time_limit=p["time_limit"]) as run:
        idx = design.index
        if design.kind == "probe":
            return _probe_forms(B[idx], y[idx], design.weight, grid[-1], forms, p)
        return _validate_path(B[idx], y[idx], design.weight, design.T, grid, forms, p, run,
                              exact=not design.sampled)


class BinaryFit(NamedTuple):
    """One binary problem fitted by :func:`fit_binary`.

    Attributes
    ----------
    result : ColGenResult
        The rule set and what is proved about it.
    choice : BudgetChoice or None
        What the choice of form and budget picked (None when neither was
        ``"auto"``).
    form : {"dnf", "cnf"}
        The form fitted.
    max_complexity : int
        The budget fitted (0: the constant prediction).
    view : object
        The conditions the rule set is over: the ``view`` given, or
        ``finer`` when validation compared both and preferred it.
    """

    result: object
    choice: BudgetChoice | None
    form: str
    max_complexity: int
    view: object


def fit_binary(view, y, sample_weight, *, form, max_complexity, max_literals, lambda0,
               lambda1, settings, complexity_grid, random_state, time_limit=None, verbose=0,
               design=None, finer=None) -> BinaryFit:
    """Choose the form and budget when asked (``"auto"``), then fit one binary problem.

    Parameters
    ----------
    view : object
        The conditions to fit over: its ``B`` is the condition matrix, its
        ``meta`` the :class:`ConditionMetadata` of the columns.  Its rows
        are best the distinct ``(row, label)`` pairs, ``sample_weight``
        their summed weights: every search here runs on distinct rows.
    y : ndarray of {0, 1}
    sample_weight : ndarray of float
    design : Design, optional
        The validation design over ``view``'s rows
        (:func:`rulekit.estimators.validation.draw_design`), needed when the form or
        the budget is ``"auto"``.
    form : {"auto", "dnf", "cnf"}
    max_complexity : int or "auto"
    max_literals, lambda0, lambda1, verbose :
        As for :func:`rulekit.colgen.search`.
    settings : ColGenSettings or None
        Settings of the final fit; the choice uses :data:`INNER_SETTINGS`
        with the same solvers.
    complexity_grid : sequence of int
        Candidate budgets when ``max_complexity="auto"``.
    random_state : numpy.random.Generator
        Seeds the folds and the fits (consumed).
    time_limit : float or None
        Seconds for the choice and the fit together (the choice takes at
        most :data:`CHOICE_SHARE` of them).
    finer : tuple, optional
        ``(view, y, sample_weight, design, generator)``: a second view (a
        finer binarization, over its own distinct pairs) validation may
        prefer to ``view``, with its design and the generator its fits
        use; tried only when the choice is made by cross-validation, and
        only in the form chosen over ``view``.

    Returns
    -------
    BinaryFit
    """
    outer = current_run()
    if outer is not None and outer.interrupted:
        res = constant_result(y, sample_weight, "interrupted")
        return BinaryFit(res, None, res.form, 0, view)
    # the d x d matrix every fit over these columns shares: refused before any fit
    check_compatibility_memory(view.B.shape[1])
    settings = settings or ColGenSettings()
    kw = dict(max_literals=max_literals, lambda0=lambda0, lambda1=lambda1,
              sample_weight=sample_weight)
    form, C, rng, used = form, max_complexity, random_state, view
    with Anytime("colgen", unit="fits", time_limit=time_limit) as run:
        choice = None
        if form == "auto" or C == "auto":
            inner = INNER_SETTINGS.replace(lp_solver=settings.lp_solver,
                                           pricing_solver=settings.pricing_solver,
                                           mip_solver=settings.mip_solver)
            # should the time limit cut the choice short, the final fit on
            # every row still gets a share of the time to build its master
            ckw = dict(kw, grid=complexity_grid if C == "auto" else (C,),
                       forms=("dnf", "cnf") if form == "auto" else (form,), settings=inner,
                       time_limit=None if time_limit is None else CHOICE_SHARE * time_limit)
            if design is None:
                raise TypeError("fit_binary: form or max_complexity 'auto' needs a design")
            choice, used, rng = _choose_view(view, design, finer, y, rng, ckw)
            if choice.stopped == "interrupted" or run.interrupted:
                res = constant_result(y, sample_weight, "interrupted")
                return BinaryFit(res, choice, res.form, 0, view)
            form, C = choice.form, choice.max_complexity
            if used is not view:       # the finer view: its own pairs
                y, kw = finer[1], dict(kw, sample_weight=finer[2])
        if C == 0:                     # validation preferred the constant prediction
            res = empty_result(y, sample_weight, form)
        elif choice is not None and choice.result is not None:
            res = choice.result        # fits every row already: nothing to improve
        else:
            res = _final_fit(used, y, form, C, settings, choice, rng, verbose, kw)
    if choice is not None and choice.stopped and res.status != "interrupted":
        # the time limit cut the choice short: the model depends on the clock
        res = dataclasses.replace(res, status="time_limit",
                                  lower_bound=min(res.lower_bound, res.objective)
                                  if res.lower_bound is not None else None)
    return BinaryFit(res, choice, form, int(C), used)


def _final_fit(view, y, form, C, settings, choice, rng, verbose, kw):
    """The search on every row, started from the clauses the choice generated."""
    return search(view.B, y, form=form, max_complexity=C, settings=settings,
                  columns=() if choice is None else choice.columns,
                  fallback=() if choice is None else choice.fallback, time_limit=None,
                  verbose=verbose, metadata=view.meta, random_state=rng, **kw)


def _choose_view(view, design, finer, y, rng, ckw):
    """The choice over ``view``, or over ``finer`` when its validation error is lower.

    ``finer`` is validated in the form chosen over ``view`` only: which class
    an OR of ANDs describes better is a matter of the classes, not of where
    the thresholds lie, and the finer view's paths are the dearer ones
    (twice the conditions).

    Returns ``(choice, view chosen, generator for the final fit)``.
    """
    if finer is not None:
        try:
            check_compatibility_memory(finer[0].B.shape[1])
        except ValueError:
            finer = None         # optional: the finer view's matrix would not fit in memory
    choice = choose_complexity(view.B, y, metadata=view.meta, random_state=rng, design=design,
                               **ckw)
    if finer is not None and choice.method == "cv" and not choice.stopped:
        fview, fy, fw, fdesign, rng_finer = finer
        other = choose_complexity(fview.B, fy, metadata=fview.meta, random_state=rng_finer,
                                  design=fdesign,
                                  **dict(ckw, forms=(choice.form,), sample_weight=fw))
        if (other.method in ("cv", "exact") and not other.stopped
                and _chosen_error(other) < _chosen_error(choice) - RATE_SLACK):
            return other, fview, rng_finer
    return choice, view, rng


def _chosen_error(choice):
    """Validation error of the candidate a choice picked."""
    return choice.errors[(choice.form, choice.max_complexity)]


class _FoldPath:
    """One form on one inner fold: a master LP kept as the budget grows.

    Trains on the pairs' weights less the fold's (``train``), predicts the
    pairs the fold tests (``test``: their indices).
    """

    def __init__(self, P, Y, train, test, form, p, run):
        self.P, self.Y, self.form, self.p = P, Y, form, p
        self.rows = np.flatnonzero(train > 0)
        self.w, self.test = train[self.rows], test
        problem = Problem.build(P[self.rows], Y[self.rows], self.w, form, p["metadata"],
                                p["lambda0"], p["lambda1"], p["settings"].record_duals)
        self.fixed = None if isinstance(problem, Problem) else problem
        self.cg = None
        if self.fixed is None:
            self.cg = ColumnGeneration(problem, 2, 1, p["lambda0"], p["lambda1"],
                                       p["settings"], p["rng"], run)
            self.seeded = False

    def predict(self, C):
        """Predictions for the tested pairs at budget ``C``, and how the fit stopped."""
        Pt = self.P[self.test]
        if C == 0:
            return empty_result(self.Y[self.rows], self.w, self.form).predict(Pt), "converged"
        if self.fixed is not None:
            return self.fixed.predict(Pt), "converged"
        self.cg.set_budget(C, literal_limit(self.p["max_literals"], C))
        if not self.seeded:
            self.cg.seed()
            self.seeded = True
        res = self.cg.result(self.cg.rounds())
        # time_limit also when the clock capped a step without stopping it
        return res.predict(Pt), res.status

    def columns(self):
        return () if self.cg is None else tuple(self.cg.clauses)


def _validate_path(P, Y, W, T, grid, forms, p, run, exact=True):
    """Validation along the budget path; the one-standard-error rule decides.

    ``loss[(form, C)]`` is the 0/1 loss of each (pair, fold) test entry,
    weighted by ``T``.  ``exact``: whether a budget with no validation error
    may end the path with the rule set fitted on ``P`` (every row, not a
    sample).
    """
    k = T.shape[1]
    paths = {f: [_FoldPath(P, Y, W - T[:, j], np.flatnonzero(T[:, j] > 0), f, p, run)
                 for j in range(k)] for f in forms}

    def held_out_loss(form, C):
        """``(L, stop)``: the 0/1 loss of each (pair, fold) entry at budget ``C``."""
        L = np.zeros_like(T)
        for j, path in enumerate(paths[form]):
            # a Ctrl-C or deadline that ended the last fit early (it may
            # still have settled its own status) stops the whole path
            stop = run.limit_reached()
            if stop is None:
                pred, stop = path.predict(C)
            if stop in ("interrupted", "time_limit"):
                return None, stop
            L[path.test, j] = pred != Y[path.test]
        return L, None

    loss, best, since = {}, {f: np.inf for f in forms}, {f: 0 for f in forms}
    active, stopped = list(forms), None
    for C in grid:
        for form in list(active):
            L, stopped = held_out_loss(form, C)
            if stopped:
                break
            loss[(form, C)] = L.ravel()
            err = float((T * L).sum() / T.sum())
            if exact and err == 0 and C > 0 and p["lambda0"] == 0 and p["lambda1"] == 0:
                exact = _fit_all_rows(P, Y, W, form, C, paths[form], p)
                if exact is not None:
                    return exact
            if err < best[form] - RATE_SLACK:
                best[form], since[form] = err, 0
            else:
                since[form] += 1
                if since[form] >= p["patience"]:
                    active.remove(form)
        if stopped or not active:
            break
    # a path stopped by patience has still seen only small budgets; the
    # largest one is validated too (its master goes on from the clauses of
    # the path), so that a concept that needs many clauses is not lost to a
    # plateau of small budgets (monks-2: most folds saw no budget beat the
    # constant up to C = 6, and C = 64 has 12 % validation error).  The
    # one-standard-error rule keeps a smaller budget unless it is clearly worse.
    for form in forms if not stopped and grid[-1] > 0 else ():
        if (form, grid[-1]) not in loss:
            L, stopped = held_out_loss(form, grid[-1])
            if stopped:
                break
            loss[(form, grid[-1])] = L.ravel()
    if not loss:
        return BudgetChoice(forms[0], grid[0], "cv", {}, stopped=stopped)
    weights = T.ravel()
    form, C = _one_standard_error(loss, weights, forms)
    errors = {fc: float(weights @ L) / float(weights.sum()) for fc, L in loss.items()}
    columns = tuple(dict.fromkeys(c for path in paths[form] for c in path.columns()))
    return BudgetChoice(form, C, "cv", errors, columns, stopped)


def _fit_all_rows(P, Y, W, form, C, paths, p):
    """The exact choice: a rule set within ``C`` that fits every row, or None."""
    columns = tuple(dict.fromkeys(c for path in paths for c in path.columns()))
    res = search(P, Y, form=form, max_complexity=C, max_literals=p["max_literals"],
                 sample_weight=W, metadata=p["metadata"], columns=columns,
                 settings=p["settings"], time_limit=None, random_state=p["rng"])
    if np.any((res.predict(P) != Y) & (W > 0)):
        return None
    return BudgetChoice(form, C, "exact", {(form, C): 0.0}, columns, result=res)


def _one_standard_error(loss, w, forms):
    """Smallest budget whose error exceeds the best one's by at most one standard error.

    The standard error is that of the row-by-row difference from the best
    candidate: both are measured on the same held-out rows, and the binomial
    error of each rate alone ignores that (far too wide when two models
    disagree on few rows).  ``w`` weighs the test entries; weights count as
    frequencies (a row of weight 2 is two rows), as scikit-learn's
    ``sample_weight`` does.  Ties: the lower error, then the earlier form.
    """
    wsum = float(w.sum())
    n_eff = wsum
    rank = {f: i for i, f in enumerate(forms)}
    errors = {fc: float(w @ rows) / wsum for fc, rows in loss.items()}
    best = min(loss, key=lambda fc: (errors[fc], fc[1], rank[fc[0]]))

    def within(fc):
        diff = loss[fc] - loss[best]
        mean = float(w @ diff) / wsum
        se = float(np.sqrt(max(w @ (diff - mean) ** 2 / wsum, 0.0) / n_eff))
        return mean <= se + RATE_SLACK

    return min((fc for fc in loss if within(fc)), key=lambda fc: (fc[1], errors[fc], rank[fc[0]]))


def _probe_forms(B, y, w, C, forms, p):
    """A fixed number of rounds of each form; the lower restricted master LP value wins.

    The probe runs on a stratified sample of ``cv_max_rows`` rows: on the
    full rows a CNF probe can take minutes (bank marketing: 79 s for 8
    rounds, its pricing works on the 88 % negative rows), more than the
    default time limit leaves, and a probe cut by the clock would let the
    clock choose the form.  The sample's clauses warm-start the final fit.
    """
    total = float(w.sum())
    values, columns, chosen = {}, {}, {}
    settings = p["settings"].replace(
        max_rounds=PROBE_ROUNDS, restricted_mip=False,
        enum_work_limit=max(p["settings"].enum_work_limit, PROBE_ENUM_WORK))
    for form in forms:
        res = search(B, y, form=form, max_complexity=C, max_literals=p["max_literals"],
                     lambda0=p["lambda0"], lambda1=p["lambda1"], sample_weight=w,
                     metadata=p["metadata"], settings=settings, time_limit=None,
                     random_state=p["rng"])
        if res.status in ("interrupted", "time_limit"):
            # the best of the forms probed to the end, else the one cut short
            best = min(values, key=values.get)[0] if values else form
            return BudgetChoice(best, C, "probe", values, columns.get(best, res.columns),
                                stopped=res.status, fallback=chosen.get(best, res.clauses))
        lp = res.lp_value if res.lp_value is not None else res.objective
        values[(form, C)] = float(lp) / total
        columns[form], chosen[form] = res.columns, res.clauses
    form = min(forms, key=lambda f: values[(f, C)])
    return BudgetChoice(form, C, "probe", values, columns[form], fallback=chosen[form])
