"""The search's event log (``trace="events"``): its counts are the engine's counters."""

import collections
import warnings

import numpy as np
import pytest
from helpers import seeds

from rulekit import CorelsClassifier, datasets
from rulekit.corels import _search, search

_TIMES = ("time_to_best", "total_time", "cpu_time", "memory_mb")


def _instance(seed, n=240, m=18):
    rng = np.random.default_rng(seed)
    A = rng.random((n, m)) < rng.uniform(0.1, 0.5, m)
    y = ((A[:, 0] & ~A[:, 1]) | A[:, 2] ^ (rng.random(n) < 0.25)).astype(int)
    if seed % 3 == 2:
        y = y + (A[:, 3] & (rng.random(n) < 0.5))  # three classes
    return A, y


def _check_log(res):
    ev = res.events
    kinds = ev["kind"]
    assert ev["truncated"] == 0
    pruned = collections.Counter(ev["reason"][kinds == "prune"].tolist())
    assert {k: pruned.get(k, 0) for k in res.stats["pruned"]} == res.stats["pruned"]
    assert int((kinds == "expand").sum()) == res.stats["nodes_expanded"]
    assert int((kinds == "best").sum()) == res.stats["best_updates"] + 1  # + the empty list
    assert np.array_equal(ev["expanded"], np.cumsum(kinds == "expand"))
    last = np.flatnonzero(kinds == "best")[-1]
    assert ev["prefix"][last] == res.prefix
    assert ev["value"][last] == pytest.approx(res.objective, abs=1e-12)
    # the incumbent never rises; every expanded prefix's bound is below the best at the end
    best = ev["value"][kinds == "best"]
    assert np.all(np.diff(best) <= 1e-12)  # ties: a lexicographically lower list
    assert np.all(ev["value"][kinds == "expand"] <= best[0] + 1e-12)


@pytest.mark.parametrize("seed", seeds(6, fast=3))  # 2: three classes
@pytest.mark.parametrize("opts", [
    dict(c=0.01), dict(c=0.03, symmetry="capture"), dict(c=0.05, symmetry="none", policy="bfs"),
    dict(c=0.02, bounds=["hierarchical", "min_support", "rejection_propagation"]),
    dict(c=0.01, policy="curious")])
def test_log_counts_are_the_engines(seed, opts):
    A, y = _instance(seed)
    res = search(A, y, trace="events", **opts)
    plain = search(A, y, **opts)
    assert plain.events is None
    # recording changes nothing in the search
    assert res.prefix == plain.prefix and res.objective == plain.objective
    assert {k: v for k, v in res.stats.items() if k not in _TIMES} == \
        {k: v for k, v in plain.stats.items() if k not in _TIMES}
    _check_log(res)


def test_reference_and_support_prunes_are_logged():
    A, y = _instance(7, n=400, m=24)
    rng = np.random.default_rng(7)
    A[:, 16:] = rng.random((400, 8)) < 0.03  # rare antecedents: the support bounds prune them
    ref = (A[:, 2] | A[:, 0]).astype(int)
    res = search(A, y, 0.02, reference=ref, trace="events")
    _check_log(res)
    assert res.stats["pruned"]["min_support"] > 0


def test_full_log_is_counted_as_truncated(monkeypatch):
    A, y = _instance(1)
    monkeypatch.setattr(_search, "EVENT_CAP", 50)
    res = search(A, y, 0.004, trace="events")
    assert len(res.events["kind"]) == 51 and res.events["cap"] == 50
    assert res.events["truncated"] == sum(res.stats["pruned"].values()) + \
        res.stats["nodes_expanded"] + res.stats["best_updates"] - 50


def test_trivial_search_has_a_log():
    res = search(np.ones((5, 2), bool), [0, 0, 0, 1, 1], 0.5, trace="events")
    assert res.events["kind"].tolist() == ["best"] and res.events["prefix"] == [()]


def test_trace_is_validated():
    with pytest.raises(ValueError, match="trace"):
        search(np.ones((5, 2), bool), [0, 0, 0, 1, 1], 0.01, trace="all")
    with pytest.raises(ValueError, match="trace"):
        CorelsClassifier(trace="yes").fit(np.eye(4), [0, 1, 0, 1])


@pytest.fixture(scope="module")
def compas():
    return datasets.load_compas(return_X_y=True)


def test_estimator_records_a_small_compas_fit(compas):
    X, y = compas
    est = CorelsClassifier(c=0.01, max_card=1, n_thresholds=4, thresholds="quantile",
                           trace="events").fit(X, y)
    assert est.get_params()["trace"] == "events"
    _check_log(est.result_)
    plain = CorelsClassifier(c=0.01, max_card=1, n_thresholds=4, thresholds="quantile").fit(X, y)
    assert plain.result_.events is None and plain.get_params()["trace"] is None


def test_auto_records_the_chosen_search(compas):
    X, y = compas
    X, y = X[:600], y[:600]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # the recorded search repeats the chosen
        est = CorelsClassifier(max_card=1, n_thresholds=3, thresholds="quantile",
                               trace="events").fit(X, y)
    chosen = est.selection_.chosen.result
    assert est.result_.status == chosen.status
    assert est.c_ == chosen.c and est.result_.prefix == chosen.prefix
    assert est.result_.objective == chosen.objective
    assert {k: v for k, v in est.stats_.items() if k not in _TIMES} == \
        {k: v for k, v in chosen.stats.items() if k not in _TIMES}
    _check_log(est.result_)
    items = est.result_.events["prefix"]
    assert all(a < len(est.antecedents_.items) for p in items for a in p)


def test_constrained_fit_has_no_log(compas):
    X, y = compas
    with pytest.raises(ValueError, match="no event log"):
        CorelsClassifier(c=0.01, max_card=1, n_thresholds=3, forbidden=["sex"],
                         trace="events").fit(X, y)


def test_one_table_maps_every_bound_to_its_slots():
    """Each pruning rule has one switch, one counter and one reason code, all distinct."""
    from rulekit.corels import BOUNDS, _kernels as kr
    from rulekit.corels._bounds import BOUND_TABLE, PRUNE_COUNTERS, PRUNE_REASONS, switches

    names = [b.name for b in BOUND_TABLE]
    assert len(names) == len(set(names))
    counters = [b.counter for b in BOUND_TABLE]
    assert len(counters) == len(set(counters)) and all(0 <= c < kr.N_S for c in counters)
    slots = [b.switch for b in BOUND_TABLE if b.switch is not None]
    assert len(slots) == len(set(slots)) and all(0 <= s < kr.N_G for s in slots)
    # every name a caller may switch has a switch, and the event log can name every counter
    assert BOUNDS <= {b.name for b in BOUND_TABLE if b.switch is not None}
    assert set(PRUNE_REASONS) == set(counters) and set(PRUNE_COUNTERS) == set(names)
    assert set(switches(BOUNDS).values()) == {1} and set(switches(set()).values()) == {0}
    assert len(switches(BOUNDS)) == len(BOUNDS)
