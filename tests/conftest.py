"""Suite-wide Ctrl-C hygiene.

* Started as a background job (``nohup``, ``&`` in a script), a process
  inherits SIGINT *ignored*, so the tests that send themselves a real SIGINT
  would wait forever.  For the session, SIGINT gets Python's own handler, as
  in a terminal; the original disposition comes back at the end.
* No test may leave a SIGINT handler or an open search run behind.  A search
  installs a handler that turns Ctrl-C into a flag for its own run; left
  installed, it would swallow the Ctrl-C of every later test (whose search
  then never stops).  The guard restores Python's handler first, so one
  broken test fails alone, and then says which test it was.

And the two lanes (pyproject.toml's markers): a test marked ``serial`` (a
wall-clock assertion, which CI runs alone) must be marked ``slow`` too, or it
would also run in the parallel fast lane.  The tests in :data:`HEAVY` are
marked ``slow`` here: each took 2.5 s or more of the fast lane (measured with
``--durations``), and each is one more case of a path the fast lane keeps
(the fast lane must finish in 90 s on two cores; CI runs both lanes).
"""

import signal

import pytest

from rulekit._anytime import _stack


@pytest.fixture(scope="session", autouse=True)
def _sigint_as_in_a_terminal():
    original = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, original)


@pytest.fixture(autouse=True)
def _no_leftover_ctrl_c_state(_sigint_as_in_a_terminal):
    yield
    handler = signal.getsignal(signal.SIGINT)
    open_runs = list(_stack())
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _stack().clear()
    assert handler is signal.default_int_handler, f"the test left SIGINT handled by {handler!r}"
    assert not open_runs, f"the test left search runs open: {open_runs!r}"


#: fast-lane tests of 2.5 s or more (``--durations``, 2026-11-27), run in the slow lane
HEAVY = {
    "tests/colgen/test_counts.py::test_a_sampled_pricing_ip_keeps_the_bounds_the_exact_steps_proved",
    "tests/corels/test_corels_memory.py::test_memory_limit_returns_best_list_and_valid_bound",
    "tests/colgen/test_choice_work.py::test_finer_resolution_is_validated_in_the_chosen_form_only",
    "tests/test_binarize.py::test_a_row_of_weight_k_is_the_row_repeated_k_times",
    "tests/frl/test_estimator.py::test_declared_failure_is_real_when_w_is_not_one"
    "[SoftFallingRuleListClassifier]",
    "tests/frl/test_estimator.py::test_sklearn_compatible"
    "[SoftFallingRuleListClassifier-check_fit_score_takes_y]",
    "tests/colgen/test_semantics.py::test_sampling_path",
    "tests/colgen/test_choice_work.py::test_inner_folds_are_the_module_default",
    "tests/corels/test_corels_estimator.py::test_sklearn_compatible"
    "[CorelsClassifier-check_sample_weights_list]",
    "tests/colgen/test_estimator.py::test_exact_choice_is_the_final_model",
    "tests/colgen/test_counts.py::test_every_search_runs_on_distinct_pairs[multiclass]",
    "tests/corels/test_constraints.py::test_required_condition_is_in_a_capturing_rule[0]",
    "tests/colgen/test_estimator.py::test_auto_thresholds_keep_the_finer_cut_when_validation_needs_it",
    "tests/test_callbacks.py::test_the_searches_of_a_default_corels_fit_are_told_apart",
    "tests/corels/test_corels_limits.py::test_node_limit_bounds_on_random_instances",
    "tests/frl/test_search.py::test_reproducible_and_row_permutation_invariant",
    "tests/frl/test_estimator.py::test_sklearn_compatible"
    "[SoftFallingRuleListClassifier-check_estimators_dtypes]",
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid in HEAVY:
            item.add_marker(pytest.mark.slow)
    loose = [item.nodeid for item in items
             if item.get_closest_marker("serial") and not item.get_closest_marker("slow")]
    if loose:
        raise pytest.UsageError("marked serial but not slow (a wall-clock assertion belongs to "
                                "the slow lane): " + ", ".join(loose))
