"""Save a fitted rule model with its binarizer; load it back to predict on raw data.

A fitted estimator's ``model_`` works on the binarized condition matrix; its
``binarizer_`` turns raw rows into that matrix.  :class:`Predictor` keeps the
two together, so a loaded model predicts on the same DataFrames the estimator
was fitted on, with no rulekit estimator, engine or training data involved::

    est.save("model.json")                # any fitted rulekit estimator
    model = rulekit.load("model.json")    # a Predictor
    model.predict(X_new)                  # raw DataFrame in, labels out

The file is plain JSON (schema 2)::

    {
      "format": "rulekit-model",
      "schema": 2,
      "rulekit_version": "0.2.0",
      "estimator": "CorelsClassifier",      # class that fitted it
      "params": {"c": 0.01, ...},           # its parameters that are plain JSON
      "certificate": {"status": ..., "objective": ..., "lower_bound": ..., "scope": ...,
                      "n": ..., "unit": ...},
      "binarizer": {                        # Binarizer.to_dict()
        "params": {...}, "feature_names_in": [...], "from_array": false,
        "columns": [{"name", "source", "part", "kind", "values", "infrequent",
                     "has_missing", "first", "stop"}, ...],
        "conditions": [{"feature", "op", "value"}, ...]
      },
      "model": {...},                       # RuleList / RuleSet / OneVsRestRuleSets.to_dict()
      "metadata": {...}                     # free-form (the CLI stores the target column)
    }

``docs/binarization.md`` says what each condition means on new data
(missing values, unseen categories, the infrequent group).  Files written by
``rulekit fit --save`` before 0.2 (schema 1: ``feature_names`` and ``model``
only) still load; their unseen categories are ignored, as they were then.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

from ._files import write_atomic
from .binarize import Binarizer, _plain
from ._modelfile import LIMITS, check_file, check_limits, parse_int, resolve_limits
from ._version import __version__
from .certificate import Certificate
from .export import to_python, to_sql
from .models import label_array, model_from_dict

__all__ = ["Predictor", "load", "FORMAT", "SCHEMA", "LIMITS"]

FORMAT = "rulekit-model"
SCHEMA = 2


def _json_params(params: dict) -> dict:
    """The parameters that are plain JSON values (callbacks, generators... are left out)."""
    out = {}
    for name, value in params.items():
        value = list(value) if isinstance(value, tuple) else _plain(value)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            continue
        out[name] = value
    return out


class Predictor:
    """A fitted rule model together with the binarizer that feeds it.

    ``predict`` and ``predict_proba`` take raw data (a DataFrame with the
    training columns, or an array with them in training order), exactly as
    the estimator that fitted the model does.

    Parameters
    ----------
    model : RuleList, RuleSet or OneVsRestRuleSets
    binarizer : Binarizer
        Fitted; its ``conditions_`` are the model's conditions.
    estimator : str, optional
        Name of the estimator class that fitted the model.
    params : dict, optional
        That estimator's parameters (for the record).
    certificate : Certificate, optional
        What the search proved about the model.
    metadata : dict, optional
        Anything JSON-ready you want kept with the model.

    Attributes
    ----------
    classes_ : ndarray
    feature_names_in_ : ndarray of str
    n_features_in_ : int
    """

    def __init__(self, model, binarizer: Binarizer, *, estimator: str | None = None,
                 params: dict | None = None, certificate: Certificate | None = None,
                 metadata: dict | None = None):
        if [c.to_dict() for c in model.conditions] != [c.to_dict() for c in binarizer.conditions_]:
            raise ValueError("the model's conditions differ from the binarizer's; "
                             "pass the binarizer the model was fitted with")
        self.model = model
        self.binarizer = binarizer
        self.estimator = estimator
        self.params = dict(params or {})
        self.certificate = certificate
        self.metadata = dict(metadata or {})

    @property
    def classes_(self) -> np.ndarray:
        return label_array(self.model.classes)

    @property
    def feature_names_in_(self) -> np.ndarray:
        return self.binarizer.feature_names_in_

    @property
    def n_features_in_(self) -> int:
        return self.binarizer.n_features_in_

    @classmethod
    def from_estimator(cls, est, *, metadata: dict | None = None) -> "Predictor":
        """The predictor of a fitted rulekit estimator."""
        if not hasattr(est, "model_") or not hasattr(est, "binarizer_"):
            raise ValueError(f"{type(est).__name__} is not fitted; call fit before saving it")
        return cls(est.model_, est.binarizer_, estimator=type(est).__name__,
                   params=_json_params(est.get_params(deep=False)),
                   certificate=getattr(est, "certificate_", None), metadata=metadata)

    # -- prediction -----------------------------------------------------------
    def transform(self, X) -> np.ndarray:
        """The boolean condition matrix of raw rows (what the model reads)."""
        return self.binarizer.transform(X)

    def predict(self, X) -> np.ndarray:
        """Predicted class of each row of raw data."""
        return self.model.predict(self.transform(X))

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of each row of raw data, columns in ``classes_`` order."""
        return self.model.predict_proba(self.transform(X))

    # -- export -------------------------------------------------------------
    def to_sql(self, table=None, *, dialect: str = "sqlite", proba: bool = False,
               keep=None) -> str:
        """SQL computing ``predict`` (and ``predict_proba``) from the raw columns of a table.

        See :func:`rulekit.export.to_sql`; the binarizer's state (unseen
        categories, the infrequent group, datetime parts) is carried over.
        """
        return to_sql(self, table, dialect=dialect, proba=proba, keep=keep)

    def to_python(self) -> str:
        """Source of a standalone Python module with ``predict(row)`` and
        ``predict_proba(row)`` (:func:`rulekit.export.to_python`)."""
        return to_python(self)

    def _export_parts(self):
        """What :mod:`rulekit.export` writes: the model, its binarizer and who fitted it."""
        return self.model, self.binarizer, self.estimator

    # -- display ------------------------------------------------------------
    def __str__(self) -> str:
        return str(self.model)

    def __repr__(self) -> str:
        return f"Predictor({self.estimator or type(self.model).__name__}):\n{self.model}"

    def to_markdown(self) -> str:
        return self.model.to_markdown()

    def to_latex(self) -> str:
        return self.model.to_latex()

    def _repr_html_(self) -> str:
        return self.model._repr_html_()

    # -- JSON -----------------------------------------------------------------
    def to_dict(self) -> dict:
        """The JSON-ready content of a saved model (schema in the module docstring)."""
        cert = self.certificate
        return {
            "format": FORMAT,
            "schema": SCHEMA,
            "rulekit_version": __version__,
            "estimator": self.estimator,
            "params": self.params,
            "certificate": None if cert is None else {
                "status": cert.status,
                "objective": None if math.isnan(cert.objective) else cert.objective,
                "lower_bound": cert.lower_bound, "scope": cert.scope, "n": cert.n,
                "unit": cert.unit},
            "binarizer": self.binarizer.to_dict(),
            "model": self.model.to_dict(),
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, d: dict, *, limits: dict | None = None, _raw: bytes | None = None
                  ) -> "Predictor":
        """Rebuild from :meth:`to_dict` output (or a schema-1 file of ``rulekit fit``).

        ``limits`` overrides the size limits of :data:`LIMITS` (see :func:`load`).
        """
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError("not a model saved by est.save() or 'rulekit fit --save' (expected "
                             f"a JSON object with \"format\": \"{FORMAT}\")")
        schema = d.get("schema", 1)
        if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
            raise ValueError(f"field 'schema': expected the integer 1 or {SCHEMA}, got "
                             f"{schema!r} ({type(schema).__name__})")
        if schema > SCHEMA:
            raise ValueError(f"model file schema {schema!r} is newer than this rulekit "
                             f"(reads schemas 1 and {SCHEMA}); upgrade rulekit")
        # sizes first (cheap, and they bound the checks' work), then every field,
        # before anything is built from them (rulekit/_modelfile.py)
        check_limits(d, resolve_limits(limits), raw=_raw)
        check_file(d, schema=schema, newest=SCHEMA)
        model = model_from_dict(d["model"])
        if schema == 1:
            binarizer = Binarizer.from_conditions(model.conditions, d.get("feature_names"))
            meta = {"target": d["target"]} if d.get("target") is not None else {}
            return cls(model, binarizer, estimator=d.get("estimator"), metadata=meta)
        cert = d.get("certificate")
        if cert is not None:
            cert = Certificate(cert["status"], math.nan if cert["objective"] is None
                               else cert["objective"], cert.get("lower_bound"), cert.get("scope", ""),
                               cert.get("n"), cert.get("unit") or "rows")
        return cls(model, Binarizer.from_dict(d["binarizer"]), estimator=d.get("estimator"),
                   params=d.get("params"), certificate=cert, metadata=d.get("metadata"))

    def save(self, path, *, overwrite: bool = True) -> Path:
        """Write the model as JSON to ``path``; returns the path.

        The write is atomic (:func:`rulekit._files.write_atomic`): the JSON
        is written in full to a new file in the same folder, which then
        takes the name ``path`` in one step.  A failed write (a full disk, a
        quota, an interrupt) leaves whatever was at ``path`` before untouched,
        never a truncated model, and no temporary file.

        Parameters
        ----------
        path : str or Path
            A regular file, or a symbolic link to one (the file it names is
            written).  A directory, a device, a FIFO or a link to nothing is
            refused with ``ValueError``.
        overwrite : bool, default True
            False: refuse (``FileExistsError``) when ``path`` exists, as
            ``rulekit fit --save`` does without ``--force``.
        """
        text = json.dumps(self.to_dict(), indent=1)  # fails before any file is touched
        return write_atomic(path, text, overwrite=overwrite)


