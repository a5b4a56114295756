import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit import Binarizer, Condition


def _names(b):
    return [str(c) for c in b.conditions_]


def test_numeric_thresholds_are_deduplicated_deciles():
    x = np.arange(100, dtype=float)
    b = Binarizer().fit(pd.DataFrame({"x": x}))
    expected = np.unique(np.quantile(x, np.arange(1, 10) / 10))
    lows = [c.value for c in b.conditions_ if c.op == "<="]
    highs = [c.value for c in b.conditions_ if c.op == ">"]
    assert lows == pytest.approx(expected) and highs == pytest.approx(expected)
    B = b.transform(pd.DataFrame({"x": x}))
    # each "<=" column and its ">" partner are complements
    for k in range(0, B.shape[1], 2):
        assert np.array_equal(B[:, k], ~B[:, k + 1])
        assert b.negation_of_[k] == k + 1 and b.negation_of_[k + 1] == k


def test_few_distinct_values_use_the_values_themselves():
    b = Binarizer(n_thresholds=9).fit(pd.DataFrame({"x": [1, 2, 2, 3, 3, 3]}))
    assert _names(b) == ["x <= 1", "x > 1", "x <= 2", "x > 2"]


def test_n_thresholds_limits_the_cuts():
    b = Binarizer(n_thresholds=3).fit(pd.DataFrame({"x": np.arange(1000)}))
    assert len(b.conditions_) == 6


def test_categorical_equals_and_negations():
    df = pd.DataFrame({"color": ["red", "green", "blue", "red"]})
    assert _names(Binarizer().fit(df)) == ["color == blue", "color == green", "color == red"]
    b = Binarizer(negations=True).fit(df)
    assert _names(b) == [
        "color == blue", "color != blue", "color == green", "color != green",
        "color == red", "color != red",
    ]
    B = b.transform(df)
    assert B[:, 4].tolist() == [True, False, False, True]
    assert np.array_equal(B[:, 4], ~B[:, 5])


def test_two_category_column_needs_no_negations():
    df = pd.DataFrame({"sex": ["M", "F", "F"]})
    b = Binarizer(negations=True).fit(df)
    assert _names(b) == ["sex == F", "sex == M"]
    assert b.negation_of_.tolist() == [1, 0]


def test_bool_and_listed_columns_are_categorical():
    df = pd.DataFrame({"flag": [True, False, True], "code": [3, 1, 2]})
    b = Binarizer(categorical_features=["code"]).fit(df)
    assert _names(b) == ["flag == False", "flag == True", "code == 1", "code == 2", "code == 3"]
    b2 = Binarizer(categorical_features=[1]).fit(df.to_numpy())
    assert [c.op for c in b2.conditions_ if c.feature == "x1"] == ["=="] * 3


def test_missing_values_get_their_own_condition_and_block_the_others():
    df = pd.DataFrame({"age": [20.0, np.nan, 40.0, 50.0], "job": ["a", None, "b", "c"]})
    b = Binarizer(negations=True).fit(df)
    names = _names(b)
    assert "age is missing" in names and "job is missing" in names
    B = b.transform(df)
    row = B[1]
    for k, c in enumerate(b.conditions_):
        assert row[k] == (c.op == "is missing")


def test_constant_columns_give_nothing():
    df = pd.DataFrame({"c": [5, 5, 5], "s": ["a", "a", "a"], "x": [1, 2, 3]})
    assert {c.feature for c in Binarizer().fit(df).conditions_} == {"x"}


def test_constant_column_with_missing_gets_value_and_missing():
    b = Binarizer().fit(pd.DataFrame({"c": [5.0, np.nan, 5.0]}))
    assert _names(b) == ["c == 5", "c is missing"]


