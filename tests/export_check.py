"""Run exported models where they are meant to run: SQLite, DuckDB, plain Python.

Shared by the export tests (on pytest's pythonpath).  Nothing here uses
rulekit: the SQL runs in real databases, the Python source runs in a
namespace whose imports are limited to the standard-library modules an
export may use, and the results are compared with ``predict`` /
``predict_proba`` of the estimator or predictor by the tests.
"""

from __future__ import annotations

import builtins
import datetime
import math
import sqlite3
import warnings

import duckdb
import numpy as np
import pandas as pd

#: what an exported module may import
ALLOWED_IMPORTS = {"math", "numbers", "datetime"}


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level or name.split(".")[0] not in ALLOWED_IMPORTS:
        raise ImportError(f"an exported model may not import {name!r}")
    return builtins.__import__(name, globals, locals, fromlist, level)


def load_module(source: str) -> dict:
    """Execute exported source in a fresh namespace with only allowed imports."""
    namespace = {"__builtins__": {**vars(builtins), "__import__": _guarded_import},
                 "__name__": "exported_model"}
    exec(compile(source, "exported_model.py", "exec"), namespace)
    return namespace


def python_outputs(source: str, frame: pd.DataFrame, *, plain: bool = False):
    """(labels, probability rows) of the exported module on every row of ``frame``.

    ``plain=True`` passes pure Python values (None for every missing value,
    ``datetime`` for timestamps) instead of pandas' own scalars.
    """
    module = load_module(source)
    rows = frame.to_dict("records")
    if plain:
        rows = [{k: _python_value(v) for k, v in row.items()} for row in rows]
    return ([module["predict"](r) for r in rows], [module["predict_proba"](r) for r in rows])


