"""scikit-learn estimators for falling and softly falling rule lists.

Thin wrappers: :class:`rulekit.base.RuleClassifierBase` validates the data,
binarizes it and mines antecedents per class; :func:`rulekit.frl.search` finds
the list; this module turns the result into a :class:`rulekit.models.RuleList`.
"""

from __future__ import annotations

import logging
import time
import warnings

import numpy as np

from rulekit._params import Integer, NoValidation, Real, pick
from rulekit.base import COMMON_PARAMETERS, RuleClassifierBase
from rulekit.binarize import Binarizer, ESTIMATOR_PARAMETERS, _plain
from rulekit.certificate import Certificate
from rulekit.mining import MINING_PARAMETERS

from ._search import search

__all__ = ["FallingRuleListClassifier", "SoftFallingRuleListClassifier"]

logger = logging.getLogger(__name__)


class _FallingBase(RuleClassifierBase):
    """Shared fitting code of the two estimators (``C1`` decides the program)."""

    _parameter_constraints = {
        "w": Real(0, None, closed="neither"),
        "C": Real(0, None),
        "n_iter": Integer(1),
        "curiosity_lambda": Real(0, 1),
        "stop_prob": Real(0, 1),
        **pick(MINING_PARAMETERS, "max_card", "min_support"),
        **pick(Binarizer._parameter_constraints, *ESTIMATOR_PARAMETERS),
        # checked against classes_ once y is known (_positive_code)
        "pos_label": NoValidation(),
        **pick(COMMON_PARAMETERS, "random_state", "time_limit", "verbose"),
    }
    _learner = "frl"
    _multiclass = False
    _mines = True
    _negations = False
    _per_class_mining = True

    def _soft_weight(self, params):
        return None

    def _positive_code(self):
        if self.pos_label is None:
            return 1
        labels = [_plain(c) for c in self.classes_]
        if _plain(self.pos_label) not in labels:
            raise ValueError(
                f"pos_label={self.pos_label!r} is not one of the classes {labels}"
            )
        return labels.index(_plain(self.pos_label))

    def _fit_model(self, *, B, A, y, antecedents, sample_weight, params):
        w, C, n_iter = params["w"], params["C"], params["n_iter"]
        C1 = self._soft_weight(params)
        pos = self._positive_code()
        neg = 1 - pos
        y_pos = y == pos
        if A.shape[1] == 0:
            warnings.warn(
                f"no antecedent reaches min_support={self.min_support} in either class; "
                "the model is the else clause alone",
                UserWarning,
                stacklevel=4,
            )
        callback = None
        if self.verbose:
            start = time.perf_counter()

            def callback(n_done, best):
                logger.info("iteration %d/%d  best objective %.6f  (%.1f s)",
                            n_done, n_iter, best, time.perf_counter() - start)
                return False

        result = search(
            A, y_pos, w=w, C=C, C1=C1, n_iter=n_iter,
            curiosity_lambda=self.curiosity_lambda, stop_prob=self.stop_prob,
            random_state=self.random_state, time_limit=self.time_limit, callback=callback,
        )
        self.result_ = result
        self.threshold_ = result.threshold
        self.risk_ = result.risk
        self.probabilities_ = result.probabilities
        self.positive_proportions_ = result.proportions
        self.counts_ = result.counts
        self.trace_ = result.trace
        self.objective_history_ = result.trace.objective
        self.best_objective_history_ = result.trace.best_objective
        self.positive_class_ = self.classes_[pos]
        # Monte-Carlo search: proved only when the bounds pruned every root
        # candidate, and then over the lists of the mined antecedents
        status = {"completed": "heuristic"}.get(result.status, result.status)
        if result.proved_optimal:
            status = "optimal_relative"
        program = "softly falling" if C1 is not None else "falling"
        self.certificate_ = Certificate(
            status, result.objective, None,
            f"{program} rule lists over the {A.shape[1]} antecedents mined at "
            f"min_support={params['min_support']:g} per class; objective = weighted "
            f"risk (w={w:g}) + {C:g} x rules" + ("" if C1 is None else f" + {C1:g} x rise"))
        if result.status != "completed":
            logger.info("search stopped early (%s) after %d iterations",
                        result.status, result.n_iter_done)

        # One row of class probabilities per rule (else last), classes_ order;
        # a rule predicts the positive class iff its stated probability exceeds
        # the threshold 1/(1+w) -- strictly, as in the objective.
        probs = np.zeros((len(result.prefix) + 1, 2))
        probs[:, pos] = result.probabilities
        probs[:, neg] = 1.0 - result.probabilities
        codes = np.where(result.probabilities > result.threshold, pos, neg)
        items = [antecedents.items[l] for l in result.prefix]
        return self._rule_list(items, codes[:-1], codes[-1], B, y, probabilities=probs)