def test_unknown_category_makes_every_equals_false():
    b = Binarizer(negations=True, handle_unknown="ignore").fit(pd.DataFrame({"c": ["a", "b", "c"]}))
    B = b.transform(pd.DataFrame({"c": ["zzz"]}))[0]
    for k, cond in enumerate(b.conditions_):
        assert B[k] == (cond.op == "!=")


def test_missing_column_at_transform_is_a_clear_error():
    b = Binarizer().fit(pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"]}))
    with pytest.raises(ValueError, match="'b'"):
        b.transform(pd.DataFrame({"a": [1]}))


def test_pandas_string_dtype_and_category_dtype():
    df = pd.DataFrame({
        "s": pd.array(["a", "b", "a"], dtype="string"),
        "k": pd.Categorical(["u", "v", "v"]),
    })
    b = Binarizer().fit(df)
    assert _names(b) == ["s == a", "s == b", "k == u", "k == v"]
    assert b.transform(df).sum() == 6


def test_pandas_and_numpy_agree():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({
        "num": rng.normal(size=50),
        "cat": rng.choice(["x", "y", "z"], size=50).astype(object),
    })
    bp = Binarizer(negations=True).fit(df)
    bn = Binarizer(negations=True).fit(df.to_numpy(dtype=object))
    assert [(c.op, c.value) for c in bp.conditions_] == [(c.op, c.value) for c in bn.conditions_]
    assert np.array_equal(bp.transform(df), bn.transform(df.to_numpy(dtype=object)))


def test_feature_names_out_and_condition_str():
    b = Binarizer().fit(pd.DataFrame({"age": [20, 30, 40]}))
    assert list(b.get_feature_names_out()) == ["age <= 20", "age > 20", "age <= 30", "age > 30"]
    assert str(Condition("income", "is missing")) == "income is missing"
    assert str(Condition("ratio", "<=", 0.123456789)) == "ratio <= 0.123457"
    assert Condition.from_dict(Condition("a", "==", "x").to_dict()) == Condition("a", "==", "x")
    with pytest.raises(ValueError, match="op"):
        Condition("a", "<", 1)


def test_bad_input():
    with pytest.raises(ValueError, match="infinite"):
        Binarizer().fit(pd.DataFrame({"x": [1.0, np.inf, 2.0]}))
    with pytest.raises(ValueError, match="'x'.*mixes"):
        Binarizer().fit(pd.DataFrame({"x": [1, "a", 2]}, dtype=object))
    with pytest.raises(ValueError, match="0 samples"):
        Binarizer().fit(pd.DataFrame({"x": []}))
    with pytest.raises(ValueError, match="n_thresholds"):
        Binarizer(n_thresholds=0).fit(pd.DataFrame({"x": [1, 2]}))
    with pytest.raises(ValueError, match="categorical_features"):
        Binarizer(categorical_features=["nope"]).fit(pd.DataFrame({"x": [1, 2]}))
    b = Binarizer().fit(pd.DataFrame({"x": [1.0, 2.0, 3.0]}))
    with pytest.raises(ValueError, match="'x'.*non-numeric"):
        b.transform(pd.DataFrame({"x": ["a"]}))
    with pytest.raises(ValueError, match="columns"):
        Binarizer().fit(np.zeros((3, 2))).transform(np.zeros((3, 3)))


values = st.one_of(st.none(), st.integers(-5, 5).map(float))


@given(st.lists(st.tuples(values, st.sampled_from(["a", "b", "c", None])), min_size=1, max_size=40))
@settings(max_examples=60, deadline=None)
def test_conditions_mean_what_they_say(rows):
    df = pd.DataFrame(rows, columns=["x", "c"])
    df["c"] = df["c"].astype(object)
    b = Binarizer(n_thresholds=3, negations=True).fit(df)
    B = b.transform(df)
    for k, cond in enumerate(b.conditions_):
        col = df[cond.feature]
        for i, v in enumerate(col):
            missing = v is None or (isinstance(v, float) and np.isnan(v))
            if cond.op == "is missing":
                expected = missing
            elif missing:
                expected = False
            elif cond.op == "<=":
                expected = v <= cond.value
            elif cond.op == ">":
                expected = v > cond.value
            elif cond.op == "==":
                expected = v == cond.value
            else:
                expected = v != cond.value
            assert B[i, k] == expected, (cond, v)
    # pandas and numpy paths agree on the same data
    assert np.array_equal(B, Binarizer(n_thresholds=3, negations=True).fit(df.to_numpy(dtype=object)).transform(df.to_numpy(dtype=object)))


def test_from_conditions_reproduces_transform():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({
        "age": rng.integers(18, 90, 200).astype(float),
        "job": rng.choice(["a", "b", "c", None], 200),
        "flag": rng.choice([True, False], 200),
    })
    df.loc[::7, "age"] = np.nan
    fitted = Binarizer(negations=True).fit(df)
    rebuilt = Binarizer.from_conditions(fitted.conditions_, list(df.columns))
    new = df.sample(frac=1.0, random_state=1)
    assert np.array_equal(rebuilt.transform(new), fitted.transform(new))
    assert np.array_equal(rebuilt.negation_of_, fitted.negation_of_)
    with pytest.raises(ValueError, match="'job'"):
        rebuilt.transform(df.drop(columns="job"))


# --- support floor, infrequent categories, identifiers (issue 15 items 5 and 7) ----------

import warnings  # noqa: E402

from sklearn.preprocessing import OneHotEncoder  # noqa: E402

from rulekit.binarize import DataWarning  # noqa: E402
from rulekit.datasets import load_compas  # noqa: E402


def test_identifier_column_warns_names_it_and_gives_no_condition_by_default():
    rng = np.random.default_rng(0)
    n = 600
    df = pd.DataFrame({"customer_id": [f"C{i:05d}" for i in rng.permutation(n)],
                       "x": rng.normal(size=n)})
    with pytest.warns(DataWarning, match="'customer_id' looks like an identifier.*Drop the column"):
        b = Binarizer().fit(df)
    assert not any(c.feature == "customer_id" for c in b.conditions_)
    # without the floor every id would be a condition: the warning is the only guard left
    with pytest.warns(DataWarning, match="customer_id"):
        everything = Binarizer(min_frequency=None).fit(df)
    assert sum(c.feature == "customer_id" for c in everything.conditions_) == n


def test_an_ordinary_categorical_column_does_not_warn():
    df = pd.DataFrame({"c": list("abcde") * 40})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Binarizer().fit(df)


def test_rare_categories_form_one_infrequent_condition():
    df = pd.DataFrame({"c": ["a"] * 50 + ["b"] * 44 + ["c"] * 3 + ["d"] * 2 + ["e"] * 1})
    b = Binarizer(min_frequency=0.05, negations=True).fit(df)
    assert _names(b) == ["c == a", "c != a", "c == b", "c != b", "c in {c, d, e}",
                         "c not in {c, d, e}"]
    assert b.infrequent_categories_ == {"c": ["c", "d", "e"]}
    B = b.transform(pd.DataFrame({"c": ["a", "d", "e", "b"]}))
    assert B[:, 4].tolist() == [False, True, True, False]
    assert np.array_equal(B[:, 5], ~B[:, 4])
    assert b.negation_of_[4] == 5 and b.negation_of_[5] == 4
    # an int floor counts rows
    assert _names(Binarizer(min_frequency=3).fit(df))[-1] == "c in {d, e}"


def test_infrequent_group_below_the_floor_gives_no_condition():
    df = pd.DataFrame({"c": ["a"] * 60 + ["b"] * 39 + ["z"]})
    b = Binarizer(min_frequency=0.05).fit(df)
    assert _names(b) == ["c == a", "c == b"]
    assert b.infrequent_categories_ == {"c": ["z"]}
    # a != b here: "a" and "b" are not the only outcomes, so they are no complements
    assert b.negation_of_.tolist() == [-1, -1]


counts = st.lists(st.integers(1, 30), min_size=2, max_size=8)


@given(counts, st.one_of(st.none(), st.integers(1, 12), st.sampled_from([0.05, 0.1, 0.3])),
       st.one_of(st.none(), st.integers(1, 6)))
@settings(max_examples=60, deadline=None)
def test_infrequent_categories_follow_onehotencoder(sizes, min_frequency, max_categories):
    values = [f"k{j}" for j, size in enumerate(sizes) for _ in range(size)]
    df = pd.DataFrame({"c": values})
    enc = OneHotEncoder(min_frequency=min_frequency, max_categories=max_categories).fit(df)
    # the encoder computes no infrequent categories at all when neither option is set
    expected = enc.infrequent_categories_[0] if (min_frequency or max_categories) else None
    expected = [] if expected is None else sorted(expected.tolist())
    b = Binarizer(min_frequency=min_frequency, max_categories=max_categories).fit(df)
    assert sorted(b.infrequent_categories_.get("c", [])) == expected


def test_thresholds_that_say_nothing_are_dropped_on_compas():
    X, _ = load_compas(return_X_y=True)
    default = _names(Binarizer().fit(X))
    assert "juv_misd_count <= 12" not in default
    assert "juv_misd_count <= 12" in _names(Binarizer(min_frequency=None).fit(X))


def _side_weights(B, w):
    return B.T.astype(float) @ w, (~B).T.astype(float) @ w


@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 12)),
                          st.sampled_from(["a", "b", "c", "d", None]),
                          st.integers(0, 3)), min_size=2, max_size=60),
       st.sampled_from([None, 0.05, 0.2, 3]))
