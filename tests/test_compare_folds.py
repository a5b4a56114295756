"""The before/after comparison of benchmark folds (benchmarks/compare_folds.py): the
standard errors and the one-standard-error checks a default change is judged by."""

import math

import pandas as pd
import pytest

from helpers import load_benchmark


@pytest.fixture(scope="module")
def compare():
    return load_benchmark("compare_folds")


def folds(model, accs, dataset="d"):
    return pd.DataFrame(dict(dataset=dataset, model=model, fold=range(len(accs)), acc=accs,
                             auc=0.5, rules=3.0, cpu=1.0))


def test_se_is_of_the_before_folds_and_paired_se_of_the_differences(compare):
    before = folds("old", [0.70, 0.72, 0.74, 0.76])
    after = folds("new", [0.70, 0.70, 0.74, 0.74])
    row = compare.compare(before, after, [("old", "new")]).iloc[0]
    # before: mean 0.73, sample sd sqrt(0.002/3); differences 0, -0.02, 0, -0.02
    assert row.acc_before == pytest.approx(0.73)
    assert row.se == pytest.approx(math.sqrt(0.002 / 3) / 2)
    assert row.change == pytest.approx(-0.01)
    assert row.paired_se == pytest.approx(math.sqrt(0.0004 / 3) / 2)


def test_a_loss_beyond_one_se_is_flagged_and_a_gain_only_by_the_two_sided_check(compare):
    before = folds("old", [0.70, 0.71, 0.70, 0.71])          # se 0.0029
    lost = folds("new", [0.69, 0.70, 0.69, 0.70])            # -0.01
    gained = folds("new", [0.73, 0.70, 0.73, 0.70])          # +0.01, paired se 0.0115
    text = compare.to_markdown(compare.compare(before, lost, [("old", "new")]))
    assert text.splitlines()[-1].count("**no**") == 3
    cells = compare.to_markdown(compare.compare(before, gained, [("old", "new")])).splitlines()[-1]
    cells = [c.strip() for c in cells.split("|")]
    assert cells[7:10] == ["yes", "**no**", "yes"]


def test_a_data_set_missing_after_is_reported_not_filled(compare):
    before = pd.concat([folds("old", [0.7, 0.8]), folds("old", [0.6, 0.6], dataset="e")])
    after = folds("new", [0.7, 0.8])
    table = compare.compare(before, after, [("old", "new")])
    assert "| e | old | 60.0 (0.0) | not run |" in compare.to_markdown(table)


def test_different_folds_are_refused(compare):
    before = folds("old", [0.7, 0.8, 0.9])
    after = folds("new", [0.7, 0.8])
    with pytest.raises(ValueError, match="folds"):
        compare.compare(before, after, [("old", "new")])
