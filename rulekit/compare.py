"""Compare interpretable models with each other and with black boxes.

:func:`compare_models` cross-validates any scikit-learn classifiers on the
same stratified folds and reports, per model, the mean and standard error of
each score, the model size in rules and conditions (decision trees are read
as one rule per leaf), the fit time and, for rulekit learners, the search
certificate.  Folds run through scikit-learn's ``cross_validate`` inside
joblib, so ``n_jobs`` parallelises over every (model, fold) pair and a joblib
backend takes them to a cluster (``pip install 'rulekit[distributed]'``;
docs/distributed.md says what travels to the workers)::

    from distributed import Client
    from joblib import parallel_config

    client = Client("tcp://scheduler-host:8786")
    with parallel_config(backend="dask"):
        comparison = compare_models(models, X, y, n_jobs=-1, refit=False)

The table is the one a local run gives (tests/test_distributed.py checks it
on a two-process cluster): folds are drawn once from ``random_state``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, check_cv, cross_validate
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import BaseDecisionTree

from ._anytime import progress_bar, wants_progress
from .certificate import _percent

__all__ = ["compare_models", "Comparison", "baselines", "model_size"]


# --- model size -----------------------------------------------------------------

def _final_step(est):
    while isinstance(est, Pipeline):
        est = est.steps[-1][1]
    return est


def _tree_rules(tree) -> tuple[int, int]:
    """(leaves, total path length): a tree read as one rule per leaf."""
    t = tree.tree_
    depth = np.zeros(t.node_count, dtype=np.int64)
    stack = [0]
    leaves = conditions = 0
    while stack:
        node = stack.pop()
        left, right = t.children_left[node], t.children_right[node]
        if left == right:  # leaf
            leaves += 1
            conditions += depth[node]
            continue
        for child in (left, right):
            depth[child] = depth[node] + 1
            stack.append(child)
    return leaves, int(conditions)


def model_size(estimator) -> tuple[float, float]:
    """Number of rules and of conditions in a fitted classifier.

    rulekit models: rules (clauses) and conditions (literals) as printed, the
    default rule not counted.  Decision trees: one rule per leaf, its
    conditions being the splits on the path to it.  Tree ensembles: summed
    over trees.  Anything else: ``(nan, nan)``.
    """
    est = _final_step(estimator)
    model = getattr(est, "model_", None)
    if model is not None:
        if hasattr(model, "rules"):
            return float(len(model.rules)), float(sum(len(r.conditions) for r in model.rules))
        if hasattr(model, "members"):
            return float(sum(len(m.clauses) for m in model.members)), float(
                sum(len(c) for m in model.members for c in m.clauses))
        if hasattr(model, "clauses"):
            return float(len(model.clauses)), float(sum(len(c) for c in model.clauses))
    if isinstance(est, BaseDecisionTree):
        return tuple(float(v) for v in _tree_rules(est))
    if hasattr(est, "estimators_") and all(isinstance(t, BaseDecisionTree) for t in np.ravel(est.estimators_)):
        sizes = [_tree_rules(t) for t in np.ravel(est.estimators_)]
        return float(sum(s[0] for s in sizes)), float(sum(s[1] for s in sizes))
    return math.nan, math.nan


def _certificate(estimator):
    """The fitted learner's :class:`~rulekit.certificate.Certificate`, or None."""
    return getattr(_final_step(estimator), "certificate_", None)


# --- baselines --------------------------------------------------------------------

def _encoder() -> ColumnTransformer:
    """One-hot categoricals, impute numerics: lets sklearn models take mixed frames."""
    numeric = make_pipeline(SimpleImputer(strategy="median", keep_empty_features=True))
    categorical = make_pipeline(
        SimpleImputer(strategy="constant", fill_value="(missing)"),
        OneHotEncoder(handle_unknown="ignore"),
    )
    return ColumnTransformer([
        ("num", numeric, make_column_selector(dtype_include="number")),
        ("cat", categorical, make_column_selector(dtype_exclude="number")),
    ])


