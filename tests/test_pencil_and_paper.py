"""Issue 37, item 1: a printed rule set can be applied by hand and gives ``predict``'s answer.

The tests here read ``str(model)`` as a person would: they parse the printed
decision list (its IF / ELSE IF / NOT / OR / AND / THEN / ELSE lines), look
each printed condition up by its text among the binarizer's conditions, and
apply the list to every row.  Nothing here calls the model's own ``holds``,
``steps`` or ``predict`` to get the answer it checks; the result must equal
``predict`` on every row, for binary and multi-class data, DNF, CNF and the
``"auto"`` form.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from rulekit import BooleanRuleCGClassifier, Condition, OneVsRestRuleSets, RuleSet, datasets

_END = re.compile(r"^(THEN|ELSE|always|predict) (.+?)(?:\s+\[.*\])?$")
_START = re.compile(r"^(IF|ELSE IF)( NOT)? (.*)$")
_MORE = re.compile(r"^\s+(OR|AND) (.*)$")


def parse(text: str) -> tuple[list, str]:
    """(steps, default) of a printed RuleSet or OneVsRestRuleSets.

    Each step is ``(negated, outer, clauses, label)``: the clauses' texts, how
    they join (``"OR"``, ``"AND"`` or None for one clause), whether NOT covers
    them, and the class printed after THEN.  ``default`` is the class after
    ELSE (or the one class of a constant model).
    """
    steps, current = [], None
    for line in text.splitlines():
        if not line.strip():
            break                      # the list ends at the first blank line
        if (m := _START.match(line)) is not None:
            current = {"negated": bool(m.group(2)), "outer": None, "clauses": [m.group(3)]}
            continue
        if (m := _MORE.match(line)) is not None:
            assert current is not None and current["outer"] in (None, m.group(1)), line
            current["outer"] = m.group(1)
            current["clauses"].append(m.group(2))
            continue
        if (m := _END.match(line)) is not None:
            if m.group(1) == "THEN":
                steps.append((current["negated"], current["outer"], current["clauses"],
                              m.group(2)))
                current = None
                continue
            return steps, m.group(2)
        # any other line is the multi-class heading above the list
        assert not steps and current is None, f"unexpected line {line!r}"
    raise AssertionError("the printout has no ELSE line")


def by_hand(text: str, conditions, B: np.ndarray) -> list:
    """Apply the printed list to every row of the condition matrix ``B``."""
    column = {}
    for j, c in enumerate(conditions):
        column.setdefault(str(c), []).append(j)
    steps, default = parse(text)

    def literal(t):
        assert t in column, f"the printout shows {t!r}, which is no condition"
        assert len(column[t]) == 1, f"two conditions print as {t!r}"
        return B[:, column[t][0]]

    def clause(t):
        t = t.strip()
        if t.startswith("["):
            t = t[1:]
        if t.endswith("]"):
            t = t[:-1]
        assert t.startswith("(") and t.endswith(")"), t
        t = t[1:-1]
        if " and " in t:
            return np.all([literal(p) for p in t.split(" and ")], axis=0)
        if " or " in t:
            return np.any([literal(p) for p in t.split(" or ")], axis=0)
        return literal(t)

    out = np.full(B.shape[0], default, dtype=object)
    open_ = np.ones(B.shape[0], dtype=bool)
    for negated, outer, clauses, label in steps:
        values = [clause(c) for c in clauses]
        holds = np.all(values, axis=0) if outer == "AND" else np.any(values, axis=0)
        if negated:
            holds = ~holds
        hit = open_ & holds
        out[hit] = label
        open_ &= ~hit
    return out.tolist()


def agrees(model, B):
    predicted = [str(v) for v in model.predict(B)]
    assert by_hand(str(model), model.conditions, B) == predicted


def _named(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame.columns = [re.sub(r"\W+", "_", c.replace(" (cm)", "")).strip("_") for c in frame.columns]
    return frame


def _iris():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True, as_frame=True)
    return _named(X), np.array(["setosa", "versicolor", "virginica"])[y]


def _wine():
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True, as_frame=True)
    return _named(X), np.array(["barolo", "grignolino", "barbera"])[y]


def _survey(n=600, seed=0):
    """Four classes, one of them (U) scattered at random: its rule set is empty or weak,
    yet it is predicted often, the case of issue 37."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.integers(18, 80, n), "income": rng.normal(50, 15, n).round(1),
                      "region": rng.choice(["north", "south", "east"], n)})
    y = np.where(X["age"] < 30, "A", np.where(X["income"] > 65, "B", "C"))
    y[rng.random(n) < 0.35] = "U"  # whatever the features say
    return X, y


def _check_estimator(clf, X, y):
    clf.fit(X, y)
    B = clf.binarizer_.transform(X)
    agrees(clf.model_, B)
    # the estimator prints the same model it predicts with
    assert str(clf.model_) in str(clf)
    assert [str(v) for v in clf.predict(X)] == by_hand(str(clf.model_), clf.model_.conditions, B)
    return clf


@pytest.mark.parametrize("form", ["dnf", "cnf", pytest.param("auto", marks=pytest.mark.slow)])
def test_iris_by_hand(form):
    X, y = _iris()
    clf = _check_estimator(BooleanRuleCGClassifier(form=form), X, y)
    assert isinstance(clf.model_, OneVsRestRuleSets)
    assert clf.score(X, y) > 0.9


