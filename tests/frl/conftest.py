"""Shared fixtures for the FRL tests."""

from __future__ import annotations

import numpy as np
import pytest

# Worked example (hand-computed from the paper's formulas): rows x1..x10, antecedents a1..a3.
EXAMPLE_A = np.array(
    [
        [1, 1, 1],
        [1, 1, 1],
        [1, 0, 0],
        [0, 1, 0],
        [0, 1, 0],
        [0, 1, 1],
        [0, 0, 1],
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
    ],
    dtype=bool,
)
EXAMPLE_Y = np.array([1, 0, 1, 1, 1, 0, 1, 0, 0, 0])
A1, A2, A3 = 0, 1, 2


@pytest.fixture
def example():
    return EXAMPLE_A.copy(), EXAMPLE_Y.copy()


@pytest.fixture(scope="session")
def bank_full():
    """(A, y, antecedents) for bank_full_frl, mined as the paper does."""
    from ._bankfull import coverage, load_bank_full_frl, mine_per_class

    items, y = load_bank_full_frl()
    antecedents = mine_per_class(items, y, min_support=0.10, max_len=2)
    return coverage(items, antecedents), y, antecedents
