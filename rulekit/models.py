"""Fitted rule models, independent of the search that found them.

* :class:`RuleList` — ``if A1 then c1 elif A2 then c2 ... else c0``; each rule
  keeps the training class counts of the samples it captured.
* :class:`RuleSet` — a Boolean formula over conditions: DNF (an OR of ANDs)
  or CNF (an AND of ORs) predicting the positive class when true.

Both evaluate on a boolean *condition matrix* (the output of
:meth:`rulekit.Binarizer.transform`), render as text, Markdown, LaTeX and
HTML, and round-trip through plain JSON dictionaries.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .binarize import Condition, _format_value, _plain
from .evaluate import cnf_holds, dnf_holds, first_match

__all__ = ["Rule", "RuleList", "RuleSet", "OneVsRestRuleSets", "model_from_dict"]


def _as_condition_matrix(B, n_conditions: int) -> np.ndarray:
    B = np.asarray(B)
    if B.ndim != 2:
        raise ValueError(f"condition matrix must be 2-D, got {B.ndim}-D")
    if B.shape[1] != n_conditions:
        raise ValueError(
            f"condition matrix has {B.shape[1]} columns, the model expects {n_conditions}"
        )
    return B.astype(bool, copy=False)


def _label(value: Any) -> str:
    return _format_value(value)


@dataclass(frozen=True)
class Rule:
    """One rule of a :class:`RuleList`.

    Parameters
    ----------
    conditions : tuple of int
        Indices of the conditions the rule ANDs (empty for the default rule).
    prediction : label
        The class the rule predicts.
    counts : tuple of int
        Training samples of each class (in ``classes`` order) the rule captured.
    probabilities : tuple of float, optional
        Stated class probabilities; when absent they are ``counts`` normalised.
    """

    conditions: tuple = ()
    prediction: Any = None
    counts: tuple = ()
    probabilities: tuple | None = None

    def to_dict(self) -> dict:
        d = {
            "conditions": [int(j) for j in self.conditions],
            "prediction": _plain(self.prediction),
            "counts": [int(c) for c in self.counts],
        }
        if self.probabilities is not None:
            d["probabilities"] = [float(p) for p in self.probabilities]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Rule":
        probs = d.get("probabilities")
        return cls(
            tuple(d["conditions"]), d["prediction"], tuple(d["counts"]),
            None if probs is None else tuple(probs),
        )


class _Model:
    """Shared plumbing: conditions, classes, JSON."""

    kind = "model"

    def __init__(self, conditions: Sequence[Condition], classes: Sequence):
        self.conditions = list(conditions)
        self.classes = [_plain(c) for c in classes]

    def condition_text(self, j: int) -> str:
        return str(self.conditions[j])

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(\n{self}\n)"

    def _class_index(self, label) -> int:
        return self.classes.index(_plain(label))


class RuleList(_Model):
    """An ordered list of rules with a default.

    Parameters
    ----------
    rules : list of Rule
        Tried in order; the first whose conditions all hold decides.
    default : Rule
        Applies when no rule fires (its ``conditions`` are empty).
    conditions : list of Condition
        What each column of the condition matrix tests.
    classes : list
        Class labels; ``counts`` and ``probabilities`` follow this order.
    """

    kind = "RuleList"

    def __init__(self, rules, default: Rule, conditions, classes):
        super().__init__(conditions, classes)
        self.rules = list(rules)
        self.default = default
        for r in [*self.rules, default]:
            if len(r.counts) != len(self.classes):
                raise ValueError("every rule needs one count per class")
            if any(not 0 <= j < len(self.conditions) for j in r.conditions):
                raise ValueError("a rule refers to a condition index out of range")

    def __len__(self) -> int:
        return len(self.rules)

    # -- prediction -----------------------------------------------------
    def apply(self, B) -> np.ndarray:
        """Index of the rule that fires on each row (``len(self)`` = default)."""
        B = _as_condition_matrix(B, len(self.conditions))
        return first_match(B, [r.conditions for r in self.rules])

    def rule_probabilities(self) -> np.ndarray:
        """(len+1, n_classes) class probabilities of each rule, default last."""
        rows = []
        for r in [*self.rules, self.default]:
            if r.probabilities is not None:
                rows.append(np.asarray(r.probabilities, dtype=float))
                continue
            counts = np.asarray(r.counts, dtype=float)
            if counts.sum() > 0:
                rows.append(counts / counts.sum())
            else:  # captured nothing in training: trust the stated prediction
                row = np.zeros(len(self.classes))
                row[self._class_index(r.prediction)] = 1.0
                rows.append(row)
        return np.vstack(rows)

    def predict(self, B) -> np.ndarray:
        """Predicted label of each row of the condition matrix."""
        labels = np.asarray([r.prediction for r in [*self.rules, self.default]], dtype=object)
        out = labels[self.apply(B)]
        return _typed(out, self.classes)

    def predict_proba(self, B) -> np.ndarray:
        """Class probabilities (columns in ``classes`` order) of each row."""
        return self.rule_probabilities()[self.apply(B)]

    # -- rendering ------------------------------------------------------
    def _antecedent(self, rule: Rule) -> str:
        return " and ".join(self.condition_text(j) for j in rule.conditions)

    def _annotation(self, rule: Rule) -> str:
        counts = ", ".join(
            f"{_label(c)}: {n}" for c, n in zip(self.classes, rule.counts)
        )
        if rule.probabilities is not None and len(self.classes) == 2:
            return f"p({_label(self.classes[1])}) = {rule.probabilities[1]:.3f}; {counts}"
        return counts

    def _rows(self):
        """(keyword, antecedent, prediction, annotation) per line."""
        rows = []
        for k, r in enumerate(self.rules):
            rows.append(("if" if k == 0 else "elif", self._antecedent(r), _label(r.prediction), self._annotation(r)))
        rows.append(("else", "", _label(self.default.prediction), self._annotation(self.default)))
        return rows

    def __str__(self) -> str:
        rows = self._rows()
        if len(rows) == 1:
            return f"predict {rows[0][2]}   [{rows[0][3]}]"
        body = [f"{kw} {ante} then {pred}" if kw != "else" else f"else {pred}" for kw, ante, pred, _ in rows]
        width = max(len(b) for b in body)
        return "\n".join(f"{b:<{width}}   [{note}]" for b, (*_, note) in zip(body, rows))

    def to_markdown(self) -> str:
        """A Markdown table: one row per rule, default last."""
        lines = ["| | condition | prediction | training counts |", "|---|---|---|---|"]
        for kw, ante, pred, note in self._rows():
            cell = ante.replace("|", "\\|") if ante else "(otherwise)"
            lines.append(f"| {kw} | {cell} | {pred} | {note} |")
        return "\n".join(lines)

    def to_latex(self) -> str:
        """A LaTeX ``tabular`` with one row per rule."""
        esc = _latex_escape
        lines = [r"\begin{tabular}{lll}", r"\hline", r" & condition & prediction \\", r"\hline"]
        for kw, ante, pred, _ in self._rows():
            lines.append(f"\\textbf{{{kw}}} & {esc(ante) if ante else '---'} & {esc(pred)} \\\\")
        lines += [r"\hline", r"\end{tabular}"]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td><b>{kw}</b></td><td>{html.escape(ante)}</td>"
            f"<td>{html.escape(pred)}</td><td>{html.escape(note)}</td></tr>"
            for kw, ante, pred, note in self._rows()
        )
        return (
            "<table><thead><tr><th></th><th>condition</th><th>prediction</th>"
            f"<th>training counts</th></tr></thead><tbody>{rows}</tbody></table>"
        )

    # -- serialisation --------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "type": self.kind,
            "classes": list(self.classes),
            "conditions": [c.to_dict() for c in self.conditions],
            "rules": [r.to_dict() for r in self.rules],
            "default": self.default.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "RuleList":
        return cls(
            [Rule.from_dict(r) for r in d["rules"]],
            Rule.from_dict(d["default"]),
            [Condition.from_dict(c) for c in d["conditions"]],
            d["classes"],
        )


class RuleSet(_Model):
    """A DNF or CNF over conditions that predicts the positive class when true.

    Parameters
    ----------
    clauses : list of tuple of int
        For ``form="dnf"`` each clause is an AND of conditions and the set
        is their OR; for ``form="cnf"`` each clause is an OR and the set is
        their AND.
    form : {"dnf", "cnf"}
    conditions : list of Condition
    classes : sequence of two labels
        ``classes[1]`` is predicted when the formula holds.
    proba_true, proba_false : float, optional
        Probability of ``classes[1]`` for rows where the formula holds /
        does not hold (the training positive rates).  Default 1 and 0.
    counts_true, counts_false : tuple of int, optional
        Training (negative, positive) counts on each side, for display.
    """

    kind = "RuleSet"

    def __init__(self, clauses, form, conditions, classes, proba_true=1.0, proba_false=0.0,
                 counts_true=None, counts_false=None):
        super().__init__(conditions, classes)
        if form not in ("dnf", "cnf"):
            raise ValueError(f"form must be 'dnf' or 'cnf', got {form!r}")
        if len(self.classes) != 2:
            raise ValueError("a RuleSet separates exactly two classes")
        self.clauses = [tuple(int(j) for j in c) for c in clauses]
        for c in self.clauses:
            if not c or any(not 0 <= j < len(self.conditions) for j in c):
                raise ValueError("each clause needs at least one valid condition index")
        self.form = form
        self.proba_true = float(proba_true)
        self.proba_false = float(proba_false)
        self.counts_true = None if counts_true is None else tuple(int(v) for v in counts_true)
        self.counts_false = None if counts_false is None else tuple(int(v) for v in counts_false)

    def __len__(self) -> int:
        return len(self.clauses)

    @property
    def complexity(self) -> int:
        """Number of clauses plus number of literals."""
        return len(self.clauses) + sum(len(c) for c in self.clauses)

    def holds(self, B) -> np.ndarray:
        """Whether the formula is true on each row."""
        B = _as_condition_matrix(B, len(self.conditions))
        return (dnf_holds if self.form == "dnf" else cnf_holds)(B, self.clauses)

    def predict(self, B) -> np.ndarray:
        labels = np.asarray(self.classes, dtype=object)
        return _typed(labels[self.holds(B).astype(int)], self.classes)

    def predict_proba(self, B) -> np.ndarray:
        p = np.where(self.holds(B), self.proba_true, self.proba_false)
        return np.column_stack([1.0 - p, p])

    def _clause_texts(self) -> list:
        joiner = " and " if self.form == "dnf" else " or "
        return [joiner.join(self.condition_text(j) for j in c) for c in self.clauses]

    def __str__(self) -> str:
        pos, neg = (_label(c) for c in self.classes[::-1])
        if not self.clauses:
            # empty DNF is false, empty CNF is true
            return f"predict {neg if self.form == 'dnf' else pos}"
        parts = [f"({t})" for t in self._clause_texts()]
        if self.form == "dnf":
            head = "IF " + "\n   OR ".join(parts)
        else:
            head = "IF " + "\n   AND ".join(parts)
        return f"{head}\nTHEN {pos}\nELSE {neg}"

    def to_markdown(self) -> str:
        op = "OR" if self.form == "dnf" else "AND"
        inner = "and" if self.form == "dnf" else "or"
        lines = [
            f"Predict **{_label(self.classes[1])}** when {'any' if self.form == 'dnf' else 'every'} "
            f"clause holds ({op} of {inner.upper()}s):",
            "",
            "| # | clause |",
            "|---|---|",
        ]
        lines += [f"| {k + 1} | {t.replace('|', chr(92) + '|')} |" for k, t in enumerate(self._clause_texts())]
        return "\n".join(lines)

    def to_latex(self) -> str:
        op = r" \lor " if self.form == "dnf" else r" \land "
        inner = r" \land " if self.form == "dnf" else r" \lor "
        clauses = [
            "(" + inner.join(r"\text{" + _latex_escape(self.condition_text(j)) + "}" for j in c) + ")"
            for c in self.clauses
        ]
        body = op.join(clauses) if clauses else (r"\bot" if self.form == "dnf" else r"\top")
        return f"$\\hat y = \\text{{{_latex_escape(_label(self.classes[1]))}}} \\iff {body}$"

    def _repr_html_(self) -> str:
        op = "OR" if self.form == "dnf" else "AND"
        items = "".join(f"<li>{html.escape(t)}</li>" for t in self._clause_texts())
        return (
            f"<p>Predict <b>{html.escape(_label(self.classes[1]))}</b> when "
            f"({op} of):</p><ol>{items}</ol>"
        )

    def to_dict(self) -> dict:
        return {
            "type": self.kind,
            "form": self.form,
            "classes": list(self.classes),
            "conditions": [c.to_dict() for c in self.conditions],
            "clauses": [list(c) for c in self.clauses],
            "proba_true": self.proba_true,
            "proba_false": self.proba_false,
            "counts_true": None if self.counts_true is None else list(self.counts_true),
            "counts_false": None if self.counts_false is None else list(self.counts_false),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "RuleSet":
        return cls(
            [tuple(c) for c in d["clauses"]], d["form"],
            [Condition.from_dict(c) for c in d["conditions"]], d["classes"],
            d.get("proba_true", 1.0), d.get("proba_false", 0.0),
            d.get("counts_true"), d.get("counts_false"),
        )


class OneVsRestRuleSets(_Model):
    """One :class:`RuleSet` per class for multi-class problems.

    Each member separates its class (as ``classes[1]`` of the member) from the
    rest.  A row gets the class whose member gives the highest probability;
    ties go to the earlier class.
    """

    kind = "OneVsRestRuleSets"

    def __init__(self, members, conditions, classes):
        super().__init__(conditions, classes)
        self.members = list(members)
        if len(self.members) != len(self.classes):
            raise ValueError("one rule set per class is required")

    def __len__(self) -> int:
        return sum(len(m) for m in self.members)

    @property
    def complexity(self) -> int:
        return sum(m.complexity for m in self.members)

    def predict_proba(self, B) -> np.ndarray:
        scores = np.column_stack([m.predict_proba(B)[:, 1] for m in self.members])
        total = scores.sum(axis=1, keepdims=True)
        even = np.full_like(scores, 1.0 / scores.shape[1])
        return np.divide(scores, total, out=even, where=total > 0)

    def predict(self, B) -> np.ndarray:
        labels = np.asarray(self.classes, dtype=object)
        return _typed(labels[np.argmax(self.predict_proba(B), axis=1)], self.classes)

    def __str__(self) -> str:
        return "\n\n".join(f"class {_label(c)}:\n{m}" for c, m in zip(self.classes, self.members))

    def to_markdown(self) -> str:
        return "\n\n".join(f"**class {_label(c)}**\n\n{m.to_markdown()}" for c, m in zip(self.classes, self.members))

    def to_latex(self) -> str:
        return "\n\n".join(m.to_latex() for m in self.members)

    def _repr_html_(self) -> str:
        return "".join(f"<h4>class {html.escape(_label(c))}</h4>{m._repr_html_()}" for c, m in zip(self.classes, self.members))

    def to_dict(self) -> dict:
        return {
            "type": self.kind,
            "classes": list(self.classes),
            "conditions": [c.to_dict() for c in self.conditions],
            "members": [m.to_dict() for m in self.members],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "OneVsRestRuleSets":
        return cls(
            [RuleSet.from_dict(m) for m in d["members"]],
            [Condition.from_dict(c) for c in d["conditions"]],
            d["classes"],
        )


_KINDS = {cls.kind: cls for cls in (RuleList, RuleSet, OneVsRestRuleSets)}


def model_from_dict(d: dict):
    """Rebuild any rulekit model from :meth:`to_dict` output."""
    try:
        cls = _KINDS[d["type"]]
    except KeyError:
        raise ValueError(f"unknown model type {d.get('type')!r}; expected one of {sorted(_KINDS)}") from None
    return cls.from_dict(d)


def _typed(values: np.ndarray, classes: list) -> np.ndarray:
    """Give predictions the dtype numpy would pick for the class labels."""
    return np.asarray(values.tolist(), dtype=np.asarray(classes).dtype)


def _latex_escape(text: str) -> str:
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}",
            "<": r"$<$", ">": r"$>$"}
    return "".join(repl.get(ch, ch) for ch in text)
