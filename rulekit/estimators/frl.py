"""scikit-learn estimators for falling and softly falling rule lists.

Chen & Rudin, "An Optimization Approach to Learning Falling Rule Lists",
AISTATS 2018 (Program 2.9, Section 2; Program 5.1, Section 5).  Thin
wrappers: :class:`rulekit.base.RuleClassifierBase` validates the data,
binarizes it and mines antecedents per class (as in the paper's Section 6);
:func:`rulekit.frl.search` finds the list; this module turns the result into
a :class:`rulekit.models.RuleList` and its certificate.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np

from sklearn.utils.validation import _num_samples

from rulekit._checks import check_counts
from rulekit.estimators.sources import is_source
from rulekit._params import AnyOf, NoValidation, Options, pick
from rulekit._fitdata import FitData, FitOutcome
from rulekit.base import RuleClassifierBase
from rulekit._columns import plain as _plain
from rulekit.binarize import ESTIMATOR_PARAMETERS, Binarizer
from rulekit.mining import MINING_PARAMETERS

from rulekit.frl._search import SEARCH_PARAMETERS, search

__all__ = ["FallingRuleListClassifier", "SoftFallingRuleListClassifier",
           "expected_failed_checks"]

_PREDICT_IS_NOT_ARGMAX = (
    "predict thresholds the positive class's probability at 1/(1+w), not at 1/2 (it "
    "minimises the w-weighted training risk, Chen & Rudin 2018, Theorem 2.8), so predict "
    "differs from argmax(predict_proba) whenever w != 1")


def expected_failed_checks(estimator) -> dict:
    """scikit-learn estimator checks a falling rule list fails by design, with the reason.

    Pass it to scikit-learn's ``parametrize_with_checks(...,
    expected_failed_checks=expected_failed_checks)`` or call it for
    ``check_estimator``.

    Parameters
    ----------
    estimator : FallingRuleListClassifier or SoftFallingRuleListClassifier

    Returns
    -------
    dict
        Check name -> reason.  ``check_classifiers_train`` requires
        ``predict`` to be the argmax of ``predict_proba``, which holds only
        when the fitted ``w_`` is 1.  It is declared for a numeric ``w``
        other than 1; with ``w=1`` (the default) or ``w="balanced"`` the
        check passes (the check's data have as many rows of each class, so
        ``"balanced"`` resolves to ``w_ = 1``).
    """
    if estimator.w == "balanced" or estimator.w == 1:
        return {}
    return {"check_classifiers_train": _PREDICT_IS_NOT_ARGMAX}


#: ``max_antecedents="auto"`` never cuts the pool below this many antecedents: a
#: small pool costs little even on many rows, and each pair it would lose
#: matters more (softFRL on adult's 2,000: ROC AUC 0.771 -> 0.754 when cut to
#: 1,150, lower on every fold, for 20 % less time)
MIN_POOL = 2500


#: Below this many training rows (the total weight) ``max_card="auto"`` mines
#: single conditions only and ``C="auto"`` charges ``ln(n) / n`` per rule (a
#: rule must fix more than ``ln(n)`` training rows, about 5).  On few rows
#: the pairs, some thousands of them, and rules fixing a row or two hold
#: more lists that fit by chance than rows to tell them apart: on 150
#: generated rows (noise, weak and strong signal; 6 seeds each) the lists
#: fell from 8.5-8.7 rules to 0-1.5, the training-test gap from 0.16-0.18
#: to 0.02-0.08, and test accuracy rose (0.609 -> 0.648 on noise, 0.641 ->
#: 0.654, 0.706 -> 0.711).  From 216 rows (heart's folds) on, pairs were
#: measured to pay (without them softFRL loses 1.8 points there, FRL 2.3 on
#: ionosphere's 281), and ``ln(n) / n`` lost 1-2 points on breast cancer and
#: ilpd: the threshold sits below the smallest benchmark set, whose lists
#: stay as they were (RESULTS_frl.md, issue 37 item 6).
SMALL_DATA_ROWS = 200

#: ``C="auto"`` from SMALL_DATA_ROWS rows on: the cost per rule the falling
#: lists always had (a tie-breaker: any rule that fixes a row is kept)
LARGE_DATA_C = 1e-6


def _auto_cap(budget, n_rows) -> int:
    """``max_antecedents="auto"``: the counting budget's share per antecedent, at least MIN_POOL."""
    return max(int(budget // (n_rows / 64 + 20)), MIN_POOL)


class _FallingBase(RuleClassifierBase):
    """Shared fitting code of the two estimators (``C1`` decides the program)."""

    _rulekit_parameters = {
        # a number (the engine's declaration) or "balanced", resolved in fit
        "w": AnyOf(Options("balanced"), SEARCH_PARAMETERS["w"]),
        "C": AnyOf(Options("auto"), SEARCH_PARAMETERS["C"]),
        **pick(SEARCH_PARAMETERS, "n_iter", "curiosity_lambda", "stop_prob"),
        "max_card": AnyOf(Options("auto"), MINING_PARAMETERS["max_card"]),
        **pick(MINING_PARAMETERS, "min_support"),
        "max_antecedents": AnyOf(Options("auto"), MINING_PARAMETERS["max_antecedents"]),
        **pick(Binarizer._rulekit_parameters, *ESTIMATOR_PARAMETERS),
        # checked against classes_ once y is known (_positive_code)
        "pos_label": NoValidation(),
        **pick(SEARCH_PARAMETERS, "random_state", "time_limit", "verbose", "callback"),
    }
    _learner = "frl"
    _multiclass = False
    _mines = True
    _negations = False
    _per_class_mining = True
    # the objective sees the rows only through weighted class counts: mining and
    # the search run on the distinct binarized rows, each weighted by its rows
    _on_counts = True
    _weights_are_counts = True
    _fits_sources = True
    _cost_after_counting = 5.0      # mining pairs and folding the rows on the factors
    #: words of row bits the search may read per rule drawn with
    #: ``max_antecedents="auto"`` (see ``_resolve_max_antecedents``)
    _counting_budget = 1_500_000

    def _soft_weight(self, params):
        return None

    def _resolve_max_card(self, params, B, n_rows) -> int:
        """``max_card="auto"``: single conditions below SMALL_DATA_ROWS rows, else pairs."""
        if params["max_card"] == "auto":
            return 1 if n_rows < SMALL_DATA_ROWS else 2
        return params["max_card"]

    @staticmethod
    def _resolve_C(params, n_rows) -> float:
        """``C="auto"``: ``ln(n) / n`` below SMALL_DATA_ROWS training rows, else 1e-6."""
        if params["C"] != "auto":
            return params["C"]
        return math.log(n_rows) / n_rows if 1 < n_rows < SMALL_DATA_ROWS else LARGE_DATA_C

    def _keeps_antecedent_bits(self, max_card):
        # antecedents of one or two conditions are read from their conditions (_solve)
        return max_card > 2

    def fit(self, X, y=None, sample_weight=None):
        """Binarize ``X``, mine antecedents per class and search for the list.

        Parameters
        ----------
        X : DataFrame, array-like, rulekit.stream.Files, rulekit.stream.Chunks, \
dask DataFrame or rulekit.stream.Counts
            Numeric and categorical columns; missing values allowed.  The
            search sees the distinct binarized rows with their class counts,
            so files and chunks (naming their label column, ``target=``) and
            dask frames are read in two passes without holding the rows
            (``docs/streaming.md``).
        y : array-like of shape (n_samples,), dask Series, or None
            Two class labels; None for files, chunks and counts.
        sample_weight : array-like of shape (n_samples,), optional
            Frequency weights: non-negative whole numbers, a row of weight
            ``k`` counting as ``k`` copies of it (the same list, objective
            and certificate as the rows repeated; rows of weight 0 take no
            part).  They weigh the binarizer's thresholds, the supports of
            mining and every count of the objective.  Fractional weights
            are refused: mining counts rows exactly.  None: every row once.

        Returns
        -------
        self
        """
        # refused here, before binarizing, rather than by mining afterwards
        if sample_weight is not None and not is_source(X):
            check_counts(sample_weight, _num_samples(X), rows_of="X")
        return self._fit(X, y, sample_weight)

    @staticmethod
    def _rows_for_cap(data) -> float:
        """The rows ``max_antecedents="auto"`` is computed for.

        The rows the data stands for: the total weight, which is the number
        of rows as given (unweighted data), and the same for rows repeated
        as for whole weights; never fewer than the rows the search holds.
        """
        held = data.n_rows if data.weight is None else int(np.count_nonzero(data.weight))
        return max(data.total_weight(), held)

    def _resolve_max_antecedents(self, params, data):
        """The pool's cap: as given, or ``"auto"``'s share of the counting budget.

        Before every rule it draws, the search counts each antecedent still
        in play on the rows left: about ``n_rows / 64`` words of bits plus a
        fixed cost worth some 20 words (measured: the whole search costs in
        proportion to ``antecedents x (n_rows / 64 + 20)`` on the benchmark
        sets).  ``"auto"`` keeps that product under ``_counting_budget``, so
        the search's cost no longer grows with the square of the columns
        (pairs of 30 numeric columns at 9 thresholds are 116,000
        antecedents) nor with pool times rows.  Where the pool is larger, the
        pairs kept are those of the conditions most associated with the
        class; single conditions are always kept.
        """
        limit = params["max_antecedents"]
        if limit == "auto":
            limit = _auto_cap(self._counting_budget, self._rows_for_cap(data))
        return limit, "association"

    def _positive_code(self, params, classes) -> int:
        if params["pos_label"] is None:
            return 1
        labels = [_plain(c) for c in classes]
        if _plain(params["pos_label"]) not in labels:
            raise ValueError(
                f"pos_label={params['pos_label']!r} is not one of the classes {labels}"
            )
        return labels.index(_plain(params["pos_label"]))

    def _resolve_w(self, w, y_pos, sample_weight=None) -> float:
        """The numeric ``w``: as given, or the negative-to-positive ratio (of weights)."""
        if w != "balanced":
            return w
        weight = np.ones(len(y_pos)) if sample_weight is None else sample_weight
        n_pos, n_neg = weight[y_pos].sum(), weight[~y_pos].sum()
        if not (n_pos > 0 and n_neg > 0):
            raise ValueError("w='balanced' needs a positive sample_weight in each class; pass "
                             "a numeric w, or weights that leave both classes some weight")
        return float(n_neg) / float(n_pos)

    def _chooses_direction(self, params) -> bool:
        """Whether the fit chooses the positive class: no ``pos_label`` and ``w=1``.

        At ``w=1`` the objective is the training error rate plus the rule
        costs whichever class falls, so the two directions' objectives compare;
        any other ``w`` is the cost of missing a named class.
        """
        return params["pos_label"] is None and not isinstance(params["w"], str) \
            and params["w"] == 1

    def _solve(self, data: FitData) -> FitOutcome:
        params, B, antecedents = data.params, data.B, data.antecedents
        C1 = self._soft_weight(params)
        if not antecedents.items:
            warnings.warn(
                f"no antecedent reaches min_support={params['min_support']} in either class; "
                "the model is the else clause alone",
                UserWarning,
                stacklevel=4,
            )
        # pairs are counted from their conditions (same result, a fraction of
        # the memory traffic, and no matrix of rows x antecedents: mining kept
        # no bits for them); longer antecedents from the antecedent matrix
        A, factors = None, None
        if _pairs_at_most(antecedents.items):
            factors = (B, antecedents.items)
        else:
            A = data.A

        C = self._resolve_C(params, data.total_weight())

        def run(pos, n_iter):
            # mining is per class and the pool's order symmetric in the classes:
            # both directions search the same antecedents
            w = self._resolve_w(params["w"], data.y == pos, data.weight)
            return w, search(
                A, data.y == pos, w=w, C=C, C1=C1, n_iter=n_iter,
                curiosity_lambda=params["curiosity_lambda"], stop_prob=params["stop_prob"],
                random_state=params["random_state"], time_limit=params["time_limit"],
                verbose=params["verbose"], factors=factors, sample_weight=data.weight,
            )

        scouts = None
        if self._chooses_direction(params) and _later_is_majority(data):
            pos, scouts, (w, result) = _choose_direction(run, params["n_iter"],
                                                         data.total_weight())
        else:
            pos = self._positive_code(params, data.classes)
            w, result = run(pos, params["n_iter"])
        positive = data.classes[pos]
        fitted = {
            "w_": w, "C_": C, "max_antecedents_": data.mining["max_antecedents"],
            "result_": result, "threshold_": result.threshold, "risk_": result.risk,
            "probabilities_": result.probabilities,
            "positive_proportions_": result.proportions, "counts_": result.counts,
            "trace_": result.trace, "objective_history_": result.trace.objective,
            "best_objective_history_": result.trace.best_objective,
            "positive_class_": positive, "max_card_": data.mining["max_card"],
            "direction_objectives_": None if scouts is None else
            {_plain(data.classes[code]): objective for code, objective in scouts.items()},
            # how many rows the search held: the distinct (conditions, class) rows
            "n_rows_searched_": data.n_rows,
        }
        note = None
        if scouts is not None and 0 in scouts:
            other = _plain(data.classes[1 - pos])
            note = (f"chosen: {_plain(positive)!r} falling fit better than {other!r} falling"
                    if pos == 0 else
                    f"kept: {other!r} falling did not fit ln(n) rows better in "
                    f"{_scout_iterations(params['n_iter'])} iterations")
        certificate = _certificate(result, antecedents, data.mining, params, positive, note)
        model = _to_rule_list(data, result, antecedents, pos)
        return FitOutcome(model, certificate, data.binarizer, fitted)


def _later_is_majority(data) -> bool:
    """The later class holds more than CLEAR_MAJORITY of the training rows (weights).

    Only then can the default direction cost rules: a falling list reaches
    the other class after a rule for every group of the falling one, and
    the majority is the class of many groups.  Where the later class is the
    minority the short search is not run (on the 14 benchmark sets its flips
    there, banknote and transfusion, gained nothing: -0.4 and 0.0 points),
    and its cost is saved (softFRL on a 4,877-row adult sample: 17.0 CPU s
    for 5 fits against 12.3).  Nor where the classes are nearly balanced:
    both are then made of about as many groups, and on mushroom and FICO
    (52 % each) the short search never moved the fit and cost 8 to 19 %
    more CPU.
    """
    weight = np.ones(len(data.y)) if data.weight is None else data.weight
    return float(weight[data.y == 1].sum()) > CLEAR_MAJORITY * float(weight.sum())


#: Share of the training rows above which the later class is the majority that
#: may cost the default direction rules (see ``_later_is_majority``)
CLEAR_MAJORITY = 0.55


#: With no ``pos_label`` (and ``w=1``) the earlier class is tried as the falling
#: one for this share of ``n_iter`` (see ``_choose_direction``)
SCOUT_SHARE = 10


def _scout_iterations(n_iter) -> int:
    return max(1, n_iter // SCOUT_SHARE)


def _choose_direction(run, n_iter, n_rows):
    """The positive class (code), the objectives that chose it, and its search's result.

    A falling list says the non-falling class only after every rule of the
    falling one: with the wrong class falling it needs a rule for every
    group of that class (on a survey where most say "yes", a dozen rules
    that all say "yes").  The later class (code 1, the default before) gets
    the full search; then the earlier one falls for ``n_iter //
    SCOUT_SHARE`` iterations of the same seed.  Only if that short search
    already beats the full one's objective by more than ``ln(n_rows)``
    training rows (``ln(n_rows) / n_rows``: the objective is a rate) is its
    list the fit's.  No full search follows for the earlier class: its
    search can cost several times the later class's (ionosphere: 60-86 CPU
    s against 14), and a fit must stay within the time a user was promised
    for the defaults (the issue-27 targets), so the fit runs a tenth more
    iterations, whichever class falls (at one load, mushroom and ilpd: 0.9
    to 1.1 times the CPU of before).  The margin makes the
    choice pay for itself as a model choice must (BIC charges a parameter
    ``ln(n) / 2`` in log-likelihood): a flip that fixes a handful of rows
    fits noise (lowbwt's 151-row folds: flips fitting 2-5 more rows lost 3
    points on held-out rows; heart: a flip on the rule cost alone lost 11
    points in one fold), one that fixes dozens does not (the flipped adult
    sample: 16-44 rows of 3,900, more accurate on held-out rows).  A short
    search cannot
    judge the other way round: a direction that converges slowly looks worse
    early (tic-tac-toe: the later class's lists beat the earlier's after
    3,000 iterations in 5 of 5 folds, lose after 300 in 5 of 5), so the
    default direction is never left on a short search's word.

    A limit or the callback stopping the short search ends the fit with the
    full search's list, with the short search's status (the choice was not
    finished).

    Returns
    -------
    pos : int
    scouts : dict
        Code -> objective: the later class's full search, the earlier
        class's short one.
    (w, FRLResult)
        The chosen direction's search (the short one for the earlier class).
    """
    later = run(1, n_iter)
    scouts = {1: later[1].objective}
    if later[1].status not in ("heuristic", "optimal"):
        return 1, scouts, later
    scout = run(0, _scout_iterations(n_iter))
    scouts[0] = scout[1].objective
    if scout[1].status not in ("heuristic", "optimal"):
        w, result = later
        return 1, scouts, (w, dataclasses.replace(result, status=scout[1].status))
    if not scouts[0] < scouts[1] - math.log(max(n_rows, 1.0)) / n_rows:
        return 1, scouts, later
    return 0, scouts, scout


def _pairs_at_most(items) -> bool:
    """Antecedents of one or two conditions each: the search reads them from their
    conditions (``factors``), with no antecedent matrix."""
    return bool(items) and max(len(item) for item in items) <= 2


def _certificate(result, antecedents, mining, params, positive, note=None):
    """The engine's certificate, scoped to the mined antecedents."""
    # a proof covers the mined antecedents only (mining at min_support
    # is a choice, not a bound of the theory)
    n_antecedents, mined = len(antecedents), antecedents.n_mined
    capped = ("" if mined is None or mined <= n_antecedents else
              f" (of {'' if antecedents.n_mined_complete else 'at least '}{mined}: the pairs "
              "of the conditions most associated with the class "
              f"within max_antecedents={mining['max_antecedents']})")
    # the risk is a rate per training row already: name the rows beside it
    total = result.counts.sum()
    total = int(total) if float(total).is_integer() else float(total)
    return result.certificate.rate_of(total).restricted_to(result.scope(
        f"the {n_antecedents} antecedents mined at min_support={params['min_support']:g} "
        f"per class{capped}, positive class {_plain(positive)!r}"
        + ("" if note is None else f" ({note})")))


def _to_rule_list(data, result, antecedents, pos):
    # One row of class probabilities per rule (else last), classes_ order;
    # a rule predicts the positive class iff its stated probability exceeds
    # the threshold 1/(1+w) -- strictly, as in the objective.
    neg = 1 - pos
    probs = np.zeros((len(result.prefix) + 1, 2))
    probs[:, pos] = result.probabilities
    probs[:, neg] = 1.0 - result.probabilities
    codes = np.where(result.probabilities > result.threshold, pos, neg)
    items = [antecedents.items[l] for l in result.prefix]
    return RuleClassifierBase._rule_list(data, items, codes[:-1], codes[-1],
                                         probabilities=probs, positive=data.classes[pos])


class FallingRuleListClassifier(_FallingBase):
    """Falling rule list (Chen & Rudin, AISTATS 2018, Algorithm FRL).

    A falling rule list is an if/elif/else list whose stated probabilities of
    the positive class decrease down the list.  It is learned by a Monte-Carlo
    search over antecedents mined per class, pruned by the paper's prefix
    bounds, minimising the cost-weighted training error plus ``C`` per rule.

    Parameters
    ----------
    w : float or "balanced", default=1.0
        Cost of a false negative (a false positive costs 1).  The list
        minimises the ``w``-weighted training error, so ``predict`` returns
        the positive class iff the firing rule's probability is strictly
        greater than ``threshold_ = 1 / (1 + w)`` (Theorem 2.8 of the paper:
        the best threshold for that error).  The default ``w=1`` minimises
        plain training error: the threshold is 1/2, ``predict`` is the
        argmax of ``predict_proba``, and the decisions aim at accuracy.
        ``"balanced"`` uses the training data's ratio of negative to positive
        rows (stored in ``w_``): the threshold becomes the training share of
        positives and the list minimises the balanced error rate (plus ``C``
        per rule).  On imbalanced data that trades accuracy for balanced
        accuracy and ranking: the lists keep more rules and rank rows better
        (ROC AUC), while accuracy may fall below the majority rate.  For any
        ``w`` other than 1, ``predict`` is not the argmax of
        ``predict_proba``: :func:`expected_failed_checks` declares the one
        scikit-learn check this breaks.  The paper uses ``w=7`` on bank
        marketing (12 % positives, balanced ``w`` about 7.5).
    C : float or "auto", default="auto"
        Cost per rule (sparsity), in the objective's units (a training error
        rate): a rule is worth keeping if it fixes more than ``C * n``
        training rows.  ``"auto"``: ``ln(n) / n`` on fewer than 200 training
        rows (the total weight), where rules fixing a row or two mostly fit
        noise, else ``1e-6`` (any rule that fixes a row).  The value used is
        ``C_``.
    n_iter : int, default=3000
        Lists built by the Monte-Carlo search (it stops sooner when its
        bounds prove the list optimal).
    curiosity_lambda : float, default=0.8
        Weight of an antecedent's positive proportion versus its share of the
        remaining positives when sampling the next rule.
    stop_prob : float, default=0.01
        Probability of closing a list at each step.
    max_card : int or "auto", default="auto"
        Most conditions per antecedent.  ``"auto"``: 2, or 1 on fewer than
        200 training rows (the total weight), where the many pairs mostly
        fit noise.  With ``C="auto"`` on 151 of 189 births (5 folds): 0-1
        rules fitting 0.70 of the training rows and 0.68 of held-out ones
        (the majority rate is 0.69), where pairs at ``C=1e-6`` gave 4-6
        rules fitting 0.81 and 0.70.  The value used is ``max_card_``.
    min_support : float, default=0.1
        An antecedent is kept if it covers this fraction of the positive rows
        or of the negative rows (per-class mining, as in the paper).
    max_antecedents : int, "auto" or None, default="auto"
        Most antecedents the search chooses from.  Every single condition is
        kept; beyond them, the pairs whose two conditions are the most
        associated with the class (``|phi|``, see
        :func:`rulekit.mine_antecedents`).  The search's cost is the pool
        times the rows (it counts every antecedent on the rows left before
        each rule it draws), so ``"auto"`` caps the pool at
        ``1,500,000 / (n_rows / 64 + 20)`` antecedents, never below 2,500
        (54,000 on 500 rows, 8,500 on 10,000 rows, 2,500 on 40,000 rows;
        with ``sample_weight``, rows are the total weight).
        It binds on wide numeric data (pairs of 30 columns at 9 thresholds
        are over 100,000) and on many rows; elsewhere nothing changes.  The
        value used is ``max_antecedents_``; None keeps every mined
        antecedent.
    n_thresholds : int, default=9
        Thresholds per numeric feature for the binarizer.
    categorical_features : list, optional
        Columns to treat as categorical (see :class:`rulekit.Binarizer`).
    min_frequency, max_categories, handle_unknown, thresholds
        Binarization: the support floor, the infrequent-category group,
        categories unseen at fit time, and where thresholds come from (see
        :class:`rulekit.Binarizer`).
    pos_label : label, optional
        The positive ("desired") class, whose probability falls down the
        list; the printed model and the certificate name it.  Default
        (None) with ``w=1``: the later label (second of ``classes_``)
        falls, unless it holds over 55 % of the rows and the earlier one fits clearly
        better -- after the full search for the later label, the earlier
        one falls for ``n_iter // 10`` iterations (same seed), and if that
        short search's objective (training error plus ``C`` per rule,
        comparable at ``w=1``) is lower by more than ``ln(n)`` training
        rows, its list is the fit's (a tenth more iterations, whose cost
        depends on the data: on ionosphere an iteration with the earlier
        class falling costs 4-6 times one with the later).  A falling
        list reaches the other class only after a rule for every group of
        the falling one, so the wrong direction costs rules: on a survey
        where 76 % say "yes", "yes" falling took 7-12 rules, "no" falling
        4-6 with a lower training and test error.  The objectives compared
        are ``direction_objectives_``; the certificate says which class
        falls and why.  Default with any other ``w`` (a cost of missing a
        named class): the second of ``classes_`` (the later label in sorted
        order), as before.
    random_state : int, Generator or None, default=0
        Seed of the search (the same seed gives the same list on any machine).
    time_limit : float, optional
        Seconds for the whole fit; the search returns its best list when the
        time is up (status ``"time_limit"``, one ``ConvergenceWarning``).
    verbose : int, default=0
        1 or more: a progress bar on stderr (iterations, best objective).
    callback : callable or None, default=None
        ``callback(state) -> bool``, called with the search's progress (a
        :class:`rulekit._anytime.SearchState`) about four times a second;
        True stops the search with its best list (status ``"interrupted"``,
        one ``ConvergenceWarning``).  See :mod:`rulekit.callbacks`; the
        Monte-Carlo search has no lower bound, so ``stop_at_gap`` never
        stops it.

    Attributes
    ----------
    model_ : RuleList
        The list; each rule keeps its probabilities and training counts, and
        ``model_.positive`` names the positive class.
    max_antecedents_ : int or None
        The cap on the pool that was used (``"auto"`` resolved).
    w_ : float
        The weight used (``w``, or the ratio ``"balanced"`` resolved to).
    threshold_ : float
        ``1 / (1 + w_)``: ``predict`` says positive iff the probability of
        the positive class exceeds it.
    positive_class_ : label
        The class whose probability falls down the list (``pos_label``, or
        the one chosen when it is None).
    direction_objectives_ : dict or None
        When the direction was chosen (``pos_label=None``, ``w=1``, the
        later label the majority): each class -> the objective of its search
        as the falling class (the later label's full one, the earlier
        label's short one).  None otherwise (the later label fell).
    max_card_ : int
        The most conditions per antecedent used (``"auto"`` resolved).
    C_ : float
        The cost per rule used (``"auto"`` resolved).
    certificate_ : Certificate
        Status ``"heuristic"`` (a Monte-Carlo search proves nothing), or
        ``"optimal_relative"`` when the bounds proved that no list of the
        program over the mined antecedents is better, or the limit that
        stopped the search (``"time_limit"``, ``"interrupted"``); the
        objective; a lower bound only with a proof.
    counts_ : ndarray, shape (n_rules + 1, 2)
        (positives, negatives) each rule captured in training.
    risk_ : float
        Weighted training risk of the list.
    result_ : rulekit.frl.FRLResult
    n_rows_searched_ : int
        Rows the search held: the distinct ``(conditions, class)`` rows of
        the binarized training data, each weighted by the rows (or the
        summed ``sample_weight``) it stands for.  Every count above is a
        count of training rows all the same.
    trace_, objective_history_, best_objective_history_
        Search trace (see :class:`rulekit.frl.SearchTrace`).
    probabilities_, positive_proportions_ : ndarray
        Stated probabilities and empirical positive proportions per rule,
        else last (equal for FRL).
    """

    def __init__(self, w=1.0, C="auto", n_iter=3000, curiosity_lambda=0.8, stop_prob=0.01,
                 max_card="auto", min_support=0.1, max_antecedents="auto", n_thresholds=9,
                 categorical_features=None, min_frequency=0.01, max_categories=None, handle_unknown="warn",
                 thresholds="quantile", pos_label=None, random_state=0, time_limit=None,
                 verbose=0, callback=None):
        self.w = w
        self.C = C
        self.n_iter = n_iter
        self.curiosity_lambda = curiosity_lambda
        self.stop_prob = stop_prob
        self.max_card = max_card
        self.min_support = min_support
        self.max_antecedents = max_antecedents
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.thresholds = thresholds
        self.pos_label = pos_label
        self.random_state = random_state
        self.time_limit = time_limit
        self.verbose = verbose
        self.callback = callback


class SoftFallingRuleListClassifier(_FallingBase):
    """Softly falling rule list (Chen & Rudin, AISTATS 2018, Algorithm softFRL).

    Like :class:`FallingRuleListClassifier`, but the search may build lists
    whose empirical proportions rise, paying ``C1`` times the total rise
    above the running minimum.  The fitted list states the running minimum
    of the proportions, so its probabilities always fall.

    Parameters
    ----------
    C1 : float, default=0.5
        Weight of the monotonicity penalty.
    w : float or "balanced", default=1.0
        Cost of a false negative (a false positive costs 1).  The list
        minimises the ``w``-weighted training error, so ``predict`` returns
        the positive class iff the firing rule's probability is strictly
        greater than ``threshold_ = 1 / (1 + w)`` (Theorem 2.8 of the paper:
        the best threshold for that error).  The default ``w=1`` minimises
        plain training error: the threshold is 1/2, ``predict`` is the
        argmax of ``predict_proba``, and the decisions aim at accuracy.
        ``"balanced"`` uses the training data's ratio of negative to positive
        rows (stored in ``w_``): the threshold becomes the training share of
        positives and the list minimises the balanced error rate (plus ``C``
        per rule).  On imbalanced data that trades accuracy for balanced
        accuracy and ranking: the lists keep more rules and rank rows better
        (ROC AUC), while accuracy may fall below the majority rate.  For any
        ``w`` other than 1, ``predict`` is not the argmax of
        ``predict_proba``: :func:`expected_failed_checks` declares the one
        scikit-learn check this breaks.  The paper uses ``w=7`` on bank
        marketing (12 % positives, balanced ``w`` about 7.5).
    C : float or "auto", default="auto"
        Cost per rule (sparsity), in the objective's units (a training error
        rate): a rule is worth keeping if it fixes more than ``C * n``
        training rows.  ``"auto"``: ``ln(n) / n`` on fewer than 200 training
        rows (the total weight), where rules fixing a row or two mostly fit
        noise, else ``1e-6`` (any rule that fixes a row).  The value used is
        ``C_``.
    n_iter : int, default=6000
        Lists built by the Monte-Carlo search (it stops sooner when its
        bounds prove the list optimal).
    curiosity_lambda : float, default=0.8
        Weight of an antecedent's positive proportion versus its share of the
        remaining positives when sampling the next rule.
    stop_prob : float, default=0.01
        Probability of closing a list at each step.
    max_card : int or "auto", default="auto"
        Most conditions per antecedent.  ``"auto"``: 2, or 1 on fewer than
        200 training rows (the total weight), where the many pairs mostly
        fit noise.  With ``C="auto"`` on 151 of 189 births (5 folds): 0-1
        rules fitting 0.70 of the training rows and 0.68 of held-out ones
        (the majority rate is 0.69), where pairs at ``C=1e-6`` gave 4-6
        rules fitting 0.81 and 0.70.  The value used is ``max_card_``.
    min_support : float, default=0.1
        An antecedent is kept if it covers this fraction of the positive rows
        or of the negative rows (per-class mining, as in the paper).
    max_antecedents : int, "auto" or None, default="auto"
        Most antecedents the search chooses from.  Every single condition is
        kept; beyond them, the pairs whose two conditions are the most
        associated with the class (``|phi|``, see
        :func:`rulekit.mine_antecedents`).  The search's cost is the pool
        times the rows (it counts every antecedent on the rows left before
        each rule it draws), so ``"auto"`` caps the pool at
        ``750,000 / (n_rows / 64 + 20)`` antecedents, never below 2,500
        (27,000 on 500 rows, 4,300 on 10,000 rows, 2,500 on 40,000 rows;
        with ``sample_weight``, rows are the total weight).
        It binds on wide numeric data (pairs of 30 columns at 9 thresholds
        are over 100,000) and on many rows; elsewhere nothing changes.  The
        value used is ``max_antecedents_``; None keeps every mined
        antecedent.
    n_thresholds : int, default=9
        Thresholds per numeric feature for the binarizer.
    categorical_features : list, optional
        Columns to treat as categorical (see :class:`rulekit.Binarizer`).
    min_frequency, max_categories, handle_unknown, thresholds
        Binarization: the support floor, the infrequent-category group,
        categories unseen at fit time, and where thresholds come from (see
        :class:`rulekit.Binarizer`).
    pos_label : label, optional
        The positive ("desired") class, whose probability falls down the
        list; the printed model and the certificate name it.  Default
        (None) with ``w=1``: the later label (second of ``classes_``)
        falls, unless it holds over 55 % of the rows and the earlier one fits clearly
        better -- after the full search for the later label, the earlier
        one falls for ``n_iter // 10`` iterations (same seed), and if that
        short search's objective (training error plus ``C`` per rule,
        comparable at ``w=1``) is lower by more than ``ln(n)`` training
        rows, its list is the fit's (a tenth more iterations, whose cost
        depends on the data: on ionosphere an iteration with the earlier
        class falling costs 4-6 times one with the later).  A falling
        list reaches the other class only after a rule for every group of
        the falling one, so the wrong direction costs rules: on a survey
        where 76 % say "yes", "yes" falling took 7-12 rules, "no" falling
        4-6 with a lower training and test error.  The objectives compared
        are ``direction_objectives_``; the certificate says which class
        falls and why.  Default with any other ``w`` (a cost of missing a
        named class): the second of ``classes_`` (the later label in sorted
        order), as before.
    random_state : int, Generator or None, default=0
        Seed of the search (the same seed gives the same list on any machine).
    time_limit : float, optional
        Seconds for the whole fit; the search returns its best list when the
        time is up (status ``"time_limit"``, one ``ConvergenceWarning``).
    verbose : int, default=0
        1 or more: a progress bar on stderr (iterations, best objective).
    callback : callable or None, default=None
        ``callback(state) -> bool``, called with the search's progress (a
        :class:`rulekit._anytime.SearchState`) about four times a second;
        True stops the search with its best list (status ``"interrupted"``,
        one ``ConvergenceWarning``).  See :mod:`rulekit.callbacks`; the
        Monte-Carlo search has no lower bound, so ``stop_at_gap`` never
        stops it.

    Attributes
    ----------
    positive_proportions_ : ndarray
        Empirical positive proportion per rule (else last); may rise.
    probabilities_ : ndarray
        Their running minimum: the probabilities the model states.
    model_ : RuleList
        The list; each rule keeps its probabilities and training counts, and
        ``model_.positive`` names the positive class.
    max_antecedents_ : int or None
        The cap on the pool that was used (``"auto"`` resolved).
    w_ : float
        The weight used (``w``, or the ratio ``"balanced"`` resolved to).
    threshold_ : float
        ``1 / (1 + w_)``: ``predict`` says positive iff the probability of
        the positive class exceeds it.
    positive_class_ : label
        The class whose probability falls down the list (``pos_label``, or
        the one chosen when it is None).
    direction_objectives_ : dict or None
        When the direction was chosen (``pos_label=None``, ``w=1``, the
        later label the majority): each class -> the objective of its search
        as the falling class (the later label's full one, the earlier
        label's short one).  None otherwise (the later label fell).
    max_card_ : int
        The most conditions per antecedent used (``"auto"`` resolved).
    C_ : float
        The cost per rule used (``"auto"`` resolved).
    certificate_ : Certificate
        Status ``"heuristic"`` (a Monte-Carlo search proves nothing), or
        ``"optimal_relative"`` when the bounds proved that no list of the
        program over the mined antecedents is better, or the limit that
        stopped the search (``"time_limit"``, ``"interrupted"``); the
        objective; a lower bound only with a proof.
    counts_ : ndarray, shape (n_rules + 1, 2)
        (positives, negatives) each rule captured in training.
    risk_ : float
        Weighted training risk of the list.
    result_ : rulekit.frl.FRLResult
    n_rows_searched_ : int
        Rows the search held: the distinct ``(conditions, class)`` rows of
        the binarized training data, each weighted by the rows (or the
        summed ``sample_weight``) it stands for.  Every count above is a
        count of training rows all the same.
    trace_, objective_history_, best_objective_history_
        Search trace (see :class:`rulekit.frl.SearchTrace`).
"""

    def __init__(self, w=1.0, C="auto", C1=0.5, n_iter=6000, curiosity_lambda=0.8,
                 stop_prob=0.01, max_card="auto", min_support=0.1, max_antecedents="auto",
                 n_thresholds=9, categorical_features=None, min_frequency=0.01, max_categories=None,
                 handle_unknown="warn", thresholds="quantile", pos_label=None, random_state=0,
                 time_limit=None, verbose=0, callback=None):
        self.w = w
        self.C = C
        self.C1 = C1
        self.n_iter = n_iter
        self.curiosity_lambda = curiosity_lambda
        self.stop_prob = stop_prob
        self.max_card = max_card
        self.min_support = min_support
        self.max_antecedents = max_antecedents
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.thresholds = thresholds
        self.pos_label = pos_label
        self.random_state = random_state
        self.time_limit = time_limit
        self.verbose = verbose
        self.callback = callback

    _rulekit_parameters = {
        **_FallingBase._rulekit_parameters,
        # the engine's C1 without its None (None would mean the falling program)
        "C1": dataclasses.replace(SEARCH_PARAMETERS["C1"], allow_none=False),
    }

    # twice FRL's iterations by default: half its counting per rule drawn
    _counting_budget = 750_000

    def _soft_weight(self, params):
        return params["C1"]
