"""Boolean rule sets (DNF / CNF) by column generation (Dash, Günlük, Wei 2018).

The engine :func:`solve` works on a boolean condition matrix and returns a
:class:`ColGenResult`; :class:`BooleanRuleCGClassifier` is the sklearn
estimator around it.
"""

from ._estimator import BooleanRuleCGClassifier
from ._metadata import condition_metadata
from ._select import BudgetChoice, choose_complexity
from ._result import ColGenResult, IterationRecord, predict_clauses
from ._solve import solve
from ._solvers import available_solvers

__all__ = ["BooleanRuleCGClassifier", "solve", "ColGenResult", "IterationRecord", "predict_clauses",
           "condition_metadata", "available_solvers", "choose_complexity", "BudgetChoice"]
