"""``CorelsClassifier``: the sklearn face of the CORELS engine."""

from __future__ import annotations

import difflib
import math
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from sklearn.base import ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedShuffleSplit

from .._anytime import default_max_memory
from .._params import AnyOf, Instance, Integer, Options, Real, check, pick
from .._reference import MIN_ROWS as REFERENCE_MIN_ROWS
from ..bitset import pack, unpack
from .._fitdata import FitData, FitOutcome
from ..base import COMMON_PARAMETERS, RuleClassifierBase
from ..binarize import Binarizer, ESTIMATOR_PARAMETERS
from ..certificate import Certificate
from ..evaluate import first_match
from ..mining import mine_antecedents
from . import corels_auto as _auto
from ..corels._constrained import FAIRNESS, Constraints, constrained_search
from ..corels._rashomon import DEFAULT_MAX_MODELS, RASHOMON_PARAMETERS, rashomon
from .corels_rashomon_set import RashomonSet
from ..corels._result import scope as corels_scope
from ..corels._search import REFERENCE_SCOPE, SEARCH_PARAMETERS, MemoryLimitError, search
from .._tolerances import MIN_SUPPORT_FLOOR

__all__ = ["CorelsClassifier"]

#: ``reference="gbdt"``: the boosted trees fitted on the conditions (small, so that the
#: reference costs a fraction of the search it guides)
GBDT_TREES, GBDT_DEPTH = 40, 3


