"""What recording the event log costs: ``CorelsClassifier()`` on compas, untraced and traced.

Every default (the regularization path, its validation; with ``trace="events"`` the
chosen search is run once more, recording). CPU seconds of each fit in one process,
after a first fit of each kind has loaded or compiled its kernels (the traced search is
a numba specialization of its own: its first fit in a process with an empty cache
compiles it, and that figure is printed too). Medians of ``--repeat`` alternating
pairs; the models must be the same.

Usage::

    python benchmarks/bench_trace_cost.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from rulekit import CorelsClassifier
from rulekit.datasets import load_compas


def fit(X, y, **params):
    start = time.process_time()
    est = CorelsClassifier(**params).fit(X, y)
    return time.process_time() - start, est


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    X, y = load_compas(return_X_y=True)
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    first_plain, _ = fit(X, y)
    first_traced, _ = fit(X, y, trace="events")
    print(f"first fits in this process: untraced {first_plain:.2f} CPU s, "
          f"traced {first_traced:.2f} CPU s (includes compiling the traced kernels if the "
          "cache lacked them)")
    plain, traced = [], []
    for _ in range(args.repeat):
        p, quiet = fit(X, y)
        t, recorded = fit(X, y, trace="events")
        if str(quiet) != str(recorded) or quiet.certificate_.objective != recorded.certificate_.objective:
            raise SystemExit("the traced fit found another model")
        plain.append(p)
        traced.append(t)
    a, b = statistics.median(plain), statistics.median(traced)
    print(f"untraced {a:.2f} CPU s, traced {b:.2f} CPU s (medians of {args.repeat}): "
          f"{b / a:.2f}x; {len(recorded.result_.events['kind']):,} events recorded")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
