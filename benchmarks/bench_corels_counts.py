"""CORELS on all rows against the distinct (row, class) pairs weighted by their counts (issue 35).

One run per mode, each in its own process so that peak RSS is its own::

    python benchmarks/bench_corels_counts.py all [MAX_WORK]
    python benchmarks/bench_corels_counts.py counts [MAX_WORK]

adult, default ``Binarizer()``, ``c = 0.01``, single conditions (``max_card=1``,
``min_support = c``).  ``counts`` folds identical (row, class) pairs with
:func:`rulekit.evaluate.merge_rows` and passes the counts as ``sample_weight``
to the miner and the search.  Prints one JSON line: the sizes, CPU seconds
(``time.process_time``) of folding, mining and the search, the search's peak of
traced allocations, peak RSS before and after it, and the result (which must be
the same in both modes).  ``MAX_WORK`` (default 1e9) bounds the search: at
``c = 0.01`` it does not finish on adult within minutes.
"""

import json
import resource
import sys
import time
import tracemalloc

import numpy as np

from rulekit import Binarizer, mine_antecedents
from rulekit.corels import search
from rulekit.datasets import load_adult
from rulekit.evaluate import merge_rows


def main(mode: str, max_work: int) -> dict:
    X, y = load_adult(return_X_y=True)
    y = np.unique(np.asarray(y), return_inverse=True)[1]
    B = Binarizer().fit_transform(X, y)
    search(np.eye(4, dtype=bool), [0, 1, 0, 1], 0.01)  # compile the kernels outside the timing
    out = {"mode": mode, "rows": int(B.shape[0]), "conditions": int(B.shape[1])}
    t0 = time.process_time()
    w = None
    if mode == "counts":
        rows, _, (w,) = merge_rows(np.column_stack([B, y == 1]), np.ones(len(y), np.int64))
        B, y = rows[:, :-1], rows[:, -1].astype(np.int64)
        out["distinct_pairs"] = int(len(B))
    out["fold_cpu_s"] = time.process_time() - t0
    t0 = time.process_time()
    ants = mine_antecedents(B, y, min_support=0.01, max_card=1, sample_weight=w)
    out["mine_cpu_s"] = time.process_time() - t0
    A = np.ascontiguousarray(ants.matrix)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()
    t0 = time.process_time()
    r = search(A, y, 0.01, sample_weight=w, max_work=max_work)
    out["search_cpu_s"] = time.process_time() - t0
    out["search_traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    out.update(rss_peak_before_search_mb=rss_before,
               rss_peak_after_search_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               engine_memory_mb=r.stats["memory_mb"], work=r.stats["work"],
               nodes_expanded=r.stats["nodes_expanded"], prefix=list(r.prefix),
               labels=[int(v) for v in r.rule_labels] + [int(r.default_label)],
               objective=r.objective, lower_bound=r.lower_bound, status=r.status,
               load=open("/proc/loadavg").read().split()[:3])
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(float(sys.argv[2])) if len(sys.argv) > 2 else 10**9)))
