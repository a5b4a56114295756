"""Helpers for the CORELS tests: brute force, random instances, compas files.

The brute force is independent of the engine: plain Python over integer bit
sets.  Its only shortcut is the elementary fact that a list with K rules
scores at least c*N*K, so lists with c*N*K above the empty list's score cannot
win.
"""

import numpy as np

TOL_FACTOR = 1e-9


def _better(a, b, tol):
    """Order on (score within tol, length, indices) — strict."""
    sa, pa = a
    sb, pb = b
    if sa < sb - tol:
        return True
    if sa > sb + tol:
        return False
    if len(pa) != len(pb):
        return len(pa) < len(pb)
    return pa < pb


def brute_force(A, y, c, max_len=None):
    """Return (mistakes, prefix) of the optimal rule list (canonical ties)."""
    A = np.asarray(A, dtype=bool)
    n, m = A.shape
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    n_classes = len(classes)
    cls_bits = [sum(1 << i for i in range(n) if codes[i] == k) for k in range(n_classes)]
    col_bits = [sum(1 << i for i in range(n) if A[i, j]) for j in range(m)]
    everyone = (1 << n) - 1
    lam = c * n
    tol = TOL_FACTOR * n

    def majority_mistakes(bits):
        cnt = [(bits & cb).bit_count() for cb in cls_bits]
        return bits.bit_count() - max(cnt)

    empty = majority_mistakes(everyone)
    best = [(float(empty), ()), empty]
    limit = m if max_len is None else min(m, max_len)

    def visit(prefix, left, mist):
        k = len(prefix)
        if k >= limit:
            return
        for j in range(m):
            if j in prefix:
                continue
            if lam * (k + 1) > empty + tol:
                return
            cap = left & col_bits[j]
            new_mist = mist + majority_mistakes(cap)
            rest = left & ~cap
            total = new_mist + majority_mistakes(rest)
            p = prefix + (j,)
            cand = (total + lam * (k + 1), p)
            if _better(cand, best[0], tol):
                best[0] = cand
                best[1] = total
            visit(p, rest, new_mist)

    visit((), everyone, 0)
    return best[1], best[0][1]


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
