"""Reference-guided search: the relative certificate, checked by brute force.

The claim of ``search(..., reference=r)`` (``REFERENCE_SCOPE``): no rule list
scores better than the returned one among the lists whose every rule
captures more than c*N samples and classifies more than c*N of them
correctly, and which, on the samples left uncaptured by each of their
non-empty proper prefixes, make at least as many mistakes as the reference.
The brute force below enumerates exactly that class (in Fractions).
"""

from fractions import Fraction

import numpy as np
import pytest

from corels_testutils import all_rule_lists, random_instance
from rulekit.corels import search
from rulekit.corels._search import REFERENCE_SCOPE


def _in_scope(item, ref_wrong, n, c):
    """Does the list meet the stated condition?"""
    _, prefix, mistakes, lefts, rules = item
    cn = Fraction(c).limit_denominator(10**6) * n
    if any(captured <= cn or correct <= cn for captured, correct, _ in rules):
        return False
    for k in range(1, len(prefix)):
        # mistakes of the list on what its first k rules leave
        on_rest = mistakes - sum(r[2] for r in rules[:k])
        if on_rest < (lefts[k] & ref_wrong).bit_count():
            return False
    return True


@pytest.mark.parametrize("seed,planes", [(0, False), (1, False), (2, False), (3, False),
                                         (4, True), (5, True)])
def test_relative_optimum_matches_brute_force_over_its_scope(seed, planes, monkeypatch):
    if planes:  # the bit-plane counts of large data, forced on
        from rulekit.corels import _problem

        monkeypatch.setattr(_problem, "LUT_CACHE_BYTES", 1)
    rng = np.random.default_rng(500 + seed)
    checked = 0
    for _ in range(12):
        A, y, c = random_instance(rng, n_max=60, m_max=6, n_classes_max=2)
        n = len(y)
        # a reference that is right on a random 60-95 % of the samples
        ref = np.where(rng.random(n) < rng.uniform(0.6, 0.95), y, 1 - y)
        ref_wrong = sum(1 << i for i in range(n) if ref[i] != y[i])
        lists = list(all_rule_lists(A, y, c))
        true_opt = min(item[0] for item in lists)
        scoped = [item[0] for item in lists if _in_scope(item, ref_wrong, n, c)]
        for symmetry in ("permutation", "capture", "none"):
            r = search(A, y, c, reference=ref, symmetry=symmetry)
            assert r.status in ("optimal", "optimal_relative")
            assert r.lower_bound == r.objective
            # a real list, so never better than the true optimum ...
            assert r.objective >= float(true_opt) - 1e-9
            # ... and no list of the stated class beats it
            if scoped:
                assert r.objective <= float(min(scoped)) + 1e-9
            checked += 1
    assert checked == 36


def test_status_and_scope_say_what_is_proved():
    rng = np.random.default_rng(3)
    A = rng.random((80, 6)) < 0.4
    y = (A[:, 0] ^ (rng.random(80) < 0.2)).astype(int)
    r = search(A, y, 0.02, reference=y.copy())
    assert r.status == "optimal_relative" and r.reference
    cert = r.certificate
    assert cert.proved_optimal and REFERENCE_SCOPE in cert.scope
    exact = search(A, y, 0.02)
    assert exact.status == "optimal" and not exact.reference
    # a perfect reference bounds nothing beyond the support conditions: same optimum
    assert r.objective == pytest.approx(exact.objective, abs=1e-12)


def test_reference_input_checks():
    A = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=bool)
    y = np.array([1, 0, 1, 0])
    with pytest.raises(ValueError, match="reference"):
        search(A, y, 0.1, reference=np.array([1, 0, 1]))
    with pytest.raises(TypeError, match="reference"):
        search(A, y, 0.1, reference=np.array([0.5, 1, 0, 1]))
    with pytest.raises(TypeError, match="reference"):
        search(A, y, 0.1, reference="gbdt")
