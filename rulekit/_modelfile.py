"""Check a model file's content before anything is built from it.

A model file is data from outside: someone may have edited it, truncated it
or crafted it.  :func:`check_file` walks the whole JSON document of a saved
model (the layout in :mod:`rulekit.persist`) and raises one ``ValueError``
naming the first field that is wrong and why (``field 'model.rules[2].
conditions[0]': expected an integer condition index, got 0.5``), so that
nothing later (the binarizer, the model, an export) meets a value of the
wrong type, an index out of range or a probability that is not one.

What the checks guarantee, beyond types:

* every number a model computes with is finite; probabilities lie in
  [0, 1] and each rule's row sums to 1;
* every condition index points at a condition; a rule's prediction is one
  of the classes; counts are non-negative integers, one per class;
* the binarizer's columns tile its conditions in order, each condition is
  one its column can hold, and a category tested by ``==`` is one of the
  column's categories;
* free-form fields (``params``, ``metadata``) are plain JSON no deeper than
  :data:`MAX_DEPTH`.

Text fields (names, categories, labels, ``estimator``) may hold any
characters: every writer of code escapes them (``docs/security.md``).
"""

from __future__ import annotations

import math

from ._columns import DATETIME_PARTS, category_key
from ._tolerances import SOLVER_TOL

__all__ = ["check_file", "MAX_DEPTH"]

#: the deepest nesting a free-form field (params, metadata) may have
MAX_DEPTH = 32

_OPS = ("<=", ">", "==", "!=", "in", "not in", "is missing")
_STATUSES = ("optimal", "optimal_relative", "feasible", "time_limit", "node_limit",
             "memory_limit", "interrupted", "heuristic", "infeasible")


def _fail(where: str, what: str):
    raise ValueError(f"field {where!r}: {what}")


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _got(value) -> str:
    return f"got {_shown(value)} ({type(value).__name__})"


def _object(value, where: str, required=(), optional=()) -> dict:
    if not isinstance(value, dict):
        _fail(where, f"expected a JSON object, {_got(value)}")
    for key in required:
        if key not in value:
            _fail(f"{where}.{key}" if where else key, "is missing")
    return value


def _list(value, where: str) -> list:
    if not isinstance(value, list):
        _fail(where, f"expected a list, {_got(value)}")
    return value


def _text(value, where: str, *, none: bool = False):
    if value is None and none:
        return value
    if not isinstance(value, str):
        _fail(where, f"expected text{' or null' if none else ''}, {_got(value)}")
    return value


def _flag(value, where: str) -> bool:
    if not isinstance(value, bool):
        _fail(where, f"expected true or false, {_got(value)}")
    return value


def _integer(value, where: str, low=None, high=None, what: str = "an integer") -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        _fail(where, f"expected {what}, {_got(value)}")
    if (low is not None and value < low) or (high is not None and value >= high):
        bounds = f"in [{low}, {high})" if high is not None else f">= {low}"
        _fail(where, f"expected {what} {bounds}, got {value}")
    return value