class CorelsClassifier(RuleClassifierBase):
    """Certifiably optimal rule list (CORELS).

    Binarizes ``X``, mines antecedents (conjunctions of up to ``max_card``
    conditions) and finds, by branch and bound, the rule list minimizing
    ``mistakes / N + c * n_rules`` over them (``N`` training rows) — with a certificate:
    when ``certificate_.proved_optimal`` is true no other list over the
    mined antecedents scores better.

    Parameters
    ----------
    c : float or "auto", default="auto"
        Penalty per rule, in units of training accuracy: a rule must fix more
        than ``c * N`` mistakes to be worth adding.  ``"auto"`` walks
        a regularization path from ``c = 0.1`` down (never below ``2 /
        N``), certifies each point it can within the work budget, and
        picks the one that cross-validates best (5 folds, repeated 3 times
        up to 2,000 rows; a 25 % hold-out above 10,000 rows); ``c_`` is the
        value used and ``selection_`` records the path.  See ``docs/corels.md``.
    max_card : int or "auto", default="auto"
        Most conditions per antecedent.  ``"auto"``: two when every pair of
        conditions can be mined (pairs x rows at most 3e8), else one; along
        the path, two-condition antecedents are searched while they certify,
        and cross-validation may prefer one condition.  ``max_card_`` is what
        the returned list was searched over.
    min_support : float in (0, 1] or None, default=None
        Mining threshold (fraction of all training rows).
        ``None`` means ``c`` (with ``c="auto"``, the smallest ``c`` of the
        path): CORELS's minimum-support theorem shows that an antecedent
        capturing at most ``c * N`` rows never appears in an optimal
        list, so mining at ``c`` loses nothing and the certificate covers
        *every* antecedent of up to ``max_card`` conditions.  A larger value
        speeds things up but the certificate then only covers the mined
        antecedents (status ``"optimal_relative"``; ``certificate_.scope``
        says which).
    n_thresholds : int, default=9
        Thresholds per numeric column: the quantiles, or the most split
        points kept from the reference ensemble.
    categorical_features : list, optional
        Columns to treat as categorical whatever their dtype.
    thresholds : {"auto", "reference", "quantile"}, default="auto"
        Where numeric thresholds come from (see :class:`rulekit.Binarizer`).
        ``"auto"``: the split points of a small boosted ensemble of stumps
        (``"reference"``: few, useful thresholds, so the search certifies),
        or quantiles when there are fewer than 10 rows.
    min_frequency, max_categories, handle_unknown
        Binarization: the support floor, the infrequent-category group and
        categories unseen at fit time (see :class:`rulekit.Binarizer`).  ``min_frequency=None`` keeps every
        quantile threshold and category (the binarization before 0.2).
    policy : {"lower_bound", "curious", "objective", "bfs", "dfs"}
        Search order of the priority queue.
    symmetry : {"permutation", "capture", "none"}
        Symmetry-aware map that discards equivalent prefixes.
    bounds : "all", "none" or iterable of str, default="all"
        Pruning bounds to use (see :data:`rulekit.corels.BOUNDS`); switch
        some off to see what each one buys.
    max_nodes : int or None, default=None
        Most prefix-tree nodes (expanded prefixes) held at once; reaching it
        stops the search.  None: no node limit (``max_memory`` still holds).
    max_memory : float or "auto", default="auto"
        MB the fit may hold beyond your data: the antecedent matrices
        (while they are mined, three bytes per antecedent and row; during a
        search, the matrix and the block copied for it) plus the search's
        own arrays as the engine counts them.  Counted, not measured, so the
        model does not depend on the machine.  Reaching it stops the search
        with status ``"memory_limit"``, the best list and a valid lower
        bound; with ``max_card="auto"``, two-condition antecedents are mined
        only when all pairs of conditions would take at most a third of it.
        ``"auto"``: half the available memory, at most 4 GB.  A value below
        what mining or the first search needs is an error naming the number
        needed.
    reference : None, "gbdt" or a scikit-learn classifier, default=None
        Opt-in reference-guided search: the reference model is fitted on the
        binarized conditions (``"gbdt"``: a 40-tree, depth-3
        ``GradientBoostingClassifier``; a classifier you pass is cloned), and
        its training mistakes bound the search from below.  Much faster on
        large problems; the certificate is then ``"optimal_relative"``: no
        list beats the returned one among the lists that, on the samples each
        of their prefixes leaves uncaptured, make at least as many mistakes
        as the reference.  A reference that cannot be fitted is a
        ``ValueError``.  See ``docs/corels.md``.
    max_work : int, "auto" or None, default="auto"
        Work budget, in the units of :func:`rulekit.corels.search`'s
        ``max_work`` (sets of samples counted, weighted by their size).  It
        decides when a search stops, so the same data give the same model on
        any machine at any load.  ``"auto"``: 3e9 units for the whole fit and
        4e8 for any one search of the path (about 10 and 1.5 CPU seconds on
        the benchmark machine); with a fixed ``c`` and ``max_card``, 3e9 for
        the one search.  None: no budget for the model's search.  The path's
        points (``c="auto"`` or ``max_card="auto"``) keep the budgets of
        ``"auto"``, so the path always ends, and the chosen point is then
        searched to the end.  Without a ``time_limit`` that may never end:
        the fit warns when it starts, shows its progress on stderr, and
        Ctrl-C returns the best list with a valid lower bound (status
        ``"interrupted"``, one ``ConvergenceWarning``).  A search that spends
        its budget stops with status ``"work_limit"``, its best list and a
        valid lower bound.
    time_limit : float or None
        Seconds for the whole fit (binarization, mining, the path and the
        searches); reaching it stops the search.  A safety net: the model
        then depends on the machine's speed, which ``max_work`` does not.
    random_state : int, default=0
        Seed of the ``"gbdt"`` reference (the search itself is deterministic).
    verbose : int, default=0
        1 or more: a progress bar on stderr (nodes, best objective, lower
        bound, gap, memory, rate).
    trace : {None, "events"}, default=None
        ``"events"``: record the search as an event log (``result_.events``:
        each expansion with its lower bound, each prune with the bound that
        made it, each new best list; see :func:`rulekit.corels.search`), as
        the teaching explorer's search replay shows it.  With ``c="auto"``
        or ``max_card="auto"`` only the chosen search is recorded: after the
        path, that one search is run again with the same columns, ``c`` and
        work budget (the search is deterministic, so it finds the same list
        and bound), and ``result_``, ``stats_`` and ``trace_`` are that run's.
        Not available with ``forbidden``, ``required`` or ``fairness``.
        None (default): nothing is recorded and the search runs the kernel
        compiled without the log.
    callback : callable or None, default=None
        ``callback(state) -> bool``, called with the search's progress (a
        :class:`rulekit._anytime.SearchState`: nodes, best objective, lower
        bound) about four times a second; True stops the search with its
        best list and a valid lower bound (status ``"interrupted"``, one
        ``ConvergenceWarning``).  ``rulekit.callbacks.stop_at_gap(0.01)``
        stops once no list can be more than 1 % better.  With ``c="auto"``
        or ``max_card="auto"`` it sees every search of the path and of the
        cross-validation, and a stop ends the path there.  See
        :mod:`rulekit.callbacks`.

    Attributes
    ----------
    model_ : RuleList
        The rule list, with each rule's training class counts.
    c_ : float
        The penalty of the returned list (``c``, or the one ``"auto"`` chose).
    max_card_ : int
        Most conditions per antecedent the returned list was searched over.
    selection_ : Selection or None
        With ``c="auto"`` or ``max_card="auto"``: every search of the path
        (``path``), the points compared (``candidates``, with
        ``table()``), the one chosen and how (``folds``).
    result_ : CorelsResult
        The engine's full result.
    certificate_ : Certificate
        ``status``, ``objective``, ``lower_bound`` (certified lower bound on
        the optimal objective, equal to the objective when proved optimal),
        ``gap``, ``scope`` and ``proved_optimal``.
    stats_ : dict
        Nodes evaluated/inserted, pruning counts per bound, sizes, times.
    trace_ : dict of ndarray
        Sampled progress of the search (see :func:`rulekit.plotting.plot_corels_trace`).
    antecedents_ : AntecedentSet
    classes_, n_features_in_, feature_names_in_, binarizer_ : as usual

    Notes
    -----
    When a node, memory or time limit (or Ctrl-C) stops the search, the best list
    found is kept, ``certificate_.proved_optimal`` is false, and one
    ``ConvergenceWarning`` reports the gap between its objective and the
    lower bound.
    """

    _rulekit_parameters = {
        **pick(SEARCH_PARAMETERS, "policy", "symmetry", "bounds", "max_nodes",
               "max_memory", "time_limit"),
        "c": AnyOf(Real(0, None), Options("auto")),
        "max_work": AnyOf(Integer(1), Options("auto"), allow_none=True),
        "reference": AnyOf(Options("gbdt"), Instance((ClassifierMixin,),
                                                      what="a scikit-learn classifier"),
                           allow_none=True),
        "max_card": AnyOf(Integer(1), Options("auto")),
        "min_support": Real(0, 1, closed="right", allow_none=True),
        **pick(Binarizer._rulekit_parameters, *ESTIMATOR_PARAMETERS),
        "thresholds": Options("auto", "quantile", "reference"),
        **pick(COMMON_PARAMETERS, "random_state", "verbose", "callback"),
        **pick(SEARCH_PARAMETERS, "trace"),
        "forbidden": Instance((list, tuple), "a list of column names or conditions",
                              allow_none=True),
        "required": Instance((list, tuple), "a list of column names or conditions",
                             allow_none=True),
        # its three parts are checked by fairness_groups, with the data
        "fairness": Instance((list, tuple), "a tuple (kind, group column, largest difference)",
                             allow_none=True),
    }
    _learner = "corels"
    _multiclass = True
    _mines = True
    # the minimum-support theorem is about overall support, so mine on it
    _per_class_mining = False
    # the search sees rows only through class counts per distinct row
    _on_counts = True
    _weights_are_counts = True
    _fits_sources = True
    _keeps_rows = True

    def __init__(self, c="auto", max_card="auto", min_support=None, n_thresholds=9,
                 categorical_features=None, min_frequency=0.01, max_categories=None,
                 handle_unknown="warn", thresholds="auto", policy="lower_bound",
                 symmetry="permutation", bounds="all", max_nodes=None, max_memory="auto",
                 reference=None, max_work="auto", time_limit=None, random_state=0, verbose=0,
                 forbidden=None, required=None, fairness=None, trace=None, callback=None):
        self.c = c
        self.max_work = max_work
        self.max_card = max_card
        self.min_support = min_support
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.thresholds = thresholds
        self.policy = policy
        self.symmetry = symmetry
        self.bounds = bounds
        self.max_nodes = max_nodes
        self.max_memory = max_memory
        self.reference = reference
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.forbidden = forbidden
        self.required = required
        self.fairness = fairness
        self.trace = trace
        self.callback = callback

    def fit(self, X, y=None, sample_weight=None):
        """Binarize ``X``, mine antecedents and search for the optimal rule list.

        The search sees the distinct binarized rows with their class counts,
        so a fit costs what the distinct patterns cost, not what the rows
        cost; data larger than memory are read in two passes without holding
        their rows (``docs/streaming.md``, ``docs/distributed.md``).

        Parameters
        ----------
        X : DataFrame, array-like, rulekit.stream.Files, rulekit.stream.Chunks, \
dask DataFrame or rulekit.stream.Counts
            Numeric and categorical columns; missing values allowed.  Files
            (parquet or CSV, globs) and chunks name their label column
            (``target=``); a dask DataFrame is counted on its workers.
        y : array-like of shape (n_samples,), dask Series, or None
            Class labels (strings, ints or bools); None for files, chunks and
            counts, which hold their labels.
        sample_weight : array-like of shape (n_samples,), optional
            Frequency weights: a row of weight ``k`` counts as ``k`` identical
            rows (whole numbers >= 0; the search counts mistakes exactly, so a
            fractional weight is a ``ValueError``).  The result is the one on
            the data with each row repeated as its weight says.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    # -- the fit's hooks (rulekit.base): functions of their arguments -----------------
    def _inputs(self, X, params) -> dict:
        # the fairness groups come from the raw column, which may be forbidden as a feature
        # max_work=None without a time limit: an unbounded search, asked for knowingly
        _auto.warn_unbounded(params["max_work"], params["time_limit"])
        return {"groups": fairness_groups(X, params["fairness"])}

    def _binarizer(self, params, n_rows) -> Binarizer:
        if params["thresholds"] == "auto":
            # reference thresholds need an ensemble fitted on enough rows
            # (n_rows None: a source not yet read, large as a rule)
            kind = "reference" if n_rows is None or n_rows >= REFERENCE_MIN_ROWS else "quantile"
            params = {**params, "thresholds": kind}
        return super()._binarizer(params, n_rows)

    def _fits_on_counts(self, params) -> bool:
        # the constrained search reads a group per row, and forbids or requires
        # per row: it keeps the rows
        return self._on_counts and not _constrained(params)

    def _may_validate(self, params):
        return params["c"] == "auto" and not _constrained(params)

    def _fold_splits(self, n_folds, n_rows, class_totals, params):
        # counted data: the hash folds; k-fold on small data, one fold held out on large
        if class_totals.min() < _auto.FOLDS:
            return None
        if n_rows <= _auto.LARGE_ROWS:
            return np.eye(n_folds, dtype=bool)
        return np.arange(n_folds)[:, None] == 0

    def _validation_splits(self, y, params):
        if params["c"] != "auto" or _constrained(params) or np.bincount(y).min() < _auto.FOLDS:
            return None     # nothing is validated (see _auto.select)
        splits = cv_splits(y, params["random_state"])
        tested = np.zeros((len(y), len(splits)), dtype=bool)
        for s, (_, test) in enumerate(splits):
            tested[test, s] = True
        return tested

    def _resolve_max_card(self, params, B, n_rows) -> int:
        if params["max_card"] == "auto":
            return _auto.mining_card(B.shape[1], n_rows, _memory_limit_mb(params))
        return params["max_card"]

    def _resolve_min_support(self, params, n_rows) -> float:
        if params["min_support"] is None and params["c"] == "auto":
            # mined at the smallest penalty of the path: every larger one is covered too
            return min(_auto.path_penalties(n_rows))
        if params["min_support"] is None:
            # c = 0 gives no support bound: keep every antecedent seen at least once
            # (mlxtend needs a positive threshold: MIN_SUPPORT_FLOOR)
            return min(max(params["c"], MIN_SUPPORT_FLOOR), 1.0)
        return params["min_support"]

    def _mining_bytes(self, params) -> int | None:
        return int(_memory_limit_mb(params) * 2**20)

    def _solve(self, data: FitData) -> FitOutcome:
        params, A, y, antecedents = data.params, data.A, data.y, data.antecedents
        weight = None if data.weight is None else data.weight.astype(np.int64)
        # the training rows (distinct, with their counts), packed, for rashomon_set
        # (mining again at another support) and the explorer
        if data.rows is not None and data.n_samples == data.rows[2]:
            # the rows as given, in their order (no weights: one row each)
            train = (*data.rows, None)
        else:
            kept = replace(data, tested=None).distinct() if data.count is not None else data
            train = (pack(kept.B.T), np.asarray(kept.y, dtype=np.int64), kept.n_rows,
                     None if kept.weight is None else kept.weight.astype(np.int64))
        cards = np.array([len(item) for item in antecedents.items], dtype=np.int64)
        fitted = {"_train": train, "max_card_": int(cards.max()) if cards.size else 1}
        if _constrained(params):
            if params["trace"] is not None:
                raise ValueError("trace='events' records the CORELS search; the constrained "
                                 "search (forbidden, required, fairness) has no event log")
            c = _auto.CONSTRAINED_C if params["c"] == "auto" else params["c"]
            fitted.update(c_=c, selection_=None)
            if data.count is not None:
                # the constrained search takes rows: whole weights become copies of the row
                keep = np.repeat(np.arange(data.n_rows), data.count)
                groups = data.views["groups"]
                data = replace(data, B=data.B[keep], y=data.y[keep], count=None,
                               antecedents=replace(antecedents, packed=pack(
                                   antecedents.matrix[keep].T), n_samples=keep.size),
                               views={**data.views,
                                      "groups": None if groups is None else groups[keep]})
            return _fit_constrained(data, c, fitted)
        selection = None
        try:
            if params["c"] == "auto" or params["max_card"] == "auto":
                selection, result, columns = _select(A, y, weight, data.tested, cards, params)
                c = selection.chosen.c
                fitted["max_card_"] = int(selection.chosen.card)
            else:
                c = params["c"]
                max_work = (_auto.TOTAL_WORK if params["max_work"] == "auto"
                            else params["max_work"])
                result = search(A, y, c,
                                reference=_reference_predictions(data.B, y, weight, params),
                                max_work=max_work, trace=params["trace"], sample_weight=weight,
                                **_auto.with_memory_left(_search_options(params), A))
                columns = np.arange(A.shape[1])
        except MemoryLimitError as exc:
            held = exc.held_mb or A.nbytes / 2**20
            need = exc.need_mb + held
            raise ValueError(
                f"max_memory={_memory_limit_mb(params):.4g} MB is below the {need:.2f} MB "
                f"this fit needs: the antecedent matrices it holds ({held:.2f} MB) and the "
                f"search's starting arrays ({exc.need_mb:.2f} MB); set max_memory to at least "
                f"{math.ceil(need * 100) / 100:g}") from None
        fitted.update(c_=c, selection_=selection, result_=result, stats_=result.stats,
                      trace_=result.trace)
        mined_at_c = params["min_support"] is None or params["min_support"] <= c
        scope = _scope(data, c, selection, result, columns, cards, mined_at_c)
        cert = Certificate(result.status, result.objective, result.lower_bound, scope,
                           n=data.n_samples if weight is None else int(weight.sum()))
        # mined above c, the minimum-support theorem no longer covers what mining
        # left out: optimal over what was mined only
        certificate = cert if mined_at_c else cert.restricted_to(scope)
        codes = {label: k for k, label in enumerate(result.classes.tolist())}
        model = self._rule_list(data, [antecedents.items[m] for m in result.prefix],
                                [codes[label] for label in result.rule_labels],
                                codes[result.default_label])
        return FitOutcome(model, certificate, data.binarizer, fitted)

    def rashomon_set(self, epsilon, *, max_models=DEFAULT_MAX_MODELS, time_limit=None,
                     verbose=0):
        """Every rule list whose objective is within ``epsilon`` of the optimum.

        Enumerated exactly by :func:`rulekit.corels.rashomon` on the training
        data, with this estimator's ``c`` and binarization.  With the default
        ``min_support=None`` the antecedents are mined again at support
        ``c - epsilon`` (or every antecedent that occurs, when ``epsilon >=
        c``): no list of the set can use a rarer one, so the set covers every
        antecedent of up to ``max_card`` conditions.

        Parameters
        ----------
        epsilon : float
            How far above the optimal objective a list may score (objective
            units: ``0.01`` is one percent of the training rows, or one rule at
            ``c = 0.01``).
        max_models : int
            Most lists to keep.
        time_limit : float or None
            Seconds.
        verbose : int
            1 or more: a progress bar.

        Returns
        -------
        RashomonSet
            The lists (as :class:`~rulekit.models.RuleList`), their
            objectives, an exact count or the limit that stopped it, condition
            importance, per-row disagreement and plots.
        """
        return fit_rashomon_set(self, epsilon, max_models=max_models, time_limit=time_limit,
                                verbose=verbose)


# --- the steps of CorelsClassifier._solve, as functions of the prepared data ---------

def _constrained(params) -> bool:
    """The constrained search (forbidden, required, fairness): no path, no validation."""
    return bool(params["forbidden"] or params["required"] or params["fairness"])


def _memory_limit_mb(params) -> float:
    return default_max_memory() if params["max_memory"] == "auto" else params["max_memory"]


def _search_options(params) -> dict:
    # max_memory in MB: the path takes from it the matrices it holds (_auto.with_memory_left)
    return dict(policy=params["policy"], symmetry=params["symmetry"], bounds=params["bounds"],
                max_nodes=params["max_nodes"], max_memory=_memory_limit_mb(params),
                time_limit=params["time_limit"],
                # an unbounded search shows its progress (see _auto.warn_unbounded)
                verbose=max(params["verbose"],
                            int(params["max_work"] is None and params["time_limit"] is None)))


def _reference_predictions(B, y, weight, params):
    """Fit the reference model on the binarized conditions; its training predictions.

    ``weight``: frequency weights of the (distinct) rows, or None.
    """
    ref = params["reference"]
    if ref is None:
        return None
    model = (GradientBoostingClassifier(n_estimators=GBDT_TREES, max_depth=GBDT_DEPTH,
                                        random_state=params["random_state"])
             if ref == "gbdt" else clone(ref))
    try:
        model.fit(B, y) if weight is None else model.fit(B, y, sample_weight=weight)
        return np.asarray(model.predict(B)).astype(np.int64)
    except Exception as exc:  # any failure: the exact search is still available
        raise ValueError(
            f"CorelsClassifier: the reference model {ref!r} could not be fitted on the "
            f"training data ({type(exc).__name__}: {exc}); use reference=None for the "
            "exact search") from exc


def _select(A, y, weight, tested, cards, params):
    """The default: a certified path over ``c`` (and conditions per rule); see ``_auto``.

