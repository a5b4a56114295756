"""The exports carry the binarizer's semantics (docs/binarization.md), condition by
condition: thresholds at awkward doubles, categories with quotes, the
infrequent group, missing values, unseen categories under every
``handle_unknown``, booleans against numbers, datetime parts, quoted names.

Each condition is exported alone (a one-clause rule set predicts "yes"
exactly where it holds) and run in SQLite, DuckDB and plain Python; the
reference is the saved-model ``Predictor``, which evaluates the condition
through the binarizer.  Where the documentation states an outcome, the test
also writes it down.
"""

import datetime
import math
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulekit
from rulekit import Binarizer, Predictor, Rule, RuleList, RuleSet, OneVsRestRuleSets
from rulekit.binarize import DataWarning
from export_check import (check_everywhere, duckdb_outputs, expected, load_module,
                          python_outputs, sqlite_outputs)


def one_condition_models(binarizer):
    """(condition, Predictor) for every condition: "yes" exactly where it holds."""
    conds = binarizer.conditions_
    for j, cond in enumerate(conds):
        model = RuleSet([(j,)], "dnf", conds, ["no", "yes"], proba_true=0.75, proba_false=0.125)
        yield cond, Predictor(model, binarizer)


def check_each_condition(binarizer, rows):
    n = 0
    for cond, predictor in one_condition_models(binarizer):
        try:
            check_everywhere(predictor, rows)
        except AssertionError as exc:
            raise AssertionError(f"condition {cond}: {exc}") from None
        n += 1
    return n


def holds(predictor, rows, backend):
    """Where the one-condition model says "yes", through one backend."""
    if backend == "python":
        labels, _ = python_outputs(predictor.to_python(), rows)
    elif backend == "sqlite":
        labels, _ = sqlite_outputs(predictor, rows, 2)
    else:
        labels, _ = duckdb_outputs(predictor, rows, 2)
    return [v == "yes" for v in labels]


BACKENDS = ["python", "sqlite", "duckdb"]


# -- numbers --------------------------------------------------------------------------------

@pytest.mark.slow  # about 5 CPU s
def test_thresholds_at_awkward_doubles_split_rows_where_the_binarizer_does():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({
        "unit": rng.random(200),                          # thresholds like 0.30000000000000004
        "huge": rng.random(200) * 1e300,                  # beyond 2**63
        "tiny": rng.random(200) * 1e-300,                 # near the smallest doubles
        "third": np.round(rng.integers(0, 9, 200) / 3, 12),
        "count": rng.integers(-5, 50, 200),
    })
    X.loc[::7, "unit"] = np.nan
    b = Binarizer(n_thresholds=9, min_frequency=None).fit(X)
    cuts = {s["name"]: s["values"] for s in b.to_dict()["columns"]}
    assert any(repr(float(t)) != str(round(float(t), 6)) for t in cuts["unit"])
    # rows at every threshold and one double either side of it
    probe = {name: [v for t in ts for v in (np.nextafter(t, -np.inf), float(t), np.nextafter(t, np.inf))]
             for name, ts in cuts.items()}
    size = max(len(v) for v in probe.values())
    rows = pd.DataFrame({name: (v * size)[:size] for name, v in probe.items()})
    rows.loc[0, "unit"] = np.nan
    assert check_each_condition(b, rows) == len(b.conditions_) >= 40


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_missing_number_is_on_neither_side_of_a_threshold(backend):
    X = pd.DataFrame({"age": [20.0, 30, 40, 50, np.nan, 60]})
    b = Binarizer(n_thresholds=3, min_frequency=None).fit(X)
    low = next(j for j, c in enumerate(b.conditions_) if c.op == "<=")
    high = b.conditions_.index(b.conditions_[low].negated())
    model = RuleSet([(low,), (high,)], "dnf", b.conditions_, ["no", "yes"])
    rows = pd.DataFrame({"age": [np.nan, 25.0, 55.0]})
    assert holds(Predictor(model, b), rows, backend) == [False, True, True]


# -- categories ------------------------------------------------------------------------------

def categorical_frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    job = rng.choice(["clerk", "O'Brien", 'say "hi"', "60<=age<100", "a,b", "naïve", "rare1", "rare2"],
                     n, p=[.3, .2, .2, .1, .1, .06, .02, .02]).astype(object)
    job[rng.random(n) < 0.1] = None
    return pd.DataFrame({
        "job title": job,
        'flag "x"': pd.Series(rng.choice([True, False], n), dtype=object).where(rng.random(n) > 0.1, None),
        "code": rng.choice([1, 2, 3, 7], n, p=[.4, .3, .28, .02]),
    })


