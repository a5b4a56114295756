import re

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from rulekit.compare import baselines, compare_models, model_size
from rulekit.datasets import load_tictactoe


@pytest.fixture(scope="module")
def data():
    X, y = load_tictactoe(return_X_y=True)
    X = pd.get_dummies(X).astype(float)  # plain numeric for the sklearn models
    return X.iloc[::3].reset_index(drop=True), y.iloc[::3].reset_index(drop=True)


def models():
    return {
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
        "logreg": LogisticRegression(max_iter=500),
    }


def test_with_a_rulekit_learner_reports_size_and_certificate(data):
    from rulekit import CorelsClassifier

    X, y = data
    trio = {"corels": CorelsClassifier(c=0.02, max_card=1), **models()}
    comp = compare_models(trio, X, y, cv=3)
    t = comp.table
    assert list(t.index) == ["corels", "tree", "logreg"]
    assert t.loc["corels", "certificate"] == "optimal 3/3"
    assert t.loc["tree", "certificate"] == ""
    refit = comp.models["corels"]
    assert t.loc["corels", "n_rules"] >= 1
    # size columns count what the printed model shows
    assert model_size(refit) == (len(refit.model_.rules), sum(len(r.conditions) for r in refit.model_.rules))
    assert (comp.folds.groupby("fold")["model"].nunique() == 3).all()


def test_table_columns_and_folds(data):
    X, y = data
    comp = compare_models(models(), X, y, cv=4)
    t = comp.table
    for s in ("accuracy", "balanced_accuracy", "roc_auc"):
        assert f"{s}_mean" in t and f"{s}_se" in t
    assert {"n_rules", "n_conditions", "fit_time", "certificate"} <= set(t.columns)
    assert list(t.index) == ["tree", "logreg"]
    # same folds for every model: each fold's test rows are scored by both
    assert comp.folds.groupby("fold")["model"].nunique().eq(2).all()
    assert len(comp.folds) == 8
    assert 0.5 < t.loc["tree", "accuracy_mean"] <= 1
    assert np.isnan(t.loc["logreg", "n_rules"])
    assert t.loc["tree", "n_rules"] <= 8  # depth 3 -> at most 8 leaves


def test_refit_models_are_fitted_on_all_data(data):
    X, y = data
    comp = compare_models(models(), X, y, cv=3)
    tree = comp.models["tree"]
    assert tree.predict(X).shape == (len(y),)
    assert tree.get_depth() <= 3
    assert comp.models["tree"] is not models()["tree"]


@pytest.mark.slow  # n_jobs=2: joblib fits in worker processes (about 8 CPU s with them)
def test_parallel_gives_the_same_table(data):
    X, y = data
    serial = compare_models(models(), X, y, cv=3, refit=False).table.drop(columns="fit_time")
    parallel = compare_models(models(), X, y, cv=3, n_jobs=2, refit=False).table.drop(columns="fit_time")
    pd.testing.assert_frame_equal(serial, parallel)


def test_tree_read_as_rules():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5, dtype=float)
    y = np.array([0, 1, 1, 1] * 5)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    rules, conditions = model_size(tree)
    assert rules == tree.get_n_leaves()
    # leaves at depths 1 and 2,2 -> 5 conditions, or 2,2,2,2 -> 8
    assert conditions in (5.0, 8.0)


def test_markdown_and_pareto(data):
    X, y = data
    comp = compare_models(models(), X, y, cv=3, refit=False)
    md = comp.to_markdown().splitlines()
    assert md[0].startswith("| model | accuracy_mean")
    assert md[2].startswith("| tree |")
    assert comp.pareto_front() == ["tree"]


def test_baselines_take_mixed_frames():
    X, y = load_tictactoe(return_X_y=True)
    X, y = X.iloc[::4], y.iloc[::4]
    comp = compare_models({"cart": baselines()["CART depth 4"]}, X, y, cv=3, refit=False)
    assert comp.table.loc["cart", "accuracy_mean"] > 0.6


