"""Issue 36, item 11: wide noise within ``time_limit`` and the memory budget.

The audit's shapes: on 50 rows x 10,000 numeric columns FRL and softFRL
tried to allocate 121 GiB (every pair count of 180,000 conditions at once)
and column generation 30 GiB (its condition x condition matrix); on 50 rows
x 2,000 categorical columns with ``time_limit=10`` FRL took 18-19 CPU s and
3.7 GB; ``rulekit fit --time-limit 5`` on 60 x 20,000 columns took 43 s.
Binarization and mining now check the run's deadline, pair counting works
in bounded blocks, and every engine checks what it is about to allocate
against the budget (``max_memory``, or the default for learners without it).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

import rulekit._anytime as anytime
from rulekit import Binarizer, FallingRuleListClassifier, mine_antecedents
from rulekit import mining
from rulekit._anytime import Anytime
from rulekit.colgen import _beam, _enum

ROOT = Path(__file__).resolve().parents[1]


def _mixed_frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "num": rng.normal(size=n),
        "few": rng.integers(0, 4, n).astype(float),
        "cat": rng.choice(["a", "b", "c", "d"], n),
        "flag": rng.integers(0, 2, n).astype(bool),
        "when": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), "D"),
        "one_or_missing": np.where(rng.random(n) < 0.3, np.nan, 5.0),
    })
    X.loc[rng.random(n) < 0.1, "num"] = np.nan
    X.loc[rng.random(n) < 0.1, "cat"] = None
    y = rng.integers(0, 2, n)
    return X, y


# --- binarization under the run's deadline ---------------------------------------------

@pytest.mark.parametrize("negations", [False, True])
def test_fit_transform_is_fit_then_transform(negations):
    X, y = _mixed_frame()
    w = np.random.default_rng(1).uniform(0.5, 2, len(y))
    one = Binarizer(negations=negations).fit_transform(X, y, sample_weight=w)
    two = Binarizer(negations=negations).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(one, two.transform(X))
    assert one.dtype == bool and one.shape[1] == len(two.conditions_) > 10


def test_binarization_stops_at_the_deadline_of_the_run_around_it():
    X, y = _mixed_frame()
    with Anytime("test", time_limit=0.0):
        binz = Binarizer()
        B = binz.fit_transform(X, y)
    # past the deadline no column gives a condition, and the binarizer still transforms
    assert B.shape == (len(y), 0) and binz.conditions_ == []
    assert binz.transform(X).shape == (len(y), 0)
    # outside a run nothing is cut
    assert Binarizer().fit_transform(X, y).shape[1] > 0


def test_a_fit_cut_short_by_its_time_limit_proves_nothing():
    X, y = _mixed_frame()
    with pytest.warns(ConvergenceWarning, match="time_limit"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "no antecedent reaches", UserWarning)
        est = FallingRuleListClassifier(time_limit=1e-9).fit(X, y)
    cert = est.certificate_
    assert cert.status == "time_limit" and not cert.proved_optimal
    assert cert.lower_bound is not None and 0 <= cert.lower_bound <= cert.objective
    assert est.predict(X).shape == (len(y),)


def test_past_the_limit_a_fit_makes_no_pass_that_nothing_would_search(monkeypatch):
    """A time_limit covers the whole fit. Once it has passed (here, at once), the rest of
    the preparation is thrown away (the search stops at once with the constant model), so
    CORELS neither draws its validation splits nor reads every row's categories for the
    reference ensemble: on ten million rows in memory with time_limit=5, those two took the
    fit to 16 s. Without a limit, the same fit does both (so the test can tell)."""
    from rulekit import CorelsClassifier
    from rulekit import _columns
    from rulekit.estimators import corels as corels_estimator

    calls = []
    draw, weigh = corels_estimator.cv_splits, _columns.category_weights
    monkeypatch.setattr(corels_estimator, "cv_splits",
                        lambda *a, **k: calls.append("splits") or draw(*a, **k))
    monkeypatch.setattr(_columns, "category_weights",
                        lambda *a, **k: calls.append("categories") or weigh(*a, **k))
    X, y = _mixed_frame(n=200)
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        est = CorelsClassifier(time_limit=1e-9).fit(X, y)
    assert calls == []
    assert est.certificate_.status == "time_limit"
    assert est.predict(X).shape == (len(y),)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CorelsClassifier().fit(X, y)
    assert "splits" in calls and "categories" in calls


def test_choosing_thresholds_keeps_time_for_what_follows_it(monkeypatch):
    """Under a time limit, the binarizer's column loop stops once twice its own time so far
    no longer fits in the time left (encoding, grouping, mining and the search's set-up
    come after it), not at the deadline itself: the columns left give no condition and
    the run records the cut.  Without a limit every column gives its conditions."""
    import time

    from rulekit import binarize

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 20)), columns=[f"x{j}" for j in range(20)])
    y = rng.integers(0, 2, 40)
    fit_numeric = Binarizer._fit_numeric

    def slow(self, *args, **kwargs):                 # 50 ms a column: 1 s for the 20
        time.sleep(0.05)
        return fit_numeric(self, *args, **kwargs)

    monkeypatch.setattr(Binarizer, "_fit_numeric", slow)
    whole = Binarizer(thresholds="quantile").fit(X, y)
    assert {c.feature for c in whole.conditions_} == set(X.columns)
    with Anytime("test", time_limit=1.2) as run:
        start = time.perf_counter()
        cut = Binarizer(thresholds="quantile").fit(X, y)
        spent = time.perf_counter() - start
        assert run.cut == "time_limit" and run.limit_reached() is None
    # stopped with about a third of the limit spent (t + 2 t = 1.2 s), the rest kept
    assert 0 < len({c.feature for c in cut.conditions_}) < 20
    assert spent < 0.8
    assert binarize.THRESHOLDS_RESERVE == 2.0


def test_a_search_without_time_for_its_set_up_stops_before_it(monkeypatch):
    """Rows in memory: when less than SEARCH_SETUP_RESERVE of the preparation's time is
    left, the run's deadline is moved to now and the search stops before folding and
    packing its rows (seconds on millions of rows, no clock in them): the empty list,
    status time_limit, one warning.  With the time, or without a limit, it searches."""
    from rulekit import base
    from rulekit.frl import _search

    X, y = _mixed_frame(n=200)
    folds = []
    fold = _search._fold_on_factors
    monkeypatch.setattr(_search, "_fold_on_factors",
                        lambda *a, **k: folds.append(1) or fold(*a, **k))
    free = FallingRuleListClassifier(time_limit=1000.0, n_iter=200).fit(X, y)
    assert folds and free.certificate_.status != "time_limit"
    folds.clear()
    monkeypatch.setattr(base, "SEARCH_SETUP_RESERVE", 1e15)   # no time is ever enough
    with pytest.warns(ConvergenceWarning, match="time_limit"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "no antecedent reaches", UserWarning)
        short = FallingRuleListClassifier(time_limit=1000.0, n_iter=200).fit(X, y)
    assert not folds
    cert = short.certificate_
    assert cert.status == "time_limit" and not cert.proved_optimal
    assert len(short.model_.rules) == 0
    majority = np.bincount(y).argmax()
    assert (short.predict(X) == majority).all()
    # without a time limit there is nothing to keep time for
    unlimited = FallingRuleListClassifier(n_iter=200).fit(X, y)
    assert folds and unlimited.certificate_.status != "time_limit"


def test_stop_if_short_moves_the_deadline_of_the_open_run_only_when_short():
    from rulekit._anytime import stop_if_short

    assert not stop_if_short(10.0)                   # no run open
    with Anytime("test") as run:                     # no limit
        assert not stop_if_short(1e9) and run.deadline is None
    with Anytime("test", time_limit=100.0) as run:
        assert not stop_if_short(1.0) and run.limit_reached() is None
        assert stop_if_short(1000.0)
        assert run.limit_reached() == "time_limit"
        with Anytime("inner", time_limit=50.0) as inner:   # a search opened after it
            assert inner.limit_reached() == "time_limit"


# --- mining: pairs in bounded blocks -----------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_pairs_counted_in_tiny_blocks_give_the_same_pool(seed, monkeypatch):
    X, y = _mixed_frame(n=80, seed=seed)
    binz = Binarizer(negations=True).fit(X, y)
    B = binz.transform(X)
    runs = [dict(prefer="support"), dict(prefer="support", per_class=False),
            *(dict(prefer="association", max_antecedents=cap) for cap in (1, 12, 40, 90, 10**6))]
    for kw in runs:
        kw = dict(B=B, y=y, min_support=0.1, max_card=2, conditions=binz.conditions_, **kw)
        whole = mine_antecedents(**kw)
        monkeypatch.setattr(mining, "PAIR_BLOCK_CELLS", 7)
        blocks = mine_antecedents(**kw)
        monkeypatch.undo()
        assert blocks.items == whole.items, kw
        assert blocks.n_mined == whole.n_mined and blocks.n_mined_complete
        np.testing.assert_array_equal(blocks.packed, whole.packed)


def _wide_noise_matrix():
    """50 rows, 180,000 conditions: what 10,000 noise columns binarize to."""
    rng = np.random.default_rng(0)
    return rng.random((50, 180_000)) < 0.5, rng.integers(0, 2, 50)


@pytest.mark.slow
def test_an_association_cut_on_wide_noise_counts_pairs_in_bounded_memory():
    B, y = _wide_noise_matrix()
    tracemalloc.start()
    try:
        pool = mine_antecedents(B, y, min_support=0.1, max_card=2, max_antecedents=72_000,
                                prefer="association")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # every single condition is kept; pairs do not fit beside them
    assert len(pool) == 180_000 and all(len(item) == 1 for item in pool.items)
    # the count of the pairs left out stops at its budget: a lower bound, and said so
    assert pool.n_mined > len(pool) and not pool.n_mined_complete
    assert peak < 400 * 2**20, f"peak {peak / 2**20:.0f} MB"


@pytest.mark.slow
def test_a_pool_over_the_budget_is_refused_before_it_is_built():
    B, y = _wide_noise_matrix()
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"antecedents mined .* max_memory.* at least"):
            mine_antecedents(B, y, min_support=0.1, max_card=2, max_bytes=2**30)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 400 * 2**20, f"peak {peak / 2**20:.0f} MB"


# --- the engines check before they allocate ------------------------------------------------

def test_compatibility_made_group_by_group_is_the_row_by_row_matrix():
    rng = np.random.default_rng(3)
    d = 60
    groups = rng.integers(-1, 6, d)
    ops = rng.integers(0, 5, d)
    thr = np.where(ops < 2, rng.integers(0, 5, d).astype(float), np.nan)
    meta = (groups, ops, thr)
    got = _enum.compatibility(d, meta)
    want = np.array([_beam._allowed_extensions((l,), d, meta) for l in range(d)])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(_enum.compatibility(d, None), ~np.eye(d, dtype=bool))


def test_column_generation_refuses_a_matrix_over_the_budget(monkeypatch):
    from rulekit import BooleanRuleCGClassifier

    monkeypatch.setattr(anytime, "default_max_memory", lambda: 1.0)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 150)), columns=[f"x{j}" for j in range(150)])
    y = rng.integers(0, 2, 40)
    with pytest.raises(ValueError, match=r"compatibility matrix over the [0-9,]+ binarized "
                                         r"conditions .* more than the 1 MB allowed"):
        BooleanRuleCGClassifier(form="dnf", max_complexity=4).fit(X, y)


def test_the_falling_list_search_refuses_tables_over_the_budget(monkeypatch):
    from rulekit.frl import search

    monkeypatch.setattr(anytime, "default_max_memory", lambda: 16.0)
    A = np.random.default_rng(0).random((30, 5)) < 0.5
    with pytest.raises(ValueError, match="falling-rule-list search over 5 antecedents"):
        search(A, np.arange(30) % 2, w=1.0, C=0.01, n_iter=10)


# --- the audit's shapes, measured in a fresh process ---------------------------------------

_CHILD = textwrap.dedent("""
    import json, resource, sys, threading, time, warnings
    import numpy as np, pandas as pd
    import rulekit
    learner, shape, time_limit = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    rng = np.random.default_rng(0)
    if shape == "numeric":
        X = pd.DataFrame(rng.normal(size=(50, 10_000)), columns=[f"c{j}" for j in range(10_000)])
    else:
        X = pd.DataFrame(rng.choice(list("abcde"), size=(50, 2_000)),
                         columns=[f"c{j}" for j in range(2_000)])
    y = rng.integers(0, 2, 50)
    cls = {"frl": rulekit.FallingRuleListClassifier,
           "softfrl": rulekit.SoftFallingRuleListClassifier,
           "colgen": rulekit.BooleanRuleCGClassifier}[learner]
    # compiled kernels first (numba compiles on a process's first fit, tens of CPU seconds
    # with a cold cache, and no limit can stop a compiler): the measure is the fit's
    small = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cls().fit(small, rng.integers(0, 2, 40))
    # the CPU clock when the time limit passes: what the fit spends after it does not
    # depend on how loaded the machine is, its wall clock does
    marks = []
    if time_limit is not None:
        threading.Timer(time_limit, lambda: marks.append(time.process_time())).start()
    wall, cpu = time.perf_counter(), time.process_time()
    out = {}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = cls(time_limit=time_limit).fit(X, y)
        out["status"] = est.certificate_.status
        out["warnings"] = [w.category.__name__ for w in caught]
    except ValueError as exc:
        out["error"] = str(exc)
    out["wall"] = time.perf_counter() - wall
    out["cpu"] = time.process_time() - cpu
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    end = time.process_time()
    out["cpu_after_limit"] = end - marks[0] if marks else 0.0
    print(json.dumps(out))
