"""Real datasets shipped with rulekit, loaded like scikit-learn's.

Every ``load_*`` function reads a compressed CSV inside the package (no
network) and returns a :class:`sklearn.utils.Bunch` with ``data``,
``target``, ``frame``, ``feature_names``, ``target_names`` and ``DESCR``;
``return_X_y=True`` returns ``(X, y)`` instead and ``as_frame=False`` gives
numpy arrays (object dtype where columns are text).  Labels keep their
original values (``"Bad"``/``"Good"``, ``">50K"``...) so printed rules read
naturally.

Sources and licences are listed in ``DATASETS`` (and by ``rulekit
datasets``); ``scripts/prepare_datasets.py`` in the repository shows how each
file was derived from its source.
"""

# Imports carry a leading underscore so that dir(rulekit.datasets) lists the
# loaders only (tab completion, help()).
import gzip as _gzip
from importlib import resources as _resources

import numpy as _np
import pandas as _pd
from sklearn.utils import Bunch as _Bunch

__all__ = [
    "DATASETS",
    "list_datasets",
    "load_dataset",
    "load_compas",
    "load_corels_compas",
    "load_fico",
    "load_tictactoe",
    "load_mushroom",
    "load_bank_marketing",
    "load_adult",
    "load_monks",
    "load_heart",
]

#: name -> (one-line description, source and licence)
DATASETS = {
    "compas": ("ProPublica COMPAS two-year recidivism, CORELS feature set (7214 x 7)",
               "ProPublica compas-analysis; ProPublica data terms"),
    "corels_compas": ("CORELS authors' 155 pre-mined compas antecedents (6489 train / 721 test)",
                      "corels/corels data/, GPL-3.0 repository"),
    "fico": ("FICO HELOC credit risk (10459 x 23)", "FICO xML Challenge; FICO data-use terms"),
    "tictactoe": ("Tic-tac-toe endgames, does x win (958 x 9)", "UCI, CC BY 4.0"),
    "mushroom": ("Mushroom edibility (8124 x 22)", "UCI, CC BY 4.0"),
    "bank_marketing": ("Bank marketing term deposits (45211 x 16)", "UCI bank-full, CC BY 4.0"),
    "adult": ("Adult census income > 50K (48842 x 14)", "UCI, CC BY 4.0"),
    "monks": ("MONK's problems 1-3 (124-169 train / 432 test x 6)", "UCI, CC BY 4.0"),
    "heart": ("Statlog heart disease, cleaned and scaled (270 x 15)", "UCI, CC BY 4.0"),
}


def list_datasets() -> dict:
    """Name -> description of every bundled dataset."""
    return {name: desc for name, (desc, _) in DATASETS.items()}


def _open(name: str):
    return _resources.files(__name__).joinpath("data", name).open("rb")


def _read_csv(name: str, **kwargs) -> _pd.DataFrame:
    with _open(name) as fh:
        return _pd.read_csv(fh, compression="gzip", **kwargs)


def _bunch(frame: _pd.DataFrame, target: str, *, name: str, return_X_y: bool, as_frame: bool):
    X = frame.drop(columns=[target])
    y = frame[target]
    if not as_frame:
        X = X.to_numpy(dtype=object) if any(not _pd.api.types.is_numeric_dtype(t) for t in X.dtypes) else X.to_numpy()
        y = y.to_numpy(dtype=object) if not _pd.api.types.is_numeric_dtype(y.dtype) else y.to_numpy()
    if return_X_y:
        return X, y
    desc, source = DATASETS[name]
    return _Bunch(
        data=X, target=y, frame=frame if as_frame else None,
        feature_names=list(frame.columns.drop(target)), target_names=sorted(_pd.unique(frame[target]).tolist()),
        DESCR=f"{desc}\nSource: {source}",
    )


def load_compas(*, return_X_y=False, as_frame=True):
    """ProPublica two-year recidivism with the CORELS feature set.

    Features: ``sex``, ``age``, ``juv_fel_count``, ``juv_misd_count``,
    ``juv_other_count``, ``priors_count``, ``c_charge_degree`` (F/M).
    Target ``two_year_recid`` (1 = re-offended within two years): 3251 of
    7214.  All rows of the ProPublica file are kept (no screening-date filter).
    """
    frame = _read_csv("compas.csv.gz")
    return _bunch(frame, "two_year_recid", name="compas", return_X_y=return_X_y, as_frame=as_frame)


