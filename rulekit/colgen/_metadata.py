"""Adapter from the shared Binarizer's conditions to the engine's column metadata."""

from __future__ import annotations

import numpy as np

from ._beam import OP_EQ, OP_GT, OP_LE, OP_NE, OP_OTHER

_OPS = {"<=": OP_LE, ">": OP_GT, "==": OP_EQ, "!=": OP_NE}
_NEG = {"<=": ">", ">": "<=", "==": "!=", "!=": "=="}


def _key(v):
    try:
        return ("f", float(v)) if not isinstance(v, str) else ("s", v)
    except (TypeError, ValueError):
        return ("r", repr(v))


def condition_metadata(conditions):
    """Column metadata arrays for :func:`rulekit.colgen.solve`.

    Parameters
    ----------
    conditions : sequence
        Objects with ``.feature``, ``.op`` and ``.value`` (the shared
        ``Binarizer.conditions_``); ``op`` in ``{"<=", ">", "==", "!=",
        "is missing"}`` (anything else is treated as opaque).

    Returns
    -------
    dict
        ``column_groups`` (int: one id per original feature, in order of first
        appearance), ``column_ops`` (int codes 0 ``<=``, 1 ``>``, 2 ``==``,
        3 ``!=``, 4 other), ``column_thresholds`` (float threshold for
        ``<=``/``>``, NaN otherwise) and ``negation_of`` (index of the
        complementary condition, -1 when absent or when the feature has
        missing values, since a missing value satisfies neither).  Pass them as keyword
        arguments to ``solve``.
    """
    conditions = list(conditions)
    d = len(conditions)
    groups = np.empty(d, dtype=np.int64)
    ops = np.empty(d, dtype=np.int64)
    thr = np.full(d, np.nan)
    ids = {}
    index = {}
    for j, c in enumerate(conditions):
        groups[j] = ids.setdefault(c.feature, len(ids))
        ops[j] = _OPS.get(c.op, OP_OTHER)
        if ops[j] in (OP_LE, OP_GT):
            thr[j] = float(c.value)
        index[(c.feature, c.op, _key(c.value))] = j
    # on a feature with an "is missing" condition a missing value makes both
    # x <= t and x > t (== / !=) false, so they are not complements there
    has_missing = {c.feature for c in conditions if c.op == "is missing"}
    neg = np.full(d, -1, dtype=np.int64)
    for j, c in enumerate(conditions):
        if c.op in _NEG and c.feature not in has_missing:
            neg[j] = index.get((c.feature, _NEG[c.op], _key(c.value)), -1)
    return {"column_groups": groups, "column_ops": ops, "column_thresholds": thr,
            "negation_of": neg}
