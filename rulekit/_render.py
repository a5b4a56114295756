"""How conditions and models are written for people: plain text, Markdown, LaTeX, HTML.

One place decides how a value is shown (numbers to six significant digits,
text categories quoted when they could be misread), how a condition reads
in each format, and how a table of rows becomes Markdown, LaTeX or HTML, so
every model renders the same information in every format.

Categories that are themselves the names of intervals, as in data sets that
were discretized before they reached us (``"60<=age<100"``, ``">=2"``), are
written as intervals (``age in [60, 100)``, ``previous in [2, inf)``): they
are still category tests, and the interval notation says so without
suggesting a second comparison.
"""

from __future__ import annotations

import html
import json
import numbers
import re
from typing import Any, Sequence

import numpy as np

__all__ = ["format_value", "feature_name", "condition_text", "escape", "table", "heading", "Raw", "STYLES"]

STYLES = ("text", "markdown", "latex", "html")

#: how many members of an ``in`` set are spelled out before "..."
SHOWN_MEMBERS = 4

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_TWO_SIDED = re.compile(rf"^\s*({_NUM})\s*(<=|<)\s*(?:(\S+?)\s*)?(<=|<)\s*({_NUM})\s*$")
_ONE_SIDED = re.compile(rf"^\s*(?:(\S+?)\s*)?(>=|>|<=|<)\s*({_NUM})\s*$")
# characters a category may hold and still be written bare (letters, digits, _ . - + / & ? :)
_BARE = re.compile(r"[\w.\-+/&?:]+")
# what in a column name would read as part of a rule: a comparison, a quote, a set's
# braces, the words that join or end conditions ("age and income > 3" reads as two tests)
_RULE_SYNTAX = re.compile(r'[<>=!"{}]|\b(?:and|or)\b|\bis missing\b', re.IGNORECASE)

_TEXT_OPS = {"<=": "<=", ">": ">", "==": "==", "!=": "!=", "in": "in", "not in": "not in"}
_LATEX_OPS = {"<=": r"$\le$", ">": "$>$", "==": "$=$", "!=": r"$\ne$", "in": r"$\in$",
              "not in": r"$\notin$"}


def format_value(value: Any) -> str:
    """A threshold, category or label as a short string (``0.123457``, ``True``, ``Male``)."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return f"{float(value):.6g}"
    return str(value)


def feature_name(feature: Any) -> str:
    """A column name as written in a rule: bare when a reader can see where it ends.

    Ordinary names (``age``, ``capital gain``, ``year(signup)``) stay as they
    are.  A name a reader could misread is quoted, with its invisible or
    special characters escaped: leading or trailing spaces (``"Age "``
    would print as ``Age  > 54``, its space unseen), an empty or blank
    name, characters that do not print, and the rules' own syntax
    (comparisons, quotes, braces, ``and`` / ``or``, ``is missing``).
    """
    name = str(feature)
    if (not name or name != name.strip() or not name.isprintable()
            or _RULE_SYNTAX.search(name)):
        return json.dumps(name, ensure_ascii=False)
    return name


def _interval(feature: str, text: str) -> str | None:
    """``"[60, 100)"`` when a category names an interval of ``feature``, else None."""
    m = _TWO_SIDED.match(text)
    if m and m.group(3) in (None, feature):
        left = "[" if m.group(2) == "<=" else "("
        right = "]" if m.group(4) == "<=" else ")"
        return f"{left}{m.group(1)}, {m.group(5)}{right}"
    m = _ONE_SIDED.match(text)
    if m and m.group(1) in (None, feature):
        op, v = m.group(2), m.group(3)
        return {">=": f"[{v}, inf)", ">": f"({v}, inf)", "<=": f"(-inf, {v}]",
                "<": f"(-inf, {v})"}[op]
    return None


def _category(value: Any) -> str:
    """A category as written in a condition: bare when unambiguous, else quoted."""
    if isinstance(value, str) and not _BARE.fullmatch(value):
        return json.dumps(value, ensure_ascii=False)
    return format_value(value)


def _members(values: Sequence) -> str:
    shown = [_category(v) for v in list(values)[:SHOWN_MEMBERS]]
    if len(values) > SHOWN_MEMBERS:
        shown.append(f"... {len(values)} values")
    return "{" + ", ".join(shown) + "}"


def _parts(feature: str, op: str, value: Any) -> tuple[str, str]:
    """(operator, value text) of a condition, before styling."""
    if op in ("in", "not in"):
        return op, _members(value)
    if op in ("==", "!=") and isinstance(value, str):
        span = _interval(feature, value)
        if span is not None:
            return ("in" if op == "==" else "not in"), span
        return op, _category(value)
    return op, format_value(value)


def condition_text(feature: str, op: str, value: Any, style: str = "text") -> str:
    """One condition in a format: ``age <= 25``, ``age $\\le$ 25``...

    ``style`` is one of :data:`STYLES`.  In the latex style the result is
    :class:`Raw` (already escaped); in the others it is plain text, which
    :func:`table` escapes for Markdown and HTML.
    """
    name = feature_name(feature)
    if op == "is missing":
        text = f"{escape(name, style)} is missing" if style == "latex" else f"{name} is missing"
    else:
        shown_op, shown = _parts(feature, op, value)
        if style == "latex":
            text = f"{escape(name, style)} {_LATEX_OPS[shown_op]} {escape(shown, style)}"
        else:
            text = f"{name} {_TEXT_OPS[shown_op]} {shown}"
    return Raw(text) if style == "latex" else text


_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\^{}", "<": r"\textless{}", ">": r"\textgreater{}"}


class Raw(str):
    """Text already written in the target format: :func:`escape` leaves it alone."""


def escape(text: str, style: str) -> str:
    """Make plain text safe inside a format (table cells, headings)."""
    if isinstance(text, Raw):
        return text
    if style == "latex":
        return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)
    if style == "html":
        return html.escape(text)
    if style == "markdown":
        return text.replace("|", "\\|")
    return text


def table(header: Sequence[str], rows: Sequence[Sequence[str]], style: str) -> str:
    """Rows of cells as a Markdown, LaTeX or HTML table.

    Cells are plain text, escaped here, or :class:`Raw` text already in the
    format (a LaTeX condition with ``$\\le$``), kept as it is.
    """
    if style == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(escape(c, style) for c in row) + " |" for row in rows]
        return "\n".join(lines)
    if style == "latex":
        lines = [r"\begin{tabular}{" + "l" * len(header) + "}", r"\hline",
                 " & ".join(escape(h, style) for h in header) + r" \\", r"\hline"]
        lines += [" & ".join(escape(c, style) for c in row) + r" \\" for row in rows]
        lines += [r"\hline", r"\end{tabular}"]
        return "\n".join(lines)
    if style == "html":
        head = "".join(f"<th>{escape(h, style)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{escape(c, style)}</td>" for c in row) + "</tr>"
                       for row in rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    raise ValueError(f"style must be one of {STYLES[1:]}, got {style!r}")


def heading(text: str, style: str) -> str:
    """A short heading line (a class name, a sentence above a table)."""
    if style == "markdown":
        return f"**{escape(text, style)}**"
    if style == "latex":
        return r"\textbf{" + escape(text, style) + "}"
    if style == "html":
        return f"<p><b>{escape(text, style)}</b></p>"
    return text
