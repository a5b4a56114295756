"""Falling rule lists (FRL) and softly falling rule lists (softFRL).

Chen & Rudin, "An Optimization Approach to Learning Falling Rule Lists",
AISTATS 2018: the falling program (Section 2, Program 2.9), its prefix bound
(Section 4), the softly falling program (Section 5, Program 5.1) and the two
Monte-Carlo searches (Appendices A and B).

* :class:`FallingRuleListClassifier`, :class:`SoftFallingRuleListClassifier`
  -- the scikit-learn estimators;
* :func:`search` -- the Monte-Carlo search engine (pure numpy in, result out),
  with its parameter declarations :data:`SEARCH_PARAMETERS`;
* :class:`FRLResult`, :class:`SearchTrace` -- what it returns;
* :func:`expected_failed_checks` -- the scikit-learn check the estimators
  fail by design (``predict`` thresholds at ``1/(1+w)``), with the reason;
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
from ._estimator import (
    FallingRuleListClassifier,
    SoftFallingRuleListClassifier,
    expected_failed_checks,
)
from ._search import (
    SEARCH_PARAMETERS,
    FRLResult,
    SearchTrace,
    candidate_set,
    capture_counts,
    search,
)

__all__ = [
    "FallingRuleListClassifier",
    "SoftFallingRuleListClassifier",
    "search",
    "SEARCH_PARAMETERS",
    "expected_failed_checks",
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
