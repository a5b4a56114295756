"""CNF semantics, sampling, single class, bad input, solver failure, metadata, the choice."""

from collections import namedtuple

import itertools

import numpy as np
import pandas as pd
import pytest

from colgen_helpers import brute_force_optimum, tictactoe_conditions
from rulekit import BooleanRuleCGClassifier
from rulekit.colgen import (ColGenSettings, ConditionMetadata, available_solvers,
                            choose_complexity, condition_metadata, predict_clauses, search)
from rulekit.colgen import _search as search_mod


def _data(seed, n=40, d=6):
    rng = np.random.default_rng(seed)
    B = rng.random((n, d)) < 0.5
    y = ((B[:, 0] | B[:, 1]) & (B[:, 2] | B[:, 3])).astype(int)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return B, y


def _cnf_objective(B, y, clauses):
    """Hamming loss of a CNF read literally over the original conditions.

    The CNF predicts class 1 where every OR-clause has a true condition.  As
    in the paper's loss (§2.1, with the roles of the classes swapped by De
    Morgan), a class-0 row predicted 1 costs 1, and a class-1 row costs one
    unit per clause that fails on it.
    """
    fails = np.zeros(B.shape[0], dtype=np.int64)
    for c in clauses:
        fails += ~B[:, list(c)].any(axis=1)
    return int(((y == 0) & (fails == 0)).sum() + fails[y == 1].sum())


def _cnf_brute_force(B, y, C, D):
    """Least CNF loss over every set of OR-clauses (<= D conditions each) within budget C."""
    clauses = [c for k in range(1, D + 1) for c in itertools.combinations(range(B.shape[1]), k)]
    best = _cnf_objective(B, y, [])

    def rec(start, chosen, used):
        nonlocal best
        for k in range(start, len(clauses)):
            cost = 1 + len(clauses[k])
            if used + cost <= C:
                sel = chosen + [clauses[k]]
                best = min(best, _cnf_objective(B, y, sel))
                rec(k + 1, sel, used + cost)

    rec(0, [], 0)
    return best


@pytest.mark.parametrize("seed", range(4))
def test_cnf_against_enumeration_of_cnfs(seed):
    """The CNF's objective is its loss read literally over the original
    conditions, and the bounds sandwich the optimum over every CNF."""
    B, y = _data(seed, n=16, d=4)
    res = search(B, y, form="cnf", max_complexity=6, max_literals=3,
                 settings=ColGenSettings(pricing="ip"))
    assert res.objective == _cnf_objective(B, y, res.clauses)
    holds = np.all([B[:, list(c)].any(axis=1) for c in res.clauses], axis=0) \
        if res.clauses else np.ones(len(y), bool)
    np.testing.assert_array_equal(res.predict(B), holds.astype(int))
    opt = _cnf_brute_force(B, y, 6, 3)
    assert res.lower_bound <= opt <= res.objective
    if res.status == "optimal":
        assert res.objective == opt


def test_cnf_with_negation_map_matches_explicit_complement():
    B0, y = _data(5, d=4)
    B = np.hstack([B0, ~B0])  # columns j and j+4 complement each other
    neg = np.r_[np.arange(4, 8), np.arange(0, 4)]
    meta = ConditionMetadata.from_arrays(8, negation_of=neg)
    a = search(B, y, form="cnf", max_complexity=8, max_literals=3, metadata=meta)
    b = search(B, y, form="cnf", max_complexity=8, max_literals=3)
    assert a.clauses == b.clauses and a.objective == b.objective
    bad = neg.copy()
    bad[0] = 1
    with pytest.raises(ValueError, match="negation_of"):
        search(B, y, form="cnf", metadata=ConditionMetadata.from_arrays(8, negation_of=bad))


SAMPLED = ColGenSettings(pricing="ip", sample_rows=60, pricing_early_nodes=None)