<<<<<<< HEAD:rulekit/corels/_estimator.py
    ``weight``: the rows' frequency weights (None: one each); ``tested``: the
    validation splits drawn on the training rows (``FitData.tested``).

    Returns the :class:`~rulekit.corels._auto.Selection`, the chosen search's
=======
    Returns the :class:`~rulekit.estimators.corels_auto.Selection`, the chosen search's
>>>>>>> main:rulekit/estimators/corels.py
    result and the antecedent columns it searched.
    """
    fixed_c = params["c"] != "auto"
    total, per_search = _auto.path_budget(params["max_work"])
    if params["reference"] is not None:
        raise ValueError("reference= needs a fixed c and max_card (the path searches "
                         "exactly); pass for example c=0.01, max_card=2")
    sel = _auto.select(A, y, cards, search_kw=_search_options(params), weight=weight,
                       splits=lambda: _auto.splits_of(tested), total_work=total,
                       search_work=per_search,
                       penalties=[params["c"]] if fixed_c else None,
                       by="objective" if fixed_c else "cv")
    chosen = sel.chosen
    if params["max_work"] is None and sel.stopped is None:
        chosen = _auto.search_to_the_end(A, y, chosen, _search_options(params), weight)
    if chosen.certified and sel.stopped in ("time_limit", "interrupted"):
        # the model is certified at its c, but smaller penalties were never tried
        warnings.warn(
            f"CorelsClassifier: the regularization path stopped early ({sel.stopped}) "
            f"after {len(sel.candidates)} certified points; c = {chosen.c:g} is the best "
            "of those. Raise time_limit to try smaller penalties.",
            ConvergenceWarning, stacklevel=5)
    if params["trace"] is not None:
        return sel, _replay_chosen(A, y, weight, chosen, params), chosen.columns
    return sel, chosen.result, chosen.columns


def _replay_chosen(A, y, weight, chosen, params):
    """The chosen search of the path again, recording its event log (``trace``)."""
    cols = chosen.columns
    sub = A if cols.size == A.shape[1] else A[:, cols]
    kept = chosen.result
    # a search that finished needs no budget (with its own spent work as the cap it
    # would stop while popping its last, stale queue entries); one that ran out stops
    # at the same round with the work it spent as the budget
    work = kept.stats.get("work") if kept.status == "work_limit" else None
    res = search(sub, y, chosen.c, max_work=work, trace=params["trace"], sample_weight=weight,
                 **_auto.with_memory_left(_search_options(params), A, sub))
    prefix = tuple(int(cols[a]) for a in res.prefix)
    if prefix != kept.prefix or res.status != kept.status:  # pragma: no cover - determinism
        warnings.warn("CorelsClassifier: the recorded search did not repeat the chosen one; "
                      "result_ keeps the chosen search, its events the recorded one",
                      RuntimeWarning, stacklevel=6)
        return replace(kept, events=res.events)
    events = dict(res.events, prefix=[tuple(int(cols[a]) for a in p)
                                      for p in res.events["prefix"]])
    return replace(res, prefix=prefix, events=events)


def _scope(data, c, selection, result, columns, cards, mined_at_c) -> str:
    """The certificate's scope, in words."""
    params = data.params
    card = int(cards[columns].max()) if columns.size else 1
    kind = {"reference": "thresholds from a boosted reference ensemble",
            "quantile": "quantile thresholds"}[data.binarizer.thresholds]
    n_cond = len(data.binarizer.conditions_)
    if mined_at_c:
        scope = (f"all rule lists whose rules are conjunctions of up to {card} of these "
                 f"{n_cond} conditions ({kind})")
    else:
        scope = (f"rule lists over the {len(data.antecedents)} antecedents mined at min_support="
                 f"{params['min_support']:g} > c")
    if result.reference:
        scope = f"{scope}, among the {REFERENCE_SCOPE} ({params['reference']!r})"
    text = corels_scope(scope, c)
    sel = selection
    if sel is not None and params["c"] == "auto" and sel.folds:
        hashed = data.views.get("folds") == "hash"
        how = ("one of 5 hash folds held out" if hashed and sel.folds == 1 else
               f"{sel.folds}-fold cross-validation on hash folds" if hashed else
               f"a {_auto.HOLDOUT:.0%} hold-out" if sel.folds == 1 else
               f"5-fold cross-validation repeated {sel.folds // 5} times" if sel.folds > 5
               else f"{sel.folds}-fold cross-validation")
        text += (f"; c = {c:g} chosen by {how} among {len(sel.candidates)} points of a "
                 "regularization path")
    return text


