"""The falling lists' defaults on the direction and on small data (issue 37 item 6).

With no ``pos_label`` (and ``w=1``) the fit keeps the later class falling
unless the earlier one, searched a tenth as long, already fits better; with
``max_card="auto"`` fewer than 200 training rows get single conditions only.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rulekit.estimators.frl as frl_module
from rulekit.frl import FallingRuleListClassifier, SoftFallingRuleListClassifier
from rulekit.estimators.frl import SMALL_DATA_ROWS

LEARNERS = [FallingRuleListClassifier, SoftFallingRuleListClassifier]


def _one_group_says_no(n=600, seed=0, flip=0.04):
    """A survey where most say "yes": "no" is one shop (k) of eleven.

    Three big shops and eight small ones, each small one under
    ``min_support`` within "yes": with "yes" falling no rule can pick out
    shop k (no condition says "not k"), so the list says "yes" to everyone;
    with "no" falling one rule does."""
    rng = np.random.default_rng(seed)
    share = np.r_[[0.2] * 3, [0.05] * 8]
    X = pd.DataFrame({"shop": rng.choice(list("abcdefghijk"), n, p=share),
                      "member": rng.integers(0, 2, n)})
    no = (X["shop"] == "k").to_numpy() ^ (rng.random(n) < flip)
    return X, np.where(no, "no", "yes")


def _first_rule_predictions(est, X):
    """Each row's prediction read off the printed rules: the first whose
    conditions all hold, else the default."""
    B = est.binarizer_.transform(X)
    out = []
    for row in B:
        for rule in est.model_.rules:
            if all(row[j] for j in rule.conditions):
                out.append(rule.prediction)
                break
        else:
            out.append(est.model_.default.prediction)
    return np.asarray(out)


@pytest.mark.parametrize("cls", LEARNERS)
def test_default_lets_the_class_fall_that_needs_fewer_rules(cls):
    X, y = _one_group_says_no()
    assert np.mean(y == "yes") > 0.8                       # the later label is the majority
    est = cls().fit(X, y)
    today = cls(pos_label="yes").fit(X, y)                # the default before
    assert today.positive_class_ == "yes" and set(today.predict(X)) == {"yes"}
    # the earlier class falls: its short search beat "yes"'s full one by > ln(n) rows
    assert est.positive_class_ == "no" and est.model_.positive == "no"
    objectives = est.direction_objectives_
    assert set(objectives) == {"yes", "no"}
    assert (objectives["yes"] - objectives["no"]) * len(y) > np.log(len(y))
    assert objectives["yes"] == today.certificate_.objective
    assert len(est.model_) == 1
    assert est.certificate_.objective < today.certificate_.objective
    # its short search already found the list a full search with "no" falling finds
    assert est.model_ == cls(pos_label="no").fit(X, y).model_
    # truthful printing: it names "no" as the falling class, and the printed rules predict
    text = str(est)
    assert text.splitlines()[0] == "positive class: no" and "p(no) = " in text
    assert "'no'" in est.certificate_.scope and "chosen" in est.certificate_.scope
    assert np.array_equal(_first_rule_predictions(est, X), est.predict(X))
    shown = est.model_.rule_probabilities()[:, list(est.classes_).index("no")]
    assert np.all(np.diff(shown) <= 0)                      # "no"'s probability falls
    # the one group: shop k is said "no", everyone else "yes"
    assert np.array_equal(est.predict(X) == "no", (X["shop"] == "k").to_numpy())


@pytest.mark.parametrize("cls", LEARNERS)
def test_a_minority_later_class_falls_as_before(cls):
    # the same data with the labels' names swapped: the one group is now the later
    # label, and the minority: no short search runs, the fit is the one of before
    X, y = _one_group_says_no()
    y = np.where(y == "no", "z-yes", "a-no")
    est = cls().fit(X, y)
    explicit = cls(pos_label="z-yes").fit(X, y)
    assert est.positive_class_ == "z-yes" and len(est.model_) == 1
    assert est.model_ == explicit.model_
    assert est.certificate_.objective == explicit.certificate_.objective
    assert est.direction_objectives_ is None
    assert "kept" not in est.certificate_.scope and "chosen" not in est.certificate_.scope


@pytest.mark.parametrize("cls", LEARNERS)
def test_a_majority_later_class_that_fits_well_is_kept(cls):
    X, y = _rows(600, 5, 1.5)
    assert np.mean(y == "normal") > 0.5                    # the later label, the majority
    est = cls().fit(X, y)
    explicit = cls(pos_label="normal").fit(X, y)
    assert est.positive_class_ == "normal" and est.model_ == explicit.model_
    objectives = est.direction_objectives_
    assert objectives["normal"] == explicit.certificate_.objective
    assert objectives["low"] * len(y) > objectives["normal"] * len(y) - np.log(len(y))
    assert "kept" in est.certificate_.scope


def _count_searches(monkeypatch):
    calls = []
    real = frl_module.search

    def counting(A, y, **kw):
        # the search holds distinct rows, each weighted by its rows: keep the
        # positive rows it stands for
        weight = kw["sample_weight"]
        y = np.asarray(y, dtype=bool)
        calls.append((y.sum() if weight is None else weight[y].sum(), kw["n_iter"]))
        return real(A, y, **kw)

    monkeypatch.setattr(frl_module, "search", counting)
    return calls


@pytest.mark.parametrize("kwargs, falls", [({"pos_label": "yes"}, "yes"),
                                           ({"pos_label": "no"}, "no"),
                                           ({"w": 2.0}, "yes"), ({"w": "balanced"}, "yes")])
def test_a_given_direction_runs_one_search_as_before(monkeypatch, kwargs, falls):
    X, y = _one_group_says_no()
    calls = _count_searches(monkeypatch)
    est = FallingRuleListClassifier(n_iter=400, **kwargs).fit(X, y)
    assert est.C_ == 1e-6 and est.max_card_ == 2       # 600 rows: as before
    assert len(calls) == 1
    n_pos, n_iter = calls[0]
    assert n_iter == 400 and n_pos == np.sum(y == falls)
    assert est.positive_class_ == falls and est.direction_objectives_ is None
    assert "chosen" not in est.certificate_.scope and "kept" not in est.certificate_.scope


def test_the_direction_costs_one_short_search_when_kept(monkeypatch):
    X, y = _rows(600, 5, 1.5)
    calls = _count_searches(monkeypatch)
    est = FallingRuleListClassifier(n_iter=400).fit(X, y)
    assert est.positive_class_ == "normal"
    assert [n for _, n in calls] == [400, 40]
    assert calls[0][0] == np.sum(y == "normal") and calls[1][0] == np.sum(y == "low")


def test_a_minority_later_class_costs_no_short_search(monkeypatch):
    X, y = _one_group_says_no()
    y = np.where(y == "no", "z-yes", "a-no")
    calls = _count_searches(monkeypatch)
    FallingRuleListClassifier(n_iter=400).fit(X, y)
    assert [n for _, n in calls] == [400]


def test_a_flip_costs_one_short_search_too(monkeypatch):
    # no second full search for the earlier class: the fit stays n_iter plus a tenth
    X, y = _one_group_says_no()
    calls = _count_searches(monkeypatch)
    est = FallingRuleListClassifier(n_iter=400).fit(X, y)
    assert est.positive_class_ == "no" and [n for _, n in calls] == [400, 40]
    assert est.result_.n_iter_done <= 40


def test_a_callback_stopping_the_short_search_keeps_the_full_list_and_says_so():
    X, y = _one_group_says_no()
    seen = []

    def stop_in_the_second_search(state):
        if state.depth >= 1 and state.search_id not in seen:
            seen.append(state.search_id)
        return len(seen) >= 2

    with pytest.warns(Warning) as record:
        est = FallingRuleListClassifier(callback=stop_in_the_second_search).fit(X, y)
    assert est.certificate_.status == "interrupted" and est.positive_class_ == "yes"
    assert sum("interrupted" in str(r.message) or "stopped" in str(r.message)
               for r in record) >= 1
    full = FallingRuleListClassifier(pos_label="yes").fit(X, y)
    assert est.model_ == full.model_


def _rows(n, seed, signal):
    """Four numeric columns; the label's log-odds ``signal * (x0 + x1)``."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=[f"x{j}" for j in range(4)])
    logit = -0.7 + signal * (X["x0"] + X["x1"]).to_numpy()
    return X, np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "low", "normal")


