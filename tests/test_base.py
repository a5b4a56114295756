"""The estimator contract, exercised through a deliberately tiny learner."""

import numpy as np
import pandas as pd
import pytest

from helpers import sklearn_checks
from rulekit._params import Integer, pick
from rulekit._fitdata import FitOutcome
from rulekit.base import RuleClassifierBase
from rulekit.binarize import ESTIMATOR_PARAMETERS, Binarizer, DataWarning
from rulekit.certificate import Certificate
from rulekit.mining import MINING_PARAMETERS
from rulekit.models import RuleList


class OneRule(RuleClassifierBase):
    """Test learner: greedy sequential covering, at most ``max_rules`` rules.

    Each step adds the antecedent whose captured remaining samples are most
    often of one class (ties: larger capture); stops when nothing improves.
    """

    _rulekit_parameters = {
        **pick(MINING_PARAMETERS, "min_support", "max_card"),
        **pick(Binarizer._rulekit_parameters, *ESTIMATOR_PARAMETERS),
        "max_rules": Integer(0),
    }
    _learner = "onerule"

    def __init__(self, min_support=0.1, max_card=1, n_thresholds=9, categorical_features=None,
                 min_frequency=0.01, max_categories=None, handle_unknown="warn",
                 thresholds="quantile", max_rules=8):
        self.min_support = min_support
        self.max_card = max_card
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.thresholds = thresholds
        self.max_rules = max_rules

    def _solve(self, data):
        A, y, antecedents, params = data.A, data.y, data.antecedents, data.params
        k = len(data.classes)
        free = np.ones(len(y), dtype=bool)
        items, labels = [], []
        for _ in range(params["max_rules"]):
            rest = np.bincount(y[free], minlength=k)
            best, choice = rest.max(), None
            for m in range(A.shape[1]):
                hit = free & A[:, m]
                if not hit.any() or hit.sum() == free.sum():
                    continue
                right = np.bincount(y[hit], minlength=k).max() + np.bincount(y[free & ~hit], minlength=k).max()
                if right > best:
                    best, choice = right, m
            if choice is None:
                break
            hit = free & A[:, choice]
            items.append(antecedents.items[choice])
            labels.append(int(np.bincount(y[hit], minlength=k).argmax()))
            free &= ~hit
        default = int(np.bincount(y[free], minlength=k).argmax()) if free.any() else 0
        model = self._rule_list(data, items, labels, default)
        errors = sum(sum(r.counts) - max(r.counts) for r in [*model.rules, model.default])
        certificate = Certificate("heuristic", errors / len(y), None,
                                  "greedy covering; objective = training error")
        return FitOutcome(model, certificate, data.binarizer)


@sklearn_checks(OneRule())
def test_sklearn_compatible(estimator, check):
    check(estimator)


def frame():
    return pd.DataFrame({
        "age": [22, 25, 31, 45, 52, 60, 23, 35, 41, 70],
        "sex": ["M", "F", "M", "F", "M", "F", "M", "M", "F", "F"],
    })


def test_fit_sets_the_fitted_attributes_and_prints_the_model():
    X, y = frame(), np.array(["yes", "yes", "no", "no", "no", "no", "yes", "no", "no", "no"])
    est = OneRule().fit(X, y)
    assert list(est.classes_) == ["no", "yes"]
    assert list(est.feature_names_in_) == ["age", "sex"]
    assert est.n_features_in_ == 2
    assert isinstance(est.model_, RuleList)
    assert str(est) == str(est.model_) and str(est).startswith("if age <= 25 then yes")
    assert len(est.model_) == 1
    assert est.score(X, y) == 1.0
    assert est.predict_proba(X).shape == (10, 2)
    # counts are recomputed from the training data by capture
    assert est.model_.rules[0].counts == (0, 3)


@pytest.mark.parametrize("labels", [[0, 1], [True, False], ["a", "b"], [-3, 8]])
def test_any_two_labels(labels):
    y = np.array([labels[i % 2] for i in range(10)])
    est = OneRule().fit(frame(), y)
    assert set(est.predict(frame())) <= set(labels)
    assert est.predict(frame()).dtype == y.dtype


def test_binary_only_learners_refuse_more_classes():
    class Binary(OneRule):
        _multiclass = False

    with pytest.raises(ValueError, match="binary classifier but y has 3 classes"):
        Binary().fit(frame(), [0, 1, 2] * 3 + [0])
    OneRule().fit(frame(), [0, 1, 2] * 3 + [0])


@pytest.mark.parametrize("X,y,match", [
    (pd.DataFrame({"a": []}), [], "0 sample"),
    (pd.DataFrame({"a": [1]}), [1], "one class"),
    (pd.DataFrame({"a": [1, 2, 3]}), [1, 1, 1], "only one class"),
    (pd.DataFrame({"a": [1, 2, 3]}), [1, np.nan, 0], "NaN"),
    (pd.DataFrame({"a": [1, 2, 3]}), [1, 0], "inconsistent numbers of samples"),
    (pd.DataFrame({"a": [1.0, np.inf, 3.0]}), [1, 0, 1], "'a'.*infinite"),
    (np.array([[1.0], [np.inf], [3.0]]), [1, 0, 1], "column 'x0' contains infinite values"),
    (pd.DataFrame({"a": [1, "x", 3]}, dtype=object), [1, 0, 1], "'a'.*mixes numbers and text"),
])
def test_bad_input_is_a_clear_error(X, y, match):
    with pytest.raises(ValueError, match=match):
        OneRule().fit(X, y)


