"""The engine's answer equals exhaustive enumeration's, for every setting.

Answers are compared exactly: the mistakes, and the prefix itself (ties are
broken canonically: lower score, then shorter list, then lower indices).
"""

import numpy as np
import pytest

from corels_testutils import brute_force, random_instance
from rulekit.corels import BOUNDS, search

POLICIES = ["lower_bound", "curious", "objective", "bfs", "dfs"]
SYMMETRIES = ["none", "permutation", "capture"]
SETTINGS = [("all", None)] + [("all_but", b) for b in sorted(BOUNDS)]


def _check_against(A, y, c, expected, **kw):
    mistakes, prefix = expected
    r = search(A, y, c, **kw)
    n = A.shape[0]
    assert r.status == "optimal", kw
    assert r.mistakes == mistakes, (kw, r, expected)
    assert r.prefix == prefix, (kw, r, expected)
    assert r.objective == pytest.approx(mistakes / n + c * len(prefix), abs=1e-12)
    assert r.lower_bound == r.objective
    # labels are the majorities of the captured samples
    assert len(r.rule_labels) == len(prefix)
    assert r.counts.sum() == n
    assert r.counts.sum() - r.counts.max(axis=1).sum() == mistakes
    return r


@pytest.mark.slow  # about 20 CPU s in all
@pytest.mark.parametrize("seed", range(6))
def test_every_policy_map_and_ablation(seed):
    """10 instances per seed x 5 policies x 3 maps x (all on + each bound off)."""
    rng = np.random.default_rng(1000 + seed)
    for _ in range(10):
        A, y, c = random_instance(rng, n_max=60, m_max=7)
        expected = brute_force(A, y, c)
        for policy in POLICIES:
            for symmetry in SYMMETRIES:
                for _, off in SETTINGS:
                    bounds = set(BOUNDS) - {off}
                    r = _check_against(A, y, c, expected, policy=policy,
                                       symmetry=symmetry, bounds=bounds)
                    if off is not None:
                        assert r.stats["pruned"][off] == 0


@pytest.mark.slow  # about 11 CPU s in all
@pytest.mark.parametrize("seed", range(4))
def test_many_instances_default_settings(seed):
    """300 instances in all, N up to 200, with the default engine settings."""
    rng = np.random.default_rng(seed)
    for _ in range(75):
        A, y, c = random_instance(rng, n_max=200, m_max=7, n_classes_max=4)
        _check_against(A, y, c, brute_force(A, y, c))


@pytest.mark.parametrize("symmetry", SYMMETRIES)
def test_wider_instances(symmetry):
    """M up to 12 (c large enough that brute force stays small)."""
    rng = np.random.default_rng(7)
    for _ in range(12):
        n = int(rng.integers(40, 201))
        m = int(rng.integers(8, 13))
        A = rng.random((n, m)) < rng.uniform(0.1, 0.5)
        A[:, 1] = A[:, 0]
        y = (rng.random(n) < 0.4).astype(int)
        if rng.random() < 0.5:
            y[A[:, 2]] = 1 - y[A[:, 2]]
        empty = min(y.sum(), n - y.sum())
        # at most 3 rules can beat the empty list: c*N*4 > empty mistakes
        c = float(np.ceil(empty / 4 + 1)) / n
        expected = brute_force(A, y, c)
        for policy in POLICIES:
            _check_against(A, y, c, expected, policy=policy, symmetry=symmetry)


def test_no_bounds_at_all_still_exact():
    """With every bound off only the map prunes; the answer is unchanged."""
    rng = np.random.default_rng(11)
    for _ in range(15):
        A, y, c = random_instance(rng, n_max=40, m_max=5)
        expected = brute_force(A, y, c)
        for symmetry in SYMMETRIES:
            _check_against(A, y, c, expected, symmetry=symmetry, bounds="none")


def test_ties_prefer_shorter_then_lower_indices():
    # columns 0 and 1 are identical: both one-rule lists tie; index 0 wins
    A = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)
    y = np.array([1, 1, 0, 0])
    r = search(A, y, 0.0)
    assert r.prefix == (0,) and r.mistakes == 0
    # c*N = 1 exactly: one rule fixing one mistake ties with the empty list
    A = np.array([[1], [0], [0]], dtype=bool)
    y = np.array([1, 0, 0])
    r = search(A, y, 1 / 3)
    assert r.prefix == () and r.mistakes == 1 and r.status == "optimal"


def test_multiclass_labels_keep_their_values():
    rng = np.random.default_rng(3)
    A = rng.random((90, 5)) < 0.4
    codes = rng.integers(0, 3, 90)
    codes[A[:, 0]] = 2
    y = np.array([7, 3, 11])[codes]
    r = search(A, y, 0.01)
    expected = brute_force(A, y, 0.01)
    assert (r.mistakes, r.prefix) == expected
    assert set(r.rule_labels) <= {3, 7, 11} and r.default_label in {3, 7, 11}
    assert list(r.classes) == [3, 7, 11]


def test_deterministic():
    rng = np.random.default_rng(5)
    A, y, c = random_instance(rng, n_max=100, m_max=7)
    first = search(A, y, c, policy="curious", symmetry="capture")
    for _ in range(3):
        again = search(A, y, c, policy="curious", symmetry="capture")
        assert again.prefix == first.prefix
        assert again.stats["nodes_expanded"] == first.stats["nodes_expanded"]


