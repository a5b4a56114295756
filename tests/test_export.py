"""Every learner on every bundled data set: its SQL (run in SQLite and DuckDB)
and its standalone Python give ``predict`` and ``predict_proba`` on every row,
including rows with missing values, unseen categories and values at the
thresholds.

The models are small (a few hundred training rows, light settings): what is
tested is the export, not the learners.
"""

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     SoftFallingRuleListClassifier, datasets)
from rulekit.colgen import ColGenSettings
from export_check import assert_same, check_everywhere, dirty, expected, python_outputs
from helpers import run_cli as _cli  # the command line in this process (rulekit.cli.main)
from test_persist import labels, raw_frame

N_TRAIN, N_TEST = 300, 200
ROOT = Path(__file__).resolve().parents[1]


def _corels_compas():
    bunch = datasets.load_corels_compas()
    return pd.DataFrame(bunch.data, columns=bunch.feature_names), np.asarray(bunch.target)


def _mixed_with_dates():
    X = raw_frame(600, seed=1)
    return X, labels(X, 1)


DATASETS = {
    "compas": lambda: datasets.load_compas(return_X_y=True),
    "corels_compas": _corels_compas,
    "fico": lambda: datasets.load_fico(return_X_y=True),
    "tictactoe": lambda: datasets.load_tictactoe(return_X_y=True),
    "mushroom": lambda: datasets.load_mushroom(return_X_y=True),
    "bank_marketing": lambda: datasets.load_bank_marketing(return_X_y=True),
    "bank_discretized": lambda: datasets.load_bank_marketing(discretized=True, return_X_y=True),
    "adult": lambda: datasets.load_adult(return_X_y=True),
    "monks": lambda: datasets.load_monks(2, return_X_y=True),
    "heart": lambda: datasets.load_heart(return_X_y=True),
    # not bundled: numbers with missing values, rare categories and a date column
    "mixed_with_dates": _mixed_with_dates,
}

LEARNERS = {
    "corels": lambda: CorelsClassifier(c=0.01, max_card=1, n_thresholds=5, max_nodes=50_000),
    "frl": lambda: FallingRuleListClassifier(n_iter=100, max_card=1, n_thresholds=5, random_state=0),
    "softfrl": lambda: SoftFallingRuleListClassifier(n_iter=100, max_card=1, n_thresholds=5,
                                                     random_state=0),
    "cg-dnf": lambda: BooleanRuleCGClassifier(form="dnf", max_complexity=10, max_literals=2,
                                              settings=ColGenSettings(pricing="beam"), n_thresholds=5),
    "cg-cnf": lambda: BooleanRuleCGClassifier(form="cnf", max_complexity=10, max_literals=2,
                                              settings=ColGenSettings(pricing="beam"), n_thresholds=5),
}

_CACHE: dict = {}