@pytest.mark.slow  # about 6 CPU s in all
@pytest.mark.parametrize("handle_unknown", ["ignore", "infrequent_if_exist", "warn"])
def test_every_category_condition_under_every_unknown_handling(handle_unknown):
    X = categorical_frame()
    b = Binarizer(min_frequency=0.05, negations=True, handle_unknown=handle_unknown,
                  categorical_features=["code"]).fit(X)
    ops = {c.op for c in b.conditions_}
    assert ops >= {"==", "!=", "in", "not in", "is missing"}
    rows = categorical_frame(120, seed=1)
    rows.loc[:20, "job title"] = "astronaut's"  # unseen
    rows.loc[21:30, "code"] = 9  # unseen number
    rows.loc[31:40, "code"] = 2.0  # the category 2, written as a float
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        assert check_each_condition(b, rows) == len(b.conditions_)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("handle_unknown, in_group", [("ignore", False), ("infrequent_if_exist", True),
                                                      ("warn", True)])
def test_unseen_category_joins_the_infrequent_group_as_documented(backend, handle_unknown, in_group):
    X = categorical_frame()
    b = Binarizer(min_frequency=0.05, negations=True, handle_unknown=handle_unknown).fit(X)
    j = next(j for j, c in enumerate(b.conditions_) if c.feature == "job title" and c.op == "in")
    k = next(j for j, c in enumerate(b.conditions_) if c.feature == "job title" and c.op == "not in")
    rows = pd.DataFrame({"job title": ["astronaut", "rare1", None], 'flag "x"': [True] * 3,
                         "code": [1] * 3})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        for index, expect in ((j, [in_group, True, False]), (k, [not in_group, False, False])):
            model = RuleSet([(index,)], "dnf", b.conditions_, ["no", "yes"])
            assert holds(Predictor(model, b), rows, backend) == expect


def test_handle_unknown_error_refuses_in_python_and_gives_null_in_sql():
    X = categorical_frame()
    b = Binarizer(min_frequency=0.05, handle_unknown="error").fit(X)
    j = next(j for j, c in enumerate(b.conditions_) if c.feature == "job title" and c.op == "==")
    predictor = Predictor(RuleSet([(j,)], "dnf", b.conditions_, ["no", "yes"]), b)
    known = categorical_frame(50, seed=2)
    check_everywhere(predictor, known)
    unseen = known.copy()
    unseen.loc[3, "job title"] = "astronaut"
    with pytest.raises(ValueError, match="not seen at fit time"):
        predictor.predict(unseen)
    module = load_module(predictor.to_python())
    with pytest.raises(ValueError, match="column 'job title'.*astronaut"):
        module["predict"](unseen.iloc[3].to_dict())
    assert module["predict"](unseen.iloc[4].to_dict()) == predictor.predict(unseen.iloc[[4]])[0]
    for run in (sqlite_outputs, duckdb_outputs):
        labels, probas = run(predictor, unseen, 2)
        assert labels[3] is None and probas[3] == [None, None]
        assert labels[:3] + labels[4:] == expected(predictor, known.drop(index=3))[0]


def test_booleans_are_not_numbers_and_one_is_one_point_zero():
    # in a column of numbers True is not 1; in a boolean column 1 and "True" are read
    # as True (issue 25: the one rule SQLite, which stores booleans as 0/1, can follow)
    X = pd.DataFrame({"flag": pd.Series([True, False] * 50, dtype=object),
                      "code": [1, 2, 3, 4] * 25})
    b = Binarizer(categorical_features=["code"], min_frequency=None, negations=True,
                  handle_unknown="ignore").fit(X)
    rows = pd.DataFrame({"flag": pd.Series([True, 1, "True", False, 0, None], dtype=object),
                         "code": pd.Series([1.0, True, "1", 2, np.int64(3), np.nan], dtype=object)})
    flag_true = b.conditions_.index(rulekit.Condition("flag", "==", True))
    code_one = b.conditions_.index(rulekit.Condition("code", "==", 1))
    for index, expect in ((flag_true, [True, True, True, False, False, False]),
                          (code_one, [True, False, False, False, False, False])):
        predictor = Predictor(RuleSet([(index,)], "dnf", b.conditions_, ["no", "yes"]), b)
        assert [v == "yes" for v in predictor.predict(rows)] == expect
        assert holds(predictor, rows, "python") == expect
        # SQL columns hold one type each: a boolean column holds booleans
        typed = pd.DataFrame({"flag": [True, False, None], "code": [1.0, 2.0, np.nan]})
        for backend in ("sqlite", "duckdb"):
            assert holds(predictor, typed, backend) == [v == "yes" for v in predictor.predict(typed)]


