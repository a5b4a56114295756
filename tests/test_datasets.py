"""Every loader against the shapes and label counts in the data README."""

import numpy as np
import pandas as pd
import pytest

from rulekit import datasets

# name, kwargs, (rows, feature columns), {label: count}
EXPECTED = [
    ("compas", {}, (7214, 7), {1: 3251, 0: 3963}),
    ("fico", {}, (10459, 23), {"Bad": 5459, "Good": 5000}),
    ("tictactoe", {}, (958, 9), {"positive": 626, "negative": 332}),
    ("mushroom", {}, (8124, 22), {"e": 4208, "p": 3916}),
    ("bank_marketing", {}, (45211, 16), {"yes": 5289, "no": 39922}),
    ("bank_marketing", {"discretized": True}, (45211, 12), {1: 5289, 0: 39922}),
    ("adult", {}, (48842, 14), {">50K": 7841 + 3846, "<=50K": 24720 + 12435}),
    ("adult", {"split": "train"}, (32561, 14), {">50K": 7841, "<=50K": 24720}),
    ("adult", {"split": "test"}, (16281, 14), {">50K": 3846, "<=50K": 12435}),
    ("monks", {"n": 1}, (124, 6), {1: 62, 0: 62}),
    ("monks", {"n": 2}, (169, 6), {1: 64, 0: 105}),
    ("monks", {"n": 3}, (122, 6), {1: 60, 0: 62}),
    ("monks", {"n": 2, "split": "test"}, (432, 6), {1: 142, 0: 290}),
    ("heart", {}, (270, 15), {1: 120, 0: 150}),
]


@pytest.mark.parametrize("name,kwargs,shape,counts", EXPECTED, ids=lambda v: str(v) if isinstance(v, str) else None)
def test_loader_shape_and_label_balance(name, kwargs, shape, counts):
    X, y = datasets.load_dataset(name, return_X_y=True, **kwargs)
    assert isinstance(X, pd.DataFrame)
    assert X.shape == shape
    assert y.value_counts().to_dict() == counts


def test_bunch_and_numpy_forms():
    bunch = datasets.load_tictactoe()
    assert bunch.frame.shape == (958, 10)
    assert bunch.feature_names[0] == "top_left"
    assert bunch.target_names == ["negative", "positive"]
    X, y = datasets.load_tictactoe(return_X_y=True, as_frame=False)
    assert isinstance(X, np.ndarray) and X.dtype == object and X.shape == (958, 9)


def test_fico_special_codes_become_missing():
    X, _ = datasets.load_fico(return_X_y=True)
    assert (X.to_numpy() >= 0)[~X.isna().to_numpy()].all()
    assert X.isna().all(axis=1).sum() == 588  # the README's all -9 rows


def test_adult_question_marks_are_missing():
    X, _ = datasets.load_adult(split="train", return_X_y=True)
    assert set(X.columns[X.isna().any()]) == {"workclass", "occupation", "native_country"}


def test_corels_compas_instance():
    b = datasets.load_corels_compas()
    assert b.data.shape == (6489, 155) and b.data.dtype == bool
    assert len(b.feature_names) == 155 and b.feature_names[0] == "sex:Female"
    assert b.target.sum() + (b.target == 0).sum() == 6489
    test = datasets.load_corels_compas("test")
    assert test.data.shape == (721, 155)
    with pytest.raises(ValueError, match="split"):
        datasets.load_corels_compas("dev")


def test_unknown_names_and_arguments():
    with pytest.raises(ValueError, match="unknown dataset"):
        datasets.load_dataset("iris")
    with pytest.raises(ValueError, match="n must be"):
        datasets.load_monks(4)
    assert "compas" in datasets.list_datasets()


def test_package_data_stays_small():
    from importlib import resources

    total = sum(p.stat().st_size for p in resources.files("rulekit.datasets").joinpath("data").iterdir())
    assert total < 6_000_000


def test_namespace_lists_the_loaders_only():
    public = {n for n in dir(datasets) if not n.startswith("_")}
    assert public == set(datasets.__all__)
    assert not {"np", "pd", "gzip", "resources", "Bunch", "annotations"} & public
