"""A hand-checked example: y = x3 OR (x1 AND x2) on the 8 points of {0,1}^3."""

import numpy as np
import pytest

from colgen_helpers import toy_data
from rulekit.colgen import ColGenSettings, search
from rulekit.colgen._beam import beam_search
from rulekit.colgen._master import MasterLP
from rulekit.colgen._pricing import PricingProblem, price_ip
from rulekit.evaluate import all_of


@pytest.fixture
def toy():
    return toy_data()


def _master0(X, y, solver):
    wp = y.astype(float)
    wq = 1.0 - wp
    m = MasterLP(wp, wq, 4, 0.0, 0.0, solver=solver)
    for j in range(3):
        m.add_column(all_of(X, (j,)), 1)
    return m


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_rmlp0_value_and_unique_duals(toy, solver):
    X, y = toy
    z, mu, lam, _ = _master0(X, y, solver).solve(10.0)
    assert z == pytest.approx(1.0)
    # rows are the 8 points of {0,1}^3 in order, so row 6 is (1,1,0)
    expected = np.zeros(8)
    expected[6] = 1.0
    np.testing.assert_allclose(mu, expected, atol=1e-9)
    assert lam == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_pricing0_returns_x1_and_x2(toy, solver):
    X, y = toy
    mu = np.zeros(8)
    mu[6] = 1.0
    r = (1.0 - y) - mu
    out = price_ip(PricingProblem(X, r, 0.0, 0.0, 0.0, 3), ColGenSettings(), solver=solver,
                   time_limit=10.0)
    assert (0, 1) in out.clauses
    assert out.proven
    assert out.bound == pytest.approx(-1.0, abs=1e-6)
    found = beam_search(PricingProblem(X, r, 0.0, 0.0, 0.0, 3, Xf=X.astype(float)),
                        ColGenSettings()).ranked
    assert found[0] == (pytest.approx(-1.0), (0, 1))


@pytest.mark.parametrize("pricing", ["auto", "ip"])
@pytest.mark.parametrize("lp_solver", ["highs", "cbc"])
def test_toy_certificate_C4(toy, pricing, lp_solver):
    X, y = toy
    res = search(X, y, max_complexity=4, max_literals=3,
                 settings=ColGenSettings(pricing=pricing, lp_solver=lp_solver, record_duals=True,
                                         initial_beam=False))
    t = res.trace
    assert t[0].rmlp == pytest.approx(1.0)
    assert t[0].n_added == 1 and t[0].best_rc == pytest.approx(-1.0)
    assert res.lp_value == pytest.approx(1.0 / 3.0)
    assert t[-1].lam == pytest.approx(1.0 / 3.0)
    assert res.lower_bound == 1.0
    assert res.objective == 1.0
    assert res.status == "optimal"
    assert res.certificate.gap == 0.0 and res.certificate.proved_optimal
    assert res.complexity <= 4


def test_toy_C5_zero_loss(toy):
    X, y = toy
    res = search(X, y, max_complexity=5, max_literals=3)
    assert res.objective == 0.0
    assert res.status == "optimal"
    assert sorted(res.clauses) == [(0, 1), (2,)]
    np.testing.assert_array_equal(res.predict(X), y)


def test_toy_cnf(toy):
    X, y = toy
    res = search(X, y, form="cnf", max_complexity=6, max_literals=3)
    assert res.objective == 0.0 and res.status == "optimal"
    assert res.form == "cnf"
    assert sorted(res.clauses) == [(0, 2), (1, 2)]
    # read literally: AND over clauses of (OR of original conditions)
    literal = np.all([X[:, list(c)].any(axis=1) for c in res.clauses], axis=0)
    np.testing.assert_array_equal(literal.astype(int), y)
    np.testing.assert_array_equal(res.predict(X), y)
    res5 = search(X, y, form="cnf", max_complexity=5, max_literals=3)
    assert res5.lp_value == pytest.approx(0.25)
    assert res5.objective == 1.0 and res5.lower_bound == 1.0
