"""The part every rulekit estimator shares.

A fit is one pipeline, the same for every learner (``docs/architecture.md``):

``_prepare(X, y, sample_weight, params) -> FitData``
    validates the input, fits the binarizer, binarizes, mines the
    antecedents (where the learner mines) and builds the learner's further
    views (:meth:`RuleClassifierBase._views`);
``_solve(data) -> FitOutcome``
    the learner's one required method: runs its engine on the
    :class:`rulekit._fitdata.FitData` and returns a
    :class:`rulekit._fitdata.FitOutcome` (model, certificate, the binarizer
    the model is written over, further fitted attributes).  It writes
    nothing to ``self``;
``_wrap(data, outcome)``
    sets every fitted attribute at once.

Parameters are checked once per fit, at its start; the checked values travel
in ``FitData.params`` (and are kept as ``_fit_params_``, for the methods that
work on a fitted estimator later, such as ``rashomon_set``).

Contract for a learner's estimator (``rulekit/estimators/<learner>.py``):

* subclass :class:`RuleClassifierBase`; ``__init__`` stores its parameters
  untouched (sklearn rule), using the shared names ``min_support``,
  ``max_card``, ``n_thresholds``, ``categorical_features``, ``time_limit``,
  ``random_state``, ``verbose`` where they apply, and ``callback`` always
  (the base class hands it to the run around the fit: nothing else to do);
* declare every parameter once in ``_rulekit_parameters`` (see
  :mod:`rulekit._params`), sharing the engine's declarations;
* set the class attributes ``_learner`` (name for logging), ``_multiclass``
  (may ``y`` have more than two classes?), ``_mines`` (does the learner
  search over mined antecedents, or over the binarized conditions
  directly?), ``_negations`` (should the binarizer emit ``!=`` conditions?),
  ``_per_class_mining``, ``_on_counts`` (does the learner search the
  distinct binarized rows, each weighted by how many rows it stands for?),
  ``_weights_are_counts`` (are whole ``sample_weight`` copies of the row?)
  ``_fits_sources`` (does ``fit`` also read files, chunks, dask frames
  and counts?) and ``_packed_counts`` (may rows counted from a source stay
  packed, eight conditions to a byte?);
* implement :meth:`RuleClassifierBase._solve`;
* optionally override the hooks, each a function of what it is given:
  :meth:`RuleClassifierBase._binarizer`, ``_resolve_min_support``,
  ``_resolve_max_card``, ``_resolve_max_antecedents`` (a cap on the pool and
  which antecedents it keeps), ``_mining_bytes``, ``_inputs`` (facts read
  from the raw input before binarizing) and ``_views``; for a fit from a
  source, ``_may_validate`` (whether rows are hashed to folds), ``_fold_splits``,
  ``_counted_binarizer`` (what pass 2 counts over)
  and ``_from_counts`` (the counts as the learner's :class:`FitData`).

The whole fit runs inside one :class:`rulekit._anytime.Anytime` run, so
``time_limit`` counts from the start of ``fit`` and Ctrl-C at any point
returns the best model found.  ``predict``, ``predict_proba``, ``score`` and
``str()`` work for every learner the same way.
"""

from __future__ import annotations

import gc
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (_get_feature_names, _num_features, check_array,
                                      check_consistent_length, check_is_fitted, column_or_1d,
                                      validate_data)

from ._anytime import (Anytime, current_run, give_back_freed_memory, memory_budget_mb,
                       stop_if_short)
from ._checks import check_counts, check_sample_weight
from ._columns import check_unique_columns
from ._fitdata import FitData, FitOutcome
from ._patterns import condition_bitsets
from ._params import COMMON_PARAMETERS, validate
from .binarize import Binarizer, _plain
from .bitset import pack
from .evaluate import capture_counts
from .mining import MINING_PARAMETERS, AntecedentSet, mine_antecedents
from .models import Rule, RuleList, label_array
from .explore import explore as _explore
from .export import to_python, to_sql
from .persist import Predictor
from .estimators.sources import count_source, dask_predict, fitdata_from_counts, is_dask, is_source
from .stream import fit_binarizer

