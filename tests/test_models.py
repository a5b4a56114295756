import json

import numpy as np
import pytest

from rulekit import Condition, OneVsRestRuleSets, Rule, RuleList, RuleSet, model_from_dict

CONDS = [Condition("age", "<=", 25), Condition("priors", ">", 3), Condition("sex", "==", "Male")]


def rule_list():
    return RuleList(
        [Rule((0, 2), "yes", (10, 30)), Rule((1,), "yes", (20, 25))],
        Rule((), "no", (300, 100)),
        CONDS, ["no", "yes"],
    )


B = np.array([
    [1, 0, 1],  # rule 0
    [1, 1, 0],  # rule 1
    [0, 1, 1],  # rule 1
    [0, 0, 1],  # default
], dtype=bool)


def test_rule_list_predict_and_proba():
    m = rule_list()
    assert m.apply(B).tolist() == [0, 1, 1, 2]
    assert m.predict(B).tolist() == ["yes", "yes", "yes", "no"]
    proba = m.predict_proba(B)
    assert proba[0] == pytest.approx([0.25, 0.75])
    assert proba[3] == pytest.approx([0.75, 0.25])


def test_stated_probabilities_override_counts():
    m = RuleList([Rule((0,), 1, (3, 1), (0.2, 0.8))], Rule((), 0, (5, 5), (0.6, 0.4)), CONDS, [0, 1])
    assert m.predict_proba(B)[:, 1].tolist() == [0.8, 0.8, 0.4, 0.4]


def test_rule_list_text_snapshot():
    assert str(rule_list()) == (
        "if age <= 25 and sex == Male then yes   [no: 10, yes: 30]\n"
        "elif priors > 3 then yes                [no: 20, yes: 25]\n"
        "else no                                 [no: 300, yes: 100]"
    )


def test_rule_list_markdown_latex_html_snapshot():
    assert rule_list().to_markdown().splitlines() == [
        "|  | condition | prediction | training counts |",
        "|---|---|---|---|",
        "| if | age <= 25 and sex == Male | yes | no: 10, yes: 30 |",
        "| elif | priors > 3 | yes | no: 20, yes: 25 |",
        "| else | (otherwise) | no | no: 300, yes: 100 |",
    ]
    latex = rule_list().to_latex()
    assert latex.startswith(r"\begin{tabular}") and latex.endswith(r"\end{tabular}")
    assert r"if & age $\le$ 25 and sex $=$ Male & yes & no: 10, yes: 30 \\" in latex
    assert r"elif & priors $>$ 3 & yes & no: 20, yes: 25 \\" in latex
    assert "$<$" not in latex
    assert "<td>age &lt;= 25 and sex == Male</td>" in rule_list()._repr_html_()


def test_probability_shown_for_binary_stated_probabilities():
    m = RuleList([Rule((0,), 1, (3, 1), (0.25, 0.75))], Rule((), 0, (5, 5), (0.5, 0.5)), CONDS, [0, 1])
    assert str(m).splitlines()[0] == "if age <= 25 then 1   [p(1) = 0.750; 0: 3, 1: 1]"


def test_empty_rule_list_prints_one_line():
    m = RuleList([], Rule((), 0, (7, 3)), CONDS, [0, 1])
    assert str(m) == "predict 0   [0: 7, 1: 3]"
    assert m.predict(B).tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("classes", [["no", "yes"], [0, 1], [False, True], [-1, 2, 7]])
def test_rule_list_json_round_trip_reproduces_predictions(classes):
    k = len(classes)
    m = RuleList(
        [Rule((0,), classes[-1], tuple(range(k))), Rule((1, 2), classes[0], (1,) * k)],
        Rule((), classes[0], (2,) * k), CONDS, classes,
    )
    again = model_from_dict(json.loads(m.to_json()))
    assert again == m
    assert np.array_equal(again.predict(B), m.predict(B))
    assert again.predict(B).dtype == m.predict(B).dtype
    assert np.array_equal(again.predict_proba(B), m.predict_proba(B))


