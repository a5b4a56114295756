"""``CorelsClassifier``: the sklearn face of the CORELS engine."""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning

from .._progress import Progress
from ..base import RuleClassifierBase, check_fraction, check_nonneg_number, check_positive_int
from ._search import DEFAULT_MAX_NODES, search

__all__ = ["CorelsClassifier"]


class CorelsClassifier(RuleClassifierBase):
    """Certifiably optimal rule list (CORELS).

    Binarizes ``X``, mines antecedents (conjunctions of up to ``max_card``
    conditions) and finds, by branch and bound, the rule list minimizing
    ``mistakes / n_samples + c * n_rules`` over them — with a certificate:
    when ``is_optimal_`` is true no other list over the mined antecedents
    scores better.

    Parameters
    ----------
    c : float, default=0.01
        Penalty per rule, in units of training accuracy: a rule must fix more
        than ``c * n_samples`` mistakes to be worth adding.
    max_card : int, default=2
        Most conditions per antecedent.
    min_support : float in (0, 1] or None, default=None
        Mining threshold (fraction of all training rows).
        ``None`` means ``c``: CORELS's minimum-support theorem shows that an
        antecedent capturing at most ``c * n_samples`` rows never appears in
        an optimal list, so mining at ``c`` loses nothing and the certificate
        covers *every* antecedent of up to ``max_card`` conditions.  A larger
        value speeds things up but the certificate then only covers the mined
        antecedents (``certificate_["scope"]`` says which).
    n_thresholds : int, default=9
        Quantile thresholds per numeric column.
    categorical_features : list, optional
        Columns to treat as categorical whatever their dtype.
    policy : {"lower_bound", "curious", "objective", "bfs", "dfs"}
        Search order of the priority queue.
    symmetry : {"permutation", "capture", "none"}
        Symmetry-aware map that discards equivalent prefixes.
    bounds : "all", "none" or iterable of str, default="all"
        Pruning bounds to use (see :data:`rulekit.corels.BOUNDS`); switch
        some off to see what each one buys.
    max_nodes : int, default=10_000_000
        Most live prefix-tree nodes; reaching it stops the search.
    time_limit : float or None
        Seconds; reaching it stops the search.
    verbose : int, default=0
        1 or more: a progress line on stderr (nodes, best objective, lower
        bound, queue size).

    Attributes
    ----------
    model_ : RuleList
        The rule list, with each rule's training class counts.
    result_ : CorelsResult
        The engine's full result.
    is_optimal_ : bool
    objective_ : float
    lower_bound_ : float
        Certified lower bound on the optimal objective (``= objective_`` when
        optimal).
    certificate_ : dict
        ``status``, ``objective``, ``lower_bound``, ``gap`` and ``scope``.
    stats_ : dict
        Nodes evaluated/inserted, pruning counts per bound, sizes, times.
    trace_ : dict of ndarray
        Sampled progress of the search (see :func:`rulekit.plotting.plot_corels_trace`).
    antecedents_ : AntecedentSet
    classes_, n_features_in_, feature_names_in_, binarizer_ : as usual

    Notes
    -----
    When a node or time limit (or Ctrl-C) stops the search, the best list
    found is kept, ``is_optimal_`` is false, and one ``ConvergenceWarning``
    reports the gap between its objective and the lower bound.
    """

    _multiclass = True
    _mines = True
    # the minimum-support theorem is about overall support, so mine on it
    _per_class_mining = False

    def __init__(self, c=0.01, max_card=2, min_support=None, n_thresholds=9, categorical_features=None,
                 policy="lower_bound", symmetry="permutation", bounds="all",
                 max_nodes=DEFAULT_MAX_NODES, time_limit=None, verbose=0):
        self.c = c
        self.max_card = max_card
        self.min_support = min_support
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.policy = policy
        self.symmetry = symmetry
        self.bounds = bounds
        self.max_nodes = max_nodes
        self.time_limit = time_limit
        self.verbose = verbose

    def _resolve_min_support(self) -> float:
        c = check_nonneg_number(self.c, "c")
        if self.min_support is None:
            # c = 0 gives no support bound: keep every antecedent seen at least once
            # (mlxtend needs a positive threshold; 1e-9 of the rows is below one row).
            return min(max(c, 1e-9), 1.0)
        return check_fraction(self.min_support, "min_support")

    def _fit_model(self, *, B, A, y, antecedents, sample_weight):
        c = check_nonneg_number(self.c, "c")
        check_positive_int(self.max_nodes, "max_nodes")
        check_nonneg_number(self.time_limit, "time_limit", allow_none=True)
        bar = Progress(None, "corels", enabled=bool(self.verbose))

        def report(info):
            bar.done = info["nodes"]
            bar.show(f"nodes  best {info['best_objective']:.6f}  bound {info['lower_bound']:.6f}"
                     f"  queue {info['queue_size']}")
            return False

        result = search(
            A, y, c, policy=self.policy, symmetry=self.symmetry, bounds=self.bounds,
            max_nodes=self.max_nodes, time_limit=self.time_limit,
            callback=report if self.verbose else None,
        )
        bar.close(f"nodes  {result.status}, objective {result.objective:.6f}")
        self.result_ = result
        self.is_optimal_ = result.status == "optimal"
        self.objective_ = float(result.objective)
        self.lower_bound_ = float(result.lower_bound)
        self.stats_ = result.stats
        self.trace_ = result.trace
        mined_at_c = self.min_support is None or self.min_support <= c
        self.certificate_ = {
            "status": result.status,
            "objective": self.objective_,
            "lower_bound": self.lower_bound_,
            "gap": max(0.0, self.objective_ - self.lower_bound_),
            "scope": (f"all antecedents of up to {self.max_card} conditions" if mined_at_c
                      else f"the {len(antecedents)} mined antecedents (min_support > c)"),
        }
        if not self.is_optimal_:
            warnings.warn(
                f"CORELS stopped ({result.status}) before proving optimality: objective "
                f"{self.objective_:.6f}, lower bound {self.lower_bound_:.6f}, gap "
                f"{self.certificate_['gap']:.6f}; raise max_nodes/time_limit or c",
                ConvergenceWarning, stacklevel=4,
            )
        codes = {label: k for k, label in enumerate(result.classes.tolist())}
        return self._rule_list(
            [antecedents.items[m] for m in result.prefix],
            [codes[label] for label in result.rule_labels],
            codes[result.default_label], B, y,
        )
