"""``BooleanRuleCGClassifier``: the sklearn wrapper around :func:`rulekit.colgen.solve`."""

from __future__ import annotations

import dataclasses
import logging
import time
import warnings

import numpy as np

from .._params import AnyOf, Instance, Integer, NoValidation, Options, Real, pick
from ..base import COMMON_PARAMETERS, RuleClassifierBase
from ..binarize import Binarizer, ESTIMATOR_PARAMETERS
from ..certificate import Certificate
from ..models import OneVsRestRuleSets, RuleSet
from ._metadata import condition_metadata
from ._result import empty_result
from ._select import DEFAULT_GRID, check_grid, choose_complexity
from ._solve import solve

log = logging.getLogger("rulekit.colgen")

__all__ = ["BooleanRuleCGClassifier"]


def _constant(y, w):
    """The empty rule set predicting the (weighted) majority, marked interrupted."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    form = "dnf" if w[y == 1].sum() <= w[y == 0].sum() else "cnf"
    return dataclasses.replace(empty_result(y, w, form), status="interrupted",
                               lower_bound=None, gap=None)


class BooleanRuleCGClassifier(RuleClassifierBase):
    """Boolean rule set (DNF or CNF) learned by column generation.

    Dash, Günlük and Wei (NeurIPS 2018): a master LP over clauses, priced by a
    beam heuristic, an exact branch-and-bound and a pricing IP (PuLP with
    HiGHS/CBC), then a restricted master IP picks the rule set that minimises
    the Hamming loss within the complexity budget.

    Parameters
    ----------
    form : {"dnf", "cnf", "auto"}, default="dnf"
        ``"dnf"``: predict the positive class if ANY clause (an AND of
        conditions) holds.  ``"cnf"``: predict it if EVERY clause (an OR of
        conditions) holds, which is the same as a DNF describing the other
        class.  ``"auto"`` chooses between the two on the training data, in
        the same way as ``max_complexity="auto"`` (below).  Which class is
        easier to describe by an OR of ANDs matters a lot on some data: on
        magic the CNF is 3 points more accurate than the DNF.
    max_complexity : int >= 2 or "auto", default="auto"
        Budget on ``#clauses + #literals``.  ``"auto"`` chooses it from
        ``complexity_grid`` (default 0, 3, 4, 6, 8, 12, 16, 24, 32, 64;
        0 is the rule set with no clauses, the constant prediction),
        spending a third of ``time_limit`` on the choice:

        * up to 5000 training rows, noise-free: when some rule set within the
          largest budget makes no training error, the smallest budget of the
          grid at which one does (found from the top down) is used, provided
          that budget also makes no error on the held-out rows of a 3-fold
          validation; the rule set found on all rows is the model (no second
          fit).  This is how tic-tac-toe gets its exact 8-clause DNF in seconds;
        * up to 5000 training rows otherwise: 3-fold cross-validation over every
          (form, budget) pair, then the one-standard-error rule (the smallest
          budget whose validation error exceeds the best one's by at most
          the standard error of their row-by-row difference); inner fits are
          capped at 30 rounds, 2 s per pricing IP and 0.3 s for the final IP.
          When no rule set beats the constant prediction by more than that, the
          empty rule set is the answer (complexity 0: "no rule is worth adding");
        * more rows: the largest budget (64), since large data sets barely
          overfit at these sizes; with ``form="auto"`` a short run of each
          form (8 rounds) picks the one with the lower training objective.

        This is the default because no single budget suits every data set:
        pima is best described by one 2-literal clause, tic-tac-toe needs 32
        for its exact 8-clause rule and magic keeps improving up to 64 (see
        benchmarks/RESULTS_colgen.md).  The paper also chose ``C`` by
        cross-validation.
    max_literals : int >= 1 or None
        Literals per clause; None means ``max_complexity - 1``.
    lambda0, lambda1 : float >= 0
        Penalty per clause / per literal in loss units (samples).
    class_weight : None, "balanced" or dict
        Misclassification cost per class (multiplies ``sample_weight``).
    pricing : {"auto", "beam", "ip"}
    time_limit : float
        Seconds for the whole fit (shared between classes for multi-class).
    pricing_time_limit : float
        Seconds per pricing IP.
    lp_solver, pricing_solver, mip_solver : {"highs", "cbc"}
    complexity_grid : tuple of int
        Candidates for ``max_complexity="auto"``; each 0 (no clauses) or >= 2.
    n_thresholds : int
        Quantile thresholds per numeric column for the shared Binarizer.
    categorical_features : list or None
        Columns to treat as categorical.
    min_frequency, max_categories, handle_unknown, thresholds
        Binarization: the support floor, the infrequent-category group,
        categories unseen at fit time, and where thresholds come from (see
        :class:`rulekit.Binarizer`).
    random_state : int
    verbose : bool

    Attributes
    ----------
    model_ : RuleSet or OneVsRestRuleSets
        The rule set; multi-class problems get one rule set per class
        (one-vs-rest), each printed.
    complexity_ : int
    certificate_ : Certificate
        Status, objective (weighted Hamming loss, summed over the classes'
        problems for multi-class), lower bound, gap and scope.
    trace_ :
        Column-generation rounds (:class:`rulekit.colgen.IterationRecord`);
        a list with one entry per class for multi-class problems.
    max_complexity_ : int or list of int
        The budget used (the chosen one with ``"auto"``).
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
    engine minimises; 1 and 0 when a side has no weight).  Multi-class
    probabilities normalise the members' positive probabilities.

    Ctrl-C during the final fit keeps the best rule set found so far (status
    ``"interrupted"``).  Ctrl-C while ``"auto"`` is still choosing stops the
    choice at once; no rule set has been fitted on all rows yet, so the model
    is the constant majority prediction, with status ``"interrupted"`` and a
    warning.  Classes not yet fitted (one-vs-rest) get the same.
    """

    _parameter_constraints = {
        "form": Options("dnf", "cnf", "auto"),
        "max_complexity": AnyOf(Integer(2), Options("auto")),
        "max_literals": Integer(1, allow_none=True),
        "lambda0": Real(0, None),
        "lambda1": Real(0, None),
        "class_weight": AnyOf(Options("balanced"), Instance((dict,), "a dict class -> weight"),
                              allow_none=True),
        "pricing": Options("auto", "beam", "ip"),
        "time_limit": Real(0, None, closed="neither"),
        "pricing_time_limit": Real(0, None, closed="neither"),
        "lp_solver": Options("highs", "cbc"),
        "pricing_solver": Options("highs", "cbc"),
        "mip_solver": Options("highs", "cbc"),
        # checked by check_grid (each value 0 or an integer >= 2)
        "complexity_grid": NoValidation(),
        **pick(Binarizer._parameter_constraints, *ESTIMATOR_PARAMETERS),
        "random_state": Integer(0, allow_none=True),
        **pick(COMMON_PARAMETERS, "verbose"),
    }
    _learner = "colgen"
    _multiclass = True
    _mines = False
    _negations = True
    _per_class_mining = False

    def __init__(self, form="dnf", max_complexity="auto", max_literals=None, lambda0=0.0,
                 lambda1=0.0, class_weight=None, pricing="auto", time_limit=120.0,
                 pricing_time_limit=30.0, lp_solver="highs", pricing_solver="highs",
                 mip_solver="cbc", complexity_grid=DEFAULT_GRID, n_thresholds=9,
                 categorical_features=None, min_frequency=0.01, max_categories=None,
                 handle_unknown="warn", thresholds="quantile", random_state=0, verbose=False):
        self.form = form
        self.max_complexity = max_complexity
        self.max_literals = max_literals
        self.lambda0 = lambda0
        self.lambda1 = lambda1
        self.class_weight = class_weight
        self.pricing = pricing
        self.time_limit = time_limit
        self.pricing_time_limit = pricing_time_limit
        self.lp_solver = lp_solver
        self.pricing_solver = pricing_solver
        self.mip_solver = mip_solver
        self.complexity_grid = complexity_grid
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.thresholds = thresholds
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Fit the rule set.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Misclassification cost of each sample.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    # -- helpers --------------------------------------------------------------
    def _check_params(self):
        params = super()._check_params()
        check_grid(params["complexity_grid"])
        return params

    def _weights(self, y_bin, y_codes, sample_weight):
        w = np.ones(y_bin.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
        cw = self.class_weight
        if cw is None:
            return None if sample_weight is None else w
        if cw == "balanced":
            n = y_bin.shape[0]
            npos = max(int(y_bin.sum()), 1)
            nneg = max(n - int(y_bin.sum()), 1)
            return w * np.where(y_bin == 1, n / (2.0 * npos), n / (2.0 * nneg))
        factors = np.array([float(cw.get(c, 1.0)) for c in self.classes_])
        if np.any(factors < 0) or not np.all(np.isfinite(factors)):
            raise ValueError("class_weight values must be finite and non-negative")
        return w * factors[y_codes]

    def _fit_model(self, *, B, A, y, antecedents, sample_weight, params):
        conditions = self.binarizer_.conditions_
        meta = condition_metadata(conditions)
        n_classes = len(self.classes_)
        targets = [1] if n_classes == 2 else list(range(n_classes))
        budget = float(self.time_limit) / len(targets)
        members, results, budgets, forms, choices = [], [], [], [], []
        interrupted = False     # Ctrl-C: the remaining classes get a constant
        for k in targets:
            yk = (y == k).astype(np.int64)
            wk = self._weights(yk, y, sample_weight)
            kw = dict(max_literals=self.max_literals, lambda0=self.lambda0,
                      lambda1=self.lambda1, pricing=self.pricing,
                      pricing_time_limit=self.pricing_time_limit, lp_solver=self.lp_solver,
                      pricing_solver=self.pricing_solver, mip_solver=self.mip_solver,
                      random_state=self.random_state, **meta)
            t_start = time.perf_counter()
            auto_c = isinstance(self.max_complexity, str)
            form, C = self.form, self.max_complexity
            choice = None
            if not interrupted and (auto_c or form == "auto"):
                try:
                    choice = choose_complexity(
                        B, yk, grid=self.complexity_grid if auto_c else (C,),
                        forms=("dnf", "cnf") if form == "auto" else (form,),
                        time_limit=budget / 3.0, sample_weight=wk, **kw)
                except KeyboardInterrupt:
                    interrupted = True
                    warnings.warn("interrupted while choosing the budget: no rule set was "
                                  "fitted, so the model predicts the majority class",
                                  RuntimeWarning, stacklevel=3)
            if choice is not None:
                form, C = choice.form, choice.max_complexity
                if self.verbose:
                    log.info("class %r: %s choice %s -> %s, C=%d", self.classes_[k],
                             choice.method, choice.errors, form, C)
            # the final fit gets what the choice left of this class's budget
            left = max(budget - (time.perf_counter() - t_start), 0.1 * budget)
            if interrupted:
                res = _constant(yk, wk)
                form, C = res.form, 0
            elif int(C) == 0:   # validation preferred the constant prediction
                res = empty_result(yk, wk, form)
            elif choice is not None and choice.result is not None:
                res = choice.result   # fits every row already: nothing to improve
            else:
                res = solve(B, yk, form=form, max_complexity=int(C), time_limit=left,
                            sample_weight=wk, **kw)
                interrupted = res.status == "interrupted"
            C = int(C)
            if self.verbose:
                log.info("class %r: %s, objective %.4g, bound %s", self.classes_[k],
                         res.status, res.objective, res.lower_bound)
            members.append(self._rule_set(res, B, yk, k, wk))
            results.append(res)
            budgets.append(C)
            forms.append(form)
            choices.append(choice)
        if n_classes == 2:
            res = results[0]
            self.result_ = res
            self.trace_ = res.trace
            self.max_complexity_ = budgets[0]
            self.form_, self.choice_ = forms[0], choices[0]
            model = members[0]
        else:
            self.result_ = results
            self.trace_ = [r.trace for r in results]
            self.max_complexity_ = budgets
            self.form_ = forms
            self.choice_ = None if all(c is None for c in choices) else choices
            model = OneVsRestRuleSets(members, conditions, list(self.classes_))
        self.complexity_ = int(model.complexity)
        self.certificate_ = Certificate.combine(
            [r.certificate for r in results],
            "rule sets within the complexity budget over the binarized conditions; objective "
            "= weighted Hamming loss (summed over the one-vs-rest problems)")
        return model

    def _rule_set(self, res, B, yk, k, sample_weight):
        """RuleSet for one binary problem, with training positive rates."""
        conditions = self.binarizer_.conditions_
        holds = res.predict(B).astype(bool)
        clauses = list(res.clauses)
        if res.constant is not None:
            # single-class target: the trivial rule set; "always true" as a DNF
            # is written as the empty CNF
            form = "cnf" if res.constant == 1 else "dnf"
            clauses = []
        else:
            form = res.form
        n_t, n_f = int(holds.sum()), int((~holds).sum())
        pos_t, pos_f = int(yk[holds].sum()), int(yk[~holds].sum())
        sw = np.ones(yk.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
        w_t, w_f = sw[holds].sum(), sw[~holds].sum()
        p_t = float((sw * yk)[holds].sum() / w_t) if w_t > 0 else 1.0
        p_f = float((sw * yk)[~holds].sum() / w_f) if w_f > 0 else 0.0
        if len(self.classes_) == 2:
            classes = list(self.classes_)
        else:
            label = self.classes_[k]
            classes = [f"not {label}", label]
        return RuleSet(clauses, form, conditions, classes, proba_true=p_t, proba_false=p_f,
                       counts_true=(n_t - pos_t, pos_t), counts_false=(n_f - pos_f, pos_f))