""")


def _address_space(limit_bytes):
    """preexec_fn: a child that tries to allocate tens of GiB fails instead of paging."""
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


def _run_child(tmp_path, *args):
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=900, preexec_fn=_address_space(8 * 2**30))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


#: CPU seconds a fit may spend after its time limit: the checks come between columns,
#: blocks and steps, and the search still makes its first step and its model
CPU_SLACK = 3.0
#: wall seconds beyond the limit, loose: on a loaded two-core machine a process gets a
#: fraction of a core, so the CPU overrun above is the precise test
WALL_SLACK = 20.0


@pytest.mark.slow
@pytest.mark.serial   # the limit is a wall-clock timer: run alone, as CI runs wall-clock tests
@pytest.mark.parametrize("learner", ["frl", "softfrl"])
@pytest.mark.parametrize("shape", ["numeric", "categorical"])
def test_falling_lists_on_wide_noise_keep_the_time_limit_and_the_memory(tmp_path, learner, shape):
    # 50 rows take single conditions at the defaults (max_card="auto"): the 10,000
    # categorical conditions are searched in 3 to 5 s, so 1 s is the limit that cuts them
    limit = 10 if shape == "numeric" else 1
    got = _run_child(tmp_path, learner, shape, limit)
    assert "error" not in got, got["error"]
    assert got["status"] == "time_limit" and "ConvergenceWarning" in got["warnings"]
    assert got["cpu_after_limit"] <= CPU_SLACK, got
    assert got["wall"] <= limit + WALL_SLACK, got
    assert got["peak_mb"] <= 1024, got


@pytest.mark.slow
def test_column_generation_on_wide_noise_is_refused_before_it_allocates(tmp_path):
    got = _run_child(tmp_path, "colgen", "numeric", "null")
    # the 180,000 x 180,000 matrix (30 GiB) is refused with its size and the remedies
    assert "180,000 x 180,000" in got.get("error", ""), got
    assert "fewer columns" in got["error"]
    assert got["peak_mb"] <= 1024, got


@pytest.mark.slow
def test_cli_fit_on_20000_columns_keeps_its_time_limit(tmp_path):
    rng = np.random.default_rng(0)
    data = pd.DataFrame(rng.normal(size=(60, 20_000)).round(4),
                        columns=[f"c{j}" for j in range(20_000)])
    data["target"] = rng.integers(0, 2, 60)
    path = tmp_path / "wide.csv"
    data.to_csv(path, index=False)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "rulekit.cli", "fit", str(path),
                                 "--target", "target", "--model", "frl", "--time-limit", "5"],
                                stdout=out, stderr=err, text=True, env=env,
                                preexec_fn=_address_space(8 * 2**30))
        # this child's own usage (RUSAGE_CHILDREN would hold the largest peak of every
        # child this worker has had, a dask cluster's included)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0), err.seek(0)
        stdout, stderr = out.read(), err.read()
    assert os.waitstatus_to_exitcode(status) == 0, stderr[-3000:]
    assert "time_limit" in stdout and "ConvergenceWarning" in stderr
    # CPU seconds, which a loaded machine does not inflate: the fit's 5 s, reading the CSV,
    # importing, the kernels and scoring the training rows (43 s before)
    cpu = usage.ru_utime + usage.ru_stime
    assert cpu <= 5 + 10, cpu
    assert usage.ru_maxrss / 1024 <= 1024
