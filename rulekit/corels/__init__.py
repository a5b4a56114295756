"""CORELS: certifiably optimal rule lists by branch and bound.

``search(A, y, c, ...)`` is the engine (pure numpy/numba); it returns a
:class:`CorelsResult`.  ``rashomon(A, y, c, epsilon)`` enumerates every list
within ``epsilon`` of the optimum (a :class:`RashomonResult`).  ``BOUNDS`` names the pruning bounds that can be
switched on and off for ablation studies; ``ablation(A, y, c)`` runs one.
:class:`CorelsClassifier` is the sklearn estimator around it.  Importing the
package registers its learner spec (``_spec.SPEC``) in
:data:`rulekit.learners.LEARNERS`.
"""

from rulekit.corels._result import CorelsResult
from rulekit.corels._search import BOUNDS, POLICIES, SYMMETRIES, search
from rulekit.corels._rashomon import RashomonResult, rashomon
from rulekit.estimators.corels import CorelsClassifier
from rulekit.corels._ablation import ablation
from rulekit.corels._spec import SPEC as _SPEC
from rulekit.learners import register as _register

_register(_SPEC)

__all__ = ["search", "CorelsResult", "CorelsClassifier", "BOUNDS", "POLICIES", "SYMMETRIES",
           "rashomon", "RashomonResult", "ablation"]
