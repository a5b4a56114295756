"""The C++ CORELS input files that ``bench_corels_defaults.py --cpp`` writes.

``benchmarks/corels_files.py`` is benchmark code; these tests need no C++ binary.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from rulekit.corels._problem import group_samples

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "corels_files.py"


@pytest.fixture(scope="module")
def files():
    spec = importlib.util.spec_from_file_location("_corels_files", _PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _minority_by_definition(A, y):
    """Per sample, from the definition: outnumbered by the other label among identical rows.

    In a tied group, half of the group's samples are marked (which half does not matter).
    """
    n = len(y)
    same_row = [[j for j in range(n) if (A[j] == A[i]).all()] for i in range(n)]
    marked = np.zeros(n, dtype=bool)
    for i in range(n):
        own = sum(y[j] == y[i] for j in same_row[i])
        other = len(same_row[i]) - own
        marked[i] = own < other
    return marked, same_row


def test_minority_small_example(files):
    A = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0, 1], [1, 1]], dtype=bool)
    y = np.array([1, 1, 0, 0, 1, 1])
    got = files.minority(A, y)
    assert got[:3].tolist() == [False, False, True]      # a 2-1 group: the one 0
    assert got[3:5].sum() == 1                           # a tied group: one of the two
    assert not got[5]                                    # a group of one


@pytest.mark.parametrize("seed", range(20))
def test_minority_matches_definition_and_engine(files, seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 25)), int(rng.integers(0, 4))
    A = rng.random((n, m)) < 0.5
    y = rng.integers(0, 2, n)
    got = files.minority(A, y)
    want, same_row = _minority_by_definition(A, y)
    for i in range(n):
        group = same_row[i]
        own = sum(y[j] == y[i] for j in group)
        if 2 * own == len(group):      # tie: exactly half of the group marked, one label
            assert got[group].sum() == own and len(set(y[group][got[group]])) <= 1
        else:
            assert got[i] == want[i]
    # the equivalent-points mistakes rulekit's engine counts for the same data
    _, table, _ = group_samples(A, y, 2)
    assert got.sum() == (table.sum(axis=1) - table.max(axis=1)).sum()


def test_write_round_trip(files, tmp_path):
    A = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 1]], dtype=bool)
    y = np.array([0, 1, 1, 0])
    out, label, minor = files.write(tmp_path, "t", A, y)
    lines = out.read_text().splitlines()
    assert [line.split(" ")[0] for line in lines] == ["{a0}", "{a1}", "{a2}"]
    assert [line.split(" ")[1] for line in lines] == ["1010", "0011", "1101"]
    assert label.read_text().splitlines() == ["{label=0} 1001", "{label=1} 0110"]
    assert minor.read_text().splitlines() == ["{minor} 0000"]   # every row distinct
    with pytest.raises(ValueError, match="binary"):
        files.write(tmp_path, "u", A, np.array([0, 1, 2, 0]))
