"""Bad input: clear errors, or the correct trivial answer."""

import numpy as np
import pytest

from rulekit.corels import search

A = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=bool)
Y = np.array([1, 0, 1, 0])


def test_non_boolean_A():
    with pytest.raises(ValueError, match="A"):
        search(np.array([[0, 2], [1, 0]]), [0, 1], 0.1)
    with pytest.raises(ValueError, match="A"):
        search(np.array([[0.5, 1.0], [1.0, 0.0]]), [0, 1], 0.1)
    with pytest.raises(TypeError, match="A"):
        search(np.array([["a", "b"], ["c", "d"]]), [0, 1], 0.1)
    with pytest.raises(ValueError, match="A"):
        search(np.ones(4, dtype=bool), Y, 0.1)


def test_zero_one_numbers_are_accepted():
    r1 = search(A.astype(int), Y, 0.1)
    r2 = search(A, Y, 0.1)
    assert r1.prefix == r2.prefix and r1.objective == r2.objective


@pytest.mark.parametrize("c", [-0.1, float("nan"), float("inf")])
def test_bad_c(c):
    with pytest.raises(ValueError, match="c"):
        search(A, Y, c)


def test_c_wrong_type():
    with pytest.raises(TypeError, match="c"):
        search(A, Y, "0.1")


def test_huge_c_gives_certified_empty_list():
    r = search(A, Y, 1e6)
    assert r.prefix == () and r.status == "optimal"
    assert r.objective == r.lower_bound == 0.5
    assert r.default_label == 0


def test_one_class_gives_certified_empty_list():
    r = search(A, np.ones(4, dtype=int), 0.0)
    assert r.prefix == () and r.status == "optimal"
    assert r.objective == 0.0 and r.lower_bound == 0.0 and r.default_label == 1


def test_no_antecedents():
    r = search(np.zeros((4, 0), dtype=bool), Y, 0.01)
    assert r.prefix == () and r.status == "optimal" and r.mistakes == 2


def test_no_samples():
    with pytest.raises(ValueError, match="N = 0"):
        search(np.zeros((0, 3), dtype=bool), np.zeros(0, dtype=int), 0.01)


@pytest.mark.parametrize("max_nodes", [0, -5])
def test_max_nodes_below_one(max_nodes):
    with pytest.raises(ValueError, match="max_nodes"):
        search(A, Y, 0.01, max_nodes=max_nodes)


def test_max_nodes_type():
    with pytest.raises(TypeError, match="max_nodes"):
        search(A, Y, 0.01, max_nodes=2.5)


def test_y_checks():
    with pytest.raises(ValueError, match="y"):
        search(A, Y[:3], 0.01)
    with pytest.raises(TypeError, match="y"):
        search(A, np.array([0.5, 1, 0, 1]), 0.01)
    with pytest.raises(TypeError, match="y"):
        search(A, np.array(["a", "b", "a", "b"]), 0.01)


def test_names_are_checked():
    with pytest.raises(ValueError, match="policy"):
        search(A, Y, 0.01, policy="random")
    with pytest.raises(ValueError, match="symmetry"):
        search(A, Y, 0.01, symmetry="perm")
    with pytest.raises(ValueError, match="bounds"):
        search(A, Y, 0.01, bounds={"lookahead", "magic"})
    with pytest.raises(TypeError, match="bounds"):
        search(A, Y, 0.01, bounds=3)
    with pytest.raises(TypeError, match="bounds"):
        search(A, Y, 0.01, bounds=["lookahead", 3])
    with pytest.raises(ValueError, match="time_limit"):
        search(A, Y, 0.01, time_limit=0)
    with pytest.raises(TypeError, match="callback"):
        search(A, Y, 0.01, callback=3)


def test_result_fields():
    r = search(A, Y, 0.01)
    assert r.status == "optimal"
    assert set(r.stats["pruned"]) >= {"hierarchical", "lookahead", "prefix_length",
                                      "min_support", "min_accurate_support",
                                      "rejection_propagation", "equivalent_points",
                                      "next_rule_gain", "reference", "symmetry"}
    for key in ("nodes_expanded", "nodes_inserted", "max_queue_size", "max_trie_size",
                "map_size", "time_to_best", "total_time", "cpu_time", "memory_mb"):
        assert key in r.stats
    lengths = {len(v) for v in r.trace.values()}
    assert len(lengths) == 1
    assert "CorelsResult(" in repr(r)
    with pytest.raises(Exception):
        r.objective = 0.0  # frozen
