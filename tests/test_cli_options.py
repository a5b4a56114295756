"""The command line and its docs (issue 37, item 5), in-process through ``rulekit.cli.main``.

``--help`` names every default, ``--categorical-features`` reaches ``fit``,
``compare`` and ``explore``, the README lists every command, and the CORELS
selection table says why a validation cell is empty.
"""

import argparse
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rulekit import CorelsClassifier
from rulekit.cli import _HelpFormatter, build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _commands():
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


# -- --help shows defaults ------------------------------------------------------------------

@pytest.mark.parametrize("command", sorted(_commands()))
def test_help_names_a_default_for_every_option(command, capsys):
    sub = _commands()[command]
    assert sub.formatter_class is _HelpFormatter
    formatter = sub._get_formatter()
    shown = 0
    for action in sub._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        text = formatter._get_help_string(action)
        # an option the user may leave out says what it then is; a required one says so
        assert "default" in text or "(required)" in text, (command, action.dest, text)
        shown += "default" in text
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.count("default") >= shown


def test_help_gives_each_learners_own_default(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    # the learners' signatures, not a copy of them: a changed default shows here
    assert "(default: corels, frl, softfrl 'auto')" in out            # --max-card
    assert "cg, cg-cnf, cg-dnf 120.0; corels, frl, softfrl None" in out  # --time-limit
    assert "--cv" not in out
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "number of stratified folds (default 5)" in " ".join(capsys.readouterr().out.split())


# -- --categorical-features -----------------------------------------------------------------

@pytest.fixture(scope="module")
def coded_csv(tmp_path_factory):
    """``state`` holds integer codes; the label is ``state == 21`` (10 % noise)."""
    rng = np.random.default_rng(0)
    n = 300
    state = rng.choice([3, 9, 21, 30, 44], n)
    y = np.where(state == 21, "yes", "no")
    flip = rng.random(n) < 0.1
    y[flip] = np.where(y[flip] == "yes", "no", "yes")
    frame = pd.DataFrame({"state": state, "age": rng.integers(18, 70, n), "outcome": y})
    path = tmp_path_factory.mktemp("cli_cat") / "coded.csv"
    frame.to_csv(path, index=False)
    return path


FIT = ["--target", "outcome", "--model", "corels", "--corels-c", "0.02", "--max-card", "1"]


def test_fit_reads_integer_codes_as_categories(coded_csv, capsys):
    assert main(["fit", str(coded_csv), *FIT, "--categorical-features", "state"]) == 0
    out = capsys.readouterr().out
    assert "state == 21" in out
    assert not re.search(r"state (<=|>) ", out)
    # without the option the codes are numbers, cut by thresholds
    assert main(["fit", str(coded_csv), *FIT]) == 0
    assert re.search(r"state (<=|>) ", capsys.readouterr().out)


@pytest.mark.parametrize("args, needle", [
    (["--categorical-features", "region"], "column 'region' is not in"),
    (["--categorical-features", "outcome"], "'outcome' is the target column"),
])
def test_categorical_features_must_name_feature_columns(coded_csv, capsys, args, needle):
    assert main(["fit", str(coded_csv), *FIT, *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_compare_passes_categorical_features_to_every_learner(coded_csv, capsys, monkeypatch):
    import rulekit.compare

    seen = {}
    real = rulekit.compare.compare_models

    def spy(models, *args, **kwargs):
        seen.update(models)
        return real(models, *args, **kwargs)

    monkeypatch.setattr(rulekit.compare, "compare_models", spy)
    assert main(["compare", str(coded_csv), "--target", "outcome", "--models", "corels,cart",
                 "--cv", "2", "--corels-c", "0.02", "--max-card", "1",
                 "--categorical-features", "state"]) == 0
    assert seen["corels"].categorical_features == ["state"]
    assert "corels" in capsys.readouterr().out


def test_explore_reads_integer_codes_as_categories(coded_csv, tmp_path, capsys):
    page = tmp_path / "page.html"
    assert main(["explore", "--data", str(coded_csv), *FIT, "--categorical-features", "state",
                 "-o", str(page)]) == 0
    html = page.read_text()
    assert "state == 21" in html and not re.search(r"state (&lt;=|<=|>|&gt;) \d", html)


# -- the README -----------------------------------------------------------------------------

def test_readme_lists_every_command():
    readme = (ROOT / "README.md").read_text()
    for command in _commands():
        assert f"`rulekit {command}" in readme, command
    assert "--categorical-features" in readme
    # the first two set-up commands stay as they are
    assert readme.splitlines()[3:5] == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install . && rulekit demo",
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && python -m pytest",
    ]


# -- selection_.table() explains its empty validation cells ---------------------------------

def _selection_table(**params):
    rng = np.random.default_rng(2)
    n = 200
    X = pd.DataFrame({"a": rng.normal(size=n).round(2), "b": rng.normal(size=n).round(2),
                      "k": rng.choice(["u", "v", "w"], n)})
    y = np.where((X["a"] > 0) & (X["k"] != "w"), "yes", "no")
    flip = rng.random(n) < 0.1
    y[flip] = np.where(y[flip] == "yes", "no", "yes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = CorelsClassifier(**params).fit(X, y)
    return est.selection_.table()


def test_selection_table_says_why_a_candidate_was_not_validated():
    table = _selection_table()
    assert "validation_note" in table.columns
    empty = table["validation_accuracy"].isna()
    # every empty cell is explained on its row; every validated row has no note
    assert (table.loc[empty, "validation_note"].str.startswith("not validated: ")).all()
    assert (table.loc[~empty, "validation_note"] == "").all()
    assert empty.any() and (~empty).any()     # the default validates some points, not all
    assert "validation_note" in table.to_string()
    # a duplicate names the validated point that stands for it, and that point has its score
    for note in table.loc[empty, "validation_note"]:
        found = re.search(r"the same list as at c = ([\d.e-]+), max_card = (\d)", note)
        if found:
            twin = table[(table["c"] == float(found[1])) & (table["max_card"] == int(found[2]))]
            assert len(twin) == 1 and twin["validation_accuracy"].notna().all()


def test_selection_table_with_a_given_c_says_nothing_was_validated():
    table = _selection_table(c=0.01)
    assert table["validation_accuracy"].isna().all()
    assert table["validation_note"].str.contains("c was given").all()
