"""Rashomon set of rule lists on the CORELS compas file: how many, how fast.

Usage (from the repository root)::

    python benchmarks/bench_rashomon.py [--c 0.01] [--eps 0.01] [--time-limit 1800]

Enumerates every rule list within ``eps`` of the optimal objective over the
155 antecedents the CORELS authors mined for compas (6489 training rows) and
prints the count, the lists by number of rules, the enumeration's graph, CPU
seconds (user + system of this process) and peak memory.  For figures that
hold on a shared machine, time the whole process several times (for example
with ``/usr/bin/time -v``) and quote medians.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from rulekit.corels import rashomon
from rulekit.datasets import load_corels_compas


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", type=float, default=0.01)
    parser.add_argument("--eps", type=float, default=0.01)
    parser.add_argument("--time-limit", type=float, default=1800.0)
    args = parser.parse_args(argv)
    data = load_corels_compas()
    t0 = time.process_time()
    result = rashomon(data.data, data.target, args.c, args.eps, time_limit=args.time_limit,
                      max_memory=None)
    cpu = time.process_time() - t0
    lengths = np.bincount(result.prefixes.lengths())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"c={args.c:g} epsilon={args.eps:g}: {len(result):,} lists, status {result.status}, "
          f"optimum {result.optimum:.6f}")
    print("  lists by rules: " + ", ".join(f"{k}: {v:,}" for k, v in enumerate(lengths) if v))
    print(f"  graph: {result.stats['nodes']:,} captured sets, {result.stats['edges_kept']:,} "
          f"edges kept of {result.stats['edges_scored']:,} scored")
    print(f"  CPU {cpu:.1f} s (in process), peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