@settings(max_examples=80, deadline=None)
def test_every_kept_condition_holds_and_fails_on_at_least_the_floor(rows, min_frequency):
    df = pd.DataFrame([(x, c) for x, c, _ in rows], columns=["x", "c"]).astype({"c": object})
    w = np.array([float(k) for *_, k in rows])
    if w.sum() == 0:
        w[0] = 1.0
    b = Binarizer(n_thresholds=3, negations=True, min_frequency=min_frequency,
                  handle_unknown="ignore").fit(df, sample_weight=w)
    holds, fails = _side_weights(b.transform(df), w)  # rows of weight 0 may be unseen: no matter
    floor = (1e-12 if min_frequency is None else
             min_frequency * w.sum() if isinstance(min_frequency, float) else min_frequency)
    for k, cond in enumerate(b.conditions_):
        if cond.op == "is missing":
            continue  # kept beside its column's other conditions whatever its weight
        assert holds[k] >= floor - 1e-9 and fails[k] >= floor - 1e-9, cond


def _plain_quantile_conditions(X):
    """The binarization with no floor, written from its definition: deciles of each
    numeric column (or its distinct values but the largest), every category."""
    out = []
    for name in X.columns:
        x = X[name]
        if pd.api.types.is_numeric_dtype(x):
            distinct = np.unique(x)
            cuts = (distinct[:-1] if distinct.size <= 10 else
                    np.unique(np.quantile(x, np.arange(1, 10) / 10)))
            for t in cuts[cuts < distinct[-1]]:
                out += [f"{name} <= {t:g}", f"{name} > {t:g}"]
        else:
            out += [f"{name} == {v}" for v in sorted(x.unique())]
    return out


