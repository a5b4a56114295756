"""Exhaustive enumeration of rule lists, for checking the engine.

Independent of the engine: plain Python over integer bit sets.  The only
shortcut is the elementary fact that a list with K rules scores at least
c*N*K, so lists with c*N*K above the empty list's score cannot win.
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
