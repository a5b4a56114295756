"""Brute-force enumeration of rule lists on tiny instances (test oracle).

Rows are bits of Python ints, so everything here is independent of the
engine's packed layout and kernels.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from rulekit.frl import list_objective


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
    return [a / (a + b) for a, b in counts]


def is_falling(counts):
    props = proportions(counts)
    return all(props[j] >= props[j + 1] for j in range(len(props) - 1))


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
    def value(order, counts):
        return list_objective(counts, w, C) if is_falling(counts) else None
    return value


def soft_value(w, C, C1):
    def value(order, counts):
        return list_objective(counts, w, C, C1)
    return value


def random_instance(rng, max_n=12, max_m=4):
    n = int(rng.integers(1, max_n + 1))
    m = int(rng.integers(1, max_m + 1))
    density = rng.uniform(0.15, 0.7)
    A = rng.random((n, m)) < density
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(int)
    return A, y
