"""Property tests: every export agrees with ``predict`` on every row, or refuses (issue 36).

Random frames with hostile names (quotes, line breaks, unicode, names that
differ only in case) and hostile values (dates with and without a time zone,
numbers stored as text, NUL, line breaks, integers beyond 2**53, NaN,
infinity), labels among them.  For each row:

* ``predict`` either answers or refuses (``ValueError``; the row is then
  refused alone, so one bad row does not hide the others);
* the Python export gives the same answer, or raises ``ValueError`` exactly
  where ``predict`` refuses;
* the SQL, run in SQLite and DuckDB here and in PostgreSQL in the slow test,
  gives the same label and probabilities to the last bit, or refuses: ``NULL``
  in every output of a row ``predict`` refuses, or a database error for the
  whole query (a column of the wrong type).  A ``ValueError`` from ``to_sql``
  (a NUL in a label) is a refusal too.

A frame rulekit refuses at fit (a time-zone-aware column, names that differ
only in case) must be refused with a ``ValueError`` naming the column.
"""

import datetime
import math
import shutil
import sqlite3
import tempfile
import warnings

import duckdb
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from rulekit import CorelsClassifier
from export_check import _python_value, load_module, sqlite_table

FAST = settings(max_examples=12, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=25, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))

#: a refused row
REFUSED = "refused"

#: hostile text: quotes, backquotes, line breaks, unicode; NUL where SQL cannot go
CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
TEXT = st.one_of(st.text(CHARS, min_size=1, max_size=6),
                 st.sampled_from(['a"b', "it's", "x`y", "line\nbreak", "Ünï", "5", "10", "-0"]))
NAME = TEXT.filter(lambda s: s.casefold() != "row_number_")
LABEL = st.one_of(
    st.lists(TEXT, min_size=2, max_size=2, unique=True),
    st.just(["a", "a\x00"]),
    st.lists(st.integers(-2 ** 62, 2 ** 62), min_size=2, max_size=2, unique=True))
KINDS = ("number", "huge", "digits", "category", "date", "zoned date")
N = 36


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _column(kind: str, rng, n: int) -> pd.Series:
    if kind == "number":
        values = rng.integers(0, 6, n).astype(float)
        values[rng.random(n) < 0.15] = np.nan
        return pd.Series(values)
    if kind == "huge":  # integers doubles cannot tell apart from their neighbours
        base = 2 ** 60
        return pd.Series([base + int(v) for v in rng.integers(-3, 4, n)], dtype=object).astype("int64")
    if kind == "digits":  # numbers written as text: categories to rulekit
        return pd.Series(rng.choice(np.asarray(["1", "2", "10", "05"], dtype=object), n), dtype=object)
    if kind == "category":
        return pd.Series(rng.choice(np.asarray(["u", "v\nw", "x'y", "Z"], dtype=object), n), dtype=object)
    stamps = (pd.Timestamp("2022-01-30") + pd.to_timedelta(rng.integers(0, 24 * 40, n), unit="h"))
    series = pd.Series(pd.DatetimeIndex(stamps))
    series[rng.random(n) < 0.1] = pd.NaT
    if kind == "zoned date":
        series = series.dt.tz_localize(datetime.timezone(datetime.timedelta(hours=-5)))
    return series


def _hostile_rows(X: pd.DataFrame, kinds: dict, rng, draw) -> pd.DataFrame:
    """New rows: the training rows, then values rulekit refuses or has not seen."""
    rows = X.copy()
    n = len(rows)
    for name, kind in kinds.items():
        pick = rng.random(n)
        column = rows[name].astype(object)
        if kind in ("number", "huge"):
            column[pick < 0.1] = draw(st.sampled_from([math.inf, -math.inf, "3", "4.5"]))
            column[(pick >= 0.1) & (pick < 0.2)] = np.nan
        elif kind in ("digits", "category"):
            column[pick < 0.1] = draw(st.sampled_from([3, 10, "NEW", "Z\x00", None]))
        elif kind == "date":
            zoned = datetime.datetime(2022, 2, 3, 23, 30,
                                      tzinfo=datetime.timezone(datetime.timedelta(hours=3)))
            column[pick < 0.1] = draw(st.sampled_from([zoned, "2022-02-01 10:00:00+02:00",
                                                       "2022-02-04 07:00:00"]))
        rows[name] = column
    return rows


