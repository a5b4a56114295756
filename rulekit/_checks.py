"""Checks of the arrays users hand to rulekit: written once, used everywhere.

Parameters with a declared constraint (numbers, options, seeds) are checked
by :mod:`rulekit._params`; this module checks the data: a boolean matrix,
labels, sample weights.  Every engine, the evaluator, the miner, the models
and the estimators call these functions, so one mistake gets one message
whichever door it came through.  The error style is the one of
:mod:`rulekit._params`: ``TypeError`` when the *kind* of data is wrong (text
where numbers belong), ``ValueError`` when the kind is right but the shape
or the values are not; the message names the argument and says what to do.

This is a foundation module: numpy only (no scikit-learn, no pandas), so the
engines can use it.  The idea follows ``sklearn.utils.validation``
(``check_array``, ``_check_sample_weight``), narrowed to what rulekit needs.
"""

from __future__ import annotations

import numpy as np

from ._patterns import PackedBits

__all__ = ["check_boolean_matrix", "check_labels", "check_sample_weight", "check_counts"]

#: Largest total of frequency weights: their sums stay exact in float64 (2**53).
MAX_TOTAL_COUNT = 2**53 - 1

# dtype kinds that can hold 0/1 values: bool, signed, unsigned, float
_NUMERIC = "biuf"


def check_boolean_matrix(M, name: str = "M", *, min_rows: int = 0) -> np.ndarray:
    """A 2-D boolean matrix (conditions or antecedents by rows), checked.

    Parameters
    ----------
    M : array-like, shape (n_samples, n_columns)
        Booleans, or numbers that are all 0 or 1.
    name : str, default="M"
        The argument's name, for the messages.
    min_rows : int, default=0
        Fewest rows accepted.

    Returns
    -------
    ndarray of bool or PackedBits
        ``M`` itself when it already is a boolean array (or rows packed as
        :class:`rulekit._patterns.PackedBits`), else a boolean copy.

    Raises
    ------
    TypeError
        ``M`` is None, or its dtype cannot hold 0/1 (text, objects).
    ValueError
        ``M`` is not 2-D, has fewer than ``min_rows`` rows, or holds
        numbers other than 0 and 1.
    """
    if M is None:
        raise TypeError(f"{name} must be a 2-D boolean array, got None")
    if isinstance(M, PackedBits):
        # boolean by construction; read a block at a time by the readers that take it
        if M.shape[0] < min_rows:
            raise ValueError(f"{name} must have at least {min_rows} row(s) (samples), got "
                             f"{M.shape[0]}")
        return M
    M = np.asarray(M)
    if M.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (n_samples, n_columns) boolean array, got "
                         f"{M.ndim}-D; reshape it to one row per sample")
    if M.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row(s) (samples), got "
                         f"{M.shape[0]}")
    if M.dtype == np.bool_:
        return M
    if M.dtype.kind not in _NUMERIC:
        raise TypeError(f"{name} must be boolean (or 0/1 numbers), got dtype {M.dtype}")
    if M.size and not np.all((M == 0) | (M == 1)):
        raise ValueError(f"{name} must be boolean: found values other than 0 and 1; pass "
                         "True/False or 0/1")
    return M.astype(bool)