def _fit_constrained(data, c, fitted) -> FitOutcome:
    """The certified search under ``forbidden``, ``required`` and ``fairness``."""
    params, y, antecedents = data.params, data.y, data.antecedents
    conds, feats = data.binarizer.conditions_, data.binarizer.feature_names_in_
    forbidden = set().union(*resolve_names(params["forbidden"] or [], conds, feats,
                                           "forbidden"))
    required = resolve_names(params["required"] or [], conds, feats, "required")
    for name, needed in zip(params["required"] or [], required):
        if needed <= forbidden:
            raise ValueError(f"required: {name!r} is also forbidden")
    keep = [a for a, item in enumerate(antecedents.items) if not set(item) & forbidden]
    items = [antecedents.items[a] for a in keep]
    A = data.A[:, keep]
    fair = params["fairness"]
    if fair is not None and data.n_classes != 2:
        raise ValueError("fairness: a limit between groups needs a binary target; y has "
                         f"{data.n_classes} classes")
    cons = Constraints(
        np.array([[bool(set(item) & need) for item in items] for need in required],
                 dtype=bool).reshape(len(required), len(items)),
        data.views["groups"], None if fair is None else fair[0],
        0.0 if fair is None else float(fair[2]), positive=1)
    result = constrained_search(A, y, c, cons, time_limit=params["time_limit"],
                                verbose=params["verbose"])
    terms = []
    if forbidden:
        terms.append("use none of " + ", ".join(map(repr, params["forbidden"])))
    if required:
        terms.append("use each of " + ", ".join(map(repr, params["required"])))
    if fair is not None:
        terms.append(f"keep the {fair[0].replace('_', ' ')} difference between the two "
                     f"groups of {fair[1]!r} within {float(fair[2]):g}")
    scope = corels_scope(f"rule lists over antecedents of up to {fitted['max_card_']} "
                         "conditions that " + " and ".join(terms), c)
    if not np.isfinite(result.objective):
        warnings.warn("no rule list satisfies the constraints"
                      if result.status == "infeasible" else
                      f"no rule list satisfying the constraints was found ({result.status}); "
                      "the model predicts the majority class", UserWarning, stacklevel=5)
    certificate = Certificate(result.status, result.objective,
                              None if result.status == "infeasible"
                              else result.lower_bound, scope, n=len(y))
    rule = first_match(A, [(a,) for a in result.prefix])  # len(prefix): the default
    labels = [int(np.bincount(y[rule == k], minlength=data.n_classes).argmax())
              for k in range(len(result.prefix) + 1)]
    model = RuleClassifierBase._rule_list(data, [items[a] for a in result.prefix],
                                          labels[:-1], labels[-1])
    return FitOutcome(model, certificate, data.binarizer,
                      {**fitted, "result_": result, "stats_": {}, "trace_": {}})