def test_min_frequency_none_is_the_plain_quantile_binarization_on_compas():
    X, _ = load_compas(return_X_y=True)
    assert _names(Binarizer(min_frequency=None).fit(X)) == _plain_quantile_conditions(X)


# --- unknown categories ----------------------------------------------------------------

def _fitted(handle_unknown):
    df = pd.DataFrame({"c": ["a"] * 10 + ["b"] * 10 + ["r"], "x": np.arange(21)})
    return Binarizer(min_frequency=1, handle_unknown=handle_unknown, negations=True,
                     max_categories=3).fit(df)


def test_handle_unknown_error_names_column_and_values():
    b = _fitted("error")
    with pytest.raises(ValueError, match=r"column 'c' holds 2 categories not seen at fit time \(zz, yy\)"):
        b.transform(pd.DataFrame({"c": ["zz", "a", "yy"], "x": [1, 2, 3]}))


def test_handle_unknown_warn_treats_unseen_as_infrequent():
    b = _fitted("warn")
    assert "c in {r}" in _names(b)
    with pytest.warns(DataWarning, match="column 'c'.*zz.*treated as infrequent"):
        B = b.transform(pd.DataFrame({"c": ["zz"], "x": [1]}))[0]
    got = {str(c): bool(B[k]) for k, c in enumerate(b.conditions_) if c.feature == "c"}
    assert got == {"c == a": False, "c != a": True, "c == b": False, "c != b": True,
                   "c in {r}": True, "c not in {r}": False}


