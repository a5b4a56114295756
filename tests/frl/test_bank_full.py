"""Published anchor: Table 1 of Chen & Rudin, "An Optimization Approach to
Learning Falling Rule Lists", AISTATS 2018 (Section 6, bank-full): 270
antecedents; objective 0.560290 at w=7, C=1e-6 (risk 0.560284)."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.frl import capture_counts, list_objective, search

from ._brute import objective

# the bank-full data set (45,211 rows, 270 antecedents mined from it): a published
# anchor on benchmark-size data, so the slow lane
pytestmark = pytest.mark.slow

# Table 1 of Chen & Rudin (2018): antecedent, probability, n+, n-.
TABLE_1 = [
    (("default==no", "poutcome==success"), 0.65, 978, 531),
    (("age==60<=age<100", "default==no"), 0.28, 434, 1113),
    (("age==17<=age<30", "housing==no"), 0.25, 504, 1539),
    (("housing==no", "previous==>=2"), 0.23, 242, 794),
    (("campaign==1", "housing==no"), 0.14, 658, 4092),
    (("education==tertiary", "previous==>=2"), 0.13, 108, 707),
]
TABLE_1_ELSE = (0.07, 2365, 31146)


def test_mining_gives_270_antecedents(bank_full):
    A, y, antecedents = bank_full
    assert A.shape == (45211, 270) and len(set(antecedents)) == 270
    assert int(y.sum()) == 5289
    assert all(1 <= len(a) <= 2 for a in antecedents)


def test_table_1_objective(bank_full):
    A, y, antecedents = bank_full
    index = {a: j for j, a in enumerate(antecedents)}
    prefix = [index[rule] for rule, *_ in TABLE_1]
    counts = capture_counts(A, y, prefix)
    expected = [(p, q) for _, _, p, q in TABLE_1] + [TABLE_1_ELSE[1:]]
    assert counts.tolist() == [list(c) for c in expected]
    props = counts[:, 0] / counts.sum(axis=1)
    assert props == pytest.approx([r[1] for r in TABLE_1] + [TABLE_1_ELSE[0]], abs=0.005)
    assert np.all(np.diff(props) <= 0)
    assert list_objective(counts, 7.0, 0.0) == pytest.approx(0.560284, abs=5e-7)
    assert list_objective(counts, 7.0, 1e-6) == pytest.approx(0.560290, abs=5e-7)
    assert float(objective(counts, 7, 1e-6)) == pytest.approx(0.560290, abs=5e-7)


def test_short_search_on_bank_full(bank_full):
    A, y, antecedents = bank_full
    r = search(A, y, w=7, C=1e-6, n_iter=200, random_state=0)
    assert np.all(np.diff(r.proportions) <= 0)
    assert r.objective == pytest.approx(float(objective(r.counts, 7, 1e-6)), abs=1e-12)
    # far better than the else-only list (predict all positive: 39922/45211)
    assert r.objective < 0.60
    soft = search(A, y, w=7, C=1e-6, C1=0.5, n_iter=200, random_state=0)
    assert np.all(np.diff(soft.probabilities) <= 0)
    assert soft.objective == pytest.approx(float(objective(soft.counts, 7, 1e-6, 0.5)),
                                           abs=1e-12)


def test_estimator_mines_the_same_270_antecedents():
    import pandas as pd

    from rulekit.frl import FallingRuleListClassifier

    from ._bankfull import BANK_FULL_FRL

    df = pd.read_csv(BANK_FULL_FRL, dtype=str)
    y = df.pop("y").astype(int).to_numpy()
    est = FallingRuleListClassifier(w=7, C=1e-6, n_iter=100, random_state=0).fit(df, y)
    assert len(est.antecedents_) == 270
    probs = est.model_.rule_probabilities()[:, 1]
    assert np.all(np.diff(probs) <= 0)
    assert est.certificate_.objective < 0.60
