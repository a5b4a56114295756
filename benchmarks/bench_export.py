"""How fast exported models predict, beside rulekit's own ``predict``.

One model per learner, fitted on 5,000 rows of adult, predicts all 48,842
rows (raw columns, missing values included) five ways: ``est.predict``,
the SQL export in DuckDB and in SQLite (a table already loaded), and the
Python export called row by row.  Figures are CPU seconds of this process
(DuckDB's threads included), medians of ``--repeat`` runs::

    python benchmarks/bench_export.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
import warnings
from pathlib import Path

import duckdb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from export_check import load_module, sqlite_table  # noqa: E402

from rulekit import BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier  # noqa: E402
from rulekit.colgen import ColGenSettings  # noqa: E402
from rulekit.datasets import load_adult  # noqa: E402


def cpu(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        times.append(time.process_time() - start)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # adult's test rows hold a country unseen in 5,000 rows
    X, y = load_adult(return_X_y=True)
    train = np.random.default_rng(0).permutation(len(X))[:5000]
    learners = {
        "CORELS rule list": CorelsClassifier(c=0.005, max_card=2, n_thresholds=5),
        "falling rule list": FallingRuleListClassifier(n_iter=2000, random_state=0),
        "DNF rule set": BooleanRuleCGClassifier(max_complexity=16, settings=ColGenSettings(pricing="beam")),
    }
    con_sqlite = sqlite3.connect(":memory:")
    sqlite_table(con_sqlite, "adult", X)
    con_duck = duckdb.connect()
    con_duck.register("frame", X)
    con_duck.execute("CREATE TABLE adult AS SELECT * FROM frame")
    rows = X.to_dict("records")
    print(f"adult: {len(X)} rows; CPU seconds, median of {args.repeat}\n")
    print("| model | rules | est.predict | DuckDB SQL | SQLite SQL | Python export, row by row |")
    print("|---|---|---|---|---|---|")
    for name, est in learners.items():
        est.fit(X.iloc[train], np.asarray(y)[train])
        want = est.predict(X)
        module = load_module(est.to_python())
        duck_sql, lite_sql = est.to_sql("adult", dialect="duckdb"), est.to_sql("adult")
        t_est, _ = cpu(lambda: est.predict(X), args.repeat)
        t_duck, got_duck = cpu(lambda: con_duck.execute(duck_sql).fetchall(), args.repeat)
        t_lite, got_lite = cpu(lambda: con_sqlite.execute(lite_sql).fetchall(), args.repeat)
        t_py, got_py = cpu(lambda: [module["predict"](r) for r in rows], args.repeat)
        for got in ([r[0] for r in got_duck], [r[0] for r in got_lite], got_py):
            assert list(got) == list(want)
        print(f"| {name} | {len(est.model_)} | {t_est:.3f} | {t_duck:.3f} | {t_lite:.3f} | "
              f"{t_py:.3f} |")


if __name__ == "__main__":
    main()