def test_dnf_and_cnf_semantics_and_text():
    dnf = RuleSet([(0, 2), (1,)], "dnf", CONDS, [0, 1], proba_true=0.8, proba_false=0.1)
    assert dnf.holds(B).tolist() == [True, True, True, False]
    assert dnf.predict_proba(B)[:, 1].tolist() == [0.8, 0.8, 0.8, 0.1]
    assert dnf.complexity == 5
    assert str(dnf) == ("IF (age <= 25 and sex == Male)\n   OR (priors > 3)\n"
                        "THEN 1   [p(1) = 0.800]\nELSE 0   [p(1) = 0.100]")
    cnf = RuleSet([(0, 1), (2,)], "cnf", CONDS, ["bad", "good"])
    assert cnf.holds(B).tolist() == [True, False, True, False]
    assert cnf.predict(B).tolist() == ["good", "bad", "good", "bad"]
    assert str(cnf) == ("IF (age <= 25 or priors > 3)\n   AND (sex == Male)\n"
                        "THEN good   [p(good) = 1.000]\nELSE bad    [p(good) = 0.000]")
    assert r"IF & age $\le$ 25 or priors $>$ 3 &  &  \\" in cnf.to_latex()
    assert "| AND | sex == Male |  |  |" in cnf.to_markdown()
    assert "<td>sex == Male</td>" in cnf._repr_html_()


def test_empty_rule_sets():
    assert RuleSet([], "dnf", CONDS, [0, 1]).predict(B).tolist() == [0] * 4
    assert RuleSet([], "cnf", CONDS, [0, 1]).predict(B).tolist() == [1] * 4
    assert str(RuleSet([], "dnf", CONDS, [0, 1])) == "predict 0   [p(1) = 0.000]"
    assert str(RuleSet([], "cnf", CONDS, [0, 1], counts_true=(2, 5))) == "predict 1   [p(1) = 1.000; 0: 2, 1: 5]"


def test_rule_set_json_round_trip():
    for form in ("dnf", "cnf"):
        m = RuleSet([(0, 2), (1,)], form, CONDS, ["a", "b"], 0.7, 0.2, (1, 2), (3, 4))
        again = model_from_dict(json.loads(m.to_json()))
        assert again == m
        assert np.array_equal(again.predict(B), m.predict(B))
        assert np.array_equal(again.predict_proba(B), m.predict_proba(B))


def test_one_vs_rest():
    members = [
        RuleSet([(0,)], "dnf", CONDS, ["rest", "a"], 0.9, 0.1),
        RuleSet([(1,)], "dnf", CONDS, ["rest", "b"], 0.8, 0.1),
        RuleSet([(2,)], "dnf", CONDS, ["rest", "c"], 0.7, 0.1),
    ]
    m = OneVsRestRuleSets(members, CONDS, ["a", "b", "c"])
    assert m.predict(B).tolist() == ["a", "a", "b", "c"]
    assert np.allclose(m.predict_proba(B).sum(axis=1), 1)
    again = model_from_dict(json.loads(m.to_json()))
    assert np.array_equal(again.predict(B), m.predict(B))
    assert str(m).split("\n\n")[0].splitlines() == [
        "one rule set per class, read as a decision list: the first test that is true of a "
        "row gives its class",
        "IF (age <= 25)",
        "THEN a   [score 0.900]",
        "ELSE IF (priors > 3)",
        "THEN b   [score 0.800]",
        "ELSE IF (sex == Male)",
        "THEN c   [score 0.700]",
        "ELSE a",
    ]


def test_one_vs_rest_steps_say_not_and_leave_out_what_never_decides():
    members = [
        # class a is rarer where its rule set holds: the list says NOT
        RuleSet([(0,), (1, 2)], "dnf", CONDS, ["not a", "a"], 0.2, 0.6),
        RuleSet([(1,)], "dnf", CONDS, ["not b", "b"], 0.9, 0.1),
        RuleSet([], "dnf", CONDS, ["not c", "c"], 0.95, 0.4),  # never holds: 0.95 never given
    ]
    m = OneVsRestRuleSets(members, CONDS, ["a", "b", "c"])
    steps, default = m.steps()
    assert [(s.cls, s.holds) for s in steps] == [(1, True), (0, False)]
    assert default == 2
    assert str(m).split("\n\n")[0].splitlines()[1:] == [
        "IF (priors > 3)",
        "THEN b   [score 0.900]",
        "ELSE IF NOT [(age <= 25)",
        "     OR (priors > 3 and sex == Male)]",
        "THEN a   [score 0.600]",
        "ELSE c",
    ]
    assert "class c's rule set" in str(m) and "false on every row" in str(m)
    # by the scores: row 0 (a holds, b not): a 0.2, b 0.1, c 0.4 -> c
    assert m.predict(B).tolist() == ["c", "b", "b", "a"]


