"""What a model computes on raw data, resolved once for every export format.

A rule model tests *conditions* (``age <= 25``, ``job in {...}``); what a
condition means on a raw value depends on the binarizer that learned it
(``docs/binarization.md``): a missing value makes every condition of its
column false except ``is missing``, an unseen category counts as
infrequent or matches nothing depending on ``handle_unknown``, a datetime
column is read through its parts.  This module turns each condition the
model uses into a :class:`Test` that says, with no binarizer left, what to
compare on which input column, and the model into a :class:`Plan` (an
ordered list of outcomes, or one-vs-rest scores).  The SQL and Python
writers only spell a plan out; neither knows the binarizer.

Every categorical test becomes membership in an explicit set of known
categories (``x == v`` is ``x in (v,)``, ``x != v`` is "present and not
in (v,)"), so the writers need four comparisons and ``is missing``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

from .._columns import category_key, check_case_distinct, plain

__all__ = ["Reading", "Test", "Plan", "plan_for"]


@dataclass(frozen=True)
class Reading:
    """How the tests read one input column.

    Attributes
    ----------
    column : str
        Input column name.
    part : str or None
        Datetime part (``"year"``, ``"month"``, ``"hour"``, ``"weekday"``) or None.
    numeric : bool
        Thresholds compare the value as a number; otherwise it is a category.
    numbers : bool
        The column holds numbers (a numeric column, or categories that are all
        numbers): where a database can store NaN, NaN is missing too.
    booleans : bool
        Every category is a boolean: other values are read through their text
        (``rulekit._columns.as_boolean``: ``1`` and ``"True"`` are True).
    """

    column: str
    part: str | None
    numeric: bool
    numbers: bool
    booleans: bool = False

    @property
    def name(self) -> str:
        """The feature name the conditions carry (``year(signup)`` for a part)."""
        return self.column if self.part is None else f"{self.part}({self.column})"


@dataclass(frozen=True)
class Test:
    """One condition resolved on raw data.

    ``op`` is ``"missing"``; ``"<="`` or ``">"`` (present and compared with the
    number ``value``); ``"in"`` (present and one of the categories in the
    tuple ``value``, none for an empty tuple) or ``"not in"`` (present and
    none of them).
    """

    reading: Reading
    op: str
    value: Any
    text: str  # the condition as rulekit prints it (for comments)


@dataclass
class Plan:
    """A model spelled out on raw data.

    ``kind`` is ``"outcomes"`` or ``"scores"``.

    * ``"outcomes"`` (rule lists and binary rule sets): ``branches`` are
      tried in order, each a formula (see below) paired with an outcome
      index; the first that holds decides, ``len(branches)`` when none
      does.  ``labels[k]`` and ``probabilities[k]`` (one per class, in
      ``classes`` order) belong to outcome ``k``.
    * ``"scores"`` (one-vs-rest rule sets): member ``k`` gives class ``k`` the
      score ``scores[k][0]`` where its formula ``members[k]`` holds and
      ``scores[k][1]`` elsewhere.  The prediction is the model's decision
      list (``OneVsRestRuleSets.steps``, as the model prints it): ``steps``
      are ``(k, holds)`` pairs tried in order, the first whose member ``k``
      holds (``holds`` True) or does not (False) gives class ``k``, and
      ``default`` (a class index) is the class when none does; that is the
      class with the highest score, the earlier class on ties.  The
      probabilities are the scores divided by their sum (added left to
      right), or all equal when every score is 0.

    A formula is ``(form, clauses)``: ``form`` ``"dnf"`` (OR of ANDs) or
    ``"cnf"`` (AND of ORs), clauses tuples of indices into ``tests``.  An
    empty DNF is false, an empty CNF true.

    ``strict`` maps a categorical reading to its known categories when an
    unseen category must be refused (``handle_unknown="error"``).
    """

    kind: str
    classes: list
    tests: list
    readings: list
    branches: list = field(default_factory=list)
    labels: list = field(default_factory=list)
    probabilities: list = field(default_factory=list)
    members: list = field(default_factory=list)
    scores: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    default: int = 0
    strict: dict = field(default_factory=dict)
    title: str = ""


def _is_number(value) -> bool:
    return category_key(value)[0] == "number"


def _literal_tests(conditions) -> list:
    """Conditions read as they are written (a bare model, no binarizer state).

    ``x in {...}`` tests the listed categories and an unseen category
    matches no ``==`` and no ``in``: the estimator's behaviour with
    ``handle_unknown="ignore"``.
    """
    thresholded = {c.feature for c in conditions if c.op in ("<=", ">")}
    values: dict = {}
    for c in conditions:
        if c.op in ("==", "!="):
            values.setdefault(c.feature, []).append(c.value)
        elif c.op in ("in", "not in"):
            values.setdefault(c.feature, []).extend(c.value)
    tests = []
    for c in conditions:
        numeric = c.feature in thresholded
        holds_numbers = numeric or (bool(values.get(c.feature))
                                    and all(_is_number(v) for v in values[c.feature]))
        listed = values.get(c.feature, [])
        booleans = not numeric and bool(listed) and all(isinstance(v, bool) for v in listed)
        reading = Reading(c.feature, None, numeric, holds_numbers, booleans)
        tests.append(_resolve(c, reading, frequent=None, infrequent=None))
    return tests


def _resolve(c, reading: Reading, *, frequent, infrequent, unknown_is_rare=False) -> Test:
    """One condition as a :class:`Test` (``frequent`` / ``infrequent``: the column's
    categories, needed when unseen categories join the infrequent group)."""
    text = str(c)
    if c.op == "is missing":
        return Test(reading, "missing", None, text)
    if c.op in ("<=", ">"):
        return Test(reading, c.op, plain(c.value), text)
    if c.op == "==":
        return Test(reading, "in", (plain(c.value),), text)
    if c.op == "!=":
        return Test(reading, "not in", (plain(c.value),), text)
    group = tuple(plain(v) for v in (c.value if infrequent is None else infrequent))
    if unknown_is_rare:
        # "infrequent" means "present and not a frequent category": unseen ones included
        flip = {"in": "not in", "not in": "in"}[c.op]
        return Test(reading, flip, tuple(plain(v) for v in frequent), text)
    return Test(reading, c.op, group, text)


def _binarizer_tests(binarizer, used: set) -> tuple[list, dict]:
    """Tests of the conditions in ``used`` (indices), from the binarizer's saved state."""
    state = binarizer.to_dict()
    conditions = binarizer.conditions_
    handle_unknown = state["params"]["handle_unknown"]
    tests: list = [None] * len(conditions)
    strict = {}
    for spec in state["columns"]:
        block = range(spec["first"], spec["stop"])
        if not used.intersection(block):
            continue
        numeric = spec["kind"] == "numeric"
        known = list(spec["values"]) + list(spec["infrequent"])
        holds_numbers = numeric or (bool(known) and all(_is_number(v) for v in known))
        booleans = not numeric and bool(known) and all(isinstance(v, bool) for v in known)
        reading = Reading(spec["source"], spec["part"], numeric, holds_numbers, booleans)
        group = any(conditions[k].op in ("in", "not in") for k in block)
        rare = handle_unknown in ("warn", "infrequent_if_exist") and group
        for k in used.intersection(block):
            tests[k] = _resolve(conditions[k], reading, frequent=spec["values"],
                                infrequent=spec["infrequent"], unknown_is_rare=rare)
        if handle_unknown == "error" and not numeric:
            strict[reading] = tuple(known)
    return tests, strict


