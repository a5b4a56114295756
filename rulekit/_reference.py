"""Thresholds taken from a reference model instead of quantiles.

``Binarizer(thresholds="reference")`` fits a small gradient-boosted ensemble
of decision stumps (scikit-learn's ``GradientBoostingClassifier``) on the
training data and keeps, for each numeric column, the split points the
ensemble uses, ranked by how much impurity they remove.  This is the
threshold-guessing idea of McTavish, Zhong, Achermann, Karimalis, Chen,
Rudin and Seltzer, "Fast Sparse Decision Tree Optimization via Reference
Ensembles", AAAI 2022 (Section 3, "Guessing Thresholds"): the splits a
boosted ensemble finds useful are few and are the ones an accurate sparse
model needs, so the search space shrinks without losing much accuracy.

The ensemble sees the numeric columns (missing values placed below the
column's minimum, so they can be split off but never give a threshold) and
one indicator per frequent category of the other columns, so numeric splits
are chosen in the context of the categorical ones.
"""

from __future__ import annotations

import numpy as np

__all__ = ["reference_cuts", "REFERENCE_TREES", "REFERENCE_DEPTH", "MIN_ROWS", "MAX_ROWS"]

#: size of the reference ensemble: stumps, as few as give a useful set of splits
REFERENCE_TREES = 40
REFERENCE_DEPTH = 1
#: fewest rows (of positive weight) a reference ensemble is fitted on
MIN_ROWS = 10
#: most rows it is fitted on: a larger training set gives it a fixed random sample of these
MAX_ROWS = 10_000


def _check_target(y, weights) -> np.ndarray:
    if y is None:
        raise ValueError("Binarizer(thresholds='reference') needs the labels: call fit(X, y); "
                         "or use thresholds='quantile', which needs none")
    y = np.asarray(y).reshape(-1)
    keep = weights > 0
    # whole weights are rows given once with their count: they count as that many rows
    whole = bool(np.all(weights == np.floor(weights)))
    rows = int(weights[keep].sum()) if whole else int(keep.sum())
    if rows < MIN_ROWS:
        raise ValueError(f"thresholds='reference' needs at least {MIN_ROWS} rows to fit its "
                         f"reference ensemble, got {rows}; use thresholds='quantile'")
    classes = np.unique(y[keep])
    if classes.size < 2:
        raise ValueError(f"thresholds='reference' needs at least two classes in y, got only "
                         f"{classes[0]!r}; use thresholds='quantile'")
    return y


def _stop_at_limit(stage, model, local_vars) -> bool:
    """Stop adding stumps once the fit's time limit has passed or Ctrl-C was pressed.

    The ensemble is the first step of a fit, and its cost grows with the rows; a
    ``time_limit`` covers the whole fit, so the stumps fitted so far give the
    thresholds (the search that follows then stops at once and says so).
    """
    from ._anytime import current_run

    run = current_run()
    return run is not None and run.limit_reached() is not None


def reference_cuts(numeric: dict, context: np.ndarray | None, y, weights: np.ndarray,
                   n_thresholds: int) -> dict:
    """Split points of a boosted ensemble for each numeric column.

    Parameters
    ----------
    numeric : dict of str -> ndarray of float
        Each numeric column (NaN for missing), all of the same length.
    context : ndarray of shape (n_samples, k), callable or None
        Further 0/1 features the ensemble may split on (category indicators);
        or ``context(rows)`` giving them for those rows only (the ensemble is
        fitted on at most :data:`MAX_ROWS` of them).
    y : array-like of shape (n_samples,)
    weights : ndarray of shape (n_samples,)
        Row weights; rows of weight 0 take no part.
    n_thresholds : int
        Most cuts kept per column (those that remove the most impurity).

    Returns
    -------
    dict of str -> ndarray
        Sorted cuts per column, each snapped down to the largest training
        value at or below the ensemble's split point (the same training
        partition, and a value that occurs in the data).
    """
    from sklearn.ensemble import GradientBoostingClassifier

    y = _check_target(y, weights)
    names = list(numeric)
    if not names:
        return {}
    keep = weights > 0
    rows = np.flatnonzero(keep)
    if rows.size > MAX_ROWS:
        # the stumps' split points settle long before 10,000 rows, while the exact
        # ensemble's cost grows with every row (adult, 48,842 rows: 6.6 s; on a fixed
        # sample of 10,000: about 1 s); the sample is the same on every run
        rows = np.sort(np.random.default_rng(0).choice(rows, MAX_ROWS, replace=False))
    # the ensemble's matrix on the rows it is fitted on only (a million rows of category
    # indicators as floats would take gigabytes); missing values sit below every value
    # of their column, over all rows
    cols = []
    for name in names:
        x = numeric[name]
        present = x[~np.isnan(x)]
        low = present.min() - 1.0 if present.size else 0.0
        cols.append(np.where(np.isnan(x[rows]), low, x[rows]))
    ctx = context(rows) if callable(context) else (None if context is None else context[rows])
    X = np.column_stack(cols + ([ctx] if ctx is not None and ctx.size else []))
    model = GradientBoostingClassifier(n_estimators=REFERENCE_TREES, max_depth=REFERENCE_DEPTH,
                                       random_state=0)
    model.fit(X, y[rows], sample_weight=weights[rows], monitor=_stop_at_limit)
    gains: dict = {}
    for tree in np.ravel(model.estimators_):
        t = tree.tree_
        for node in np.flatnonzero(t.feature >= 0):
            j = int(t.feature[node])
            if j >= len(names):
                continue
            left, right = t.children_left[node], t.children_right[node]
            gain = (t.impurity[node] * t.weighted_n_node_samples[node]
                    - t.impurity[left] * t.weighted_n_node_samples[left]
                    - t.impurity[right] * t.weighted_n_node_samples[right])
            key = (j, float(t.threshold[node]))
            gains[key] = gains.get(key, 0.0) + gain
    out = {}
    for j, name in enumerate(names):
        splits = [(split, gain) for (jj, split), gain in gains.items() if jj == j]
        scored: dict = {}
        if splits:
            x = numeric[name][keep]
            x = x[~np.isnan(x)]
            # each split snapped to the largest value at or below it, unless that is the
            # column's largest (the cut would separate nothing); a split below the minimum
            # separates only missing rows. A pass per split, not a sort of the column: the
            # ensemble splits a column a few times, and sorting each column of ten million
            # rows took 5 s of a fit
            top = x.max() if x.size else np.nan
            for split, gain in splits:
                below = x[x <= split]
                if below.size == 0:
                    continue
                v = below.max() + 0.0       # (+ 0.0: a zero cut is 0.0, never -0.0)
                if v < top:
                    scored[v] = scored.get(v, 0.0) + gain
        best = sorted(scored, key=lambda c: (-scored[c], c))[:n_thresholds]
        out[name] = np.array(sorted(best), dtype=float)
    return out