def test_bad_arguments():
    with pytest.raises(ValueError, match="non-empty dict"):
        compare_models({}, [[0]], [0])
    with pytest.raises(TypeError, match="not an estimator"):
        compare_models({"x": 3}, [[0]], [0])


def test_comparison_plot_returns_a_figure(data):
    import matplotlib

    matplotlib.use("Agg")
    X, y = data
    comp = compare_models(models(), X, y, cv=3, refit=False)
    fig = comp.plot()
    ax = fig.axes[0]
    assert ax.get_xlabel() == "conditions in the model"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(s.startswith("tree (") for s in labels)
    assert "logreg (no rule size)" in labels and "Pareto front" in labels


def _folds(*certs):
    """A folds frame as compare_models builds it, from (status, gap) pairs."""
    return pd.DataFrame({"status": [c[0] for c in certs], "gap": [c[1] for c in certs]})


@pytest.mark.parametrize("certs,expected", [
    ([("optimal", 0.0)] * 3, "optimal 3/3"),
    ([("heuristic", None)] * 5, "heuristic 5/5"),
    ([("optimal", 0.0), ("time_limit", 0.004), ("time_limit", 0.01)], "optimal 1/3, time limit 2/3; max gap 0.01"),
    ([("feasible", 2.0), ("time_limit", None)], "feasible 1/2, time limit 1/2; max gap 2; no bound in 1/2"),
    ([("optimal_relative", 0.0), ("heuristic", None)], "optimal (relative) 1/2, heuristic 1/2"),
    ([("time_limit", 2470.4)], "time limit 1/1; max gap 2,470"),
    ([(None, None)] * 2, ""),
])
def test_certificate_column_states_only_what_the_folds_prove(certs, expected):
    from rulekit.compare import _certificate_summary

    assert _certificate_summary(_folds(*certs)) == expected


def test_heuristic_learner_is_never_called_optimal(data):
    from rulekit import FallingRuleListClassifier

    X, y = data
    comp = compare_models({"frl": FallingRuleListClassifier(n_iter=100, random_state=0)}, X, y, cv=3,
                          refit=False)
    statuses = set(comp.folds["status"])
    text = comp.table.loc["frl", "certificate"]
    assert statuses <= {"heuristic", "optimal_relative"}
    if statuses == {"heuristic"}:
        assert text == "heuristic 3/3"
    assert "gap" not in text  # no fold of a Monte-Carlo search has a bound


def test_markdown_sizes_are_counts_not_long_decimals():
    X, y = load_tictactoe(return_X_y=True)
    X, y = X.iloc[::4], y.iloc[::4]
    forest = baselines()["random forest"].set_params(randomforestclassifier__n_estimators=30)
    comp = compare_models({"rf": forest, "cart": baselines()["CART depth 4"]}, X, y, cv=3, refit=False)
    assert comp.table.loc["rf", "n_rules"] > 100  # hundreds of leaves: printed as a count
    row = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
           for line in comp.to_markdown().splitlines()[2:]}
    header = [c.strip() for c in comp.to_markdown().splitlines()[0].split("|")[2:-1]]
    rf = dict(zip(header, row["rf"]))
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", rf["n_rules"]), rf["n_rules"]
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", rf["n_conditions"]), rf["n_conditions"]
    cart = dict(zip(header, row["cart"]))
    assert re.fullmatch(r"\d+(\.\d)?", cart["n_rules"]), cart["n_rules"]
    assert re.fullmatch(r"0\.\d{3}", rf["accuracy_mean"])


def test_printing_a_comparison_is_short(data):
    X, y = data
    comp = compare_models(models(), X, y, cv=4)
    text = str(comp)
    lines = text.splitlines()
    assert len(lines) == 2 + len(models())  # title, header, one line per model
    assert "Pipeline" not in text and "DecisionTreeClassifier" not in text
    assert lines[2].split()[0] == "tree" and " ± " in lines[2]
    short = repr(comp)
    assert short.startswith("<Comparison: 2 models (tree, logreg), 4 folds") and "\n" not in short
