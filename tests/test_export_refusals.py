"""The six silent wrong answers of the third audit (issue 36, items 1-6).

Each case either gets an exact answer everywhere (``predict``, the Python
export, SQLite, DuckDB) or is refused: ``predict`` and the Python export
raise ``ValueError``, the SQL gives ``NULL`` outputs or fails.  Every test
here failed before the fix it checks; the property-based version is in
``test_fuzz_exports.py``, PostgreSQL's in its slow tests.
"""

import datetime
import json
import sqlite3

import duckdb
import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import Binarizer
from rulekit.export import DIALECTS
from export_check import (assert_same, check_everywhere, duckdb_outputs, expected, fit,
                          load_module, python_outputs, sqlite_outputs, sqlite_table)


def sqlite_rows(query: str, frame: pd.DataFrame, table: str = "data"):
    con = sqlite3.connect(":memory:")
    sqlite_table(con, table, frame)
    return con.execute(query + " ORDER BY rowid").fetchall()


# -- 1: time-zone-aware dates ------------------------------------------------------------------

def zoned_frame(n=300, seed=0, zone="Asia/Kolkata"):
    """Dates whose wall-clock hour decides the label, in a zone 5.5 hours from UTC."""
    rng = np.random.default_rng(seed)
    local = pd.Timestamp("2021-03-01") + pd.to_timedelta(rng.integers(0, 24 * 60, n), unit="h")
    X = pd.DataFrame({"when": pd.DatetimeIndex(local).tz_localize(zone),
                      "noise": rng.integers(0, 3, n)})
    y = np.where(X["when"].dt.hour >= 12, "pm", "am")
    return X, y


def test_a_time_zone_aware_column_is_refused_at_fit_naming_it():
    # audit: the SQL compared in UTC, predict on the wall clock: 33 of 300 rows differed
    X, y = zoned_frame()
    with pytest.raises(ValueError, match=r"column 'when' holds time-zone-aware dates.*tz_localize"):
        fit(X, y)
    with pytest.raises(ValueError, match="'when'.*time-zone-aware"):
        Binarizer().fit(X)


def test_aware_dates_of_python_objects_are_refused_too():
    X, y = zoned_frame(n=60)
    objects = X.assign(when=pd.Series(list(X["when"].dt.to_pydatetime()), dtype=object))
    with pytest.raises(ValueError, match="'when'.*time-zone-aware"):
        fit(objects, y)


def test_aware_dates_at_predict_are_refused_by_every_export():
    X, y = zoned_frame()
    naive = X.assign(when=X["when"].dt.tz_localize(None))  # the wall clock, as stated
    est = fit(naive, y)
    assert any(c.feature == "hour(when)" for c in est.model_.conditions)
    check_everywhere(est, naive)
    with pytest.raises(ValueError, match="'when'.*time-zone-aware"):
        est.predict(X)
    with pytest.raises(ValueError, match="'when'.*time-zone-aware"):
        est.predict(X.assign(when=X["when"].astype(str)))  # ISO text with an offset
    module = load_module(est.to_python())
    with pytest.raises(ValueError, match="'when'.*time zone"):
        module["predict"]({"when": datetime.datetime(2021, 3, 1, 13, tzinfo=datetime.timezone(
            datetime.timedelta(hours=5, minutes=30))), "noise": 1})
    with pytest.raises(ValueError, match="'when'.*time zone"):
        module["predict"]({"when": X["when"].astype(str)[0], "noise": 1})
    # SQLite: ISO text with an offset; DuckDB: TIMESTAMP WITH TIME ZONE.  NULL on every row
    rows = sqlite_rows(est.to_sql("data", proba=True), X)
    assert rows and all(r == (None, None, None) for r in rows)
    labels, probas = duckdb_outputs(est, X, 2)
    assert all(v is None for v in labels) and all(p == [None, None] for p in probas)
    # naive rows stay answered beside an aware one in SQLite (text has per-row types)
    mixed = naive.astype({"when": object}).copy()
    mixed.loc[0, "when"] = "2021-03-01T13:00:00+05:00"
    rows = sqlite_rows(est.to_sql("data"), mixed)
    assert rows[0] == (None,) and [r[0] for r in rows[1:]] == list(est.predict(naive)[1:])


# -- 2: names that differ only in case ------------------------------------------------------

def test_names_that_differ_only_in_case_are_refused_at_fit():
    # audit: DuckDB stored the second as a_1 and the export's "a" read A (87 of 300 rows)
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"A": rng.integers(0, 5, 300), "a": rng.integers(0, 5, 300)})
    y = np.where(X["a"] > 2, "x", "y")
    with pytest.raises(ValueError, match="differ only in case: 'A' and 'a'"):
        fit(X, y)
    with pytest.raises(ValueError, match="differ only in case: 'Straße' and 'STRASSE'"):
        Binarizer().fit(pd.DataFrame({"Straße": [1, 2], "STRASSE": [3, 4]}))


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_a_model_file_reading_names_that_differ_in_case_cannot_be_exported(tmp_path, dialect):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"A": rng.integers(0, 5, 200), "b": rng.integers(0, 5, 200)})
    est = fit(X, np.where((X["A"] > 2) & (X["b"] > 1), "x", "y"), max_card=2)
    path = tmp_path / "m.json"
    est.save(path)
    text = path.read_text().replace('"b"', '"a"').replace("(b)", "(a)")
    path.write_text(text)
    model = rulekit.load(path)
    assert {"A", "a"} <= set(model.feature_names_in_)
    with pytest.raises(ValueError, match="the model reads column names that differ only in case"):
        model.to_sql("data", dialect=dialect)
    with pytest.raises(ValueError, match="differ only in case"):
        model.to_python()