@pytest.mark.parametrize("mode,in_group", [("ignore", False), ("infrequent_if_exist", True)])
def test_handle_unknown_silent_modes(mode, in_group):
    b = _fitted(mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        B = b.transform(pd.DataFrame({"c": ["zz"], "x": [1]}))[0]
    got = {str(c): bool(B[k]) for k, c in enumerate(b.conditions_) if c.feature == "c"}
    assert got["c == a"] is False and got["c != a"] is True
    assert got["c in {r}"] is in_group and got["c not in {r}"] is (not in_group)


def test_default_handle_unknown_warns():
    b = Binarizer().fit(pd.DataFrame({"c": ["a", "b", "c"] * 5}))
    with pytest.warns(DataWarning, match="not seen at fit time"):
        b.transform(pd.DataFrame({"c": ["q"]}))


# --- datetime columns ----------------------------------------------------------------

def test_datetime_columns_become_readable_parts():
    d = pd.to_datetime(pd.Series(pd.date_range("2019-01-01", periods=400, freq="5D")))
    d[3] = pd.NaT
    df = pd.DataFrame({"signup": d, "n": np.arange(400)})
    b = Binarizer().fit(df)
    features = list(dict.fromkeys(c.feature for c in b.conditions_))
    assert features == ["year(signup)", "month(signup)", "weekday(signup)", "n"]
    assert "signup is missing" not in _names(b) and "year(signup) is missing" in _names(b)
    B = b.transform(df)
    for k, cond in enumerate(b.conditions_):
        if cond.feature == "n":
            continue
        part = cond.feature.split("(")[0]
        value = {"year": d.dt.year, "month": d.dt.month,
                 "weekday": d.dt.day_name().str[:3]}[part]
        if cond.op == "is missing":
            expected = d.isna()
        elif cond.op == "<=":
            expected = d.notna() & (value <= cond.value)
        elif cond.op == ">":
            expected = d.notna() & (value > cond.value)
        elif cond.op == "==":
            expected = d.notna() & (value == cond.value)
        else:
            expected = d.notna() & value.isin(cond.value)
        assert np.array_equal(B[:, k], expected.to_numpy(dtype=bool)), cond
    assert b.feature_index_[[c.feature == "month(signup)" for c in b.conditions_]].tolist()[0] == 0


def test_datetime_hours_only_when_times_vary_and_dates_as_objects():
    import datetime as dt

    days = pd.DataFrame({"d": [dt.date(2020, 1, 1) + dt.timedelta(days=7 * k) for k in range(60)]})
    assert not any(c.feature.startswith("hour(") for c in Binarizer().fit(days).conditions_)
    assert any(c.feature == "month(d)" for c in Binarizer().fit(days).conditions_)
    times = pd.DataFrame({"t": pd.date_range("2020-01-01", periods=60, freq="7h")})
    assert any(c.feature == "hour(t)" for c in Binarizer().fit(times).conditions_)


def test_durations_and_odd_objects_get_advice_naming_the_column():
    with pytest.raises(TypeError, match="'wait'.*total_seconds"):
        Binarizer().fit(pd.DataFrame({"wait": pd.to_timedelta([1, 2, 3], unit="D")}))
    with pytest.raises(TypeError, match="'blob'.*dict"):
        Binarizer().fit(pd.DataFrame({"blob": [{"a": 1}, {"b": 2}]}))


# --- weights --------------------------------------------------------------------------

@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(-20, 20).map(float), st.floats(-5, 5)),
                          st.sampled_from(["a", "b", "c", "d", None]),
                          st.integers(0, 3)), min_size=1, max_size=50),
       st.sampled_from([None, 0.05, 2]), st.integers(1, 9))