@pytest.mark.parametrize("params,error,match", [
    ({"min_support": 0}, ValueError, "'min_support' must be a finite number in \\(0, 1\\]"),
    ({"min_support": 1.5}, ValueError, "min_support"),
    ({"min_support": "high"}, TypeError, "min_support.*got 'high' \\(str\\)"),
    ({"max_card": 0}, ValueError, "OneRule: parameter 'max_card' must be an integer >= 1"),
    ({"max_card": 2.5}, TypeError, "max_card"),
    ({"max_card": True}, TypeError, "max_card"),
])
def test_bad_parameters(params, error, match):
    with pytest.raises(error, match=match):
        OneRule(**params).fit(frame(), [0, 1] * 5)


def test_predict_checks_columns():
    est = OneRule().fit(frame(), [0, 1] * 5)
    with pytest.raises(ValueError, match="'sex'"):
        est.predict(frame()[["age"]])
    with pytest.raises(ValueError, match="features"):
        OneRule().fit(np.zeros((4, 2)) + np.arange(4)[:, None], [0, 1, 0, 1]).predict(np.zeros((2, 3)))


def test_unknown_category_at_predict_time_falls_to_other_rules():
    X = pd.DataFrame({"c": ["a", "a", "b", "b", "c", "c"]})
    est = OneRule().fit(X, [1, 1, 0, 0, 0, 0])
    with pytest.warns(DataWarning, match="column 'c'.*zzz"):
        assert est.predict(pd.DataFrame({"c": ["zzz"]})).tolist() == [0]


# -- issue 36, item 14: our own messages where scikit-learn's were generic ----------------

def test_infinity_with_the_corels_defaults_names_the_column():
    # CORELS's default thresholds come from a reference model, which refused infinity
    # first, in scikit-learn's words ("Input X contains infinity ... float32")
    from rulekit import CorelsClassifier

    X = frame().assign(age=lambda f: f["age"].where(f.index != 4, -np.inf))
    with pytest.raises(ValueError, match=r"column 'age' contains infinite values \(-inf in row "
                                         r"4\); replace them"):
        CorelsClassifier().fit(X, [0, 1] * 5)
    with pytest.raises(ValueError, match="column 'x0' contains infinite values"):
        CorelsClassifier().fit(X[["age"]].to_numpy(), [0, 1] * 5)


def test_infinity_at_predict_time_names_the_column():
    est = OneRule().fit(frame(), [0, 1] * 5)
    with pytest.raises(ValueError, match="column 'age' contains infinite values.*replace them"):
        est.predict(frame().assign(age=np.inf))


@pytest.mark.parametrize("y,match", [
    ([0.5, 1.5] * 5, r"y holds numbers that are not whole \(0.5, 1.5\): a continuous target"),
    ([0.0, 1.0, 2.5, 1.0, 0.0] * 2, r"not whole \(2.5\)"),
    ([0.0, 1.0, np.inf, 1.0, 0.0] * 2, r"not whole \(inf\)"),
    (np.array([1, 2.5] * 5, dtype=object), r"y mixes labels of different kinds: 1 \(int\), "
                                           r"2.5 \(float\); convert them"),
    (np.array([1, 2.0] * 5, dtype=object), "y mixes labels of different kinds"),
    (np.array([1, "a"] * 5, dtype=object), r"mixes labels of different kinds: 1 \(int\), 'a'"),
    (pd.Series([True, 1] * 5, dtype=object), "mixes labels of different kinds"),
])
def test_labels_a_classifier_cannot_take_get_our_message(y, match):
    with pytest.raises(ValueError, match=match):
        OneRule().fit(frame(), y)


def test_whole_number_float_labels_are_classes():
    # chosen: 0.0 and 1.0 are classes, as in scikit-learn (integer labels read with pandas
    # come back as floats once a column had a missing value)
    est = OneRule().fit(frame(), [0.0, 1.0] * 5)
    assert est.classes_.tolist() == [0.0, 1.0]
    assert set(est.predict(frame()).tolist()) <= {0.0, 1.0}


def test_text_labels_are_grouped_as_numpy_unique_groups_them():
    """Labels in an object array are grouped by hashing, then only the distinct values
    sorted (``base._unique_labels``): the classes and codes are numpy.unique's, for text,
    numbers and booleans held as objects, and a fit on text labels names its classes
    in numpy's order."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from rulekit.base import _unique_labels

    kinds = [st.text(max_size=4), st.integers(-3, 3), st.booleans(),
             st.integers(-3, 3).map(float)]

    @given(st.one_of(*[st.lists(k, min_size=1, max_size=40) for k in kinds]))
    @settings(max_examples=80, deadline=None)
    def same(values):
        y = np.empty(len(values), dtype=object)
        y[:] = values
        classes, codes = _unique_labels(y)
        want_classes, want_codes = np.unique(y, return_inverse=True)
        assert classes.tolist() == want_classes.tolist()
        assert [type(c) for c in classes] == [type(c) for c in want_classes]
        assert np.array_equal(codes, want_codes.reshape(-1))

    same()
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 5, 300)})
    y = pd.Series(np.where(X["a"] > 2, "yes", "no")).astype(object)
    from rulekit import CorelsClassifier
    est = CorelsClassifier(c=0.01).fit(X, y)
    assert est.classes_.tolist() == ["no", "yes"]
    assert (est.predict(X) == y).mean() == 1.0