def test_sampling_path():
    rng = np.random.default_rng(0)
    n, d = 400, 10
    B = rng.random((n, d)) < 0.5
    y = ((B[:, 0] & B[:, 1]) | (B[:, 2] & B[:, 3] & B[:, 4])).astype(int)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    kw = dict(max_complexity=10, max_literals=3, settings=SAMPLED, random_state=3)
    a = search(B, y, **kw)
    b = search(B, y, **kw)
    # sampled pricing proves nothing about the clauses: the one bound left is the
    # patterns' conflicts (a distinct row costs at least its smaller class), counted here
    per_pattern = {}
    for i in range(n):
        pos, neg = per_pattern.get(tuple(B[i]), (0, 0))
        per_pattern[tuple(B[i])] = (pos + int(y[i] == 1), neg + int(y[i] == 0))
    floor = sum(min(p, q) for p, q in per_pattern.values())
    assert floor > 0 and a.lower_bound == floor
    assert a.status == "feasible" and a.lower_bound <= a.objective
    assert any(t.pricing == "ip-sampled" for t in a.trace)
    added = [t for t in a.trace if t.n_added]
    assert added and all(t.best_rc < -1e-6 for t in added)
    assert a.clauses == b.clauses and a.objective == b.objective
    # exact objective of the returned rules on the full data
    counts = sum(B[:, list(c)].all(axis=1).astype(int) for c in a.clauses)
    assert a.objective == float(((counts == 0) & (y == 1)).sum() + counts[y == 0].sum())
    # a full (unsampled) run on the same data certifies a bound
    full = search(B, y, max_complexity=10, max_literals=3, settings=ColGenSettings(pricing="ip"))
    assert full.lower_bound is not None and full.lower_bound <= a.objective


@pytest.mark.parametrize("form", ["dnf", "cnf"])
@pytest.mark.parametrize("cls", [0, 1])
def test_single_class(form, cls):
    B, _ = _data(0, n=10)
    y = np.full(10, cls)
    res = search(B, y, form=form)
    assert res.clauses == ()
    np.testing.assert_array_equal(res.predict(B), y)
    assert res.objective == 0.0 and res.status == "optimal"


@pytest.mark.parametrize("kwargs,error,match", [
    (dict(max_complexity=1), ValueError, "max_complexity"),
    (dict(max_complexity=2.5), TypeError, "max_complexity"),
    (dict(max_literals=0), ValueError, "max_literals"),
    (dict(sample_weight=-np.ones(10)), ValueError, "sample_weight"),
    (dict(lambda0=-1), ValueError, "lambda0"),
    (dict(form="dnnf"), ValueError, "form"),
    (dict(time_limit=0), ValueError, "time_limit"),
    (dict(random_state=-1), ValueError, "random_state"),
    (dict(settings={"pricing": "ip"}), TypeError, "settings"),
    (dict(metadata={"negation_of": None}), TypeError, "metadata"),
    (dict(columns=[(0, 99)]), ValueError, "columns"),
])
def test_bad_input(kwargs, error, match):
    B, y = _data(0, n=10)
    with pytest.raises(error, match=match):
        search(B, y, **kwargs)


def test_bad_data_and_settings():
    B, y = _data(0, n=10)
    with pytest.raises(ValueError, match="B must be boolean"):
        search(B.astype(int) * 2, y)
    with pytest.raises(TypeError, match="B must be"):
        search(np.array([["a"] * 3] * 10), y)
    with pytest.raises(ValueError, match="y must"):
        search(B, np.arange(10))
    with pytest.raises(ValueError, match="pricing"):
        ColGenSettings(pricing="greedy")
    with pytest.raises(TypeError, match="max_rounds"):
        ColGenSettings(max_rounds=2.5)
    with pytest.raises(ValueError, match="lp_solver.*'highs', 'cbc'"):
        ColGenSettings(lp_solver="gurobi")
    with pytest.raises(ValueError, match="beam_widening"):
        ColGenSettings(beam_widening=(0,))


def test_unavailable_solver_lists_available(monkeypatch):
    from rulekit.colgen import _solvers

    monkeypatch.setattr(_solvers, "available_solvers", lambda: ["cbc"])
    with pytest.raises(ValueError, match=r"'highs' is not installed.*\['cbc'\]"):
        ColGenSettings(pricing_solver="highs")
    assert set(available_solvers()) <= {"highs", "cbc"}


def _beam_failing_from_round_3(monkeypatch, error):
    """Pricing that raises ``error`` from its third call on (the first two rounds succeed)."""
    calls = {"n": 0}
    real = search_mod.beam_search

    def failing(*args, **kw):
        calls["n"] += 1
        if calls["n"] > 2:
            raise error
        return real(*args, **kw)

    monkeypatch.setattr(search_mod, "beam_search", failing)


