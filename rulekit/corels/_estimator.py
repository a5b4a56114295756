"""``CorelsClassifier``: the sklearn face of :func:`rulekit.corels.search`."""

from __future__ import annotations

import sys
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from rulekit.base import RuleClassifierBase, check_fraction, check_nonneg_number, check_positive_int
from rulekit.corels._search import DEFAULT_MAX_NODES, POLICIES, SYMMETRIES, search

__all__ = ["CorelsClassifier"]


class _ProgressBar:
    """One self-overwriting line on stderr, fed by the search callback."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.shown = False

    def __call__(self, info: dict) -> bool:
        self.stream.write(
            f"\rCORELS  {info['time']:7.1f} s  nodes {info['nodes']:>10,}  "
            f"best {info['best_objective']:.6f}  bound {info['lower_bound']:.6f}  "
            f"queue {info['queue_size']:>9,}"
        )
        self.stream.flush()
        self.shown = True
        return False

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


class CorelsClassifier(RuleClassifierBase):
    """Certifiably optimal rule list (CORELS, Angelino et al., JMLR 2018).

    Binarizes ``X``, mines antecedents (conjunctions of up to ``max_card``
    conditions) and finds the rule list minimizing
    ``mistakes / N + c * (number of rules)`` by branch and bound, with a
    certificate of optimality unless a limit stops the search.

    Parameters
    ----------
    c : float, default=0.01
        Penalty per rule (>= 0); larger values give shorter lists.
    max_card : int, default=2
        Most conditions per antecedent.
    min_support : float in (0, 1] or None, default=None
        Minimum fraction of samples an antecedent must cover to be mined.
        ``None`` means ``c``, which cannot exclude any antecedent of an
        optimal list (Thm ``thm:min-capture``), so the certificate holds
        over all conjunctions of up to ``max_card`` conditions.  A larger
        value makes the certificate "optimal over the mined antecedents".
    n_thresholds : int, default=9
        Thresholds per numeric feature for the binarizer.
    policy : {"lower_bound", "curious", "objective", "bfs", "dfs"}
        Search order.
    symmetry : {"permutation", "capture", "none"}
        Symmetry-aware map.
    max_nodes : int, default=10_000_000
        Live prefix-tree nodes allowed (about 140 bytes each).
    time_limit : float or None
        Wall-clock limit in seconds.
    verbose : int, default=0
        ``>= 1`` shows a progress line on stderr.

    Attributes
    ----------
    model_ : RuleList
    result_ : CorelsResult
        Everything the engine returned.
    is_optimal_ : bool
    objective_, lower_bound_ : float
    stats_ : dict
    trace_ : dict of ndarray
    antecedents_ : AntecedentSet
    classes_, n_features_in_, feature_names_in_, binarizer_
    """

    _multiclass = True
    _mines = True
    _negations = False
    # The support bound is about overall support, so mine overall.
    _per_class_mining = False

    def __init__(self, c=0.01, max_card=2, min_support=None, n_thresholds=9,
                 policy="lower_bound", symmetry="permutation", max_nodes=DEFAULT_MAX_NODES,
                 time_limit=None, verbose=0):
        self.c = c
        self.max_card = max_card
        self.min_support = min_support
        self.n_thresholds = n_thresholds
        self.policy = policy
        self.symmetry = symmetry
        self.max_nodes = max_nodes
        self.time_limit = time_limit
        self.verbose = verbose

    def _resolve_min_support(self) -> float:
        c = check_nonneg_number(self.c, "c")
        if self.min_support is not None:
            return check_fraction(self.min_support, "min_support")
        # support >= c is necessary; with c = 0 any captured sample will do
        return min(1.0, max(c, 1e-12))

    def _fit(self, X, y, sample_weight):
        # validate our own parameters before any work
        check_nonneg_number(self.c, "c")
        check_positive_int(self.max_card, "max_card")
        check_positive_int(self.n_thresholds, "n_thresholds")
        check_positive_int(self.max_nodes, "max_nodes")
        check_nonneg_number(self.time_limit, "time_limit", strictly_positive=True, allow_none=True)
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {sorted(POLICIES)}, got {self.policy!r}")
        if self.symmetry not in SYMMETRIES:
            raise ValueError(f"symmetry must be one of {sorted(SYMMETRIES)}, got {self.symmetry!r}")
        if isinstance(self.verbose, bool) or not isinstance(self.verbose, (int, np.integer)):
            raise ValueError(f"verbose must be an integer, got {self.verbose!r}")
        return super()._fit(X, y, sample_weight)

    def _fit_model(self, *, B, A, y, antecedents, sample_weight):
        bar = _ProgressBar() if self.verbose >= 1 else None
        try:
            result = search(A, y, float(self.c), policy=self.policy, symmetry=self.symmetry,
                            max_nodes=int(self.max_nodes), time_limit=self.time_limit,
                            callback=bar)
        finally:
            if bar is not None:
                bar.close()
        self.result_ = result
        self.is_optimal_ = result.is_optimal
        self.objective_ = result.objective
        self.lower_bound_ = result.lower_bound
        self.stats_ = result.stats
        self.trace_ = result.trace
        if not result.is_optimal:
            warnings.warn(
                f"CORELS stopped ({result.status}) before certifying optimality: "
                f"objective {result.objective:.6f}, lower bound {result.lower_bound:.6f} "
                f"(gap {result.gap:.6f}); raise max_nodes/time_limit or c",
                ConvergenceWarning,
                stacklevel=4,
            )
        # engine labels are class codes (y holds 0..n_classes-1)
        codes = [int(v) for v in result.rule_labels]
        items = [antecedents.items[a] for a in result.prefix]
        return self._rule_list(items, codes, int(result.default_label), B, y)
