"""Binarize + mine: time, condition and antecedent counts, by binarization setting.

Run: ``python benchmarks/bench_data.py [--repeats 3]``.  Prints CPU seconds
(user+sys of this process) and wall seconds, medians over the repeats.

Binarization settings: ``floor off`` is ``Binarizer(min_frequency=None)``, the
0.1 binarization (every decile threshold and category); ``default`` is the
support floor ``min_frequency=0.01``; ``reference`` adds
``thresholds="reference"`` (split points of a boosted ensemble).  Mining
``overall`` measures support over all rows, as ``CorelsClassifier`` does at
``min_support=c``; ``per class`` within each class, as the falling-rule-list
estimators do.  A last table times the identifier-column frame of issue 15.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import numpy as np
import pandas as pd

from rulekit import Binarizer, mine_antecedents
from rulekit.binarize import DataWarning
from rulekit.datasets import load_adult, load_compas, load_fico

SETTINGS = {
    "floor off": dict(min_frequency=None),
    "default": dict(),
    "reference": dict(thresholds="reference"),
}

# dataset, loader, setting, min_support, per_class, max_card, mlxtend algorithm
CASES = [
    ("compas", load_compas, "floor off", 0.01, False, 2, "auto"),
    ("compas", load_compas, "default", 0.01, False, 2, "auto"),
    ("compas", load_compas, "reference", 0.01, False, 2, "auto"),
    ("compas", load_compas, "default", 0.01, True, 2, "auto"),
    ("compas", load_compas, "default", 0.01, True, 2, "fpgrowth"),
    ("adult", load_adult, "floor off", 0.01, False, 2, "auto"),
    ("adult", load_adult, "default", 0.01, False, 2, "auto"),
    ("adult", load_adult, "reference", 0.01, False, 2, "auto"),
    ("adult", load_adult, "default", 0.05, True, 2, "auto"),
    ("adult", load_adult, "default", 0.20, True, 3, "auto"),
    ("fico", load_fico, "floor off", 0.01, False, 2, "auto"),
    ("fico", load_fico, "default", 0.01, False, 2, "auto"),
    ("fico", load_fico, "reference", 0.01, False, 2, "auto"),
]


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def measure(loader, setting, min_support, per_class, max_card, algorithm):
    X, y = loader(return_X_y=True)
    y = np.asarray(y)
    c0, w0 = cpu(), time.perf_counter()
    binz = Binarizer(**SETTINGS[setting]).fit(X, y)
    B = binz.transform(X)
    c1, w1 = cpu(), time.perf_counter()
    ants = mine_antecedents(B, y, min_support=min_support, max_card=max_card,
                            per_class=per_class, conditions=binz.conditions_, algorithm=algorithm)
    c2, w2 = cpu(), time.perf_counter()
    return X.shape, B.shape[1], len(ants), c1 - c0, w1 - w0, c2 - c1, w2 - w1


def identifier_frame(n=5000, seed=0):
    """A messy frame like the one of issue 15: a unique customer id beside real features."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"customer_id": [f"C{i:05d}" for i in rng.permutation(n)],
                         "age": rng.integers(18, 90, n), "plan": rng.choice(["basic", "plus", "pro"], n),
                         "spend": rng.gamma(2.0, 50.0, n)})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print("| dataset | rows x cols | binarization | conditions | min_support | mined | max_card "
          "| algorithm | antecedents | binarize CPU s | binarize wall s | mine CPU s | mine wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, loader, setting, sup, per_class, card, algo in CASES:
        runs = [measure(loader, setting, sup, per_class, card, algo) for _ in range(args.repeats)]
        shape, n_cond, n_ant = runs[0][:3]
        med = [statistics.median(r[k] for r in runs) for k in range(3, 7)]
        print(f"| {name} | {shape[0]} x {shape[1]} | {setting} | {n_cond} | {sup} | "
              f"{'per class' if per_class else 'overall'} | {card} | {algo} | {n_ant} | "
              + " | ".join(f"{v:.3f}" for v in med) + " |")
    print()
    print("| frame | binarization | conditions (negations on) | conditions on customer_id "
          "| identifier warning | binarize CPU s |")
    print("|---|---|---|---|---|---|")
    X = identifier_frame()
    for setting in ("floor off", "default"):
        times = []
        for _ in range(args.repeats):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", DataWarning)
                c0 = cpu()
                binz = Binarizer(negations=True, **SETTINGS[setting]).fit(X)
                times.append(cpu() - c0)
        on_id = sum(c.feature == "customer_id" for c in binz.conditions_)
        warned = any("identifier" in str(w.message) for w in caught)
        print(f"| 5000 rows, unique customer_id | {setting} | {len(binz.conditions_)} | {on_id} "
              f"| {'yes' if warned else 'no'} | {statistics.median(times):.3f} |")


if __name__ == "__main__":
    main()
