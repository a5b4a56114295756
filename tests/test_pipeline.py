"""The fit pipeline (rulekit/base.py, rulekit/_fitdata.py): prepare, solve, wrap.

Nothing is written to the estimator while it fits; the parameters are checked
once; what a fit used is what later methods read; ``FitData.distinct`` keeps
every weighted count.
"""

import ast
from fractions import Fraction

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import rulekit.base as base_module
from rulekit import CorelsClassifier
from rulekit._fitdata import FitData
from rulekit.binarize import Binarizer
from rulekit.learners import LEARNERS, warmup_data


def _frame(n=240, seed=3):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 5, n), "b": rng.normal(size=n).round(1),
                      "c": rng.choice(["x", "y", "z"], n)})
    y = np.where((X["a"] > 2) ^ (X["c"] == "x") ^ (rng.random(n) < 0.1), "yes", "no")
    return X, y


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_nothing_is_written_to_the_estimator_until_the_search_has_returned(name, monkeypatch):
    spec = LEARNERS[name]
    est = spec.make(**(spec.warmup or {}))
    X, y = warmup_data()
    seen = {}
    real_prepare, real_solve = type(est)._prepare, type(est)._solve

    def prepare(self, *args, **kw):
        seen["before"] = dict(vars(self))
        return real_prepare(self, *args, **kw)

    def solve(self, data):
        outcome = real_solve(self, data)
        seen["after solve"] = dict(vars(self))
        return outcome

    monkeypatch.setattr(type(est), "_prepare", prepare)
    monkeypatch.setattr(type(est), "_solve", solve)
    est.fit(X, y)
    assert seen["after solve"].keys() == seen["before"].keys(), name
    assert not [k for k in seen["before"] if k.endswith("_") and not k.startswith("__")]
    # after the wrap: the fitted attributes are there, and the parameters the fit used
    assert hasattr(est, "model_") and hasattr(est, "certificate_")
    assert est._fit_params_.keys() == est.get_params(deep=False).keys()


def test_a_failed_refit_leaves_the_fitted_estimator_as_it_was(monkeypatch):
    X, y = _frame()
    est = CorelsClassifier(c=0.02, max_card=1).fit(X, y)
    before = {k: v for k, v in vars(est).items() if k.endswith("_")}

    def broken(self, data):
        raise RuntimeError("the engine failed")

    monkeypatch.setattr(CorelsClassifier, "_solve", broken)
    with pytest.raises(RuntimeError, match="the engine failed"):
        est.fit(X.iloc[:100], y[:100])
    after = {k: v for k, v in vars(est).items() if k.endswith("_")}
    assert after.keys() == before.keys()
    assert all(after[k] is before[k] for k in before)


def test_parameters_are_checked_once_per_fit(monkeypatch):
    calls = []
    real = base_module.validate

    def counting(*args, **kw):
        calls.append(args[2] if len(args) > 2 else kw.get("owner"))
        return real(*args, **kw)

    monkeypatch.setattr(base_module, "validate", counting)
    X, y = _frame()
    CorelsClassifier(c=0.02, max_card=1).fit(X, y)
    assert calls == ["CorelsClassifier"]


def test_rashomon_set_reads_the_parameters_the_fit_used():
    X, y = _frame()
    est = CorelsClassifier(c=0.02, max_card=1).fit(X, y)
    expected = est.rashomon_set(0.01, max_models=50)
    # changing a parameter after the fit must not change what the fitted model's set is
    est.set_params(min_support=0.4)
    again = est.rashomon_set(0.01, max_models=50)
    assert again.scope == expected.scope
    assert len(again) == len(expected)
    assert [str(m) for m in again] == [str(m) for m in expected]
    assert np.array_equal(again.objectives, expected.objectives)


def _fitdata(B, y, w=None, n_classes=2):
    return FitData(params={}, classes=np.arange(n_classes), n_features_in=B.shape[1],
                   feature_names_in=None, binarizer=Binarizer(), B=B, y=y, sample_weight=w)


