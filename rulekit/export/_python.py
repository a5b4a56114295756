"""A rule model as the source of a standalone Python module.

The module needs only the standard library (``math``, ``numbers``,
``datetime``) and defines ``CLASSES``, ``predict(row)`` and
``predict_proba(row)``; ``row`` is any mapping from column name to value.
The helpers it carries follow the binarizer exactly
(``docs/binarization.md``):

* missing: ``None``, ``NaN``, ``NaT`` and ``pandas.NA`` (anything not equal
  to itself); numbers are read as floats, ``NaN`` when missing, so a
  threshold test on a missing value is false as Python compares ``NaN``;
* categories compare as the binarizer's keys: text as text, numbers as
  floats (``1`` and ``1.0`` are one category), booleans apart from numbers;
* dates: ``datetime``/``date`` objects (pandas ``Timestamp`` is one),
  ``numpy.datetime64`` and ISO-8601 text.

No text from the data or from a model file reaches the source except as an
escaped literal (``repr``) or inside the docstring with every backslash,
quote and unprintable character escaped; local variable names are made
from column names but reduced to ASCII letters, digits and ``_`` and kept
apart from keywords, builtins and each other (``docs/security.md``).
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
import unicodedata

from .._columns import BOOLEAN_TEXT, category_key
from ._plan import Plan, Test, is_integral

__all__ = ["python_source"]

_HELPERS = {
    "missing": '''
def _missing(value):
    """None, NaN, NaT and pandas.NA are missing (each differs from itself)."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:  # pandas.NA has no truth value
        return True
''',
    "number": '''
def _number(value, column):
    """A numeric column's value as a float, NaN when missing."""
    if _missing(value):
        return math.nan
    if isinstance(value, (str, bytes, bytearray)):
        # rulekit refuses text here: "5" is text to a database, a number to float()
        raise ValueError(f"column {column!r} holds text where the model reads numbers: "
                         f"{value!r}; convert it to a number")
    number = float(value)
    if math.isinf(number):
        raise ValueError(f"column {column!r} holds an infinite value; replace it "
                         "(e.g. by None, read as missing)")
    return number
''',
    "category": '''
def _category(value):
    """A category as it is compared: text as str, numbers as floats (1 and 1.0
    are one category), booleans as ("bool", value) (True is not 1); None when
    missing."""
    if _missing(value):
        return None
    if type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, numbers.Real):
        return float(value)
    return str(value)
''',
    "field": '''
def _field(row, column):
    """row[column]; a column fitted under an integer name (a DataFrame's default
    labels 0, 1, ...) may also be given under that integer, as rulekit reads it."""
    try:
        return row[column]
    except KeyError:
        return row[int(column)]
''',
    "unseen": '''
def _unseen(column, value):
    """The error for a category not seen at fit time (handle_unknown="error")."""
    return ValueError(f"column {column!r} holds a category not seen at fit time: {value!r}")
''',
    "boolean": '''
def _boolean(value):
    """A value of a boolean column: booleans as ("bool", value), and so is any value
    whose text in lower case means one (1, 0.0, "True", "false"); None when missing."""
    if _missing(value):
        return None
    if type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(value, bool):
        return ("bool", value)
    text = str(value).lower()
    if text in _BOOLEAN_TEXT:
        return ("bool", _BOOLEAN_TEXT[text])
    return text  # an unseen category
''',
    "date": '''
def _date(value, column):
    """A date or time as a datetime.datetime (midnight for a date); None when missing.
    A date with a time zone is refused, as rulekit refuses it."""
    if _missing(value):
        return None
    if type(value).__module__ == "numpy":  # numpy.datetime64, nanoseconds cut to microseconds
        value = str(value)[:26]
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    if isinstance(value, datetime.datetime):
        if value.utcoffset() is not None:
            raise ValueError(f"column {column!r} holds a date with a time zone: {value!r}; "
                             "pass the wall-clock time without one")
        return value
    return datetime.datetime(value.year, value.month, value.day)
