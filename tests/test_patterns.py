"""Packed condition rows and the pattern counter (rulekit/_patterns.py) against plain numpy."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from rulekit import stream
from rulekit._patterns import PatternCounter
from rulekit.binarize import Binarizer

cells = st.tuples(st.one_of(st.none(), st.integers(-5, 5).map(float), st.floats(-3, 3)),
                  st.sampled_from(["a", "b", "c", "d", "e", None]),
                  st.sampled_from([True, False, None]))


def _frame(rows):
    return pd.DataFrame(rows, columns=["x", "c", "flag"]).astype({"c": object, "flag": object})


@given(st.lists(cells, min_size=1, max_size=40), st.lists(cells, min_size=1, max_size=40),
       st.sampled_from([None, 0.2, 3]), st.sampled_from(["ignore", "infrequent_if_exist", "warn"]),
       st.booleans())
@settings(max_examples=80, deadline=None)
def test_packed_rows_are_the_transform_packed(fit_rows, new_rows, min_frequency, handle_unknown,
                                              negations):
    b = Binarizer(n_thresholds=3, negations=negations, min_frequency=min_frequency,
                  handle_unknown=handle_unknown).fit(_frame(fit_rows))
    new = _frame(new_rows)      # unseen categories, and values beyond every threshold
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.packbits(b.transform(new), axis=1)
        packed = b.transform_packed(new)
    np.testing.assert_array_equal(packed, expected)


def test_packed_rows_of_dates_categories_and_an_unknown_refusal():
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({
        "when": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), "D"),
        "city": pd.Categorical(rng.choice(["Oslo", "Lima", "Pune", None], n)),
        "score": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
    })
    b = Binarizer().fit(df)
    np.testing.assert_array_equal(b.transform_packed(df), np.packbits(b.transform(df), axis=1))
    # a category dtype reads like the same text as objects
    plain = df.assign(city=df["city"].astype(object))
    np.testing.assert_array_equal(b.transform_packed(plain), b.transform_packed(df))
    strict = Binarizer(handle_unknown="error").fit(df)
    with pytest.raises(ValueError, match="city"):
        strict.transform_packed(df.assign(city=["Rome"] * n))


def _expected_counts(keys, fold, n_folds):
    """Distinct rows and their per-fold counts, written with np.unique."""
    rows, inverse = np.unique(keys, axis=0, return_inverse=True)
    per = np.zeros((len(rows), n_folds), dtype=np.int64)
    np.add.at(per, (inverse.ravel(), fold), 1)
    return {r.tobytes(): tuple(c) for r, c in zip(rows, per)}


def _as_dict(keys, fold_counts):
    return {r.tobytes(): tuple(c) for r, c in zip(keys, fold_counts)}


@pytest.mark.parametrize("width", [1, 8, 9, 17])
def test_the_counter_counts_what_unique_counts(width):
    rng = np.random.default_rng(width)
    pool = rng.integers(0, 256, (200, width), dtype=np.uint8)
    keys = pool[rng.integers(0, len(pool), 5000)]          # many repeats
    fold = rng.integers(0, 3, len(keys))
    counter = PatternCounter(width, 3)
    for part in np.array_split(np.arange(len(keys)), 7):   # chunks grow the table
        counter.add(keys[part], fold[part])
    got_keys, got_counts = counter.result()
    assert counter.n_rows == len(keys) and counter.used == len(got_keys)
    assert _as_dict(got_keys, got_counts) == _expected_counts(keys, fold, 3)
    # first-seen order: each key where it first occurs
    firsts = [keys[i].tobytes() for i in sorted({k.tobytes(): i for i, k in
                                                 reversed(list(enumerate(keys)))}.values())]
    assert [k.tobytes() for k in got_keys] == firsts


def test_merged_tables_and_the_canonical_order_do_not_depend_on_grouping_or_row_order():
    rng = np.random.default_rng(3)
    pool = rng.integers(0, 256, (300, 6), dtype=np.uint8)
    keys = pool[rng.integers(0, len(pool), 4000)]
    fold = rng.integers(0, 4, len(keys))
    tables = []
    for part in np.array_split(np.arange(len(keys)), 5):
        c = PatternCounter(6, 4)
        c.add(keys[part], fold[part])
        c.release()
        tables.append(stream.CountTable.of_counter(c))
    left = tables[0].merge(tables[1]).merge(tables[2]).merge(tables[3]).merge(tables[4])
    right = tables[0].merge(tables[1].merge(tables[2].merge(tables[3].merge(tables[4]))))
    for t in (left, right):
        assert t.n_rows == len(keys)
        assert _as_dict(t.keys, t.fold_counts) == _expected_counts(keys, fold, 4)
    np.testing.assert_array_equal(left.keys, right.keys)
    # the canonical order is a function of the set of keys only
    perm = rng.permutation(len(left.keys))
    a, b = stream.canonical_order(left.keys), stream.canonical_order(left.keys[perm])
    np.testing.assert_array_equal(left.keys[a], left.keys[perm][b])


def test_a_released_counter_takes_no_more_rows():
    c = PatternCounter(2, 1)
    c.add(np.zeros((3, 2), np.uint8), np.zeros(3, np.int64))
    c.release()
    with pytest.raises(RuntimeError, match="released"):
        c.add(np.zeros((1, 2), np.uint8), np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="bytes"):
        PatternCounter(3, 1).add(np.zeros((1, 2), np.uint8), np.zeros(1, np.int64))