def baselines(random_state=0) -> dict:
    """Sensible reference models that accept the same mixed DataFrames.

    Returns
    -------
    dict
        ``"CART depth 4"`` (a tree small enough to read), ``"CART"``
        (``min_samples_leaf=5``), ``"random forest"`` (200 trees) and
        ``"logistic regression"`` (standardised, L2), each behind an encoder
        that one-hot encodes categorical columns and imputes missing values.
    """
    from sklearn.tree import DecisionTreeClassifier

    return {
        "CART depth 4": make_pipeline(_encoder(), DecisionTreeClassifier(max_depth=4, random_state=random_state)),
        "CART": make_pipeline(_encoder(), DecisionTreeClassifier(min_samples_leaf=5, random_state=random_state)),
        "random forest": make_pipeline(_encoder(), RandomForestClassifier(n_estimators=200, random_state=random_state)),
        "logistic regression": make_pipeline(_encoder(), StandardScaler(with_mean=False), LogisticRegression(max_iter=2000)),
    }


# --- the comparison -------------------------------------------------------------------

@dataclass
class Comparison:
    """Result of :func:`compare_models`.

    ``print(comparison)`` shows the table (score means with their standard
    errors, sizes, fit time, certificate); ``to_markdown()`` gives it as
    Markdown; ``plot()`` draws score against size.

    Attributes
    ----------
    table : DataFrame
        One row per model: ``<score>_mean``/``<score>_se`` for each score,
        ``n_rules``, ``n_conditions`` (fold means), ``fit_time`` (mean
        seconds per fold), ``certificate`` (rulekit learners: how many folds
        ended with each certificate status, and the largest gap where a
        fold has a bound but no proof: a rate per training row, as every
        learner states its objective, with the rows it stands for, then as
        a share of the objective).
    folds : DataFrame
        One row per (model, fold) with the raw scores, sizes and the
        certificate's ``status``, ``gap`` (per row), ``gap_rows`` (the gap as
        a count of rows) and ``relative_gap``.
    models : dict
        Each model refitted on all the data (empty when ``refit=False``).
    scoring : tuple of str
        The scores, in the order of the table's columns.
    """

    table: pd.DataFrame
    folds: pd.DataFrame
    models: dict = field(default_factory=dict)
    scoring: tuple = ()

    def _display(self, digits: int = 3) -> pd.DataFrame:
        """The table as strings: ``mean ± se`` per score, sizes as counts."""
        out = pd.DataFrame(index=self.table.index)
        for s in self.scoring:
            mean, se = self.table[f"{s}_mean"], self.table[f"{s}_se"]
            out[s] = [_fmt(m, digits) + ("" if math.isnan(e) else f" ± {e:.{digits}f}")
                      for m, e in zip(mean, se)]
        for col in ("n_rules", "n_conditions"):
            out[col] = [_fmt_size(v) for v in self.table[col]]
        out["fit_time"] = [_fmt_seconds(v) for v in self.table["fit_time"]]
        out["certificate"] = self.table["certificate"]
        return out

    def __str__(self) -> str:
        n_folds = self.folds["fold"].nunique() if "fold" in self.folds else 0
        head = f"Comparison of {len(self.table)} models on {n_folds} cross-validation folds"
        return head + "\n" + self._display().to_string(index_names=False)

    def __repr__(self) -> str:
        n_folds = self.folds["fold"].nunique() if "fold" in self.folds else 0
        return (f"<Comparison: {len(self.table)} models ({', '.join(map(str, self.table.index))}), "
                f"{n_folds} folds, scoring {', '.join(self.scoring)}"
                f"{', refitted' if self.models else ''}>")

    def _repr_markdown_(self) -> str:  # notebooks show the table
        return self.to_markdown()

    def to_markdown(self, digits: int = 3) -> str:
        """The table as GitHub Markdown (no extra dependency).

        Scores with ``digits`` decimals, rule and condition counts as whole
        numbers from 100 on (one decimal below: they are fold means), fit
        times with three significant digits.
        """
        frame = self.table.reset_index()
        cells = [[_fmt_cell(col, v, digits) for col, v in zip(frame.columns, row)]
                 for row in frame.itertuples(index=False)]
        header = list(frame.columns)
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in cells]
        return "\n".join(lines)

    def pareto_front(self, score: str | None = None, size: str = "n_conditions") -> list:
        """Models no other model beats on both score (higher) and size (lower)."""
        score = score or f"{self.scoring[0]}_mean"
        t = self.table.dropna(subset=[score, size])
        front = []
        for name, row in t.iterrows():
            dominated = any(
                (o[score] >= row[score] and o[size] <= row[size]) and (o[score] > row[score] or o[size] < row[size])
                for _, o in t.iterrows()
            )
            if not dominated:
                front.append(name)
        return front

    def plot(self, score: str | None = None, size: str = "n_conditions", ax=None):
        """Score against model size with the Pareto front marked (needs matplotlib)."""
        from .plotting import plot_comparison

        return plot_comparison(self, score=score, size=size, ax=ax)

    def explore(self, path="compare.html", *, title=None):
        """The Compare view of the explorer: score against size, in one offline HTML page.

        Parameters
        ----------
        path : str, Path or None, default "compare.html"
            Where to write the page; None writes nothing.
        title : str, optional

        Returns
        -------
        rulekit.ExplorerPage
        """
        from .explore import explore_comparison

        return explore_comparison(self, path, title=title)


