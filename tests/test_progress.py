"""Progress on stderr: on in an interactive terminal, quiet elsewhere, never changing a result.

``compare_models(progress=...)``, the ``progress`` callback of a fit and the
command line's ``--progress/--no-progress``.  Under pytest stderr is captured,
so it is not a terminal: the default must print nothing; a stream that says
it is a terminal (``isatty()``) stands for one.
"""

import contextlib
import io

import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier

from helpers import run_cli
from rulekit import CorelsClassifier
from rulekit._anytime import wants_progress
from rulekit.callbacks import progress, record, stop_at_gap
from rulekit.compare import compare_models
from rulekit.datasets import load_tictactoe


class Terminal(io.StringIO):
    """A captured stream that says it is an interactive terminal."""

    def isatty(self):
        return True


@pytest.fixture(scope="module")
def data():
    X, y = load_tictactoe(return_X_y=True)
    return X.iloc[::4].reset_index(drop=True), y.iloc[::4].reset_index(drop=True)


def models():
    return {"corels": CorelsClassifier(c=0.02, max_card=1),
            "tree": DecisionTreeClassifier(max_depth=3, random_state=0)}


def numeric(X):
    return pd.get_dummies(X).astype(float)


def _compare(X, y, **kw):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        comp = compare_models({"tree": DecisionTreeClassifier(max_depth=3, random_state=0)},
                              numeric(X), y, cv=3, **kw)
    return comp, err.getvalue()


def test_the_rule_none_means_a_terminal_only(monkeypatch):
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert wants_progress(None) is False
    assert wants_progress(True) is True
    monkeypatch.setattr("sys.stderr", Terminal())
    assert wants_progress(None) is True
    assert wants_progress(False) is False
    monkeypatch.setattr("sys.stderr", None)  # pythonw, a daemon: no stream at all
    assert wants_progress(None) is False


def test_compare_models_shows_one_tick_per_model_and_fold_when_asked(data):
    X, y = data
    _, err = _compare(X, y, progress=True)
    # 3 folds of one model, then the refit on all rows: 4 ticks, all done
    assert "compare" in err and "4/4" in err, err
    _, err = _compare(X, y, progress=True, refit=False)
    assert "3/3" in err and "4/4" not in err, err


def test_compare_models_is_quiet_by_default_off_a_terminal(data):
    X, y = data
    _, err = _compare(X, y)
    assert err == ""
    _, err = _compare(X, y, progress=False, verbose=1)  # an explicit False wins
    assert err == ""


def test_compare_models_shows_progress_by_default_in_a_terminal(data):
    X, y = data
    terminal = Terminal()
    with contextlib.redirect_stderr(terminal):
        compare_models({"tree": DecisionTreeClassifier(max_depth=3, random_state=0)},
                       numeric(X), y, cv=3)
    assert "4/4" in terminal.getvalue()


def test_compare_models_results_are_the_same_with_and_without_progress(data):
    X, y = data
    Xn = numeric(X)
    with contextlib.redirect_stderr(io.StringIO()) as err:
        shown = compare_models(models(), Xn, y, cv=3, progress=True)
    assert "8/8" in err.getvalue()  # 3 folds of 2 models, 2 refits
    quiet = compare_models(models(), Xn, y, cv=3, progress=False)
    timing = ["fit_time"]
    pd.testing.assert_frame_equal(shown.table.drop(columns=timing), quiet.table.drop(columns=timing))
    pd.testing.assert_frame_equal(shown.folds.drop(columns=timing), quiet.folds.drop(columns=timing))
    assert str(shown.models["corels"]) == str(quiet.models["corels"])


def test_the_progress_callback_counts_the_searches_and_changes_nothing(data):
    X, y = data
    err = io.StringIO()
    with contextlib.redirect_stderr(err), progress(record(), label="corels") as bar:
        shown = CorelsClassifier(c=0.02, max_card=1, callback=bar).fit(X, y)
    quiet = CorelsClassifier(c=0.02, max_card=1).fit(X, y)
    assert str(shown) == str(quiet)
    assert shown.certificate_.objective == quiet.certificate_.objective
    # the bar counted every search the inner recorder saw, and said so on stderr
    assert bar.searches == len(bar.stop.searches()) >= 1
    assert "corels" in err.getvalue() and "searches" in err.getvalue()
    assert "best=" in err.getvalue()


def test_the_progress_callback_passes_a_stop_on_and_clones_without_its_bar(data):
    X, y = data
    with contextlib.redirect_stderr(io.StringIO()), progress(stop_at_gap(1.0)) as bar:
        est = CorelsClassifier(c=0.001, max_card=2, callback=bar).fit(X, y)
    assert est.certificate_.status == "interrupted"  # stop_at_gap(1.0) stops at once
    copy = clone(est).callback
    assert isinstance(copy, progress) and copy.searches == 0 and copy._bar is None
    assert repr(copy) == "progress(stop_at_gap(1))"


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory):
    X, y = load_tictactoe(return_X_y=True)
    path = tmp_path_factory.mktemp("progress") / "games.csv"
    X.assign(outcome=y).iloc[::4].to_csv(path, index=False)
    return path


@pytest.mark.parametrize("command", [
    ["compare", "--models", "cart", "--cv", "3"],
    ["fit", "--model", "corels", "--corels-c", "0.02", "--max-card", "1"],
])
def test_the_cli_progress_flags(csv_path, command):
    args = [command[0], csv_path, "--target", "outcome", *command[1:]]
    forced = run_cli(*args, "--progress")
    default = run_cli(*args)
    off = run_cli(*args, "--no-progress")
    for out in (forced, default, off):
        assert out.returncode == 0, out.stderr
    unit = "fits" if command[0] == "compare" else "searches"
    assert unit in forced.stderr
    assert default.stderr == "" and off.stderr == ""  # stderr is not a terminal here
    # the same printed result either way (compare's table also holds fit times: not those)
    assert without_fit_times(forced.stdout) == without_fit_times(off.stdout)


def without_fit_times(text: str) -> list:
    """The lines of a printed result; in a comparison table, the cells but fit_time's."""
    lines = [line.split("|") for line in text.splitlines()]
    header = next((cells for cells in lines if " fit_time " in cells), None)
    if header is None:
        return lines
    column = header.index(" fit_time ")
    return [cells[:column] + cells[column + 1:] if len(cells) == len(header) else cells
            for cells in lines]