@pytest.mark.parametrize("signal", [0.0, 1.5])
def test_small_data_lists_are_shorter_and_generalise_better(signal):
    # 150 training rows: before, pairs at C=1e-6 kept every rule that fixed a row
    X, y = _rows(150, 1, signal)
    Xt, yt = _rows(4000, 2, signal)
    auto = FallingRuleListClassifier().fit(X, y)
    before = FallingRuleListClassifier(max_card=2, C=1e-6).fit(X, y)
    assert auto.max_card_ == 1 and auto.C_ == pytest.approx(np.log(150) / 150)
    assert all(len(r.conditions) == 1 for r in auto.model_.rules)
    # every rule fixes more than ln(n) training rows: dropping any costs more than C_
    assert len(auto.model_) < len(before.model_)
    gap, test = {}, {}
    for name, est in (("auto", auto), ("before", before)):
        test[name] = np.mean(est.predict(Xt) == yt)
        gap[name] = np.mean(est.predict(X) == y) - test[name]
    assert gap["auto"] < gap["before"] and test["auto"] > test["before"]
    if signal:
        assert len(auto.model_) >= 1 and test["auto"] > max(np.mean(yt == "low"),
                                                              np.mean(yt == "normal"))


def test_auto_defaults_switch_at_the_training_rows():
    X, y = _rows(SMALL_DATA_ROWS, 3, 1.0)
    at = FallingRuleListClassifier(n_iter=50).fit(X, y)
    assert at.max_card_ == 2 and at.C_ == 1e-6
    below = FallingRuleListClassifier(n_iter=50).fit(X[1:], y[1:])
    n = SMALL_DATA_ROWS - 1
    assert below.max_card_ == 1 and below.C_ == pytest.approx(np.log(n) / n)
    assert f"{below.C_:g} x rules" in below.certificate_.scope
    # rows are the total weight: 100 rows counted twice are 200 rows
    half = slice(0, SMALL_DATA_ROWS // 2)
    twice = FallingRuleListClassifier(n_iter=50).fit(
        X[half], y[half], sample_weight=np.full(SMALL_DATA_ROWS // 2, 2))
    assert twice.max_card_ == 2 and twice.C_ == 1e-6
    given = FallingRuleListClassifier(n_iter=50, max_card=2, C=0.01).fit(X[1:], y[1:])
    assert given.max_card_ == 2 and given.C_ == 0.01
    for name in ("max_card", "C"):
        with pytest.raises((ValueError, TypeError), match=name):
            FallingRuleListClassifier(**{name: "many"}).fit(X, y)
