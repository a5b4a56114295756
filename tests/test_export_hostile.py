"""Exports under hostile or awkward input (issue 25, items 1-8).

Column names, categories and labels come from data, and a model file from
anyone: none of that text may run as code, and every export must still
predict exactly what ``predict`` does.  Each test below failed before the
fix it checks; the property-based versions are in ``test_fuzz_hostile.py``.
"""

import json
import sqlite3

import duckdb
import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import CorelsClassifier
from export_check import (assert_same, check_everywhere, duckdb_outputs, expected, fit,
                          load_module, python_outputs, sqlite_outputs)


def run_module(source: str) -> dict:
    """Compile and run exported source with every builtin (as an import would)."""
    namespace = {"__name__": "exported"}
    exec(compile(source, "exported.py", "exec"), namespace)
    return namespace


def two_columns(name_a: str, name_b: str, n: int = 120, seed: int = 0):
    """A numeric column and a text column that together decide the label."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({name_a: rng.integers(0, 6, n), name_b: rng.choice(["u", "v", "w"], n)})
    y = np.where((X[name_a] > 2) | (X[name_b] == "u"), "yes", "no")
    return X, y


# -- 1-3: nothing from the data or a file runs ------------------------------------------------

def test_a_column_name_cannot_close_the_docstring():
    name = '"""+str(globals().__setitem__("PWN", 1))+"""'
    X, y = two_columns(name, "other")
    est = fit(X, y)
    assert name in {c.feature for c in est.model_.conditions}
    namespace = run_module(est.to_python())
    assert "PWN" not in namespace
    assert repr(name) in namespace["__doc__"]  # the docstring still reads back as written
    assert_same(python_outputs(est.to_python(), X), expected(est, X), "python")


@pytest.mark.parametrize("name", ['say "hi"', "back\\slash", "tab\there",
                                  "{globals().__setitem__(chr(80)+chr(87)+chr(78),1)}"])
def test_a_column_name_in_the_unseen_category_error_is_a_literal(name):
    X, y = two_columns("n", name)
    est = fit(X, y, handle_unknown="error")
    namespace = run_module(est.to_python())
    row = {"n": 1, name: "never seen"}
    with pytest.raises(ValueError) as info:
        namespace["predict"](row)
    assert "PWN" not in namespace
    assert repr(name) in str(info.value) and "'never seen'" in str(info.value)
    with pytest.raises(ValueError, match="not seen at fit time"):
        est.predict(pd.DataFrame([row]))


def crafted_file(tmp_path, estimator: str):
    X, y = two_columns("age", "job")
    est = fit(X, y)
    payload = json.loads(est.save(tmp_path / "m.json").read_text())
    payload["estimator"] = estimator
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(payload))
    return path, X


def test_the_estimator_field_of_a_file_cannot_inject_sql(tmp_path):
    path, X = crafted_file(tmp_path, "X\nDROP TABLE canary; --")
    loaded = rulekit.load(path)
    for dialect, connect in (("sqlite", sqlite3.connect), ("duckdb", duckdb.connect)):
        sql = loaded.to_sql("people", dialect=dialect, proba=True)
        assert "\nDROP" not in sql
        con = connect(":memory:")
        con.execute("CREATE TABLE canary (x INTEGER)")
        con.execute('CREATE TABLE people (age INTEGER, job TEXT)')
        con.executemany("INSERT INTO people VALUES (?, ?)", X.values.tolist())
        if dialect == "sqlite":
            con.executescript(sql)  # runs every statement the text holds
        else:
            con.execute(sql)
        assert con.execute("SELECT count(*) FROM canary").fetchone() == (0,), dialect
        got = [r[0] for r in con.execute(sql + (" ORDER BY rowid" if dialect == "sqlite" else ""))
               .fetchall()]
        if dialect == "sqlite":
            assert got == list(loaded.predict(X))


def test_the_estimator_field_of_a_file_cannot_run_python(tmp_path):
    path, X = crafted_file(tmp_path, 'X"""\nglobals().__setitem__("PWN", 1)\n"""')
    source = rulekit.load(path).to_python()
    namespace = run_module(source)
    assert "PWN" not in namespace
    assert namespace["__doc__"].splitlines()[0].startswith("Rule list learned by 'X")


# -- 4: line breaks inside SQL literals stay as they are ----------------------------------------

def test_line_breaks_inside_categories_labels_and_names():
    rng = np.random.default_rng(4)
    n = 300
    X = pd.DataFrame({"x\ny": rng.integers(0, 5, n), "c": rng.choice(["a\nb", "z"], n)})
    y = np.where((X["x\ny"] > 2) ^ (X["c"] == "a\nb"), "high\nrisk", "low")
    est = fit(X, y)
    used = {c.feature for c in est.model_.conditions if c.feature in X}
    assert used == {"x\ny", "c"}
    want = expected(est, X)
    assert "high\nrisk" in want[0]
    assert_same(sqlite_outputs(est, X, 2), want, "sqlite")   # 90 and 141 of 300 rows wrong before
    assert_same(duckdb_outputs(est, X, 2), want, "duckdb")   # refused the column before
    assert_same(python_outputs(est.to_python(), X), want, "python")


# -- 5: Python variable names ----------------------------------------------------------------

def test_names_that_fold_together_or_shadow_python():
    rng = np.random.default_rng(5)
    n = 400
    X = pd.DataFrame({"h": rng.integers(0, 4, n), "ℎ": rng.integers(0, 4, n),
                      "ｒow": rng.choice(["p", "q"], n), "float": rng.random(n),
                      "x²": rng.integers(0, 3, n),
                      "when": pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 400, n),
                                                                           unit="D")})
    y = ((X["h"] > 1) ^ (X["ℎ"] > 2) ^ (X["ｒow"] == "p") ^ (X["float"] > 0.5)
         ^ (X["x²"] > 0)).astype(int)
    est = fit(X, y, c=0.0001, max_nodes=20_000)
    assert {"h", "ℎ"} <= {c.feature for c in est.model_.conditions}
    source = est.to_python()
    compile(source, "m.py", "exec")
    check_everywhere(est, X)   # 107 of 400 rows wrong in Python before (h and ℎ were one)


def test_integer_column_names_read_from_records():
    rng = np.random.default_rng(6)
    X = pd.DataFrame(rng.integers(0, 5, (120, 3)))   # columns 0, 1, 2
    y = (X[0] > 2).astype(int)
    est = fit(X, y)
    rows = X.to_dict("records")
    assert set(rows[0]) == {0, 1, 2}
    namespace = load_module(est.to_python())
    assert [namespace["predict"](r) for r in rows] == list(est.predict(X))
    # text keys (a JSON row) work as well, as rulekit reads column names as text
    assert [namespace["predict"]({str(k): v for k, v in r.items()}) for r in rows] == \
        list(est.predict(X))


# -- 6: integers beyond 2**53 ------------------------------------------------------------------

def test_integers_beyond_two_to_the_53_compare_as_rulekit_does():
    rng = np.random.default_rng(7)
    n, base = 40, 2 ** 60
    X = pd.DataFrame({"n": base + rng.integers(-300, 300, n)})
    est = fit(X, (X["n"] > base).astype(int))
    new = pd.DataFrame({"n": base + rng.integers(-300, 300, n)})
    check_everywhere(est, new)   # 7 of 40 rows wrong in sqlite before
    # categories: 2**60 and 2**60 + 1 are one double, so one category to rulekit
    cats = pd.DataFrame({"c": pd.Series([base, base + 512] * 20, dtype=object)})
    est = fit(cats, np.array([0, 1] * 20), categorical_features=["c"])
    new = pd.DataFrame({"c": pd.Series([base + 1, base + 513, base - 1, 7] * 10, dtype=object)})
    want = expected(est, new)
    assert want[0][:2] == [0, 1]
    assert_same(sqlite_outputs(est, new, 2), want, "sqlite")
    assert_same(python_outputs(est.to_python(), new), want, "python")


def test_a_large_integer_label_comes_back_exactly():
    X, _ = two_columns("a", "b")
    labels = np.where(X["a"] > 2, 2 ** 60 + 1, 5)
    est = fit(X, labels)
    assert_same(sqlite_outputs(est, X, 2), expected(est, X), "sqlite")
    assert_same(duckdb_outputs(est, X, 2), expected(est, X), "duckdb")


# -- 7: bytes ------------------------------------------------------------------------------------

def test_bytes_are_refused_at_fit_naming_the_column():
    X = pd.DataFrame({"ok": np.arange(40) % 4, "raw": [b"a", b"b"] * 20})
    y = np.arange(40) % 2
    with pytest.raises(ValueError, match="column 'raw' holds bytes; decode"):
        CorelsClassifier().fit(X, y)
    with pytest.raises(ValueError, match="column 'raw' holds bytes"):
        CorelsClassifier(categorical_features=["raw"]).fit(X, y)
    with pytest.raises(ValueError, match="y holds bytes labels"):
        CorelsClassifier().fit(X[["ok"]], np.array([b"p", b"q"] * 20))


# -- 8: booleans given as numbers or text ---------------------------------------------------------

@pytest.mark.parametrize("values", [
    [True, False, None],
    [1, 0, 2],
    [1.0, 0.0, -0.0],
    ["True", "False", "maybe"],
    ["true", "FALSE", "1"],
], ids=["bool", "int", "float", "text", "text-other"])
@pytest.mark.parametrize("handle_unknown", ["ignore", "error"])
def test_booleans_given_as_numbers_or_text_follow_one_rule(values, handle_unknown):
    rng = np.random.default_rng(8)
    X = pd.DataFrame({"flag": rng.random(200) < 0.5, "n": rng.integers(0, 3, 200)})
    y = (X["flag"] ^ (X["n"] == 0)).astype(int)
    est = fit(X, y, handle_unknown=handle_unknown)
    assert "flag" in {c.feature for c in est.model_.conditions}
    column = pd.Series(values * 10, dtype=object)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        column = column.astype(float if any(isinstance(v, float) for v in values) else int)
    rows = pd.DataFrame({"flag": column, "n": np.arange(30) % 3})
    if handle_unknown == "error" and any(v is not None and str(v).lower() not in (
            "true", "false", "1", "0", "1.0", "0.0", "-0.0") for v in values):
        with pytest.raises(ValueError, match="column 'flag'"):
            est.predict(rows)
        module = load_module(est.to_python())
        with pytest.raises(ValueError, match="column 'flag'"):
            [module["predict"](r) for r in rows.to_dict("records")]
        labels, _ = sqlite_outputs(est, rows, 2)
        assert [v is None for v in labels] == [str(v).lower() == "maybe" or v == 2
                                             for v in rows["flag"]]
        return
    check_everywhere(est, rows)
    # 1, 1.0, "True" and "true" are True, as a SQLite boolean (stored as 1) is
    truthy = est.predict(rows.assign(flag=True))
    for k, v in enumerate(rows["flag"]):
        if str(v).lower() in ("true", "1", "1.0"):
            assert est.predict(rows.iloc[[k]])[0] == truthy[k]
