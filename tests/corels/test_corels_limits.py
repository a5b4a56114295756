"""Anytime behaviour: limits and interruptions give honest statuses."""

import numpy as np
import pytest

from corels_testutils import brute_force, random_instance
from rulekit.corels import search


def _instance(seed=0):
    rng = np.random.default_rng(seed)
    A = rng.random((150, 10)) < 0.3
    y = (rng.random(150) < 0.45).astype(int)
    y[A[:, 0] & A[:, 1]] = 1
    return A, y, 0.004


def test_node_limit_is_honest():
    A, y, c = _instance()
    full = search(A, y, c)
    assert full.status == "optimal"
    seen_limit = False
    for max_nodes in (1, 2, 5, 20, 100):
        r = search(A, y, c, max_nodes=max_nodes)
        assert r.stats["max_trie_size"] <= max_nodes
        if r.status == "node_limit":
            seen_limit = True
            assert r.lower_bound <= full.objective + 1e-12 <= r.objective + 1e-12
        else:
            assert r.status == "optimal" and r.objective == full.objective
    assert seen_limit


def test_node_limit_bounds_on_random_instances():
    rng = np.random.default_rng(42)
    for _ in range(40):
        A, y, c = random_instance(rng, n_max=80, m_max=7)
        mistakes, prefix = brute_force(A, y, c)
        opt = mistakes / len(y) + c * len(prefix)
        for policy in ("lower_bound", "dfs", "curious"):
            r = search(A, y, c, policy=policy, max_nodes=int(rng.integers(1, 30)))
            assert r.lower_bound <= opt + 1e-12 <= r.objective + 1e-12
            if r.status == "optimal":
                assert r.objective == pytest.approx(opt, abs=1e-12)
            else:
                assert r.status == "node_limit"


def test_callback_can_stop_the_search():
    calls = []

    def stop(info):
        calls.append(info)
        return True

    rng = np.random.default_rng(9)
    A = rng.random((3000, 60)) < 0.3
    y = (rng.random(3000) < 0.45).astype(int)
    r = search(A, y, 0.0005, callback=stop)
    assert r.status == "interrupted"
    assert len(calls) == 1
    state = calls[0]
    assert state.learner == "corels" and state.unit == "nodes" and state.work >= 1
    assert state.lower_bound <= state.best_objective and "queue" in state.info
    assert r.lower_bound <= r.objective


def test_keyboard_interrupt_returns_best_so_far():
    rng = np.random.default_rng(9)
    A = rng.random((3000, 60)) < 0.3
    y = (rng.random(3000) < 0.45).astype(int)

    def ctrl_c(info):
        raise KeyboardInterrupt

    r = search(A, y, 0.0005, callback=ctrl_c)
    assert r.status == "interrupted"
    assert r.lower_bound <= r.objective
    assert r.objective <= min(y.mean(), 1 - y.mean()) + 1e-12


@pytest.mark.slow
@pytest.mark.serial  # asserts the wall time the search took
def test_time_limit():
    rng = np.random.default_rng(10)
    A = rng.random((3000, 80)) < 0.3
    y = (rng.random(3000) < 0.45).astype(int)
    r = search(A, y, 0.0002, time_limit=0.3)
    assert r.status == "time_limit"
    assert r.stats["total_time"] < 5
    assert r.lower_bound <= r.objective


def test_real_ctrl_c_returns_the_best_list_so_far():
    import os
    import signal

    from rulekit.datasets import load_corels_compas

    inst = load_corels_compas()
    A, y = inst.data, inst.target
    sent = []

    def ctrl_c_once(state):
        # a real SIGINT, sent once the search's run is open (a timer could fire
        # while the problem is still being prepared, before there is a run)
        if not sent:
            sent.append(state.work)
            os.kill(os.getpid(), signal.SIGINT)
        return False

    r = search(A, y, 0.0005, time_limit=120, callback=ctrl_c_once)  # far too hard to finish
    assert sent and r.status == "interrupted"
    assert r.lower_bound <= r.objective
    assert r.objective <= y.mean() + 1e-12  # never worse than the empty list
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