''',
}
_IMPORTS = {"number": {"math"}, "category": {"numbers"}, "date": {"datetime"}}
_RESERVED = {"row", "math", "numbers", "datetime", "predict", "predict_proba", "CLASSES",
             "scores", "total", "best", "holds", "k", "s", "text", "value"}
#: names a local variable must not shadow: a column called ``float`` must not
#: hide the builtin the helpers call
_BUILTINS = frozenset(dir(builtins))


def _float(value: float) -> str:
    """An exact float literal; infinities (a category may be one) as float('inf')."""
    value = float(value)
    return repr(value) if math.isfinite(value) else f"float({repr(value)!r})"


def _literal(value) -> str:
    """A Python literal for a label (exact: a float's repr round-trips)."""
    return _float(value) if isinstance(value, float) else repr(value)


def _doc_text(text: str) -> str:
    """``text`` as it may sit inside the module's (non-raw) triple-quoted docstring.

    Backslashes and double quotes are escaped, so nothing can close the
    docstring, and unprintable characters (newlines, NUL, line separators)
    are written as escapes; the docstring still reads back as ``text``.
    """
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1])  # \n, \x00, \u2028...
    return "".join(out)


def _is_integer_name(column: str) -> bool:
    return re.fullmatch(r"-?[0-9]+", column) is not None and str(int(column)) == column


def _compound(text: str) -> bool:
    return " and " in text or " or " in text


def _number(value) -> str:
    return str(int(value)) if is_integral(value) else _float(value)


def _key(value) -> str:
    """The literal of a category's comparison key (see ``_category``)."""
    kind, key = category_key(value)
    if kind == "bool":
        return f'("bool", {key!r})'
    if kind == "number":
        return _float(key)
    return repr(key)


class _Names:
    """Readable, distinct local variable names for the readings.

    A name is the column name folded to ASCII (NFKC first, so ``ｒow`` is read
    as ``row``), other characters as ``_``, in lower case.  Python folds
    identifiers by NFKC itself, so two non-ASCII names that look distinct
    (``h`` and ``ℎ``) would be one variable; keeping to ASCII makes the
    ``taken`` set the real test of distinctness.  Keywords, builtins and the
    module's own names get an ``x_`` prefix.
    """

    def __init__(self):
        self.taken = set(_RESERVED)
        self.names: dict = {}

    def __call__(self, key, hint: str) -> str:
        if key in self.names:
            return self.names[key]
        folded = unicodedata.normalize("NFKC", hint)
        base = re.sub(r"[^0-9A-Za-z]+", "_", folded).strip("_").lower() or "column"
        if (base[0].isdigit() or keyword.iskeyword(base) or keyword.issoftkeyword(base)
                or base in _BUILTINS):
            base = "x_" + base
        name, n = base, 2
        while name in self.taken:
            name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        self.names[key] = name
        return name


def _condition(test: Test, var: str) -> str:
    """One test on the reading's local variable."""
    r = test.reading
    if test.op == "missing":
        return f"math.isnan({var})" if r.numeric else f"{var} is None"
    if test.op in ("<=", ">"):
        return f"{var} {test.op} {_number(test.value)}"  # NaN compares false
    keys = [_key(v) for v in test.value]
    if test.op == "in":
        if not keys:
            return "False"
        return f"{var} == {keys[0]}" if len(keys) == 1 else f"{var} in ({', '.join(keys)})"
    if not keys:
        return f"{var} is not None"
    if len(keys) == 1:
        return f"{var} is not None and {var} != {keys[0]}"
    return f"{var} is not None and {var} not in ({', '.join(keys)})"


class _Writer:
    """Writes one plan: the column readings, the decision function, the public API."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.names = _Names()
        self.helpers: set = {"missing"}

    def var(self, reading) -> str:
        return self.names(reading, reading.name)

    def formula(self, form: str, clauses, indent: str = "") -> str:
        """The formula as an expression; several clauses go one per line, in parentheses."""
        inner, outer = (" and ", "or ") if form == "dnf" else (" or ", "and ")
        parts = []
        for clause in clauses:
            atoms = [_condition(self.plan.tests[j], self.var(self.plan.tests[j].reading))
                     for j in clause]
            if not atoms:
                parts.append("True" if form == "dnf" else "False")
                continue
            if len(atoms) > 1:
                atoms = [f"({a})" if _compound(a) else a for a in atoms]
            text = inner.join(atoms)
            parts.append(f"({text})" if len(clauses) > 1 and _compound(text) else text)
        if not parts:
            return "False" if form == "dnf" else "True"
        if len(parts) == 1:
            return parts[0]
        lines = [parts[0]] + [outer + p for p in parts[1:]]
        return "(\n" + "".join(f"{indent}    {line}\n" for line in lines) + f"{indent})"

    def field(self, column: str) -> str:
        """The expression reading ``column`` from ``row``."""
        if _is_integer_name(column):
            self.helpers.add("field")
            return f"_field(row, {column!r})"
        return f"row[{column!r}]"

    def read_columns(self) -> list:
        """Lines that read each column the model uses into a local variable."""
        lines, dates = [], {}
        for r in self.plan.readings:
            var = self.var(r)
            if r.part is not None:
                self.helpers.add("date")
                if r.column not in dates:
                    dates[r.column] = self.names(("date", r.column), r.column)
                    lines.append(f"{dates[r.column]} = _date({self.field(r.column)}, {r.column!r})")
                d = dates[r.column]
                if r.part == "weekday":
                    value = f'("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[{d}.weekday()]'
                    lines.append(f"{var} = None if {d} is None else {value}")
                else:
                    # a part with one value and missing ones is a category (year == 2022,
                    # year is missing): missing is then None, as for every category
                    missing = "math.nan" if r.numeric else "None"
                    lines.append(f"{var} = {missing} if {d} is None else float({d}.{r.part})")
            elif r.numeric:
                self.helpers.add("number")
                lines.append(f"{var} = _number({self.field(r.column)}, {r.column!r})")
            elif r.booleans:
                self.helpers.add("boolean")
                lines.append(f"{var} = _boolean({self.field(r.column)})")
            else:
                self.helpers.add("category")
                lines.append(f"{var} = _category({self.field(r.column)})")
        for r, known in self.plan.strict.items():
            var = self.var(r)
            keys = ", ".join(_key(v) for v in known)
            # the message is built at run time from literals: no f-string around a name
            self.helpers.add("unseen")
            lines += [f"if {var} is not None and {var} not in ({keys}{',' if len(known) == 1 else ''}):",
                      f"    raise _unseen({r.name!r}, {self.field(r.column)})"]
        return lines

    def decide(self) -> list:
        """``_outcome(row)`` for outcome plans, ``_holds(row)`` for score plans."""
        plan = self.plan
        body = self.read_columns()
        if plan.kind == "outcomes":
            for (form, clauses), k in plan.branches:
                body += [f"if {self.formula(form, clauses, '    ')}:", f"    return {k}"]
            body.append(f"return {len(plan.branches)}")
            head = ["def _outcome(row):",
                    f'    """Which outcome decides ``row`` (index into _LABELS)."""']
        else:
            members = [self.formula(form, clauses, "        ") for form, clauses in plan.members]
            body.append("return [")
            body += [f"    {m}," for m in members]
            body.append("]")
            head = ["def _holds(row):",
                    '    """Whether each class\'s rule set holds on ``row``."""']
        return head + [f"    {line}" for line in body]

    def api(self) -> list:
        plan = self.plan
        if plan.kind == "outcomes":
            return [
                f"_LABELS = [{', '.join(_literal(v) for v in plan.labels)}]",
                "_PROBABILITIES = [",
                *[f"    [{', '.join(repr(float(p)) for p in row)}]," for row in plan.probabilities],
                "]",
                "", "",
                "def predict(row):",
                '    """The predicted class of ``row``."""',
                "    return _LABELS[_outcome(row)]",
                "", "",
                "def predict_proba(row):",
                '    """The class probabilities of ``row``, in the order of CLASSES."""',
                "    return list(_PROBABILITIES[_outcome(row)])",
            ]
        return [
            "# the probability each class's rule set gives its class where it holds, where it does not",
            "_SCORES = [",
            *[f"    ({float(a)!r}, {float(b)!r})," for a, b in plan.scores],
            "]",
            "", "",
            "def _scores(row):",
            "    return [s[0] if h else s[1] for h, s in zip(_holds(row), _SCORES)]",
            "", "",
            "def predict(row):",
            '    """The decision list the model prints: the first test true of ``row`` gives its',
            '    class (the class whose rule set gives the highest score, the earlier on ties)."""',
            "    holds = _holds(row)",
            *[line for k, holds in plan.steps for line in (
                f"    if {'' if holds else 'not '}holds[{k}]:  # the rule set of CLASSES[{k}] "
                f"{'holds' if holds else 'does not hold'}",
                f"        return CLASSES[{k}]")],
            f"    return CLASSES[{plan.default}]",
            "", "",
            "def predict_proba(row):",
            '    """The scores divided by their sum, in the order of CLASSES (equal when all are 0)."""',
            "    scores = _scores(row)",
            "    total = scores[0]",
            "    for s in scores[1:]:",
            "        total += s",
            "    if total > 0:",
            "        return [s / total for s in scores]",
            "    return [1.0 / len(scores)] * len(scores)",
        ]


def python_source(plan: Plan) -> str:
    """The module source (see the module docstring of :mod:`rulekit.export._python`)."""
    w = _Writer(plan)
    decide = w.decide()
    api = w.api()
    imports = sorted(set().union(*(_IMPORTS.get(h, set()) for h in w.helpers)) | {"math"})
    columns = ", ".join(repr(c) for c in dict.fromkeys(r.column for r in plan.readings))
    doc = [
        (plan.title or "A rulekit model") + ", as standalone Python (standard library only).",
        "",
        "predict(row) returns the predicted class; predict_proba(row) the class",
        "probabilities in the order of CLASSES.  ``row`` maps column names to values",
        f"and must hold the columns {columns}." if columns else "and may be empty.",
        "None, NaN, NaT and pandas.NA are missing values.",
    ]
    # every line escaped (names and the title come from data or a file): the
    # docstring cannot be closed early, and reads back as the text above
    doc = ['"""' + _doc_text(doc[0])] + [_doc_text(line) for line in doc[1:]] + ['"""']
    out = doc + [""] + [f"import {m}" for m in imports] + ["", f"CLASSES = [{', '.join(_literal(c) for c in plan.classes)}]"]
    if "boolean" in w.helpers:
        out += ["", f"_BOOLEAN_TEXT = {BOOLEAN_TEXT!r}"]
    for name in ("missing", "field", "number", "category", "boolean", "date", "unseen"):
        if name in w.helpers:
            out += ["", _HELPERS[name].rstrip("\n")]
    out += ["", ""] + decide + ["", ""] + api
    return "\n".join(out) + "\n"