def _used(model) -> set:
    if model.kind == "RuleList":
        return {j for r in model.rules for j in r.conditions}
    members = model.members if model.kind == "OneVsRestRuleSets" else [model]
    return {j for m in members for clause in m.clauses for j in clause}


def _readings(tests, used: set) -> list:
    """Distinct readings in order of first condition index (the binarizer's column order)."""
    return list(dict.fromkeys(tests[j].reading for j in sorted(used)))


def plan_for(model, binarizer=None, *, title: str = "") -> Plan:
    """The :class:`Plan` of a rulekit model.

    Parameters
    ----------
    model : RuleList, RuleSet or OneVsRestRuleSets
    binarizer : Binarizer, optional
        The fitted binarizer whose ``conditions_`` the model uses; without
        it each condition is read literally (see :func:`_literal_tests`).
    title : str
        What the model is, for the exported text's heading.
    """
    # the model says what it is (``kind``): this package never imports the model classes,
    # which call it for their own ``to_sql`` and ``to_python``
    kind = getattr(model, "kind", None)
    if kind not in ("RuleList", "RuleSet", "OneVsRestRuleSets"):
        raise TypeError(f"cannot export a {type(model).__name__}; expected a RuleList, RuleSet "
                        "or OneVsRestRuleSets (or an estimator or Predictor holding one)")
    used = _used(model)
    if binarizer is None:
        tests, strict = _literal_tests(model.conditions), {}
    else:
        tests, strict = _binarizer_tests(binarizer, used)
    readings = _readings(tests, used)
    # a fit refuses such names; a model file or a bare model may still hold them
    check_case_distinct(dict.fromkeys(r.column for r in readings), "the model reads")
    common = dict(classes=[plain(c) for c in model.classes], tests=tests,
                  readings=readings, strict=strict, title=title)
    if kind == "RuleList":
        proba = model.rule_probabilities()
        branches = [(("dnf", [tuple(r.conditions)]), k) for k, r in enumerate(model.rules)]
        return Plan("outcomes", branches=branches,
                    labels=[plain(r.prediction) for r in [*model.rules, model.default]],
                    probabilities=[tuple(float(p) for p in row) for row in proba], **common)
    if kind == "RuleSet":
        # outcome 0: the formula holds; outcome 1 (no branch holds): it does not
        pt, pf = model.proba_true, model.proba_false
        return Plan("outcomes", branches=[((model.form, model.clauses), 0)],
                    labels=[model.classes[1], model.classes[0]],
                    probabilities=[(1.0 - pt, pt), (1.0 - pf, pf)], **common)
    steps, default = model.steps()
    return Plan("scores", members=[(m.form, m.clauses) for m in model.members],
                scores=[(m.proba_true, m.proba_false) for m in model.members],
                steps=[(int(st.cls), bool(st.holds)) for st in steps], default=int(default),
                **common)


def is_integral(value) -> bool:
    """A number written exactly as an integer literal (and compared as a double)."""
    return (isinstance(value, numbers.Integral) and not isinstance(value, bool)
            and abs(value) < 2 ** 53) or (
        isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53)
