"""Test helpers shared across the test folders (on pytest's pythonpath)."""

import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator


def _check_name(check) -> str:
    func = getattr(check, "func", check)
    return func.__name__


def sklearn_checks(*estimators, expected_failed_checks=None):
    """``pytest.mark.parametrize`` over sklearn's estimator checks.

    Like ``parametrize_with_checks`` but leaves out the array-API checks,
    which only run when SciPy's experimental array API mode is switched on
    and would otherwise show up as skipped tests.  ``expected_failed_checks``
    maps a check name to the reason it is known to fail (strict xfail: the
    test fails if the check starts passing).
    """
    expected = expected_failed_checks or {}
    cases = [
        pytest.param(
            est, check, id=f"{type(est).__name__}-{_check_name(check)}",
            marks=[pytest.mark.xfail(reason=expected[_check_name(check)], strict=True)]
            if _check_name(check) in expected else [],
        )
        for est in estimators
        for est_, check in estimator_checks_generator(est)
        if "array_api" not in _check_name(check)
    ]
    return pytest.mark.parametrize("estimator,check", cases)


import os  # noqa: E402
from pathlib import Path  # noqa: E402

#: The project's shared data folder (beside the repository, as in CI); tests
#: read it only where the package's own copy is not the thing under test.
SHARED_DATA = Path(os.environ.get(
    "RULEKIT_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))