@pytest.mark.slow
@pytest.mark.parametrize("form", ["auto", "dnf", "cnf"])
def test_wine_by_hand(form):
    X, y = _wine()
    _check_estimator(BooleanRuleCGClassifier(form=form), X, y)


@pytest.mark.slow
@pytest.mark.parametrize("form", ["auto", "dnf", "cnf"])
def test_a_class_without_its_own_rules_is_printed_as_the_default(form):
    X, y = _survey()
    clf = _check_estimator(BooleanRuleCGClassifier(form=form), X, y)
    U = clf.classes_.tolist().index("U")
    predicted_u = int((clf.predict(X) == "U").sum())
    assert predicted_u > 50
    steps, default = clf.model_.steps()
    if not clf.model_.members[U].clauses:
        # no "predict not U" anywhere: U is the list's ELSE
        assert clf.classes_[default] == "U"
        assert str(clf.model_).split("\n\n")[0].splitlines()[-1] == "ELSE U"
    assert "predict not U" not in str(clf.model_)


@pytest.mark.parametrize("form", ["auto", "dnf", "cnf"])
def test_binary_by_hand(form):
    X, y = datasets.load_monks(1, return_X_y=True)
    clf = BooleanRuleCGClassifier(form=form).fit(X, y)
    B = clf.binarizer_.transform(X)
    agrees(clf.model_, B)
    assert isinstance(clf.model_, RuleSet)


# -- hand-made models: every shape the list can take --------------------------------------------

CONDS = [Condition("a", "<=", 1), Condition("b", ">", 2), Condition("c", "==", "x"),
         Condition("d", "!=", "y"), Condition("e", "<=", 0.5)]


@st.composite
def one_vs_rest(draw):
    n_classes = draw(st.integers(2, 5))
    index = st.integers(0, len(CONDS) - 1)
    # few distinct scores, so ties are common; a rule set's class may be rarer where it
    # holds than where it does not (the list then says NOT)
    score = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])
    members = [RuleSet(draw(st.lists(st.lists(index, min_size=1, max_size=3).map(tuple),
                                     max_size=3)),
                       draw(st.sampled_from(["dnf", "cnf"])), CONDS, [f"not c{k}", f"c{k}"],
                       draw(score), draw(score)) for k in range(n_classes)]
    return OneVsRestRuleSets(members, CONDS, [f"c{k}" for k in range(n_classes)])


@settings(max_examples=100, deadline=None)
@given(model=one_vs_rest(), seed=st.integers(0, 2 ** 32 - 1))
def test_any_one_vs_rest_model_by_hand(model, seed):
    B = np.random.default_rng(seed).random((64, len(CONDS))) < 0.5
    agrees(model, B)
    # and the list is the highest score, the earlier class on ties (written out here)
    scores = np.column_stack([np.where(m.predict(B) == m.classes[1], m.proba_true, m.proba_false)
                              for m in model.members])
    best = [max(range(scores.shape[1]), key=lambda k: (scores[i, k], -k))
            for i in range(B.shape[0])]
    assert model.predict(B).tolist() == [model.classes[k] for k in best]


@settings(max_examples=40, deadline=None)
@given(clauses=st.lists(st.lists(st.integers(0, len(CONDS) - 1), min_size=1, max_size=3)
                        .map(tuple), max_size=3),
       form=st.sampled_from(["dnf", "cnf"]), seed=st.integers(0, 2 ** 32 - 1))
def test_any_binary_rule_set_by_hand(clauses, form, seed):
    B = np.random.default_rng(seed).random((64, len(CONDS))) < 0.5
    agrees(RuleSet(clauses, form, CONDS, ["no", "yes"], 0.8, 0.2), B)


def test_exports_spell_the_printed_list():
    """SQL and Python walk the same steps, in the same order, as the printout (issue 37)."""
    members = [RuleSet([(0,), (1, 2)], "dnf", CONDS, ["not a", "a"], 0.2, 0.6),
               RuleSet([(1,)], "dnf", CONDS, ["not b", "b"], 0.9, 0.1),
               RuleSet([], "dnf", CONDS, ["not c", "c"], 0.95, 0.4)]
    model = OneVsRestRuleSets(members, CONDS, ["a", "b", "c"])
    steps, default = parse(str(model))
    assert [(negated, label) for negated, _, _, label in steps] == [(False, "b"), (True, "a")]
    assert default == "c"
    python = model.to_python()
    body = python[python.index("def predict(row):"):python.index("def predict_proba(row):")]
    assert re.findall(r"^\s+(if (?:not )?holds\[\d\]|return CLASSES\[\d\])", body, re.M) == [
        "if holds[1]", "return CLASSES[1]", "if not holds[0]", "return CLASSES[0]",
        "return CLASSES[2]"]
    sql = model.to_sql()
    whens = re.findall(r"THEN '(\w)'|ELSE '(\w)'", sql)
    assert whens == [("b", ""), ("a", ""), ("", "c")]
    assert ") IS NOT TRUE THEN 'a'" in sql