@st.composite
def frames(draw):
    """(X, y, rows, kinds): a training frame, labels, rows to predict, column kinds."""
    names = draw(st.lists(NAME, min_size=2, max_size=3, unique=True))
    if draw(st.booleans()) and names[0].swapcase() != names[0]:
        names[1] = names[0].swapcase()  # a case twin: refused at fit
    kinds = {name: draw(st.sampled_from(KINDS)) for name in names}
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    X = pd.DataFrame({name: _column(kind, rng, N) for name, kind in kinds.items()})
    labels = draw(LABEL)
    signal = rng.random(N) < 0.5
    first = X.columns[0]
    if kinds[first] in ("number", "huge"):
        signal = (X[first] > X[first].median()).to_numpy()
    y = pd.Series([labels[int(s)] for s in signal],
                  dtype="int64" if isinstance(labels[0], int) else object)
    assume(y.nunique() == 2)
    rows = _hostile_rows(X, kinds, rng, draw)
    return X, y, rows, kinds


def fit_or_refusal(X, y, kinds):
    """The fitted estimator, or None after checking the refusal names a column."""
    zoned = [name for name, kind in kinds.items() if kind == "zoned date"]
    twins = {name.casefold() for name in X.columns}
    try:
        return quiet(CorelsClassifier(c=0.001, max_card=1, min_frequency=None).fit, X, y)
    except ValueError as exc:
        message = str(exc)
        if len(twins) < X.shape[1]:
            assert "differ only in case" in message, message
        else:
            assert zoned and "time-zone-aware" in message and repr(zoned[0]) in message, message
        return None


def read_by_model(est) -> set:
    """The input columns the model's conditions read."""
    model = est.model_
    if hasattr(model, "rules"):
        used = {j for r in model.rules for j in r.conditions}
    else:
        members = getattr(model, "members", [model])
        used = {j for m in members for clause in m.clauses for j in clause}
    names = est.binarizer_.feature_names_in_
    return {names[est.binarizer_.feature_index_[j]] for j in used}


def predicted(est, rows: pd.DataFrame, X: pd.DataFrame | None = None) -> list:
    """(label, probabilities) of every row, or REFUSED where predict refuses it.

    ``predict`` checks every column the binarizer learned from, the exports
    only those the model reads (docs/export.md): with ``X`` given, the other
    columns are put back to their training values first.
    """
    if X is not None:
        rows = rows.copy()
        for name in set(rows.columns) - read_by_model(est):
            rows[name] = X[name].to_numpy()
    try:
        labels = quiet(est.predict, rows).tolist()
        probas = quiet(est.predict_proba, rows).tolist()
        return list(zip(labels, probas))
    except ValueError:
        out = []
        for i in range(len(rows)):
            try:
                one = rows.iloc[[i]]
                out.append((quiet(est.predict, one).tolist()[0], quiet(est.predict_proba, one).tolist()[0]))
            except ValueError:
                out.append(REFUSED)
        return out


def python_rows(est, rows: pd.DataFrame) -> list:
    module = load_module(est.to_python())
    out = []
    for record in rows.to_dict("records"):
        record = {k: _python_value(v) for k, v in record.items()}
        try:
            out.append((module["predict"](record), module["predict_proba"](record)))
        except ValueError:
            out.append(REFUSED)
    return out


def _same_label(a, b) -> bool:
    return type(a) is type(b) and a == b


def check_python(got: list, want: list) -> None:
    for i, (g, w) in enumerate(zip(got, want)):
        if w is REFUSED or g is REFUSED:
            assert g is w, f"python row {i}: {g!r}, predict {w!r}"
        else:
            assert _same_label(g[0], w[0]) and list(g[1]) == list(w[1]), (i, g, w)