@settings(max_examples=120, deadline=None)
def test_a_row_of_weight_k_is_the_row_repeated_k_times(rows, min_frequency, n_thresholds):
    df = pd.DataFrame([(x, c) for x, c, _ in rows], columns=["x", "c"]).astype({"c": object})
    w = np.array([k for *_, k in rows])
    if w.sum() == 0:
        w[0] = 1
    repeated = df.loc[np.repeat(np.arange(len(df)), w)].reset_index(drop=True)
    make = lambda: Binarizer(n_thresholds=n_thresholds, negations=True,  # noqa: E731
                             min_frequency=min_frequency, max_categories=3)
    weighted, copies = make().fit(df, sample_weight=w), make().fit(repeated)
    assert weighted.conditions_ == copies.conditions_
    assert weighted.infrequent_categories_ == copies.infrequent_categories_
    assert np.array_equal(weighted.negation_of_, copies.negation_of_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)  # rows of weight 0 bring unseen categories
        assert np.array_equal(weighted.transform(df), copies.transform(df))


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=80), st.integers(1, 20))
@settings(max_examples=100, deadline=None)
def test_unit_weights_give_numpy_quantiles_exactly(values, n):
    from rulekit._columns import weighted_quantiles

    x = np.array(values)
    qs = np.arange(1, n + 1) / (n + 1)
    assert np.array_equal(weighted_quantiles(x, None, qs), np.quantile(x, qs))


def test_bad_sample_weight():
    df = pd.DataFrame({"x": [1, 2, 3]})
    with pytest.raises(ValueError, match="sample_weight has 2 entries"):
        Binarizer().fit(df, sample_weight=[1, 2])
    with pytest.raises(ValueError, match="non-negative"):
        Binarizer().fit(df, sample_weight=[1, -1, 2])
    with pytest.raises(ValueError, match="zero for every row"):
        Binarizer().fit(df, sample_weight=[0, 0, 0])


# --- reference thresholds (issue 11 item 4a) ------------------------------------------

def _step_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"signal": rng.uniform(0, 10, n), "noise": rng.uniform(0, 10, n),
                      "group": rng.choice(["u", "v"], n)})
    y = (X["signal"] > 3.7).astype(int).to_numpy()
    return X, y


def test_reference_thresholds_find_the_split_that_matters():
    X, y = _step_data()
    b = Binarizer(thresholds="reference", n_thresholds=3).fit(X, y)
    cuts = [c.value for c in b.conditions_ if c.feature == "signal" and c.op == "<="]
    below = X["signal"][X["signal"] <= 3.7].max()
    assert below in cuts  # snapped to the largest training value at or below the split
    assert len(cuts) <= 3
    B = b.transform(X)
    k = _names(b).index(f"signal <= {below:.6g}")
    assert np.array_equal(B[:, k], y == 0)
    quantile = Binarizer(n_thresholds=3).fit(X, y)
    assert len(b.conditions_) < len(quantile.conditions_)


