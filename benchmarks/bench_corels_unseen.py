"""CorelsClassifier() at every default on public data sets outside the 14 of ``bench_defaults``.

None of these sets was used to choose anything in the default: haberman, bupa
(``selector`` as the label, as most papers use it), the three MONK's problems
(train and test pooled), and German credit as cleaned by imodels.  For each:
one default fit on all rows (status, CPU s of the fit, the chosen ``c`` and
number of rules), then 5-fold stratified CV (shuffled, ``random_state=0``)
against CART depth 4 on one-hot columns.

``generated-a`` and ``generated-b`` are two seeded 50,000 x 50 frames (the size
issue 23 promises an answer for): one fit each, no cross-validation.

Usage::

    RULEKIT_SHARED_DATA=../shared/data python benchmarks/bench_corels_unseen.py [names]
"""

from __future__ import annotations

import json
import os
import resource
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

DATA = Path(os.environ.get("RULEKIT_SHARED_DATA",
                           Path(__file__).resolve().parents[1].parent / "shared" / "data"))
NAMES = ("haberman", "bupa", "monks-1", "monks-2", "monks-3", "credit_g")


def generated(kind: str):
    """A seeded 50,000 x 50 frame with missing values, and its labels."""
    n = 50_000
    if kind == "a":   # 40 normal columns, 10 categorical, an interaction, 5 % missing in one column
        rng = np.random.default_rng(0)
        X = pd.DataFrame(rng.normal(size=(n, 40)), columns=[f"x{j}" for j in range(40)])
        for j in range(10):
            X[f"c{j}"] = rng.choice(list("abcdefgh"[: 3 + j % 5]), n)
        X.loc[rng.random(n) < 0.05, "x3"] = np.nan
        logit = X["x0"] - 0.8 * X["x1"] + 0.5 * X["x2"] * X["x3"].fillna(0) + (X["c0"] == "a") - 0.5
        return X, (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    # 20 numeric (every third a Poisson count), 30 categorical of 2-12 levels with 3 % missing
    rng = np.random.default_rng(1)
    X = pd.DataFrame({f"x{j}": (rng.normal(size=n) if j % 3 else rng.poisson(3 + j, n).astype(float))
                      for j in range(20)})
    for j in range(30):
        levels = [f"L{k}" for k in range(2 + j % 11)]
        X[f"c{j}"] = pd.Series(rng.choice(levels, n)).where(rng.random(n) > 0.03)
    logit = (X["x1"] - 0.8 * X["x2"] + (X["c0"] == "L0") + 0.7 * (X["c5"] == "L2")
             - 0.3 * X["x0"] / 3 - 0.5)
    return X, np.where(rng.random(n) < 1 / (1 + np.exp(-logit.fillna(0))), "yes", "no")


def load(name: str):
    """(X, y) of one set, read from the shared data folder (or generated)."""
    if name.startswith("generated-"):
        return generated(name[-1])
    if name == "bupa":
        f = pd.read_csv(DATA / "bupa" / "bupa.csv")
        return f.drop(columns="selector"), f["selector"].to_numpy()
    if name == "credit_g":
        f = pd.read_csv(DATA / "credit_g" / "credit_g.csv")
        return f.drop(columns=f.columns[-1]), f[f.columns[-1]].to_numpy()
    if name == "haberman":
        f = pd.read_csv(DATA / "haberman" / "haberman.csv")
        return f.drop(columns="Survival_status"), f["Survival_status"].to_numpy()
    if name.startswith("monks"):
        f = pd.concat([pd.read_csv(DATA / "monks" / f"{name}_{part}.csv") for part in ("train", "test")])
        f = f.drop(columns="id").astype({c: str for c in f.columns if c.startswith("a")})
        return f.drop(columns="class").reset_index(drop=True), f["class"].to_numpy()
    raise ValueError(f"unknown data set {name!r}; choose from {', '.join(NAMES)}")


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def main(argv=None) -> None:
    from rulekit import CorelsClassifier

    warnings.simplefilter("ignore")
    names = (argv or sys.argv[1:] or [",".join(NAMES)])[0].split(",")
    # load the compiled kernels outside the timed fits
    X, y = load("haberman" if (DATA / "haberman").exists() else "generated-a")
    CorelsClassifier(c=0.1, max_card=1).fit(X.iloc[:100], y[:100])
    for name in names:
        X, y = load(name)
        start = _cpu()
        est = CorelsClassifier().fit(X, y)
        cpu = _cpu() - start
        onehot = pd.get_dummies(X).fillna(-1)
        ours, cart = [], []
        splits = [] if name.startswith("generated-") else \
            StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)
        for tr, te in splits:
            m = CorelsClassifier().fit(X.iloc[tr], y[tr])
            ours.append(np.mean(m.predict(X.iloc[te]) == y[te]))
            t = DecisionTreeClassifier(max_depth=4, random_state=0).fit(onehot.iloc[tr], y[tr])
            cart.append(np.mean(t.predict(onehot.iloc[te]) == y[te]))
        f = lambda v: (round(100 * np.mean(v), 1), round(100 * np.std(v, ddof=1) / np.sqrt(len(v)), 1)) \
            if v else None  # noqa: E731
        print(json.dumps(dict(name=name, rows=len(y), columns=X.shape[1],
                              status=est.certificate_.status, cpu=round(cpu, 2), c=est.c_,
                              max_card=est.max_card_, rules=len(est.result_.prefix), cv=f(ours),
                              cart=f(cart),
                              peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)),
              flush=True)


if __name__ == "__main__":
    main()
