"""Rule models that leave Python: SQL queries and standalone Python source.

A fitted model predicts the same labels and probabilities wherever it runs:

* :func:`to_sql` writes a ``CASE ... END`` expression (or a whole
  ``SELECT``) for SQLite, DuckDB or PostgreSQL that computes ``predict``
  and ``predict_proba`` from the raw columns of a table;
* :func:`to_python` writes the source of a module with ``predict(row)`` and
  ``predict_proba(row)`` that needs nothing but the Python standard library.

Both carry the binarizer's semantics (``docs/binarization.md``): thresholds,
categories, the infrequent group, missing values, unseen categories under
``handle_unknown``, datetime parts.  That state lives in the fitted
estimator and in a saved :class:`rulekit.Predictor`, so export one of
those (``est.to_sql(...)``, ``rulekit.load(path).to_python()``).  A bare
model (``est.model_``) only knows its conditions: its export reads each
condition literally, which matches the estimator when it was fitted with
``handle_unknown="ignore"`` and no datetime columns.  ``docs/export.md``
shows both with a runnable example.
"""

from __future__ import annotations

from .._params import Boolean, Instance, Options, check
from .._version import __version__
from ._plan import plan_for
from ._python import python_source
from ._sql import DIALECTS, check_finite, sql_outputs, sql_select

__all__ = ["to_sql", "to_python", "DIALECTS"]


def _parts(obj):
    """(model, binarizer or None, title) of a Predictor, fitted estimator or model.

    The object says what it holds through ``obj._export_parts() -> (model,
    binarizer or None, name of the estimator that fitted it or None)``: models,
    :class:`rulekit.Predictor` and every rulekit estimator offer it.  Asking
    instead of testing classes keeps this package below the models and the
    estimators, which call it for their own ``to_sql`` (docs/architecture.md).
    """
    ask = None if isinstance(obj, type) else getattr(obj, "_export_parts", None)
    if ask is None:
        raise TypeError("export needs a fitted rulekit estimator, a rulekit.Predictor or a "
                        f"rulekit model; got {type(obj).__name__}")
    model, binarizer, who = ask()
    if who is not None and not (isinstance(who, str) and who.isascii() and who.isidentifier()):
        # a loaded file's "estimator" field is text from outside: shown as a repr
        # (no newline, no quote left bare), never as it is
        who = repr(who)
    kind = {"RuleList": "rule list", "RuleSet": f"{getattr(model, 'form', '').upper()} rule set",
            "OneVsRestRuleSets": "one-vs-rest rule sets"}.get(model.kind, model.kind)
    title = f"{kind} learned by {who}" if who else kind
    return model, binarizer, f"{title[0].upper()}{title[1:]} (rulekit {__version__})"


def to_sql(obj, table=None, *, dialect: str = "sqlite", proba: bool = False, keep=None) -> str:
    """SQL that computes a model's predictions from raw columns.

    Parameters
    ----------
    obj : fitted estimator, Predictor, or RuleList / RuleSet / OneVsRestRuleSets
        What to export; a bare model reads its conditions literally (module
        docstring).
    table : str or sequence of str, optional
        Table (or view) to read.  A string is one identifier, quoted as the
        dialect requires; a sequence such as ``("sales", "customers")`` is a
        qualified name.  Without a table the result is the ``CASE`` expression
        of the prediction alone, to paste into a query of your own.
    dialect : {"sqlite", "duckdb", "postgresql"}
    proba : bool, default=False
        Also select one probability column per class, named ``p(<class>)``
        (needs ``table``).
    keep : "*" or list of str, optional
        Columns of ``table`` to select before the outputs (an id, or ``"*"``).

    Returns
    -------
    str
        With ``table``: ``SELECT [keep,] <prediction> AS "prediction"
        [, <probability> AS "p(<class>)" ...] FROM <table>``.

    Notes
    -----
    Missing values are ``NULL`` (and ``NaN`` where the database stores it).
    Numeric columns must have a numeric SQL type; dates a date or timestamp
    type (ISO-8601 text in SQLite); booleans a boolean type (0/1 in SQLite).
    With ``handle_unknown="error"`` a row holding an unseen category in a
    column the model reads gets ``NULL`` outputs (Python raises instead).
    """
    check(Options(*DIALECTS), dialect.lower() if isinstance(dialect, str) else dialect,
          "dialect", "to_sql")
    proba = check(Boolean(), proba, "proba", "to_sql")
    check(Instance((str, list, tuple), "a table name or a sequence of name parts",
                   allow_none=True), table, "table", "to_sql")
    check(Instance((str, list, tuple), '"*" or a list of column names', allow_none=True),
          keep, "keep", "to_sql")
    if isinstance(keep, str) and keep != "*":
        raise ValueError(f'to_sql: parameter \'keep\' must be "*" or a list of column names; '
                         f"got {keep!r} (write [{keep!r}] for one column)")
    if isinstance(table, (list, tuple)) and not table:
        raise ValueError("to_sql: parameter 'table' must name a table; got an empty sequence")
    model, binarizer, title = _parts(obj)
    plan = plan_for(model, binarizer, title=title)
    check_finite(plan)
    if table is None:
        if proba or keep:
            raise ValueError("to_sql: proba and keep select columns from a table; pass "
                             "table=... to get a SELECT (without a table the result is the "
                             "prediction's CASE expression alone)")
        return sql_outputs(plan, dialect)["prediction"]
    return sql_select(plan, table, dialect, proba=proba, keep=keep)


def to_python(obj) -> str:
    """Source of a standalone Python module that predicts like the model.

    The module imports only the standard library and defines ``CLASSES``,
    ``predict(row)`` (the predicted class) and ``predict_proba(row)`` (a list
    of probabilities in ``CLASSES`` order).  ``row`` maps column names to
    values; ``None``, ``NaN``, ``NaT`` and ``pandas.NA`` are missing.  With
    ``handle_unknown="error"`` an unseen category in a column the model
    reads raises ``ValueError``, as ``predict`` does.

    Parameters
    ----------
    obj : fitted estimator, Predictor, or RuleList / RuleSet / OneVsRestRuleSets
        What to export; a bare model reads its conditions literally (module
        docstring).

    Returns
    -------
    str
        Python source; save it as a ``.py`` file, or ``exec`` it.
    """
    model, binarizer, title = _parts(obj)
    return python_source(plan_for(model, binarizer, title=title))