def test_reference_thresholds_bad_input():
    X, y = _step_data(n=50)
    with pytest.raises(ValueError, match="needs the labels"):
        Binarizer(thresholds="reference").fit(X)
    with pytest.raises(ValueError, match="two classes"):
        Binarizer(thresholds="reference").fit(X, np.zeros(50))
    with pytest.raises(ValueError, match="at least 10 rows"):
        Binarizer(thresholds="reference").fit(X.iloc[:6], y[:6])


# --- parameters -----------------------------------------------------------------------

@pytest.mark.parametrize("params,error,match", [
    ({"min_frequency": 0}, ValueError, "min_frequency"),
    ({"min_frequency": 1.5}, ValueError, "min_frequency"),
    ({"min_frequency": "rare"}, TypeError, "min_frequency"),
    ({"max_categories": 0}, ValueError, "max_categories"),
    ({"max_categories": 2.0}, TypeError, "max_categories"),
    ({"handle_unknown": "drop"}, ValueError, "handle_unknown"),
    ({"thresholds": "tree"}, ValueError, "thresholds"),
])
def test_new_parameters_are_declared_and_checked(params, error, match):
    with pytest.raises(error, match=f"Binarizer: parameter '{match}'"):
        Binarizer(**params).fit(pd.DataFrame({"x": [1, 2, 3]}))


def test_errors_name_the_column():
    with pytest.raises(ValueError, match="'spend'.*infinite"):
        Binarizer().fit(pd.DataFrame({"spend": [1.0, np.inf, 2.0]}))
    b = Binarizer().fit(pd.DataFrame({"when": pd.date_range("2020-01-01", periods=30)}))
    with pytest.raises(ValueError, match="'when'.*dates"):
        b.transform(pd.DataFrame({"when": ["not a date"]}))


def test_state_round_trips_through_json():
    import json

    rng = np.random.default_rng(4)
    df = pd.DataFrame({
        "age": rng.integers(18, 90, 300).astype(float),
        "job": rng.choice(["a", "b", "c", "rare1", "rare2", None], 300, p=[.3, .3, .3, .03, .02, .05]),
        "when": pd.date_range("2020-01-01", periods=300, freq="37h"),
    })
    df.loc[::9, "age"] = np.nan
    fitted = Binarizer(negations=True, handle_unknown="infrequent_if_exist").fit(df)
    again = Binarizer.from_dict(json.loads(json.dumps(fitted.to_dict())))
    new = df.sample(frac=1.0, random_state=2).assign(job=lambda f: f["job"].replace("a", "unseen"))
    assert again.conditions_ == fitted.conditions_
    assert again.handle_unknown == "infrequent_if_exist"
    assert np.array_equal(again.transform(new), fitted.transform(new))
    assert np.array_equal(again.negation_of_, fitted.negation_of_)


def test_data_warnings_point_at_the_callers_line():
    b = Binarizer().fit(pd.DataFrame({"c": ["a", "b", "c"] * 5}))
    with pytest.warns(DataWarning) as record:
        b.transform(pd.DataFrame({"c": ["q"]}))
    assert record[0].filename == __file__


def test_reference_ensemble_stops_at_the_fits_time_limit():
    """A time_limit covers the whole fit, the reference ensemble included: past the
    deadline it keeps the stumps fitted so far (one), so its cuts are one split."""
    import time as _time

    from rulekit._anytime import Anytime
    from rulekit._reference import REFERENCE_TREES, reference_cuts

    rng = np.random.default_rng(0)
    n = 400
    numeric = {f"x{j}": rng.normal(size=n) for j in range(4)}
    y = (numeric["x0"] + numeric["x1"] * numeric["x2"] + rng.normal(size=n) > 0).astype(int)
    weights = np.ones(n)
    free = reference_cuts(numeric, None, y, weights, n_thresholds=9)
    assert sum(len(v) for v in free.values()) > 1  # 40 stumps use several splits
    with Anytime("test", time_limit=1e-6):
        _time.sleep(0.01)                            # the deadline has passed
        late = reference_cuts(numeric, None, y, weights, n_thresholds=9)
    assert sum(len(v) for v in late.values()) == 1
    assert REFERENCE_TREES > 1