def test_solver_failure_mid_run_returns_best_found(monkeypatch):
    import pulp

    B, y = _data(4, n=300, d=10)
    _beam_failing_from_round_3(monkeypatch, pulp.PulpSolverError("solver crashed"))
    with pytest.warns(RuntimeWarning, match="solver"):
        res = search(B, y, max_complexity=20, max_literals=3)
    assert res.status == "feasible"
    assert len(res.clauses) > 0
    # still the exact objective of a real rule set, better than predicting one class
    assert res.objective < min(y.sum(), (1 - y).sum())


def test_a_bug_in_a_round_is_a_traceback_not_a_warning(monkeypatch):
    """Only the solvers' own exceptions are caught: anything else is a bug and propagates."""
    B, y = _data(4, n=300, d=10)
    _beam_failing_from_round_3(monkeypatch, ZeroDivisionError("a bug in a round"))
    with pytest.raises(ZeroDivisionError, match="a bug in a round"):
        search(B, y, max_complexity=20, max_literals=3)


def test_restricted_ip_is_skipped_when_greedy_meets_the_bound(monkeypatch):
    """When CG proves the LP bound and the greedy selection reaches it, no IP
    can do better, so none is run; otherwise the IP runs."""
    calls = []
    real = search_mod.solve_rmip

    def counting(*args, **kw):
        calls.append(args[7])
        return real(*args, **kw)

    monkeypatch.setattr(search_mod, "solve_rmip", counting)
    rng = np.random.default_rng(5)
    B = rng.random((200, 6)) < 0.5
    y = (B[:, 0] & B[:, 1]).astype(int)
    with_ip = ColGenSettings(restricted_mip=True)
    res = search(B, y, max_complexity=8, settings=with_ip)
    assert calls == [] and res.status == "optimal" and res.objective == 0.0
    B, y = _data(0, n=300, d=10)          # here the greedy selection falls short
    res = search(B, y, max_complexity=8, max_literals=3, settings=with_ip)
    assert calls == ["highs"] and res.lower_bound < res.objective
    search(B, y, max_complexity=8, max_literals=3)    # no restricted IP by default
    assert calls == ["highs"]


def test_no_ip_solution_in_time_keeps_greedy_without_fallback(monkeypatch):
    """A restricted IP that finds no solution within its limit is not a solver
    failure: the greedy selection is kept and the other back-end is not run."""
    calls = []

    def empty_handed(*args, **kw):
        calls.append(args[7])
        return None, False

    monkeypatch.setattr(search_mod, "solve_rmip", empty_handed)
    B, y = _data(0, n=300, d=10)
    res = search(B, y, max_complexity=8, max_literals=3,
                 settings=ColGenSettings(restricted_mip=True))
    assert calls == ["highs"]
    assert 0 < res.complexity <= 8 and res.objective < min(y.sum(), (1 - y).sum())


def test_condition_metadata_adapter():
    Cond = namedtuple("Cond", "feature op value")
    conds = [Cond("age", "<=", 30), Cond("age", ">", 30), Cond("sex", "==", "M"),
             Cond("sex", "!=", "M"), Cond("age", "is missing", None), Cond("age", "<=", 50)]
    meta = condition_metadata(conds)
    np.testing.assert_array_equal(meta.groups, [0, 0, 1, 1, 0, 0])
    np.testing.assert_array_equal(meta.ops, [0, 1, 2, 3, 4, 0])
    # age has missing values, so "age <= 30" and "age > 30" are not complements
    np.testing.assert_array_equal(meta.negation_of, [-1, -1, 3, 2, -1, -1])
    assert meta.thresholds[0] == 30 and np.isnan(meta.thresholds[2])
    full = condition_metadata(conds[:4])
    np.testing.assert_array_equal(full.negation_of, [1, 0, 3, 2])
    with pytest.raises(ValueError, match="ops"):
        ConditionMetadata.from_arrays(2, ops=[0, 7])