def test_duckdb_reads_each_column_of_a_model_fitted_beside_a_case_twin():
    # a model on "A" alone, run on a DuckDB table that also holds "a" (renamed a_1)
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"A": rng.integers(0, 5, 200)})
    est = fit(X, np.where(X["A"] > 2, "x", "y"))
    table = X.assign(a=rng.integers(0, 5, 200))
    con = duckdb.connect()
    con.register("v", table)
    con.execute('CREATE TABLE data AS SELECT * FROM v')
    got = [r[0] for r in con.execute(est.to_sql("data", dialect="duckdb")).fetchall()]
    assert got == list(est.predict(X))


# -- 3: a column missing from the table -------------------------------------------------------

def test_a_missing_column_is_an_error_in_sqlite_not_its_name_as_text():
    # audit: SQLite read "age" as the text 'age' (its double-quoted-string rule): 89 of 200 wrong
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"age": rng.integers(18, 80, 200), "job": rng.choice(["a", "b"], 200)})
    est = fit(X, np.where(X["age"] > 40, "old", "young"))
    without = X.drop(columns="age")
    with pytest.raises(sqlite3.OperationalError, match="no such column: age"):
        sqlite_rows(est.to_sql("data", proba=True), without)
    # the bare CASE expression, pasted into a query of one's own, fails too
    with pytest.raises(sqlite3.OperationalError, match="no such column: age"):
        sqlite_rows(f"SELECT {est.to_sql()} FROM data", without)
    with pytest.raises(sqlite3.OperationalError, match="no such column: age"):
        sqlite_rows(est.to_sql("data", keep=["age"]), without)
    con = duckdb.connect()
    con.register("v", without)
    con.execute("CREATE TABLE data AS SELECT * FROM v")
    with pytest.raises(duckdb.Error, match="age"):
        con.execute(est.to_sql("data", dialect="duckdb")).fetchall()
    check_everywhere(est, X)  # with the column, every export still agrees


def test_backquoted_names_survive_backquotes_and_quotes():
    name = 'we`ird "name'
    rng = np.random.default_rng(4)
    X = pd.DataFrame({name: rng.integers(0, 6, 120)})
    est = fit(X, np.where(X[name] > 2, "yes", "no"))
    assert "`we``ird \"name`" in est.to_sql("data")
    check_everywhere(est, X)


# -- 4: numbers stored as text --------------------------------------------------------------

def digits_frame(n=400, seed=5):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.integers(0, 20, n), "k": rng.choice(["p", "q"], n)})
    return X, np.where(X["x"] > 9, "big", "small")


def test_numbers_stored_as_text_are_refused_by_predict_and_every_export():
    # audit: predict parsed "5", SQLite compared it as text: 12 to 16 of 400 rows wrong
    X, y = digits_frame()
    est = fit(X, y)
    as_text = X.assign(x=X["x"].astype(str).astype(object))
    with pytest.raises(ValueError, match="column 'x' was numeric at fit time but holds non-numeric data now: text"):
        est.predict(as_text)
    with pytest.raises(ValueError, match="column 'x' was numeric at fit time but holds non-numeric data now: text"):
        est.predict(X.assign(x=X["x"].astype("string")))
    module = load_module(est.to_python())
    with pytest.raises(ValueError, match="column 'x' holds text"):
        module["predict"]({"x": "5", "k": "p"})
    rows = sqlite_rows(est.to_sql("data", proba=True), as_text)
    assert rows and all(r == (None, None, None) for r in rows)
    # one text row among numbers: that row alone is refused
    one = X.astype({"x": object}).copy()
    one.loc[3, "x"] = "15"
    rows = sqlite_rows(est.to_sql("data"), one)
    assert rows[3] == (None,)
    assert [r[0] for i, r in enumerate(rows) if i != 3] == [v for i, v in enumerate(est.predict(X)) if i != 3]
    try:
        labels, _ = duckdb_outputs(est, as_text, 2)
    except duckdb.Error:
        pass  # DuckDB refuses to compare text with a number: a refusal too
    else:
        assert all(v is None for v in labels)


def test_numeric_categories_stored_as_text_are_refused_in_duckdb():
    # a column of numbers read as categories: DuckDB would find '3' = 3 where rulekit
    # sees an unseen category
    rng = np.random.default_rng(6)
    X = pd.DataFrame({"code": rng.choice([1, 2, 3], 300)})
    est = fit(X, np.where(X["code"] == 3, "c", "other"), categorical_features=["code"])
    assert any(c.op == "==" for c in est.model_.conditions)
    as_text = X.assign(code=X["code"].astype(str).astype(object))
    labels, probas = duckdb_outputs(est, as_text, 2)
    assert all(v is None for v in labels)
    check_everywhere(est, X)


