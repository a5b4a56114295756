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
  :data:`MAX_DEPTH`;
* no integer literal is longer than :data:`MAX_INT_DIGITS` digits (the JSON
  reader is given :func:`parse_int`), and counts and indices fit in 64 bits;
* the file and its parts stay within :data:`LIMITS` (:func:`check_limits`,
  run first), so neither reading it nor exporting it can cost gigabytes.

Text fields (names, categories, labels, ``estimator``) may hold any
characters: every writer of code escapes them (``docs/security.md``).
"""

from __future__ import annotations

import math

from ._columns import DATETIME_PARTS, category_key
from ._params import INT_MAX
from ._tolerances import SOLVER_TOL

__all__ = ["check_file", "check_limits", "parse_int", "LongInteger", "LIMITS", "MAX_DEPTH"]

#: the deepest nesting a free-form field (params, metadata) may have
MAX_DEPTH = 32

#: the most digits an integer literal in a model file may have: enough for any label or
#: category a fit writes (Python ints of any size), few enough that every one converts to a
#: float (10**308 is the largest) and to text (Python refuses past 4,300 digits).  Counts,
#: indices and other integers a model computes with must also fit in 64 bits.
MAX_INT_DIGITS = 300


class LongInteger:
    """An integer literal too long for a model file, kept unconverted.

    The JSON reader hands every integer literal to :func:`parse_int`.  One
    with more than :data:`MAX_INT_DIGITS` digits is not converted (Python
    refuses past 4,300 digits, and a 401-digit integer overflows any float):
    it becomes this marker, which no check accepts, so the error names the
    field it sits in instead of an OverflowError surfacing later.
    """

    __slots__ = ("digits",)

    def __init__(self, text: str):
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"<an integer of {self.digits} digits>"


def parse_int(text: str):
    """``json.loads(..., parse_int=parse_int)``: an int, or a :class:`LongInteger`."""
    return int(text) if len(text.lstrip("-")) <= MAX_INT_DIGITS else LongInteger(text)

#: How large a model file and its parts may be (``rulekit.load(path, limits={...})``
#: overrides any of them; None lifts one).  Far above what a fit writes (a model
#: of 20,000 columns with the default thresholds holds about 400,000 conditions),
#: low enough that reading a file, and writing its SQL or Python, stays within
#: seconds and a few hundred MB: without them a 3 MB file could ask an export for
#: gigabytes (one long category list tested by thousands of rules).
LIMITS = {
    "max_bytes": 100_000_000,       # the file itself
    "max_text": 10_000,             # characters in one name, category, label or other text
    "max_classes": 1_000,           # classes of the model
    "max_columns": 100_000,         # the binarizer's input and derived columns
    "max_values": 100_000,          # thresholds or categories of one column
    "max_conditions": 1_000_000,    # conditions of the binarizer (and the model)
    "max_rules": 10_000,            # rules of a list, clauses of a rule set (all members)
    "max_rule_conditions": 100,     # conditions of one rule or clause
    "max_export_chars": 20_000_000, # what the exported code repeats per rule (estimated)
}


def resolve_limits(limits) -> dict:
    """:data:`LIMITS` with the caller's overrides (a dict); checked."""
    if limits is None:
        return dict(LIMITS)
    if not isinstance(limits, dict):
        raise TypeError(f"limits must be a dict of {sorted(LIMITS)} to override, got "
                        f"{type(limits).__name__}")
    unknown = sorted(set(limits) - set(LIMITS))
    if unknown:
        raise ValueError(f"unknown limit(s) {unknown}; the limits are {sorted(LIMITS)}")
    for key, value in limits.items():
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or value < 1):
            raise ValueError(f"limit {key!r} must be a positive integer or None (no limit), "
                             f"got {value!r}")
    return {**LIMITS, **limits}


_OPS = ("<=", ">", "==", "!=", "in", "not in", "is missing")
_STATUSES = ("optimal", "optimal_relative", "feasible", "time_limit", "node_limit",
             "memory_limit", "interrupted", "heuristic", "infeasible")


def _fail(where: str, what: str):
    raise ValueError(f"field {where!r}: {what}")


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _got(value) -> str:
    if isinstance(value, LongInteger):
        return (f"got an integer of {value.digits} digits (a model file holds integers of at "
                f"most {MAX_INT_DIGITS} digits)")
    return f"got {_shown(value)} ({type(value).__name__})"


def _long(value, where: str) -> None:
    """Refuse an integer no 64-bit integer can hold, where the model counts with it
    (numpy would overflow on it)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > INT_MAX:
        _fail(where, f"an integer of {len(str(abs(value)))} digits is beyond the 64-bit "
                     "integers a count or an index may be (at most 2**63 - 1)")


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
    _long(value, where)
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
        elif isinstance(item, LongInteger):
            _fail(at, f"expected plain JSON, {_got(item)}")


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


# -- limits --------------------------------------------------------------------------------

def _over(where: str, what: str, count: int, key: str, limits: dict) -> None:
    _fail(where, f"{what} {count:,}, above the limit of {limits[key]:,}; if you trust this "
                 f"file, load it with rulekit.load(path, limits={{{key!r}: ...}})")


def _cap(value, where: str, what: str, key: str, limits: dict) -> None:
    if limits[key] is not None and isinstance(value, (list, str)) and len(value) > limits[key]:
        _over(where, what, len(value), key, limits)


def _weight(value) -> int:
    """Characters a condition value takes when written out (a list: all its items)."""
    if isinstance(value, list):
        return sum(_weight(v) for v in value) + 2 * len(value)
    return len(value) + 2 if isinstance(value, str) else 24


def _path(trail) -> str:
    """The field name of a walk's trail ``(parent trail, key)`` (built only for a message)."""
    keys = []
    while trail is not None:
        trail, key = trail
        keys.append(key)
    text = ""
    for key in reversed(keys):
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text or "(top level)"


