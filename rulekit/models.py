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

import json
import textwrap
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

import numpy as np

from ._checks import check_boolean_matrix
from ._render import Raw, format_value, heading, table
from .binarize import Condition, _plain
from .evaluate import cnf_holds, dnf_holds, first_match
from .export import to_python, to_sql

__all__ = ["Rule", "RuleList", "RuleSet", "OneVsRestRuleSets", "Step", "model_from_dict"]


def _as_condition_matrix(B, n_conditions: int) -> np.ndarray:
    B = check_boolean_matrix(B, "condition matrix")
    if B.shape[1] != n_conditions:
        raise ValueError(
            f"condition matrix has {B.shape[1]} columns, the model expects {n_conditions}"
        )
    return B


def _label(value: Any) -> str:
    return format_value(value)


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
    """Shared plumbing: conditions, classes, JSON, and the renderers.

    Each model lists its rows once (:meth:`_rows`: keyword, condition,
    prediction, note) and every format is written from them, so text,
    Markdown, LaTeX and HTML carry the same information.
    """

    kind = "model"
    _header = ("", "condition", "prediction", "training counts")

    def __init__(self, conditions: Sequence[Condition], classes: Sequence):
        self.conditions = list(conditions)
        self.classes = [_plain(c) for c in classes]

    def condition_text(self, j: int, style: str = "text") -> str:
        return self.conditions[j].render("latex" if style == "latex" else "text")

    def _conjunction(self, items, joiner: str, style: str) -> str:
        text = f" {joiner} ".join(self.condition_text(j, style) for j in items)
        return Raw(text) if style == "latex" else text

    def _rows(self, style: str) -> list:  # pragma: no cover - interface
        raise NotImplementedError

    def _render(self, style: str) -> str:
        return table(self._header, self._rows(style), style)

    def to_markdown(self) -> str:
        """A Markdown table (the same rows as ``str()``)."""
        return self._render("markdown")

    def to_latex(self) -> str:
        """A LaTeX ``tabular`` (the same rows as ``str()``; conditions use ``\\le``...)."""
        return self._render("latex")

    def _repr_html_(self) -> str:
        return self._render("html")

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(\n{self}\n)"

    def _class_index(self, label) -> int:
        return self.classes.index(_plain(label))

    # -- export -----------------------------------------------------------
    def to_sql(self, table=None, *, dialect: str = "sqlite", proba: bool = False,
               keep=None) -> str:
        """SQL computing this model's prediction from raw columns (:func:`rulekit.export.to_sql`).

        A bare model only knows its conditions, so each is read literally:
        ``x in {...}`` tests the listed categories, an unseen category matches
        no ``==`` and no ``in`` (``handle_unknown="ignore"``), and a feature
        named ``year(signup)`` is a column of that name.  To reproduce an
        estimator with its binarizer's settings, export the estimator or the
        loaded :class:`rulekit.Predictor` instead.
        """
        return to_sql(self, table, dialect=dialect, proba=proba, keep=keep)

    def to_python(self) -> str:
        """Source of a standalone Python module predicting like this model
        (:func:`rulekit.export.to_python`); conditions are read literally, as
        in :meth:`to_sql`."""
        return to_python(self)

    def _export_parts(self):
        """What :mod:`rulekit.export` writes: this model, no binarizer, no estimator name."""
        return self, None, None


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
    positive : label, optional
        The class whose probability the list states (a falling rule list's
        positive class); every rendering and the JSON name it.  None for
        lists that state no such class.
    """

    kind = "RuleList"

    def __init__(self, rules, default: Rule, conditions, classes, positive=None):
        super().__init__(conditions, classes)
        self.rules = list(rules)
        self.default = default
        self.positive = None if positive is None else _plain(positive)
        if self.positive is not None and self.positive not in self.classes:
            raise ValueError(f"positive={positive!r} is not one of the classes {self.classes}")
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
    def _annotation(self, rule: Rule) -> str:
        counts = ", ".join(
            f"{_label(c)}: {n}" for c, n in zip(self.classes, rule.counts)
        )
        if rule.probabilities is not None and len(self.classes) == 2:
            shown = self.classes[1] if self.positive is None else self.positive
            p = rule.probabilities[self._class_index(shown)]
            return f"p({_label(shown)}) = {p:.3f}; {counts}"
        return counts

    def _render(self, style: str) -> str:
        body = super()._render(style)
        if self.positive is None:
            return body
        return heading(f"positive class: {_label(self.positive)}", style) + "\n\n" + body

    def _rows(self, style: str = "text") -> list:
        """(keyword, antecedent, prediction, annotation) per rule, default last."""
        rows = [("if" if k == 0 else "elif", self._conjunction(r.conditions, "and", style),
                 _label(r.prediction), self._annotation(r)) for k, r in enumerate(self.rules)]
        rows.append(("else", "(otherwise)", _label(self.default.prediction),
                     self._annotation(self.default)))
        return rows

    @property
    def _header(self):
        stated = any(r.probabilities is not None for r in [*self.rules, self.default])
        note = ("stated probability; training counts" if stated and len(self.classes) == 2
                else "training counts")
        return ("", "condition", "prediction", note)

    def __str__(self) -> str:
        rows = self._rows()
        head = "" if self.positive is None else f"positive class: {_label(self.positive)}\n"
        if len(rows) == 1:
            return f"{head}predict {rows[0][2]}   [{rows[0][3]}]"
        body = [f"{kw} {ante} then {pred}" if kw != "else" else f"else {pred}" for kw, ante, pred, _ in rows]
        width = max(len(b) for b in body)
        return head + "\n".join(f"{b:<{width}}   [{note}]" for b, (*_, note) in zip(body, rows))

    # -- serialisation --------------------------------------------------
    def to_dict(self) -> dict:
        d = {
            "type": self.kind,
            "classes": list(self.classes),
            "conditions": [c.to_dict() for c in self.conditions],
            "rules": [r.to_dict() for r in self.rules],
            "default": self.default.to_dict(),
        }
        if self.positive is not None:
            d["positive"] = self.positive
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RuleList":
        return cls(
            [Rule.from_dict(r) for r in d["rules"]],
            Rule.from_dict(d["default"]),
            [Condition.from_dict(c) for c in d["conditions"]],
            d["classes"],
            d.get("positive"),
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

    def _side(self, holds: bool) -> str:
        """Probability of the positive class (and training counts) on one side."""
        p = self.proba_true if holds else self.proba_false
        counts = self.counts_true if holds else self.counts_false
        note = f"p({_label(self.classes[1])}) = {p:.3f}"
        if counts is not None:
            note += "; " + ", ".join(f"{_label(c)}: {n}" for c, n in zip(self.classes, counts))
        return note

    def _rows(self, style: str = "text") -> list:
        """(keyword, clause, prediction, annotation): the clauses, then THEN and ELSE."""
        pos, neg = _label(self.classes[1]), _label(self.classes[0])
        if not self.clauses:
            # empty DNF is false, empty CNF is true
            holds = self.form == "cnf"
            return [("always", "", pos if holds else neg, self._side(holds))]
        inner, outer = ("and", "OR") if self.form == "dnf" else ("or", "AND")
        rows = [("IF" if k == 0 else outer, self._conjunction(c, inner, style), "", "")
                for k, c in enumerate(self.clauses)]
        return rows + [("THEN", "", pos, self._side(True)), ("ELSE", "", neg, self._side(False))]

    _header = ("", "clause", "prediction", "probability; training counts")

    def __str__(self) -> str:
        rows = self._rows()
        if len(rows) == 1:
            return f"predict {rows[0][2]}   [{rows[0][3]}]"
        lines = [f"{kw} ({clause})" if kw == "IF" else f"   {kw} ({clause})"
                 for kw, clause, _, _ in rows[:-2]]
        ends = [f"{kw} {pred}" for kw, _, pred, _ in rows[-2:]]
        width = max(len(e) for e in ends)
        lines += [f"{e:<{width}}   [{note}]" for e, (*_, note) in zip(ends, rows[-2:])]
        return "\n".join(lines)

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


class Step(NamedTuple):
    """One step of a multi-class model's decision list (:meth:`OneVsRestRuleSets.steps`).

    Attributes
    ----------
    cls : int
        Index (into ``classes``) of the class whose rule set the step tests,
        and the class it predicts.
    holds : bool
        The step applies where that rule set holds (True) or where it does
        not hold (False).
    score : float
        The class's score on the rows the step tests: its rule set's
        ``proba_true`` (holds) or ``proba_false`` (does not hold).
    """

    cls: int
    holds: bool
    score: float


class OneVsRestRuleSets(_Model):
    """One :class:`RuleSet` per class for multi-class problems, read as a decision list.

    Member ``k`` separates class ``k`` (its ``classes[1]``) from the rest and
    gives class ``k`` a *score*: its ``proba_true`` on rows where its formula
    holds, its ``proba_false`` elsewhere.  A row gets the class with the
    highest score, the earlier class on ties; ``predict_proba`` divides the
    scores by their sum.

    That choice is a decision list, which is how the model prints and how
    the exports spell it (:meth:`steps`): "if class a's rule set holds,
    predict a; else if class b's rule set holds, predict b; ... else c".
    Each class's two scores, listed from highest to lowest, are tried in
    turn, and the first one that applies to a row is that row's highest.
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

    def _scores(self, B) -> np.ndarray:
        """(n_samples, n_classes): the probability each member gives its class."""
        return np.column_stack([m.predict_proba(B)[:, 1] for m in self.members])

    def steps(self) -> tuple[list, int]:
        """The decision list ``predict`` follows: ``(steps, default)``.

        ``steps`` is a list of :class:`Step`; the first whose test is true of a
        row (class ``cls``'s rule set holds, or does not, as ``holds`` says)
        gives the row class ``cls``; rows no step applies to get class
        ``default`` (an index into ``classes``).

        Every class offers two (score, test) entries, one per side of its
        formula.  Sorted by decreasing score (then by class, so ties go to the
        earlier class), the first entry true of a row carries the row's
        highest score.  Once both entries of a class have been listed every
        row has met one of them, so the list ends there with that class as
        the default.  Entries that can never apply (an empty formula's
        impossible side) are left out, an entry that always applies is the
        default, and steps just before the default that predict the default
        class are dropped: none of this changes any prediction.
        """
        entries = sorted(((s, k, side) for k, m in enumerate(self.members)
                          for s, side in ((m.proba_true, True), (m.proba_false, False))),
                         key=lambda e: (-e[0], e[1]))
        steps, seen = [], set()
        default = None
        for score, k, side in entries:
            member = self.members[k]
            # an empty DNF is false and an empty CNF true on every row
            constant = None if member.clauses else member.form == "cnf"
            if k in seen or constant == side:
                default = k
                break
            seen.add(k)
            if constant is None:
                steps.append(Step(k, side, float(score)))
        while steps and steps[-1].cls == default:
            steps.pop()
        return steps, default

    def predict_proba(self, B) -> np.ndarray:
        """The members' scores divided by their sum (equal shares where all are 0)."""
        scores = self._scores(B)
        # added left to right, so SQL and the exported Python get the same doubles
        total = scores[:, 0].copy()
        for k in range(1, scores.shape[1]):
            total += scores[:, k]
        total = total[:, None]
        even = np.full_like(scores, 1.0 / scores.shape[1])
        return np.divide(scores, total, out=even, where=total > 0)

    def predict(self, B) -> np.ndarray:
        """The class of the first step (:meth:`steps`) that applies to each row.

        That is the class whose rule set gives the highest score, the earlier
        class on ties.
        """
        B = _as_condition_matrix(B, len(self.conditions))
        steps, default = self.steps()
        out = np.full(B.shape[0], default)
        open_ = np.ones(B.shape[0], dtype=bool)
        for step in steps:
            hit = open_ & (self.members[step.cls].holds(B) == step.holds)
            out[hit] = step.cls
            open_ &= ~hit
        labels = np.asarray(self.classes, dtype=object)
        return _typed(labels[out], self.classes)

    # -- rendering --------------------------------------------------------
    _header = ("", "clause", "prediction", "score")
    _intro = ("one rule set per class, read as a decision list: the first test that is "
              "true of a row gives its class")
    _scores_intro = ("scores: a class's score is its rule set's training rate of the class "
                     "where the set holds, or where it does not (training counts in "
                     "brackets); the list above tries them from highest to lowest, the "
                     "earlier class on ties, so a row gets the class with the highest score; "
                     "predict_proba divides each class's score by the sum of the scores")
    _scores_header = ("class", "where its rule set holds", "where it does not")

    def _formula_rows(self, k: int, style: str, first: str, negate: bool = False) -> list:
        """(keyword, clause) rows of member ``k``'s formula, ``first`` before clause one."""
        member = self.members[k]
        inner, outer = ("and", "OR") if member.form == "dnf" else ("or", "AND")
        texts = [self._conjunction(c, inner, style) for c in member.clauses]
        texts = [Raw(f"({t})") if style == "latex" else f"({t})" for t in texts]
        if negate:  # brackets say NOT covers the whole formula, every clause of it
            texts[0] = _joined("[", texts[0], style)
            texts[-1] = _joined(texts[-1], "]", style)
        return [(f"{first} NOT" if negate and i == 0 else first if i == 0 else outer, t)
                for i, t in enumerate(texts)]

    def _counts(self, k: int, holds: bool) -> str:
        member = self.members[k]
        counts = member.counts_true if holds else member.counts_false
        score = member.proba_true if holds else member.proba_false
        text = f"{score:.3f}"
        if counts is not None:
            text += " (" + ", ".join(f"{_label(c)}: {n}"
                                     for c, n in zip(member.classes, counts)) + ")"
        return text

    def _rows(self, style: str = "text") -> list:
        """(keyword, clause, prediction, score) rows of the decision list, default last."""
        steps, default = self.steps()
        rows = []
        for i, step in enumerate(steps):
            rows += [(kw, text, "", "") for kw, text in
                     self._formula_rows(step.cls, style, "IF" if i == 0 else "ELSE IF",
                                        negate=not step.holds)]
            rows.append(("THEN", "", _label(self.classes[step.cls]), f"score {step.score:.3f}"))
        rows.append(("ELSE" if steps else "always", "", _label(self.classes[default]), ""))
        return rows

    def _score_rows(self) -> list:
        return [(_label(c), self._counts(k, True), self._counts(k, False))
                for k, c in enumerate(self.classes)]

    def _unlisted(self) -> list:
        """Classes whose formula no step shows (predict_proba still reads it)."""
        shown = {s.cls for s in self.steps()[0]}
        return [k for k in range(len(self.classes)) if k not in shown]

    def _member_text(self, k: int, style: str) -> list:
        member = self.members[k]
        if not member.clauses:
            return [("", "no clause: false on every row" if member.form == "dnf"
                     else "no clause: true on every row")]
        return self._formula_rows(k, style, "IF")

    _unlisted_note = "(used by predict_proba only: no step above tests it)"

    def __str__(self) -> str:
        # the list: clause lines as they are, THEN / ELSE lines with the score aligned
        lines, ends = [self._intro], []
        for kw, clause, label, note in self._rows():
            if kw in ("THEN", "ELSE", "always"):
                ends.append((len(lines), note))
                lines.append(f"{kw} {label}")
            else:
                lines.append(f"     {kw} {clause}" if kw in ("OR", "AND") else f"{kw} {clause}")
        width = max(len(lines[i]) for i, _ in ends)
        for i, note in ends:
            if note:
                lines[i] = f"{lines[i]:<{width}}   [{note}]"
        # the scores, as a table with aligned columns
        rows = [self._scores_header, *self._score_rows()]
        widths = [max(len(r[c]) for r in rows) for c in range(len(self._scores_header))]
        lines += ["", textwrap.fill(self._scores_intro + ":", 90)]
        lines += ["   ".join(f"{cell:<{w}}" for cell, w in zip(r, widths)).rstrip() for r in rows]
        for k in self._unlisted():
            head = f"class {_label(self.classes[k])}'s rule set {self._unlisted_note}:"
            body = self._member_text(k, "text")
            if body[0][0] == "":     # an empty formula: one sentence
                lines.append(f"{head} {body[0][1]}")
            else:
                lines += [head, *(f"{kw} {t}" if kw == "IF" else f"   {kw} {t}" for kw, t in body)]
        return "\n".join(lines)

    def _render(self, style: str) -> str:
        parts = [heading(self._intro, style), table(self._header, self._rows(style), style),
                 heading(self._scores_intro, style),
                 table(self._scores_header, self._score_rows(), style)]
        for k in self._unlisted():
            parts.append(heading(f"class {_label(self.classes[k])}'s rule set "
                                 f"{self._unlisted_note}", style))
            parts.append(table(("", "clause"), self._member_text(k, style), style))
        return "\n\n".join(parts)

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


def _joined(a, b, style: str):
    """Two pieces of a cell as one (kept :class:`Raw` in LaTeX, where the pieces are)."""
    return Raw(f"{a}{b}") if style == "latex" else f"{a}{b}"


def label_array(labels) -> np.ndarray:
    """Labels as the array numpy would pick (``<U5``, ``int64``...), or as objects
    when that array would change one: a fixed-width string drops a trailing NUL
    (``'a\\x00'`` reads back as ``'a'``), ``[True, 1]`` would become ``[1, 1]``,
    ``[1, "1"]`` ``["1", "1"]``."""
    labels = list(labels)
    typed = np.asarray(labels)
    back = typed.tolist() if typed.ndim == 1 else None
    if back is not None and all(type(a) is type(b) and a == b for a, b in zip(back, labels)):
        return typed
    out = np.empty(len(labels), dtype=object)
    out[:] = labels
    return out


def _typed(values: np.ndarray, classes: list) -> np.ndarray:
    """Give predictions the dtype of the class labels' array (:func:`label_array`)."""
    dtype = label_array(classes).dtype
    if dtype == object:
        return np.asarray(values, dtype=object)
    return np.asarray(values.tolist(), dtype=dtype)