def _number(value, where: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        _fail(where, f"expected a number, {_got(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        _fail(where, f"expected a finite number, got {value!r}")
    return value


def _probability(value, where: str) -> float:
    _number(value, where)
    if not 0.0 <= value <= 1.0:
        _fail(where, f"expected a probability in [0, 1], got {value!r}")
    return value


def _scalar(value, where: str, what: str = "a category"):
    """A category or label: text, a boolean, an integer or a finite number."""
    if isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return _number(value, where)
    _fail(where, f"expected {what} (text, a number or a boolean), {_got(value)}")


def _plain_json(value, where: str) -> None:
    """A free-form field: JSON, at most MAX_DEPTH deep (walked without recursion)."""
    stack = [(value, where, 0)]
    while stack:
        item, at, depth = stack.pop()
        if depth > MAX_DEPTH:
            _fail(where, f"nested more than {MAX_DEPTH} levels deep (at {at})")
        if isinstance(item, dict):
            stack += [(v, f"{at}.{k}", depth + 1) for k, v in item.items()]
        elif isinstance(item, list):
            stack += [(v, f"{at}[{i}]", depth + 1) for i, v in enumerate(item)]
        elif isinstance(item, float) and not math.isfinite(item):
            _fail(at, f"expected a finite number, got {item!r}")


def _distinct(values, where: str, what: str) -> None:
    keys = [category_key(v) for v in values]
    if len(set(keys)) != len(keys):
        _fail(where, f"lists the same {what} twice")


# -- models -------------------------------------------------------------------------------

def _condition(c, where: str) -> dict:
    _object(c, where, required=("feature", "op"))
    _text(c["feature"], f"{where}.feature")
    op = c["op"]
    if op not in _OPS:
        _fail(f"{where}.op", f"expected one of {list(_OPS)}, {_got(op)}")
    value = c.get("value")
    at = f"{where}.value"
    if op in ("<=", ">"):
        _number(value, at)
    elif op in ("==", "!="):
        _scalar(value, at)
    elif op in ("in", "not in"):
        for k, v in enumerate(_list(value, at)):
            _scalar(v, f"{at}[{k}]")
    elif value is not None:
        _fail(at, f"expected null for 'is missing', {_got(value)}")
    return c


def _conditions(value, where: str) -> list:
    return [_condition(c, f"{where}[{k}]") for k, c in enumerate(_list(value, where))]


def _indices(value, where: str, n_conditions: int, *, non_empty: bool = False) -> None:
    _list(value, where)
    if non_empty and not value:
        _fail(where, "expected at least one condition index, got an empty list")
    for k, j in enumerate(value):
        _integer(j, f"{where}[{k}]", 0, n_conditions, "an integer condition index")


def _classes(value, where: str, n: int | None = None) -> list:
    _list(value, where)
    if not value:
        _fail(where, "expected at least one class, got an empty list")
    if n is not None and len(value) != n:
        _fail(where, f"expected {n} classes, got {len(value)}")
    for k, c in enumerate(value):
        _scalar(c, f"{where}[{k}]", "a class label")
    _distinct(value, where, "class")
    # the model finds a label with == (list.index, dict keys), where True == 1 == 1.0:
    # classes it cannot tell apart are refused as the same class twice
    for k, c in enumerate(value):
        if any(c == other for other in value[:k]):
            _fail(where, f"lists the same class twice ({_shown(c)} equals an earlier class "
                  "as Python compares them)")
    return value


def _is_class(label, classes, where: str) -> None:
    _scalar(label, where, "a class label")
    if category_key(label) not in {category_key(c) for c in classes}:
        _fail(where, f"expected one of the classes {_shown(classes)}, got {_shown(label)}")


def _counts(value, where: str, n: int) -> None:
    _list(value, where)
    if len(value) != n:
        _fail(where, f"expected {n} counts (one per class), got {len(value)}")
    for k, v in enumerate(value):
        _integer(v, f"{where}[{k}]", 0, None, "a non-negative integer count")


def _rule(r, where: str, classes: list, n_conditions: int, *, default: bool = False) -> None:
    _object(r, where, required=("conditions", "prediction", "counts"))
    _indices(r["conditions"], f"{where}.conditions", n_conditions)
    if default and r["conditions"]:
        _fail(f"{where}.conditions", "the default rule has no conditions")
    _is_class(r["prediction"], classes, f"{where}.prediction")
    _counts(r["counts"], f"{where}.counts", len(classes))
    probabilities = r.get("probabilities")
    if probabilities is not None:
        at = f"{where}.probabilities"
        _list(probabilities, at)
        if len(probabilities) != len(classes):
            _fail(at, f"expected {len(classes)} probabilities (one per class), "
                      f"got {len(probabilities)}")
        for k, p in enumerate(probabilities):
            _probability(p, f"{at}[{k}]")
        if abs(math.fsum(probabilities) - 1.0) > SOLVER_TOL:
            _fail(at, f"probabilities must sum to 1, they sum to {math.fsum(probabilities)!r}")


def _rule_set(d, where: str, n_conditions: int) -> None:
    _object(d, where, required=("form", "classes", "clauses"))
    if d["form"] not in ("dnf", "cnf"):
        _fail(f"{where}.form", f"expected 'dnf' or 'cnf', {_got(d['form'])}")
    _classes(d["classes"], f"{where}.classes", 2)
    for k, clause in enumerate(_list(d["clauses"], f"{where}.clauses")):
        _indices(clause, f"{where}.clauses[{k}]", n_conditions, non_empty=True)
    for side in ("proba_true", "proba_false"):
        if side in d:
            _probability(d[side], f"{where}.{side}")
    for side in ("counts_true", "counts_false"):
        if d.get(side) is not None:
            _counts(d[side], f"{where}.{side}", 2)


def check_model(d, where: str = "model") -> None:
    """A RuleList / RuleSet / OneVsRestRuleSets dictionary (``to_dict`` output)."""
    _object(d, where, required=("type", "classes", "conditions"))
    kind = d["type"]
    if kind not in ("RuleList", "RuleSet", "OneVsRestRuleSets"):
        _fail(f"{where}.type", "expected 'RuleList', 'RuleSet' or 'OneVsRestRuleSets', "
                               f"{_got(kind)}")
    classes = _classes(d["classes"], f"{where}.classes")
    n = len(_conditions(d["conditions"], f"{where}.conditions"))
    if kind == "RuleList":
        _object(d, where, required=("rules", "default"))
        for k, r in enumerate(_list(d["rules"], f"{where}.rules")):
            _rule(r, f"{where}.rules[{k}]", classes, n)
        _rule(d["default"], f"{where}.default", classes, n, default=True)
        if d.get("positive") is not None:
            _is_class(d["positive"], classes, f"{where}.positive")
    elif kind == "RuleSet":
        _rule_set(d, where, n)
    else:
        _object(d, where, required=("members",))
        members = _list(d["members"], f"{where}.members")
        if len(members) != len(classes):
            _fail(f"{where}.members", f"expected one rule set per class ({len(classes)}), "
                                      f"got {len(members)}")
        for k, m in enumerate(members):
            at = f"{where}.members[{k}]"
            _rule_set(m, at, n)
            if m.get("conditions") != d["conditions"]:
                _fail(f"{at}.conditions", "differ from the model's conditions")


# -- binarizer ---------------------------------------------------------------------------

_SPEC_KEYS = ("name", "source", "part", "kind", "values", "has_missing", "first", "stop")
_PARAMS = ("n_thresholds", "categorical_features", "negations", "min_frequency",
           "max_categories", "handle_unknown", "thresholds")


def check_binarizer(d, where: str = "binarizer") -> None:
    """A Binarizer's saved state (``Binarizer.to_dict`` output)."""
    from ._params import validate
    from .binarize import Binarizer

    _object(d, where, required=("params", "feature_names_in", "columns", "conditions"))
    params = _object(d["params"], f"{where}.params")
    unknown = sorted(set(params) - set(_PARAMS))
    if unknown:
        _fail(f"{where}.params", f"unknown binarizer parameter(s) {unknown}")
    try:
        validate(Binarizer._rulekit_parameters,
                 {**Binarizer().get_params(), **params}, "Binarizer")
    except (TypeError, ValueError) as exc:
        _fail(f"{where}.params", str(exc))
    names = _list(d["feature_names_in"], f"{where}.feature_names_in")
    for k, name in enumerate(names):
        _text(name, f"{where}.feature_names_in[{k}]")
    if len(set(names)) != len(names):
        _fail(f"{where}.feature_names_in", "lists a column twice")
    if "from_array" in d:
        _flag(d["from_array"], f"{where}.from_array")
    conditions = _conditions(d["conditions"], f"{where}.conditions")
    next_first = 0
    for k, s in enumerate(_list(d["columns"], f"{where}.columns")):
        at = f"{where}.columns[{k}]"
        _object(s, at, required=_SPEC_KEYS)
        unknown = sorted(set(s) - set(_SPEC_KEYS) - {"infrequent"})
        if unknown:
            _fail(at, f"unknown key(s) {unknown}")
        name, source = _text(s["name"], f"{at}.name"), _text(s["source"], f"{at}.source")
        if source not in names:
            _fail(f"{at}.source", f"{source!r} is not one of feature_names_in")
        part = s["part"]
        if part is not None and part not in DATETIME_PARTS:
            _fail(f"{at}.part", f"expected null or one of {list(DATETIME_PARTS)}, {_got(part)}")
        if name != (source if part is None else f"{part}({source})"):
            _fail(f"{at}.name", f"expected {source if part is None else f'{part}({source})'!r} "
                                f"for source {source!r} and part {part!r}, got {name!r}")
        kind = s["kind"]
        if kind not in ("numeric", "categorical"):
            _fail(f"{at}.kind", f"expected 'numeric' or 'categorical', {_got(kind)}")
        values = _list(s["values"], f"{at}.values")
        infrequent = _list(s.get("infrequent", []), f"{at}.infrequent")
        for j, v in enumerate(values):
            (_number if kind == "numeric" else _scalar)(v, f"{at}.values[{j}]")
        for j, v in enumerate(infrequent):
            _scalar(v, f"{at}.infrequent[{j}]")
        if kind == "numeric" and infrequent:
            _fail(f"{at}.infrequent", "a numeric column has no infrequent categories")
        if kind == "categorical":
            _distinct(values + infrequent, f"{at}.values", "category")
        _flag(s["has_missing"], f"{at}.has_missing")
        first = _integer(s["first"], f"{at}.first")
        stop = _integer(s["stop"], f"{at}.stop")
        if first != next_first or not first <= stop <= len(conditions):
            _fail(f"{at}.first", f"the columns must cover the conditions in order: expected "
                                 f"first = {next_first} and first <= stop <= {len(conditions)}, "
                                 f"got first = {first}, stop = {stop}")
        next_first = stop
        known = {category_key(v) for v in values}
        for j in range(first, stop):
            c, cat = conditions[j], f"{where}.conditions[{j}]"
            if c["feature"] != name:
                _fail(f"{cat}.feature", f"expected {name!r} (column {k}), got {c['feature']!r}")
            allowed = (("<=", ">", "is missing") if kind == "numeric"
                       else ("==", "!=", "in", "not in", "is missing"))
            if c["op"] not in allowed:
                _fail(f"{cat}.op", f"a {kind} column has no {c['op']!r} condition")
            if c["op"] in ("==", "!=") and category_key(c["value"]) not in known:
                _fail(f"{cat}.value", f"{_shown(c['value'])} is not one of the column's categories")
            if c["op"] in ("in", "not in") and (
                    [category_key(v) for v in c["value"]] != [category_key(v) for v in infrequent]):
                _fail(f"{cat}.value", "expected the column's infrequent categories")
    if next_first != len(conditions):
        _fail(f"{where}.columns", f"cover {next_first} of the {len(conditions)} conditions")


# -- the file ----------------------------------------------------------------------------

def _certificate(c, where: str) -> None:
    if c is None:
        return
    _object(c, where, required=("status", "objective"))
    if c["status"] not in _STATUSES:
        _fail(f"{where}.status", f"expected one of {list(_STATUSES)}, {_got(c['status'])}")
    for key in ("objective", "lower_bound"):
        if c.get(key) is not None:
            _number(c[key], f"{where}.{key}")
    if c.get("scope") is not None:
        _text(c["scope"], f"{where}.scope")
    if c.get("n") is not None:
        _number(c["n"], f"{where}.n")
        if not c["n"] > 0:
            _fail(f"{where}.n", f"expected a positive count, {_got(c['n'])}")
    if c.get("unit") is not None:
        _text(c["unit"], f"{where}.unit")
    if (c["status"] not in ("optimal", "optimal_relative") and c.get("objective") is not None
            and c.get("lower_bound") is not None and c["lower_bound"] > c["objective"]):
        _fail(f"{where}.lower_bound", f"{c['lower_bound']!r} exceeds the objective "
                                      f"{c['objective']!r}")


def check_file(d, *, schema: int, newest: int) -> None:
    """Every field of a model file's JSON document (``format`` already checked).

    ``schema`` is the file's schema number (already checked to be an integer
    this rulekit reads); ``newest`` the newest schema it writes.
    """
    _text(d.get("rulekit_version"), "rulekit_version", none=True)
    _text(d.get("estimator"), "estimator", none=True)
    check_model(d.get("model"), "model")
    if schema == 1:
        if d.get("feature_names") is not None:
            for k, name in enumerate(_list(d["feature_names"], "feature_names")):
                _text(name, f"feature_names[{k}]")
        if d.get("target") is not None:
            _scalar(d["target"], "target", "a column name")
        return
    _object(d, "", required=("binarizer",))
    if d.get("params") is not None:
        _object(d["params"], "params")
        _plain_json(d["params"], "params")
    if d.get("metadata") is not None:
        _object(d["metadata"], "metadata")
        _plain_json(d["metadata"], "metadata")
    _certificate(d.get("certificate"), "certificate")
    check_binarizer(d["binarizer"], "binarizer")
    if d["model"]["conditions"] != d["binarizer"]["conditions"]:
        _fail("model.conditions", "differ from binarizer.conditions (the model must use the "
                                  "conditions of the binarizer saved with it)")
