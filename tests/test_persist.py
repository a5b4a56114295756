"""Saved models predict on raw data exactly as the estimator that fitted them."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     Predictor, SoftFallingRuleListClassifier)
from rulekit.binarize import DataWarning


def raw_frame(n, seed):
    """Mixed raw data: numbers with missing values, rare and common categories, dates."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 80, n).astype(float),
        "job": rng.choice(["clerk", "nurse", "pilot", "chef", "mime"], n, p=[.35, .3, .3, .04, .01]),
        "priors": rng.poisson(1.5, n),
        "seen": pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 700, n), unit="D"),
    })
    X.loc[rng.random(n) < 0.1, "age"] = np.nan
    X.loc[rng.random(n) < 0.05, "job"] = None
    return X


def labels(X, seed, classes=("no", "yes")):
    rng = np.random.default_rng(seed + 100)
    score = (X["age"].fillna(50) < 35).astype(int) + (X["priors"] > 2) + (X["job"] == "pilot")
    if len(classes) == 2:
        y = np.where(score + (rng.random(len(X)) < 0.15) >= 1.5, classes[1], classes[0])
    else:
        y = np.asarray(classes)[np.minimum(score.to_numpy(), len(classes) - 1)]
    return y


LEARNERS = [
    CorelsClassifier(c=0.02, max_card=1),
    FallingRuleListClassifier(n_iter=200, max_card=1, random_state=0),
    SoftFallingRuleListClassifier(n_iter=200, max_card=1, random_state=0),
    BooleanRuleCGClassifier(max_complexity=8, time_limit=30),
]


def new_rows():
    """Rows the model never saw: missing values everywhere, an unseen job."""
    X = raw_frame(80, seed=7)
    X.loc[:9, "job"] = "astronaut"
    X.loc[10:14, ["age", "seen"]] = [np.nan, pd.NaT]
    return X


# column generation's case takes about 10 CPU s (the slow lane)
@pytest.mark.parametrize("est", [*LEARNERS[:-1], pytest.param(LEARNERS[-1], marks=pytest.mark.slow)],
                         ids=lambda e: type(e).__name__)
def test_saved_model_predicts_raw_data_like_the_estimator(est, tmp_path):
    X = raw_frame(300, seed=1)
    est.fit(X, labels(X, 1))
    path = est.save(tmp_path / "model.json")
    loaded = rulekit.load(path)
    assert isinstance(loaded, Predictor)
    new = new_rows()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        assert np.array_equal(loaded.predict(new), est.predict(new))
        assert np.array_equal(loaded.predict_proba(new), est.predict_proba(new))
    assert str(loaded) == str(est)
    assert loaded.certificate == est.certificate_
    assert list(loaded.classes_) == list(est.classes_)
    payload = json.loads(path.read_text())
    assert payload["estimator"] == type(est).__name__
    assert payload["params"]["min_frequency"] == 0.01


def test_multiclass_rule_sets_round_trip(tmp_path):
    X = raw_frame(240, seed=2)
    est = BooleanRuleCGClassifier(max_complexity=6, time_limit=30).fit(X, labels(X, 2, ("a", "b", "c")))
    loaded = rulekit.load(est.save(tmp_path / "m.json"))
    new = new_rows()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        assert np.array_equal(loaded.predict(new), est.predict(new))
        assert np.array_equal(loaded.predict_proba(new), est.predict_proba(new))


def test_binarizer_state_is_in_the_json(tmp_path):
    X = raw_frame(400, seed=3)
    est = CorelsClassifier(c=0.02, max_card=1, handle_unknown="error",
                           min_frequency=0.05).fit(X, labels(X, 3))
    payload = json.loads(est.save(tmp_path / "m.json").read_text())
    state = payload["binarizer"]
    assert state["params"]["handle_unknown"] == "error"
    job = next(c for c in state["columns"] if c["name"] == "job")
    assert sorted(job["infrequent"]) == ["chef", "mime"]
    assert {c["name"] for c in state["columns"]} >= {"age", "year(seen)", "month(seen)"}
    ages = next(c for c in state["columns"] if c["name"] == "age")
    assert ages["values"] == sorted(ages["values"]) and ages["has_missing"]
    loaded = rulekit.load(tmp_path / "m.json")
    with pytest.raises(ValueError, match="column 'job'.*astronaut"):
        loaded.predict(new_rows())


def test_schema_1_files_of_rulekit_fit_still_load(tmp_path):
    X = raw_frame(300, seed=4).drop(columns="seen")
    est = CorelsClassifier(c=0.02, max_card=1, handle_unknown="ignore").fit(X, labels(X, 4))
    old = {"format": "rulekit-model", "rulekit_version": "0.1.0", "estimator": "CorelsClassifier",
           "target": "y", "feature_names": list(X.columns), "model": est.model_.to_dict()}
    (tmp_path / "old.json").write_text(json.dumps(old))
    loaded = rulekit.load(tmp_path / "old.json")
    new = new_rows().drop(columns="seen")
    assert np.array_equal(loaded.predict(new), est.predict(new))
    assert loaded.metadata == {"target": "y"}


def test_load_rejects_what_is_not_a_model(tmp_path):
    (tmp_path / "a.json").write_text('{"hello": 1}')
    (tmp_path / "b.json").write_text("not json")
    (tmp_path / "c.json").write_text('{"format": "rulekit-model", "schema": 99, "model": {}}')
    with pytest.raises(ValueError, match="not a model saved by"):
        rulekit.load(tmp_path / "a.json")
    with pytest.raises(ValueError, match="not JSON"):
        rulekit.load(tmp_path / "b.json")
    with pytest.raises(ValueError, match="schema 99.*upgrade"):
        rulekit.load(tmp_path / "c.json")
    with pytest.raises(FileNotFoundError):
        rulekit.load(tmp_path / "none.json")


def test_saving_an_unfitted_estimator_is_a_clear_error(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        CorelsClassifier().save(tmp_path / "m.json")


def test_predictor_refuses_a_binarizer_that_does_not_match():
    X = raw_frame(200, seed=5)
    est = CorelsClassifier(c=0.02, max_card=1).fit(X, labels(X, 5))
    other = rulekit.Binarizer(n_thresholds=2).fit(X)
    with pytest.raises(ValueError, match="conditions differ"):
        Predictor(est.model_, other)
