"""What the engine may know about its condition columns.

The engine works on a bare boolean matrix.  Knowing which columns test the
same original feature lets the beam and the enumeration skip redundant
clauses (``x <= 3 AND x <= 5``), and knowing which column is the complement
of which lets a CNF reuse the matrix instead of building its complement.
:func:`condition_metadata` derives both from the shared Binarizer's
conditions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._beam import OP_EQ, OP_GT, OP_LE, OP_NE, OP_OTHER

_OPS = {"<=": OP_LE, ">": OP_GT, "==": OP_EQ, "!=": OP_NE}
_NEG = {"<=": ">", ">": "<=", "==": "!=", "!=": "=="}
_FLIP = {OP_LE: OP_GT, OP_GT: OP_LE, OP_EQ: OP_NE, OP_NE: OP_EQ}


@dataclass(frozen=True, eq=False)
class ConditionMetadata:
    """Per-column metadata of a condition matrix with ``d`` columns.

    Attributes
    ----------
    groups : ndarray of int, shape (d,)
        Original feature of each column (-1: unknown).
    ops : ndarray of int, shape (d,)
        Operator code: 0 ``<=``, 1 ``>``, 2 ``==``, 3 ``!=``, 4 other.
    thresholds : ndarray of float, shape (d,)
        Threshold of ``<=`` / ``>`` columns (NaN otherwise).
    negation_of : ndarray of int, shape (d,)
        Column that complements each column, -1 when there is none.
    """

    groups: np.ndarray
    ops: np.ndarray
    thresholds: np.ndarray
    negation_of: np.ndarray
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_arrays(cls, d, *, groups=None, ops=None, thresholds=None,
                    negation_of=None) -> "ConditionMetadata":
        """Validated metadata; missing arrays mean "unknown"."""
        def arr(value, fill, dtype, name):
            out = np.full(d, fill, dtype=dtype) if value is None else np.asarray(value, dtype=dtype)
            if out.shape != (d,):
                raise ValueError(f"{name} must have shape ({d},), got {out.shape}")
            return out

        meta = cls(arr(groups, -1, np.int64, "groups"), arr(ops, OP_OTHER, np.int64, "ops"),
                   arr(thresholds, np.nan, float, "thresholds"),
                   arr(negation_of, -1, np.int64, "negation_of"))
        if np.any((meta.ops < 0) | (meta.ops > OP_OTHER)):
            raise ValueError("ops codes must be in 0..4")
        if np.any((meta.negation_of < -1) | (meta.negation_of >= d)):
            raise ValueError("negation_of entries must be -1 or valid column indices")
        return meta

    @property
    def n_columns(self) -> int:
        return int(self.groups.shape[0])

    def pruning(self):
        """``(groups, ops, thresholds)`` for the beam and the enumeration."""
        return self.groups, self.ops, self.thresholds

    def complemented(self) -> "ConditionMetadata":
        """Metadata of the complemented columns (``<=`` becomes ``>``...); made once."""
        if "complemented" not in self._cache:
            ops = np.array([_FLIP.get(int(o), int(o)) for o in self.ops], dtype=np.int64)
            self._cache["complemented"] = ConditionMetadata(self.groups, ops, self.thresholds,
                                                            self.negation_of)
        return self._cache["complemented"]

    def compatibility(self) -> np.ndarray:
        """Which literal may join a clause holding which (see :mod:`._enum`); made once.

        The ``d x d`` matrix is shared by every fit over these columns (the
        inner folds of a choice, the final fit).
        """
        if "compat" not in self._cache:
            from ._enum import compatibility

            self._cache["compat"] = compatibility(self.n_columns, self.pruning())
        return self._cache["compat"]


def _key(v):
    try:
        return ("f", float(v)) if not isinstance(v, str) else ("s", v)
    except (TypeError, ValueError):
        return ("r", repr(v))


def condition_metadata(conditions) -> ConditionMetadata:
    """Column metadata for :func:`rulekit.colgen.search` from a Binarizer's conditions.

    Parameters
    ----------
    conditions : sequence
        Objects with ``.feature``, ``.op`` and ``.value`` (the shared
        ``Binarizer.conditions_``); ``op`` in ``{"<=", ">", "==", "!=",
        "is missing"}`` (anything else is treated as opaque).

    Returns
    -------
    ConditionMetadata
        One group per original feature (in order of first appearance), the
        operator codes and thresholds, and the complement of each condition
        (-1 when absent, or when the feature has missing values: a missing
        value satisfies neither ``x <= t`` nor ``x > t``).
    """
    conditions = list(conditions)
    d = len(conditions)
    groups = np.empty(d, dtype=np.int64)
    ops = np.empty(d, dtype=np.int64)
    thr = np.full(d, np.nan)
    ids, index = {}, {}
    for j, c in enumerate(conditions):
        groups[j] = ids.setdefault(c.feature, len(ids))
        ops[j] = _OPS.get(c.op, OP_OTHER)
        if ops[j] in (OP_LE, OP_GT):
            thr[j] = float(c.value)
        index[(c.feature, c.op, _key(c.value))] = j
    has_missing = {c.feature for c in conditions if c.op == "is missing"}
    neg = np.full(d, -1, dtype=np.int64)
    for j, c in enumerate(conditions):
        if c.op in _NEG and c.feature not in has_missing:
            neg[j] = index.get((c.feature, _NEG[c.op], _key(c.value)), -1)
    return ConditionMetadata(groups, ops, thr, neg)