class FallingRuleListClassifier(_FallingBase):
    """Falling rule list (Chen & Rudin, AISTATS 2018, Algorithm FRL).

    A falling rule list is an if/elif/else list whose stated probabilities of
    the positive class decrease down the list.  It is learned by a Monte-Carlo
    search over antecedents mined per class, pruned by the paper's prefix
    bounds, minimising the cost-weighted training error plus ``C`` per rule.

    Parameters
    ----------
    w : float, default=7.0
        Cost of a false negative (a false positive costs 1).  ``predict``
        returns the positive class iff the firing rule's probability is
        strictly greater than ``1 / (1 + w)``, the threshold the objective
        uses: this is a cost-sensitive classifier, not a 0.5-threshold one.
    C : float, default=1e-6
        Cost per rule (sparsity).
    n_iter : int, default=3000
        Lists built by the Monte-Carlo search.
    curiosity_lambda : float, default=0.8
        Weight of an antecedent's positive proportion versus its share of the
        remaining positives when sampling the next rule.
    stop_prob : float, default=0.01
        Probability of closing a list at each step.
    max_card : int, default=2
        Most conditions per antecedent.
    min_support : float, default=0.1
        An antecedent is kept if it covers this fraction of the positive rows
        or of the negative rows (per-class mining, as in the paper).
    n_thresholds : int, default=9
        Thresholds per numeric feature for the binarizer.
    categorical_features : list, optional
        Columns to treat as categorical (see :class:`rulekit.Binarizer`).
    min_frequency, max_categories, handle_unknown, thresholds
        Binarization: the support floor, the infrequent-category group,
        categories unseen at fit time, and where thresholds come from (see
        :class:`rulekit.Binarizer`).
    pos_label : label, optional
        The positive ("desired") class; default: the second of ``classes_``.
    random_state : int, Generator or None, default=None
        Seed of the search.
    time_limit : float, optional
        Seconds; the search returns its best list when the time is up.
    verbose : int, default=0
        Log progress through the ``rulekit.frl`` logger.

    Attributes
    ----------
    model_ : RuleList
        The list; each rule keeps its probabilities and training counts.
    probabilities_, positive_proportions_ : ndarray
        Stated probabilities and empirical positive proportions per rule,
        else last (equal for FRL).
    counts_ : ndarray, shape (n_rules + 1, 2)
        (positives, negatives) each rule captured in training.
    risk_, threshold_ : float
    certificate_ : Certificate
        Status ``"heuristic"`` (a Monte-Carlo search proves nothing), or
        ``"optimal_relative"`` when the bounds proved that no falling list
        over the mined antecedents is better, or the limit that stopped the
        search (``"time_limit"``, ``"interrupted"``); the objective; no
        lower bound.
    result_ : rulekit.frl.FRLResult
    trace_, objective_history_, best_objective_history_
        Search trace (see :class:`rulekit.frl.SearchTrace`).
    """

    def __init__(self, w=7.0, C=1e-6, n_iter=3000, curiosity_lambda=0.8, stop_prob=0.01,
                 max_card=2, min_support=0.1, n_thresholds=9, categorical_features=None,
                 min_frequency=0.01, max_categories=None, handle_unknown="warn", thresholds="quantile",
                 pos_label=None, random_state=None, time_limit=None, verbose=0):
        self.w = w
        self.C = C
        self.n_iter = n_iter
        self.curiosity_lambda = curiosity_lambda
        self.stop_prob = stop_prob
        self.max_card = max_card
        self.min_support = min_support
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
    n_iter : int, default=6000
    (others as for :class:`FallingRuleListClassifier`)

    Attributes
    ----------
    positive_proportions_ : ndarray
        Empirical positive proportion per rule (else last); may rise.
    probabilities_ : ndarray
        Their running minimum: the probabilities the model states.
    (others as for :class:`FallingRuleListClassifier`)
    """

    def __init__(self, w=7.0, C=1e-6, C1=0.5, n_iter=6000, curiosity_lambda=0.8,
                 stop_prob=0.01, max_card=2, min_support=0.1, n_thresholds=9,
                 categorical_features=None, min_frequency=0.01, max_categories=None,
                 handle_unknown="warn", thresholds="quantile", pos_label=None, random_state=None,
                 time_limit=None, verbose=0):
        self.w = w
        self.C = C
        self.C1 = C1
        self.n_iter = n_iter
        self.curiosity_lambda = curiosity_lambda
        self.stop_prob = stop_prob
        self.max_card = max_card
        self.min_support = min_support
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

    _parameter_constraints = {**_FallingBase._parameter_constraints, "C1": Real(0, None)}

    def _soft_weight(self, params):
        return params["C1"]