def _fmt(v, digits):
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.{digits}f}"
    return str(v)


def _fmt_size(v) -> str:
    """A fold-mean count: ``4``, ``4.2``, ``208,813``; empty for no size."""
    if v is None or math.isnan(v):
        return ""
    if float(v).is_integer() or abs(v) >= 100:
        return f"{round(v):,}"
    return f"{v:.1f}"


def _fmt_seconds(v) -> str:
    return "" if v is None or math.isnan(v) else f"{v:.3g}"


def _fmt_cell(column: str, v, digits: int) -> str:
    if column in ("n_rules", "n_conditions"):
        return _fmt_size(v)
    if column == "fit_time":
        return _fmt_seconds(v)
    return _fmt(v, digits)


def _fold_task(name, estimator, X, y, train, test, scoring):
    out = cross_validate(
        estimator, X, y, cv=[(train, test)], scoring=list(scoring),
        return_estimator=True, error_score="raise",
    )
    est = out["estimator"][0]
    rules, conditions = model_size(est)
    row = {"model": name, "fit_time": float(out["fit_time"][0]), "n_rules": rules, "n_conditions": conditions}
    for s in scoring:
        row[s] = float(out[f"test_{s}"][0])
    cert = _certificate(est)
    row["status"] = cert.status if cert is not None else None
    # every learner states its objective per training row, so gaps compare as rates;
    # the count beside says how many rows' worth that is on this fold
    row["gap"] = cert.gap if cert is not None else None
    row["gap_rows"] = cert.count(cert.gap) if cert is not None else None
    row["relative_gap"] = cert.relative_gap if cert is not None else None
    return row


#: How the certificate column names each status.
_STATUS_WORDS = {
    "optimal": "optimal", "optimal_relative": "optimal (relative)", "feasible": "feasible",
    "time_limit": "time limit", "node_limit": "node limit", "work_limit": "work limit",
    "memory_limit": "memory limit",
    "interrupted": "interrupted", "heuristic": "heuristic", "infeasible": "infeasible",
}


def _certificate_summary(rows: pd.DataFrame) -> str:
    """What the folds' certificates prove, in a few words.

    How many folds ended with each status, in the order of
    :data:`rulekit.certificate.STATUSES` (``optimal 5/5``; ``optimal 3/5, time
    limit 2/5``; ``heuristic 5/5`` for a search that proves nothing), then the
    largest gap over the unproved folds that have a lower bound, and how many
    unproved, non-heuristic folds have none.  Nothing is said about a fold
    beyond what its certificate states.
    """
    from .certificate import STATUSES

    statuses = rows["status"].dropna()
    if statuses.empty:
        return ""
    n = len(statuses)
    counts = statuses.value_counts()
    parts = [f"{_STATUS_WORDS.get(s, s)} {counts[s]}/{n}" for s in STATUSES if s in counts]
    text = ", ".join(parts)
    unproved = rows[rows["status"].notna() & ~rows["status"].isin(["optimal", "optimal_relative"])]
    gaps = pd.to_numeric(unproved["gap"], errors="coerce")
    if gaps.notna().any():
        top = gaps.max()
        text += f"; max gap {top:,.0f}" if top >= 1000 else f"; max gap {top:.3g}"
        if "gap_rows" in unproved:
            count = pd.to_numeric(unproved["gap_rows"], errors="coerce")[gaps == top].max()
            if pd.notna(count):
                text += f" ({count:,.4g} rows)"
        if "relative_gap" in unproved:
            # beside the gap, a rate per row, the unitless share of the objective
            share = pd.to_numeric(unproved["relative_gap"], errors="coerce").max()
            if pd.notna(share):
                text += f", max relative gap {_percent(share)}"
    unbounded = int((gaps.isna() & ~unproved["status"].isin(["heuristic", "infeasible"])).sum())
    if unbounded:
        text += f"; no bound in {unbounded}/{n}"
    return text


