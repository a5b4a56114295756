"""Parameter declarations and the one validator every learner uses.

Each estimator (and each engine) declares its parameters once, in a table
``{name: constraint}`` (the idea of scikit-learn's ``_parameter_constraints``,
not its schema); the defaults live in the ``__init__`` / function signature
beside it.  A function gets its table checked on every call by the decorator
:func:`validated`; an estimator checks its table with :func:`validate` when
``fit`` starts.  Either way one error style:

* ``TypeError`` when a value has the wrong *type* (a string where a number
  is expected, a float where an integer is expected, a bool for a number);
* ``ValueError`` when the type is right but the *value* is not (out of
  range, not one of the options);

and both messages name the owner, the parameter, what was expected and what
was given.  Engines and estimators share the constraint objects, so the same
mistake gives the same error whichever door it came through.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from ._tolerances import SEED_MAX

__all__ = [
    "Constraint", "Integer", "Real", "Options", "Boolean", "Instance", "CallableOrNone",
    "AnyOf", "SeedLike", "NoValidation", "validate", "validated", "declared", "check", "pick",
    "as_generator", "COMMON_PARAMETERS", "VALIDATED",
]


class Constraint:
    """One parameter's type and range.

    Subclasses implement :meth:`type_ok` (is the type acceptable?),
    :meth:`value_ok` (is the value acceptable, given the type is?),
    :meth:`describe` (what is expected, in words) and optionally
    :meth:`normalize` (the value the engine should use, e.g. ``int``).
    """

    allow_none = False

    def type_ok(self, value) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def value_ok(self, value) -> bool:
        return True

    def normalize(self, value):
        return value

    def describe(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def expected(self) -> str:
        return self.describe() + (" or None" if self.allow_none else "")


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _interval(low, high, closed: str) -> str:
    left = "[" if closed in ("both", "left") else "("
    right = "]" if closed in ("both", "right") else ")"
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf" if high is None else f"{high:g}"
    if high is None and low is not None:
        return (">= " if left == "[" else "> ") + lo
    if low is None and high is not None:
        return ("<= " if right == "]" else "< ") + hi
    return f"in {left}{lo}, {hi}{right}"


def _inside(value, low, high, closed: str) -> bool:
    if low is not None and (value < low or (value == low and closed in ("right", "neither"))):
        return False
    if high is not None and (value > high or (value == high and closed in ("left", "neither"))):
        return False
    return True


#: The largest integer an Integer parameter takes: engines and kernels count in
#: 64-bit integers, and a larger Python int would fail deep inside one with a raw
#: OverflowError instead of naming the parameter.
INT_MAX = 2**63 - 1


@dataclass(frozen=True)
class Integer(Constraint):
    """An integer (not a bool), optionally within ``[low, high]``; always within
    64 bits (``-INT_MAX <= value <= INT_MAX``)."""

    low: int | None = None
    high: int | None = None
    allow_none: bool = False

    def type_ok(self, value) -> bool:
        return _is_int(value)

    def value_ok(self, value) -> bool:
        return -INT_MAX <= value <= INT_MAX and _inside(value, self.low, self.high, "both")

    def normalize(self, value):
        return int(value)

    def describe(self) -> str:
        if self.low is None and self.high is None:
            return "an integer (64-bit: at most 2**63 - 1 either way)"
        text = "an integer " + _interval(self.low, self.high, "both")
        return text if self.high is not None else text + " (at most 2**63 - 1)"


@dataclass(frozen=True)
class Real(Constraint):
    """A finite real number (ints accepted, bools not) within an interval.

    ``closed`` says which ends belong to it: ``"both"``, ``"left"``,
    ``"right"`` or ``"neither"``.
    """

    low: float | None = None
    high: float | None = None
    closed: str = "both"
    allow_none: bool = False

    def type_ok(self, value) -> bool:
        return _is_real(value)

    def value_ok(self, value) -> bool:
        try:
            number = float(value)
        except OverflowError:  # an int beyond any float (10**400) is no finite number
            return False
        return math.isfinite(number) and _inside(value, self.low, self.high, self.closed)

    def normalize(self, value):
        return float(value)

    def describe(self) -> str:
        if self.low is None and self.high is None:
            return "a finite number"
        return "a finite number " + _interval(self.low, self.high, self.closed)


@dataclass(frozen=True)
class Options(Constraint):
    """One of a fixed set of values (usually strings)."""

    values: tuple = ()
    allow_none: bool = False

    def __init__(self, *values, allow_none: bool = False):
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "allow_none", allow_none)

    def type_ok(self, value) -> bool:
        if isinstance(value, (bool, np.bool_)) and not any(isinstance(v, bool) for v in self.values):
            return False  # True is an int to Python, but never a valid integer option
        return isinstance(value, tuple({type(v) for v in self.values}))

    def value_ok(self, value) -> bool:
        try:
            return value in self.values
        except TypeError:  # unhashable or incomparable values are simply not options
            return False

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class Boolean(Constraint):
    """``True`` or ``False`` (numpy bools too)."""

    allow_none: bool = False

    def type_ok(self, value) -> bool:
        return isinstance(value, (bool, np.bool_))

    def normalize(self, value):
        return bool(value)

    def describe(self) -> str:
        return "True or False"


@dataclass(frozen=True)
class Instance(Constraint):
    """An instance of one of ``types`` (described as ``what``)."""

    types: tuple = ()
    what: str = ""
    allow_none: bool = False

    def type_ok(self, value) -> bool:
        return isinstance(value, self.types)

    def describe(self) -> str:
        return self.what or "an instance of " + " or ".join(t.__name__ for t in self.types)


@dataclass(frozen=True)
class CallableOrNone(Constraint):
    """A callable, or None."""

    allow_none: bool = True

    def type_ok(self, value) -> bool:
        return callable(value)

    def describe(self) -> str:
        return "a callable"


@dataclass(frozen=True)
class SeedLike(Constraint):
    """A random seed: a non-negative int, a numpy Generator / RandomState / SeedSequence."""

    allow_none: bool = True

    def type_ok(self, value) -> bool:
        return _is_int(value) or isinstance(
            value, (np.random.Generator, np.random.RandomState, np.random.SeedSequence))

    def value_ok(self, value) -> bool:
        return not _is_int(value) or 0 <= value < 2**32

    def describe(self) -> str:
        return "an integer in [0, 2**32), a numpy Generator, RandomState or SeedSequence"


def as_generator(seed) -> np.random.Generator:
    """A numpy ``Generator`` from anything :class:`SeedLike` accepts.

    An int or a ``SeedSequence`` seeds a new generator (None: fresh entropy);
    a ``Generator`` is used as it is; a legacy ``RandomState`` (what
    scikit-learn hands out) seeds a new generator from its next draws.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(seed.randint(0, SEED_MAX, size=4))
    return np.random.default_rng(seed)


