"""Choosing the complexity budget ``C`` by cross-validation (as the paper did)."""

from __future__ import annotations

import time

import numpy as np

from ._solve import solve

DEFAULT_GRID = (8, 16, 32)


def _stratified_folds(y, n_splits, rng):
    folds = [[] for _ in range(n_splits)]
    for cls in (0, 1):
        idx = np.flatnonzero(y == cls)
        rng.shuffle(idx)
        for k, part in enumerate(np.array_split(idx, n_splits)):
            folds[k].extend(part.tolist())
    return [np.array(sorted(f), dtype=np.int64) for f in folds]


def choose_complexity(B, y, *, grid=DEFAULT_GRID, n_splits=3, time_limit=60.0,
                      max_iter=30, random_state=0, sample_weight=None, **solve_kw):
    """Pick ``max_complexity`` from ``grid`` by stratified k-fold validation.

    Every candidate is fitted on ``n_splits - 1`` folds and scored by the
    (weighted) misclassification rate on the held-out fold; the smallest
    ``C`` whose mean error is within one standard error of the lowest wins
    (the one-standard-error rule).  The inner fits are capped at
    ``max_iter`` column-generation rounds (so the choice does not depend on
    machine load) and share ``time_limit`` seconds: each gets the time left
    divided by the number of fits still to run.

    Returns
    -------
    best : int
    errors : dict
        Mean validation error per candidate.
    """
    B = np.asarray(B, dtype=bool)
    y = np.asarray(y).astype(np.int64)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    grid = sorted(int(c) for c in grid)
    if len(grid) == 1 or np.all(y == y[0]):
        return grid[-1], {}
    n_splits = int(min(n_splits, np.bincount(y, minlength=2).min()))
    if n_splits < 2:
        return grid[-1], {}
    folds = _stratified_folds(y, n_splits, np.random.default_rng(random_state))
    n_fits = len(grid) * n_splits
    deadline = time.perf_counter() + time_limit
    errors, spread = {}, {}
    for C in grid:
        err, errs = 0.0, []
        for k in range(n_splits):
            te = folds[k]
            tr = np.concatenate([folds[j] for j in range(n_splits) if j != k])
            left = (deadline - time.perf_counter()) / n_fits
            n_fits -= 1
            res = solve(B[tr], y[tr], max_complexity=C, time_limit=max(left, 0.5),
                        max_iter=max_iter,
                        sample_weight=None if sample_weight is None else w[tr],
                        random_state=random_state, **solve_kw)
            errs.append(float((w[te] * (res.predict(B[te]) != y[te])).sum() / w[te].sum()))
        errors[C] = float(np.mean(errs))
        spread[C] = float(np.std(errs, ddof=1) / np.sqrt(n_splits))
    # one-standard-error rule: the smallest budget whose error is within one
    # standard error of the best (small budgets are more readable and overfit less)
    c_min = min(grid, key=lambda c: (errors[c], c))
    best = min(c for c in grid if errors[c] <= errors[c_min] + spread[c_min] + 1e-12)
    return best, errors