def test_cnf_on_data_with_missing_values():
    """A missing value satisfies neither x <= t nor x > t; the CNF must still
    be learned over the true complements (this crashed before)."""
    from rulekit import Binarizer

    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": rng.random(300), "b": rng.random(300)})
    X.loc[rng.random(300) < 0.2, "a"] = np.nan
    y = ((X.a.fillna(0) > 0.5) | (X.b > 0.6)).astype(int).to_numpy()
    binz = Binarizer(negations=True, n_thresholds=4).fit(X)
    B = binz.transform(X)
    meta = condition_metadata(binz.conditions_)
    res = search(B, y, form="cnf", max_complexity=8, max_literals=3, metadata=meta)
    expl = search(B, y, form="cnf", max_complexity=8, max_literals=3)
    assert res.objective == expl.objective
    np.testing.assert_array_equal(res.predict(B), expl.predict(B))


def test_metadata_pruning_keeps_optimum():
    # x <= t / x > t literals of one numeric feature plus noise columns
    rng = np.random.default_rng(0)
    x = rng.integers(0, 10, 60)
    z = rng.random(60) < 0.5
    y = (((x > 2) & (x <= 6)) | z & (x > 8)).astype(int)
    cols, g, o, t = [], [], [], []
    for thr in (2, 4, 6, 8):
        cols += [x <= thr, x > thr]
        g += [0, 0]
        o += [0, 1]
        t += [thr, thr]
    cols += [z, ~z]
    g += [1, 1]
    o += [2, 3]
    t += [np.nan, np.nan]
    B = np.column_stack(cols)
    meta = ConditionMetadata.from_arrays(B.shape[1], groups=g, ops=o, thresholds=t)
    res = search(B, y, max_complexity=6, max_literals=2, metadata=meta)
    assert res.objective == 0.0
    assert res.status == "optimal"


def test_predict_clauses_forms():
    B = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=bool)
    np.testing.assert_array_equal(predict_clauses(((0,), (1,)), "dnf", B), [1, 1, 1, 0])
    np.testing.assert_array_equal(predict_clauses(((0,), (1,)), "cnf", B), [0, 0, 1, 0])
    np.testing.assert_array_equal(predict_clauses((), "cnf", B), [1, 1, 1, 1])


def test_callback_gets_one_record_per_round_and_can_stop():
    B, y = _data(4, n=300, d=10)
    seen = []
    res = search(B, y, max_complexity=20, max_literals=3,
                 settings=ColGenSettings(initial_beam=False),
                 callback=lambda state: seen.append(state) or len(seen) >= 2)
    assert [s.work for s in seen] == [1, 2] and len(res.trace) == 2
    assert all(s.learner == "colgen" and s.unit == "rounds" for s in seen)
    # the incumbent is a real rule set's objective, above the valid bound
    assert all(s.best_objective >= s.lower_bound for s in seen)
    assert res.status == "interrupted" and res.certificate.stopped_early


def test_warm_start_columns_join_the_master():
    B, y = _data(6, n=200, d=8)
    first = search(B, y, max_complexity=12, max_literals=3)
    again = search(B, y, max_complexity=12, max_literals=3, columns=first.columns)
    assert set(first.clauses) <= set(again.columns)
    assert again.objective <= first.objective
    assert len(again.trace) <= len(first.trace)


def test_choose_complexity_prefers_small_budget_when_enough():
    rng = np.random.default_rng(1)
    B = rng.random((120, 6)) < 0.5
    y = (B[:, 0] & B[:, 1]).astype(int)  # complexity 3 fits exactly
    # noise-free: the exact path, with the rule set fitted on every row
    choice = choose_complexity(B, y, grid=(3, 8), n_splits=3, time_limit=30)
    assert (choice.form, choice.max_complexity, choice.method) == ("dnf", 3, "exact")
    assert choice.result.objective == 0.0 and choice.result.complexity <= 3
    assert (choice.result.predict(B) == y).all()
    assert choice.errors == {("dnf", 3): 0.0} and choice.columns
    # 6 flipped labels: no budget fits every row, so cross-validation decides,
    # and the one-standard-error rule keeps the small budget
    flip = rng.choice(120, size=6, replace=False)
    y[flip] = 1 - y[flip]
    choice = choose_complexity(B, y, grid=(3, 8), n_splits=3, time_limit=30)
    assert (choice.form, choice.max_complexity, choice.method) == ("dnf", 3, "cv")
    assert choice.result is None and set(choice.errors) == {("dnf", 3), ("dnf", 8)}