@dataclass(frozen=True)
class AnyOf(Constraint):
    """Any one of several constraints (e.g. a number or the string ``"auto"``)."""

    options: tuple = ()
    allow_none: bool = False

    def __init__(self, *options, allow_none: bool = False):
        object.__setattr__(self, "options", tuple(options))
        object.__setattr__(self, "allow_none", allow_none or any(o.allow_none for o in options))

    def type_ok(self, value) -> bool:
        return any(o.type_ok(value) for o in self.options)

    def value_ok(self, value) -> bool:
        return any(o.type_ok(value) and o.value_ok(value) for o in self.options)

    def normalize(self, value):
        for o in self.options:
            if o.type_ok(value) and o.value_ok(value):
                return o.normalize(value)
        return value  # pragma: no cover - validate() checked value_ok first

    def describe(self) -> str:
        return " or ".join(o.describe() for o in self.options)


@dataclass(frozen=True)
class NoValidation(Constraint):
    """Anything goes: the owner checks the value itself (say where, in a comment)."""

    allow_none: bool = True

    def type_ok(self, value) -> bool:
        return True

    def describe(self) -> str:
        return "anything"


def check(constraint: Constraint, value: Any, name: str, owner: str = ""):
    """Check one value; return it normalized (``int``, ``float``...).

    Raises
    ------
    TypeError
        The value's type is not one the constraint accepts.
    ValueError
        The type is acceptable but the value is not.
    """
    if value is None:
        if constraint.allow_none:
            return None
        raise TypeError(_message(constraint, value, name, owner))
    if not constraint.type_ok(value):
        raise TypeError(_message(constraint, value, name, owner))
    if not constraint.value_ok(value):
        raise ValueError(_message(constraint, value, name, owner))
    return constraint.normalize(value)


