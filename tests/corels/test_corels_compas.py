"""Published anchor: the CORELS compas antecedents (155 x 6489)."""

import numpy as np
import pytest

from corels_testutils import load_compas_antecedents
from rulekit.corels import search


@pytest.fixture(scope="module")
def compas():
    A, y, names = load_compas_antecedents()
    assert A.shape == (6489, 155)
    return A, y, names


def test_compas_c001_certified(compas):
    A, y, names = compas
    r = search(A, y, 0.01)
    assert r.status == "optimal"
    assert r.mistakes == 2258
    assert len(r.prefix) == 2
    assert r.objective == pytest.approx(0.3679734936, abs=1e-10)
    assert r.lower_bound == r.objective
    assert [names[a] for a in r.prefix] == ["{priors:>3}", "{sex:Male,juvenile-crimes:>0}"]
    assert r.rule_labels == (1, 1) and r.default_label == 0
    tr = r.trace
    assert np.all(np.diff(tr["best_objective"]) <= 1e-15)
    assert np.all(np.diff(tr["lower_bound"]) >= -1e-12)
    assert np.all(tr["lower_bound"] <= tr["best_objective"] + 1e-12)
    assert tr["best_objective"][-1] == pytest.approx(r.objective)
    assert np.isfinite(tr["log10_remaining"][0])


def test_compas_anytime_time_limit(compas):
    A, y, _ = compas
    r = search(A, y, 0.001, time_limit=0.5)
    assert r.status == "time_limit"
    assert r.lower_bound <= r.objective
    assert r.lower_bound < r.objective
    # the empty list is always available, so the answer never gets worse
    assert r.objective <= y.mean()


def test_packaged_loader_gives_the_same_instance(compas):
    from rulekit.datasets import load_corels_compas

    A, y, names = compas
    bunch = load_corels_compas()
    assert np.array_equal(np.asarray(bunch.data, dtype=bool), A)
    assert np.array_equal(np.asarray(bunch.target), y)
    assert [n.strip("{}") for n in bunch.feature_names] == [n.strip("{}") for n in names]
