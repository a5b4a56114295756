"""Binarize + mine time and antecedent counts on compas and adult.

Run: ``python benchmarks/bench_data.py [--repeats 5]``.  Prints CPU seconds
(user+sys of this process) and wall seconds, medians over the repeats.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from rulekit import Binarizer, mine_antecedents
from rulekit.datasets import load_adult, load_compas

# dataset, loader, min_support (within each class), max_card, mlxtend algorithm
CASES = [
    ("compas", load_compas, 0.01, 2, "auto"),
    ("compas", load_compas, 0.01, 2, "fpgrowth"),
    ("adult", load_adult, 0.05, 2, "auto"),
    ("adult", load_adult, 0.05, 2, "fpgrowth"),
    ("adult", load_adult, 0.20, 3, "auto"),
]


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def measure(loader, min_support, max_card, algorithm):
    X, y = loader(return_X_y=True)
    c0, w0 = cpu(), time.perf_counter()
    binz = Binarizer().fit(X)
    B = binz.transform(X)
    c1, w1 = cpu(), time.perf_counter()
    ants = mine_antecedents(B, y, min_support=min_support, max_card=max_card,
                            conditions=binz.conditions_, algorithm=algorithm)
    c2, w2 = cpu(), time.perf_counter()
    return X.shape, B.shape[1], len(ants), c1 - c0, w1 - w0, c2 - c1, w2 - w1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("| dataset | rows x cols | conditions | min_support | max_card | algorithm | antecedents "
          "| binarize CPU s | binarize wall s | mine CPU s | mine wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, loader, sup, card, algo in CASES:
        runs = [measure(loader, sup, card, algo) for _ in range(args.repeats)]
        shape, n_cond, n_ant = runs[0][:3]
        med = [statistics.median(r[k] for r in runs) for k in range(3, 7)]
        print(f"| {name} | {shape[0]} x {shape[1]} | {n_cond} | {sup} | {card} | {algo} | {n_ant} | "
              + " | ".join(f"{v:.3f}" for v in med) + " |")


if __name__ == "__main__":
    main()