def compare_models(models, X, y, *, cv=5, scoring=("accuracy", "balanced_accuracy", "roc_auc"),
                   n_jobs=None, random_state=0, refit=True, verbose=0, progress=None) -> Comparison:
    """Cross-validate several classifiers on identical folds.

    Parameters
    ----------
    models : dict of str -> estimator
        Any scikit-learn classifiers (rulekit learners, trees, forests,
        pipelines...).  They are cloned, never modified.
    X, y : data and labels
    cv : int or cross-validation splitter, default=5
        An int gives ``StratifiedKFold(cv, shuffle=True, random_state)``.
        The folds are drawn once and shared by every model.
    scoring : sequence of str
        scikit-learn scorer names.  ``roc_auc`` is dropped for problems with
        more than two classes (use ``roc_auc_ovr`` there).
    n_jobs : int, optional
        Parallel (model, fold) fits through joblib.
    random_state : int
        Seeds the fold split.
    refit : bool, default=True
        Also fit every model on all the data (``Comparison.models``).
    verbose : int
        ``>= 1`` shows the progress bar even where ``progress=None`` would not.
    progress : bool or None, default=None
        A progress bar on stderr (tqdm) with one tick per model and fold, and
        one per model refitted on all the data.  ``None``: only when stderr is
        an interactive terminal, so scripts, logs, notebooks and test runs stay
        quiet; ``True`` or ``False`` forces it.  The bar never changes the
        results.

    Returns
    -------
    Comparison
    """
    if not isinstance(models, dict) or not models:
        raise ValueError("models must be a non-empty dict of name -> estimator")
    for name, est in models.items():
        if not hasattr(est, "fit") or not hasattr(est, "predict"):
            raise TypeError(f"models[{name!r}] is not an estimator (needs fit and predict)")
    y_arr = np.asarray(y)
    if len(np.unique(y_arr)) > 2:
        scoring = tuple(s for s in scoring if s != "roc_auc")
    scoring = tuple(scoring)
    if isinstance(cv, int):
        splitter = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    else:
        splitter = check_cv(cv, y_arr, classifier=True)
    folds = list(splitter.split(X, y_arr))

    tasks = [
        (name, fold, delayed(_fold_task)(name, clone(est), X, y, train, test, scoring))
        for name, est in models.items()
        for fold, (train, test) in enumerate(folds)
    ]
    show = wants_progress(progress) if progress is not None or not verbose else True
    bar = progress_bar("compare", "fits", len(tasks) + (len(models) if refit else 0),
                       scale=False) if show else None
    try:
        rows = []
        results = Parallel(n_jobs=n_jobs, return_as="generator")(t[2] for t in tasks)
        for (name, fold, _), row in zip(tasks, results):
            row["fold"] = fold
            rows.append(row)
            if bar is not None:
                bar.set_postfix_str(f"{name} fold {fold + 1}/{len(folds)}", refresh=False)
                bar.update()
        refitted = {}
        for name, est in (models.items() if refit else ()):
            refitted[name] = clone(est).fit(X, y)
            if bar is not None:
                bar.set_postfix_str(f"{name} refitted on all rows", refresh=False)
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    fold_frame = pd.DataFrame(rows)

    table_rows = []
    for name in models:
        sub = fold_frame[fold_frame["model"] == name]
        entry = {"model": name}
        for s in scoring:
            vals = sub[s].to_numpy(dtype=float)
            entry[f"{s}_mean"] = float(vals.mean())
            entry[f"{s}_se"] = float(vals.std(ddof=1) / np.sqrt(len(vals))) if len(vals) > 1 else math.nan
        entry["n_rules"] = float(sub["n_rules"].mean())
        entry["n_conditions"] = float(sub["n_conditions"].mean())
        entry["fit_time"] = float(sub["fit_time"].mean())
        entry["certificate"] = _certificate_summary(sub)
        table_rows.append(entry)
    table = pd.DataFrame(table_rows).set_index("model")

    return Comparison(table=table, folds=fold_frame, models=refitted, scoring=scoring)
