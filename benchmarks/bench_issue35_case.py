"""Issue 35's in-memory case: adult repeated 20 times, numeric values jittered, one fit.

The rows are adult's 48,842 repeated 20 times (976,840 rows), with each numeric value
moved by -1, 0 or +1 at random (seed 0), so that rows are not exact copies. Each learner
runs in its own process, at every default: a fit on the first 2,000 rows loads or
compiles its kernels, then one ``fit`` on every row is measured.

- CPU s: ``time.process_time()`` around ``fit`` (every thread of the process).
- Own MB: the fit's own memory, the peak resident set during ``fit`` less the resident
  set just before it. The peak is reset through ``/proc/self/clear_refs`` first, so
  Linux only.

Usage::

    python benchmarks/bench_issue35_case.py [--learners BooleanRuleCGClassifier,...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings

from bench_scale import proc_status_mb     # noqa: E402  (a script beside this one)

LEARNERS = ("CorelsClassifier", "FallingRuleListClassifier",
            "SoftFallingRuleListClassifier", "BooleanRuleCGClassifier")


def one(name: str) -> None:
    """Fit ``name`` on the case in this process and print one table row."""
    import numpy as np
    import pandas as pd

    import rulekit
    from rulekit.datasets import load_adult

    X, y = load_adult(return_X_y=True)
    X = pd.concat([X] * 20, ignore_index=True)
    y = np.tile(np.asarray(y), 20)
    rng = np.random.default_rng(0)
    for col in X.columns:
        if pd.api.types.is_numeric_dtype(X[col]):
            X[col] = X[col] + rng.integers(-1, 2, len(X))
    warnings.simplefilter("ignore")
    cls = getattr(rulekit, name)
    cls().fit(X.iloc[:2000], y[:2000])
    before = proc_status_mb("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")              # the peak counts from here
    cpu, wall = time.process_time(), time.perf_counter()
    est = cls().fit(X, y)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    cert = est.certificate_
    print(f"| {name} | {len(X):,} | {cpu:.1f} | {wall:.1f} | {before:,.0f} | "
          f"{proc_status_mb('VmHWM') - before:,.0f} | {cert.status} | {cert.objective:.6f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", default=",".join(LEARNERS),
                        help="estimator classes of rulekit, comma-separated")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.one)
        return
    print(f"load average at start: {os.getloadavg()[0]:.1f}\n")
    print("| learner | rows | fit CPU s | wall s | RSS before fit MB | fit's own MB | status "
          "| objective |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.learners.split(","):
        # a fresh process per learner: one fit's memory is not the next one's
        subprocess.run([sys.executable, __file__, "--one", name.strip()], check=True)


if __name__ == "__main__":
    main()
