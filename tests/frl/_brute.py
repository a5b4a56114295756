"""Brute-force enumeration of rule lists on tiny instances (test oracle).

Independent of ``rulekit.frl``: rows are bits of Python ints (not the
engine's packed layout), and every objective is computed here, exactly with
:class:`fractions.Fraction`, from the formulas of Chen & Rudin, "An
Optimization Approach to Learning Falling Rule Lists", AISTATS 2018:

* Eq. 4: the weighted risk of a list whose rules state probabilities
  ``p_j``, at the threshold ``tau = 1/(1+w)`` (Theorem 2.8): a row is
  predicted positive iff the probability of the rule that captures it is
  strictly above ``tau``; a missed positive costs ``w``, a false positive 1;
  the sum is divided by ``n``.  A compatible list states the empirical
  proportions ``p_j = n+_j / n_j``;
* Program 2.9: ``L(d) = R(d) + C * (number of rules)``, over falling lists;
* Program 5.1: ``L(d) + C1 * S(d)``, ``S(d)`` the sum over rules (else
  clause included) of how far each proportion rises above the least
  proportion of the rules before it.

Floats given as parameters are converted exactly (``Fraction(0.1)`` is the
binary value the engine sees), so the oracle is exact for the engine's input.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import numpy as np


def exact(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(x)


def masks(A, y):
    """Coverage bitmask per antecedent, positive-row mask, all-row mask."""
    A = np.asarray(A, dtype=bool)
    n = A.shape[0]
    cov = [sum(1 << i for i in range(n) if A[i, l]) for l in range(A.shape[1])]
    pos = sum(1 << i for i in range(n) if y[i])
    return cov, pos, (1 << n) - 1


def list_counts(order, cov, pos, full):
    """Counts per rule and else; None if a rule captures nothing or else is empty."""
    rem = full
    out = []
    for l in order:
        hit = rem & cov[l]
        if hit == 0:
            return None
        out.append(((hit & pos).bit_count(), (hit & ~pos).bit_count()))
        rem &= ~hit
    if rem == 0:
        return None
    out.append(((rem & pos).bit_count(), (rem & ~pos).bit_count()))
    return out


def proportions(counts):
    """Exact empirical positive proportion of each group."""
    return [Fraction(a, a + b) for a, b in counts]


def is_falling(counts):
    props = proportions(counts)
    return all(props[j] >= props[j + 1] for j in range(len(props) - 1))


def weighted_risk(counts, probs, w):
    """Eq. 4 for groups stating ``probs``: (w * missed positives + false positives) / n."""
    w = exact(w)
    tau = 1 / (1 + w)
    n = sum(a + b for a, b in counts)
    total = Fraction(0)
    for (n_pos, n_neg), p in zip(counts, probs):
        total += n_neg if p > tau else w * n_pos
    return total / n


def rise_penalty(props):
    """S: how far each proportion rises above the least one before it."""
    total, least = Fraction(0), None
    for a in props:
        if least is not None and a > least:
            total += a - least
        least = a if least is None or a < least else least
    return total


def objective(counts, w, C, C1=None):
    """Exact objective of a compatible list (else clause last in ``counts``)."""
    counts = [(int(a), int(b)) for a, b in counts]
    props = proportions(counts)
    value = weighted_risk(counts, props, w) + exact(C) * (len(counts) - 1)
    if C1 is not None:
        value += exact(C1) * rise_penalty(props)
    return value


def prefix_objective(prefix_counts, n, w, C, C1=None):
    """Exact ``L(e)`` (plus ``C1 S(e)``): the prefix's rows only, C per rule."""
    w = exact(w)
    tau = 1 / (1 + w)
    total = Fraction(0)
    for a, b in prefix_counts:
        total += b if Fraction(a, a + b) > tau else w * a
    value = total / n + exact(C) * len(prefix_counts)
    if C1 is not None:
        value += exact(C1) * rise_penalty(proportions(prefix_counts))
    return value


def all_lists(A, y, max_len=None):
    """{order tuple: counts} for every valid compatible list."""
    cov, pos, full = masks(A, y)
    m = len(cov)
    max_len = m if max_len is None else min(max_len, m)
    out = {}
    for k in range(max_len + 1):
        for order in permutations(range(m), k):
            c = list_counts(order, cov, pos, full)
            if c is not None:
                out[order] = c
    return out


def best_completions(lists, value):
    """min of value(counts) over all lists starting with each prefix.

    ``value`` returns None to exclude a list.  Returns {prefix: min value}.
    """
    best = {}
    for order, counts in lists.items():
        v = value(order, counts)
        if v is None:
            continue
        for k in range(len(order) + 1):
            pre = order[:k]
            if pre not in best or v < best[pre]:
                best[pre] = v
    return best


def frl_value(w, C):
    w, C = exact(w), exact(C)

    def value(order, counts):
        return objective(counts, w, C) if is_falling(counts) else None
    return value


def soft_value(w, C, C1):
    w, C, C1 = exact(w), exact(C), exact(C1)

    def value(order, counts):
        return objective(counts, w, C, C1)
    return value


def random_instance(rng, max_n=12, max_m=4):
    n = int(rng.integers(1, max_n + 1))
    m = int(rng.integers(1, max_m + 1))
    density = rng.uniform(0.15, 0.7)
    A = rng.random((n, m)) < density
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(int)
    return A, y
