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
marked ``slow`` here: each took 2.5 s or more of the fast lane, or 0.7 s in a
second cut (measured with ``--durations``), and each is one more case of a path the fast lane keeps
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
    # the second cut: fast-lane calls of 0.7 s or more (a serial --durations run on the
    # quiet machine, 2026-11-27); the fast lane took 89 s on two cores before it
    "tests/test_export_semantics.py::test_datetime_parts_in_every_backend",
    "tests/test_fuzz_exports.py::test_every_export_agrees_with_predict_or_refuses",
    "tests/test_fit_sources.py::test_falling_lists_from_chunks_are_the_in_memory_fit"
    "[FallingRuleListClassifier]",
    "tests/test_explore.py::test_replay_of_a_full_log_is_sampled_within_budget",
    "tests/test_export_semantics.py::test_names_and_categories_with_quotes_spaces_and_unicode",
    "tests/test_export_semantics.py::test_pandas_nullable_and_category_dtypes",
    "tests/frl/test_search_shortcuts.py::test_candidate_cache_changes_no_result[True-0.5]",
    "tests/frl/test_search_shortcuts.py::test_candidate_cache_changes_no_result[True-None]",
    "tests/corels/test_corels_defaults.py::test_default_certificate_matches_brute_force[0]",
    "tests/frl/test_estimator.py::test_real_ctrl_c_during_the_search_returns_the_best_list_so_far",
    "tests/test_binarize.py::test_every_kept_condition_holds_and_fails_on_at_least_the_floor",
    "tests/test_export.py::test_exports_predict_like_the_estimator[corels_compas-frl]",
    "tests/test_pencil_and_paper.py::test_any_one_vs_rest_model_by_hand",
    "tests/frl/test_weights.py::test_weighted_search_reaches_the_brute_force_optimum[quarters]",
    "tests/test_persist.py::test_multiclass_rule_sets_round_trip",
    "tests/frl/test_weights.py::test_unit_weights_are_no_weights[SoftFallingRuleListClassifier]",
    "tests/test_certificate_units.py::test_colgen_binary_certificate_is_a_rate_of_its_mistakes"
    "[auto]",
    "tests/colgen/test_counts.py::test_weighted_rows_fit_as_their_expansion[auto-0]",
    "tests/frl/test_bounds_bruteforce.py::test_candidate_kernels_match_spec_and_never_discard_better_lists",
    "tests/test_binarize.py::test_conditions_mean_what_they_say",
    "tests/frl/test_search.py::test_time_limit_and_callback_and_interrupt",
    "tests/test_fit_sources.py::test_the_command_line_fits_a_parquet_glob",
    "tests/frl/test_estimator.py::test_sklearn_compatible"
    "[FallingRuleListClassifier-check_fit_score_takes_y]",
    "tests/test_certificate_units.py::test_colgen_multiclass_certificate_adds_the_members_mistakes_per_row",
    "tests/test_certificate_units.py::test_colgen_binary_certificate_is_a_rate_of_its_mistakes"
    "[cnf]",
    "tests/frl/test_weights.py::test_weighted_search_reaches_the_brute_force_optimum[whole]",
    "tests/frl/test_weights.py::test_fit_on_distinct_rows_is_the_fit_on_every_row"
    "[SoftFallingRuleListClassifier]",
    "tests/test_export.py::test_exports_predict_like_the_estimator[bank_marketing-corels]",
    "tests/test_plotting.py::test_ablation_runs_every_bound_off_and_plots_bars",
    "tests/colgen/test_estimator.py::test_sklearn_compatible"
    "[BooleanRuleCGClassifier-check_fit_score_takes_y]",
    "tests/corels/test_constraints.py::test_forbidden_feature_removes_every_condition_on_it",
    "tests/test_pencil_and_paper.py::test_iris_by_hand[dnf]",
    "tests/frl/test_estimator.py::test_sklearn_compatible"
    "[FallingRuleListClassifier-check_estimators_dtypes]",
    "tests/test_plotting.py::test_colgen_trace_lines",
    "tests/test_explore.py::test_one_vs_rest_rule_sets_show_every_member",
    "tests/frl/test_weights.py::test_whole_weights_fit_as_the_rows_repeated"
    "[1.0-SoftFallingRuleListClassifier]",
    # 2026-11-27, the fast lane at 96 s in CI: the blocked counts' property test (16.7 s,
    # mostly compiling; test_mixed_words_are_exercised keeps the path) and a Rashomon set
    # after a folded fit (4.7 s)
    "tests/frl/test_blocked_counts.py::test_counts_equal_brute_force_in_every_block_size",
    "tests/corels/test_corels_counts.py::test_rashomon_set_after_a_folded_fit_is_the_row_by_row_one",
    # 2026-11-28, the fast lane at 93 s in CI: the three calls of 3.5 s or more
    "tests/corels/test_corels_weights.py::test_folded_rashomon_set_is_the_set_on_all_rows",
    "tests/frl/test_defaults.py::test_a_majority_later_class_that_fits_well_is_kept"
    "[SoftFallingRuleListClassifier]",
    "tests/colgen/test_fold_table.py::test_rows_reordered_in_place_are_the_rows_taken[0]",
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