def fit_rashomon_set(est, epsilon, *, max_models, time_limit, verbose) -> RashomonSet:
    """The body of :meth:`rulekit.CorelsClassifier.rashomon_set`."""
    check_is_fitted(est, "model_")
    eps = check(RASHOMON_PARAMETERS["epsilon"], epsilon, "epsilon", "rashomon_set")
    params = est._fit_params_    # what the fit used, not what is set on est now
    c, packed_B, codes, n, counts = est.c_, *est._train
    antecedents = est.antecedents_
    if counts is not None:
        # the fit searched distinct rows; the set's per-row views are over the rows
        B = np.repeat(unpack(packed_B, n).T, counts, axis=0)
        codes, n = np.repeat(codes, counts), int(counts.sum())
        packed_B = pack(B.T)
    if params["min_support"] is None:
        # a rule of a list in the set classifies at least (c - epsilon) N rows correctly
        support = max(c - eps, 0.5 / n)
        B = unpack(packed_B, n).T
        antecedents = mine_antecedents(B, codes, min_support=min(support, 1.0),
                                       max_card=est.max_card_, per_class=False,
                                       conditions=est.binarizer_.conditions_)
        scope = (f"every rule list over antecedents of up to {est.max_card_} conditions "
                 f"(none rarer than {support * n:.0f} rows can be in the set)")
    else:
        scope = (f"rule lists over the {len(antecedents)} antecedents mined at "
                 f"min_support={params['min_support']:g}")
    # over the training rows, whichever rows the antecedents were mined on
    A = antecedents.transform(unpack(packed_B, n).T)
    result = rashomon(A, codes, c, eps, max_models=max_models, time_limit=time_limit,
                      verbose=verbose)
    return RashomonSet(result, antecedents, est.binarizer_.conditions_, est.classes_, A,
                       codes, est.binarizer_, corels_scope(scope, c))


