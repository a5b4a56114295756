"""Behaviour of rulekit.frl.search: worked example, D1, invariants, anytime
behaviour, reproducibility and input validation."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit._anytime import SearchState
from rulekit.frl import FRLResult, capture_counts, search

from ._brute import objective, random_instance
from .conftest import A1, A2, A3


def _unproved_instance(seed=9, n=3000, m=120, k=40):
    """A signal spread over 40 antecedents: the bounds prove nothing within
    300,000 iterations (8 s here), so a short time limit always fires first."""
    rng = np.random.default_rng(seed)
    A = rng.random((n, m)) < 0.3
    score = A[:, :k] @ rng.uniform(0.5, 1.5, k)
    y = (rng.random(n) < 1 / (1 + np.exp(-(score - 0.3 * k)))).astype(int)
    return A, y


def test_example_frl_optimum(example):
    A, y = example
    for seed in range(3):
        r = search(A, y, w=2, C=0.01, n_iter=300, random_state=seed)
        assert isinstance(r, FRLResult)
        assert r.prefix == (A1, A2)
        assert r.objective == pytest.approx(0.42, abs=1e-12)
        assert r.probabilities == pytest.approx([2 / 3, 2 / 3, 1 / 4], abs=1e-12)
        assert r.counts.tolist() == [[2, 1], [2, 1], [1, 3]]
        assert r.risk == pytest.approx(0.4, abs=1e-12)
        assert r.penalty == 0.0
        assert r.threshold == pytest.approx(1 / 3)
        # the memo proves the optimum long before the 300 iterations
        assert r.status == "optimal" and 0 < r.n_iter_done < 300
        assert r.certificate.proved_optimal and r.certificate.lower_bound == r.objective


def test_example_soft_optimum(example):
    A, y = example
    for seed in range(3):
        r = search(A, y, w=2, C=0.01, C1=0.5, n_iter=300, random_state=seed)
        assert r.prefix == (A1, A2, A3)
        assert r.objective == pytest.approx(119 / 300, abs=1e-12)
        assert r.proportions == pytest.approx([2 / 3, 2 / 3, 1, 0], abs=1e-12)
        assert r.probabilities == pytest.approx([2 / 3, 2 / 3, 2 / 3, 0], abs=1e-12)
        assert r.penalty == pytest.approx(1 / 3, abs=1e-12)
        assert r.soft
        big = search(A, y, w=2, C=0.01, C1=100, n_iter=300, random_state=seed)
        assert big.prefix == (A1, A2)
        assert big.objective == pytest.approx(0.42, abs=1e-12)


def test_example_first_iteration_considers_all_three(example):
    A, y = example
    r = search(A, y, w=2, C=0.01, n_iter=50, stop_prob=0.0, random_state=0,
               prefix_memo=False)
    # first iteration: no incumbent, so the root candidate set is {a1, a2, a3}
    assert r.trace.candidate_set_sizes(0)[0] == 3
    # once 0.42 is known, a3 is pruned at the root
    later = [r.trace.candidate_set_sizes(i)[0] for i in range(50)
             if r.trace.best_objective[i - 1] <= 0.42 + 1e-12 and i > 0]
    assert later and all(s == 2 for s in later)


def test_prefix_memo_proves_example_optimal(example):
    A, y = example
    for C1 in (None, 0.5):
        r = search(A, y, w=2, C=0.01, C1=C1, n_iter=200, stop_prob=0.0, random_state=0)
        assert r.status == "optimal" and r.lower_bound == r.objective
        # the search stops at the proof: every iteration ran is in the trace
        assert 0 < r.n_iter_done < 200 and len(r.trace.objective) == r.n_iter_done
        assert r.trace.candidate_set_sizes(0)[0] == 3
        plain = search(A, y, w=2, C=0.01, C1=C1, n_iter=200, stop_prob=0.0, random_state=0,
                       prefix_memo=False)
        # the paper's search finds the same list, but its bounds alone prove nothing
        assert plain.objective == r.objective and plain.status == "heuristic"
        assert plain.n_iter_done == 200 and plain.lower_bound < plain.objective
        assert plain.certificate.lower_bound is None


def test_d1_micro_example_is_falling():
    # A covers 5 rows (3+, 2-); the other 5 rows are (4+, 1-).
    A = np.array([[1]] * 5 + [[0]] * 5, dtype=bool)
    y = np.array([1, 1, 1, 0, 0, 1, 1, 1, 1, 0])
    for seed in range(5):
        r = search(A, y, w=1, C=0.01, n_iter=1, random_state=seed)
        assert r.prefix == ()
        assert r.objective == pytest.approx(0.3, abs=1e-12)
        r = search(A, y, w=1, C=0.01, n_iter=200, random_state=seed)
        assert r.prefix == () and np.all(np.diff(r.proportions) <= 0)


def test_trace_invariants():
    rng = np.random.default_rng(1)
    for i in range(40):
        A, y = random_instance(rng, max_n=40, max_m=8)
        soft = i % 2 == 1
        r = search(A, y, w=3.0, C=0.01, C1=0.5 if soft else None, n_iter=97,
                   random_state=i)
        t = r.trace
        assert len(t.objective) == len(t.best_objective) == r.n_iter_done
        assert r.n_iter_done == 97 if r.status == "heuristic" else r.n_iter_done < 97
        assert np.all(np.diff(t.best_objective) <= 0)
        assert t.best_objective == pytest.approx(np.minimum.accumulate(t.objective), abs=0)
        assert r.objective == t.best_objective[-1] == t.objective.min()
        assert len(t.candidate_offsets) == r.n_iter_done + 1 and t.candidate_offsets[0] == 0
        assert np.all(np.diff(t.candidate_offsets) >= 0)
        assert t.candidate_offsets[-1] == len(t.candidate_sizes)
        assert np.all(t.candidate_sizes >= 0) and np.all(t.candidate_sizes <= A.shape[1])
        # from-scratch recomputation of the incumbent
        counts = capture_counts(A, y, r.prefix)
        assert np.array_equal(counts, r.counts)
        exact = objective(counts, 3.0, 0.01, 0.5 if soft else None)
        assert r.objective == pytest.approx(float(exact), abs=1e-12)


def test_training_predictions_reproduce_risk():
    rng = np.random.default_rng(8)
    for i in range(30):
        A, y = random_instance(rng, max_n=60, max_m=8)
        w = float(rng.choice([1.0, 3.0, 7.0]))
        r = search(A, y, w=w, C=1e-3, n_iter=200, random_state=i)
        # rule that fires on each row
        fired = np.full(len(y), len(r.prefix))
        for j in reversed(range(len(r.prefix))):
            fired[A[:, r.prefix[j]]] = j
        proba = r.probabilities[fired]
        pred = proba > r.threshold
        loss = (w * np.sum((y == 1) & ~pred) + np.sum((y == 0) & pred)) / len(y)
        assert loss == pytest.approx(r.risk, abs=1e-12)


def test_reproducible_and_row_permutation_invariant():
    rng = np.random.default_rng(4)
    for i in range(20):
        A, y = random_instance(rng, max_n=50, max_m=10)
        for C1 in (None, 0.5):
            a = search(A, y, w=2.0, C=1e-3, C1=C1, n_iter=150, random_state=i)
            b = search(A, y, w=2.0, C=1e-3, C1=C1, n_iter=150, random_state=i)
            perm = rng.permutation(len(y))
            c = search(A[perm], y[perm], w=2.0, C=1e-3, C1=C1, n_iter=150, random_state=i)
            for other in (b, c):
                assert other.prefix == a.prefix
                assert other.objective == a.objective
                assert np.array_equal(other.trace.objective, a.trace.objective)
                assert np.array_equal(other.trace.candidate_sizes, a.trace.candidate_sizes)


def test_generator_is_used_and_global_state_untouched():
    rng0 = np.random.default_rng(0)
    A, y = random_instance(rng0, max_n=30, max_m=6)
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    g = np.random.default_rng(5)
    r1 = search(A, y, w=2.0, C=0.0, n_iter=40, random_state=g)
    r2 = search(A, y, w=2.0, C=0.0, n_iter=40, random_state=np.random.default_rng(5))
    assert np.array_equal(r1.trace.objective, r2.trace.objective)
    assert np.array_equal(np.random.get_state()[1], before)
    # a RandomState (as sklearn hands out) is accepted too
    search(A, y, w=2.0, C=0.0, n_iter=5, random_state=np.random.RandomState(0))


def test_large_C_gives_empty_list_every_iteration():
    rng = np.random.default_rng(6)
    for i in range(20):
        A, y = random_instance(rng, max_n=30, max_m=5)
        n_pos = int(y.sum())
        C = min(2.0 * n_pos, len(y) - n_pos) / len(y)
        r = search(A, y, w=2.0, C=C, n_iter=30, random_state=i)
        assert r.prefix == ()
        assert np.all(r.trace.candidate_offsets == 0)       # never extended


def test_one_class_and_no_antecedents():
    A = np.ones((6, 3), dtype=bool)
    for label, prob in ((0, 0.0), (1, 1.0)):
        y = np.full(6, label)
        for C1 in (None, 0.5):
            r = search(A, y, w=7, C=1e-6, C1=C1, n_iter=10, random_state=0)
            assert r.prefix == () and r.probabilities.tolist() == [prob]
            assert r.objective == 0.0
    A0 = np.zeros((5, 0), dtype=bool)
    y = np.array([1, 0, 0, 1, 0])
    for C1 in (None, 0.5):
        r = search(A0, y, w=1, C=0, C1=C1, n_iter=3, random_state=0)
        assert r.prefix == () and r.probabilities == pytest.approx([0.4])
        assert r.objective == pytest.approx(0.4)


def test_time_limit_and_callback_and_interrupt():
    A, y = _unproved_instance()
    r = search(A, y, w=3, C=1e-4, n_iter=10**8, random_state=0, time_limit=0.3)
    assert r.status == "time_limit" and 0 < r.n_iter_done < 10**8
    assert len(r.trace.objective) == r.n_iter_done
    assert r.objective == r.trace.best_objective[-1]

    seen = []

    def stop_soon(state):
        seen.append(state)
        return state.work >= 20

    r = search(A, y, w=3, C=1e-4, n_iter=10**6, random_state=0, callback=stop_soon)
    assert r.status == "interrupted" and r.n_iter_done == seen[-1].work >= 20
    assert all(isinstance(s, SearchState) and s.learner == "frl" and s.unit == "iterations"
               for s in seen)
    assert seen[-1].best_objective == r.objective
    # the root's bound is a valid bound, reported to the callback
    assert seen[-1].lower_bound is not None and seen[-1].lower_bound <= r.objective
    assert r.certificate.status == "interrupted" and r.certificate.lower_bound is None

    def ctrl_c(state):
        if state.work >= 20:
            raise KeyboardInterrupt
        return False

    r = search(A, y, w=3, C=1e-4, C1=0.5, n_iter=10**6, random_state=0, callback=ctrl_c)
    assert r.status == "interrupted" and r.n_iter_done >= 20
    assert r.objective == r.trace.best_objective[-1]


def test_batch_cut_short_leaves_result_and_trace_in_agreement(monkeypatch):
    """A second Ctrl-C may land after a batch ran but before it was recorded:
    the result must then be the best list of the recorded iterations."""
    from rulekit.frl import _kernels

    A, y = _unproved_instance(12, 2000)
    real = _kernels.chunk
    calls = []

    def cut(*args):
        out = real(*args)
        calls.append(out[0])
        if len(calls) == 4:
            raise KeyboardInterrupt   # the batch ran, its record is lost
        return out

    monkeypatch.setattr(_kernels, "chunk", cut)
    r = search(A, y, w=3, C=1e-4, n_iter=10**6, random_state=0)
    assert r.status == "interrupted"
    assert r.n_iter_done == sum(calls[:3]) == len(r.trace.objective)
    assert r.objective == r.trace.best_objective[-1] == r.trace.objective.min()
    assert r.objective == pytest.approx(float(objective(r.counts, 3, 1e-4)), abs=1e-12)


def test_progress_bar_with_verbose(capsys):
    rng = np.random.default_rng(13)
    A = rng.random((500, 20)) < 0.3
    y = (rng.random(500) < 0.3).astype(int)
    search(A, y, w=3, C=1e-4, n_iter=300, random_state=0, verbose=1)
    err = capsys.readouterr().err
    assert "frl" in err and "iterations" in err and "best=" in err
    search(A, y, w=3, C=1e-4, n_iter=300, random_state=0)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(w=0), "w"), (dict(w=-1), "w"), (dict(C=-0.1), "C"), (dict(C1=-1), "C1"),
        (dict(n_iter=0), "n_iter"), (dict(curiosity_lambda=1.5), "curiosity_lambda"),
        (dict(stop_prob=-0.1), "stop_prob"), (dict(time_limit=0), "time_limit"),
        (dict(w=float("nan")), "w"),
    ],
)
def test_bad_parameters(example, kwargs, name):
    A, y = example
    args = dict(w=2, C=0.01, n_iter=5, random_state=0) | kwargs
    with pytest.raises(ValueError, match=name):
        search(A, y, **args)


def test_bad_data(example):
    A, y = example
    with pytest.raises(ValueError, match="y"):
        search(A, np.where(y == 1, 2, 0), w=2, C=0.01, n_iter=5, random_state=0)
    with pytest.raises(ValueError, match="y"):
        search(A, np.array(["a", "b"] * 5), w=2, C=0.01, n_iter=5, random_state=0)
    with pytest.raises(ValueError, match="y"):
        search(A, y[:-1], w=2, C=0.01, n_iter=5, random_state=0)
    with pytest.raises(ValueError, match="A"):
        search(A.astype(int) * 2, y, w=2, C=0.01, n_iter=5, random_state=0)
    with pytest.raises(ValueError, match="A"):
        search(A[:, 0], y, w=2, C=0.01, n_iter=5, random_state=0)
    with pytest.raises(ValueError, match="A"):
        search(np.zeros((0, 3), bool), np.zeros(0), w=2, C=0.01, n_iter=5, random_state=0)
    with pytest.raises(TypeError, match="n_iter"):
        search(A, y, w=2, C=0.01, n_iter=2.5, random_state=0)
    with pytest.raises(TypeError, match="random_state"):
        search(A, y, w=2, C=0.01, n_iter=5, random_state="x")
    # 0/1 integers and floats are accepted
    r = search(A.astype(np.int8), y.astype(float), w=2, C=0.01, n_iter=50, random_state=0)
    assert r.prefix == (A1, A2)


def test_real_ctrl_c_returns_incumbent():
    import os
    import signal
    import threading

    A, y = _unproved_instance(10)
    search(A, y, w=3, C=1e-4, n_iter=20, random_state=0)   # compile / load caches first
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        r = search(A, y, w=3, C=1e-4, n_iter=10**8, random_state=0)
    finally:
        timer.cancel()
    assert r.status == "interrupted" and 0 < r.n_iter_done < 10**8
    assert len(r.trace.objective) == r.n_iter_done
    assert r.objective == r.trace.best_objective[-1]
    assert r.objective == pytest.approx(float(objective(r.counts, 3, 1e-4)), abs=1e-12)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler   # restored
