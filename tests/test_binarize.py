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
    b = Binarizer(negations=True).fit(pd.DataFrame({"c": ["a", "b", "c"]}))
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