def _python_value(value):
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _sqlite_value(value):
    value = _python_value(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def sqlite_table(con: sqlite3.Connection, name: str, frame: pd.DataFrame) -> None:
    """``frame`` as a SQLite table: NULL for missing, ISO text for dates, 0/1 for booleans.

    Columns get no declared type, so every value keeps the type it has in
    Python (text stays text, integers stay integers).
    """
    quoted = ", ".join('"' + str(c).replace('"', '""') + '"' for c in frame.columns)
    con.execute(f'CREATE TABLE "{name}" ({quoted})')
    marks = ", ".join("?" for _ in frame.columns)
    rows = [[_sqlite_value(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    con.executemany(f'INSERT INTO "{name}" VALUES ({marks})', rows)


def _outputs(rows, n_classes: int):
    labels = [r[0] for r in rows]
    probas = [list(r[1:1 + n_classes]) for r in rows]
    return labels, probas


def sqlite_outputs(obj, frame: pd.DataFrame, n_classes: int, table: str = "data"):
    """(labels, probability rows) of ``obj.to_sql(..., dialect="sqlite")`` run in SQLite."""
    con = sqlite3.connect(":memory:")
    sqlite_table(con, table, frame.reset_index(drop=True))
    query = obj.to_sql(table, dialect="sqlite", proba=True)
    return _outputs(con.execute(query + " ORDER BY rowid").fetchall(), n_classes)


def duckdb_outputs(obj, frame: pd.DataFrame, n_classes: int, table: str = "data"):
    """(labels, probability rows) of the DuckDB export, run on a table made from the DataFrame."""
    con = duckdb.connect()
    con.register("frame_view", frame.reset_index(drop=True).assign(row_number_=range(len(frame))))
    con.execute(f'CREATE TABLE "{table}" AS SELECT * FROM frame_view')
    query = obj.to_sql(table, dialect="duckdb", proba=True, keep=["row_number_"])
    rows = con.execute(query + " ORDER BY row_number_").fetchall()
    return _outputs([r[1:] for r in rows], n_classes)


def expected(obj, frame: pd.DataFrame):
    """(labels, probability rows) of ``obj.predict`` / ``obj.predict_proba``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = [v.item() if isinstance(v, np.generic) else v for v in obj.predict(frame)]
        probas = obj.predict_proba(frame).tolist()
    return labels, probas


def assert_same(got, want, where: str) -> None:
    """Labels and probabilities equal on every row (probabilities to the last bit)."""
    g_labels, g_probas = got
    w_labels, w_probas = want
    assert len(g_labels) == len(w_labels), where
    bad = [i for i, (a, b) in enumerate(zip(g_labels, w_labels)) if a != b]
    assert not bad, f"{where}: {len(bad)} labels differ, first at row {bad[0]}: {g_labels[bad[0]]!r} != {w_labels[bad[0]]!r}"
    bad = [i for i, (a, b) in enumerate(zip(g_probas, w_probas)) if list(a) != list(b)]
    assert not bad, f"{where}: {len(bad)} probability rows differ, first at row {bad[0]}: {g_probas[bad[0]]} != {w_probas[bad[0]]}"


def check_everywhere(obj, frame: pd.DataFrame) -> None:
    """The Python, SQLite and DuckDB exports of ``obj`` reproduce it on ``frame``."""
    want = expected(obj, frame)
    n_classes = len(obj.classes_)
    source = obj.to_python()
    assert_same(python_outputs(source, frame), want, "python")
    assert_same(python_outputs(source, frame, plain=True), want, "python (plain values)")
    assert_same(sqlite_outputs(obj, frame, n_classes), want, "sqlite")
    assert_same(duckdb_outputs(obj, frame, n_classes), want, "duckdb")


def dirty(frame: pd.DataFrame, binarizer, seed: int, share: float = 0.1) -> pd.DataFrame:
    """``frame`` with missing values, unseen categories and exact thresholds injected.

    In every column about ``share`` of the rows become missing; in every
    text column about ``share`` hold a category never seen in training
    (with a quote in it); in every thresholded column about ``share`` hold
    one of the thresholds exactly (where ``<=`` and ``>`` part).
    """
    rng = np.random.default_rng(seed)
    out = frame.copy().reset_index(drop=True)
    n = len(out)
    thresholds = {s["source"]: s["values"] for s in binarizer.to_dict()["columns"]
                  if s["kind"] == "numeric" and s["part"] is None and s["values"]}
    for name in out.columns:
        col = out[name]
        if pd.api.types.is_bool_dtype(col.dtype):
            pass  # booleans: missing values only (a SQL boolean column holds nothing else)
        elif name in thresholds and pd.api.types.is_numeric_dtype(col.dtype):
            at = rng.random(n) < share
            values = rng.choice(np.asarray(thresholds[name], dtype=float), n)
            out[name] = np.where(at, values, col.to_numpy(dtype=float))
        elif not pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_datetime64_any_dtype(col.dtype):
            col = col.astype(object)
            col[rng.random(n) < share] = "never seen 'before'"
            out[name] = col
        gone = rng.random(n) < share
        if pd.api.types.is_bool_dtype(out[name].dtype):
            col = out[name].astype(object)
            col[gone] = None
            out[name] = col
        elif pd.api.types.is_datetime64_any_dtype(out[name].dtype):
            out.loc[gone, name] = pd.NaT
        elif pd.api.types.is_numeric_dtype(out[name].dtype) and not pd.api.types.is_bool_dtype(out[name].dtype):
            out[name] = out[name].astype(float)
            out.loc[gone, name] = math.nan
        else:
            col = out[name].astype(object)
            col[gone] = None
            out[name] = col
    return out.copy()  # one block per dtype again, after the column-by-column edits


def fit(X, y, **params):
    """A CORELS fit for the export tests: one rule per condition, small c, every category kept,
    warnings silenced (the tests look at the exports, not the search)."""
    from rulekit import CorelsClassifier

    settings = dict(c=0.001, max_card=1, min_frequency=None)
    settings.update(params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CorelsClassifier(**settings).fit(X, y)
