"""Memory and node limits: honest status, a valid bound, never above the limit."""

import numpy as np
import pytest

from corels_testutils import optimum, random_instance
from helpers import seeds
from rulekit.corels import search


def _hard_instance(seed=0, n=400, m=40):
    rng = np.random.default_rng(seed)
    A = rng.random((n, m)) < 0.3
    y = (rng.random(n) < 0.45).astype(int)
    y[A[:, 0] & A[:, 1]] = 1
    return A, y


def test_memory_limit_returns_best_list_and_valid_bound():
    A, y = _hard_instance()
    full = search(A, y, 0.003)
    assert full.status == "optimal"
    floor = _min_mb(A, y)
    stopped = 0
    for extra in (0.05, 0.2, 1.0):
        r = search(A, y, 0.003, max_memory=floor + extra)
        assert r.stats["memory_mb"] <= floor + extra
        assert r.lower_bound <= full.objective + 1e-12 <= r.objective + 1e-12
        if r.status == "memory_limit":
            stopped += 1
            assert r.lower_bound < r.objective
        else:
            assert r.status == "optimal" and r.objective == pytest.approx(full.objective)
    assert stopped >= 1


def _min_mb(A, y):
    """The smallest max_memory the search accepts (read from its error)."""
    with pytest.raises(ValueError, match=r"at least ([0-9.]+)") as info:
        search(A, y, 0.003, max_memory=1e-3)
    return float(info.value.args[0].rsplit("at least ", 1)[1])


@pytest.mark.parametrize("seed", seeds(3, fast=1))
def test_tiny_limits_bracket_the_brute_force_optimum(seed):
    rng = np.random.default_rng(900 + seed)
    for _ in range(15):
        A, y, c = random_instance(rng, n_max=80, m_max=7)
        opt = optimum(A, y, c)
        for kw in ({"max_nodes": int(rng.integers(1, 6))},
                   {"max_memory": _min_mb_any(A, y, c) + float(rng.uniform(0, 0.02))}):
            for policy in ("lower_bound", "curious", "dfs"):
                r = search(A, y, c, policy=policy, **kw)
                assert r.lower_bound <= opt + 1e-9 and opt <= r.objective + 1e-9
                if r.status == "optimal":
                    assert r.objective == pytest.approx(opt, abs=1e-12)
                else:
                    assert r.status in ("node_limit", "memory_limit")


def _min_mb_any(A, y, c):
    try:
        search(A, y, c, max_memory=1e-4)
    except ValueError as exc:
        return float(exc.args[0].rsplit("at least ", 1)[1])
    return 1e-4  # a trivial problem never allocates a search


def test_max_memory_below_the_data_names_the_number_needed():
    A, y = _hard_instance(m=300)
    with pytest.raises(ValueError, match=r"max_memory=0\.01 MB is below the [0-9.]+ MB.*at least"):
        search(A, y, 0.01, max_memory=0.01)


@pytest.mark.parametrize("value,error", [(0, ValueError), (-3, ValueError), ("lots", ValueError),
                                         ([1], TypeError), (None, TypeError)])
def test_max_memory_checks(value, error):
    A, y = _hard_instance(n=20, m=4)
    with pytest.raises(error, match="max_memory"):
        search(A, y, 0.01, max_memory=value)


def test_memory_grows_with_expansions_not_children():
    """A node with its queue and map entries is a small fraction of 150 bytes per child."""
    A, y = _hard_instance(n=600, m=60)
    r = search(A, y, 0.002, max_nodes=20_000)
    s = r.stats
    assert s["nodes_inserted"] > 10 * s["max_trie_size"]  # children kept mostly as arena entries
    state_mb = s["memory_mb"] - _min_mb_any(A, y, 0.002)
    assert state_mb * 2**20 < 40 * s["nodes_inserted"] + 200 * s["max_trie_size"] + 2**21