def validate(table: dict, values: dict, owner: str = "") -> dict:
    """Check every entry of ``values`` against ``table``; return them normalized.

    Parameters
    ----------
    table : dict of str -> Constraint
        The owner's declaration.
    values : dict of str -> value
        Parameter values; names missing from ``table`` are an error (a
        declaration that forgot a parameter is a bug, not user input).
    owner : str
        Estimator or function name, for the message.
    """
    unknown = set(values) - set(table)
    if unknown:
        raise RuntimeError(f"{owner}: no declaration for parameter(s) {sorted(unknown)}")
    return {name: check(table[name], value, name, owner) for name, value in values.items()}


def _message(constraint: Constraint, value, name: str, owner: str) -> str:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    where = f"{owner}: " if owner else ""
    return (f"{where}parameter {name!r} must be {constraint.expected()}; "
            f"got {shown} ({type(value).__name__})")


#: Every function decorated with :func:`validated`, in definition order (the
#: generated parameter test walks it to find the entry points).
VALIDATED: list = []


def validated(table: dict, owner: str):
    """Decorator: check a function's declared parameters on every call.

    The call is bound to the function's signature (defaults applied), each
    parameter named in ``table`` is checked with :func:`check` and replaced
    by its normalized value (``int``, ``float``, a ``frozenset``...), and
    the function runs with the result.  Parameters the table does not name
    (the data arrays, say) pass through untouched: the function checks them
    itself, with :mod:`rulekit._checks`.

    Parameters
    ----------
    table : dict of str -> Constraint
        The function's declaration; every name must be a parameter of the
        function (checked once, when the function is defined).
    owner : str
        The function's name in error messages, e.g. ``"corels.search"``.

    Returns
    -------
    callable
        A decorator.  The wrapped function keeps the original's name,
        docstring and signature, and exposes ``table`` as
        ``__rulekit_parameters__`` and ``owner`` as ``__rulekit_owner__``.

    Raises
    ------
    RuntimeError
        At definition time, when ``table`` names a parameter the function
        does not have (a declaration out of step with its signature is a bug).
    """
    def decorate(func):
        signature = inspect.signature(func)
        unknown = set(table) - set(signature.parameters)
        if unknown:
            raise RuntimeError(f"{owner}: declared parameter(s) {sorted(unknown)} are not in "
                               "the signature")

        @functools.wraps(func)
        def checked_call(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = bound.arguments
            for name, constraint in table.items():
                values[name] = check(constraint, values[name], name, owner)
            return func(*bound.args, **bound.kwargs)

        checked_call.__rulekit_parameters__ = table
        checked_call.__rulekit_owner__ = owner
        VALIDATED.append(checked_call)
        return checked_call

    return decorate


def declared(table: dict, namespace: dict) -> dict:
    """The values of ``table``'s parameters, from a :func:`validated` function's ``locals()``.

    Called first thing in the function's body, it collects the checked
    arguments into one dict for the helpers that take them all, without
    writing the signature out again.
    """
    return {name: namespace[name] for name in table}


def pick(table: dict, *names: str) -> dict:
    """The entries ``names`` of a declaration table (to share them)."""
    return {name: table[name] for name in names}


#: Declarations of the parameters every learner names the same way (engines
#: and estimators pick theirs from here, so the errors agree).
COMMON_PARAMETERS = {
    "time_limit": Real(0, None, closed="neither", allow_none=True),
    "random_state": SeedLike(),
    "verbose": AnyOf(Integer(0), Boolean()),
    "callback": CallableOrNone(),
}