def test_reference_cuts_are_values_of_their_column_below_its_largest():
    """Each reference cut is snapped to a present training value (the largest at or below
    the ensemble's split), never the column's largest (``x > largest`` would hold nowhere),
    and a zero cut is 0.0 whatever the sign of the zeros in the column."""
    from rulekit._reference import reference_cuts

    rng = np.random.default_rng(3)
    n = 600
    numeric = {"steps": rng.choice([-0.0, 0.0, 1.5, -2.0, 4.0], n),
               "smooth": np.round(rng.normal(size=n), 2),
               "rare_top": np.r_[np.zeros(n - 3), [9.0, 9.0, 9.0]]}
    numeric["smooth"][rng.random(n) < 0.2] = np.nan
    y = ((numeric["steps"] > 0) ^ (rng.random(n) < 0.1)).astype(int)
    weights = np.where(rng.random(n) < 0.1, 0.0, 1.0)
    cuts = reference_cuts(numeric, None, y, weights, n_thresholds=9)
    assert len(cuts["steps"]) > 0
    for name, cut in cuts.items():
        x = numeric[name][weights > 0]
        x = x[~np.isnan(x)]
        assert np.all(np.isin(cut, x)) and np.all(cut < x.max()), name
        assert not np.any((cut == 0) & np.signbit(cut)), name


def test_column_report_says_why_a_column_gives_no_condition():
    """Each reason comes from the step of fit that decided it (issue 37, item 4)."""
    import json
    import warnings

    n = 300
    rng = np.random.default_rng(0)
    df = pd.DataFrame({
        "good": rng.normal(size=n), "constant": np.full(n, 3), "text": ["x"] * n,
        "empty": np.full(n, np.nan), "rare": np.r_[np.zeros(n - 1), 1.0],
        "ident": [f"id{i}" for i in range(n)], "dominant": ["a"] * (n - 1) + ["b"],
        "gappy": np.r_[np.full(n - 1, 5.0), np.nan], "when": pd.date_range("2021-01-01", periods=n),
    })
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ident looks like an identifier
        b = Binarizer().fit(df)
    report = b.column_report()
    used = {c.feature for c in b.conditions_}
    assert list(report.index) == [s.name for s in b._specs]
    assert {name for name, r in report.iterrows() if r["conditions"]} == used
    for name, r in report.iterrows():
        assert r["conditions"] == sum(c.feature == name for c in b.conditions_)
        assert (r["reason"] == "") == (name in used), name
    why = report["reason"]
    assert why["constant"] == "constant: every value is 3"
    assert why["text"] == "constant: every value is x"
    assert why["empty"] == "all missing"
    assert why["rare"].startswith("no useful cut: no threshold leaves min_frequency=0.01")
    assert why["ident"].startswith("no useful category: each of its 300 categories is rarer")
    assert why["dominant"].startswith("no useful category: no category test leaves")
    assert why["gappy"].startswith("nearly constant: every present value is 5")
    assert report.loc["year(when)", "column"] == "when"
    # max_categories=1 puts every category in one group, which says nothing
    one = Binarizer(max_categories=1).fit(pd.DataFrame({"c": rng.choice(list("abc"), n)}))
    assert one.conditions_ == []
    assert one.column_report().loc["c", "reason"].startswith("dropped by max_categories=1")
    # the reason is not part of the saved state (the model file's format is unchanged)
    saved = b.to_dict()
    assert all("why" not in s for s in saved["columns"])
    again = Binarizer.from_dict(json.loads(json.dumps(saved)))
    assert again.column_report()["reason"]["constant"].endswith("(the reason is not saved with a model)")
    assert again.column_report()["reason"]["good"] == ""
