"""Brute-force references for tiny column-generation instances."""

import itertools

import numpy as np


def all_clauses(d, max_literals):
    out = []
    for size in range(1, max_literals + 1):
        out.extend(itertools.combinations(range(d), size))
    return out


def hamming_objective(B, y, w, clauses, lambda0=0.0, lambda1=0.0):
    """Weighted Hamming loss of a DNF plus penalties, straight from the definition."""
    counts = np.zeros(B.shape[0], dtype=np.int64)
    for c in clauses:
        counts += B[:, list(c)].all(axis=1)
    pos = y == 1
    loss = w[pos & (counts == 0)].sum() + (w[~pos] * counts[~pos]).sum()
    return float(loss + sum(lambda0 + lambda1 * len(c) for c in clauses))


def brute_force_optimum(B, y, w, C, D, lambda0=0.0, lambda1=0.0):
    """Minimum objective over every DNF with complexity <= C and clauses of <= D literals."""
    clauses = all_clauses(B.shape[1], D)
    best = hamming_objective(B, y, w, [], lambda0, lambda1)

    def rec(start, chosen, used):
        nonlocal best
        for k in range(start, len(clauses)):
            c = clauses[k]
            cost = 1 + len(c)
            if used + cost > C:
                continue
            sel = chosen + [c]
            best = min(best, hamming_objective(B, y, w, sel, lambda0, lambda1))
            rec(k + 1, sel, used + cost)

    rec(0, [], 0)
    return best


def full_mlp_value(B, y, w, C, D, lambda0=0.0, lambda1=0.0):
    """The master LP over *all* clauses, solved with scipy's HiGHS LP."""
    from scipy.optimize import linprog

    clauses = all_clauses(B.shape[1], D)
    pos = np.flatnonzero(y == 1)
    neg = np.flatnonzero(y == 0)
    K = len(clauses)
    A = np.column_stack([B[:, list(c)].all(axis=1) for c in clauses]).astype(float)
    cost_w = (w[neg, None] * A[neg]).sum(axis=0) + lambda0 + lambda1 * np.array([len(c) for c in clauses])
    c = np.concatenate([w[pos], cost_w])
    # -(xi_i + sum_k A_ik w_k) <= -1
    A_ub = np.hstack([-np.eye(pos.size), -A[pos]])
    b_ub = -np.ones(pos.size)
    if C is not None:
        A_ub = np.vstack([A_ub, np.concatenate([np.zeros(pos.size),
                                                [1 + len(cl) for cl in clauses]])])
        b_ub = np.append(b_ub, C)
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=(0, None), method="highs")
    assert res.status == 0
    return res.fun, clauses, A


def toy_data():
    """The 8-row example of design note §10: y = x3 OR (x1 AND x2)."""
    X = np.array(list(itertools.product([0, 1], repeat=3)), dtype=bool)
    y = (X[:, 2] | (X[:, 0] & X[:, 1])).astype(int)
    return X, y


def tictactoe_conditions():
    """== / != conditions for the 9 squares (54 columns) and metadata."""
    import pandas as pd

    from rulekit.datasets import load_tictactoe

    df = load_tictactoe().frame
    y = (df["class"] == "positive").to_numpy().astype(int)
    cols, groups, ops = [], [], []
    for g, name in enumerate(df.columns[:-1]):
        vals = df[name].to_numpy()
        for v in ("x", "o", "b"):
            cols.append(vals == v)
            groups.append(g)
            ops.append(2)
            cols.append(vals != v)
            groups.append(g)
            ops.append(3)
    return np.column_stack(cols), y, np.array(groups), np.array(ops)
