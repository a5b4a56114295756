"""The data checks of rulekit._checks: one message per mistake, whichever door."""

import numpy as np
import pytest

from rulekit._checks import check_boolean_matrix, check_labels, check_sample_weight


@pytest.mark.parametrize("M,error,match", [
    (None, TypeError, "M must be a 2-D boolean array, got None"),
    (np.ones(3, bool), ValueError, "M must be a 2-D"),
    (np.array([["a", "b"]]), TypeError, "M must be boolean .* got dtype"),
    (np.array([[0, 2]]), ValueError, "M must be boolean: found values other than 0 and 1"),
    (np.zeros((0, 2), bool), ValueError, "at least 1 row"),
])
def test_boolean_matrix_refuses(M, error, match):
    with pytest.raises(error, match=match):
        check_boolean_matrix(M, "M", min_rows=1)


def test_boolean_matrix_accepts_bool_as_is_and_01_numbers_as_bool():
    M = np.eye(3, dtype=bool)
    assert check_boolean_matrix(M) is M
    out = check_boolean_matrix(np.eye(3, dtype=np.float32))
    assert out.dtype == bool and np.array_equal(out, M)


@pytest.mark.parametrize("y,binary,error,match", [
    (np.zeros((3, 1)), False, ValueError, "y must be 1-D"),
    (np.zeros(2), False, ValueError, "y has 2 labels but A has 3 rows"),
    (np.array([0.5, 1, 0]), False, TypeError, "integer class labels"),
    (np.array(["a", "b", "a"]), False, TypeError, "integer class labels"),
    (np.array([0, 2, 1]), True, ValueError, "binary with values in"),
    (np.array(["a", "b", "a"]), True, ValueError, "binary with values in"),
])
def test_labels_refuse(y, binary, error, match):
    with pytest.raises(error, match=match):
        check_labels(y, 3, binary=binary)


def test_labels_normalize():
    assert check_labels(np.array([0.0, 2.0, 1.0]), 3).dtype == np.int64
    assert check_labels(np.array([0, 1, 1]), 3, binary=True).dtype == bool


@pytest.mark.parametrize("w,error,match", [
    (["a", "b", "c"], TypeError, "sample_weight must hold numbers"),
    ([1.0, 2.0], ValueError, "sample_weight has 2 entries but X has 3 rows"),
    (np.ones((3, 2)), ValueError, "sample_weight must be 1-D"),
    ([1.0, -1.0, 1.0], ValueError, "finite and non-negative"),
    ([1.0, np.nan, 1.0], ValueError, "finite and non-negative"),
    ([0, 0, 0], ValueError, "sample_weight is zero for every row"),
])
def test_sample_weight_refuses(w, error, match):
    with pytest.raises(error, match=match):
        check_sample_weight(w, 3, positive=True)


def test_sample_weight_normalizes():
    assert check_sample_weight(None, 3) is None
    out = check_sample_weight(np.ones((3, 1), int), 3)
    assert out.shape == (3,) and out.dtype == float
    assert np.array_equal(check_sample_weight([0, 0, 0], 3), np.zeros(3))
