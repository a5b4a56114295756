"""A rule model as SQL: one ``CASE`` expression per output, or a ``SELECT``.

The SQL reproduces the model's ``predict`` and ``predict_proba`` on the raw
columns of a table, as :mod:`rulekit.export._plan` resolved them.  What
each dialect needs spelled differently:

* **Identifiers and text** are quoted as the SQL standard says: identifiers
  in double quotes, text in single quotes, a quote inside doubled; SQLite,
  DuckDB and PostgreSQL all follow it.  One exception: SQLite reads a
  double-quoted name that is not a column of the table as *text* (``"age"``
  becomes ``'age'`` when the table has no ``age``), so there column names are
  quoted in backquotes, which SQLite only ever reads as names: a missing
  column is an error in every dialect.
* **Real numbers** must reach the database as the exact double the model
  holds.  DuckDB and PostgreSQL read ``CAST('0.1' AS DOUBLE)`` exactly (a bare
  ``0.1`` is a DECIMAL there, which changes arithmetic).  SQLite's parser
  can miss the nearest double by one unit in the last place, so a number
  whose shortest decimal is not exactly the double is written as a
  quotient of two integers that IEEE division rounds to it (a share of
  counts such as ``1131.0 / 3547``, else an integer over a power of two),
  with the decimal in a comment.
* **Missing values** are ``NULL``.  DuckDB and PostgreSQL can also store
  ``NaN`` in a double column, which rulekit reads as missing; there every
  test on a column of numbers that ``NaN`` would pass (``>``, ``<>``,
  ``NOT IN``) also requires the value not to be ``NaN``.
* **Datetime parts**: ``EXTRACT`` in DuckDB and PostgreSQL, ``strftime`` on
  ISO-8601 text in SQLite; weekdays are compared as day numbers (0 = Sunday).
* **Refusals.**  Where rulekit refuses a value, a row holding it gets ``NULL``
  in every output (SQL cannot raise per row): an unseen category under
  ``handle_unknown="error"``, a time-zone-aware date (rulekit takes naive
  dates only), text in a column the model reads as numbers (``'5'`` is text
  to a database, and SQLite orders text after every number), an infinite
  number in a thresholded column.  PostgreSQL
  refuses the last with an error of its own.

Every condition is false on ``NULL`` or gives ``NULL``, and rule models
combine conditions with ``AND`` / ``OR`` only (never ``NOT``), so a ``NULL``
inside a ``WHEN`` acts as false, as the binarizer's false does.  The one
place a formula is negated (the one-vs-rest prediction) uses ``IS NOT TRUE``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from .._columns import BOOLEAN_TEXT, category_key
from ._plan import Plan, Test, is_integral
from .._tolerances import INT64_MAX_EXCLUSIVE, INT64_MIN

__all__ = ["DIALECTS", "sql_outputs", "sql_select"]

_WEEKDAY_NUMBER = {"Sun": 0, "Mon": 1, "Tue": 2, "Wed": 3, "Thu": 4, "Fri": 5, "Sat": 6}


class Dialect:
    """How one database spells literals and datetime parts."""

    name = "sql"
    double = "DOUBLE"
    stores_nan = True

    def identifier(self, name: str) -> str:
        if "\x00" in name:
            raise ValueError(f"column or table name {name!r} holds a NUL character, "
                             "which SQL identifiers cannot")
        return '"' + name.replace('"', '""') + '"'

    def column(self, name: str) -> str:
        """A column name (a name the table must have)."""
        return self.identifier(name)

    def holds_text(self, ref: str) -> str | None:
        """True where the column's value is text (None: the database refuses it itself)."""
        return f"typeof({ref}) = 'VARCHAR'"

    def zoned(self, ref: str) -> str | None:
        """True where a date column's value carries a time zone."""
        return f"typeof({ref}) = 'TIMESTAMP WITH TIME ZONE'"

    def text(self, value: str) -> str:
        if "\x00" in value:
            raise ValueError(f"category {value!r} holds a NUL character, which SQL text "
                             "literals cannot")
        return "'" + value.replace("'", "''") + "'"

    def real(self, value: float) -> str:
        """A double literal that evaluates to exactly ``value``."""
        return f"CAST('{float(value)!r}' AS {self.double})"

    def number(self, value) -> str:
        """A threshold or numeric category (integers bare, other numbers as doubles)."""
        return str(int(value)) if is_integral(value) else self.real(value)

    def boolean(self, value: bool) -> str:
        return "TRUE" if value else "FALSE"

    def nan(self) -> str:
        return f"CAST('NaN' AS {self.double})"

    def infinity(self) -> str:
        return f"CAST('Infinity' AS {self.double})"

    def as_text(self, ref: str) -> str:
        """A value as lower-case text, whatever its type (booleans give true/false)."""
        return f"lower(CAST({ref} AS VARCHAR))"

    #: a numeric datetime part of a column ``{}``; the weekday as 0 (Sunday) ... 6
    parts = {"year": "EXTRACT(YEAR FROM {})", "month": "EXTRACT(MONTH FROM {})",
             "hour": "EXTRACT(HOUR FROM {})", "weekday": "EXTRACT(DOW FROM {})"}