def _long_texts(d, most: int, limits: dict) -> None:
    """Every string and key at any depth no longer than ``most`` (walked without recursion;
    the field's name is spelled out only when one is too long)."""
    stack = [(d, None)]
    while stack:
        item, trail = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                if isinstance(k, str) and len(k) > most:
                    _over(_path(trail), "a key of length", len(k), "max_text", limits)
                if isinstance(v, (dict, list)) or (isinstance(v, str) and len(v) > most):
                    stack.append((v, (trail, k)))
        elif isinstance(item, list):
            for i, v in enumerate(item):
                if isinstance(v, (dict, list)) or (isinstance(v, str) and len(v) > most):
                    stack.append((v, (trail, i)))
        elif isinstance(item, str):
            _over(_path(trail), "text of length", len(item), "max_text", limits)


def check_limits(d, limits: dict, *, raw: bytes | None = None) -> None:
    """Sizes of a model file's parts against ``limits`` (:func:`resolve_limits`).

    Runs before :func:`check_file`, so it measures only what has the expected
    shape and leaves every other mistake to the field checks.  The estimate
    ``max_export_chars`` adds up, over every rule and clause, the text of its
    prediction and of each condition it tests: what ``to_sql`` and
    ``to_python`` write once per use of a condition.  ``raw``: the file's
    bytes, when at hand (they spare the search for long texts in most files).
    """
    if not isinstance(d, dict):
        return
    text = limits["max_text"]
    # the file's bytes between two quotes bound every string's length (an escape is longer
    # than its character): when none is too long, the walk over every string is skipped
    if text is not None and (raw is None or max(map(len, raw.split(b'"'))) > text):
        _long_texts(d, text, limits)
    binarizer = d.get("binarizer")
    if isinstance(binarizer, dict):
        _cap(binarizer.get("feature_names_in"), "binarizer.feature_names_in", "columns",
             "max_columns", limits)
        columns = binarizer.get("columns")
        _cap(columns, "binarizer.columns", "columns", "max_columns", limits)
        _cap(binarizer.get("conditions"), "binarizer.conditions", "conditions",
             "max_conditions", limits)
        for k, spec in enumerate(columns if isinstance(columns, list) else []):
            if isinstance(spec, dict):
                for key in ("values", "infrequent"):
                    _cap(spec.get(key), f"binarizer.columns[{k}].{key}", "values",
                         "max_values", limits)
    model = d.get("model")
    if not isinstance(model, dict):
        return
    _cap(model.get("classes"), "model.classes", "classes", "max_classes", limits)
    conditions = model.get("conditions")
    _cap(conditions, "model.conditions", "conditions", "max_conditions", limits)
    conditions = conditions if isinstance(conditions, list) else []
    # a test of the infrequent group ("in", "not in") may be written as "not one of the
    # frequent categories" (unseen ones count as infrequent): its column's whole list
    groups_of = {}
    if isinstance(binarizer, dict) and isinstance(binarizer.get("columns"), list):
        for spec in binarizer["columns"]:
            if isinstance(spec, dict) and isinstance(spec.get("name"), str):
                groups_of[spec["name"]] = spec
    weights = {}  # condition index -> its written size, for the conditions rules use

    def weight(j) -> int:
        if j not in weights:
            c = conditions[j]
            size = 0
            if isinstance(c, dict):
                size = _weight(c.get("value")) + _weight(c.get("feature")) + 8
                spec = groups_of.get(c.get("feature")) if c.get("op") in ("in", "not in") else None
                if isinstance(spec, dict):
                    size += _weight(spec.get("values")) + _weight(spec.get("infrequent"))
            weights[j] = size
        return weights[j]

    # (where, conditions, prediction) of every rule and clause
    groups = []
    rules = model.get("rules")
    _cap(rules, "model.rules", "rules", "max_rules", limits)
    if isinstance(rules, list):
        groups += [(f"model.rules[{k}].conditions", r.get("conditions"), r.get("prediction"))
                   for k, r in enumerate(rules) if isinstance(r, dict)]
    sets = [("model", model)]
    members = model.get("members")
    if isinstance(members, list):
        sets += [(f"model.members[{k}]", m) for k, m in enumerate(members) if isinstance(m, dict)]
    n_clauses = 0
    for at, rule_set in sets:
        clauses = rule_set.get("clauses")
        if isinstance(clauses, list):
            n_clauses += len(clauses)
            if limits["max_rules"] is not None and n_clauses > limits["max_rules"]:
                _over(f"{at}.clauses", "clauses (all rule sets)", n_clauses, "max_rules", limits)
            groups += [(f"{at}.clauses[{k}]", c, None) for k, c in enumerate(clauses)]
    budget, total = limits["max_export_chars"], 0
    for at, items, prediction in groups:
        if not isinstance(items, list):
            continue
        _cap(items, at, "conditions in one rule", "max_rule_conditions", limits)
        total += _weight(prediction) if prediction is not None else 0
        total += sum(weight(j) for j in items
                     if isinstance(j, int) and not isinstance(j, bool) and 0 <= j < len(conditions))
        if budget is not None and total > budget:
            _over(at, "the exported code would repeat about this many characters:", total,
                  "max_export_chars", limits)