#: hash folds counted for a fit from a source (``rulekit/estimators/sources.py``)
SOURCE_FOLDS = 5
#: rows x input columns from which an in-memory fit on counts folds its rows from their
#: packed bytes (``FitData.from_packed``); below it the boolean matrix of every row is
#: small, and a first fit compiles no kernel for the packed path
PACKED_FOLD_CELLS = 1 << 20
#: ...and rows from which it does: the packed path saves the memory of many rows, while
#: a few rows of wide data make a small boolean matrix however many columns there are,
#: and the boolean path learns and binarizes column by column under the fit's deadline
#: (packed, every learned column is binarized after the learning: 60 rows of 20,000
#: columns ran 2 to 5 CPU s past a 5 s time limit)
PACKED_FOLD_ROWS = 4096

#: Rows in memory: the search stops at once when less than this share of the time the
#: preparation took (validation, binarization, grouping, mining) is left for it, since its
#: set-up on many rows does not look at the clock.  Measured at a million rows: the
#: falling list's set-up 0.65 s after 2.86 s of preparation (0.23), column generation's
#: pairs 0.85 s after 2.73 s (0.31).
SEARCH_SETUP_RESERVE = 0.5


def _search_would_stop() -> bool:
    """Whether the open run's search would stop at once: past its limit (or Ctrl-C), or
    with less time left than the search's set-up on rows in memory takes (up to
    :data:`SEARCH_SETUP_RESERVE` times the time spent so far), in which case the run's
    deadline is moved to now (:func:`~rulekit._anytime.stop_if_short`)."""
    run = current_run()
    return run is not None and (run.limit_reached() is not None
                                or stop_if_short(SEARCH_SETUP_RESERVE * run.elapsed))


