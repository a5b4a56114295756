"""What each CORELS bound buys: the same problem searched with each bound switched off.

This runs searches and tabulates them with pandas, so it lives with the
engine it drives rather than in :mod:`rulekit.plotting`, which only draws the
table it is given (:func:`rulekit.plotting.plot_corels_ablation`).
"""

from __future__ import annotations

import time

import pandas as pd

from rulekit import plotting
from rulekit.corels._search import BOUNDS, search

__all__ = ["ablation"]


def ablation(A, y, c, *, bounds=None, **search_kwargs):
    """Run one CORELS problem with all bounds on, then with each one off.

    Parameters
    ----------
    A, y, c
        As for :func:`rulekit.corels.search`.
    bounds : iterable of str, optional
        Bounds to switch off one at a time (default: all of them).
    **search_kwargs
        Passed to every search (``time_limit``, ``max_nodes``, ``policy``...);
        a time limit keeps a run whose bound matters a lot from running away.

    Returns
    -------
    pandas.DataFrame
        One row per run (``"all bounds"`` first): ``cpu_time``, ``time``,
        ``nodes``, ``status``, ``objective``; :func:`rulekit.plotting.plot_corels_ablation`
        draws it.
    """
    names = list(BOUNDS if bounds is None else bounds)
    unknown = set(names) - set(BOUNDS)
    if unknown:
        raise ValueError(f"unknown bounds {sorted(unknown)}; choose from {list(BOUNDS)}")
    rows = []
    for off in [None, *names]:
        active = set(BOUNDS) - ({off} if off else set())
        c0 = time.process_time()
        res = search(A, y, c, bounds=active, **search_kwargs)
        rows.append({
            "run": "all bounds" if off is None else f"without {off}",
            "cpu_time": time.process_time() - c0,
            "time": res.stats.get("total_time", float("nan")),
            "nodes": res.stats.get("nodes_evaluated", float("nan")),
            "status": res.status,
            "objective": res.objective,
        })
    return pd.DataFrame(rows).set_index("run")


# Code written before 0.2 imports ``rulekit.plotting.corels_ablation``.  Plotting imports no
# engine, so the name is handed to it from here, above it in the layers; importing
# ``rulekit.plotting`` imports the package root first, which imports this module.
plotting.corels_ablation = ablation