class SQLite(Dialect):
    name = "sqlite"
    double = "REAL"
    stores_nan = False  # SQLite stores NaN as NULL

    def real(self, value: float) -> str:
        value = float(value)
        shortest = repr(value)
        decimal = Decimal(shortest)
        if (decimal == Decimal(value) and len(decimal.as_tuple().digits) <= 15
                and abs(decimal.adjusted()) <= 22):
            # the decimal is the double: digits / 10^k, both exact in a double, one rounding
            return shortest
        ratio = Fraction(value).limit_denominator(10 ** 7)
        if ratio.numerator / ratio.denominator == value and abs(ratio.numerator) < 2 ** 49:
            # a share of counts (1131 of 3547): two exact integers, one rounding
            return f"({ratio.numerator}.0 / {ratio.denominator} /* {shortest} */)"
        # an odd integer times a power of two: exact at every step of IEEE arithmetic
        mantissa, exponent = math.frexp(value)
        num, power = int(mantissa * 2 ** 53), exponent - 53
        while num and num % 2 == 0:
            num, power = num // 2, power + 1
        expr = f"CAST({num} AS REAL)"
        while power:
            step = max(-62, min(62, power))
            expr += f" * {2 ** step}" if step > 0 else f" / {2 ** -step}"
            power -= step
        return f"({expr} /* {shortest} */)"

    def as_text(self, ref: str) -> str:
        return f"lower({ref})"  # SQLite's lower() takes any value and gives its text

    def column(self, name: str) -> str:
        # a double-quoted name SQLite cannot resolve is read as a string literal (its
        # legacy rule); a backquoted one is always a name, so a missing column fails
        self.identifier(name)  # the same refusals
        return "`" + name.replace("`", "``") + "`"

    def holds_text(self, ref: str) -> str | None:
        return f"typeof({ref}) = 'text'"

    def infinity(self) -> str:
        return "9e999"  # SQLite reads a literal beyond the doubles as infinity

    def zoned(self, ref: str) -> str | None:
        # ISO-8601 text with an offset or Z after the time of day (strftime would
        # convert it to UTC); a date's own hyphens come before the time
        return (f"(typeof({ref}) = 'text' AND ({ref} GLOB '*[0-9][T ][0-9][0-9]:*[+Zz]*' "
                f"OR {ref} GLOB '*[0-9][T ][0-9][0-9]:*-*'))")

    # ISO-8601 text, as pandas' to_sql writes dates
    parts = {part: f"CAST(strftime('{code}', {{}}) AS INTEGER)"
             for part, code in (("year", "%Y"), ("month", "%m"), ("hour", "%H"), ("weekday", "%w"))}


class DuckDB(Dialect):
    name = "duckdb"


class PostgreSQL(Dialect):
    name = "postgresql"
    double = "DOUBLE PRECISION"

    def holds_text(self, ref: str) -> str | None:
        return None  # comparing text with a number is an error in PostgreSQL

    def zoned(self, ref: str) -> str | None:
        return f"pg_typeof({ref}) = 'timestamp with time zone'::regtype"


#: the dialects ``to_sql`` writes, by name
DIALECTS = {d.name: d for d in (SQLite(), DuckDB(), PostgreSQL())}


def dialect_named(name) -> Dialect:
    if not isinstance(name, str):
        raise TypeError(f"dialect must be a string, one of {sorted(DIALECTS)}; "
                        f"got {type(name).__name__}")
    try:
        return DIALECTS[name.lower()]
    except KeyError:
        raise ValueError(f"unknown SQL dialect {name!r}; choose one of {sorted(DIALECTS)}") from None


# -- conditions --------------------------------------------------------------------------

def _category(d: Dialect, value) -> str:
    kind, _ = category_key(value)
    if kind == "bool":
        return d.boolean(bool(value))
    if kind == "number":
        return d.number(value)
    return d.text(str(value))


#: integers from here on are not all doubles: rulekit compares such a value rounded to
#: a double, a database compares the exact integer
EXACT_LIMIT = 2 ** 53


def _beyond_doubles(test: Test) -> bool:
    """The test compares with a number that doubles cannot tell apart from its neighbours."""
    values = test.value if isinstance(test.value, tuple) else (test.value,)
    return any(category_key(v)[0] == "number" and abs(category_key(v)[1]) >= EXACT_LIMIT
               for v in values if v is not None)


