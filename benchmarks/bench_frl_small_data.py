"""The falling lists on small data (issue 37 item 6): overfitting and list shape.

Usage (from the repository root)::

    RULEKIT_SHARED_DATA=/path/to/shared/data PYTHONPATH=. python benchmarks/bench_frl_small_data.py \\
        --lowbwt /path/to/lowbwt.csv [--folds 5] [--specs 'frl:' 'frl:C=1e-6' 'soft:Crows=2']

Data sets (``--datasets``), stratified folds (shuffled, ``random_state=0``):

* ``lowbwt``: Hosmer and Lemeshow's 189 births (label ``LOW``, 59 of 189),
  a ``;``-separated CSV with columns AGE, LWT, PTL, FTV, HT, UI, RACE,
  SMOKE, LOW (not in the shared data; pass its path);
* ``adult4877``: 4,877 rows drawn from adult's training file
  (``random_state=0``), label ``income == ">50K"`` (24 %);
* ``adult4877maj``: the same rows with the label flipped, so the positive
  class is the majority (76 %), as on a survey where most answer "yes".

A spec is ``frl:`` or ``soft:`` followed by comma-separated keyword
arguments; ``Crows=k`` stands for ``C = k / n`` with ``n`` the fold's
training rows (a rule must fix more than ``k`` training rows), ``Crows=ln``
for ``C = ln(n) / n`` (the first attempt's ``C="auto"``); ``pos_label=either``
fits both classes as the positive one and keeps the list of the lower
training objective.  ``--datasets`` also takes bench_defaults.py's names.  Per spec:
mean training and test accuracy, the test accuracy's standard error over
the folds, the rules per fold, whether every rule predicts the class the
else clause does not, the training rows that reach the else clause, the
test rows' Brier score of ``predict_proba``, the cost per rule used, and the fit CPU seconds (user + system).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from rulekit import FallingRuleListClassifier, SoftFallingRuleListClassifier

LEARNERS = {"frl": FallingRuleListClassifier, "soft": SoftFallingRuleListClassifier}


def _shared() -> Path:
    return Path(os.environ.get("RULEKIT_SHARED_DATA",
                               Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def load(name, lowbwt=None):
    if name not in ("lowbwt", "adult4877", "adult4877maj"):
        # any of the benchmark sets, by bench_defaults.py's name
        import importlib.util

        path = Path(__file__).resolve().with_name("bench_defaults.py")
        spec = importlib.util.spec_from_file_location("_bench_defaults", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        X, y = mod.datasets()[name]()
        return X.reset_index(drop=True), np.asarray(y)
    if name == "lowbwt":
        frame = pd.read_csv(lowbwt, sep=";")
        return frame.drop(columns="LOW"), frame["LOW"].to_numpy()
    frame = pd.read_csv(_shared() / "adult" / "adult_train.csv.gz")
    frame = frame.sample(n=4877, random_state=0).reset_index(drop=True)
    y = (frame["income"] == ">50K").astype(int).to_numpy()
    return frame.drop(columns="income"), (1 - y if name == "adult4877maj" else y)


def parse(spec):
    learner, _, text = spec.partition(":")
    params = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        for kind in (int, float, str):
            try:
                params[key] = kind(value)
                break
            except ValueError:
                continue
    return LEARNERS[learner], params


def _cpu():
    t = os.times()
    return t.user + t.system


def run(X, y, cls, params, folds):
    rows = []
    for tr, te in StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y):
        params_ = dict(params)
        if "Crows" in params_:
            rows_ = params_.pop("Crows")
            params_["C"] = (np.log(len(tr)) if rows_ == "ln" else rows_) / len(tr)
        either = params_.pop("pos_label", None) == "either"
        if not either and "pos_label" in params:
            params_["pos_label"] = params["pos_label"]
        start = _cpu()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cls(**params_).fit(X.iloc[tr], y[tr])
            if either:
                # both classes as the positive one; the lower training objective wins
                # (at w=1 the objective is the plain error rate + C per rule either way)
                other = cls(**params_, pos_label=est.classes_[0]).fit(X.iloc[tr], y[tr])
                if other.certificate_.objective < est.certificate_.objective:
                    est = other
        cpu = _cpu() - start
        test = np.mean(est.predict(X.iloc[te]) == y[te])
        train = np.mean(est.predict(X.iloc[tr]) == y[tr])
        # Brier score of the stated probabilities on the test rows (labels are 0/1)
        brier = np.mean((est.predict_proba(X.iloc[te])[:, 1] - y[te]) ** 2)
        said = [r.prediction for r in est.model_.rules]
        rows.append(dict(train=train, test=test, brier=brier, rules=len(said),
                         positive=est.positive_class_,
                         C_=getattr(est, "C_", est.C),
                         one_class=bool(said) and len(set(said)) == 1
                         and said[0] != est.model_.default.prediction,
                         else_rows=int(est.counts_[-1].sum()), cpu=cpu))
    return pd.DataFrame(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lowbwt", help="path of lowbwt.csv (';'-separated)")
    parser.add_argument("--datasets", default="lowbwt,adult4877,adult4877maj")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--specs", nargs="+", default=["frl:", "soft:"])
    args = parser.parse_args(argv)
    print("| data set | learner | train acc | test acc (se) | rules per fold | every rule says the "
          "non-default class | rows reaching the else | test Brier | positive class per fold | C_ (mean) "
          "| fit CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        if name == "lowbwt" and not args.lowbwt:
            continue
        X, y = load(name, args.lowbwt)
        for spec in args.specs:
            cls, params = parse(spec)
            f = run(X, y, cls, params, args.folds)
            se = f.test.std(ddof=1) / np.sqrt(len(f))
            print(f"| {name} ({len(y)} rows) | {spec} | {f.train.mean():.3f} | {f.test.mean():.3f} "
                  f"({se:.3f}) | {', '.join(map(str, f.rules))} | "
                  f"{', '.join('yes' if v else 'no' for v in f.one_class)} | "
                  f"{', '.join(map(str, f.else_rows))} | {f.brier.mean():.3f} | "
                  f"{', '.join(map(str, f.positive))} | {f.C_.astype(float).mean():.2g} | "
                  f"{f.cpu.sum():.1f} |", flush=True)


if __name__ == "__main__":
    main()