@pytest.mark.parametrize("seed", range(5))
def test_distinct_rows_keep_every_weighted_class_count(seed):
    rng = np.random.default_rng(seed)
    n, m, k = 300, 4, 3
    B = rng.random((n, m)) < 0.5
    y = rng.integers(0, k, n)
    w = rng.integers(0, 4, n).astype(float) if seed % 2 else None
    data = _fitdata(B, y, w, n_classes=k)
    folded = data.distinct()
    # each (pattern, class) is one row now
    keys = [(tuple(r), int(c)) for r, c in zip(folded.B, folded.y)]
    assert len(keys) == len(set(keys))
    # and the weight of every (pattern, class) is the sum over the rows it stands for,
    # counted here row by row with exact fractions
    expected = {}
    for i in range(n):
        key = (tuple(B[i]), int(y[i]))
        expected[key] = expected.get(key, Fraction(0)) + Fraction(1 if w is None else w[i])
    got = {key: Fraction(float(v)) for key, v in zip(keys, folded.weight)}
    assert got == expected
    # and its count is the number of rows it stands for, weights or not
    rows = {}
    for i in range(n):
        key = (tuple(B[i]), int(y[i]))
        rows[key] = rows.get(key, 0) + 1
    assert dict(zip(keys, folded.count.tolist())) == rows
    assert folded.n_samples == n
    assert folded.total_weight() == pytest.approx(data.total_weight())
    # first appearance order is kept
    first = list(dict.fromkeys((tuple(B[i]), int(y[i])) for i in range(n)))
    assert keys == first


def test_fitdata_cannot_carry_state_back():
    data = _fitdata(np.zeros((3, 1), bool), np.array([0, 1, 0]))
    with pytest.raises(TypeError):
        data.params["c"] = 1
    with pytest.raises(Exception):
        data.B = None


# --- docstrings are plain text and agree with the signatures --------------------------------

def _documented_defaults(doc: str) -> dict:
    import re

    return {m.group(1): m.group(2).strip() for m in
            re.finditer(r"^    (\w+) : [^\n]*?default=([^\n]+)$", doc, flags=re.M)}


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_every_documented_default_is_the_signatures(name):
    import inspect

    cls = type(LEARNERS[name].make())
    source = inspect.getsource(cls)
    # the docstring is written out in the source, not assembled when the module loads
    assert cls.__doc__.strip().splitlines()[0] in source
    documented = _documented_defaults(cls.__doc__)
    assert documented, cls.__name__
    signature = inspect.signature(cls.__init__).parameters
    for param, text in documented.items():
        assert param in signature, f"{cls.__name__}: documents {param!r}, which it does not take"
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text           # a name such as DEFAULT_GRID
        default = signature[param].default
        assert value == default or text == getattr(default, "__name__", None) \
            or text == repr(default), (cls.__name__, param, text, default)


def test_the_falling_lists_document_their_pool_cap_as_computed():
    import re

    from rulekit.frl import FallingRuleListClassifier, SoftFallingRuleListClassifier
    from rulekit.estimators.frl import MIN_POOL, _auto_cap

    for cls in (FallingRuleListClassifier, SoftFallingRuleListClassifier):
        doc = " ".join(cls.__doc__.split())
        budget = cls._counting_budget
        assert f"{budget:,} / (n_rows / 64 + 20)" in doc and f"never below {MIN_POOL:,}" in doc
        for shown, rows in re.findall(r"([\d,]+) on ([\d,]+) rows", doc):
            cap = _auto_cap(budget, int(rows.replace(",", "")))
            # written to two significant digits
            assert int(shown.replace(",", "")) == round(cap, 2 - len(str(cap))), (cls, rows)


def test_distinct_rows_keep_every_validation_split_apart():
    """Rows held out by different splits never merge, so every split's counts stay exact."""
    rng = np.random.default_rng(7)
    n, m, splits = 400, 3, 4
    B = rng.random((n, m)) < 0.5
    y = rng.integers(0, 2, n)
    tested = rng.random((n, splits)) < 0.3
    data = replace(_fitdata(B, y), tested=tested)
    folded = data.distinct()
    assert folded.tested.shape == (folded.n_rows, splits)
    for s in range(splits):
        for held_out in (True, False):
            # the class counts of each pattern among the rows split s holds out (trains on)
            expected, got = {}, {}
            for i in np.flatnonzero(tested[:, s] == held_out):
                key = (tuple(B[i]), int(y[i]))
                expected[key] = expected.get(key, 0) + 1
            for j in np.flatnonzero(folded.tested[:, s] == held_out):
                key = (tuple(folded.B[j]), int(folded.y[j]))
                got[key] = got.get(key, 0) + int(folded.count[j])
            assert got == expected


