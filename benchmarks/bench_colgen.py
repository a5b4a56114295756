"""Benchmark of rulekit.colgen: cross-validated accuracy, complexity, fit CPU.

Usage (from the repository root)::

    python benchmarks/bench_colgen.py [--datasets a,b] [--folds-small 10] [--folds-large 5]
        [--max-folds N] [--C auto] [--form auto] [--time-limit 120]
        [--aix360-python PATH] [--out FILE]
    python benchmarks/bench_colgen.py --limits [--time-limit 120]

Each fold fits ``rulekit.BooleanRuleCGClassifier`` on the training part with
its defaults (its own binarization and its ``"auto"`` choice of form and
budget; ``--form``/``--C`` fix them) and scores the held-out part.  With
``--aix360-python``, the same folds are also fitted by AIX360's
``BooleanRuleCG()`` (its defaults) in that interpreter -- a separate venv,
since AIX360 is a benchmark-only reference -- on the same binarization, in
the same run, so the two columns share the machine's load.

CPU = user+sys of the fit (for rulekit, of this process *and* its children,
since CBC runs as a subprocess when asked for; for AIX360, of its worker
process, measured around the fit only).

``--limits`` measures the promises of issue 15: a 5,000-row frame with an
identifier column fitted under ``time_limit`` (wall clock against the limit),
and a Ctrl-C (SIGINT) sent 5 s into ``fit`` on adult (how long until ``fit``
returns).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

try:  # the AIX360 worker runs in a venv without rulekit's dependencies
    from rulekit import BooleanRuleCGClassifier
except ImportError:  # pragma: no cover
    BooleanRuleCGClassifier = None

DATA = os.environ.get("RULEKIT_SHARED_DATA",
                      str(Path(__file__).resolve().parents[1].parent / "shared" / "data"))


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


# name -> (loader, large?)
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


def _cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _folds(name, n_folds):
    load, _ = DATASETS[name]
    X, y = load()
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=0)
    return X, y, list(skf.split(X, y))


# -- AIX360 worker (runs in the AIX360 venv) ---------------------------------------------------

def _aix360_fold(name, n_folds, fold):
    """AIX360 BooleanRuleCG (its defaults) on the shared binarization of one fold.

    AIX360 0.3's own FeatureBinarizer calls ``OneHotEncoder(sparse=...)``,
    which current scikit-learn rejects, so the conditions come from the
    shared :class:`rulekit.Binarizer` (deciles with negations, as AIX360's
    FeatureBinarizer defaults to; rulekit's ``n_thresholds="auto"`` may
    prefer finer cuts) as a DataFrame with AIX360's (feature, operation,
    value) column index.
    """
    from aix360.algorithms.rbm import BooleanRuleCG

    X, y, folds = _folds(name, n_folds)
    tr, te = folds[fold]
    binz = _binarizer_class()(negations=True, n_thresholds=9).fit(X.iloc[tr])
    ops = {"is missing": "=="}
    cols = pd.MultiIndex.from_tuples(
        [(str(c.feature), ops.get(c.op, c.op), "nan" if c.value is None else c.value)
         for c in binz.conditions_], names=["feature", "operation", "value"])
    Btr = pd.DataFrame(binz.transform(X.iloc[tr]).astype(int), columns=cols)
    Bte = pd.DataFrame(binz.transform(X.iloc[te]).astype(int), columns=cols)
    c0 = _cpu()
    m = BooleanRuleCG(silent=True)
    try:
        m.fit(Btr, y[tr])
    except Exception as exc:  # AIX360's beam search fails on some data (ILPD's NaN)
        return {"error": repr(exc)[:200]}
    cpu = _cpu() - c0
    rules = m.explain()["rules"]
    return {"acc": float((np.asarray(m.predict(Bte)) == y[te]).mean()), "cpu": cpu,
            "complexity": int(sum(2 + r.count(" AND ") for r in rules))}


def _run_aix360(python, name, n_folds, fold):
    out = subprocess.run([python, __file__, "--aix360-worker", name, str(n_folds), str(fold)],
                         capture_output=True, text=True, env=dict(os.environ, RULEKIT_SHARED_DATA=DATA))
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"error": (out.stderr or out.stdout)[-200:]}


# -- the cross-validation ------------------------------------------------------------------------

def run_dataset(name, n_folds, args):
    X, y, folds = _folds(name, n_folds)
    rows = []
    for fold, (tr, te) in enumerate(folds):
        if args.max_folds and fold >= args.max_folds:
            break
        clf = BooleanRuleCGClassifier(
            form=args.form, max_complexity=args.C if args.C == "auto" else int(args.C),
            time_limit=args.time_limit, random_state=fold)
        c0, w0 = _cpu(), time.perf_counter()
        clf.fit(X.iloc[tr], y[tr])
        wall, cpu = time.perf_counter() - w0, _cpu() - c0
        res = clf.result_
        row = dict(dataset=name, fold=fold, C=clf.max_complexity_, form=clf.form_,
                   thresholds=clf.n_thresholds_,
                   how=clf.choice_.method if clf.choice_ is not None else "fixed",
                   n=len(tr), d=len(clf.binarizer_.conditions_),
                   acc=float((clf.predict(X.iloc[te]) == y[te]).mean()),
                   train_acc=float((clf.predict(X.iloc[tr]) == y[tr]).mean()),
                   complexity=res.complexity, wall=wall, cpu=cpu,
                   status=clf.certificate_.status, rounds=len(res.trace), cols=res.n_columns)
        if args.aix360_python:
            aix = _run_aix360(args.aix360_python, name, n_folds, fold)
            row.update(aix_acc=aix.get("acc"), aix_cpu=aix.get("cpu"),
                       aix_complexity=aix.get("complexity"), aix_error=aix.get("error"))
        rows.append(row)
        print(f"  {name} fold {fold}: {row['form']} C={row['C']} ({row['how']}) "
              f"thresholds={row['thresholds']} "
              f"acc={row['acc']:.4f} cx={row['complexity']} wall={wall:.1f}s cpu={cpu:.1f}s "
              f"{row['status']}" + (f" | aix360 acc={row['aix_acc']} cpu={row['aix_cpu']}"
                                    if args.aix360_python else ""), flush=True)
    return rows


def summarize(df):
    g = df.groupby("dataset", sort=False)
    se = lambda s: s.std(ddof=1) / np.sqrt(len(s)) * 100 if len(s) > 1 else np.nan  # noqa: E731
    table = pd.DataFrame({
        "folds": g.size(),
        "acc %": g["acc"].mean() * 100,
        "se": g["acc"].agg(se),
        "train %": g["train_acc"].mean() * 100,
        "complexity": g["complexity"].mean(),
        "forms": g["form"].agg(lambda f: " ".join(f"{k}:{v}" for k, v in f.value_counts().items())),
        "thresholds": g["thresholds"].agg(
            lambda f: " ".join(f"{k}:{v}" for k, v in f.value_counts().items())),
        "statuses": g["status"].agg(lambda f: " ".join(f"{k}:{v}" for k, v in f.value_counts().items())),
        "CPU med s": g["cpu"].median(),
        "CPU max s": g["cpu"].max(),
        "wall max s": g["wall"].max(),
    })
    if "aix_acc" in df:
        table["AIX360 acc %"] = g["aix_acc"].mean() * 100
        table["AIX360 se"] = g["aix_acc"].agg(lambda s: se(s.dropna()))
        table["AIX360 complexity"] = g["aix_complexity"].mean()
        table["AIX360 CPU med s"] = g["aix_cpu"].median()
        table["CPU ratio"] = table["CPU med s"] / table["AIX360 CPU med s"]
    names = list(g.size().index)
    table["paper %"] = [PAPER[n] for n in names]
    table["AIX360 issue %"] = [AIX360[n] for n in names]
    better = np.maximum(table["paper %"], table.get("AIX360 acc %", table["AIX360 issue %"]).fillna(0))
    table["vs better"] = table["acc %"] - better
    return table


# -- limits (issue 15) ---------------------------------------------------------------------------

def _identifier_frame(n=5000, seed=0):
    """adult's first n rows plus a column of n unique identifiers."""
    X, y = _adult()
    X = X.iloc[:n].copy()
    X.insert(0, "customer_id", [f"C{i:05d}" for i in np.random.default_rng(seed).permutation(n)])
    return X, y[:n]