# -- 5: labels that differ by a trailing NUL ----------------------------------------------------

@pytest.mark.parametrize("container", [pd.Series, list, lambda v: np.array(v, dtype=object)])
def test_labels_differing_by_a_trailing_nul_come_back_exactly(tmp_path, container):
    # audit: the model was right but predict gave 'a' on every row (a fixed-width array)
    rng = np.random.default_rng(7)
    X = pd.DataFrame({"x": rng.integers(0, 10, 200)})
    y = ["a\x00" if v > 4 else "a" for v in X["x"]]  # np.where would drop the NUL
    est = fit(X, container(y))
    assert sorted(est.classes_.tolist()) == ["a", "a\x00"]
    got = est.predict(X).tolist()
    assert got == y
    assert all(type(v) is str for v in got)
    assert_same(python_outputs(est.to_python(), X), expected(est, X), "python")
    path = tmp_path / "m.json"
    est.save(path)
    loaded = rulekit.load(path)
    assert loaded.predict(X).tolist() == y
    assert loaded.classes_.tolist() == est.classes_.tolist()
    assert est.model_.predict(est.binarizer_.transform(X)).tolist() == y


# -- 6: crafted files whose classes compare equal ------------------------------------------------

@pytest.fixture(scope="module")
def saved_rule_list(tmp_path_factory):
    rng = np.random.default_rng(8)
    X = pd.DataFrame({"x": rng.integers(0, 10, 300), "z": rng.integers(0, 10, 300)})
    y = np.where(X["x"] > 4, "s", np.where(X["z"] > 6, "s", "t"))
    est = fit(X, y, max_card=1)
    assert len(est.model_.rules) >= 1
    path = tmp_path_factory.mktemp("crafted") / "m.json"
    est.save(path)
    return json.loads(path.read_text()), X


def with_classes(d: dict, classes: list) -> dict:
    """The file with its two classes renamed (every prediction renamed with them)."""
    d = json.loads(json.dumps(d))
    old = d["model"]["classes"]
    rename = dict(zip(old, classes))
    d["model"]["classes"] = classes
    for r in [*d["model"]["rules"], d["model"]["default"]]:
        r["prediction"] = rename[r["prediction"]]
    if d["model"].get("positive") is not None:
        d["model"]["positive"] = rename[d["model"]["positive"]]
    return d


@pytest.mark.parametrize("classes", [[True, 1], [1, True], [0, False], [1, 1.0]])
def test_classes_python_cannot_tell_apart_are_refused(saved_rule_list, tmp_path, classes):
    d, _ = saved_rule_list
    path = tmp_path / "m.json"
    path.write_text(json.dumps(with_classes(d, classes)))
    with pytest.raises(ValueError, match=r"model\.classes.*same class twice"):
        rulekit.load(path)


@pytest.mark.parametrize("classes", [[1, "1"], ["", "\x00"], ["a", "a\x00"], [0, "0.0"]])
def test_classes_that_differ_are_given_back_exactly(saved_rule_list, tmp_path, classes):
    # audit: these loaded and predict and to_python disagreed on up to 175 of 300 rows
    d, X = saved_rule_list
    path = tmp_path / "m.json"
    path.write_text(json.dumps(with_classes(d, classes)))
    model = rulekit.load(path)
    got = model.predict(X).tolist()
    assert {type(v) for v in got} <= {type(c) for c in classes}
    assert set(map(repr, got)) == set(map(repr, classes))  # both classes are predicted
    module = load_module(model.to_python())
    exported = [module["predict"](row) for row in X.to_dict("records")]
    assert [repr(v) for v in exported] == [repr(v) for v in got]
    if not any("\x00" in str(c) for c in classes):  # SQL text cannot hold NUL
        labels, _ = sqlite_outputs(model, X, 2)
        assert [repr(v) for v in labels] == [repr(v) for v in got]


# -- found by the property tests -------------------------------------------------------------------

@pytest.mark.parametrize("op", ["is missing", "=="])
def test_a_date_part_with_one_value_and_missing_ones_exports_as_a_category(op):
    # year(d) holds 2022 or is missing: the binarizer makes it a category (== 2022, is
    # missing); the Python export read a missing year as NaN, so "is missing" never held
    rng = np.random.default_rng(9)
    when = pd.Series(pd.Timestamp("2022-01-01") + pd.to_timedelta(rng.integers(0, 24 * 50, 200), unit="h"))
    when[rng.random(200) < 0.3] = pd.NaT
    X = pd.DataFrame({"d": when})
    b = Binarizer(min_frequency=None).fit(X)
    j = next(k for k, c in enumerate(b.conditions_) if c.feature == "year(d)" and c.op == op)
    model = rulekit.RuleList([rulekit.Rule((j,), "yes", (0, 1))], rulekit.Rule((), "no", (1, 0)),
                             b.conditions_, ["no", "yes"])
    check_everywhere(rulekit.Predictor(model, b), X)
