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

Importing the package registers the two learner specs (``_spec.SPECS``) in
:data:`rulekit.learners.LEARNERS`.
"""

from . import _objective
from ._objective import *  # noqa: F403 (the scalar functions, listed in _objective.__all__)
from ..estimators.frl import (
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
from ._spec import SPECS as _SPECS
from ..learners import register as _register

_register(*_SPECS)

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
    *_objective.__all__,
]
