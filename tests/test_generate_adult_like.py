"""The adult-like generator (benchmarks/generate_adult_like.py) is reproducible,
chunk-independent, and writes load_adult's columns and dtypes."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rulekit.datasets import load_adult

# writes parquet files of a generated data set: the slow lane (2 to 4 CPU s in all)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def gen():
    # the benchmarks folder is not a package: load the script as a module
    spec = importlib.util.spec_from_file_location(
        "generate_adult_like", ROOT / "benchmarks" / "generate_adult_like.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def model(gen):
    return gen.AdultLikeModel()


@pytest.fixture(scope="module")
def written(gen, model, tmp_path_factory):
    out = tmp_path_factory.mktemp("adult_like")
    files = gen.write(20_000, out, seed=3, chunk_rows=6_000, model=model)
    return out, files


def test_files_have_load_adults_columns_and_dtypes(written):
    out, files = written
    assert [f.name for f in files] == [f"part-0000{i}.parquet" for i in range(4)]
    frame = pd.read_parquet(out)
    X, y = load_adult(return_X_y=True)
    assert len(frame) == 20_000
    assert list(frame.columns) == list(X.columns) + ["income"]
    assert frame.dtypes.drop("income").to_dict() == X.dtypes.to_dict()
    assert frame["income"].dtype == y.dtype
    assert set(frame["income"]) == set(y)
    # realistic value sets: integer ages, capital gain mostly 0, hours 1..99,
    # workclass missing exactly where occupation is (as in adult)
    assert frame["age"].between(17, 90).all()
    assert 0.85 < (frame["capital_gain"] == 0).mean() < 0.97
    assert frame["hours_per_week"].between(1, 99).all()
    assert set(frame["age"]) <= set(X["age"])
    assert (frame["workclass"].isna() <= frame["occupation"].isna()).all()


def test_same_seed_same_rows_and_another_seed_other_rows(gen, model, written, tmp_path):
    out, _ = written
    gen.write(20_000, tmp_path / "again", seed=3, chunk_rows=6_000, model=model)
    first, again = pd.read_parquet(out), pd.read_parquet(tmp_path / "again")
    pd.testing.assert_frame_equal(first, again)
    gen.write(6_000, tmp_path / "other", seed=4, chunk_rows=6_000, model=model)
    other = pd.read_parquet(tmp_path / "other")
    assert not other.equals(first.iloc[:6_000].reset_index(drop=True))


def test_a_chunk_depends_only_on_seed_and_index(gen, model, written, tmp_path):
    out, _ = written
    frame = pd.read_parquet(out)
    # chunk 2 regenerated alone is rows 12000..17999 of the whole set
    alone = model.sample_chunk(6_000, seed=3, index=2)
    pd.testing.assert_frame_equal(alone, frame.iloc[12_000:18_000].reset_index(drop=True))
    # a smaller set is a prefix of a larger one (the last chunk is cut, not redrawn)
    gen.write(9_000, tmp_path / "short", seed=3, chunk_rows=6_000, model=model)
    short = pd.read_parquet(tmp_path / "short")
    pd.testing.assert_frame_equal(short, frame.iloc[:9_000].reset_index(drop=True))


def test_the_chain_keeps_adults_main_dependency(written):
    # married men earn >50K far more often than the never-married, in adult and here
    frame = pd.read_parquet(written[0])
    rich = frame["income"].eq(">50K")
    married = frame["marital_status"].eq("Married-civ-spouse")
    never = frame["marital_status"].eq("Never-married")
    assert rich[married].mean() > 0.3 > 0.1 > rich[never].mean()
    assert np.isclose(rich.mean(), 11_687 / 48_842, atol=0.02)
