"""The shared learner contract: parameter declarations, certificate, anytime driver."""

import math
import os
import signal
import threading
import time

import numpy as np
import pytest

from rulekit._anytime import Anytime, SearchState, current_run
from rulekit._params import AnyOf, Boolean, Integer, Options, Real, SeedLike, check, validate
from rulekit.certificate import LIMIT_STATUSES, STATUSES, Certificate
from rulekit.learners import LEARNERS

from helpers import check_learner_contract


# --- parameters -----------------------------------------------------------------

@pytest.mark.parametrize("constraint,value,error", [
    (Integer(1), 0, ValueError),
    (Integer(1), 2.5, TypeError),
    (Integer(1), True, TypeError),
    (Integer(1), "3", TypeError),
    (Integer(1), None, TypeError),
    (Real(0, None), -0.1, ValueError),
    (Real(0, None), float("nan"), ValueError),
    (Real(0, None), float("inf"), ValueError),
    (Real(0, None), "0.1", TypeError),
    (Real(0, 1, closed="right"), 0, ValueError),
    (Real(0, None, closed="neither"), 0, ValueError),
    (Options("a", "b"), "c", ValueError),
    (Options("a", "b"), 1, TypeError),
    (Options("a", "b"), True, TypeError),
    (Boolean(), 1, TypeError),
    (AnyOf(Integer(2), Options("auto")), 1, ValueError),
    (AnyOf(Integer(2), Options("auto")), "manual", ValueError),
    (AnyOf(Integer(2), Options("auto")), 2.0, TypeError),
    (SeedLike(), -1, ValueError),
    (SeedLike(), "seed", TypeError),
])
def test_bad_values_and_types_get_the_right_error(constraint, value, error):
    with pytest.raises(error, match="'p' must be"):
        check(constraint, value, "p", "Owner")


@pytest.mark.parametrize("constraint,value,expected", [
    (Integer(1), np.int64(3), 3),
    (Real(0, None), 2, 2.0),
    (Real(0, 1, closed="right"), 1, 1.0),
    (Options("a", "b"), "b", "b"),
    (Boolean(), np.bool_(True), True),
    (AnyOf(Integer(2), Options("auto")), "auto", "auto"),
    (AnyOf(Integer(2), Options("auto")), 5, 5),
    (Integer(1, allow_none=True), None, None),
    (SeedLike(), np.random.default_rng(0), None),
])
def test_good_values_pass_normalized(constraint, value, expected):
    out = check(constraint, value, "p")
    if expected is None and value is not None:
        assert out is value
    else:
        assert out == expected and type(out) is type(expected)


def test_message_names_owner_parameter_expectation_and_value():
    with pytest.raises(ValueError) as info:
        validate({"c": Real(0, None)}, {"c": -2}, "CorelsClassifier")
    assert str(info.value) == ("CorelsClassifier: parameter 'c' must be a finite number >= 0; "
                               "got -2 (int)")


def test_undeclared_parameter_is_a_bug_not_user_input():
    with pytest.raises(RuntimeError, match="no declaration"):
        validate({"c": Real(0, None)}, {"c": 1, "d": 2}, "X")


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_every_estimator_declares_exactly_its_parameters(name):
    check_learner_contract(LEARNERS[name])


def test_the_registry_holds_the_four_estimators():
    from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                         SoftFallingRuleListClassifier)

    classes = {spec.estimator_class() for spec in LEARNERS.values()}
    assert classes == {CorelsClassifier, FallingRuleListClassifier,
                       SoftFallingRuleListClassifier, BooleanRuleCGClassifier}


# --- certificate -----------------------------------------------------------------

def test_certificate_gap_and_flags():
    c = Certificate("time_limit", 0.3, 0.25, "lists")
    assert c.gap == pytest.approx(0.05) and c.relative_gap == pytest.approx(0.05 / 0.3)
    assert c.stopped_early and not c.proved_optimal
    assert "gap 0.05" in c.summary()
    opt = Certificate("optimal", 0.2, 0.19999999)
    assert opt.lower_bound == 0.2 and opt.gap == 0.0 and opt.proved_optimal
    assert Certificate("heuristic", 0.4).gap is None
    assert Certificate("optimal_relative", 0.4).lower_bound == 0.4
    assert LIMIT_STATUSES <= set(STATUSES)


def test_certificate_refuses_false_claims():
    with pytest.raises(ValueError, match="status"):
        Certificate("completed", 0.1)
    with pytest.raises(ValueError, match="exceeds"):
        Certificate("time_limit", 0.1, 0.2)


