"""Column names a reader could misread are written quoted in printed models (issue 37).

A column named ``"Age "`` printed as ``Age  > 54``: the trailing space was
invisible, so the printed rule named a column the data does not have.
Names with leading or trailing spaces, blank names, unprintable characters
or the rules' own syntax are now quoted (and escaped); ordinary names are
written as before.  The exports, which quote identifiers on their own,
still agree with ``predict``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from export_check import check_everywhere
from rulekit import BooleanRuleCGClassifier, CorelsClassifier
from rulekit.binarize import Condition


@pytest.mark.parametrize("name,shown", [
    ("age", "age"),
    ("capital gain", "capital gain"),          # inner spaces read fine
    ("year(signup)", "year(signup)"),
    ("hours-per-week", "hours-per-week"),
    ("Age ", '"Age "'),
    (" Age", '" Age"'),
    ("", '""'),
    ("   ", '"   "'),
    ("a\tb", '"a\\tb"'),
    ("x <= 3", '"x <= 3"'),
    ("income and age", '"income and age"'),
    ("Rate OR score", '"Rate OR score"'),
    ('say "hi"', '"say \\"hi\\""'),
    ("set {a}", '"set {a}"'),
    ("b is missing", '"b is missing"'),
])
def test_names_are_written_so_a_reader_sees_where_they_end(name, shown):
    assert str(Condition(name, ">", 54)) == f"{shown} > 54"
    assert str(Condition(name, "is missing")) == f"{shown} is missing"


def test_latex_escapes_the_quoted_name():
    latex = Condition("Age ", "<=", 5).render("latex")
    assert latex.startswith('"Age "') and r"$\le$" in latex


def aged(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"Age ": rng.integers(18, 80, n).astype(float),
                      "job": rng.choice(["clerk", "nurse"], n)})
    y = np.where(X["Age "] > 54, "yes", "no")
    flip = rng.random(n) < 0.05
    y[flip] = np.where(y[flip] == "yes", "no", "yes")
    return X, y


@pytest.mark.parametrize("learner", [
    lambda: BooleanRuleCGClassifier(max_complexity=4), lambda: CorelsClassifier()],
    ids=["colgen", "corels"])
def test_a_model_on_a_column_with_a_trailing_space_shows_it_and_exports_agree(learner):
    X, y = aged()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = learner().fit(X, y)
    text = str(est.model_)
    # the old printout: "Age  > 51.5", the space unseen
    assert '"Age "' in text
    assert "Age  " not in text
    # every format quotes it too (Markdown as it is, HTML with its quotes escaped)
    assert '"Age "' in est.model_.to_markdown()
    assert "&quot;Age &quot;" in est.model_._repr_html_()
    assert '"Age "' in est.model_.to_latex()
    check_everywhere(est, X.reset_index(drop=True))
