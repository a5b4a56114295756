"""Falling rule lists (FRL) and softly falling rule lists (softFRL).

Chen & Rudin, "An Optimization Approach to Learning Falling Rule Lists",
AISTATS 2018; the formulas are written out in ``design/frl.md``.

* :class:`FallingRuleListClassifier`, :class:`SoftFallingRuleListClassifier`
  -- the scikit-learn estimators;
* :func:`search` -- the Monte-Carlo search engine (pure numpy in, result out);
* :class:`FRLResult`, :class:`SearchTrace` -- what it returns;
* the objective, penalty, prefix bounds, stop tests and curiosity functions as
  small scalar functions (the search runs compiled twins of the same code).
"""

from ._objective import (
    frl_curiosity,
    frl_prefix_bound,
    frl_should_stop,
    list_objective,
    monotonicity_penalty,
    risk_numerator,
    rule_risk,
    running_minimum,
    soft_bound_terms,
    soft_curiosity,
    soft_prefix_bound,
    soft_should_stop,
)
from ._estimator import FallingRuleListClassifier, SoftFallingRuleListClassifier
from ._search import FRLResult, SearchTrace, candidate_set, capture_counts, search

__all__ = [
    "FallingRuleListClassifier",
    "SoftFallingRuleListClassifier",
    "search",
    "FRLResult",
    "SearchTrace",
    "capture_counts",
    "candidate_set",
    "rule_risk",
    "risk_numerator",
    "list_objective",
    "monotonicity_penalty",
    "running_minimum",
    "frl_prefix_bound",
    "frl_should_stop",
    "soft_bound_terms",
    "soft_prefix_bound",
    "soft_should_stop",
    "frl_curiosity",
    "soft_curiosity",
]