def test_combined_certificate_adds_up_and_keeps_the_weakest_status():
    parts = [Certificate("optimal", 3.0), Certificate("time_limit", 5.0, 4.0),
             Certificate("feasible", 1.0, 0.5)]
    c = Certificate.combine(parts)
    assert c.status == "time_limit"
    assert c.objective == 9.0 and c.lower_bound == 7.5 and c.gap == 1.5
    assert Certificate.combine([Certificate("optimal", 1.0), Certificate("heuristic", 2.0)]
                               ).lower_bound is None


# --- anytime driver ----------------------------------------------------------------

def _counting_step(run, total, per_unit=0.0):
    done = [0]

    def step(budget):
        k = min(budget, total - done[0])
        if per_unit:
            time.sleep(per_unit * k)
        done[0] += k
        status = "done" if done[0] >= total else None
        return status, run.state(done[0], best_objective=1.0 / (1 + done[0]), lower_bound=0.0)

    return step, done


def test_drive_runs_to_completion_and_grows_the_budget():
    budgets = []
    with Anytime("test", unit="items") as run:
        inner, done = _counting_step(run, 100_000)

        def step(budget):
            budgets.append(budget)
            return inner(budget)

        assert run.drive(step) == "done"
    assert done[0] == 100_000 and max(budgets) > budgets[0]


@pytest.mark.slow
@pytest.mark.serial  # asserts the wall time the drive took
def test_time_limit_stops_within_a_chunk():
    with Anytime("test", time_limit=0.2) as run:
        step, done = _counting_step(run, 10**9, per_unit=1e-5)
        t0 = time.perf_counter()
        assert run.drive(step, chunk_seconds=0.02) == "time_limit"
        assert time.perf_counter() - t0 < 1.0
    assert 0 < done[0] < 10**9


def test_nested_run_keeps_the_earlier_deadline():
    with Anytime("outer", time_limit=0.1) as outer:
        with Anytime("inner", time_limit=100) as inner:
            assert current_run() is inner
            assert inner.deadline == outer.deadline
            time.sleep(0.15)
            assert inner.limit_reached() == "time_limit"
        assert current_run() is outer
    assert current_run() is None


def test_a_run_holds_blas_to_one_thread_and_restores_it():
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    np.ones((4, 4)) @ np.ones(4)          # numpy's BLAS is loaded
    assert blas_threads(), "no BLAS library visible to threadpoolctl"
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with Anytime("outer"):
            assert blas_threads() == [1] * len(before)
            with Anytime("inner"):
                assert blas_threads() == [1] * len(before)
            assert blas_threads() == [1] * len(before)
        assert blas_threads() == before


def test_memory_limit_uses_the_engine_accounting():
    with Anytime("test", max_memory=10.0) as run:
        assert run.limit_reached(run.state(1, memory_mb=9.9)) is None
        assert run.limit_reached(run.state(1, memory_mb=10.0)) == "memory_limit"


def test_callback_gets_one_record_type_and_can_stop():
    seen = []

    def cb(state):
        seen.append(state)
        return state.work >= 1000

    with Anytime("test", callback=cb, report_seconds=0.0) as run:
        step, _ = _counting_step(run, 10**7, per_unit=1e-6)
        assert run.drive(step) == "interrupted"
    assert all(isinstance(s, SearchState) for s in seen) and seen[-1].work >= 1000
    assert seen[-1].gap == pytest.approx(seen[-1].best_objective)
    assert seen[-1].rate > 0


def test_callback_raising_keyboard_interrupt_is_an_interrupt():
    def cb(state):
        raise KeyboardInterrupt

    with Anytime("test", callback=cb) as run:
        step, _ = _counting_step(run, 10**9, per_unit=1e-6)
        assert run.drive(step) == "interrupted"


def test_ctrl_c_sets_a_flag_then_the_handler_is_restored():
    before = signal.getsignal(signal.SIGINT)
    with Anytime("test") as run:
        timer = threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        step, done = _counting_step(run, 10**9, per_unit=1e-6)
        assert run.drive(step) == "interrupted"
        timer.cancel()
    assert signal.getsignal(signal.SIGINT) is before
    assert 0 < done[0] < 10**9


def test_progress_bar_shows_best_bound_gap_memory(capsys):
    with Anytime("demo", unit="nodes", verbose=1, report_seconds=0.0) as run:
        run.report(run.state(12, best_objective=0.25, lower_bound=0.2, memory_mb=3.0), force=True)
    err = capsys.readouterr().err
    assert "demo" in err and "best=0.25" in err and "bound=0.2" in err
    assert "gap=0.05" in err and "mem=3MB" in err and "nodes" in err


def test_state_rate_and_gap_without_bound():
    s = SearchState("x", 2.0, 10, best_objective=1.0)
    assert s.rate == 5.0 and s.gap is None and math.isfinite(s.rate)
