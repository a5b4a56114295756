"""Boolean rule sets (DNF / CNF) by column generation.

Dash, Günlük and Wei, "Boolean Decision Rules via Column Generation",
NeurIPS 2018.  The engine :func:`search` works on a boolean condition matrix
and returns a :class:`ColGenResult`; :func:`choose_complexity` picks the form
and budget by validation along a budget path (its folds are drawn on the
estimator side, :mod:`rulekit.estimators.validation`);
:class:`BooleanRuleCGClassifier` is the scikit-learn estimator around both.
Importing the package registers its learner specs (``cg``, ``cg-dnf``,
``cg-cnf``: ``_spec.SPECS``) in :data:`rulekit.learners.LEARNERS`.
"""

from ..estimators.colgen import BooleanRuleCGClassifier
from ._metadata import ConditionMetadata, condition_metadata
from ._result import ColGenResult, IterationRecord, predict_clauses
from ._search import SEARCH_PARAMETERS, search
from ._select import BudgetChoice
from ._settings import ColGenSettings
from ._solvers import available_solvers
from ._spec import SPECS as _SPECS
from ..estimators.validation import choose_complexity
from ..learners import register as _register

_register(*_SPECS)

__all__ = ["BooleanRuleCGClassifier", "search", "SEARCH_PARAMETERS", "ColGenSettings",
           "ColGenResult", "IterationRecord", "predict_clauses", "ConditionMetadata",
           "condition_metadata", "available_solvers", "choose_complexity", "BudgetChoice"]
