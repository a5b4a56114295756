"""Helpers for the CORELS tests: brute force, random instances, compas files.

The brute force is independent of the engine: it enumerates rule lists in
plain Python and scores each with the paper's objective (Angelino et al.,
JMLR 2018, Section 3.2): R(d) = mistakes(d) / N + c * K, each rule labelled
with the majority class of the samples it captures, in exact
``fractions.Fraction`` arithmetic.  ``c`` is read as the nearest fraction
with a denominator of at most 10**6 (``c = k / N`` given as a float means
k / N).  Its only shortcut is that a list of K rules scores at least c * K,
so once c * K exceeds the empty list's score no longer list can win.
"""

from fractions import Fraction

import numpy as np


def all_rule_lists(A, y, c, max_len=None):
    """Every rule list (prefix of distinct antecedents) that could be optimal.

    Yields ``(objective, prefix, mistakes, uncaptured, rules)`` where
    ``objective`` is a Fraction, ``uncaptured[k]`` is the set of samples (a
    Python int used as a bit set) that the first ``k`` rules leave
    (``uncaptured[0]`` is every sample) and ``rules[k]`` is ``(captured,
    correct, mistakes)`` of rule ``k``; the default rule's mistakes are
    ``mistakes - sum`` of the rules'.
    """
    A = np.asarray(A, dtype=bool)
    n, m = A.shape
    codes = np.unique(np.asarray(y), return_inverse=True)[1].reshape(-1)
    class_bits = [sum(1 << i for i in range(n) if codes[i] == k) for k in range(codes.max() + 1)]
    columns = [sum(1 << i for i in range(n) if A[i, j]) for j in range(m)]

    def majority_mistakes(bits):  # label the set with its majority class
        return bits.bit_count() - max((bits & cb).bit_count() for cb in class_bits)

    cf = Fraction(c).limit_denominator(10**6)
    everyone = (1 << n) - 1
    empty = Fraction(majority_mistakes(everyone), n)
    limit = m if max_len is None else min(m, max_len)

    def visit(prefix, left, rule_mistakes, lefts, rules):
        mistakes = rule_mistakes + majority_mistakes(left)
        yield Fraction(mistakes, n) + cf * len(prefix), prefix, mistakes, lefts, rules
        if len(prefix) >= limit or cf * (len(prefix) + 1) > empty:
            return
        for j in range(m):
            if j in prefix:
                continue
            captured = left & columns[j]
            wrong = majority_mistakes(captured)
            rule = (captured.bit_count(), captured.bit_count() - wrong, wrong)
            yield from visit(prefix + (j,), left & ~captured, rule_mistakes + wrong,
                             lefts + (left & ~captured,), rules + (rule,))

    yield from visit((), everyone, 0, (everyone,), ())


def canonical_best(lists):
    """The minimum of (objective, length, indices): the engine's tie-break."""
    best = min(lists, key=lambda item: (item[0], len(item[1]), item[1]))
    return best


def brute_force(A, y, c, max_len=None):
    """Return (mistakes, prefix) of the optimal rule list (canonical ties)."""
    _, prefix, mistakes, _, _ = canonical_best(all_rule_lists(A, y, c, max_len))
    return mistakes, prefix


def optimum(A, y, c):
    """The optimal objective, as a float."""
    return float(canonical_best(all_rule_lists(A, y, c))[0])


from helpers import SHARED_DATA

COMPAS_DIR = SHARED_DATA / "compas_corels"


def load_compas_antecedents(split="train"):
    """The CORELS authors' compas antecedents: (A bool (6489, 155), y, names).

    Parses ``compas_<split>.out`` (one line per antecedent: ``{name} 0 1 ...``)
    and ``compas_<split>.label`` (the ``{recidivate-within-two-years:Yes}``
    line gives y = 1).
    """
    names, rows = [], []
    with open(f"{COMPAS_DIR}/compas_{split}.out") as fh:
        for line in fh:
            parts = line.split()
            if parts:
                names.append(parts[0])
                rows.append([int(v) for v in parts[1:]])
    A = np.array(rows, dtype=bool).T
    y = None
    with open(f"{COMPAS_DIR}/compas_{split}.label") as fh:
        for line in fh:
            parts = line.split()
            if parts and parts[0] == "{recidivate-within-two-years:Yes}":
                y = np.array([int(v) for v in parts[1:]], dtype=np.int64)
    if y is None:
        raise ValueError("label file has no {recidivate-within-two-years:Yes} line")
    return A, y, names


def random_instance(rng, n_max=60, m_max=7, n_classes_max=3):
    """A small random problem with the awkward cases mixed in."""
    n = int(rng.integers(1, n_max + 1))
    m = int(rng.integers(1, m_max + 1))
    density = rng.uniform(0.05, 0.8)
    A = rng.random((n, m)) < density
    if m >= 2 and rng.random() < 0.3:  # duplicate column
        A[:, int(rng.integers(1, m))] = A[:, 0]
    if rng.random() < 0.2:  # constant columns
        A[:, -1] = bool(rng.integers(0, 2))
    if n >= 4 and rng.random() < 0.4:  # duplicate rows, labels drawn independently
        k = int(rng.integers(1, n // 2 + 1))
        A[n - k:] = A[:k]
    n_classes = int(rng.integers(2, n_classes_max + 1))
    y = rng.integers(0, n_classes, n)
    if rng.random() < 0.3:  # skewed labels
        y = np.where(rng.random(n) < 0.8, 0, y)
    # c: ties in c*N (integers and halves), or arbitrary
    choice = rng.random()
    if choice < 0.4:
        c = int(rng.integers(0, 4)) / n
    elif choice < 0.5:
        c = (int(rng.integers(1, 6)) + 0.5) / n
    elif choice < 0.55:
        c = 0.0
    else:
        c = float(rng.choice([0.005, 0.01, 0.02, 0.035, 0.05, 0.1]))
    return A, y, c