def _column(d: Dialect, test: Test) -> str:
    r = test.reading
    ref = d.column(r.column)
    if r.part is not None:
        return d.parts[r.part].format(ref)
    if r.booleans and test.op != "missing":
        return d.as_text(ref)
    if r.numbers and _beyond_doubles(test):
        # rulekit reads numbers as doubles: 2**60 + 1 is 2**60 to it.  Near a threshold
        # or category that large, compare the double too (elsewhere rounding cannot
        # change a comparison, and the bare column keeps the SQL readable)
        return f"CAST({ref} AS {d.double})"
    return ref


def _values(d: Dialect, test: Test, value) -> list:
    """The literals a category test compares with: a boolean column is read through
    its text (``rulekit._columns.as_boolean``), so True is every text meaning it."""
    if test.reading.booleans and isinstance(value, bool):
        return [d.text(t) for t, b in BOOLEAN_TEXT.items() if b is value]
    return [_value(d, test, value)]


def _value(d: Dialect, test: Test, value) -> str:
    if test.reading.part == "weekday":
        return str(_WEEKDAY_NUMBER[value]) if value in _WEEKDAY_NUMBER else d.text(str(value))
    return _category(d, value)


def _not_nan(d: Dialect, test: Test, col: str) -> str | None:
    """The extra ``col <> NaN`` a test needs where NaN would pass it, else None."""
    r = test.reading
    if d.stores_nan and r.numbers and r.part is None:
        return f"{col} <> {d.nan()}"
    return None


def condition(d: Dialect, test: Test) -> str:
    """One test as a SQL boolean (true exactly where the binarizer's condition is)."""
    col = _column(d, test)
    guard = _not_nan(d, test, col)
    if test.op == "missing":
        return f"({col} IS NULL OR {col} = {d.nan()})" if guard else f"{col} IS NULL"
    if test.op in ("<=", ">"):
        text = f"{col} {test.op} {d.number(test.value)}"
        return f"({text} AND {guard})" if guard and test.op == ">" else text
    values = [literal for v in test.value for literal in _values(d, test, v)]
    if test.op == "in":
        if not values:
            return "FALSE"
        return f"{col} = {values[0]}" if len(values) == 1 else f"{col} IN ({', '.join(values)})"
    if not values:
        text = f"{col} IS NOT NULL"
    elif len(values) == 1:
        text = f"{col} <> {values[0]}"
    else:
        text = f"{col} NOT IN ({', '.join(values)})"
    return f"({text} AND {guard})" if guard else text


def formula(d: Dialect, plan: Plan, form: str, clauses, indent: str) -> str:
    """A DNF / CNF of the plan's tests, one clause per line after the first."""
    inner, outer = (" AND ", "OR") if form == "dnf" else (" OR ", "AND")
    parts = []
    for clause in clauses:
        atoms = [condition(d, plan.tests[j]) for j in clause]
        if not atoms:
            parts.append("TRUE" if form == "dnf" else "FALSE")
        elif len(atoms) == 1 or len(clauses) == 1:
            parts.append(inner.join(atoms))
        else:
            parts.append("(" + inner.join(atoms) + ")")
    if not parts:
        return "FALSE" if form == "dnf" else "TRUE"
    return f"\n{indent}  {outer} ".join(parts)


def _unknown(d: Dialect, plan: Plan) -> str | None:
    """True where a row holds a value rulekit refuses: a category the binarizer
    would refuse (``handle_unknown="error"``), a date with a time zone, text in
    a column of numbers, infinity in a thresholded column."""
    checks = []
    for column in dict.fromkeys(r.column for r in plan.readings if r.part is not None):
        checks.append(d.zoned(d.column(column)))
    for column in dict.fromkeys(r.column for r in plan.readings
                                if r.part is None and r.numbers):
        checks.append(d.holds_text(d.column(column)))
    for column in dict.fromkeys(r.column for r in plan.readings if r.part is None and r.numeric):
        # rulekit refuses infinity in a thresholded column (it is not a measurement)
        checks.append(f"{d.column(column)} IN ({d.infinity()}, -{d.infinity()})")
    checks = [c for c in checks if c is not None]
    for reading, known in plan.strict.items():
        test = Test(reading, "not in", tuple(known), "")
        checks.append(condition(d, test))
    return " OR ".join(checks) if checks else None


# -- outputs ---------------------------------------------------------------------------------

def _case(lines: list, otherwise: str, d: Dialect, plan: Plan) -> str:
    unknown = _unknown(d, plan)
    head = [f"  WHEN {unknown} THEN NULL"] if unknown else []
    if not head and not lines:  # a rule list with the default rule alone
        return otherwise
    return "\n".join(["CASE", *head, *lines, f"  ELSE {otherwise}", "END"])