def split(name: str):
    """(train X, train y, test X) of a data set: disjoint random rows."""
    if name not in _CACHE:
        X, y = DATASETS[name]()
        rng = np.random.default_rng(0)
        order = rng.permutation(len(X))
        n_train = min(N_TRAIN, len(X) // 2)
        train, test = order[:n_train], order[n_train:n_train + N_TEST]
        _CACHE[name] = (X.iloc[train].reset_index(drop=True), np.asarray(y)[train],
                        X.iloc[test].reset_index(drop=True))
    return _CACHE[name]


def fitted(learner: str, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LEARNERS[learner]().fit(X, y)


def _every_pair():
    """Every (data set, learner) pair; the fast lane runs a diagonal of them (data set i
    with learner i mod 5: each data set once, each learner on two or three data sets),
    the slow lane the other pairs, so the two lanes together still run every pair."""
    learners = list(LEARNERS)
    return [pytest.param(dataset, learner, id=f"{dataset}-{learner}",
                         marks=() if learners.index(learner) == i % len(learners)
                         else pytest.mark.slow)
            for i, dataset in enumerate(DATASETS) for learner in learners]


@pytest.mark.parametrize("dataset,learner", _every_pair())
def test_exports_predict_like_the_estimator(dataset, learner):
    X, y, X_test = split(dataset)
    est = fitted(learner, X, y)
    rows = pd.concat([dirty(X_test, est.binarizer_, seed=1), X_test], ignore_index=True)
    check_everywhere(est, rows)


def test_datasets_cover_every_bundled_one():
    assert set(datasets.DATASETS) <= set(DATASETS)


def tictactoe_multiclass():
    """Tic-tac-toe with the centre square (x, o or blank) as a three-class target."""
    X, _ = datasets.load_tictactoe(return_X_y=True)
    rows = np.random.default_rng(1).permutation(len(X))[:N_TRAIN + N_TEST]
    X = X.iloc[rows].reset_index(drop=True)
    y = X.pop("middle_middle").to_numpy()
    return X.iloc[:N_TRAIN], y[:N_TRAIN], X.iloc[N_TRAIN:].reset_index(drop=True)


# (three-class CNF members take ~25 s of solver waits here; the random-model test
# covers one-vs-rest CNF members, benchmarks/check_export_postgresql.py runs them)
@pytest.mark.parametrize("learner", ["corels", "cg-dnf"])
def test_multiclass_exports(learner):
    X, y, X_test = tictactoe_multiclass()
    assert len(set(y)) == 3
    est = fitted(learner, X, y)
    assert len(est.classes_) == 3
    rows = pd.concat([dirty(X_test, est.binarizer_, seed=2), X_test], ignore_index=True)
    check_everywhere(est, rows)


def test_saved_and_loaded_model_exports_the_same_text(tmp_path):
    X, y, X_test = split("adult")
    est = fitted("cg-dnf", X, y)
    loaded = rulekit.load(est.save(tmp_path / "m.json"))
    for dialect in rulekit.export.DIALECTS:
        assert loaded.to_sql("t", dialect=dialect, proba=True) == est.to_sql(
            "t", dialect=dialect, proba=True)
    assert loaded.to_python() == est.to_python()
    rows = dirty(X_test, est.binarizer_, seed=3)
    check_everywhere(loaded, rows)


# -- the command line ---------------------------------------------------------------------

def test_cli_export_writes_runnable_sql_and_python(tmp_path):
    X, y, X_test = split("compas")
    frame = X.assign(two_year_recid=y)
    frame.to_csv(tmp_path / "train.csv", index=False)
    out = _cli("fit", str(tmp_path / "train.csv"), "--target", "two_year_recid", "--model",
               "corels", "--corels-c", "0.02", "--max-card", "1", "--save", str(tmp_path / "m.json"))
    assert out.returncode == 0, out.stderr
    loaded = rulekit.load(tmp_path / "m.json")

    python = _cli("export", str(tmp_path / "m.json"), "--to", "python")
    assert python.returncode == 0, python.stderr
    assert python.stdout == loaded.to_python()
    assert_same(python_outputs(python.stdout, X_test), expected(loaded, X_test), "cli python")

    sql = _cli("export", str(tmp_path / "m.json"), "--to", "sql", "--dialect", "duckdb",
               "--table", "people", "--output", str(tmp_path / "m.sql"))
    assert sql.returncode == 0, sql.stderr
    assert (tmp_path / "m.sql").read_text() == loaded.to_sql("people", dialect="duckdb",
                                                               proba=True) + "\n"
    expression = _cli("export", str(tmp_path / "m.json"), "--to", "sql")
    assert expression.stdout == loaded.to_sql(dialect="sqlite") + "\n"


def test_cli_export_reports_mistakes_in_one_line(tmp_path):
    out = _cli("export", str(tmp_path / "none.json"), "--to", "sql")
    assert out.returncode == 2 and out.stderr.startswith("rulekit: error: no such file")
    (tmp_path / "bad.json").write_text(json.dumps({"hello": 1}))
    out = _cli("export", str(tmp_path / "bad.json"), "--to", "python")
    assert out.returncode == 2 and "not a model saved by" in out.stderr
    assert "Traceback" not in out.stderr
    out = _cli("export", str(tmp_path / "bad.json"), "--to", "java")
    assert out.returncode == 2 and "invalid choice" in out.stderr


@pytest.mark.slow  # the page's example fits in a new process
def test_the_docs_example_runs(tmp_path):
    text = (ROOT / "docs" / "export.md").read_text()
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
    assert "to_sql" in code and "to_python" in code
    (tmp_path / "example.py").write_text(code)
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600, env={**os.environ, "PYTHONPATH": path})
    assert out.returncode == 0, out.stderr[-3000:]
    assert "SELECT" in out.stdout and (tmp_path / "compas_model.py").is_file()
