"""compare_models and GridSearchCV on a real dask cluster give the local answer.

A ``LocalCluster`` starts a scheduler and two worker *processes* on the
loopback address, so estimators and data really are pickled, sent over TCP
and fitted in other interpreters, as on a cluster of machines.
"""

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     compare_models)
from rulekit.datasets import load_tictactoe
from rulekit.colgen import ColGenSettings

pytestmark = pytest.mark.slow  # a dask cluster: a scheduler and two worker processes


def models():
    return {
        "corels": CorelsClassifier(c=0.02, max_card=1),
        "frl": FallingRuleListClassifier(n_iter=100, min_support=0.1, random_state=0),
        # beam pricing keeps the fits on the workers quick
        "dnf": BooleanRuleCGClassifier(form="dnf", max_complexity=8, max_literals=3,
                                       settings=ColGenSettings(pricing="beam")),
    }


def grid():
    return GridSearchCV(CorelsClassifier(max_card=1), {"c": [0.01, 0.03]},
                        cv=StratifiedKFold(3, shuffle=True, random_state=0), n_jobs=-1)


@pytest.fixture(scope="module")
def data():
    X, y = load_tictactoe(return_X_y=True)
    return X.iloc[::4].reset_index(drop=True), y.iloc[::4].reset_index(drop=True)


@pytest.fixture(scope="module")
def client():
    # imported here: every worker of the fast lane collects this module too, and
    # distributed is a second of imports that only the slow lane uses
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=40)
    with cluster, Client(cluster) as c:
        yield c


def test_compare_and_grid_search_on_a_cluster_match_the_local_run(client, data):
    X, y = data
    local = compare_models(models(), X, y, cv=3, random_state=0, refit=False)
    local_grid = grid().fit(X, y)

    with parallel_config(backend="dask"):
        remote = compare_models(models(), X, y, cv=3, random_state=0, refit=False, n_jobs=-1)
        remote_grid = grid().fit(X, y)

    # the fits really ran in the workers' processes (which import the engines to fit)
    assert len(client.scheduler_info()["workers"]) == 2
    ran = client.run(lambda: __import__("sys").modules.get("rulekit.corels._kernels") is not None)
    assert any(ran.values())

    # the same folds, the same models, the same scores and certificates
    drop = ["fit_time"]
    pd.testing.assert_frame_equal(local.table.drop(columns=drop), remote.table.drop(columns=drop))
    assert list(remote.table["certificate"]) == list(local.table["certificate"])
    assert local.table.loc["corels", "certificate"] == "optimal 3/3"
    assert remote_grid.best_params_ == local_grid.best_params_
    np.testing.assert_allclose(remote_grid.cv_results_["mean_test_score"],
                               local_grid.cv_results_["mean_test_score"])
    assert str(remote_grid.best_estimator_) == str(local_grid.best_estimator_)
