"""CorelsClassifier() with every default on the 14 benchmark sets (issue 23).

Usage (from the repository root, in a venv with rulekit)::

    RULEKIT_SHARED_DATA=/path/to/shared/data python benchmarks/bench_corels_defaults.py \\
        [--datasets compas,heart] [--folds 5] [--out corels_defaults.csv]

For each data set:

* one fit on all rows in a fresh process (so its peak RSS is the whole
  process's: data, binarization, mining, every search): status, CPU seconds
  (user + system), peak RSS, the ``c`` and ``max_card`` chosen, rules;
* 5-fold stratified CV (shuffled, ``random_state=0``: the folds of
  ``bench_defaults.py``): test accuracy mean and standard error, the folds'
  statuses, the median fit CPU seconds; CART depth 4 on the same folds.

"Before" is the table of ``benchmarks/RESULTS.md`` ("Every learner with its
defaults"): ``CorelsClassifier(time_limit=60)`` at commit 879e60e / b3f307d,
when ``c=0.01, max_card=2`` and quantile thresholds were the defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import accuracy_score
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_defaults  # noqa: E402  (the 14 data sets and their loaders)

#: CorelsClassifier(time_limit=60) before issue 23: accuracy %, se, fit CPU s, statuses
BEFORE = {
    "compas": (67.3, 0.4, 36.29, "optimal,time_limit"),
    "tic-tac-toe": (73.8, 1.0, 40.21, "time_limit"),
    "breast-cancer": (94.6, 0.9, 41.17, "time_limit"),
    "heart": (77.0, 2.2, 58.85, "time_limit"),
    "banknote": (96.6, 0.6, 59.04, "time_limit"),
    "pima": (75.0, 1.4, 59.15, "time_limit"),
    "transfusion": (79.0, 1.3, 59.97, "time_limit"),
    "ionosphere": (88.9, 1.0, 59.32, "time_limit"),
    "ilpd": (69.8, 1.2, 59.18, "time_limit"),
    "mushroom": (98.3, 0.2, 59.71, "time_limit"),
    "magic": (79.9, 0.1, 59.52, "time_limit"),
    "fico": (69.9, 0.2, 59.50, "time_limit"),
    "bank": (89.6, 0.1, 59.42, "time_limit"),
    "adult": (82.1, 0.1, 59.18, "time_limit"),
}

ONE_FIT = r"""
import json, os, resource, sys, time, warnings
sys.path.insert(0, {bench!r})
warnings.simplefilter("ignore")
import numpy as np
import bench_defaults
from rulekit import CorelsClassifier
X, y = bench_defaults.datasets()[{name!r}]()
y = np.asarray(y)
warm = np.r_[np.flatnonzero(y == y[0])[:30], np.flatnonzero(y != y[0])[:30]]
CorelsClassifier(c=0.1, max_card=1).fit(X.iloc[warm], y[warm])  # numba's cache, off the clock
t = os.times(); c0 = t.user + t.system; w0 = time.perf_counter()
est = CorelsClassifier().fit(X, y)
t = os.times()
print(json.dumps(dict(cpu=t.user + t.system - c0, wall=time.perf_counter() - w0,
    rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    status=est.certificate_.status, c=est.c_, max_card=est.max_card_,
    rules=len(est.model_.rules), gap=est.certificate_.gap,
    conditions=len(est.binarizer_.conditions_), antecedents=len(est.antecedents_.items),
    certificate=str(est.certificate_))))
"""


def one_fit(name: str) -> dict:
    code = ONE_FIT.format(bench=str(Path(__file__).resolve().parent), name=name)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=os.environ)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cpu():
    t = os.times()
    return t.user + t.system


def cross_validate(make, X, y, folds):
    accs, cpus, statuses = [], [], []
    for tr, te in folds:
        est = make()
        c0 = _cpu()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X.iloc[tr], y[tr])
        cpus.append(_cpu() - c0)
        accs.append(accuracy_score(y[te], est.predict(X.iloc[te])))
        statuses.append(getattr(getattr(est, "certificate_", None), "status", ""))
    accs = np.asarray(accs)
    return dict(acc=100 * accs.mean(), se=100 * accs.std(ddof=1) / np.sqrt(len(accs)),
                cpu_med=float(np.median(cpus)), statuses=statuses)


def main(argv=None):
    from rulekit import CorelsClassifier
    from rulekit.compare import baselines

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", default=",".join(BEFORE))
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--out", help="JSON lines, one per data set (resumable)")
    args = p.parse_args(argv)
    sets = bench_defaults.datasets()
    done = {}
    if args.out and Path(args.out).exists():
        for line in Path(args.out).read_text().splitlines():
            row = json.loads(line)
            done[row["dataset"]] = row
    for name in args.datasets.split(","):
        if name in done:
            continue
        X, y = sets[name]()
        X = X.reset_index(drop=True)
        y = np.asarray(y)
        folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=0).split(X, y))
        row = dict(dataset=name, n=len(y), full=one_fit(name),
                   cv=cross_validate(CorelsClassifier, X, y, folds),
                   cart=cross_validate(lambda: clone(baselines(0)["CART depth 4"]), X, y, folds))
        done[name] = row
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(row) + "\n")
        print(f"{name:14s} {row['full']['status']:11s} cpu {row['full']['cpu']:6.2f} s "
              f"rss {row['full']['rss_mb']:5.0f} MB  cv {row['cv']['acc']:5.1f} "
              f"({row['cv']['se']:.1f})  cart {row['cart']['acc']:5.1f}", flush=True)
    print(table([done[k] for k in args.datasets.split(",") if k in done]))


def table(rows) -> str:
    lines = ["| data set | rows | status (all rows) | fit CPU s | peak RSS MB | c, max_card | rules "
             "| CV accuracy % (se) | folds optimal | CV fit CPU s (median) | before: accuracy (se) "
             "| before: CPU s, status | CART depth 4 |",
             "|" + "---|" * 13]
    for r in rows:
        f, cv, b = r["full"], r["cv"], BEFORE[r["dataset"]]
        opt = sum(s == "optimal" for s in cv["statuses"])
        lines.append(
            f"| {r['dataset']} | {r['n']} | {f['status']} | {f['cpu']:.2f} | {f['rss_mb']:.0f} | "
            f"{f['c']:g}, {f['max_card']} | {f['rules']} | {cv['acc']:.1f} ({cv['se']:.1f}) | "
            f"{opt}/{len(cv['statuses'])} | {cv['cpu_med']:.2f} | {b[0]:.1f} ({b[1]:.1f}) | "
            f"{b[2]:.1f}, {b[3]} | {r['cart']['acc']:.1f} |")
    cpu = [r["full"]["cpu"] for r in rows]
    acc = [r["cv"]["acc"] for r in rows]
    cart = [r["cart"]["acc"] for r in rows]
    before = [BEFORE[r["dataset"]][0] for r in rows]
    certified = sum(r["full"]["status"] == "optimal" for r in rows)
    lines.append("")
    lines.append(f"certified on all rows: {certified} of {len(rows)}; fit CPU s median "
                 f"{np.median(cpu):.2f}, max {max(cpu):.2f}; mean CV accuracy {np.mean(acc):.2f} "
                 f"(before {np.mean(before):.2f}, CART depth 4 {np.mean(cart):.2f}); sets more "
                 "than one se below before: " + (", ".join(
                     r["dataset"] for r in rows
                     if r["cv"]["acc"] < BEFORE[r["dataset"]][0] - BEFORE[r["dataset"]][1])
                     or "none"))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
