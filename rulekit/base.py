"""The part every rulekit estimator shares.

Contract for a learner's estimator (``rulekit/<learner>/_estimator.py``):

* subclass :class:`RuleClassifierBase`; ``__init__`` stores its parameters
  untouched (sklearn rule), using the shared names ``min_support``,
  ``max_card``, ``n_thresholds``, ``categorical_features``, ``time_limit``,
  ``random_state``, ``verbose`` where they apply, and ``callback`` always
  (the base class hands it to the run around the fit: nothing else to do);
* declare every parameter once in ``_rulekit_parameters`` (see
  :mod:`rulekit._params`), sharing the engine's declarations; :meth:`fit`
  checks the table before anything else;
* set the class attributes ``_learner`` (name for logging), ``_multiclass``
  (may ``y`` have more than two classes?), ``_mines`` (does the learner
  search over mined antecedents, or over the binarized conditions
  directly?), ``_negations`` (should the binarizer emit ``!=`` conditions?)
  and ``_per_class_mining``;
* implement :meth:`RuleClassifierBase._fit_model`, which receives the
  arrays the engine needs, sets ``certificate_`` (a
  :class:`rulekit.certificate.Certificate`) and returns a fitted model
  object from :mod:`rulekit.models`.  It may set further fitted attributes
  (``result_``, ``stats_``, ``trace_``...);
* optionally override the mining hooks
  :meth:`RuleClassifierBase._resolve_min_support`, ``_resolve_max_card``,
  ``_resolve_max_antecedents`` (a cap on the pool and which antecedents it
  keeps) and ``_mining_bytes``.

:meth:`fit` then validates ``X``/``y``, sets ``classes_``, ``n_features_in_``
(and ``feature_names_in_`` for DataFrames), fits ``binarizer_``, mines
``antecedents_``, stores ``model_`` and warns (``ConvergenceWarning``) when
the certificate says a limit stopped the search.  The whole fit runs inside
one :class:`rulekit._anytime.Anytime` run, so ``time_limit`` counts from the
start of ``fit`` and Ctrl-C at any point returns the best model found.
``predict``, ``predict_proba``, ``score`` and ``str()`` work for every
learner the same way.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d, validate_data

from ._anytime import Anytime, memory_budget_mb
from ._checks import check_sample_weight
from ._columns import check_unique_columns
from ._params import COMMON_PARAMETERS, validate
from .binarize import Binarizer, _plain
from .evaluate import capture_counts
from .mining import MINING_PARAMETERS, AntecedentSet, mine_antecedents
from .models import Rule, RuleList
from .explore import explore as _explore
from .export import to_python, to_sql
from .persist import Predictor

__all__ = ["RuleClassifierBase", "COMMON_PARAMETERS"]


_ADVICE = {
    "time_limit": " To search longer, raise time_limit.",
    "node_limit": " To search longer, raise max_nodes.",
    "work_limit": " To search longer, raise max_work.",
    "memory_limit": " To search longer, raise max_memory.",
    "interrupted": "",
}


class RuleClassifierBase(ClassifierMixin, BaseEstimator):
    """Shared validation, binarization, mining and prediction.

    Subclasses provide ``__init__`` and :meth:`_fit_model`; see the module
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

    # -- hooks ------------------------------------------------------------
    def _resolve_min_support(self, params: dict) -> float:
        """Mining threshold to use (``params`` are the validated parameters)."""
        return params["min_support"]

    def _mining_bytes(self, params: dict) -> int | None:
        """Most bytes the mined antecedents may take (None: no limit)."""
        return int(memory_budget_mb() * 2**20)

    def _resolve_max_card(self, params: dict, B) -> int:
        """Most conditions per mined antecedent, given the condition matrix ``B``."""
        return params["max_card"]

    def _resolve_max_antecedents(self, params: dict, B) -> tuple:
        """``(max_antecedents, prefer)`` for the miner (None: keep every antecedent)."""
        return None, "support"

    def _fit_model(self, *, B: np.ndarray, A: np.ndarray | None, y: np.ndarray,
                   antecedents: AntecedentSet | None, sample_weight, params: dict, X=None):
        """Run the engine, set ``certificate_``; return a model from :mod:`rulekit.models`.

        Parameters
        ----------
        B : ndarray of bool, shape (n_samples, n_conditions)
            Binarized conditions (``self.binarizer_.conditions_``).
        A : ndarray of bool, shape (n_samples, n_antecedents) or None
            Mined antecedents (``antecedents``), when ``_mines`` is true.
        y : ndarray of int, shape (n_samples,)
            Class codes ``0..len(classes_)-1``.
        antecedents : AntecedentSet or None
        sample_weight : ndarray or None
        params : dict
            The validated parameters (:meth:`_check_params`).
        X : DataFrame or ndarray
            The validated input, for a learner that binarizes it again (column
            generation compares two threshold resolutions).
        """
        raise NotImplementedError

    # -- validation ---------------------------------------------------------
    def _validate_X(self, X, *, reset: bool):
        if isinstance(X, pd.DataFrame):
            # the binarizer's own check, so an estimator and a loaded model say the same
            check_unique_columns(X.columns)
            if not reset and hasattr(self, "feature_names_in_"):
                missing = [c for c in self.feature_names_in_ if c not in X.columns]
                if missing:
                    raise ValueError(f"column(s) {missing} seen at fit time are missing from X")
            validate_data(self, X, reset=reset, skip_check_array=True)
            if not reset and X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is "
                    f"expecting {self.n_features_in_} features as input"
                )
        else:
            X = validate_data(
                self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan",
                accept_sparse=False, ensure_min_samples=1, ensure_min_features=1,
            )
        if X.shape[0] == 0:
            raise ValueError("X has 0 samples; at least one is required")
        if X.shape[1] == 0:
            raise ValueError("X has 0 features; at least one is required")
        return X

    def _validate_y(self, X, y):
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        y = column_or_1d(y, warn=True)
        if y.dtype.kind == "S" or (y.dtype == object and any(
                isinstance(v, (bytes, bytearray, memoryview)) for v in y)):
            # str(b"a") is "b'a'": saved files and exports could not give the label back
            raise ValueError("y holds bytes labels; decode them to text first, e.g. "
                             "y.str.decode('utf-8')")
        check_consistent_length(X, y)
        if pd.isna(y).any():
            raise ValueError("y contains missing values (NaN/None); drop or label those rows")
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
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

    def _binarizer(self, params: dict) -> Binarizer:
        """The Binarizer, given the binarization parameters this learner exposes."""
        shared = {k: params[k] for k in Binarizer._rulekit_parameters if k in params}
        return Binarizer(**shared, negations=self._negations)

    # -- sklearn API ------------------------------------------------------------
    def fit(self, X, y):
        """Binarize ``X``, mine antecedents (where the learner uses them) and search.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Numeric and categorical columns; missing values allowed.
        y : array-like of shape (n_samples,)
            Class labels (strings, ints or bools).

        Returns
        -------
        self
        """
        return self._fit(X, y, None)

    def _fit(self, X, y, sample_weight):
        """Body of :meth:`fit`; learners with weights call it from their own ``fit``."""
        params = self._check_params()
        X = self._validate_X(X, reset=True)
        self.classes_, codes = self._validate_y(X, y)
        weights = check_sample_weight(sample_weight, len(codes), positive=True)
        # one run around the whole fit: time_limit counts from here, a Ctrl-C
        # during binarization, mining or compilation is seen by the engine, and
        # the callback sees every search the engine runs inside it
        with Anytime(self._learner, time_limit=params.get("time_limit"),
                     callback=params.get("callback")) as run:
            self.binarizer_ = self._binarizer(params)
            B = self.binarizer_.fit_transform(X, codes, sample_weight=weights)
            A, antecedents = None, None
            if self._mines:
                limit, prefer = self._resolve_max_antecedents(params, B)
                antecedents = mine_antecedents(
                    B, codes,
                    min_support=self._resolve_min_support(params),
                    max_card=self._resolve_max_card(params, B),
                    max_antecedents=limit, prefer=prefer,
                    per_class=self._per_class_mining,
                    conditions=self.binarizer_.conditions_,
                    max_bytes=self._mining_bytes(params),
                )
                self.antecedents_ = antecedents
                A = antecedents.matrix
            cut = run.limit_reached()    # binarization or mining stopped early (they check it)
            self.model_ = self._fit_model(B=B, A=A, y=codes, antecedents=antecedents,
                                          sample_weight=weights, params=params, X=X)
            if cut is not None:
                self.certificate_ = self.certificate_.cut_short(cut)
        self._warn_if_stopped()
        return self

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
        index = {_plain(c): k for k, c in enumerate(self.classes_)}
        return self.classes_[np.fromiter((index[_plain(v)] for v in values), dtype=np.int64, count=len(values))]

    def predict(self, X):
        """Predicted class of each row."""
        B = self._conditions(X)
        return self._to_labels(self.model_.predict(B))

    def predict_proba(self, X):
        """Class probabilities, columns in ``classes_`` order."""
        B = self._conditions(X)
        return self.model_.predict_proba(B)

    def save(self, path, *, metadata: dict | None = None):
        """Write the fitted model with its binarizer as JSON.

        ``rulekit.load(path)`` gives back a :class:`rulekit.Predictor` whose
        ``predict`` / ``predict_proba`` take raw data like this estimator's;
        the file format is described in :mod:`rulekit.persist`.

        Parameters
        ----------
        path : str or Path
        metadata : dict, optional
            JSON-ready extras to keep in the file (e.g. the target column).

        Returns
        -------
        Path
        """
        check_is_fitted(self, "model_")
        return Predictor.from_estimator(self, metadata=metadata).save(path)

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
    def _rule_list(self, items, rule_codes, default_code, B, y, *, probabilities=None,
                   positive=None) -> RuleList:
        """Build a :class:`RuleList` from antecedents given as condition tuples.

        ``rule_codes``/``default_code`` are class codes; training counts per
        rule are recomputed here from ``B`` and ``y`` by first-match capture,
        so every learner reports them the same way.  ``probabilities``
        optionally gives each rule's (and, last, the default's) stated
        probability of each class; ``positive`` names the class whose
        probability the list states (see :class:`RuleList`).
        """
        items = [tuple(int(j) for j in item) for item in items]
        counts = capture_counts(B, items, y, len(self.classes_))
        codes = [*rule_codes, default_code]
        rules = [
            Rule(item, _plain(self.classes_[codes[k]]), tuple(int(v) for v in counts[k]),
                 None if probabilities is None else tuple(float(p) for p in probabilities[k]))
            for k, item in enumerate([*items, ()])
        ]
        return RuleList(rules[:-1], rules[-1], self.binarizer_.conditions_, list(self.classes_),
                        positive)