@pytest.mark.parametrize("seed", range(4))
def test_rows_folded_from_their_packed_bytes_are_the_distinct_rows(seed):
    """``FitData.from_packed`` (what an in-memory fit on counts uses, never making the
    boolean matrix of every row) gives the data ``distinct`` gives: the same rows, classes,
    counts, weights and splits, in the same order."""
    rng = np.random.default_rng(seed)
    n, m, k = 500, [1, 8, 9, 17][seed], 3
    B = rng.random((n, m)) < 0.3
    y = rng.integers(0, k, n)
    w = rng.random(n) + 0.5 if seed % 2 else None
    tested = rng.random((n, 3)) < 0.3 if seed >= 2 else None
    data = replace(_fitdata(B, y, w, n_classes=k), tested=tested)
    fields = dict(params={}, classes=np.arange(k), n_features_in=m, feature_names_in=None,
                  binarizer=data.binarizer, y=y, sample_weight=w, tested=tested)
    packed = FitData.from_packed(np.packbits(B, axis=1), m, **fields)
    folded = data.distinct()
    assert packed.B.dtype == bool and np.array_equal(packed.B, folded.B)
    assert np.array_equal(packed.y, folded.y) and np.array_equal(packed.count, folded.count)
    if w is None:
        assert packed.sample_weight is None
    else:
        assert np.allclose(packed.sample_weight, folded.sample_weight)
    if tested is not None:
        assert np.array_equal(packed.tested, folded.tested)
    with pytest.raises(ValueError, match="count=None"):
        FitData.from_packed(np.packbits(B, axis=1), m, **{**fields, "count": np.ones(n, int)})


def test_condition_bitsets_are_the_packed_columns():
    from rulekit._patterns import condition_bitsets
    from rulekit.bitset import pack
    rng = np.random.default_rng(3)
    for n in (1, 63, 64, 65, 300):
        for m in (1, 8, 9, 20):
            B = rng.random((n, m)) < 0.4
            got = condition_bitsets(np.packbits(B, axis=1), m)
            assert got.dtype == np.uint64 and np.array_equal(got, pack(B.T)), (n, m)


@pytest.mark.slow
def test_an_in_memory_fit_on_counts_never_holds_the_boolean_matrix_of_every_row():
    """The fit's own memory is the distinct rows', not the rows': on 60,000 wide rows of
    ten distinct patterns, what numpy holds at its peak during the fit stays far below the
    boolean matrix of every row (rows x conditions bytes), which the fit used to make."""
    import tracemalloc
    import warnings
    rng = np.random.default_rng(0)
    n = 60_000
    # 24 columns of ten values each, all moved by one draw: wide rows, 10 patterns
    base = rng.integers(0, 10, n)
    X = pd.DataFrame({f"x{j}": ((base + j) % 10).astype(float) for j in range(24)})
    y = (base + rng.integers(0, 3, n) > 5)
    est = CorelsClassifier(c=0.01, thresholds="quantile")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X.iloc[:200], y[:200])          # kernels compiled outside the measure
        tracemalloc.start()
        try:
            est.fit(X, y)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    whole = n * len(est.binarizer_.conditions_)
    assert whole >= 60_000 * 100
    assert peak < whole, (peak, whole)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["corels", "frl"])
def test_the_packed_folding_fits_the_model_the_boolean_folding_fits(name, monkeypatch):
    """Small data are folded from the boolean matrix, large from packed bytes
    (``PACKED_FOLD_CELLS``): forcing either on the same data gives the same model and
    certificate."""
    from rulekit.datasets import load_compas
    X, y = load_compas(return_X_y=True)
    fits = []
    for cells in (1 << 40, 0):
        monkeypatch.setattr(base_module, "PACKED_FOLD_CELLS", cells)
        est = LEARNERS[name].make().fit(X, y)
        fits.append((str(est), str(est.certificate_)))
    assert fits[0] == fits[1]