def test_pandas_nullable_and_category_dtypes():
    rng = np.random.default_rng(6)
    n = 300
    X = pd.DataFrame({
        "count": pd.array(rng.integers(0, 9, n), dtype="Int64"),
        "ok": pd.array(rng.random(n) < 0.4, dtype="boolean"),
        "colour": pd.Series(rng.choice(["red", "green", "blue"], n), dtype="category"),
        "name": pd.Series(rng.choice(["ann", "bob", "cy"], n), dtype="string"),
    })
    for column in X.columns:
        X.loc[rng.random(n) < 0.1, column] = pd.NA
    b = Binarizer(n_thresholds=4, min_frequency=None, negations=True).fit(X)
    assert {c.feature for c in b.conditions_} == set(X.columns)
    assert check_each_condition(b, X.iloc[:80]) == len(b.conditions_)


def test_a_column_holding_true_and_one_keeps_two_categories():
    X = pd.DataFrame({"v": pd.Series([1, True, 1, True, False, 0, "a"] * 10, dtype=object)})
    b = Binarizer(min_frequency=None, categorical_features=["v"]).fit(X)
    assert [str(c) for c in b.conditions_] == ["v == False", "v == True", "v == 0", "v == 1",
                                               "v == a"]
    rows = pd.DataFrame({"v": pd.Series([True, 1, 1.0, False, 0, "a", None], dtype=object)})
    assert b.transform(rows).astype(int).tolist() == [
        [0, 1, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0],
        [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]
    for _, predictor in one_condition_models(b):
        assert holds(predictor, rows, "python") == [v == "yes" for v in predictor.predict(rows)]


# -- dates ----------------------------------------------------------------------------------------

def test_datetime_parts_in_every_backend():
    rng = np.random.default_rng(3)
    seen = pd.Timestamp("2019-06-01") + pd.to_timedelta(rng.integers(0, 1500 * 24, 400), unit="h")
    X = pd.DataFrame({"seen": pd.Series(seen).where(rng.random(400) > 0.1)})
    b = Binarizer(n_thresholds=5, min_frequency=None, negations=True).fit(X)
    assert {c.feature for c in b.conditions_} == {"year(seen)", "month(seen)", "hour(seen)",
                                                  "weekday(seen)"}
    rows = pd.DataFrame({"seen": pd.Series(pd.Timestamp("2018-12-30") + pd.to_timedelta(
        rng.integers(0, 3000 * 24, 150), unit="h")).where(rng.random(150) > 0.1)})
    assert check_each_condition(b, rows) == len(b.conditions_)


def test_python_export_reads_dates_in_every_common_form():
    X = pd.DataFrame({"seen": pd.date_range("2020-01-01 03:00", periods=300, freq="37h")})
    b = Binarizer(n_thresholds=4, min_frequency=None).fit(X)
    forms = [pd.Timestamp("2021-05-04 13:00"), datetime.datetime(2021, 5, 4, 13),
             np.datetime64("2021-05-04T13:00:00.000000000"), "2021-05-04 13:00:00",
             datetime.date(2021, 5, 4), None, pd.NaT, np.datetime64("NaT")]
    frame = pd.DataFrame({"seen": [pd.Timestamp("2021-05-04 13:00")] * 4
                          + [pd.Timestamp("2021-05-04")] + [pd.NaT] * 3})
    for cond, predictor in one_condition_models(b):
        module = load_module(predictor.to_python())
        got = [module["predict"]({"seen": v}) for v in forms]
        assert got == list(predictor.predict(frame)), cond


# -- names and text ----------------------------------------------------------------------------

def test_names_and_categories_with_quotes_spaces_and_unicode():
    X = categorical_frame().rename(columns={"code": "größe; DROP TABLE x"})
    X["it's ok"] = np.arange(len(X)) % 5
    b = Binarizer(min_frequency=0.05, negations=True, handle_unknown="ignore").fit(X)
    rows = categorical_frame(60, seed=4).rename(columns={"code": "größe; DROP TABLE x"})
    rows["it's ok"] = np.arange(60) % 7
    check_each_condition(b, rows)
    sql = Predictor(RuleSet([(0,)], "dnf", b.conditions_, ["no", "yes"]), b).to_sql(
        'my "table"', dialect="sqlite", keep=["it's ok"])
    # SQLite: column names in backquotes (never read as text when missing)
    assert 'FROM "my ""table"""' in sql and "`it's ok`" in sql


def test_qualified_table_names_and_kept_columns():
    X = pd.DataFrame({"x": np.arange(100.0), "id": np.arange(100)})
    b = Binarizer(n_thresholds=2).fit(X[["x"]])
    predictor = Predictor(RuleSet([(0,)], "dnf", b.conditions_, ["no", "yes"]), b)
    con = sqlite3.connect(":memory:")
    con.execute("ATTACH ':memory:' AS other")
    con.execute('CREATE TABLE other.t (x REAL, id INTEGER)')
    con.executemany("INSERT INTO other.t VALUES (?, ?)", X.itertuples(index=False))
    out = con.execute(predictor.to_sql(("other", "t"), keep=["id"], proba=True)).fetchall()
    want = expected(predictor, X[["x"]])
    assert [r[0] for r in out] == list(range(100))
    assert [r[1] for r in out] == want[0] and [list(r[2:]) for r in out] == want[1]
    star = con.execute(predictor.to_sql(("other", "t"), keep="*")).fetchall()
    assert [r[:2] for r in star] == [tuple(r) for r in X.itertuples(index=False)]


# -- model structure --------------------------------------------------------------------------------

def toy():
    X = pd.DataFrame({"a": [0.0, 1, 2, 3, 4, 5, 6, 7] * 5, "b": list("xxyyzzxy") * 5})
    return X, Binarizer(n_thresholds=3, min_frequency=None).fit(X)


def test_rule_list_order_default_and_an_empty_rule():
    X, b = toy()
    c = b.conditions_
    low = c.index(next(x for x in c if x.op == "<="))
    is_y = c.index(rulekit.Condition("b", "==", "y"))
    rules = [Rule((low,), "first", (1, 0, 0)), Rule((is_y,), "second", (0, 2, 1)),
             Rule((), "third", (0, 0, 3))]
    model = RuleList(rules, Rule((), "never", (1, 1, 1)), c, ["first", "second", "third"])
    predictor = Predictor(model, b)
    assert set(predictor.predict(X)) == {"first", "second", "third"}
    check_everywhere(predictor, X)


def test_one_vs_rest_ties_and_all_zero_scores():
    X, b = toy()
    c = b.conditions_
    is_x, is_y = c.index(rulekit.Condition("b", "==", "x")), c.index(rulekit.Condition("b", "==", "y"))
    members = [RuleSet([(is_x,)], "dnf", c, ["not p", "p"], 0.5, 0.0),
               RuleSet([(is_y,)], "dnf", c, ["not q", "q"], 0.5, 0.0),
               RuleSet([(is_x,)], "dnf", c, ["not r", "r"], 0.5, 0.0)]
    predictor = Predictor(OneVsRestRuleSets(members, c, ["p", "q", "r"]), b)
    rows = pd.DataFrame({"a": [0.0, 0, 0], "b": ["x", "y", "z"]})
    # x: p and r tie (earlier wins); y: q; z: every score is 0 (p, equal shares)
    assert list(predictor.predict(rows)) == ["p", "q", "p"]
    assert predictor.predict_proba(rows)[2].tolist() == [1 / 3] * 3
    check_everywhere(predictor, rows)
    check_everywhere(predictor, X)


def test_a_bare_model_reads_its_conditions_literally():
    X = categorical_frame()
    b = Binarizer(min_frequency=0.05, negations=True, handle_unknown="warn").fit(X)
    rows = categorical_frame(80, seed=5)
    rows.loc[:10, "job title"] = "astronaut"
    for j in range(len(b.conditions_)):
        model = RuleSet([(j,)], "dnf", b.conditions_, ["no", "yes"])
        literal = Predictor(model, Binarizer.from_conditions(model.conditions, list(X.columns)))
        want = expected(literal, rows)
        assert python_outputs(model.to_python(), rows) == want
        assert sqlite_outputs(model, rows, 2) == want
    model = RuleSet([(0,)], "dnf", b.conditions_, ["no", "yes"])
    assert model.to_sql(dialect="duckdb") == rulekit.export.to_sql(model, dialect="duckdb")


# -- random frames, random models ------------------------------------------------------------------

TEXT = st.sampled_from(["a", "b", "O'Neil", 'x "y"', "", " ", "1", "True", "é", "60<=age<100"])


@st.composite
def frames(draw):
    n = draw(st.integers(20, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    data = {
        "num": np.where(rng.random(n) < 0.15, np.nan,
                        rng.choice([rng.normal(), rng.normal() * 1e3, 0.1, 1 / 3], n)
                        + rng.integers(0, 4, n)),
        "count": rng.integers(0, 6, n),
        "text col": pd.Series(rng.choice(draw(st.lists(TEXT, min_size=2, max_size=6, unique=True)),
                                         n), dtype=object).where(rng.random(n) > 0.1, None),
        "flag": pd.Series(rng.random(n) < 0.5, dtype=object).where(rng.random(n) > 0.1, None),
        "when": pd.Series(pd.Timestamp("2020-01-01") + pd.to_timedelta(
            rng.integers(0, 900, n), unit="D")).where(rng.random(n) > 0.1),
    }
    return pd.DataFrame(data)


@st.composite
def models(draw, conditions):
    m = len(conditions)
    index = st.integers(0, m - 1)
    kind = draw(st.sampled_from(["list", "dnf", "cnf", "ovr"]))
    clauses = st.lists(st.lists(index, min_size=1, max_size=3).map(tuple), min_size=0, max_size=4)
    proba = st.floats(0, 1, allow_nan=False)
    if kind == "list":
        classes = ["a", "b", "c"]
        rules = [Rule(tuple(draw(st.lists(index, min_size=1, max_size=3))),
                      draw(st.sampled_from(classes)), tuple(draw(st.lists(st.integers(0, 9), min_size=3,
                                                                           max_size=3))))
                 for _ in range(draw(st.integers(0, 4)))]
        return RuleList(rules, Rule((), "a", (1, 2, 3)), conditions, classes)
    if kind in ("dnf", "cnf"):
        form = kind
        return RuleSet(draw(clauses), form, conditions, [0, 1], draw(proba), draw(proba))
    members = [RuleSet(draw(clauses), draw(st.sampled_from(["dnf", "cnf"])), conditions,
                       [f"not {k}", k], draw(proba), draw(proba)) for k in (10, 20, 30)]
    return OneVsRestRuleSets(members, conditions, [10, 20, 30])


@pytest.mark.slow  # about 7 CPU s
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_models_on_random_frames(data):
    X = data.draw(frames())
    params = data.draw(st.fixed_dictionaries({
        "min_frequency": st.sampled_from([None, 0.1, 3]),
        "negations": st.booleans(),
        "handle_unknown": st.sampled_from(["ignore", "infrequent_if_exist", "warn"]),
        "n_thresholds": st.integers(1, 5),
        "max_categories": st.sampled_from([None, 2, 3]),
    }))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        b = Binarizer(**params).fit(X)
    if not b.conditions_:
        return
    predictor = Predictor(data.draw(models(b.conditions_)), b)
    rows = data.draw(frames())
    rows.loc[rows.index[::4], "text col"] = "unseen 'one'"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        check_everywhere(predictor, rows)


# -- mistakes --------------------------------------------------------------------------------------

def test_bad_arguments_are_clear_errors():
    from sklearn.exceptions import NotFittedError

    X, b = toy()
    predictor = Predictor(RuleSet([(0,)], "dnf", b.conditions_, ["no", "yes"]), b)
    with pytest.raises(ValueError, match="'dialect' must be one of"):
        predictor.to_sql("t", dialect="oracle")
    with pytest.raises(TypeError, match="'dialect'"):
        predictor.to_sql("t", dialect=3)
    with pytest.raises(ValueError, match="write \\['id'\\] for one column"):
        predictor.to_sql("t", keep="id")
    with pytest.raises(ValueError, match="pass table="):
        predictor.to_sql(proba=True)
    with pytest.raises(TypeError, match="'proba'"):
        predictor.to_sql("t", proba="yes")
    with pytest.raises(ValueError, match="empty sequence"):
        predictor.to_sql([])
    with pytest.raises(NotFittedError):
        rulekit.CorelsClassifier().to_sql("t")
    with pytest.raises(NotFittedError):
        rulekit.BooleanRuleCGClassifier().to_python()
    with pytest.raises(TypeError, match="got int"):
        rulekit.export.to_python(3)
    with pytest.raises(ValueError, match="NUL"):
        predictor.to_sql("bad\x00name")
    assert predictor.to_sql("T", dialect="DuckDB") == predictor.to_sql("T", dialect="duckdb")


def test_array_input_exports_columns_named_x0_x1():
    X = np.column_stack([np.arange(60.0), np.arange(60) % 3])
    est = rulekit.CorelsClassifier(c=0.02, max_card=1).fit(X, (X[:, 0] > 20).astype(int))
    source = est.to_python()
    assert "row['x0']" in source
    frame = pd.DataFrame(X, columns=["x0", "x1"])
    assert python_outputs(source, frame)[0] == list(est.predict(X))
