"""Test helpers shared across the test folders (on pytest's pythonpath)."""

import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator


def _check_name(check) -> str:
    func = getattr(check, "func", check)
    return func.__name__


def sklearn_checks(*estimators):
    """``pytest.mark.parametrize`` over sklearn's estimator checks.

    Like ``parametrize_with_checks`` but leaves out the array-API checks,
    which only run when SciPy's experimental array API mode is switched on
    and would otherwise show up as skipped tests.
    """
    cases = [
        pytest.param(est, check, id=f"{type(est).__name__}-{_check_name(check)}")
        for est in estimators
        for est_, check in estimator_checks_generator(est)
        if "array_api" not in _check_name(check)
    ]
    return pytest.mark.parametrize("estimator,check", cases)
