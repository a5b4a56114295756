"""``BooleanRuleCGClassifier``: the scikit-learn estimator around :func:`rulekit.colgen.search`.

Dash, Günlük, Wei, "Boolean Decision Rules via Column Generation", NeurIPS
2018; multi-class problems are solved one class against the rest.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import replace
from typing import NamedTuple

import numpy as np
from sklearn.utils.class_weight import compute_class_weight

from .._anytime import current_run, stop_status, stopping
from .._params import AnyOf, Instance, Integer, Options, as_generator, pick
from .._fitdata import FitData, FitOutcome
from .._patterns import PackedBits
from .sources import Stacked
from .validation import binary_pairs, draw_design, pair_order, take_rows_in_place
from ..base import RuleClassifierBase
from ..binarize import ESTIMATOR_PARAMETERS, Binarizer
from ..models import OneVsRestRuleSets, RuleSet
from ..stream import classes_of, fit_binarizer
from ..colgen._enum import check_compatibility_memory
from ..colgen._metadata import ConditionMetadata, condition_metadata
from ..colgen._result import estimator_certificate
from ..colgen._search import SEARCH_PARAMETERS
from ..colgen._search import constant_result
from ..colgen._select import (CV_MAX_ROWS, DEFAULT_GRID, INNER_FOLDS, BinaryFit, check_grid,
                              fit_binary)
from .._tolerances import MIN_TIME_SHARE, WRAP_UP_SECONDS_PER_ROW

log = logging.getLogger("rulekit.colgen")

__all__ = ["BooleanRuleCGClassifier"]

#: ``n_thresholds="auto"``: the deciles, and the finer resolution validation may
#: prefer (every twentieth quantile: the deciles are among them)
RESOLUTIONS = (9, 19)


class _View(NamedTuple):
    """Conditions a search runs over: their binarizer, matrix and column metadata."""

    binarizer: Binarizer
    B: np.ndarray
    meta: ConditionMetadata


def _view(binarizer, B):
    return _View(binarizer, B, condition_metadata(binarizer.conditions_))


def _validates(params) -> bool:
    """Does the fit choose its form or budget by validation (either ``"auto"``)?"""
    return params["form"] == "auto" or params["max_complexity"] == "auto"


def _tries_finer(params, n_classes: int, n_rows: int) -> bool:
    """Does validation try the finer resolution (``n_thresholds="auto"``)?

    Only where it validates anyway: a two-class problem of at most
    :data:`CV_MAX_ROWS` rows with the form or the budget ``"auto"``.
    """
    return (params["n_thresholds"] == "auto" and n_classes == 2
            and _validates(params) and n_rows <= CV_MAX_ROWS)


class _Grid(Instance):
    """A complexity grid: a non-empty sequence of budgets, each 0 or an integer >= 2."""

    def __init__(self):
        super().__init__((tuple, list), "a tuple of budgets, each 0 or an integer >= 2")

    def value_ok(self, value) -> bool:
        try:
            check_grid(value)
        except ValueError:
            return False
        return True


class BooleanRuleCGClassifier(RuleClassifierBase):
    """Boolean rule set (DNF or CNF) learned by column generation.

    Dash, Günlük and Wei (NeurIPS 2018): a master LP over clauses, priced by a
    beam heuristic, an exact branch-and-bound and a pricing IP (HiGHS, or
    CBC), then a restricted master IP picks the rule set that minimises the
    Hamming loss within the complexity budget.

    Parameters
    ----------
    form : {"auto", "dnf", "cnf"}, default="auto"
        ``"dnf"``: predict the positive class if ANY clause (an AND of
        conditions) holds.  ``"cnf"``: predict it if EVERY clause (an OR of
        conditions) holds, which is the same as a DNF describing the other
        class.  ``"auto"`` chooses between the two on the training data, in
        the same way as ``max_complexity="auto"`` (below).  Which class is
        easier to describe by an OR of ANDs matters a lot on some data: on
        magic the CNF is 3 points more accurate than the DNF.
    max_complexity : int >= 2 or "auto", default="auto"
        Budget on ``#clauses + #literals``.  ``"auto"`` chooses it from
        ``complexity_grid`` (:func:`rulekit.colgen.choose_complexity`):

        * up to 5000 training rows: 3-fold validation along a path of growing
          budgets -- per form and fold one master LP whose clauses carry over
          from one budget to the next -- stopped once the validation error
          has not improved for 3 budgets (the largest budget is then
          validated too); then the one-standard-error rule
          (the smallest budget whose validation error exceeds the best
          one's by at most the standard error of their row-by-row
          difference).  Budget 0 is the empty rule set, the constant
          prediction, so rules are kept only when they beat it.  On
          noise-free data the path ends at the first budget that fits every
          held-out row and, on all rows, every training row; that rule set
          is the model (tic-tac-toe's exact 8-clause DNF).  With more
          than 1000 distinct rows the validation runs on a stratified
          sample of 1000 rows (its work would otherwise grow faster than the
          rows: over 100 CPU s on 5000 rows), and the chosen budget is then
          fitted on every row;
        * more rows: the largest budget (64), since large data sets barely
          overfit at these sizes; with ``form="auto"`` a short run of each
          form (8 rounds) picks the one with the lower training objective.

        The folds are drawn on the estimator side (:mod:`rulekit.estimators.validation`):
        in memory, each distinct (binarized row, class) pair's weight is cut
        into units that are shuffled per class with ``random_state`` and dealt
        to the folds (stratified; a row of weight 2 and the same row twice
        are the same data); fitted from a source (files, chunks, counts or
        a dask frame), the 5 hash folds of the counts are the folds (5-fold
        validation), and the fold table is each pair's weight in each fold,
        whatever the order or chunking of the rows (``docs/streaming.md``).
        Every search -- the validation paths, the
        probe and the final fit -- runs on the distinct pairs, each weighted
        by its rows' summed weight.

        The fits made while choosing are bounded by rounds, enumeration
        steps and solver nodes, not by time, so the choice depends only on
        the data and ``random_state``.  The clauses they generate are the
        warm start of the final fit.
    max_literals : int >= 1 or None
        Literals per clause; None means ``max_complexity - 1``.
    lambda0, lambda1 : float >= 0
        Penalty per clause / per literal in loss units (samples).
    class_weight : None, "balanced" or dict
        Misclassification cost per class (multiplies ``sample_weight``);
        ``"balanced"`` is ``n_samples / (n_classes * count of the class)``.
    complexity_grid : tuple of int
        Candidates for ``max_complexity="auto"``; each 0 (no clauses) or >= 2.
    settings : ColGenSettings or None
        Solvers, pricing strategy and work limits of the final fit (the
        choice uses the same solvers with smaller limits).
    n_thresholds : int >= 1 or "auto", default="auto"
        Quantile thresholds per numeric column for the shared Binarizer.
        ``"auto"`` uses 9 (the deciles), and lets validation try 19 (every
        twentieth quantile, the deciles among them) where it runs anyway:
        when the form or the budget is ``"auto"`` on a two-class problem
        of at most 5000 rows.  The finer conditions are validated in the
        form chosen over the deciles, and kept when the rule set they give
        has the lower validation error (ties keep the deciles).  Fine
        thresholds matter on data with many continuous columns
        (ionosphere, 10-fold CV: 85.5 % with deciles only, over 90 % with
        the choice).
    categorical_features : list or None
        Columns to treat as categorical.
    min_frequency, max_categories, handle_unknown, thresholds
        Binarization: the support floor, the infrequent-category group,
        categories unseen at fit time, and where thresholds come from (see
        :class:`rulekit.Binarizer`).
    time_limit : float or None, default=120
        Seconds for the whole fit (binarization, choice and final fit;
        shared between the classes of a multi-class problem).  A safety net:
        the fit normally ends by its work limits first; when the limit
        fires, the best rule set found is returned, the certificate says
        ``time_limit`` and a ``ConvergenceWarning`` is raised.
    random_state : int, Generator, RandomState, SeedSequence or None, default=0
        Seeds the inner folds and the sampled pricing on large data.
    verbose : int
        ``>= 1``: a progress bar on stderr.
    callback : callable or None, default=None
        ``callback(state) -> bool``, called with each search's progress (a
        :class:`rulekit._anytime.SearchState`: rounds, best objective, the
        master LP's lower bound) about four times a second; True stops the
        fit as Ctrl-C would (status ``"interrupted"``, one
        ``ConvergenceWarning``).  The validation of ``form="auto"`` or
        ``max_complexity="auto"`` runs searches too, and a stop during it
        leaves the majority-class model.  See :mod:`rulekit.callbacks`.

    Attributes
    ----------
    model_ : RuleSet or OneVsRestRuleSets
        The rule set; multi-class problems get one rule set per class
        (one-vs-rest), printed as the decision list ``predict`` follows
        (:meth:`OneVsRestRuleSets.steps`).
    complexity_ : int
    certificate_ : Certificate
        Status, objective and lower bound as rates (mistakes per row, or
        weighted mistakes per unit of weight; added over the classes'
        problems for multi-class, ``certificate_.n`` the count they are
        rates of), gap, and the scope: the form, the complexity budget and
        how they were chosen.
    trace_ :
        Column-generation rounds (:class:`rulekit.colgen.IterationRecord`);
        a list with one entry per class for multi-class problems.
    max_complexity_ : int or list of int
        The budget used (the chosen one with ``"auto"``).
    n_thresholds_ : int
        Thresholds per numeric column of ``binarizer_`` (the chosen
        resolution with ``n_thresholds="auto"``).
    form_ : str or list of str
        The form used (the chosen one with ``form="auto"``).
    choice_ : BudgetChoice, list, or None
        How ``"auto"`` chose (method and validation errors); None when
        neither ``form`` nor ``max_complexity`` is ``"auto"``.
    result_ : ColGenResult or list of ColGenResult

    Notes
    -----
    ``predict_proba`` returns, for rows where the rule set holds, the
    training positive rate among training rows where it holds, and for the
    other rows the positive rate among training rows where it does not hold
    (weighted by ``sample_weight`` times ``class_weight``, the same costs the
    engine minimises; 1 and 0 when a side has no weight).  For multi-class
    problems each member's rates are shrunk toward its overall positive
    rate by one unit of weight (an m-estimate), so that a small
    pure region of a down-weighted class does not outvote a heavy class.
    These are the class *scores*: ``predict`` gives the class with the
    highest score (the earlier class on ties), which the model prints as
    a decision list ("if class a's rule set holds, a; else if class b's
    holds, b; ... else c") with the scores beside it, and
    ``predict_proba`` divides each score by their sum.

    Ctrl-C stops the fit promptly and keeps the best rule set found, with
    status ``"interrupted"``.  If it comes while ``"auto"`` is still
    choosing, no rule set has been fitted on all rows yet: the model is the
    constant majority prediction, with status ``"interrupted"`` (classes
    not yet fitted in one-vs-rest get the same).
    """

    _rulekit_parameters = {
        "form": Options("auto", "dnf", "cnf"),
        "max_complexity": AnyOf(Integer(2), Options("auto")),
        **pick(SEARCH_PARAMETERS, "max_literals", "lambda0", "lambda1", "settings",
               "time_limit", "random_state", "verbose", "callback"),
        "class_weight": AnyOf(Options("balanced"), Instance((dict,), "a dict class -> weight"),
                              allow_none=True),
        "complexity_grid": _Grid(),
        **pick(Binarizer._rulekit_parameters, *ESTIMATOR_PARAMETERS),
        "n_thresholds": AnyOf(Integer(1), Options("auto")),
    }
    _learner = "colgen"
    _multiclass = True
    _mines = False
    _negations = True
    _per_class_mining = False
    # every search folds its binary problem's rows into distinct weighted pairs itself
    # (binary_pairs), so counted rows from files, chunks or dask serve it as well
    _fits_sources = True
    _cost_after_counting = 4.0      # no mining: the pairs are folded per binary problem
    # the search packs its distinct rows itself and reads the rest a block at a time:
    # counted rows stay packed (1.5 GB fewer at fifty million adult-like rows)
    _packed_counts = True

    def __init__(self, form="auto", max_complexity="auto", max_literals=None, lambda0=0.0,
                 lambda1=0.0, class_weight=None, complexity_grid=DEFAULT_GRID, settings=None,
                 n_thresholds="auto", categorical_features=None, min_frequency=0.01,
                 max_categories=None, handle_unknown="warn", thresholds="quantile",
                 time_limit=120.0, random_state=0, verbose=0, callback=None):
        self.form = form
        self.max_complexity = max_complexity
        self.max_literals = max_literals
        self.lambda0 = lambda0
        self.lambda1 = lambda1
        self.class_weight = class_weight
        self.complexity_grid = complexity_grid
        self.settings = settings
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.thresholds = thresholds
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y=None, sample_weight=None):
        """Fit the rule set.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features), or a source
            The rows; or data read without holding them: a
            :class:`rulekit.stream.Files` or :class:`rulekit.stream.Chunks`
            (naming its label column; ``y=None``), a dask DataFrame (with a
            dask Series ``y``) or :class:`rulekit.stream.Counts`
            (``docs/streaming.md``, "Column generation from a source").
        y : array-like of shape (n_samples,), dask Series or None
        sample_weight : array-like of shape (n_samples,), optional
            Misclassification cost of each sample (rows in memory only).

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    # -- the fit's hooks (rulekit.base): functions of their arguments -----------------
    def _binarizer(self, params, n_rows):
        if params["n_thresholds"] == "auto":
            params = {**params, "n_thresholds": RESOLUTIONS[0]}
        return super()._binarizer(params, n_rows)

    def _views(self, X, data, inputs) -> dict:
        """The :class:`_View` at the finer resolution, when validation should try it."""
        params = data.params
        # the condition x condition matrix of the search, refused before any more work
        # (the finer binarization included) when it cannot fit
        check_compatibility_memory(data.B.shape[1])
        if X is None:
            # counted from a source: the finer view was counted with the rows
            # (_counted_binarizer, _from_counts), or not at all
            return {"finer": data.views.get("finer"),
                    "fold_counts": data.views.get("fold_counts")}
        if not _tries_finer(params, data.n_classes, data.n_rows):
            return {"finer": None}
        fine = self._binarizer({**params, "n_thresholds": RESOLUTIONS[1]}, data.n_rows)
        B = fine.fit_transform(X, data.y, sample_weight=data.sample_weight)
        if fine.conditions_ == data.binarizer.conditions_ or stopping():
            return {"finer": None}   # no numeric column has more than 10 distinct values
        return {"finer": _view(fine, B)}

    def _counted_binarizer(self, params, summary, template):
        """Both resolutions from one summary, counted side by side, when validation tries both.

        The finer conditions need not hold the deciles' (a quantile of a few
        distinct values may fall between them), so both are counted: the
        distinct rows of each are a projection of the stacked rows.
        """
        coarse = fit_binarizer(summary, template)
        if not _tries_finer(params, len(classes_of(summary)), summary.n_rows):
            return coarse
        fine = fit_binarizer(summary, self._binarizer({**params, "n_thresholds": RESOLUTIONS[1]},
                                                      summary.n_rows))
        if fine.conditions_ == coarse.conditions_ or stopping():
            return coarse
        return Stacked(coarse, fine)

    def _from_counts(self, counts, params, splits, owned=False) -> FitData:
        folds = None
        if splits is not None and np.array_equal(splits, np.eye(counts.n_folds, dtype=bool)):
            # each split holds one hash fold out (_fold_splits): each counted row keeps its
            # counts per fold in a table beside it (_solve), rather than being cut into a
            # row per fold, which on 10 million rows made 5.7 million rows of conditions
            # out of 3.7 million patterns, and each binary problem folded them back
            folds, splits = _narrow_counts(counts.fold_counts), None
        data = super()._from_counts(counts, params, splits, owned)
        stacked = counts.binarizer
        if isinstance(stacked, Stacked):
            owned = True                    # the blocks are copies
            coarse, fine = stacked.parts[:2]
            # rows stay those of the stacked patterns: the deciles' matrix may repeat a row
            # that the finer one splits, and each binary problem folds its pairs again
            data = replace(data, binarizer=coarse, B=stacked.block(data.B, 0),
                           views={"finer": _view(fine, stacked.block(data.B, 1))})
        return data if folds is None else _in_pair_order(data, folds, owned)

    def _may_validate(self, params):
        return _validates(params)

    def _fold_splits(self, n_folds, n_rows, class_totals, params):
        # counted data validate on the hash folds, one held out per split: the fold table
        # of the counts is then the validation's (_from_counts, _solve)
        return np.eye(n_folds, dtype=bool)

    def _solve(self, data: FitData) -> FitOutcome:
        params, classes, y = data.params, data.classes, data.y
        # data.weight: the user's weights in memory, the rows' counts from a source
        weights = _weights(y, data.weight, params["class_weight"], classes, data.count)
        rng = as_generator(params["random_state"])
        targets = [1] if len(classes) == 2 else list(range(len(classes)))
        finer = data.views.get("finer")
        binarizer, B = data.binarizer, data.B
        # every search runs on the distinct (binarized row, class) pairs of its
        # binary problem, each weighted by the summed weight of its rows; the
        # validation design is drawn here, on the estimator side
        # (rulekit.estimators.validation), and only read by the engine.  Counted
        # from a source, each split holds one hash fold out (_fold_splits): the
        # folds are the counts' table of each row's count per fold, not drawn
        # (or, for counts of other folds than the splits', a one-hot FitData.tested)
        folds = data.views.get("fold_counts")
        if folds is None and data.tested is not None:
            folds = np.argmax(data.tested, axis=1)
        # the cost of one counted row (the class weight): what the fold counts are weighed by
        # (None: one, as binary_pairs reads it, rather than a column of ones held
        # through the fit)
        unit = (weights if folds is None or folds.ndim == 1 else
                None if params["class_weight"] is None else
                _weights(y, np.ones(data.n_rows), params["class_weight"], classes, data.count))
        fits = []
        for i, k in enumerate(targets):
            yk = (y == k).astype(np.int8)      # 1 byte a row, held through the fit
            fit = self._fit_class(data, yk, unit, folds, params, rng, len(targets) - i, finer)
            fits.append(fit)
            if finer is not None and fit.view.binarizer is finer.binarizer:
                binarizer, B = finer.binarizer, finer.B    # two-class problems only: one fit
            if params["verbose"]:
                log.info("class %r: %s, C=%d, %s", classes[k], fit.form,
                         fit.max_complexity, fit.result.certificate.summary())
        members = [_rule_set(f.result, B, (y == k).astype(np.int64), k, weights, classes,
                             binarizer, smooth=len(targets) > 1, count=data.count)
                   for f, k in zip(fits, targets)]
        results = [f.result for f in fits]
        if len(targets) == 1:
            fitted = {"result_": results[0], "trace_": results[0].trace,
                      "choice_": fits[0].choice, "form_": fits[0].form,
                      "max_complexity_": fits[0].max_complexity}
            model = members[0]
        else:
            choices = [f.choice for f in fits]
            fitted = {"result_": results, "trace_": [r.trace for r in results],
                      "choice_": None if all(c is None for c in choices) else choices,
                      "form_": [f.form for f in fits],
                      "max_complexity_": [f.max_complexity for f in fits]}
            model = OneVsRestRuleSets(members, binarizer.conditions_, list(classes))
        fitted.update(complexity_=int(model.complexity), n_thresholds_=binarizer.n_thresholds)
        # counts alone are rows, as in memory without weights
        rows = data.sample_weight is None and params["class_weight"] is None
        certificate = estimator_certificate(
            fits, None if len(targets) == 1 else [classes[k] for k in targets],
            n=data.n_samples if rows else float(np.sum(weights)),
            unit="rows" if rows else "units of weight",
            n_conditions=len(binarizer.conditions_), lambda0=params["lambda0"],
            lambda1=params["lambda1"],
            folds=(INNER_FOLDS if folds is None else
                   folds.shape[1] if folds.ndim == 2 else data.tested.shape[1]),
            hash_folds=data.views.get("folds") == "hash")
        return FitOutcome(model, certificate, binarizer, fitted)

    def _fit_class(self, data, yk, w, folds, params, rng, classes_left, finer=None):
        """Fit one binary problem in its share of the time left (:func:`fit_binary`).

        The problem is handed over as its distinct ``(row, label)`` pairs
        (:func:`rulekit.estimators.validation.binary_pairs`), with the validation design
        drawn from ``rng`` when the form or the budget is ``"auto"``; the
        finer view's design is drawn from a copy of ``rng`` taken first, so
        both views are validated on folds drawn from the same state.
        ``folds``: counted rows' counts per hash fold (a table; ``w`` is then
        the cost of one counted row), each row's fold (a column) or None.
        """
        stop = stop_status()
        if stop is not None:
            # out of time (or interrupted) before this problem's pairs are even folded:
            # on millions of rows that alone would overrun the limit; the constant rule set
            # the weighted majority: a counted row weighs its count times its cost
            rows_w = (w if folds is None or folds.ndim == 1 else
                      folds.sum(axis=1) * (1.0 if w is None else w))
            res = constant_result(yk, rows_w, stop)
            return BinaryFit(res, None, res.form, 0, _view(data.binarizer, data.B))
        pairs = _pairs(data.B, yk, w, folds, data.weight)
        view = _view(data.binarizer, pairs.B)
        design, fine = None, None
        if _validates(params):
            grid = (params["complexity_grid"] if params["max_complexity"] == "auto"
                    else (params["max_complexity"],))
            forms = ("dnf", "cnf") if params["form"] == "auto" else (params["form"],)
            rng_finer = copy.deepcopy(rng) if finer is not None else None
            design = draw_design(pairs, rng, forms=forms, grid=grid)
            if finer is not None:
                fpairs = _pairs(finer.B, yk, w, folds, data.weight)
                # validated in one form (the one chosen over the first view)
                fdesign = draw_design(fpairs, rng_finer, forms=forms[:1], grid=grid)
                fine = (_View(finer.binarizer, fpairs.B, finer.meta), fpairs.y, fpairs.w,
                        fdesign, rng_finer)
        y, w = pairs.y, pairs.w
        # the pairs' fold tables served the design: not held through the search
        del pairs
        # the share is taken now, after the pairs and the design (seconds on millions of
        # rows), and what comes after the searches -- each class's rule set read over the
        # rows for its counts -- is kept out of it, so that the fit ends by its limit
        outer = current_run()
        left = None if outer is None else outer.time_left()
        after = WRAP_UP_SECONDS_PER_ROW * data.B.shape[0] * classes_left
        share = None if left is None else max((left - after) / classes_left, MIN_TIME_SHARE)
        return fit_binary(view, y, w, form=params["form"],
                          max_complexity=params["max_complexity"],
                          max_literals=params["max_literals"], lambda0=params["lambda0"],
                          lambda1=params["lambda1"], settings=params["settings"],
                          complexity_grid=params["complexity_grid"], random_state=rng,
                          time_limit=share, verbose=params["verbose"], design=design,
                          finer=fine)


def _pairs(B, yk, w, folds, weight):
    """The binary problem's distinct pairs (:func:`binary_pairs`): from rows with their
    counts per fold (``folds`` a table, ``w`` the cost of one row), rows each in one fold
    (``folds`` a column, ``w`` their weights) or rows with their weights (no folds)."""
    if folds is not None and folds.ndim == 2:
        return binary_pairs(B, yk, w, fold_counts=folds)
    # the rows each pair stands for (class_weight scales costs, not rows)
    freq = np.ones(len(yk)) if weight is None else weight
    return binary_pairs(B, yk, w, folds, freq)


def _narrow_counts(table):
    """A table of counts as int32 when they fit (held through the fit: 71 MB instead of
    142 at ten million rows); every product and sum read from it is the same."""
    table = np.asarray(table)
    if table.size and table.dtype != np.int32 and 0 <= table.min() and (
            table.max() <= np.iinfo(np.int32).max):
        return table.astype(np.int32)
    return table


def _in_pair_order(data: FitData, folds, owned=False) -> FitData:
    """Counted data with their fold table as a view, rows in the order of their pairs.

    A two-class problem's pairs are its counted rows, which :func:`binary_pairs`
    sorts by their bits: held in that order already, the pairs' matrix is the
    data's own rather than a second copy of every pattern.  ``owned``: the
    matrix is this fit's own, and is reordered in place (no second copy even
    for a moment).
    """
    if data.n_classes == 2:
        order = pair_order(data.B, data.y == 1)
        if not np.array_equal(order, np.arange(order.size)):
            views = dict(data.views)
            if views.get("finer") is not None:
                f = views["finer"]
                views["finer"] = f._replace(B=_rows(f.B, order))
            B = data.B
            held = B.packed if isinstance(B, PackedBits) else B
            if owned and held.flags.c_contiguous and held.flags.writeable:
                take_rows_in_place(held, order)
            else:
                B = _rows(B, order)
            data = replace(data, B=B, y=data.y[order],
                           count=None if data.count is None else data.count[order],
                           sample_weight=(None if data.sample_weight is None
                                          else data.sample_weight[order]),
                           views=views)
            folds = folds[order]
    return replace(data, views={**data.views, "fold_counts": folds})


def _rows(B, order):
    """Rows ``order`` of a condition matrix, in its own form (packed stays packed)."""
    return B.take(order) if isinstance(B, PackedBits) else np.ascontiguousarray(B[order])


def _weights(y, sample_weight, class_weight, classes, count=None):
    """Per-sample cost: ``sample_weight`` times the class weight (None: all 1).

    ``count``: how many rows each row stands for (counted data), so that
    ``"balanced"`` divides by the classes' row counts, as on the rows.
    """
    if class_weight is None:
        return sample_weight
    w = np.ones(y.shape[0]) if sample_weight is None else sample_weight
    if class_weight == "balanced":
        if count is None:
            factors = compute_class_weight("balanced", classes=np.arange(len(classes)), y=y)
        else:
            # compute_class_weight's formula, on the classes' row counts
            rows = np.bincount(y, weights=count, minlength=len(classes))
            factors = rows.sum() / (len(classes) * rows)
    else:
        factors = np.array([float(class_weight.get(c, 1.0)) for c in classes])
        if np.any(factors < 0) or not np.all(np.isfinite(factors)):
            raise ValueError("class_weight values must be finite and non-negative")
    return w * factors[y]


def _rule_set(res, B, yk, k, sample_weight, classes_, binarizer, *, smooth, count=None):
    """RuleSet for one binary problem, with (weighted) training positive rates.

    ``count``: how many training rows each row of ``B`` stands for (None: one).
    """
    conditions = binarizer.conditions_
    holds = res.predict(B).astype(bool)
    clauses = list(res.clauses)
    if res.constant is not None:
        # single-class target: the trivial rule set; "always true" as a DNF
        # is written as the empty CNF
        form = "cnf" if res.constant == 1 else "dnf"
        clauses = []
    else:
        form = res.form
    rows = np.ones(yk.shape[0], dtype=np.int64) if count is None else np.asarray(count)
    n_t, n_f = int(rows[holds].sum()), int(rows[~holds].sum())
    pos_t, pos_f = int((rows * yk)[holds].sum()), int((rows * yk)[~holds].sum())
    sw = np.ones(yk.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    # an m-estimate for one-vs-rest members: one unit of weight at the
    # member's overall positive rate (none for a binary problem)
    m = 1.0 if smooth else 0.0
    prior = float((sw * yk).sum() / sw.sum()) if sw.sum() > 0 else 0.0

    def rate(side, empty):
        total = sw[side].sum() + m
        return float(((sw * yk)[side].sum() + m * prior) / total) if total > 0 else empty

    p_t, p_f = rate(holds, 1.0), rate(~holds, 0.0)
    if len(classes_) == 2:
        classes = list(classes_)
    else:
        label = classes_[k]
        classes = [f"not {label}", label]
    return RuleSet(clauses, form, conditions, classes, proba_true=p_t, proba_false=p_f,
                   counts_true=(n_t - pos_t, pos_t), counts_false=(n_f - pos_f, pos_f))