def load(path, *, limits: dict | None = None) -> Predictor:
    """Load a model saved by ``est.save(path)`` (or ``rulekit fit --save``).

    Parameters
    ----------
    path : str or Path
    limits : dict, optional
        Overrides of the size limits in :data:`rulekit.persist.LIMITS`: the
        file's bytes (``max_bytes``, 100 MB), one text's characters
        (``max_text``), classes, columns, values per column, conditions,
        rules (and clauses), conditions per rule, and the text an export
        would repeat (``max_export_chars``).  A value of None lifts that
        limit, e.g. ``limits={"max_bytes": None}``.  The defaults are far
        above what a fit writes; they keep a crafted file from costing
        gigabytes to read or export (``docs/security.md``).

    Returns
    -------
    Predictor
        ``predict`` / ``predict_proba`` on raw data, ``str()`` and the other
        renderings, ``certificate``, ``params``.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        The file is not JSON, not a rulekit model, above a limit, or one of
        its fields is wrong; the message names the file and the field.
        Every field is checked before anything is built from it
        (``rulekit/_modelfile.py``).
    """
    path = Path(path)
    bounds = resolve_limits(limits)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    most = bounds["max_bytes"]
    with open(path, "rb") as f:
        data = f.read() if most is None else f.read(most + 1)
    if most is not None and len(data) > most:
        raise ValueError(f"{path} is larger than {most:,} bytes, the limit for a model file; if "
                         "you trust it, load it with rulekit.load(path, limits={'max_bytes': "
                         "None})")
    try:
        # integers too long for 64 bits stay unconverted, for the checks to name their field
        payload = json.loads(data, parse_int=parse_int)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    except RecursionError:
        raise ValueError(f"{path} is not a rulekit model file: its JSON is nested too deeply "
                         "to read") from None
    try:
        return Predictor.from_dict(payload, limits=bounds, _raw=data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError,
            OverflowError) as exc:
        # check_file should have caught it; still one clear error, never a traceback
        raise ValueError(f"{path} is not a valid rulekit model file ({type(exc).__name__}: "
                         f"{exc})") from None