def check_labels(y, n: int, name: str = "y", *, binary: bool = False,
                 rows_of: str = "A") -> np.ndarray:
    """One label per row, checked: 1-D, ``n`` long, of the kind the caller needs.

    Parameters
    ----------
    y : array-like, shape (n,)
    n : int
        Rows of the data the labels belong to.
    name : str, default="y"
        The argument's name, for the messages.
    binary : bool, default=False
        False: integer class labels, any number of classes (floats that are
        whole numbers are accepted).  True: the two classes 0 and 1 (booleans,
        or numbers that are all 0 or 1), 1 being the positive class.
    rows_of : str, default="A"
        Name of the data, for the message when the lengths differ.

    Returns
    -------
    ndarray
        With ``binary``: bool.  Without: the labels as integers.

    Raises
    ------
    TypeError
        Class labels that are not integers (``binary=False``): text, or
        numbers with a fractional part.
    ValueError
        Not 1-D, not ``n`` long, or (``binary=True``) a value other than 0
        and 1, whatever its type: a binary target is a statement about values.
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one label per row), got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} labels but {rows_of} has {n} rows; pass "
                         "one label per row")
    if binary:
        if arr.dtype == np.bool_:
            return arr
        if arr.dtype.kind not in _NUMERIC or not np.all((arr == 0) | (arr == 1)):
            raise ValueError(f"{name} must be binary with values in {{0, 1}} "
                             "(1 = positive class)")
        return arr.astype(bool)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise TypeError(f"{name} must hold integer class labels; encode the classes as "
                            "0, 1, 2...")
        return arr.astype(np.int64)
    if arr.dtype.kind not in "biu":
        raise TypeError(f"{name} must hold integer class labels, got dtype {arr.dtype}; "
                        "encode the classes as 0, 1, 2...")
    return arr


def check_sample_weight(sample_weight, n: int, *, rows_of: str = "X",
                        positive: bool = False, copy: bool = True) -> np.ndarray | None:
    """Per-row weights, checked: ``n`` finite non-negative numbers.

    Parameters
    ----------
    sample_weight : array-like of shape (n,), or None
        A row or column vector is accepted too.
    n : int
        Rows of the data.
    rows_of : str, default="X"
        Name of the data, for the message when the lengths differ.
    positive : bool, default=False
        Also require a positive weight somewhere (a fit needs something to
        learn from).
    copy : bool, default=True
        Return a copy even when the weights are floats already.  A caller
        that never writes to them may pass False (on millions of rows a copy
        is tens of MB held through a search).

    Returns
    -------
    ndarray of float, shape (n,), or None
        None when ``sample_weight`` is None (the caller decides what that
        means: usually every weight 1).

    Raises
    ------
    TypeError
        The weights are not numbers.
    ValueError
        Wrong length or shape, a negative, NaN or infinite weight, or (with
        ``positive``) every weight zero.
    """
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight)
    if w.dtype.kind not in _NUMERIC:
        raise TypeError(f"sample_weight must hold numbers, got dtype {w.dtype}")
    if w.ndim > 1 and w.size == max(w.shape):     # a row or a column vector
        w = w.reshape(-1)
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D (one weight per row), got shape {w.shape}")
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has {w.shape[0]} entries but {rows_of} has {n} rows")
    w = w.astype(float, copy=copy)
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    if positive and n and not (w > 0).any():
        raise ValueError("sample_weight is zero for every row (sample); at least one weight "
                         "must be positive")
    return w


def check_counts(sample_weight, n: int, *, rows_of: str = "A") -> np.ndarray | None:
    """Frequency weights, checked: ``n`` non-negative whole numbers.

    A row of weight ``k`` stands for ``k`` identical rows, so engines that
    count mistakes exactly (CORELS, the miner) take these and nothing
    fractional.

    Parameters
    ----------
    sample_weight : array-like of shape (n,), or None
        Whole numbers (any numeric dtype; floats must have no fractional part).
    n : int
        Rows of the data.
    rows_of : str, default="A"
        Name of the data, for the message when the lengths differ.

    Returns
    -------
    ndarray of int64, shape (n,), or None
        None when ``sample_weight`` is None (every row counts once).

    Raises
    ------
    TypeError
        The weights are not numbers.
    ValueError
        Wrong length or shape; a negative, NaN, infinite or fractional
        weight; or a total of :data:`MAX_TOTAL_COUNT` or more.
    """
    w = check_sample_weight(sample_weight, n, rows_of=rows_of)
    if w is None:
        return None
    if (w != np.floor(w)).any():
        raise ValueError("sample_weight must hold whole numbers (frequency weights: a row of "
                         "weight k counts as k identical rows); this engine counts mistakes "
                         "exactly, so round or scale the weights to integers")
    if w.sum() >= MAX_TOTAL_COUNT:
        raise ValueError(f"sample_weight adds up to {w.sum():.4g} rows, more than the "
                         f"{MAX_TOTAL_COUNT} that exact counting allows")
    return w.astype(np.int64)