def load_corels_compas(split: str = "train"):
    """The CORELS authors' pre-mined compas antecedents: the standard CORELS instance.

    Parameters
    ----------
    split : {"train", "test"}

    Returns
    -------
    Bunch
        ``data``: bool array (n_samples, 155) of antecedent captures;
        ``target``: int array, 1 = recidivated within two years;
        ``feature_names``: the 155 antecedent names (``{sex:Male,age:18-20}``).
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    names, rows = [], []
    with _open(f"corels_compas_{split}.out.gz") as fh:
        for line in _gzip.open(fh, "rt"):
            head, _, bits = line.strip().partition(" ")
            names.append(head.strip("{}"))
            rows.append(_np.array(bits.split(), dtype=_np.uint8))
    with _open(f"corels_compas_{split}.label.gz") as fh:
        labels = {}
        for line in _gzip.open(fh, "rt"):
            head, _, bits = line.strip().partition(" ")
            labels[head] = _np.array(bits.split(), dtype=_np.uint8)
    target = labels["{recidivate-within-two-years:Yes}"].astype(_np.int64)
    data = _np.vstack(rows).T.astype(bool)
    return _Bunch(data=data, target=target, feature_names=names,
                 target_names=["no", "yes"], DESCR=DATASETS["corels_compas"][0])


def load_fico(*, return_X_y=False, as_frame=True):
    """FICO HELOC: will the applicant be 90+ days late (``RiskPerformance``: Bad/Good)?

    The special codes -7 (condition not met), -8 (no usable trades) and
    -9 (no record) become missing values, so the binarizer gives them an
    ``is missing`` condition instead of treating them as small numbers.
    """
    frame = _read_csv("fico.csv.gz")
    features = frame.columns.drop("RiskPerformance")
    frame[features] = frame[features].astype(float).mask(frame[features] < 0)
    return _bunch(frame, "RiskPerformance", name="fico", return_X_y=return_X_y, as_frame=as_frame)


def load_tictactoe(*, return_X_y=False, as_frame=True):
    """Tic-tac-toe endgames; target ``class`` is positive when x wins (626 of 958)."""
    frame = _read_csv("tictactoe.csv.gz")
    return _bunch(frame, "class", name="tictactoe", return_X_y=return_X_y, as_frame=as_frame)


def load_mushroom(*, return_X_y=False, as_frame=True):
    """Mushrooms; target ``class``: e (edible, 4208) / p (poisonous, 3916).

    ``stalk_root`` is '?' in 2480 rows; it is kept as its own category.
    """
    frame = _read_csv("mushroom.csv.gz")
    return _bunch(frame, "class", name="mushroom", return_X_y=return_X_y, as_frame=as_frame)


def load_bank_marketing(*, discretized=False, return_X_y=False, as_frame=True):
    """UCI bank marketing (bank-full): did the client subscribe (``y``: yes 5289 / no 39922)?

    Parameters
    ----------
    discretized : bool, default=False
        Return the falling-rule-list paper's version instead: 12 categorical
        columns (age, balance, campaign, previous binned; duration, day,
        month, pdays left out) and ``y`` as 1/0.
    """
    if discretized:
        frame = _read_csv("bank_full_frl.csv.gz", dtype=str)
        frame["y"] = frame["y"].astype(int)
    else:
        frame = _read_csv("bank_full.csv.gz")
    return _bunch(frame, "y", name="bank_marketing", return_X_y=return_X_y, as_frame=as_frame)


def load_adult(*, split="all", return_X_y=False, as_frame=True):
    """UCI adult census: income ``>50K`` or ``<=50K``.

    Parameters
    ----------
    split : {"all", "train", "test"}
        The original 32561/16281 split, or both (48842 rows).  '?' in
        workclass, occupation and native_country is read as missing.
    """
    if split not in ("all", "train", "test"):
        raise ValueError(f"split must be 'all', 'train' or 'test', got {split!r}")
    parts = [_read_csv(f"adult_{s}.csv.gz", na_values="?") for s in (["train", "test"] if split == "all" else [split])]
    frame = _pd.concat(parts, ignore_index=True)
    return _bunch(frame, "income", name="adult", return_X_y=return_X_y, as_frame=as_frame)


def load_monks(n: int = 1, *, split="train", return_X_y=False, as_frame=True):
    """MONK's problem ``n`` (1, 2 or 3); attributes a1..a6 are categorical codes.

    Parameters
    ----------
    n : {1, 2, 3}
    split : {"train", "test"}
    """
    if n not in (1, 2, 3):
        raise ValueError(f"n must be 1, 2 or 3, got {n!r}")
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    frame = _read_csv(f"monks-{n}_{split}.csv.gz").drop(columns=["id"])
    attrs = [c for c in frame.columns if c != "class"]
    frame[attrs] = frame[attrs].astype(str)  # codes are categories, not magnitudes
    return _bunch(frame, "class", name="monks", return_X_y=return_X_y, as_frame=as_frame)


def load_heart(*, return_X_y=False, as_frame=True):
    """Statlog heart disease (cleaned, features scaled to [-1, 1]); ``target`` 1 = disease (120 of 270)."""
    frame = _read_csv("heart.csv.gz")
    return _bunch(frame, "target", name="heart", return_X_y=return_X_y, as_frame=as_frame)


_LOADERS = {
    "compas": load_compas, "fico": load_fico, "tictactoe": load_tictactoe,
    "mushroom": load_mushroom, "bank_marketing": load_bank_marketing, "adult": load_adult,
    "monks": load_monks, "heart": load_heart,
}


def load_dataset(name: str, **kwargs):
    """Load a bundled dataset by name (see :func:`list_datasets`)."""
    try:
        return _LOADERS[name](**kwargs)
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; choose one of {sorted(_LOADERS)}") from None
