"""Figures for comparisons and for how each learner searched.

matplotlib is an optional dependency (``pip install 'rulekit[plot]'``).
Every function returns the :class:`matplotlib.figure.Figure` it drew and
never calls ``show()``, so figures can be saved, embedded or tested.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "plot_comparison",
    "plot_corels_trace",
    "plot_corels_ablation",
    "plot_falling_rule_list",
    "plot_candidate_sizes",
    "plot_colgen_trace",
    "plot_rashomon_objectives",
    "plot_condition_usage",
]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "plotting needs matplotlib: pip install 'rulekit[plot]'"
        ) from exc
    return plt


def _figure(ax, **kwargs):
    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(**kwargs)
        return fig, ax
    return ax.figure, ax


def _count_text(v: float) -> str:
    return f"{round(v):,}" if v >= 100 or float(v).is_integer() else f"{v:.1f}"


def plot_comparison(comparison, *, score=None, size="n_conditions", ax=None):
    """Score against model size, one point per model, the Pareto front ringed and joined.

    Each model has its own colour and marker, named in a legend beside the
    axes (with its size), so names never overlap however close the points
    are.  Models without a rule size (logistic regression...) are dotted
    horizontal lines at their score.  The size axis starts at 0; it turns
    logarithmic above 1 (linear from 0 to 1) when the sizes span more than
    a factor of 50, so a forest of 10^5 conditions and a list of 5 are both
    readable.

    Parameters
    ----------
    comparison : Comparison
        From :func:`rulekit.compare_models`.
    score : str, optional
        A column of ``comparison.table``; defaults to the first score's mean.
    size : {"n_conditions", "n_rules"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    score = score or f"{comparison.scoring[0]}_mean"
    table = comparison.table
    fig, ax = _figure(ax, figsize=(8.5, 4.5))
    sized = table.dropna(subset=[size, score])
    se_col = score.replace("_mean", "_se")
    markers = "osD^v<>pPhX*"
    for k, (name, row) in enumerate(sized.iterrows()):
        err = row[se_col] if se_col in sized and np.isfinite(row[se_col]) else None
        ax.errorbar(row[size], row[score], yerr=err, fmt=markers[k % len(markers)], color=f"C{k % 10}",
                    ms=7, capsize=3, label=f"{name} ({_count_text(row[size])})")
    front = comparison.pareto_front(score, size)
    if front:
        pts = sized.loc[front].sort_values(size)
        ax.step(pts[size], pts[score], where="post", color="black", lw=1, alpha=0.6, zorder=0)
        ax.plot(pts[size], pts[score], "o", mfc="none", mec="black", ms=15, mew=1.2,
                label="Pareto front")
    styles = [":", "--", "-.", (0, (1, 3))]
    unsized = table[table[size].isna()].dropna(subset=[score])
    for k, (name, row) in enumerate(unsized.iterrows()):  # black boxes: reference lines
        ax.axhline(row[score], ls=styles[k % len(styles)], color="gray", lw=1.2,
                   label=f"{name} (no rule size)")
    sizes = sized[size].to_numpy(dtype=float)
    top = float(sizes.max()) if sizes.size else 1.0
    if sizes.size and top > 50 * max(float(sizes.min()), 1.0):
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlim(0, top * 2.5)  # half a decade of room right of the largest model
    else:
        ax.set_xlim(0, top * 1.1 + 1)
    ax.set_xlabel("conditions in the model" if size == "n_conditions" else "rules in the model")
    ax.set_ylabel(score.replace("_mean", "").replace("_", " ") + " (cross-validated)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False,
              title="model (size)", title_fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def _result(obj):
    """A search result, from itself or from a fitted estimator's ``result_``."""
    return getattr(obj, "result_", obj)


# --- CORELS ----------------------------------------------------------------------------

def plot_corels_trace(result):
    """How a CORELS search converged: the four views the CORELS authors planned.

    Panels: best objective and smallest queued lower bound against time and
    against nodes evaluated; queue and prefix-tree size against time; log10
    of the upper bound on the remaining search space against time.

    Parameters
    ----------
    result : CorelsResult or fitted CorelsClassifier

    Returns
    -------
    matplotlib.figure.Figure
    """
    res = _result(result)
    tr = {k: np.asarray(v, dtype=float) for k, v in res.trace.items()}
    if tr["time"].size == 0:
        raise ValueError("the result has an empty trace")
    plt = _pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    for ax, x, label in ((axes[0, 0], tr["time"], "time (s)"), (axes[0, 1], tr["nodes"], "nodes evaluated")):
        ax.step(x, tr["best_objective"], where="post", color="tab:blue", label="best objective")
        ax.step(x, tr["lower_bound"], where="post", color="tab:orange", label="lower bound")
        ax.set_xlabel(label)
        ax.set_ylabel("objective")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    ax = axes[1, 0]
    ax.plot(tr["time"], tr["queue_size"], color="tab:green", label="queue")
    ax.plot(tr["time"], tr["trie_size"], color="tab:purple", label="prefix tree")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("entries")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax = axes[1, 1]
    ax.plot(tr["time"], tr["log10_remaining"], color="tab:red")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("log10 upper bound on remaining lists")
    ax.grid(alpha=0.3)
    fig.suptitle(f"CORELS search: status {res.status}, objective {res.objective:.6f}")
    fig.tight_layout()
    return fig


def plot_corels_ablation(ablation):
    """Bar charts of time and nodes per switched-off bound.

    Parameters
    ----------
    ablation : pandas.DataFrame
        The table of :func:`rulekit.corels.ablation` (one row per run, with
        ``time``, ``nodes`` and ``status``).  Plotting draws what it is given
        and runs no search: call ``rulekit.corels.ablation(A, y, c, ...)``
        first.

    Returns
    -------
    matplotlib.figure.Figure
    """
    table = ablation
    if not all(hasattr(table, name) for name in ("index", "status", "time", "nodes")):
        raise TypeError("plot_corels_ablation draws the table of rulekit.corels.ablation(A, y, c, "
                        f"...); got {type(table).__name__}: run the ablation first")
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.45 * len(table) + 1.8), sharey=True)
    labels = list(table.index)
    pos = np.arange(len(labels))
    colors = ["tab:gray" if s == "optimal" else "tab:red" for s in table["status"]]
    axes[0].barh(pos, table["time"], color=colors)
    axes[0].set_xlabel("wall time (s)")
    axes[1].barh(pos, table["nodes"], color=colors)
    axes[1].set_xlabel("nodes evaluated")
    axes[0].set_yticks(pos, labels)
    axes[0].invert_yaxis()
    for ax in axes:
        ax.grid(axis="x", alpha=0.3)
    if any(s != "optimal" for s in table["status"]):
        axes[1].annotate("red: stopped by a limit before proving optimality", (0.98, 0.02),
                         xycoords="axes fraction", ha="right", fontsize=8, color="tab:red")
    fig.suptitle("What each CORELS bound buys (each run switches one bound off)")
    fig.tight_layout()
    return fig


