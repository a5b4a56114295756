"""CPU seconds of one CORELS search on the bundled compas file, nothing else.

Prints the search's own CPU time (``time.process_time`` around the call),
after a small search in the same process has loaded the compiled kernels,
so two installs can be compared without their start-up costs::

    python benchmarks/bench_search_cpu.py --c 0.005

Run it alternately from two installs (as in benchmarks/RESULTS.md, "Recording
a search costs nothing when it is not asked for") and compare the medians.
"""

import argparse
import time

import numpy as np

from rulekit.corels import search
from rulekit.datasets import load_corels_compas


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", type=float, default=0.005, help="regularization (default 0.005)")
    args = parser.parse_args()
    bunch = load_corels_compas()
    A, y = np.asarray(bunch.data, dtype=bool), np.asarray(bunch.target)
    search(A[:200], y[:200], 0.05)  # load the compiled kernels before timing
    start = time.process_time()
    result = search(A, y, args.c)
    print(f"{time.process_time() - start:.3f} CPU s, {result.status}")


if __name__ == "__main__":
    main()
