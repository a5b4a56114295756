"""Run the exported SQL of every learner on every bundled data set in PostgreSQL.

The test suite runs the SQL exports in SQLite and DuckDB (both in-process).
PostgreSQL needs a server, so this check is a script: it starts a private
PostgreSQL (the ``pgserver`` package bundles one), loads the same rows the
export tests use (missing values, unseen categories, values at the
thresholds) into typed tables, runs ``to_sql(..., dialect="postgresql")``
and compares every label and probability with ``predict`` /
``predict_proba``::

    pip install -e '.[test,postgres]'
    python benchmarks/check_export_postgresql.py

It prints one line per data set and learner and exits non-zero on any
difference.
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from export_check import _python_value as _value, assert_same, dirty, expected  # noqa: E402
from test_export import DATASETS, LEARNERS, fitted, split, tictactoe_multiclass  # noqa: E402
from test_persist import labels, raw_frame  # noqa: E402


def _mixed():
    """Numbers with missing values, rare categories and dates (datetime parts)."""
    X = raw_frame(300, seed=1)
    return X, labels(X, 1), raw_frame(200, seed=7)


def _sql_type(series: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(series.dtype):
        return "BOOLEAN"
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return "TIMESTAMP"
    if pd.api.types.is_integer_dtype(series.dtype):
        return "BIGINT"
    if pd.api.types.is_numeric_dtype(series.dtype):
        return "DOUBLE PRECISION"
    present = [v for v in series if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if present and all(isinstance(v, (bool, np.bool_)) for v in present):
        return "BOOLEAN"
    if present and all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                       for v in present):
        return "DOUBLE PRECISION"
    return "TEXT"


def postgresql_outputs(con, obj, frame: pd.DataFrame, n_classes: int):
    frame = frame.reset_index(drop=True)
    cur = con.cursor()
    cur.execute('DROP TABLE IF EXISTS "data"')
    types = {c: _sql_type(frame[c]) for c in frame.columns}
    columns = ", ".join('"' + str(c).replace('"', '""') + f'" {t}' for c, t in types.items())
    cur.execute(f'CREATE TABLE "data" (row_number_ BIGINT, {columns})')
    marks = ", ".join(["%s"] * (len(frame.columns) + 1))
    rows = []
    for i, row in enumerate(frame.itertuples(index=False, name=None)):
        values = [_value(v) for v in row]
        values = [str(v) if t == "TEXT" and v is not None else v
                  for v, t in zip(values, types.values())]
        rows.append([i, *values])
    cur.executemany(f'INSERT INTO "data" VALUES ({marks})', rows)
    query = obj.to_sql("data", dialect="postgresql", proba=True, keep=["row_number_"])
    cur.execute(query + " ORDER BY row_number_")
    out = cur.fetchall()
    return [r[1] for r in out], [list(r[2:2 + n_classes]) for r in out]


def main() -> int:
    import pg8000.dbapi
    import pgserver

    server = pgserver.get_server(tempfile.mkdtemp(), cleanup_mode="stop")
    socket_dir = server.get_uri().split("host=")[1]
    con = pg8000.dbapi.connect(user="postgres", unix_sock=f"{socket_dir}/.s.PGSQL.5432",
                               database="postgres")
    con.autocommit = True
    version = con.cursor()
    version.execute("SHOW server_version")
    print(f"PostgreSQL {version.fetchone()[0]}")
    failures = 0
    cases = [(d, name) for d in DATASETS for name in LEARNERS]
    cases += [("tictactoe 3 classes", name) for name in ("corels", "cg-dnf", "cg-cnf")]
    cases += [("mixed with dates", name) for name in LEARNERS]
    for dataset, learner in cases:
        start = time.perf_counter()
        if dataset == "tictactoe 3 classes":
            X, y, X_test = tictactoe_multiclass()
        elif dataset == "mixed with dates":
            X, y, X_test = _mixed()
        else:
            X, y, X_test = split(dataset)
        est = fitted(learner, X, y)
        rows = pd.concat([dirty(X_test, est.binarizer_, seed=1), X_test], ignore_index=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = expected(est, rows)
        try:
            assert_same(postgresql_outputs(con, est, rows, len(est.classes_)), want, "postgresql")
            verdict = "same"
        except AssertionError as exc:
            verdict, failures = f"DIFFERENT: {exc}", failures + 1
        print(f"{dataset:<20} {learner:<8} {len(rows):>4} rows  {verdict}  "
              f"({time.perf_counter() - start:.1f} s)", flush=True)
    print("all same" if not failures else f"{failures} cases differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