# --- constraints from the estimator's parameters (with the data: DataFrames, names) ---------

def resolve_names(names, conditions, feature_names, parameter) -> list:
    """Condition indices named by each entry of ``names`` (a feature or a condition's text).

    A feature name stands for every condition on that feature.  An unknown
    name is a ``ValueError`` naming the parameter and the closest matches.
    """
    texts = [str(cond) for cond in conditions]
    features = [str(f) for f in feature_names]
    out = []
    for name in names:
        name = str(name)
        if name in features:
            out.append({j for j, cond in enumerate(conditions) if cond.feature == name})
        elif name in texts:
            out.append({texts.index(name)})
        else:
            close = difflib.get_close_matches(name, features + texts, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise ValueError(
                f"{parameter}: {name!r} is neither an input column nor a condition of the "
                f"binarized data (columns: {', '.join(features)}; conditions are written like "
                f"{texts[0]!r} if any){hint}")
    return out


def fairness_groups(X, fairness):
    """Check ``fairness = (kind, column, delta)``; the column's two groups as a bool array."""
    if fairness is None:
        return None
    if len(fairness) != 3:
        raise ValueError("fairness must be a tuple (kind, group column, largest difference), "
                         f"e.g. ('statistical_parity', 'sex', 0.05); got {fairness!r}")
    kind, column, delta = fairness
    if kind not in FAIRNESS:
        raise ValueError(f"fairness: kind must be one of {FAIRNESS}, got {kind!r}")
    if isinstance(delta, bool) or not isinstance(delta, (int, float, np.number)) \
            or not 0 <= float(delta) <= 1:
        raise ValueError(f"fairness: the largest difference must be a number in [0, 1], "
                         f"got {delta!r}")
    if isinstance(X, pd.DataFrame):
        if column not in X.columns:
            raise ValueError(f"fairness: group column {column!r} is not a column of X")
        values = X[column]
    else:
        arr = np.asarray(X, dtype=object)
        if not isinstance(column, (int, np.integer)) or not 0 <= column < arr.shape[1]:
            raise ValueError(f"fairness: for an array X the group column must be a position "
                             f"in [0, {arr.shape[1]}), got {column!r}")
        values = pd.Series(arr[:, column])
    if values.isna().any():
        raise ValueError(f"fairness: group column {column!r} has missing values; every row "
                         "needs a group")
    groups = pd.unique(values)
    if len(groups) != 2:
        raise ValueError(f"fairness: group column {column!r} must hold exactly two groups, "
                         f"found {len(groups)} ({', '.join(map(str, groups[:5]))})")
    return (values == sorted(groups, key=str)[0]).to_numpy()


def cv_splits(y, random_state) -> list:
    """Validation splits of the ``c`` path: stratified k folds, or one hold-out on large data."""
    n = len(y)
    if n <= _auto.LARGE_ROWS:
        repeats = _auto.SMALL_REPEATS if n <= _auto.SMALL_ROWS else 1
        return list(RepeatedStratifiedKFold(n_splits=_auto.FOLDS, n_repeats=repeats,
                                            random_state=random_state).split(np.zeros(n), y))
    return list(StratifiedShuffleSplit(1, test_size=_auto.HOLDOUT, random_state=random_state)
                .split(np.zeros(n), y))
