"""Fit time against rows: every learner at its defaults on growing samples of one data set.

Usage (from the repository root, in a venv with rulekit, the ``bench`` extra and
wittgenstein for RIPPER)::

    RULEKIT_SHARED_DATA=/path/to/shared/data python benchmarks/bench_scaling.py \\
        [--datasets adult,bank] [--rows 1000,5000,25000,50000] [--models CG,FRL]
        [--out FILE.csv] [--plot docs/images/scaling.png]

For each data set and each row count ``n``, a stratified sample of ``n`` rows
(``random_state=0``; all rows when the set has fewer than ``n``) is the
training set, and every model is fitted on it in a fresh Python process, as
a user running one fit would: the figures are that process's CPU seconds over
``fit`` (user + system, its children included) and its peak resident set
(imports and data included).  The models are those of ``bench_defaults.py``
(every rulekit learner constructed with no arguments; CART depth 4; RIPPER
when wittgenstein is installed); the rows not sampled, up to 10,000 of them,
give a test accuracy beside each figure.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

# the script's folder is on sys.path: one definition of the data sets, models and timing
import bench_defaults as bench

DEFAULT_MODELS = ("CORELS", "FRL", "softFRL", "CG", "CART depth 4", "RIPPER (wittgenstein)")
#: held-out rows scored per fit (a bound, so that scoring never dominates a small fit)
MAX_TEST_ROWS = 10_000


def split(X, y, n: int):
    """Indices of a stratified sample of ``n`` rows and of up to MAX_TEST_ROWS others."""
    everything = np.arange(len(y))
    if n >= len(y):
        return everything, everything[:0]
    train, rest = train_test_split(everything, train_size=n, stratify=y, random_state=0)
    return np.sort(train), np.sort(rest[:MAX_TEST_ROWS])


def _one(job: str) -> None:
    """Child process: load the data, fit one model on one sample, print the row as JSON."""
    job = json.loads(job)
    X, y = bench.datasets()[job["dataset"]]()
    X, y = X.reset_index(drop=True), np.asarray(y)
    train, test = split(X, y, job["rows"])
    make = bench.models([job["model"]], job["corels_time_limit"])[job["model"]]
    # score on the held-out rows when there are any (fit_one needs a test set)
    row = bench.fit_one(job["model"], make, X, y, train, test if len(test) else train[:1000])
    row.update(requested=int(job["rows"]), rows=int(len(train)), test_rows=int(len(test)))
    print(json.dumps({k: (None if isinstance(v, float) and np.isnan(v) else v)
                      for k, v in row.items()}))


def run(dataset: str, model: str, rows: int, corels_time_limit: float) -> dict:
    job = json.dumps(dict(dataset=dataset, model=model, rows=rows,
                          corels_time_limit=corels_time_limit))
    out = subprocess.run([sys.executable, __file__, "--one", job], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{dataset} / {model} / {rows} rows failed:\n{out.stderr[-3000:]}")
    return dict(dataset=dataset, **json.loads(out.stdout.strip().splitlines()[-1]))


def to_markdown(frame: pd.DataFrame) -> str:
    """One table per data set: a row per model, CPU s (peak RSS MB) per row count."""
    parts = []
    for ds, part in frame.groupby("dataset", sort=False):
        counts = sorted(part["rows"].unique())
        head = "| model | " + " | ".join(f"{n:,} rows" for n in counts) + " |"
        lines = [f"**{ds}**: fit CPU s (peak RSS MB, test accuracy %)", "", head,
                 "|" + "---|" * (len(counts) + 1)]
        for model, g in part.groupby("model", sort=False):
            cells = []
            for n in counts:
                r = g[g["rows"] == n]
                if r.empty:
                    cells.append("")
                    continue
                r = r.iloc[0]
                acc = "" if not r["test_rows"] else f", {100 * r['acc']:.1f}"
                cells.append(f"{r['cpu']:.2f} ({r['rss_mb']:.0f}{acc})")
            lines.append(f"| {model} | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def plot(frame: pd.DataFrame, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = list(dict.fromkeys(frame["dataset"]))
    fig, axes = plt.subplots(1, len(sets), figsize=(5.2 * len(sets), 4), squeeze=False)
    for ax, ds in zip(axes[0], sets):
        part = frame[frame["dataset"] == ds]
        for model, g in part.groupby("model", sort=False):
            g = g.sort_values("rows")
            ax.plot(g["rows"], g["cpu"], marker="o", label=model)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("training rows")
        ax.set_ylabel("fit CPU s (fresh process)")
        ax.set_title(f"{ds}: every learner at its defaults")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][-1].legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="adult,bank")
    parser.add_argument("--rows", default="1000,5000,25000,50000")
    parser.add_argument("--models", help="comma-separated subset of " + ", ".join(DEFAULT_MODELS))
    parser.add_argument("--corels-time-limit", type=float, default=600.0)
    parser.add_argument("--out", help="append rows to this CSV (resumable)")
    parser.add_argument("--plot", help="write the figure here (PNG)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        return _one(args.one)
    models = args.models.split(",") if args.models else list(DEFAULT_MODELS)
    available = bench.models(models, args.corels_time_limit)
    done = set()
    if args.out and Path(args.out).exists():
        old = pd.read_csv(args.out)
        done = set(zip(old["dataset"], old["model"], old["requested"]))
    rows = []
    for ds in args.datasets.split(","):
        for n in (int(v) for v in args.rows.split(",")):
            for model in (m for m in models if m in available and (ds, m, n) not in done):
                row = run(ds, model, n, args.corels_time_limit)
                rows.append(row)
                print(f"{ds:8s} {row['rows']:7,d} rows  {model:24s} cpu {row['cpu']:8.2f}  "
                      f"peak RSS {row['rss_mb']:6.0f} MB  acc {100 * row['acc']:5.1f}", flush=True)
                if args.out:
                    pd.DataFrame([row]).to_csv(args.out, mode="a", index=False,
                                               header=not Path(args.out).exists())
    frame = pd.read_csv(args.out) if args.out else pd.DataFrame(rows)
    print(to_markdown(frame))
    if args.plot:
        plot(frame, args.plot)


if __name__ == "__main__":
    main()
