"""Benchmark of rulekit.colgen: cross-validated accuracy, complexity, fit time.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/bench_colgen.py [--datasets a,b] [--folds-small 10]
        [--folds-large 5] [--max-folds N] [--C auto] [--form auto] [--time-limit 120] [--out FILE]

Each fold fits ``rulekit.BooleanRuleCGClassifier`` on the training part (so
the benchmark measures what users get: the estimator's own binarization and
its ``"auto"`` choices of form and budget, or the ones given with ``--form``
and ``--C``) and scores test accuracy.
Reported times: wall clock and CPU (user+sys of this process *and* its
children, since PuLP runs CBC as a subprocess).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import sys
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

try:  # the AIX360 side-by-side mode runs in a separate venv without rulekit's deps
    from rulekit import BooleanRuleCGClassifier
except ImportError:  # pragma: no cover
    BooleanRuleCGClassifier = None

DATA = os.environ.get("RULEKIT_SHARED_DATA", str(Path(__file__).resolve().parents[1].parent / "shared" / "data"))

# name -> (loader, large?)
def _csv(path, label, positive, drop=()):
    def load():
        df = pd.read_csv(os.path.join(DATA, path), skipinitialspace=True)
        y = (df[label].astype(str).str.strip() == str(positive)).to_numpy().astype(int)
        X = df.drop(columns=[label, *drop])
        return X, y
    return load


def _breast_cancer():
    from sklearn.datasets import load_breast_cancer

    d = load_breast_cancer(as_frame=True)
    return d.data, d.target.to_numpy().astype(int)


def _adult():
    a = pd.read_csv(os.path.join(DATA, "adult/adult_train.csv.gz"))
    b = pd.read_csv(os.path.join(DATA, "adult/adult_test.csv.gz"))
    df = pd.concat([a, b], ignore_index=True)
    y = (df["income"].astype(str).str.strip() == ">50K").to_numpy().astype(int)
    return df.drop(columns=["income"]), y


DATASETS = {
    "tic-tac-toe": (_csv("tic_tac_toe/tic-tac-toe.csv", "class", "positive"), False),
    "breast-cancer": (_breast_cancer, False),
    "heart": (_csv("heart/heart.csv", "target", "1"), False),
    "banknote": (_csv("banknote/banknote.csv", "class", "1"), False),
    "pima": (_csv("pima/pima-indians-diabetes.csv", "outcome", "1"), False),
    "transfusion": (_csv("transfusion/transfusion.csv", "donated_march_2007", "1"), False),
    "ionosphere": (_csv("ionosphere/ionosphere.csv", "class", "g"), False),
    "ilpd": (_csv("ilpd/ilpd.csv", "selector", "1"), False),
    "mushroom": (_csv("mushroom/mushroom.csv", "class", "e"), True),
    "fico": (_csv("fico/heloc_dataset_v1.csv.gz", "RiskPerformance", "Bad"), True),
    "magic": (_csv("magic/magic04.csv.gz", "class", "g"), True),
    "adult": (_adult, True),
    "bank": (_csv("bank_full/bank-full.csv.gz", "y", "yes"), True),
}

# quoted from issue 5: AIX360 BRCG measured on this machine, and the paper's CG column
AIX360 = {"tic-tac-toe": 99.4, "breast-cancer": 93.5, "heart": 77.4, "banknote": 97.9,
          "pima": 76.3, "transfusion": 79.0, "ionosphere": 89.4, "ilpd": 68.4,
          "mushroom": 99.9, "fico": 70.5, "magic": 81.2, "adult": 82.5, "bank": 89.6}
PAPER = {"tic-tac-toe": 100.0, "breast-cancer": 94.0, "heart": 78.9, "banknote": 99.1,
         "pima": 74.1, "transfusion": 77.9, "ionosphere": 90.0, "ilpd": 69.6,
         "mushroom": 100.0, "fico": 71.7, "magic": 85.3, "adult": 83.5, "bank": 90.0}


def _binarizer_class():
    """The shared ``rulekit.Binarizer`` (what ``BooleanRuleCGClassifier`` uses).

    The AIX360 venv has no numba, so ``import rulekit`` fails there; the
    binarizer module itself needs only numpy/pandas/scikit-learn, so it is
    then loaded from its file.
    """
    try:
        from rulekit.binarize import Binarizer
    except ImportError:  # pragma: no cover - AIX360 venv
        import importlib.util

        path = Path(__file__).resolve().parents[1] / "rulekit" / "binarize.py"
        spec = importlib.util.spec_from_file_location("_rk_binarize", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        Binarizer = mod.Binarizer
    return Binarizer


def make_binarizer():
    """Same settings as the estimator: deciles, with ``!=`` negations."""
    return _binarizer_class()(negations=True, n_thresholds=9)


def _cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _fit_aix360(Xtr, ytr, Xte):
    """AIX360 BooleanRuleCG (its defaults) on the same binarization as ours.

    AIX360 0.3's own FeatureBinarizer calls ``OneHotEncoder(sparse=...)``,
    which current scikit-learn rejects, so the conditions come from
    the shared :class:`rulekit.Binarizer` as a DataFrame with AIX360's
    (feature, operation, value) column index.
    """
    from aix360.algorithms.rbm import BooleanRuleCG

    binz = make_binarizer().fit(Xtr)
    ops = {"is missing": "=="}
    cols = pd.MultiIndex.from_tuples(
        [(str(c.feature), ops.get(c.op, c.op), "nan" if c.value is None else c.value)
         for c in binz.conditions_],
        names=["feature", "operation", "value"])
    Btr = pd.DataFrame(binz.transform(Xtr).astype(int), columns=cols)
    Bte = pd.DataFrame(binz.transform(Xte).astype(int), columns=cols)
    m = BooleanRuleCG()
    m.fit(Btr, ytr)
    pred_tr = m.predict(Btr)
    pred_te = m.predict(Bte)
    rules = m.explain()["rules"]
    complexity = sum(2 + r.count(" AND ") for r in rules)
    return pred_tr, pred_te, complexity


def run_dataset(name, n_folds, args):
    load, _ = DATASETS[name]
    X, y = load()
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=0)
    rows = []
    for fold, (tr, te) in enumerate(skf.split(X, y)):
        if args.max_folds and fold >= args.max_folds:
            break
        if args.aix360:
            c0, w0 = _cpu(), time.perf_counter()
            pred_tr, pred_te, cx = _fit_aix360(X.iloc[tr], y[tr], X.iloc[te])
            wall, cpu = time.perf_counter() - w0, _cpu() - c0
            acc = float((np.asarray(pred_te) == y[te]).mean())
            tr_acc = float((np.asarray(pred_tr) == y[tr]).mean())
            rows.append(dict(dataset=name, fold=fold, C=0, form="dnf", how="aix360",
                             n=len(tr), d=0, acc=acc,
                             train_acc=tr_acc, complexity=cx, wall=wall, cpu=cpu,
                             status="aix360", iters=0, cols=0, lb=None, obj=None))
            print(f"  {name} fold {fold} [aix360]: acc={acc:.4f} train={tr_acc:.4f} "
                  f"complexity={cx} wall={wall:.1f}s cpu={cpu:.1f}s", flush=True)
            continue
        clf = BooleanRuleCGClassifier(
            form=args.form, max_complexity=args.C if args.C == "auto" else int(args.C),
            time_limit=args.time_limit, pricing_time_limit=args.pricing_time_limit,
            mip_solver=args.mip_solver, random_state=fold)
        c0, w0 = _cpu(), time.perf_counter()
        clf.fit(X.iloc[tr], y[tr])
        wall, cpu = time.perf_counter() - w0, _cpu() - c0
        res = clf.result_
        acc = float((clf.predict(X.iloc[te]) == y[te]).mean())
        tr_acc = float((clf.predict(X.iloc[tr]) == y[tr]).mean())
        how = clf.choice_.method if clf.choice_ is not None else "fixed"
        rows.append(dict(dataset=name, fold=fold, C=clf.max_complexity_, form=clf.form_,
                         how=how, n=len(tr), d=len(clf.binarizer_.conditions_), acc=acc,
                         train_acc=tr_acc, complexity=res.complexity, wall=wall, cpu=cpu,
                         status=res.status, iters=len(res.trace), cols=res.n_columns,
                         lb=res.lower_bound, obj=res.objective))
        print(f"  {name} fold {fold}: {clf.form_} budget={clf.max_complexity_} ({how}) "
              f"acc={acc:.4f} train={tr_acc:.4f} C={res.complexity} "
              f"wall={wall:.1f}s cpu={cpu:.1f}s status={res.status} it={len(res.trace)} "
              f"cols={res.n_columns} obj={res.objective:.1f} lb={res.lower_bound}",
              flush=True)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--folds-small", type=int, default=10)
    p.add_argument("--folds-large", type=int, default=5)
    p.add_argument("--max-folds", type=int, default=0)
    p.add_argument("--C", default="auto", help="an integer, or 'auto' (the estimator's choice)")
    p.add_argument("--form", default="auto", help="dnf, cnf or auto")
    p.add_argument("--time-limit", type=float, default=120.0)
    p.add_argument("--pricing-time-limit", type=float, default=30.0)
    p.add_argument("--mip-solver", default="cbc", help="restricted master IP back-end")
    p.add_argument("--out", default=None)
    p.add_argument("--aix360", action="store_true",
                   help="run AIX360's BooleanRuleCG instead (needs aix360 installed)")
    args = p.parse_args(argv)
    allrows = []
    for name in args.datasets.split(","):
        large = DATASETS[name][1]
        allrows += run_dataset(name, args.folds_large if large else args.folds_small, args)
    df = pd.DataFrame(allrows)
    g = df.groupby("dataset", sort=False)
    table = pd.DataFrame({
        "folds": g.size(),
        "acc %": g["acc"].mean() * 100,
        "sd": g["acc"].std() * 100,
        "train %": g["train_acc"].mean() * 100,
        "budget C": g["C"].mean(),
        "forms": g["form"].agg(lambda f: " ".join(f"{k}:{v}" for k, v in f.value_counts().items())),
        "statuses": g["status"].agg(lambda f: " ".join(f"{k}:{v}" for k, v in f.value_counts().items())),
        "complexity": g["complexity"].mean(),
        "wall med s": g["wall"].median(),
        "wall max s": g["wall"].max(),
        "cpu med s": g["cpu"].median(),
        "cpu max s": g["cpu"].max(),
        "AIX360 %": [AIX360[n] for n in g.size().index],
        "paper %": [PAPER[n] for n in g.size().index],
    })
    text = table.to_markdown(floatfmt=".1f") if _has_tabulate() else table.to_string(float_format="%.1f")
    print(text)
    if args.out:
        df.to_csv(args.out, index=False)
    return df


def _has_tabulate():
    try:
        import tabulate  # noqa: F401
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    main(sys.argv[1:])
