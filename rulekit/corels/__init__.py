"""CORELS: certifiably optimal rule lists by branch and bound.

``search(A, y, c, ...)`` is the engine (pure numpy/numba); it returns a
:class:`CorelsResult`.  ``BOUNDS`` names the pruning bounds that can be
switched on and off for ablation studies.
"""

from rulekit.corels._result import CorelsResult
from rulekit.corels._search import BOUNDS, POLICIES, SYMMETRIES, search

__all__ = ["search", "CorelsResult", "BOUNDS", "POLICIES", "SYMMETRIES"]
