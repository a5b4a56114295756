"""Two ``bench_defaults.py --out`` runs of the same folds, compared per (data set, learner).

Usage::

    python benchmarks/compare_folds.py BEFORE.csv AFTER.csv \\
        [--pair 'FRL=FRL minority positive' --pair 'softFRL=softFRL minority positive']

For every ``--pair BEFORE_MODEL=AFTER_MODEL`` and every data set of the
before run: mean test accuracy before and after, the change, and two
standard errors, both over the folds (``ddof=1``):

* ``se``: of the before run's fold accuracies (the figure
  ``bench_defaults.py`` prints beside its accuracy);
* ``paired se``: of the per-fold differences after - before.

"within 1 se" is ``after >= before - se`` (no loss of more than one
standard error) and ``|after - before| <= se`` (no move either way); the
table gives both, and the same for the paired se.  A data set missing from
the after run is reported as such (never filled in).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd


def _se(values) -> float:
    values = np.asarray(values, float)
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")


def compare(before: pd.DataFrame, after: pd.DataFrame, pairs) -> pd.DataFrame:
    rows = []
    for old, new in pairs:
        for ds in before.loc[before.model == old, "dataset"].unique():
            b = before[(before.model == old) & (before.dataset == ds)].set_index("fold").sort_index()
            a = after[(after.model == new) & (after.dataset == ds)].set_index("fold").sort_index()
            row = dict(dataset=ds, learner=old, acc_before=b.acc.mean(), se=_se(b.acc),
                       auc_before=b.auc.mean(), rules_before=b.rules.mean(),
                       cpu_before=b.cpu.median(), folds=len(b))
            if len(a) == 0:
                rows.append(row)
                continue
            if list(a.index) != list(b.index):
                raise ValueError(f"{ds} / {new}: folds {list(a.index)} differ from {list(b.index)}")
            diff = a.acc - b.acc
            row.update(acc_after=a.acc.mean(), change=diff.mean(), paired_se=_se(diff),
                       auc_after=a.auc.mean(), rules_after=a.rules.mean(), cpu_after=a.cpu.median())
            rows.append(row)
    return pd.DataFrame(rows)


def to_markdown(table: pd.DataFrame) -> str:
    out = ["| data set | learner | acc % before (se) | acc % after | change | paired se "
           "| no loss > 1 se | within ±1 se | within ±1 paired se | AUC before -> after "
           "| rules before -> after | median fit CPU s before -> after |",
           "|" + "---|" * 12]
    for r in table.itertuples(index=False):
        if pd.isna(getattr(r, "acc_after", np.nan)):
            out.append(f"| {r.dataset} | {r.learner} | {100 * r.acc_before:.1f} ({100 * r.se:.1f}) "
                       "| not run | | | | | | | | |")
            continue
        yes = lambda ok: "yes" if ok else "**no**"  # noqa: E731
        # a change is compared at the printed precision's tenth (1e-9: float noise only)
        out.append(
            f"| {r.dataset} | {r.learner} | {100 * r.acc_before:.1f} ({100 * r.se:.1f}) | "
            f"{100 * r.acc_after:.1f} | {100 * r.change:+.1f} | {100 * r.paired_se:.1f} | "
            f"{yes(r.change >= -r.se - 1e-9)} | {yes(abs(r.change) <= r.se + 1e-9)} | "
            f"{yes(abs(r.change) <= r.paired_se + 1e-9)} | {r.auc_before:.3f} -> {r.auc_after:.3f} | "
            f"{r.rules_before:.1f} -> {r.rules_after:.1f} | {r.cpu_before:.2f} -> {r.cpu_after:.2f} |")
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--pair", action="append", default=[],
                        help="BEFORE_MODEL=AFTER_MODEL (repeatable)")
    args = parser.parse_args(argv)
    pairs = [tuple(p.split("=", 1)) for p in args.pair] or [("FRL", "FRL"), ("softFRL", "softFRL")]
    table = compare(pd.read_csv(args.before), pd.read_csv(args.after), pairs)
    print(to_markdown(table))


if __name__ == "__main__":
    main()