@pytest.mark.slow  # about 8 CPU s in all
@pytest.mark.parametrize("seed", range(3))
def test_exact_choice_is_the_smallest_budget_that_fits(seed):
    """On noise-free data the choice is the smallest budget of the grid at
    which some DNF or CNF (clauses of at most 3 literals) makes no training
    error, checked by enumerating every such rule set."""
    rng = np.random.default_rng(seed)
    B = rng.random((200, 5)) < 0.5
    y = ((B[:, 0] & B[:, 1]) | (B[:, 2] & ~B[:, 4])).astype(int)
    B = np.column_stack([B, ~B])          # conditions and their negations
    grid = (3, 4, 6, 8)
    w = np.ones(len(y))

    def smallest(Bf, yf):   # None: no rule set within the grid fits every row
        return next((C for C in grid if brute_force_optimum(Bf, yf, w, C, 3) == 0), None)

    # a CNF over B for y is a DNF over the complements for 1 - y
    sizes = {"dnf": smallest(B, y), "cnf": smallest(~B, 1 - y)}
    fits = [(C, f) for f, C in sizes.items() if C is not None]
    assert fits                           # the planted DNF has complexity 6
    choice = choose_complexity(B, y, grid=grid, forms=("dnf", "cnf"), time_limit=60,
                               max_literals=3)
    assert choice.method == "exact"
    assert (choice.max_complexity, choice.form) == min(fits, key=lambda t: (t[0], t[1] != "dnf"))
    assert (choice.result.predict(B) == y).all()
    assert choice.result.complexity <= choice.max_complexity


def test_choose_complexity_picks_the_form_that_fits():
    """``b0 OR b1`` is one CNF clause of 2 literals (complexity 3), but as a
    DNF it needs two 1-literal clauses (complexity 4).  Within the budget 3
    only the CNF is exact, so the choice must pick it."""
    rng = np.random.default_rng(2)
    B = rng.random((150, 6)) < 0.3
    y = (B[:, 0] | B[:, 1]).astype(int)
    exact = choose_complexity(B, y, grid=(3,), forms=("dnf", "cnf"), time_limit=30)
    assert (exact.form, exact.max_complexity, exact.method) == ("cnf", 3, "exact")
    # with 5 labels flipped neither form fits every row: cross-validation
    noisy = y.copy()
    flip = rng.choice(150, size=5, replace=False)
    noisy[flip] = 1 - noisy[flip]
    choice = choose_complexity(B, noisy, grid=(3,), forms=("dnf", "cnf"), time_limit=30)
    assert (choice.form, choice.max_complexity, choice.method) == ("cnf", 3, "cv")
    assert choice.errors[("cnf", 3)] + 0.05 < choice.errors[("dnf", 3)]
    # the large-data path: no cross-validation, a probe run of each form,
    # compared by training objective; the CNF reaches 0, the DNF cannot
    probe = choose_complexity(B, y, grid=(3,), forms=("dnf", "cnf"), time_limit=30,
                              cv_max_rows=100)
    assert (probe.form, probe.method) == ("cnf", "probe")
    assert probe.errors[("cnf", 3)] == 0.0 < probe.errors[("dnf", 3)]
    # one form on large data: the largest budget, nothing fitted
    big = choose_complexity(B, y, grid=(3, 8), forms=("dnf",), cv_max_rows=100)
    assert (big.form, big.max_complexity, big.method) == ("dnf", 8, "largest")


def test_choose_complexity_prefers_the_null_model_on_noise():
    """Labels independent of B: no rule set beats predicting the majority on
    held-out rows, so the choice is the empty rule set, in the form whose
    constant is the majority class (an empty CNF predicts 1)."""
    rng = np.random.default_rng(7)
    B = rng.random((400, 8)) < 0.5
    y = (rng.random(400) < 0.75).astype(int)
    choice = choose_complexity(B, y, grid=(0, 3, 8), forms=("dnf", "cnf"), time_limit=30)
    assert (choice.form, choice.max_complexity) == ("cnf", 0)
    # its validation error is the minority rate of the held-out folds
    assert choice.errors[("cnf", 0)] == pytest.approx(1 - y.mean(), abs=0.01)
    assert choice.errors[("dnf", 0)] == pytest.approx(y.mean(), abs=0.01)