def check_sql(got: list | None, want: list, where: str) -> None:
    """``got``: (label, probabilities) per row, or None when the query failed as a whole."""
    if got is None:
        return  # the database refused the query (a column of the wrong type)
    assert len(got) == len(want), where
    for i, ((label, probas), w) in enumerate(zip(got, want)):
        if label is None:
            assert all(p is None for p in probas), (where, i, label, probas)
            continue  # a refusal: allowed where predict refuses, and where SQL cannot tell
        assert w is not REFUSED, f"{where} row {i}: {label!r} where predict refuses"
        assert _same_label(label, w[0]) or (isinstance(w[0], bool) and label == w[0]), \
            (where, i, label, w)
        assert list(probas) == list(w[1]), (where, i, probas, w)


def sqlite_rows(est, rows):
    con = sqlite3.connect(":memory:")
    sqlite_table(con, "data", rows.reset_index(drop=True))
    try:
        query = est.to_sql("data", dialect="sqlite", proba=True)
    except ValueError:
        return None
    n = len(est.classes_)
    return [(r[0], r[1:1 + n]) for r in con.execute(query + " ORDER BY rowid").fetchall()]


def _duckdb_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Columns DuckDB can load: an object column of mixed types becomes text."""
    out = {}
    for name in rows.columns:
        column = rows[name]
        present = [v for v in column if not (v is None or (not isinstance(v, str) and pd.isna(v)))]
        kinds = {type(v) for v in present}
        if column.dtype == object and len(kinds) > 1:
            column = column.map(lambda v: None if v is None or (not isinstance(v, str) and pd.isna(v))
                                else str(v))
        out[name] = column
    return pd.DataFrame(out).reset_index(drop=True)


def duckdb_rows(est, rows):
    try:
        query = est.to_sql("data", dialect="duckdb", proba=True, keep=["row_number_"])
    except ValueError:
        return None
    con = duckdb.connect()
    frame = _duckdb_frame(rows)
    try:
        con.register("v", frame.assign(row_number_=range(len(frame))))
        con.execute("CREATE TABLE data AS SELECT * FROM v")
    except duckdb.Error:
        return None  # DuckDB cannot store such a column (text with NUL): nothing to compare
    try:
        out = con.execute(query + " ORDER BY row_number_").fetchall()
    except duckdb.Error:
        return None
    n = len(est.classes_)
    return [(r[1], r[2:2 + n]) for r in out]


@FAST
@given(frames())
def test_every_export_agrees_with_predict_or_refuses(case):
    X, y, rows, kinds = case
    est = fit_or_refusal(X, y, kinds)
    if est is None:
        return
    want = predicted(est, rows, X)
    check_python(python_rows(est, rows), want)
    check_sql(sqlite_rows(est, rows), want, "sqlite")
    check_sql(duckdb_rows(est, rows), want, "duckdb")
    # the training rows themselves are never refused, anywhere
    clean = predicted(est, X)
    assert REFUSED not in clean
    check_python(python_rows(est, X), clean)
    for where, got in (("sqlite", sqlite_rows(est, X)), ("duckdb", duckdb_rows(est, X))):
        if got is not None:
            assert all(label is not None for label, _ in got) or "\x00" in repr(list(est.classes_)), where
        check_sql(got, clean, where)


# -- PostgreSQL ---------------------------------------------------------------------------------

def _pg_type(series: pd.Series) -> str:
    present = [v for v in series if not (v is None or (not isinstance(v, str) and pd.isna(v)))]
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return "TIMESTAMPTZ" if getattr(series.dtype, "tz", None) is not None else "TIMESTAMP"
    if pd.api.types.is_integer_dtype(series.dtype):
        return "BIGINT"
    if pd.api.types.is_float_dtype(series.dtype):
        return "DOUBLE PRECISION"
    if present and all(isinstance(v, datetime.datetime) for v in present):
        zoned = any(v.utcoffset() is not None for v in present)
        return "TIMESTAMPTZ" if zoned else "TIMESTAMP"
    if present and all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in present):
        return "DOUBLE PRECISION"
    return "TEXT"


@pytest.fixture(scope="module")
def postgresql():
    """A private PostgreSQL server (pgserver's bundled one), started for these tests."""
    import pg8000.dbapi as pg8000  # the test extra brings both (pyproject.toml)
    import pgserver
    where = tempfile.mkdtemp(prefix="rulekit-pg-")
    server = pgserver.get_server(where, cleanup_mode="stop")
    socket_dir = server.get_uri().split("host=")[1]
    con = pg8000.connect(user="postgres", unix_sock=f"{socket_dir}/.s.PGSQL.5432",
                         database="postgres")
    con.autocommit = True
    yield con
    con.close()
    server.cleanup()
    shutil.rmtree(where, ignore_errors=True)


def postgresql_rows(con, est, rows):
    try:
        query = est.to_sql("data", dialect="postgresql", proba=True, keep=["row_number_"])
    except ValueError:
        return None
    frame = rows.reset_index(drop=True)
    cur = con.cursor()
    cur.execute('DROP TABLE IF EXISTS "data"')
    types = [_pg_type(frame[c]) for c in frame.columns]
    columns = ", ".join('"' + str(c).replace('"', '""') + f'" {t}' for c, t in zip(frame.columns, types))
    cur.execute(f'CREATE TABLE "data" (row_number_ BIGINT, {columns})')
    marks = ", ".join(["%s"] * (len(types) + 1))
    values = []
    for i, row in enumerate(frame.itertuples(index=False, name=None)):
        row = [_python_value(v) for v in row]
        row = [None if v is None else str(v) if t == "TEXT" else v for v, t in zip(row, types)]
        if any(isinstance(v, str) and "\x00" in v for v in row):
            return None  # PostgreSQL text cannot hold NUL: nothing to compare
        values.append([i, *row])
    try:
        cur.executemany(f'INSERT INTO "data" VALUES ({marks})', values)
        cur.execute(query + " ORDER BY row_number_")
    except Exception as exc:  # pg8000 raises its own DatabaseError
        if type(exc).__module__.startswith("pg8000"):
            return None  # the database refused the query: text compared with a number
        raise
    n = len(est.classes_)
    return [(r[1], r[2:2 + n]) for r in cur.fetchall()]


@pytest.mark.slow
@SLOW
@given(case=frames())
def test_the_postgresql_export_agrees_with_predict_or_refuses(postgresql, case):
    X, y, rows, kinds = case
    est = fit_or_refusal(X, y, kinds)
    if est is None:
        return
    check_sql(postgresql_rows(postgresql, est, rows), predicted(est, rows, X), "postgresql")
    clean = predicted(est, X)
    got = postgresql_rows(postgresql, est, X)
    if got is not None and "\x00" not in repr(list(est.classes_)):
        assert all(label is not None for label, _ in got)
    check_sql(got, clean, "postgresql")


@pytest.mark.slow
def test_postgresql_refuses_the_audits_cases(postgresql):
    """Items 1-4 in PostgreSQL: aware dates give NULL, a missing column and text
    compared with numbers are errors, names differing in case are read apart."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"A": rng.integers(0, 6, 200), "when": pd.Timestamp("2022-01-01")
                      + pd.to_timedelta(rng.integers(0, 24 * 30, 200), unit="h")})
    y = np.where((X["A"] > 2) & (X["when"].dt.hour >= 12), "p", "q")
    est = quiet(CorelsClassifier(c=0.001, max_card=1, min_frequency=None).fit, X, y)
    assert {c.feature for c in est.model_.conditions} >= {"A", "hour(when)"}
    want = predicted(est, X)
    got = postgresql_rows(postgresql, est, X)
    check_sql(got, want, "postgresql")
    assert all(label is not None for label, _ in got)
    # a case twin beside the column: PostgreSQL keeps both, the export reads "A"
    got = postgresql_rows(postgresql, est, X.assign(a=rng.integers(0, 6, 200)))
    assert [label for label, _ in got] == [w[0] for w in want]
    # an aware date: NULL on every row (predict refuses)
    zoned = X.assign(when=X["when"].dt.tz_localize("UTC"))
    got = postgresql_rows(postgresql, est, zoned)
    assert got and all(label is None for label, _ in got)
    # text where numbers belong, and a missing column: errors
    assert postgresql_rows(postgresql, est, X.assign(A=X["A"].astype(str))) is None
    assert postgresql_rows(postgresql, est, X.drop(columns="A")) is None