def _source_learners() -> list:
    """The estimator classes (loaded so far) whose ``fit`` reads sources."""
    found, todo = set(), list(RuleClassifierBase.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls._fits_sources and not cls.__name__.startswith("_"):
            found.add(cls.__name__)
    return sorted(found)

__all__ = ["RuleClassifierBase", "COMMON_PARAMETERS"]


_ADVICE = {
    "time_limit": " To search longer, raise time_limit.",
    "node_limit": " To search longer, raise max_nodes.",
    "work_limit": " To search longer, raise max_work.",
    "memory_limit": " To search longer, raise max_memory.",
    "interrupted": "",
}


def _label_kind(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    if isinstance(v, str):
        return "str"
    return type(v).__name__


def _unique_labels(y: np.ndarray) -> tuple:
    """``numpy.unique(y, return_inverse=True)``, faster for text labels.

    An object array is grouped by hashing (``pandas.factorize``) and only its
    distinct values are sorted: ``numpy.unique`` sorts every row's label in
    Python (1.1 s for a million text labels, against 0.05 s).  The classes
    and codes are the same, since both take values equal under ``==`` as one.
    """
    if y.dtype != object:
        return np.unique(y, return_inverse=True)
    codes, uniques = pd.factorize(y)
    classes, remap = np.unique(np.asarray(uniques, dtype=object), return_inverse=True)
    return classes, remap.reshape(-1)[codes]


def _check_label_kinds(y: np.ndarray) -> None:
    """Refuse labels scikit-learn would call "continuous" or "unknown", in our words.

    Whole-number floats (0.0, 1.0) are accepted as classes, as scikit-learn
    does: they are what reading integer labels with missing values gives.
    Numbers with a fraction (0.5) are a regression target, and labels of
    several kinds in one object array (1 and 2.5, 1 and "a") compare
    unpredictably; both are refused here, naming the labels.
    """
    if y.dtype == object:
        # the kinds are read per Python type, a vectorized pass over the rows each (a
        # loop over millions of labels in Python took seconds)
        types = np.frompyfunc(type, 1, 1)(y)
        kinds, floats = {}, np.zeros(len(y), dtype=bool)
        for t in pd.unique(types):
            of_type = types == t
            values = y[of_type]
            present = values[~pd.isna(values)]
            if present.size:
                kinds.setdefault(_label_kind(present[0]), present[0])
            if issubclass(t, (float, np.floating)):
                floats |= of_type
        if len(kinds) > 1:
            shown = ", ".join(f"{v!r} ({k})" for k, v in kinds.items())
            raise ValueError(f"y mixes labels of different kinds: {shown}; convert them to one "
                             "kind first, e.g. y.astype(str), or y.astype(int) for whole numbers")
        values = y[floats]
    elif y.dtype.kind == "f":
        values = y
    else:
        return
    values = np.asarray(values, dtype=float)
    fractional = np.unique(values[np.isfinite(values) & (values != np.round(values))])
    infinite = np.unique(values[np.isinf(values)])
    if fractional.size or infinite.size:
        shown = ", ".join(repr(float(v)) for v in [*fractional[:3], *infinite[:1]])
        # "continuous" is scikit-learn's word for such a target (its estimator checks look for it)
        raise ValueError(f"y holds numbers that are not whole ({shown}): a continuous target, "
                         "and rulekit learns classifiers; pass class labels (text, integers, "
                         "booleans or whole-number floats), e.g. bin a numeric target with "
                         "pd.cut, or map codes to names")


def _frequencies(data: FitData):
    """How many rows each row counts as: its weight when whole, else its count.

    The miner's supports and the rules' printed counts are in these units, so
    a row of weight ``k`` reads as ``k`` identical rows; fractional weights
    (which cannot be counted exactly) fall back to rows.  None: one each.
    """
    w = data.weight
    if w is None or data.sample_weight is None:
        return w
    return w if np.all(w == np.floor(w)) else data.count


class RuleClassifierBase(ClassifierMixin, BaseEstimator):
    """Shared validation, binarization, mining and prediction.

    Subclasses provide ``__init__`` and :meth:`_solve`; see the module
    docstring for the full contract.
    """

    # {name: Constraint} (rulekit._params), checked by fit.  Not named
    # _parameter_constraints: scikit-learn reads that name with its own schema
    # (lists of constraints) in BaseEstimator._validate_params.
    _rulekit_parameters: dict = {}
    _learner = "rules"
    _multiclass = True
    _mines = True
    _negations = False
    _per_class_mining = True
    #: the learner searches distinct rows, each weighted by its class counts
    #: (``FitData.distinct``), for the parameters where ``_fits_on_counts`` says so
    _on_counts = False
    #: whole-number ``sample_weight`` are frequencies: a row of weight k is k copies
    #: (``FitData.count``); anything fractional is a ValueError
    _weights_are_counts = False
    #: ``fit`` also reads files, chunks, dask frames and counts (``rulekit/estimators/sources.py``)
    _fits_sources = False
    #: what the fit does after counting a source (mining, the search's set-up) costs about
    #: this many times the counting pass's seconds per row, per distinct pattern: under a
    #: time limit the passes stop early enough for it (``stream.count``'s ``cost_after``).
    #: Measured at ten million adult-like rows: 2.4 for column generation, 4.9 to 5.3 for
    #: CORELS, 2.9 for the falling lists; the learners keep about 1.3 to 1.7 times that
    _cost_after_counting = 7.0
    #: keep the training rows as given, packed (``FitData.rows``), for per-row views
    #: after folding (CORELS's ``rashomon_set`` and the explorer)
    _keeps_rows = False
    #: counted from a source, ``FitData.B`` stays packed eight conditions to a byte
    #: (:class:`rulekit._patterns.PackedBits`), for a learner that reads its rows a
    #: block at a time (column generation); the others get the boolean matrix
    _packed_counts = False

    # -- hooks: each a function of its arguments, none writes to self -------------
    def _inputs(self, X, params: dict) -> dict:
        """Facts the learner reads from the validated input before it is binarized."""
        return {}

    def _binarizer(self, params: dict, n_rows: int) -> Binarizer:
        """The Binarizer, given the binarization parameters this learner exposes."""
        shared = {k: params[k] for k in Binarizer._rulekit_parameters if k in params}
        return Binarizer(**shared, negations=self._negations)

    def _resolve_min_support(self, params: dict, n_rows: int) -> float:
        """Mining threshold to use (``params`` are the validated parameters)."""
        return params["min_support"]

    def _mining_bytes(self, params: dict) -> int | None:
        """Most bytes the mined antecedents may take (None: no limit)."""
        return int(memory_budget_mb() * 2**20)

    def _resolve_max_card(self, params: dict, B, n_rows: int) -> int:
        """Most conditions per mined antecedent, given the condition matrix ``B``.

        ``n_rows`` counts the training rows, which ``B`` may hold folded.
        """
        return params["max_card"]

    def _keeps_antecedent_bits(self, max_card: int) -> bool:
        """Keep the mined antecedents' row bits (``AntecedentSet.packed``)?  A learner
        that evaluates them from their conditions itself says no, and mining then
        takes no memory per antecedent and row."""
        return True

    def _fits_on_counts(self, params: dict) -> bool:
        """Fold identical rows before mining and searching (``FitData.distinct``)?

        Every objective sees the rows only through class counts per distinct
        row, so folding changes no result and makes a fit cost what the
        distinct patterns cost.  A learner says no where it reads something
        per row that the binarized row does not hold (e.g. a group column).
        """
        return self._on_counts

    def _fold_splits(self, n_folds: int, n_rows: int, class_totals, params: dict):
        """Which hash folds each validation split holds out, for data counted from a source.

        Returns a bool matrix ``(n_folds, n_splits)`` (``[f, s]``: split ``s``
        holds fold ``f`` out), or None when the learner validates nothing.
        Only called when :meth:`_may_validate` is true.
        """
        return None

    def _may_validate(self, params: dict) -> bool:
        """Whether these parameters may validate on hash folds (:meth:`_fold_splits`).

        When they cannot, a source is counted in one fold: no row is hashed
        for its fold, and each distinct row keeps one count instead of one
        per fold (at ten million rows, about 1.4 CPU s and 118 MB of table less).
        """
        return False

    def _counted_binarizer(self, params: dict, summary, template):
        """What a source's rows are counted over: a binarizer fitted on pass 1's summary.

        ``summary`` is the merged :class:`rulekit.stream.Summary` (rows,
        classes, per-column values) and ``template`` the unfitted
        :meth:`_binarizer`.  A learner that searches more than one
        binarization returns a :class:`rulekit.estimators.sources.Stacked`
        of them, so one counting pass serves all (see :meth:`_from_counts`).
        """
        return fit_binarizer(summary, template)

    def _from_counts(self, counts, params: dict, splits, owned: bool = False) -> FitData:
        """The :class:`FitData` of a source's counts (``splits``: see :meth:`_fold_splits`).

        ``owned``: the counts were made by this fit (from files, chunks or a dask
        frame), not given by the caller, so a learner may reorder their arrays in place.
        """
        return fitdata_from_counts(counts, params, splits)

    def _validation_splits(self, y, params: dict) -> np.ndarray | None:
        """The validation splits the learner will use, drawn on the training rows.

        ``y`` holds the class of every training row (a row given a whole
        weight ``k`` by a learner with ``_weights_are_counts`` is ``k`` rows
        here).  Returns a bool matrix ``(len(y), n_splits)``: column ``s``
        marks the rows split ``s`` holds out; or None when the learner
        validates nothing.  Drawn before rows are folded, so that a fit on
        counts validates exactly as one on rows (``FitData.tested``).
        """
        return None

    def _resolve_max_antecedents(self, params: dict, data: FitData) -> tuple:
        """``(max_antecedents, prefer)`` for the miner (None: keep every antecedent).

        ``data`` is the prepared data so far (rows, weights; no antecedents yet).
        """
        return None, "support"

    def _views(self, X, data: FitData, inputs: dict) -> dict:
        """Further views of the training data the learner's ``_solve`` reads.

        ``X`` is the validated input, ``data`` what is prepared so far and
        ``inputs`` what :meth:`_inputs` read; the returned mapping becomes
        ``FitData.views`` (by default ``inputs`` itself).
        """
        return dict(inputs)

    def _solve(self, data: FitData) -> FitOutcome:
        """Run the engine on the prepared data; return the model and its certificate.

        Parameters
        ----------
        data : FitData
            The binarized rows (``data.B``), class codes (``data.y``), weights,
            mined antecedents (``data.A``, when ``_mines``), the validated
            parameters (``data.params``) and the learner's own views.

        Returns
        -------
        FitOutcome
        """
        raise NotImplementedError

    # -- validation ---------------------------------------------------------
    def _validate_X(self, X, *, reset: bool):
        """The input as a DataFrame or 2-D array; with ``reset`` (a fit) nothing is set on self."""
        if isinstance(X, pd.DataFrame):
            # the binarizer's own check, so an estimator and a loaded model say the same
            check_unique_columns(X.columns)
            if not reset:
                if hasattr(self, "feature_names_in_"):
                    missing = [c for c in self.feature_names_in_ if c not in X.columns]
                    if missing:
                        raise ValueError(f"column(s) {missing} seen at fit time are missing from X")
                validate_data(self, X, reset=False, skip_check_array=True)
                if X.shape[1] != self.n_features_in_:
                    raise ValueError(
                        f"X has {X.shape[1]} features, but {type(self).__name__} is "
                        f"expecting {self.n_features_in_} features as input"
                    )
        else:
            # infinity is left to the binarizer, which names the column (sklearn's own
            # message would not)
            options = dict(dtype=None, ensure_all_finite=False, accept_sparse=False,
                           ensure_min_samples=1, ensure_min_features=1)
            X = (check_array(X, estimator=self, **options) if reset
                 else validate_data(self, X, reset=False, **options))
        if X.shape[0] == 0:
            raise ValueError("X has 0 samples; at least one is required")
        if X.shape[1] == 0:
            raise ValueError("X has 0 features; at least one is required")
        return X

    def _validate_y(self, X, y):
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        if not hasattr(y, "dtype") and any(isinstance(v, str) and v.endswith("\x00")
                                           for v in np.ravel(np.asarray(y, dtype=object))):
            # a list of text made into an array gets fixed-width strings, which drop a
            # trailing NUL: 'a' and 'a\x00' would become one class
            y = np.asarray(y, dtype=object)
        y = column_or_1d(y, warn=True)
        _check_label_kinds(y)
        # (text labels are told from bytes by pandas's C type inference first: a Python
        # loop over a million labels took 0.1 s)
        if y.dtype.kind == "S" or (y.dtype == object
                                   and pd.api.types.infer_dtype(y, skipna=True) != "string"
                                   and any(isinstance(v, (bytes, bytearray, memoryview))
                                           for v in y)):
            # str(b"a") is "b'a'": saved files and exports could not give the label back
            raise ValueError("y holds bytes labels; decode them to text first, e.g. "
                             "y.str.decode('utf-8')")
        check_consistent_length(X, y)
        if pd.isna(y).any():
            raise ValueError("y contains missing values (NaN/None); drop or label those rows")
        classes, codes = _unique_labels(y)
        # scikit-learn's check of the kind of target, on the classes for text labels: on
        # every row it sorts the text in Python (0.8 s for a million labels)
        check_classification_targets(classes if y.dtype == object else y)
        if classes.size < 2:
            raise ValueError(
                f"y has only one class ({_plain(classes[0])!r}); a classifier needs "
                "at least two classes to learn from"
            )
        if classes.size > 2 and not self._multiclass:
            # sklearn's estimator checks look for this opening sentence
            raise ValueError(
                "Only binary classification is supported. The type of the target is "
                f"multiclass: {type(self).__name__} is a binary classifier but y has "
                f"{classes.size} classes; pass a y with exactly two classes"
            )
        return classes, codes.astype(np.int64)

    def _check_params(self) -> dict:
        """Validate every parameter against the declaration; return them normalized."""
        return validate(self._rulekit_parameters, self.get_params(deep=False),
                        type(self).__name__)

    # -- sklearn API ------------------------------------------------------------
    def fit(self, X, y=None):
        """Binarize ``X``, mine antecedents (where the learner uses them) and search.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Numeric and categorical columns; missing values allowed.  A
            learner that searches on counts also reads files, chunks, a dask
            DataFrame or counts (see ``CorelsClassifier.fit``).
        y : array-like of shape (n_samples,)
            Class labels (strings, ints or bools); required for rows in
            memory (None only for a source that holds its labels).

        Returns
        -------
        self
        """
        return self._fit(X, y, None)

    def _fit(self, X, y, sample_weight):
        """Body of :meth:`fit`: prepare, solve, wrap (learners with weights call it from ``fit``)."""
        params = self._check_params()
        # one run around the whole fit: time_limit counts from here, a Ctrl-C
        # during binarization, mining or compilation is seen by the engine, and
        # the callback sees every search the engine runs inside it
        with Anytime(self._learner, time_limit=params.get("time_limit"),
                     callback=params.get("callback")) as run:
            source = is_source(X)
            data = (self._prepare_source(X, y, sample_weight, params) if source
                    else self._prepare(X, y, sample_weight, params))
            # binarization or mining stopped early by a limit (they check it): the search
            # then saw only part of the problem, and its certificate must say so
            cut = run.limit_reached() or run.cut
            if not source:
                # rows in memory: the search's set-up (folding, packing, a problem's pairs)
                # takes up to a third of the preparation's time on many rows and looks at no
                # clock; with less time than that left, the search stops at once (a source's
                # passes keep that time themselves: rulekit.stream)
                _search_would_stop()
            outcome = self._solve(data)
        if cut is not None:
            outcome = replace(outcome, certificate=outcome.certificate.cut_short(cut))
        self._wrap(data, outcome)
        self._warn_if_stopped()
        return self

    def _prepare(self, X, y, sample_weight, params: dict) -> FitData:
        """Validate, binarize, mine and build the learner's views: the :class:`FitData`."""
        X = self._validate_X(X, reset=True)
        classes, codes = self._validate_y(X, y)
        weights = check_sample_weight(sample_weight, len(codes), positive=True)
        # a learner that counts mistakes exactly reads whole weights as copies of the row
        counts = (check_counts(weights, len(codes), rows_of="y")
                  if weights is not None and self._weights_are_counts else None)
        inputs = self._inputs(X, params)
        n_rows = len(codes) if counts is None else int(counts.sum())
        binarizer = self._binarizer(params, n_rows)
        fields = dict(params=params, classes=classes, n_features_in=_num_features(X),
                      feature_names_in=_get_feature_names(X), binarizer=binarizer, y=codes,
                      sample_weight=None if counts is not None else weights)
        def splits():
            # drawn on the rows the data stand for: a row of count k is k rows, which may
            # fall in different folds, exactly as k copies would. Drawn after binarizing (the
            # splits have their own random state, so the order changes nothing), and not at
            # all once the search would stop at once: past the limit, or with less time left
            # than the check before the search asks for (_fit), which would stop it after
            # the draw all the same (ten million rows: the draw took 5 s past a limit of 5 s)
            if _search_would_stop():
                return None
            return self._validation_splits(
                codes if counts is None else np.repeat(codes, counts), params)

        if (self._fits_on_counts(params) and counts is None
                and len(codes) >= PACKED_FOLD_ROWS
                and len(codes) * max(_num_features(X), 1) >= PACKED_FOLD_CELLS):
            # many rows one each, folded: binarized eight conditions to a byte and grouped
            # on those bytes, so the boolean matrix is made of the distinct rows only (a
            # million rows of 116 conditions: 14 MB of bytes instead of 113 MB)
            binarizer.fit(X, codes, sample_weight=weights)
            keys = binarizer.transform_packed(X)
            tested = splits()
            m = len(binarizer.conditions_)
            rows = (condition_bitsets(keys, m), codes, len(codes)) if self._keeps_rows else None
            data = FitData.from_packed(keys, m, tested=tested, rows=rows, **fields)
            del keys
        else:
            # one pass per column: the deadline is checked between columns
            B = binarizer.fit_transform(X, codes, sample_weight=weights)
            data = FitData(B=B, count=counts, **fields,
                           rows=(pack(B.T), codes, len(codes)) if self._keeps_rows else None)
            tested = splits()
            if tested is not None:
                data = data.split_by(tested)
            if self._fits_on_counts(params):
                data = data.distinct()
        data = self._mine(data, params)
        return replace(data, views=self._views(X, data, inputs))

    def _mine(self, data: FitData, params: dict) -> FitData:
        """The data with its antecedents mined (for a learner that mines)."""
        if not self._mines:
            return data
        B, n_rows = data.B, data.n_samples
        limit, prefer = self._resolve_max_antecedents(params, data)
        mining = dict(min_support=self._resolve_min_support(params, n_rows),
                      max_card=self._resolve_max_card(params, B, n_rows),
                      max_antecedents=limit)
        antecedents = mine_antecedents(
            B, data.y, min_support=mining["min_support"], max_card=mining["max_card"],
            max_antecedents=limit, prefer=prefer, per_class=self._per_class_mining,
            conditions=data.binarizer.conditions_, max_bytes=self._mining_bytes(params),
            sample_weight=_frequencies(data),
            keep_bits=self._keeps_antecedent_bits(mining["max_card"]))
        return replace(data, antecedents=antecedents, mining=mining)

    def _prepare_source(self, X, y, sample_weight, params: dict) -> FitData:
        """The :class:`FitData` of files, chunks, a dask frame or counts: counted, not held.

        Two passes over the source (``rulekit.stream``, or on the dask workers
        ``rulekit.distributed``): the conditions from summaries, then the
        distinct binarized rows with their class counts per hash fold.  The
        learner then mines and searches them as it does folded rows in memory.
        """
        name = type(self).__name__
        if not self._fits_sources:
            raise TypeError(f"{name} fits rows held in memory; pass a DataFrame or array. "
                            "Files, chunks, dask frames and counts are read by the learners "
                            "that search on counts: " + ", ".join(_source_learners()))
        # (a learner that folds its rows itself, as column generation does per binary
        # problem, has no such parameter)
        if self._on_counts and not self._fits_on_counts(params):
            raise ValueError(f"{name}: these parameters need the rows themselves "
                             "(forbidden, required or fairness); fit a DataFrame in memory")
        if sample_weight is not None:
            raise ValueError("sample_weight: a source read in chunks or on dask has no weights "
                             "beside its rows; fit it without sample_weight")
        inputs = self._inputs(None, params)
        limit = self._mining_bytes(params)
        validates = self._may_validate(params)
        counts = count_source(X, y, binarizer=self._binarizer(params, None),
                              n_folds=SOURCE_FOLDS if validates else 1,
                              max_memory=None if limit is None else limit / 2**20,
                              cost_after=self._cost_after_counting,
                              packed=self._packed_counts,
                              fit=lambda summary, template: self._counted_binarizer(
                                  params, summary, template))
        if counts is not X:
            # what the passes dropped, given back before the search: a merge's tables can
            # sit in reference cycles (dask's futures and their results) until Python's
            # collector runs, which on fifty million rows kept 1.3 GB of a client's memory
            # through a whole search, or not, by when the collector happened to run
            gc.collect()
            give_back_freed_memory()
        classes = np.asarray(counts.classes)
        if classes.size < 2:
            raise ValueError(f"{name}: the labels hold one class only ({classes[0]!r}); a "
                             "classifier needs at least two")
        if not self._multiclass and classes.size > 2:
            raise ValueError(f"{name} is a binary classifier but the labels hold "
                             f"{classes.size} classes")
        totals = np.bincount(counts.y, weights=counts.weight, minlength=classes.size)
        n_folds = counts.fold_counts.shape[1]
        # counts given in one fold (stream.count(n_folds=1)) hold no fold out
        splits = (self._fold_splits(n_folds, int(counts.n_rows), totals, params)
                  if validates and n_folds > 1 else None)
        data = self._mine(self._from_counts(counts, params, splits, owned=counts is not X),
                          params)
        return replace(data, views={**self._views(None, data, inputs), "folds": "hash"})

    def _wrap(self, data: FitData, outcome: FitOutcome) -> None:
        """Set every fitted attribute from the prepared data and the learner's outcome."""
        self.classes_ = data.classes
        self.n_features_in_ = data.n_features_in
        if data.feature_names_in is not None:
            self.feature_names_in_ = data.feature_names_in
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_       # a refit on an array: no names any more
        self.binarizer_ = outcome.binarizer
        if data.antecedents is not None:
            self.antecedents_ = data.antecedents
        self.certificate_ = outcome.certificate
        for name, value in outcome.attributes.items():
            setattr(self, name, value)
        # what the fit used, for the methods that work on the fitted estimator later
        self._fit_params_ = dict(data.params)
        self.model_ = outcome.model

    def _warn_if_stopped(self) -> None:
        """One ``ConvergenceWarning`` naming the gap when a limit ended the search."""
        cert = self.certificate_
        if cert.stopped_early:
            warnings.warn(
                f"{type(self).__name__} stopped early ({cert.summary()}); the model is the "
                f"best found so far.{_ADVICE[cert.status]}",
                ConvergenceWarning, stacklevel=3,
            )

    def _conditions(self, X) -> np.ndarray:
        check_is_fitted(self, "model_")
        X = self._validate_X(X, reset=False)
        return self.binarizer_.transform(X)

    def _to_labels(self, values) -> np.ndarray:
        # keyed by type too: True and 1 are equal (and hash alike) to a dict, not as labels
        index = {(type(_plain(c)), _plain(c)): k for k, c in enumerate(self.classes_)}
        return self.classes_[np.fromiter((index[type(_plain(v)), _plain(v)] for v in values),
                                         dtype=np.int64, count=len(values))]

    def predict(self, X):
        """Predicted class of each row (a dask Series for a dask DataFrame, computed lazily)."""
        if is_dask(X):
            check_is_fitted(self, "model_")
            return dask_predict(self, X, "predict")
        B = self._conditions(X)
        return self._to_labels(self.model_.predict(B))

    def predict_proba(self, X):
        """Class probabilities, columns in ``classes_`` order (lazily, by partition, on dask)."""
        if is_dask(X):
            check_is_fitted(self, "model_")
            return dask_predict(self, X, "predict_proba")
        B = self._conditions(X)
        return self.model_.predict_proba(B)

    def save(self, path, *, metadata: dict | None = None, overwrite: bool = True):
        """Write the fitted model with its binarizer as JSON.

        ``rulekit.load(path)`` gives back a :class:`rulekit.Predictor` whose
        ``predict`` / ``predict_proba`` take raw data like this estimator's;
        the file format is described in :mod:`rulekit.persist`.

        Parameters
        ----------
        path : str or Path
        metadata : dict, optional
            JSON-ready extras to keep in the file (e.g. the target column).
        overwrite : bool, default True
            False: refuse (``FileExistsError``) when ``path`` exists.  The
            write is atomic and goes only to a regular file or through a
            symbolic link to one (:meth:`rulekit.Predictor.save`).

        Returns
        -------
        Path
        """
        check_is_fitted(self, "model_")
        return Predictor.from_estimator(self, metadata=metadata).save(path, overwrite=overwrite)

    def to_sql(self, table=None, *, dialect: str = "sqlite", proba: bool = False, keep=None) -> str:
        """SQL computing ``predict`` (and ``predict_proba``) from the raw columns of a table.

        See :func:`rulekit.export.to_sql`.
        """
        return to_sql(self, table, dialect=dialect, proba=proba, keep=keep)

    def to_python(self) -> str:
        """Source of a standalone Python module with ``predict(row)`` and
        ``predict_proba(row)``; see :func:`rulekit.export.to_python`."""
        return to_python(self)

    def _export_parts(self):
        """What :mod:`rulekit.export` writes: the fitted model, its binarizer, this class's name."""
        if not (hasattr(self, "model_") and hasattr(self, "binarizer_")):
            raise NotFittedError(f"{type(self).__name__} is not fitted; call fit before exporting it")
        return self.model_, self.binarizer_, type(self).__name__

    def explore(self, X, y, path="explore.html", *, rashomon=None, title=None):
        """Write the teaching explorer of this fitted model: one offline HTML page.

        See :func:`rulekit.explore` (this is ``rulekit.explore(self, X, y, ...)``).

        Parameters
        ----------
        X : DataFrame or array-like
            The training rows.
        y : array-like
            Their labels.
        path : str, Path or None, default "explore.html"
            Where to write the page; None writes nothing.
        rashomon : RashomonSet, optional
            Adds the Rashomon view (CORELS: ``self.rashomon_set(epsilon)``).
        title : str, optional

        Returns
        -------
        rulekit.ExplorerPage
        """
        return _explore(self, X, y, path, rashomon=rashomon, title=title)

    def __str__(self) -> str:
        if hasattr(self, "model_"):
            return str(self.model_)
        return self.__repr__()

    def _repr_html_(self) -> str:
        if hasattr(self, "model_"):
            return self.model_._repr_html_()
        return f"<pre>{self.__repr__()}</pre>"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.classifier_tags.multi_class = self._multiclass
        return tags

    # -- helpers for learners that produce rule lists --------------------------
    @staticmethod
    def _rule_list(data: FitData, items, rule_codes, default_code, *, probabilities=None,
                   positive=None, binarizer=None) -> RuleList:
        """Build a :class:`RuleList` from antecedents given as condition tuples.

        ``rule_codes``/``default_code`` are class codes; training counts per
        rule are recomputed here from ``data.B`` and ``data.y`` by first-match
        capture (in rows: a row of whole weight ``k`` counts ``k`` times),
        so every learner reports them the same way.
        ``probabilities`` optionally gives each rule's (and, last, the
        default's) stated probability of each class; ``positive`` names the
        class whose probability the list states (see :class:`RuleList`).
        """
        classes = data.classes
        binarizer = binarizer or data.binarizer
        items = [tuple(int(j) for j in item) for item in items]
        counts = capture_counts(data.B, items, data.y, len(classes), _frequencies(data))
        codes = [*rule_codes, default_code]
        rules = [
            Rule(item, _plain(classes[codes[k]]),
                 tuple(int(v) for v in counts[k]),
                 None if probabilities is None else tuple(float(p) for p in probabilities[k]))
            for k, item in enumerate([*items, ()])
        ]
        return RuleList(rules[:-1], rules[-1], binarizer.conditions_, list(classes), positive)
