"""Bank-full antecedents as the FRL paper mines them (test helper).

Conditions are ``column==value`` for the 12 categorical columns; FP-growth
runs separately on the positive and the negative rows (support >= 10 % within
that class, at most 2 items); the two results are unioned as item sets.
Written independently of ``rulekit.binarize``/``rulekit.mining`` so that the
Table 1 anchor does not depend on them (``test_bank_full`` also checks that
the estimator, which uses them, finds the same 270 antecedents).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers import SHARED_DATA

BANK_FULL_FRL = SHARED_DATA / "bank_full_frl" / "bank-full-discretized.csv.gz"


def load_bank_full_frl(path=BANK_FULL_FRL):
    """Return (conditions DataFrame of bools, y as int array)."""
    df = pd.read_csv(path, dtype=str)
    y = df.pop("y").astype(int).to_numpy()
    items = pd.get_dummies(df, prefix_sep="==").astype(bool)
    return items, y


def mine_per_class(items, y, min_support=0.10, max_len=2):
    """Antecedents (sorted tuples of item names) mined within each class."""
    from mlxtend.frequent_patterns import fpgrowth

    found = set()
    for label in (1, 0):
        sub = items[y == label].reset_index(drop=True)
        fi = fpgrowth(sub, min_support=min_support, max_len=max_len, use_colnames=True)
        found.update(frozenset(s) for s in fi["itemsets"])
    found.discard(frozenset())
    # Deterministic order: by length, then item names.
    return sorted((tuple(sorted(s)) for s in found), key=lambda t: (len(t), t))


def coverage(items, antecedents):
    """(n_rows, n_antecedents) boolean matrix: row satisfies all items."""
    cols = {c: items[c].to_numpy() for c in items.columns}
    A = np.ones((len(items), len(antecedents)), dtype=bool)
    for j, ante in enumerate(antecedents):
        for it in ante:
            A[:, j] &= cols[it]
    return A
