"""Every learner with its defaults, against its peers, on the same folds.

Usage (from the repository root, in a venv with rulekit and the peers)::

    pip install -e '.[bench]' imodels wittgenstein six
    RULEKIT_SHARED_DATA=/path/to/shared/data python benchmarks/bench_defaults.py \\
        [--datasets compas,heart] [--models corels,cart4] [--folds 5] [--out FILE]
        [--corels-time-limit 600] [--isolate] [--max-folds K]

What a user who changes no parameter gets: each rulekit learner constructed
with no arguments, scikit-learn's CART (depth 4), random forest and logistic
regression (the ``rulekit.compare.baselines`` pipelines), and, when they are
installed, wittgenstein's RIPPER and imodels' greedy rule list, boosted
rules and SkopeRules (rule sets), each with its own defaults.  AIX360's BRCG
cannot be installed beside current scikit-learn; ``bench_colgen.py --aix360``
runs it in a venv of its own on the same folds.

Data: the 13 data sets of ``bench_colgen.py`` plus the bundled compas.  Folds:
stratified, shuffled, ``random_state=0``.  For each (data set, model): mean
test accuracy, balanced accuracy and ROC AUC, model size (rules and
conditions, as printed), the fit CPU seconds (user + system of this process
and its children, since PuLP runs CBC as a subprocess; median and maximum over
the folds) and the peak RSS.

Peak RSS: with ``--isolate`` every fit runs in a fresh Python process (data
loaded, one fit, one prediction), and the figure is that process's peak
resident set (``ru_maxrss``), imports and data included: what a user running
one fit sees.  Without it the fits share this process, and the figure is this
process's peak so far, an upper bound that only grows along the run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline

from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     SoftFallingRuleListClassifier)
from rulekit.compare import _encoder, baselines, model_size
from rulekit.datasets import load_compas


def _bench_colgen():
    """The data-set loaders of bench_colgen.py (one definition of the 13 sets)."""
    path = Path(__file__).resolve().with_name("bench_colgen.py")
    spec = importlib.util.spec_from_file_location("_bench_colgen", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def datasets() -> dict:
    sets = {name: loader for name, (loader, _) in _bench_colgen().DATASETS.items()}

    def compas():
        X, y = load_compas(return_X_y=True)
        return X, np.asarray(y).astype(int)

    return {"compas": compas, **sets}


# --- peers -----------------------------------------------------------------------------------

class Ripper(ClassifierMixin, BaseEstimator):
    """wittgenstein's RIPPER with its defaults, as a scikit-learn classifier."""

    def __init__(self, random_state=0):
        self.random_state = random_state

    def fit(self, X, y):
        import wittgenstein

        self.classes_ = np.unique(y)
        frame = pd.DataFrame(X).reset_index(drop=True)
        self.ripper_ = wittgenstein.RIPPER(random_state=self.random_state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.ripper_.fit(frame, pd.Series(np.asarray(y) == self.classes_[1], name="_target"),
                             pos_class=True)
        return self

    def predict(self, X):
        hit = np.asarray(self.ripper_.predict(pd.DataFrame(X).reset_index(drop=True)), bool)
        return np.where(hit, self.classes_[1], self.classes_[0])

    def predict_proba(self, X):
        p = np.asarray(self.ripper_.predict_proba(pd.DataFrame(X).reset_index(drop=True)))
        return p if p.ndim == 2 else np.column_stack([1 - p, p])

    def size(self):
        rules = self.ripper_.ruleset_.rules
        return len(rules), sum(len(r.conds) for r in rules)


def _imodels(name):
    def make():
        import imodels

        # imodels needs dense input: one-hot columns alone (mushroom) come out sparse
        return make_pipeline(_encoder().set_params(sparse_threshold=0), getattr(imodels, name)())
    return make


class _MinorityPositive:
    """Mixin: the rarer training class is the falling list's positive class (issue 37 item 6)."""

    def fit(self, X, y):
        labels, counts = np.unique(np.asarray(y), return_counts=True)
        # ties keep today's positive, the later label
        self.pos_label = labels[0] if counts[0] < counts[1] else None
        return super().fit(X, y)


class _CostPerRows:
    """Mixin: ``C = ROWS / n`` on the fit's ``n`` rows (a rule must fix more than ROWS rows)."""

    ROWS = 2.0

    def fit(self, X, y):
        self.C = self.ROWS / len(y)
        return super().fit(X, y)


class _Today:
    """Mixin: the falling lists as before the issue-37 defaults (the later label
    falls, as ``pos_label`` of it does, and at any size pairs and ``C=1e-6``)."""

    def fit(self, X, y):
        self.pos_label = np.unique(np.asarray(y))[-1]
        self.max_card, self.C = 2, 1e-6
        return super().fit(X, y)


class _FRLToday(_Today, FallingRuleListClassifier):
    pass


class _SoftFRLToday(_Today, SoftFallingRuleListClassifier):
    pass


class _FRLMinority(_MinorityPositive, FallingRuleListClassifier):
    pass


class _SoftFRLMinority(_MinorityPositive, SoftFallingRuleListClassifier):
    pass


class _FRLPerRows(_CostPerRows, FallingRuleListClassifier):
    pass


class _SoftFRLPerRows(_CostPerRows, SoftFallingRuleListClassifier):
    pass


def models(selected=None, corels_time_limit=600.0) -> dict:
    base = baselines(0)
    out = {
        # CORELS's default has no time limit: on large data it searches until
        # max_memory; the benchmark bounds each fold (the row says which limit)
        "CORELS": lambda: CorelsClassifier(time_limit=corels_time_limit),
        "FRL": FallingRuleListClassifier,
        "softFRL": SoftFallingRuleListClassifier,
        "CG": BooleanRuleCGClassifier,
        # the falling lists before max_antecedents="auto" (every mined antecedent):
        # what the pool cap is compared with; not in the default run
        "FRL whole pool": lambda: FallingRuleListClassifier(max_antecedents=None),
        "softFRL whole pool": lambda: SoftFallingRuleListClassifier(max_antecedents=None),
        # candidate small-data defaults of the falling lists (issue 37 item 6), not in the
        # default run: the rarer class positive, and a cost per rule of 2 training rows
        "FRL minority positive": _FRLMinority,
        "softFRL minority positive": _SoftFRLMinority,
        "FRL C=2/n": _FRLPerRows,
        "softFRL C=2/n": _SoftFRLPerRows,
        # the falling lists' defaults before issue 37 item 6 (the before of its check)
        "FRL before": _FRLToday,
        "softFRL before": _SoftFRLToday,
        "CART depth 4": lambda: clone(base["CART depth 4"]),
        "random forest": lambda: clone(base["random forest"]),
        "logistic regression": lambda: clone(base["logistic regression"]),
    }
    try:
        import wittgenstein  # noqa: F401

        out["RIPPER (wittgenstein)"] = Ripper
    except ImportError:
        print("wittgenstein not installed: RIPPER left out", file=sys.stderr)
    try:
        import imodels  # noqa: F401

        out["greedy rule list (imodels)"] = _imodels("GreedyRuleListClassifier")
        out["boosted rules (imodels)"] = _imodels("BoostedRulesClassifier")
        out["SkopeRules (imodels)"] = _imodels("SkopeRulesClassifier")
    except ImportError:
        print("imodels not installed: its learners left out", file=sys.stderr)
    if selected:
        return {k: v for k, v in out.items() if k in selected}
    return {k: v for k, v in out.items() if not (k.endswith("whole pool") or k in _CANDIDATES)}


_CANDIDATES = ("FRL minority positive", "softFRL minority positive", "FRL C=2/n", "softFRL C=2/n",
               "FRL before", "softFRL before")


def size_of(est):
    """(rules, conditions) as the model prints, where that can be read."""
    if isinstance(est, Ripper):
        return est.size()
    last = est.steps[-1][1] if hasattr(est, "steps") else est
    if hasattr(last, "complexity_") and not hasattr(last, "model_"):
        return np.nan, float(last.complexity_)
    return model_size(est)


def _cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _peak_rss_mb():
    """Peak resident set of this process and of its waited-for children, in MB (Linux: KB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0


def fit_one(name, make, X, y, tr, te):
    """Fit on ``tr``, score on ``te``: the row of one fold (CPU s, peak RSS, scores)."""
    est = make()
    c0, w0 = _cpu(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X.iloc[tr], y[tr])
    cpu, wall = _cpu() - c0, time.perf_counter() - w0
    pred = est.predict(X.iloc[te])
    proba = est.predict_proba(X.iloc[te])[:, 1]
    cert = getattr(getattr(est, "certificate_", None), "status", "")
    rules, conds = size_of(est)
    return dict(model=name, acc=accuracy_score(y[te], pred),
                bacc=balanced_accuracy_score(y[te], pred),
                auc=roc_auc_score(y[te], proba), rules=rules, conditions=conds,
                cpu=cpu, wall=wall, rss_mb=_peak_rss_mb(), status=cert)


def run(name, make, X, y, folds):
    rows = []
    for k, (tr, te) in enumerate(folds):
        rows.append(dict(fold=k, **fit_one(name, make, X, y, tr, te)))
    return rows


def run_isolated(ds, name, n_folds, folds_to_run, corels_time_limit):
    """Each fold's fit in a fresh process (so its peak RSS is the fit's own)."""
    rows = []
    for k in folds_to_run:
        job = json.dumps(dict(dataset=ds, model=name, folds=n_folds, fold=k,
                              corels_time_limit=corels_time_limit))
        out = subprocess.run([sys.executable, __file__, "--one", job], capture_output=True,
                             text=True)
        if out.returncode != 0:
            raise RuntimeError(f"{ds} / {name} fold {k} failed:\n{out.stderr[-3000:]}")
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return rows


def _one(job):
    """Child of ``--isolate``: load one data set, fit one fold, print its row as JSON."""
    job = json.loads(job)
    X, y = datasets()[job["dataset"]]()
    X, y = X.reset_index(drop=True), np.asarray(y)
    folds = list(StratifiedKFold(job["folds"], shuffle=True, random_state=0).split(X, y))
    tr, te = folds[job["fold"]]
    make = models([job["model"]], job["corels_time_limit"])[job["model"]]
    row = fit_one(job["model"], make, X, y, tr, te)
    print(json.dumps(dict(fold=job["fold"], **{k: (None if isinstance(v, float) and np.isnan(v)
                                                   else v) for k, v in row.items()})))


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    if "rss_mb" not in frame:            # a CSV written before peak RSS was recorded
        frame = frame.assign(rss_mb=np.nan)
    g = frame.groupby(["dataset", "model"], sort=False)
    out = g.agg(acc=("acc", "mean"), acc_se=("acc", lambda v: v.std(ddof=1) / np.sqrt(len(v))),
                bacc=("bacc", "mean"), auc=("auc", "mean"), rules=("rules", "mean"),
                conditions=("conditions", "mean"), cpu_med=("cpu", "median"),
                cpu_max=("cpu", "max"), rss_max=("rss_mb", "max"),
                statuses=("status", lambda v: ",".join(sorted(set(
                    s for s in v if isinstance(s, str) and s)))))
    return out.reset_index()


def to_markdown(summary: pd.DataFrame) -> str:
    lines = ["| dataset | model | accuracy % (se) | balanced acc % | AUC | rules | conditions "
             "| fit CPU s (median / max) | peak RSS MB | certificate |", "|" + "---|" * 10]
    for r in summary.itertuples(index=False):
        size = lambda v: "" if pd.isna(v) else f"{v:.1f}"  # noqa: E731
        lines.append(f"| {r.dataset} | {r.model} | {100 * r.acc:.1f} ({100 * r.acc_se:.1f}) | "
                     f"{100 * r.bacc:.1f} | {r.auc:.3f} | {size(r.rules)} | {size(r.conditions)} | "
                     f"{r.cpu_med:.2f} / {r.cpu_max:.2f} | {r.rss_max:.0f} | {r.statuses} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", help="comma-separated subset")
    parser.add_argument("--models", help="comma-separated subset of model names")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--out", help="append fold rows to this CSV (resumable)")
    parser.add_argument("--corels-time-limit", type=float, default=600.0,
                        help="time_limit of each CORELS fit (seconds)")
    parser.add_argument("--isolate", action="store_true",
                        help="every fit in a fresh process: its own peak RSS")
    parser.add_argument("--max-folds", type=int, help="run only the first K folds")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        return _one(args.one)
    sets = datasets()
    if args.datasets:
        sets = {k: sets[k] for k in args.datasets.split(",")}
    chosen = models(args.models.split(",") if args.models else None, args.corels_time_limit)
    done = set()
    if args.out and Path(args.out).exists():
        old = pd.read_csv(args.out)
        done = set(zip(old["dataset"], old["model"]))
    all_rows = []
    n_run = args.folds if args.max_folds is None else min(args.folds, args.max_folds)
    for ds, load in sets.items():
        if not args.isolate:
            X, y = load()
            X = X.reset_index(drop=True)
            y = np.asarray(y)
            folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=0).split(X, y))
        for name, make in chosen.items():
            if (ds, name) in done:
                continue
            if args.isolate:
                rows = run_isolated(ds, name, args.folds, range(n_run), args.corels_time_limit)
            else:
                rows = run(name, make, X, y, folds[:n_run])
            rows = [dict(dataset=ds, **r) for r in rows]
            all_rows += rows
            if args.out:
                pd.DataFrame(rows).to_csv(args.out, mode="a", header=not Path(args.out).exists(),
                                          index=False)
            s = pd.DataFrame(rows)
            print(f"{ds:14s} {name:28s} acc {100 * s.acc.mean():5.1f}  auc {s.auc.mean():.3f}  "
                  f"cpu med {s.cpu.median():7.2f} max {s.cpu.max():7.2f}  "
                  f"peak RSS {s.rss_mb.max():6.0f} MB  per fit "
                  + " ".join(f"{c:.2f}" for c in s.cpu), flush=True)
    frame = pd.read_csv(args.out) if args.out else pd.DataFrame(all_rows)
    print(to_markdown(summarize(frame)))


if __name__ == "__main__":
    main()
