"""Breast cancer's DNF states a lower bound of 0: the master LP itself is 0 there (issue 37).

The proof is a fractional cover of the positives by *pure* clauses (holding on no
negative row) of the fitted binarizer's conditions, within the fitted budget ``C``,
found by ``benchmarks/colgen_lp_zero.py --search`` and stored in
``benchmarks/results/colgen_lp_zero.json``.  Here it is checked in exact rational
arithmetic against a fit at the defaults made now, with every condition read off the
data directly (not through the binarizer), and the checker itself is shown to refuse
covers that are impure, short of a positive, or over the budget.
"""

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from helpers import load_benchmark


@pytest.fixture(scope="module")
def lp_zero():
    return load_benchmark("colgen_lp_zero")


@pytest.fixture(scope="module")
def benign(lp_zero):
    stored = json.loads(Path(lp_zero.OUT).read_text())
    return next(e for e in stored if e["positive"] == "benign")


@pytest.mark.slow    # two default fits of breast cancer per labelling
@pytest.mark.parametrize("positive", ["benign", "malignant"])
def test_the_stored_cover_proves_the_master_lp_is_zero(lp_zero, positive):
    entry = next(e for e in json.loads(Path(lp_zero.OUT).read_text())
                 if e["positive"] == positive)
    _, _, fit = lp_zero.problem(positive)
    # the fit this is about: its bound is 0 while its objective is not
    assert fit.certificate_.lower_bound == 0 < fit.certificate_.objective
    assert lp_zero.check(entry)


@pytest.mark.slow    # four more fits
def test_the_check_refuses_what_proves_nothing(lp_zero, benign):
    X, y, fit = lp_zero.problem("benign")
    conds = [(c.feature, c.op, float(c.value)) for c in fit.binarizer_.conditions_]
    # over a smaller budget than the fit's, the same cover proves nothing
    assert not lp_zero.check(benign, budget=int(fit.max_complexity_) - 1)
    # a clause that holds on a negative row
    impure = copy.deepcopy(benign)
    loose = next(c for c in conds if lp_zero.holds(X, c)[y == 0].any())
    impure["clauses"][0]["conditions"] = [list(loose)]
    assert not lp_zero.check(impure)
    # a positive row that no clause holds on: drop every clause of the least covered one
    held = [np.all([lp_zero.holds(X, tuple(c)) for c in cl["conditions"]], axis=0)[y == 1]
            for cl in benign["clauses"]]
    row = int(np.argmin(np.sum(held, axis=0)))
    short = copy.deepcopy(benign)
    short["clauses"] = [cl for cl, h in zip(benign["clauses"], held) if not h[row]]
    assert not lp_zero.check(short)
    # a condition the fitted binarizer does not have
    foreign = copy.deepcopy(benign)
    foreign["clauses"][0]["conditions"][0][2] += 1e-3
    assert not lp_zero.check(foreign)