def _outcome_case(d: Dialect, plan: Plan, values: list) -> str:
    """CASE choosing ``values[k]`` for the plan's outcome ``k``."""
    lines = []
    for (form, clauses), k in plan.branches:
        text = formula(d, plan, form, clauses, "  ")
        lines.append(f"  WHEN {text}\n  THEN {values[k]}" if "\n" in text
                     else f"  WHEN {text} THEN {values[k]}")
    return _case(lines, values[len(plan.branches)], d, plan)


def _label(d: Dialect, label) -> str:
    if isinstance(label, float):
        return d.real(label)
    if isinstance(label, int) and not isinstance(label, bool) and INT64_MIN <= label < INT64_MAX_EXCLUSIVE:
        return str(label)  # a label is given back, not compared: every digit of it
    return _category(d, label)


def _steps_case(d: Dialect, plan: Plan) -> str:
    """The model's decision list (``plan.steps``) as a ``CASE``: the first step true
    of a row gives its class (the class with the highest score, earlier class on ties)."""
    lines = []
    for k, holds in plan.steps:
        form, clauses = plan.members[k]
        text = formula(d, plan, form, clauses, "    ")
        test = text if holds else f"({text}) IS NOT TRUE"
        lines.append(f"  WHEN {test} THEN {_label(d, plan.classes[k])}")
    return _case(lines, _label(d, plan.classes[plan.default]), d, plan)


def _score(d: Dialect, plan: Plan, k: int) -> str:
    form, clauses = plan.members[k]
    high, low = plan.scores[k]
    return (f"CASE WHEN {formula(d, plan, form, clauses, '  ')} THEN {d.real(high)} "
            f"ELSE {d.real(low)} END")


def _probability_cases(d: Dialect, plan: Plan) -> list:
    if plan.kind == "outcomes":
        return [_outcome_case(d, plan, [d.real(row[c]) for row in plan.probabilities])
                for c in range(len(plan.classes))]
    scores = [_score(d, plan, k) for k in range(len(plan.members))]
    total = " + ".join(f"({s})" for s in scores)  # SQL adds left to right, as rulekit does
    even = d.real(1.0 / len(scores))
    return [_case([f"  WHEN {total} > 0 THEN ({s}) / ({total})"], even, d, plan) for s in scores]


def sql_outputs(plan: Plan, dialect: str) -> dict:
    """Output name -> SQL expression: ``prediction`` and ``p(<class>)`` per class."""
    d = dialect_named(dialect)
    if plan.kind == "outcomes":
        prediction = _outcome_case(d, plan, [_label(d, v) for v in plan.labels])
    else:
        prediction = _steps_case(d, plan)
    out = {"prediction": prediction}
    for label, case in zip(plan.classes, _probability_cases(d, plan)):
        out[f"p({label})"] = case
    return out


def _indent(text: str, pad: str) -> str:
    """Indent the line breaks of ``text`` that are SQL layout.

    A break inside a quoted literal or identifier (a category ``'a<newline>b'``,
    a column ``"x<newline>y"`` or SQLite's ```x<newline>y```) is part of the
    value and stays as it is.  The
    writers emit no comments holding quotes, so quotes alone tell where
    literals are; a doubled quote closes and reopens, which leaves the state
    right.
    """
    out, quote = [], None
    for ch in text:
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch == "\n":
            out.append("\n" + pad)
            continue
        out.append(ch)
    return "".join(out)


def comment_text(text: str) -> str:
    """``text`` safe in a ``--`` comment: unprintable characters (line breaks
    among them, which would end the comment) written as escapes."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def sql_select(plan: Plan, table, dialect: str, *, proba: bool, keep) -> str:
    """``SELECT [keep,] prediction [, p(...)...] FROM table``."""
    d = dialect_named(dialect)
    outputs = sql_outputs(plan, dialect)
    if not proba:
        outputs = {"prediction": outputs["prediction"]}
    items = []
    if keep == "*":
        items.append("*")
    elif keep:
        items += [d.column(str(c)) for c in keep]
    items += [f"{_indent(expr, '  ')} AS {d.identifier(name)}" for name, expr in outputs.items()]
    parts = [table] if isinstance(table, str) else list(table)
    source = ".".join(d.identifier(str(p)) for p in parts)
    head = f"-- {comment_text(plan.title)}\n" if plan.title else ""
    return head + "SELECT\n  " + ",\n  ".join(items) + f"\nFROM {source}"


def check_finite(plan: Plan) -> None:
    """Refuse numbers SQL cannot write (a model never holds them)."""
    numbers = [t.value for t in plan.tests if t is not None and t.op in ("<=", ">")]
    numbers += [p for row in plan.probabilities for p in row]
    numbers += [s for pair in plan.scores for s in pair]
    if any(isinstance(v, float) and not math.isfinite(v) for v in numbers):
        raise ValueError("the model holds an infinite or NaN threshold or probability; "
                         "SQL cannot write it")