def test_complexity_grid_validation():
    B = np.eye(6, dtype=bool)
    for bad in [(1, 4), (-2,), ("a",), (), (2.5,)]:
        with pytest.raises(ValueError, match="grid"):
            choose_complexity(B, np.arange(6) % 2, grid=bad)
    with pytest.raises(ValueError, match="grid"):
        BooleanRuleCGClassifier(complexity_grid=(1, 8)).fit(np.eye(6), np.arange(6) % 2)


def test_choose_complexity_rejects_unknown_form():
    B = np.eye(6, dtype=bool)
    with pytest.raises(ValueError, match="forms"):
        choose_complexity(B, np.arange(6) % 2, forms=("dnf", "xnf"))


def test_zero_weights():
    B, y = _data(0, n=10)
    with pytest.raises(ValueError, match="sample_weight is zero"):
        search(B, y, sample_weight=np.zeros(10))
    w = np.where(y == 1, 0.0, 1.0)  # positives weightless: predict 0 everywhere
    res = search(B, y, sample_weight=w)
    assert res.clauses == () and res.objective == 0.0


def test_the_form_probe_runs_on_a_sample_and_does_not_depend_on_the_clock():
    """Above cv_max_rows the form is probed on a stratified sample of
    cv_max_rows rows: the CNF of y = x0 | x1 still wins there, and runs with
    different time budgets that both finish choose the same form and start
    the final fit from the same clauses."""
    from rulekit.estimators.validation import probe_rows as _probe_rows

    rng = np.random.default_rng(11)
    B = rng.random((3000, 6)) < 0.3
    y = (B[:, 0] | B[:, 1]).astype(int)
    rows = _probe_rows(y, 200, np.random.default_rng(0))
    assert len(rows) == 200 and np.all(np.diff(rows) > 0)
    assert abs(y[rows].mean() - y.mean()) < 0.01  # stratified
    runs = [choose_complexity(B, y, grid=(3,), forms=("dnf", "cnf"), cv_max_rows=200,
                              time_limit=limit, random_state=4) for limit in (None, 600)]
    for run in runs:
        assert (run.form, run.method, run.stopped) == ("cnf", "probe", None)
        assert run.errors[("cnf", 3)] == 0.0 < run.errors[("dnf", 3)]
    assert runs[0].columns == runs[1].columns


def test_validation_runs_on_a_bounded_sample(monkeypatch):
    """With more distinct rows than validation_rows the path validates on a
    stratified sample of that many rows, so its work does not grow with the
    data; the rule set that fits
    every sampled row is then no proof for the other rows, so the exact
    shortcut is left out and the caller fits the chosen budget on every row."""
    from rulekit.colgen import _select

    rng = np.random.default_rng(3)
    B = rng.random((600, 12)) < 0.3        # nearly every row distinct
    y = (B[:, 0] | B[:, 1]).astype(int)
    trained = []
    init = _select._FoldPath.__init__

    def spy(self, P, Y, train, *args):
        trained.append(float(train.sum()))
        init(self, P, Y, train, *args)

    monkeypatch.setattr(_select._FoldPath, "__init__", spy)
    full = choose_complexity(B, y, grid=(3,), forms=("dnf", "cnf"), n_splits=5, time_limit=60)
    assert (full.form, full.max_complexity, full.method) == ("cnf", 3, "exact")
    assert full.result is not None and min(trained) > 400      # 4/5 of 600 rows
    trained.clear()
    sampled = choose_complexity(B, y, grid=(3,), forms=("dnf", "cnf"), validation_rows=150,
                                n_splits=5, time_limit=60)
    assert max(trained) <= 150 and len(trained) == 10           # 2 forms x 5 folds
    assert (sampled.form, sampled.max_complexity, sampled.method) == ("cnf", 3, "cv")
    assert sampled.result is None and sampled.errors[("cnf", 3)] == 0.0
    # the same seed draws the same sample: the same choice and warm start
    again = choose_complexity(B, y, grid=(3,), forms=("dnf", "cnf"), validation_rows=150,
                              n_splits=5, time_limit=60)
    assert again.errors == sampled.errors and again.columns == sampled.columns
    # few distinct rows (many copies): the master LPs are small, no sample
    trained.clear()
    few = np.repeat(B[:40], 15, axis=0)
    choose_complexity(few, np.repeat(y[:40], 15), grid=(0, 3), forms=("dnf",),
                      validation_rows=150, n_splits=5, time_limit=60)
    assert min(trained) > 400