def test_invalid_models():
    with pytest.raises(ValueError, match="count per class"):
        RuleList([Rule((0,), 1, (1,))], Rule((), 0, (1, 1)), CONDS, [0, 1])
    with pytest.raises(ValueError, match="out of range"):
        RuleList([Rule((9,), 1, (1, 1))], Rule((), 0, (1, 1)), CONDS, [0, 1])
    with pytest.raises(ValueError, match="form"):
        RuleSet([], "xnf", CONDS, [0, 1])
    with pytest.raises(ValueError, match="columns"):
        rule_list().predict(np.zeros((2, 5), bool))
    with pytest.raises(ValueError, match="unknown model type"):
        model_from_dict({"type": "Tree"})


# --- rendering (issue 15, "Confusing") --------------------------------------------------

@pytest.mark.parametrize("cond,text", [
    (Condition("age", "==", "60<=age<100"), "age in [60, 100)"),
    (Condition("age", "!=", "17<=age<30"), "age not in [17, 30)"),
    (Condition("previous", "==", ">=2"), "previous in [2, inf)"),
    (Condition("balance", "==", "balance<0"), "balance in (-inf, 0)"),
    (Condition("balance", "==", "0<=balance<1000"), "balance in [0, 1000)"),
    (Condition("x", "==", "30<=age<40"), 'x == "30<=age<40"'),  # names another column: quoted
    (Condition("income", "==", "<=50K"), 'income == "<=50K"'),
    (Condition("job", "==", "Some college"), 'job == "Some college"'),
    (Condition("job", "==", "self-employed"), "job == self-employed"),
    (Condition("a1", "==", "1"), "a1 == 1"),
    (Condition("c", "in", ["x", "y"]), "c in {x, y}"),
    (Condition("c", "not in", list("pqrstu")), "c not in {p, q, r, s, ... 6 values}"),
])
def test_categories_are_written_so_they_cannot_be_misread(cond, text):
    assert str(cond) == text


def test_latex_uses_math_operators_and_escapes_text():
    latex = Condition("income", "<=", 5).render("latex")
    assert latex == r"income $\le$ 5"
    assert Condition("x_1", "!=", "a & b").render("latex") == r'x\_1 $\ne$ "a \& b"'
    assert Condition("age", "==", "60<=age<100").render("latex") == r"age $\in$ [60, 100)"
    assert "$<$" not in RuleList([Rule((0,), 1, (1, 2))], Rule((), 0, (3, 4)),
                                 [Condition("inc", "==", "<=50K")], [0, 1]).to_latex()


def _falling_list():
    conds = [Condition("age", "==", "60<=age<100"), Condition("previous", "==", ">=2")]
    return RuleList([Rule((0,), "yes", (30, 70), (0.3, 0.7)), Rule((1,), "yes", (60, 40), (0.6, 0.4))],
                    Rule((), "no", (900, 100), (0.9, 0.1)), conds, ["no", "yes"])


@pytest.mark.parametrize("model", [
    _falling_list(),
    RuleSet([(0, 2), (1,)], "dnf", CONDS, ["bad", "good"], 0.8, 0.1, (1, 2), (3, 4)),
    OneVsRestRuleSets([RuleSet([(0,)], "dnf", CONDS, ["rest", "a"], 0.9, 0.1, (1, 9), (8, 2)),
                       RuleSet([(1,)], "cnf", CONDS, ["rest", "b"], 0.7, 0.2)], CONDS, ["a", "b"]),
], ids=["falling list", "rule set", "one-vs-rest"])
def test_every_rendering_carries_the_same_annotations(model):
    import re

    notes = re.findall(r"   \[(.*)\]$", str(model), flags=re.M)
    assert notes  # the text shows probabilities / counts ...
    for note in notes:  # ... and so do the other formats
        assert note in model.to_markdown()
        assert note.replace("_", r"\_") in model.to_latex()
        assert note in model._repr_html_()
    assert "$<$" not in model.to_latex()


def test_falling_list_shows_probabilities_in_latex():
    latex = _falling_list().to_latex()
    assert r"if & age $\in$ [60, 100) & yes & p(yes) = 0.700; no: 30, yes: 70 \\" in latex
    assert r"else & (otherwise) & no & p(yes) = 0.100; no: 900, yes: 100 \\" in latex