def test_many_classes_use_several_packed_words():
    """8 classes do not fit one packed int64: the sums take several words."""
    rng = np.random.default_rng(21)
    for _ in range(10):
        n = int(rng.integers(50, 201))
        A = rng.random((n, 6)) < 0.35
        A[n // 2:] = A[: n - n // 2]  # duplicate rows -> weights > 1
        y = rng.integers(0, 8, n)
        y[A[:, 0]] = 5
        c = float(rng.choice([0.0, 2 / n, 0.01]))
        expected = brute_force(A, y, c)
        for symmetry in SYMMETRIES:
            for off in (None, "equivalent_points", "min_support"):
                _check_against(A, y, c, expected, symmetry=symmetry,
                               bounds=set(BOUNDS) - {off})


@pytest.mark.slow  # about 20 CPU s in all
@pytest.mark.parametrize("cap,share", [(0, 64), (1, 64), (3, 64), (3, 0), (2, 1)])
def test_a_capped_exact_gain_check_stays_exact(monkeypatch, cap, share):
    """The one-rule completion check gives up after ``cap`` counted sets per
    child, and once the search has counted ``cap`` sets plus ``share`` per
    check that answered yes (the child is then kept); the search must stay
    exact, with the check cut short as often as these small instances allow."""
    from rulekit.corels import _kernels

    monkeypatch.setattr(_kernels, "EXACT_MAX_COUNTS", cap)
    monkeypatch.setattr(_kernels, "EXACT_SHARE", share)
    rng = np.random.default_rng(77 + cap + 10 * share)
    checks = 0
    for _ in range(40):
        A, y, c = random_instance(rng, n_max=120, m_max=8)
        r = _check_against(A, y, c, brute_force(A, y, c))
        checks += r.stats["exact_gain_checks"]
        assert r.stats["exact_gain_counts"] <= cap * r.stats["exact_gain_checks"]
        assert r.stats["exact_gain_counts"] <= cap + share * r.stats["exact_gain_yes"]
        assert r.stats["exact_gain_yes"] <= r.stats["exact_gain_checks"]
    assert checks > 0  # the capped path ran


@pytest.mark.slow  # about 12 CPU s in all
@pytest.mark.parametrize("dense_share", [0.0, 1.01])
def test_bit_plane_counts_stay_exact(monkeypatch, dense_share):
    """Large data count with bit planes instead of the byte table; forced on
    here (every table counts as out of cache), the search must stay exact,
    also with several packed words (many classes; the reference-guided
    search runs them in test_corels_reference), with every plane kept
    whole (``dense_share`` 0) or as sparse words (1.01)."""
    from rulekit.corels import _problem

    monkeypatch.setattr(_problem, "LUT_CACHE_BYTES", 1)
    monkeypatch.setattr(_problem, "DENSE_PLANE_SHARE", dense_share)
    rng = np.random.default_rng(5150)
    for _ in range(40):
        A, y, c = random_instance(rng, n_max=200, m_max=7, n_classes_max=5)
        A[len(A) // 2:] = A[: len(A) - len(A) // 2]  # duplicate rows -> group weights > 1
        for symmetry in SYMMETRIES:
            _check_against(A, y, c, brute_force(A, y, c), symmetry=symmetry)
    prepared = _problem.prepare(A, y, np.unique(y), c, chosen=set(BOUNDS), policy=0,
                                symmetry=0, max_nodes=10)
    assert prepared.lut.shape[1] == 1  # the planes ran


@pytest.mark.slow  # about 8 CPU s in all
@pytest.mark.parametrize("n_fields,field_bits", [(3, 8), (4, 16), (9, 9)])
@pytest.mark.parametrize("skewed", [False, True])
def test_both_count_forms_sum_the_fields(n_fields, field_bits, skewed):
    """Byte table and bit planes: the packed sums of any set of groups are
    the per-field sums of the groups in it (numpy sums as the oracle).
    ``skewed``: most groups weigh 0 or 1 and a few are heavy, as in real
    data, so the planes of the high bits are kept as sparse words."""
    from numba import njit

    from rulekit.bitset import n_words, pack
    from rulekit.corels import _kernels
    from rulekit.corels._problem import bit_planes, packed_table, plane_sizes

    @njit
    def sums(lut, x, n_l):
        acc = np.zeros(n_l, np.int64)
        _kernels.count_set(lut, x, acc, n_l, np.zeros(x.shape[0], np.uint64))
        return acc

    rng = np.random.default_rng(n_fields)
    per = 63 // field_bits
    n_l = -(-n_fields // per)
    for g in (1, 63, 64, 65, 300):
        cap = (1 << field_bits) // g  # the fields' sums must fit their bits
        fields = rng.integers(0, max(cap, 1), size=(g, n_fields))
        if skewed:
            fields = np.minimum(fields, 1)
            heavy = rng.integers(g)  # one heavy group: its high bits sit in one word
            fields[heavy] = rng.integers(0, max(cap, 1), size=n_fields)
        planes = bit_planes(fields, field_bits, n_words(g))
        if skewed and g == 300 and fields.max() > 1:  # a plane set in 1 word of 5 is sparse
            n_dense, n_sparse = plane_sizes(planes)
            assert n_sparse > 0 and n_dense > 0
        forms = [packed_table(fields, field_bits, n_words(g)), planes]
        for _ in range(10):
            chosen = rng.random(g) < 0.5
            expected = fields[chosen].sum(axis=0)
            for lut in forms:
                acc = sums(lut, pack(chosen), n_l)
                got = [(int(acc[f // per]) >> (field_bits * (f % per))) & ((1 << field_bits) - 1)
                       for f in range(n_fields)]
                assert got == expected.tolist()
