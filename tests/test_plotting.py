"""Each plotting function returns a Figure with the artists it promises (Agg backend)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.figure import Figure

import pandas as pd

from rulekit import BooleanRuleCGClassifier, FallingRuleListClassifier
from rulekit.compare import Comparison
from rulekit.corels import BOUNDS, ablation, search
from rulekit.datasets import load_corels_compas, load_tictactoe
from rulekit.plotting import (plot_candidate_sizes, plot_colgen_trace, plot_comparison,
                              plot_corels_ablation, plot_corels_trace, plot_falling_rule_list)


@pytest.fixture(scope="module")
def compas_small():
    inst = load_corels_compas()
    return inst.data[::4, :40], inst.target[::4]


def test_corels_trace_has_four_panels(compas_small):
    A, y = compas_small
    fig = plot_corels_trace(search(A, y, 0.01))
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    legends = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legends == ["best objective", "lower bound"]
    assert fig.axes[1].get_xlabel() == "nodes evaluated"
    assert "remaining" in fig.axes[3].get_ylabel()


def test_ablation_runs_every_bound_off_and_plots_bars(compas_small):
    A, y = compas_small
    table = ablation(A, y, 0.02, time_limit=5)
    assert list(table.index) == ["all bounds"] + [f"without {b}" for b in BOUNDS]
    optimal = table[table["status"] == "optimal"]["objective"]
    assert np.allclose(optimal, optimal.iloc[0])  # bounds never change the optimum
    fig = plot_corels_ablation(table)
    assert len(fig.axes) == 2
    assert len(fig.axes[0].patches) == len(table) == len(fig.axes[1].patches)
    with pytest.raises(ValueError, match="unknown bounds"):
        ablation(A, y, 0.02, bounds=["magic"])


def test_plotting_draws_an_ablation_table_and_runs_no_search(compas_small):
    # the name of rulekit 0.1 still reaches the ablation, which moved next to its engine
    import rulekit.plotting

    assert rulekit.plotting.corels_ablation is ablation
    with pytest.raises(TypeError, match=r"rulekit\.corels\.ablation"):
        plot_corels_ablation(compas_small[0])


def test_falling_rule_list_bars_and_candidate_sizes():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(400, 4)).astype(str)
    y = ((X[:, 0] == "0") & (rng.random(400) < 0.8)) | (rng.random(400) < 0.1)
    est = FallingRuleListClassifier(w=2.0, n_iter=200, min_support=0.05, random_state=0).fit(X, y.astype(int))
    fig = plot_falling_rule_list(est)
    ax = fig.axes[0]
    assert len(ax.patches) == len(est.model_) + 1  # one bar per rule plus the else
    heights = [p.get_width() for p in ax.patches]
    assert heights == sorted(heights, reverse=True)  # falling
    assert len(ax.texts) == len(ax.patches)
    # a legend says what the colours mean and where the decision threshold is
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[:2] == ["rule predicts 1", "rule predicts 0"]
    assert legend[2] == f"threshold 1/(1+w) = {est.threshold_:.3g}"
    (line,) = [l for l in ax.lines if l.get_label().startswith("threshold")]
    assert np.allclose(line.get_xdata(), est.threshold_)
    reds = [p.get_width() for p in ax.patches if p.get_facecolor()[0] > 0.7 and p.get_facecolor()[1] < 0.3]
    assert all(w > est.threshold_ for w in reds)  # red bars are the rules that predict 1
    fig2 = plot_candidate_sizes(est)
    assert fig2.axes[0].get_xlabel() == "iteration" and fig2.axes[0].lines


def test_colgen_trace_lines():
    X, y = load_tictactoe(return_X_y=True)
    est = BooleanRuleCGClassifier(max_complexity=32, max_literals=3, time_limit=30).fit(X, y)
    fig = plot_colgen_trace(est)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "restricted master LP" in labels
    assert f"final rule set, integer ({est.result_.objective:g})" in labels
    rmlp = ax.lines[0].get_ydata()
    assert np.all(np.diff(rmlp) <= 1e-7)  # the master LP never gets worse
    # the certified bound is a line across the whole plot, not a lone marker
    # the plot is in the engine's counts, beside its LP values; the certificate states a rate
    bound = est.result_.lower_bound
    assert bound is not None and est.certificate_.lower_bound == pytest.approx(bound / len(y))
    (line,) = [l for l in ax.lines if l.get_label().startswith("certified lower bound")]
    assert np.allclose(line.get_ydata(), bound) and tuple(line.get_xdata()) == (0, 1)


def _comparison(rows):
    """A Comparison with the given (name, accuracy, se, n_conditions) rows."""
    table = pd.DataFrame(
        [{"model": n, "accuracy_mean": a, "accuracy_se": se, "n_rules": c, "n_conditions": c,
          "fit_time": 1.0, "certificate": ""} for n, a, se, c in rows]).set_index("model")
    return Comparison(table=table, folds=pd.DataFrame({"fold": [0]}), scoring=("accuracy",))


@pytest.mark.parametrize("rows", [
    # tutorial 5's mix: a model without a size and a forest of 10^5 conditions
    [("CORELS", 0.70, 0.01, 3.0), ("falling rule list", 0.69, 0.01, 9.4), ("DNF (colgen)", 0.71, 0.01, 11.2),
     ("CART depth 4", 0.71, 0.01, 52.0), ("random forest", 0.73, 0.01, 208812.8),
     ("logistic regression", 0.72, 0.01, np.nan)],
    # small sizes only, one of them the empty model
    [("empty", 0.55, 0.02, 0.0), ("list", 0.68, 0.02, 4.0), ("tree", 0.70, 0.02, 30.0)],
])
def test_comparison_plot_is_readable(rows):
    fig = plot_comparison(_comparison(rows))
    ax = fig.axes[0]
    fig.canvas.draw()
    lo, hi = ax.get_xlim()
    sizes = [r[3] for r in rows if np.isfinite(r[3])]
    assert lo == 0 and hi > max(sizes)  # no negative sizes, nothing on the right edge
    for _, acc, _, size in rows:
        if np.isfinite(size):
            ylo, yhi = ax.get_ylim()
            assert ylo < acc < yhi
    # every model is named once, in a legend that lies inside the figure
    legend = ax.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    for name, *_ in rows:
        assert sum(t.startswith(f"{name} (") for t in texts) == 1
    box, page = legend.get_window_extent(), fig.bbox
    assert page.x0 <= box.x0 and box.x1 <= page.x1 + 0.5 and page.y0 <= box.y0 and box.y1 <= page.y1 + 0.5
    assert not any(t.get_text() for t in ax.texts)  # no free labels to collide
    assert "208,813" in " ".join(texts) or max(sizes) < 100