def run_limits(args):
    import warnings

    X, y = _identifier_frame()
    c0, w0 = _cpu(), time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = BooleanRuleCGClassifier(time_limit=args.time_limit).fit(X, y)
    wall, cpu = time.perf_counter() - w0, _cpu() - c0
    warned = any("stopped early" in str(w.message) for w in caught)
    print(f"identifier frame 5000 x {X.shape[1]} ({len(clf.binarizer_.conditions_)} conditions): "
          f"time_limit={args.time_limit:g} s, wall {wall:.1f} s, CPU {cpu:.1f} s, "
          f"status {clf.certificate_.status}, ConvergenceWarning {warned}", flush=True)
    code = ("import sys, time, warnings; warnings.simplefilter('ignore');"
            "sys.path.insert(0, 'benchmarks'); import bench_colgen as b;"
            "from rulekit import BooleanRuleCGClassifier as E; X, y = b._adult();"
            "print('fit', flush=True); t = time.perf_counter();"
            "c = E(form='auto').fit(X, y);"
            "print('returned', time.perf_counter() - t, c.certificate_.status, flush=True)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=Path(__file__).resolve().parents[1])
    assert proc.stdout.readline().strip() == "fit"
    time.sleep(5.0)
    sent = time.perf_counter()
    os.killpg(proc.pid, signal.SIGINT)        # as a terminal does: CBC children too
    line = proc.stdout.readline().split()
    proc.wait()
    print(f"adult, SIGINT 5 s into fit: fit returned {time.perf_counter() - sent:.1f} s after "
          f"the signal ({float(line[1]):.1f} s after fit started), status {line[2]}")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--folds-small", type=int, default=10)
    p.add_argument("--folds-large", type=int, default=5)
    p.add_argument("--max-folds", type=int, default=0)
    p.add_argument("--C", default="auto", help="an integer, or 'auto' (the estimator's choice)")
    p.add_argument("--form", default="auto", help="dnf, cnf or auto")
    p.add_argument("--time-limit", type=float, default=120.0)
    p.add_argument("--aix360-python", default=None,
                   help="python of a venv with aix360: fit it on the same folds too")
    p.add_argument("--limits", action="store_true", help="time-limit and Ctrl-C measurements")
    p.add_argument("--aix360-worker", nargs=3, help=argparse.SUPPRESS)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    if args.aix360_worker:
        name, n_folds, fold = args.aix360_worker
        print(json.dumps(_aix360_fold(name, int(n_folds), int(fold))))
        return None
    if args.limits:
        return run_limits(args)
    allrows = []
    for name in args.datasets.split(","):
        large = DATASETS[name][1]
        allrows += run_dataset(name, args.folds_large if large else args.folds_small, args)
    df = pd.DataFrame(allrows)
    if args.out:
        df.to_csv(args.out, index=False)
    print(summarize(df).to_markdown(floatfmt=".2f"))
    return df


if __name__ == "__main__":
    main(sys.argv[1:])
