"""Every declared parameter is checked, through every door.

The cases are generated from the declarations: for each engine entry point
(the functions decorated with ``rulekit._params.validated``) and each
estimator, for each declared parameter, values its constraint refuses (a
wrong type must raise ``TypeError``, a wrong value ``ValueError``), and the
message must name the parameter.  A parameter that is declared but not
checked, or an entry point that lost its decorator, fails here.
"""

import inspect
import math

import numpy as np
import pytest

import rulekit
import rulekit.colgen
import rulekit.corels
import rulekit.frl
import rulekit.mining
from rulekit._params import (VALIDATED, AnyOf, Boolean, CallableOrNone, Constraint, Instance,
                             Integer, NoValidation, Options, Real, SeedLike)
from rulekit.base import RuleClassifierBase

A = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=bool)
Y = np.array([0, 1, 0, 1, 1, 0])

#: Each entry point with tiny valid arguments, and the arguments it checks
#: itself (data, not declared parameters).
ENTRY_POINTS = {
    "corels.search": (dict(A=A, y=Y, c=0.01), {"A", "y", "sample_weight"}),
    "corels.rashomon": (dict(A=A, y=Y, c=0.01, epsilon=0.01), {"A", "y", "sample_weight"}),
    "frl.search": (dict(A=A, y=Y, w=1.0, C=0.01, n_iter=5), {"A", "y", "factors", "sample_weight"}),
    "rulekit.colgen.search": (dict(B=A, y=Y), {"B", "y", "sample_weight"}),
    "rulekit.colgen.choose_complexity": (dict(B=A, y=Y), {"B", "y", "grid", "sample_weight"}),
    # the engine's own, reading a validation design drawn on the estimator side (never
    # reached here: a refused value stops the call before the design is read)
    "choose_complexity": (dict(B=A, y=Y, design=None), {"B", "y", "grid", "sample_weight"}),
    "mine_antecedents": (dict(B=A, min_support=0.5, max_card=1),
                         {"B", "y", "per_class", "conditions", "max_bytes", "sample_weight"}),
}

#: Refused values of constraints defined outside rulekit._params, beyond what
#: their base class gives.
EXTRA_BAD = {
    "BoundSet": [(3, TypeError), ("magic", ValueError)],
    "_Grid": [((1,), ValueError)],
}


def bad_values(constraint: Constraint) -> list:
    """``(value, error)`` pairs that ``constraint`` must refuse with ``error``."""
    name = type(constraint).__name__
    out = [] if constraint.allow_none else [(None, TypeError)]
    if isinstance(constraint, Integer):
        out += [("1", TypeError), (1.5, TypeError), (True, TypeError)]
        # beyond 64 bits: the validator's ValueError, never a raw OverflowError from a kernel
        out += [(10**30, ValueError), (-10**30, ValueError)]
        out += [] if constraint.low is None else [(constraint.low - 1, ValueError)]
        out += [] if constraint.high is None else [(constraint.high + 1, ValueError)]
    elif isinstance(constraint, Real):
        out += [("0.5", TypeError), (math.nan, ValueError)]
        # an int no float can hold: float(10**400) raises OverflowError
        out += [(10**400, ValueError), (-10**400, ValueError)]
        out += [] if constraint.low is None else [(constraint.low - 1.0, ValueError)]
        out += [] if constraint.high is None else [(constraint.high + 1.0, ValueError)]
    elif isinstance(constraint, Options):
        out += [(object(), TypeError), ("__not_an_option__", ValueError)]
    elif isinstance(constraint, Boolean):
        out += [("yes", TypeError)]
    elif isinstance(constraint, SeedLike):
        out += [("seed", TypeError), (-1, ValueError)]
    elif isinstance(constraint, (Instance, CallableOrNone)):
        out += [(object(), TypeError)]
    elif isinstance(constraint, AnyOf):
        out += [(object(), TypeError)]
        # a value one option refuses is refused by the union only if no other option takes it
        for option in constraint.options:
            out += [(v, ValueError) for v, e in bad_values(option)
                    if e is ValueError and v is not None
                    and not any(o.type_ok(v) and o.value_ok(v) for o in constraint.options)]
    elif isinstance(constraint, NoValidation):
        return []
    if type(constraint).__module__ != "rulekit._params":
        # a learner's own constraint: its refused values are listed here
        assert name in EXTRA_BAD, f"add the values {name} refuses to EXTRA_BAD"
        out += EXTRA_BAD[name]
    return out


def _cases(table: dict) -> list:
    return [(name, value, error) for name, constraint in table.items()
            for value, error in bad_values(constraint)]


def _ids(cases) -> list:
    return [f"{owner}-{name}-{error.__name__}-{type(value).__name__}"
            for owner, name, value, error in cases]


# rulekit's own entry points (a learner defined elsewhere, like the one in
# docs/adding-a-learner.md, registers too)
OWN = [f for f in VALIDATED if f.__module__.startswith("rulekit.")]
ENTRY_CASES = [(f.__rulekit_owner__, name, value, error) for f in OWN
               for name, value, error in _cases(f.__rulekit_parameters__)]
ESTIMATORS = [getattr(rulekit, n) for n in rulekit.__all__
              if isinstance(getattr(rulekit, n), type)
              and issubclass(getattr(rulekit, n), (RuleClassifierBase, rulekit.Binarizer))]
ESTIMATOR_CASES = [(cls.__name__, name, value, error) for cls in ESTIMATORS
                   for name, value, error in _cases(cls._rulekit_parameters)]


def test_every_entry_point_is_validated_and_covered():
    owners = {f.__rulekit_owner__: f for f in OWN}
    assert set(owners) == set(ENTRY_POINTS)
    for owner, f in owners.items():
        undeclared = set(inspect.signature(f).parameters) - set(f.__rulekit_parameters__)
        assert undeclared == ENTRY_POINTS[owner][1], owner


def test_every_estimator_is_covered():
    assert {c.__name__ for c in ESTIMATORS} >= {
        "Binarizer", "CorelsClassifier", "FallingRuleListClassifier",
        "SoftFallingRuleListClassifier", "BooleanRuleCGClassifier"}


@pytest.mark.parametrize("owner,name,value,error", ENTRY_CASES, ids=_ids(ENTRY_CASES))
def test_entry_point_refuses_bad_value(owner, name, value, error):
    function = next(f for f in OWN if f.__rulekit_owner__ == owner)
    kwargs = {**ENTRY_POINTS[owner][0], name: value}
    with pytest.raises(error, match=f"parameter '{name}'"):
        function(**kwargs)


@pytest.mark.parametrize("owner,name,value,error", ESTIMATOR_CASES, ids=_ids(ESTIMATOR_CASES))
def test_estimator_refuses_bad_value(owner, name, value, error):
    cls = getattr(rulekit, owner)
    X = A.astype(float)
    with pytest.raises(error, match=f"{owner}: parameter '{name}'"):
        cls(**{name: value}).fit(X, Y)


def test_an_integer_beyond_64_bits_is_the_validators_error():
    # issue 36, item 13: max_work=10**30 raised a raw OverflowError from the kernel
    with pytest.raises(ValueError, match=r"CorelsClassifier: parameter 'max_work' must be "
                                         r"an integer >= 1 \(at most 2\*\*63 - 1\)"):
        rulekit.CorelsClassifier(max_work=10**30).fit(A.astype(float), Y)
    with pytest.raises(ValueError, match="parameter 'c' must be a finite number"):
        rulekit.CorelsClassifier(c=10**400).fit(A.astype(float), Y)