# --- falling rule lists --------------------------------------------------------------------

def plot_falling_rule_list(model, *, ax=None, max_label=48):
    """A falling rule list as horizontal bars of each rule's stated probability.

    Bars are coloured by what the rule predicts (a legend names both
    classes); for a fitted estimator a dashed line marks the decision
    threshold ``1/(1+w)``: rules whose bar passes it predict the positive
    class.  Each bar is annotated with its probability and how many of the
    training rows it captured are positive.

    Parameters
    ----------
    model : RuleList or a fitted (Soft)FallingRuleListClassifier
    ax : matplotlib Axes, optional
    max_label : int
        Longer rule texts are shortened with an ellipsis.

    Returns
    -------
    matplotlib.figure.Figure
    """
    rl = getattr(model, "model_", model)
    classes = list(rl.classes)
    positive = getattr(model, "positive_class_", classes[-1])
    k_pos = classes.index(positive)
    probs = rl.rule_probabilities()[:, k_pos]
    rules = [*rl.rules, rl.default]
    labels = [" and ".join(rl.condition_text(j) for j in r.conditions) or "else" for r in rules]
    labels = [t if len(t) <= max_label else t[: max_label - 1] + "…" for t in labels]
    fig, ax = _figure(ax, figsize=(8.5, 0.5 * len(rules) + 1.8))
    pos = np.arange(len(rules))
    says_positive = np.array([r.prediction == positive for r in rules])
    colors = np.where(says_positive, "tab:red", "tab:gray")
    ax.barh(pos, probs, color=colors)
    threshold = getattr(model, "threshold_", None)
    for k, r in enumerate(rules):
        note = f"{probs[k]:.2f}"
        if sum(r.counts):
            note += f"  ({r.counts[k_pos]:,} of {sum(r.counts):,} rows)"
        at = probs[k] if threshold is None else max(probs[k], threshold)  # clear of the line
        ax.annotate(note, (at, k), xytext=(4, 0), textcoords="offset points", va="center", fontsize=8)
    ax.set_yticks(pos, labels)
    ax.invert_yaxis()
    ax.set_xlim(0, min(1.0, probs.max() * 1.45 + 0.05))
    from matplotlib.patches import Patch

    handles = [Patch(color="tab:red", label=f"rule predicts {positive}"),
               Patch(color="tab:gray", label="rule predicts " + " / ".join(
                   str(c) for c in classes if c != positive))]
    if threshold is not None:
        handles.append(ax.axvline(threshold, color="black", ls="--", lw=1,
                                  label=f"threshold 1/(1+w) = {threshold:.3g}"))
    ax.legend(handles=handles, loc="lower right", fontsize=8)
    ax.set_xlabel(f"stated probability of {positive}")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def plot_candidate_sizes(result, *, max_depth=6, ax=None):
    """Candidate-set size at each depth across iterations (FRL paper, fig. 4).

    As the incumbent improves, the bounds prune more and fewer antecedents
    are considered at each step.

    Parameters
    ----------
    result : FRLResult or fitted falling-rule-list estimator
    max_depth : int
        Plot depths 0 .. max_depth-1 (rule positions).

    Returns
    -------
    matplotlib.figure.Figure
    """
    tr = _result(result).trace
    n_iter = len(tr.candidate_offsets) - 1
    sizes = np.full((n_iter, max_depth), np.nan)
    for i in range(n_iter):
        row = tr.candidate_set_sizes(i)[:max_depth]
        sizes[i, : len(row)] = row
    fig, ax = _figure(ax, figsize=(7, 4.5))
    iters = np.arange(1, n_iter + 1)
    for d in range(max_depth):
        if np.isfinite(sizes[:, d]).any():
            ax.plot(iters, sizes[:, d], ".", ms=2, label=f"rule {d + 1}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("antecedents considered")
    ax.legend(fontsize=8, markerscale=4)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


# --- column generation ------------------------------------------------------------------------

def plot_colgen_trace(result, *, ax=None):
    """Restricted-master LP value and lower bound per column-generation round.

    The lower bound of a round exists only when that round's pricing was
    exact (it proved how negative a reduced cost can be); rounds priced by
    the beam heuristic have none.  Each round's bound is a square, the best
    bound so far a dashed step line from the first round that had one, and
    the certificate's final lower bound a horizontal line.  When no round
    had a bound the legend says so.

    Parameters
    ----------
    result : ColGenResult or fitted BooleanRuleCGClassifier

    Returns
    -------
    matplotlib.figure.Figure
    """
    res = _result(result)
    trace = res.trace
    it = np.array([r.iteration for r in trace], dtype=float)
    rmlp = np.array([r.rmlp for r in trace], dtype=float)
    bound = np.array([np.nan if r.bound is None else r.bound for r in trace], dtype=float)
    fig, ax = _figure(ax, figsize=(7.5, 4.5))
    ax.plot(it, rmlp, "o-", color="tab:blue", ms=4, label="restricted master LP")
    known = np.isfinite(bound)
    if known.any():
        best = np.fmax.accumulate(np.where(known, bound, -np.inf))
        first = int(np.argmax(known))
        ax.step(it[first:], best[first:], where="post", ls="--", color="tab:orange",
                label="best lower bound so far")
        ax.plot(it[known], bound[known], "s", color="tab:orange", ms=6, mfc="none",
                label="lower bound of the round")
    final_bound = getattr(res, "lower_bound", None)
    if final_bound is not None:
        ax.axhline(final_bound, color="tab:orange", lw=1, alpha=0.6,
                   label=f"certified lower bound ({final_bound:g})")
    if not known.any() and final_bound is None:
        ax.plot([], [], " ", label="no lower bound: no round priced exactly")
    if getattr(res, "objective", None) is not None:
        ax.axhline(res.objective, color="tab:green", ls=":", label=f"final rule set, integer ({res.objective:g})")
    ax.set_xlabel("column-generation round")
    ax.set_ylabel("Hamming loss")
    status = getattr(res, "status", None)
    if status is not None:
        ax.set_title(f"column generation: status {status}", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


# --- the Rashomon set ------------------------------------------------------------------------

def plot_rashomon_objectives(rashomon_set, *, ax=None):
    """Histogram of the objectives of the lists in a Rashomon set.

    Parameters
    ----------
    rashomon_set : RashomonSet
        From :meth:`rulekit.CorelsClassifier.rashomon_set`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    objectives = np.asarray(rashomon_set.objectives, dtype=float)
    fig, ax = _figure(ax, figsize=(6.5, 4))
    if objectives.size:
        ax.hist(objectives, bins=min(40, max(5, objectives.size // 5)), color="tab:blue",
                alpha=0.8)
    if rashomon_set.optimum is not None:
        ax.axvline(rashomon_set.optimum, color="tab:green", ls="--", label="optimum")
        ax.axvline(rashomon_set.optimum + rashomon_set.epsilon, color="tab:red", ls=":",
                   label=f"optimum + epsilon ({rashomon_set.epsilon:g})")
        ax.legend(fontsize=8)
    ax.set_xlabel("objective (mistakes / N + c x rules)")
    ax.set_ylabel("rule lists")
    ax.set_title(f"{rashomon_set.count} rule lists", fontsize=10)
    fig.tight_layout()
    return fig


def plot_condition_usage(rashomon_set, *, top=15, weighted=False, ax=None):
    """The conditions the lists of a Rashomon set use most, as horizontal bars.

    Parameters
    ----------
    rashomon_set : RashomonSet
    top : int
        How many conditions to show.
    weighted : bool
        See :meth:`RashomonSet.condition_importance`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    usage = rashomon_set.condition_importance(weighted=weighted).head(top)[::-1]
    fig, ax = _figure(ax, figsize=(6.5, 0.35 * max(len(usage), 3) + 1.2))
    ax.barh(range(len(usage)), usage.to_numpy(), color="tab:blue")
    ax.set_yticks(range(len(usage)), labels=list(usage.index), fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel(usage.name or "share of lists")
    ax.set_title(f"conditions used by {rashomon_set.count} near-optimal lists", fontsize=10)
    fig.tight_layout()
    return fig
