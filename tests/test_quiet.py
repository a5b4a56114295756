"""Nothing reaches standard output unless it was asked for.

A solver's banner or log in a CLI pipe or a notebook breaks the user's output
(highspy 1.16 prints "Running HiGHS ..." when a process builds its first model).
Each check runs in a new process and reads its file descriptor 1, so output
written by C code is seen too.
"""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # every check starts a new process (most of them fit)

FIT_QUIETLY = r"""
import numpy as np
from rulekit.colgen import ColGenSettings
from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     SoftFallingRuleListClassifier)
rng = np.random.default_rng(0)
X = rng.integers(0, 2, size=(120, 4)).astype(bool)
y = (X[:, 0] & ~X[:, 1]) | (rng.random(120) < 0.1)
{make}.fit(X, y).predict(X)
"""

LEARNERS = {
    "cg-dnf": "BooleanRuleCGClassifier(form='dnf')",
    "cg-cnf": "BooleanRuleCGClassifier(form='cnf')",
    "cg-auto": "BooleanRuleCGClassifier()",
    "cg-cbc": ("BooleanRuleCGClassifier(form='dnf', settings=ColGenSettings("
               "lp_solver='cbc', pricing_solver='cbc', mip_solver='cbc'))"),
    "corels": "CorelsClassifier()",
    "frl": "FallingRuleListClassifier()",
    "softfrl": "SoftFallingRuleListClassifier()",
}


def _stdout_of(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_fit_and_predict_print_nothing(learner):
    assert _stdout_of(FIT_QUIETLY.format(make=LEARNERS[learner])) == ""


def test_verbose_fit_does_print():
    # the check above could pass by swallowing everything; verbose output still arrives
    code = FIT_QUIETLY.format(make="BooleanRuleCGClassifier(form='dnf', verbose=1)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() or out.stderr.strip()


def test_cli_fit_prints_only_the_model(tmp_path):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.integers(0, 2, 150), "b": rng.normal(size=150).round(2)})
    df["label"] = ((df.a == 1) & (df.b > 0)).astype(int)
    data = tmp_path / "d.csv"
    df.to_csv(data, index=False)
    model = tmp_path / "m.json"
    fit = subprocess.run([sys.executable, "-m", "rulekit.cli", "fit", str(data), "--target",
                          "label", "--model", "cg", "--save", str(model)],
                         capture_output=True, text=True, timeout=600)
    assert fit.returncode == 0, fit.stderr
    assert "Running HiGHS" not in fit.stdout and "HiGHS" not in fit.stdout
    pred = subprocess.run([sys.executable, "-m", "rulekit.cli", "predict", str(model), str(data)],
                          capture_output=True, text=True, timeout=600)
    assert pred.returncode == 0, pred.stderr
    # predict's standard output is the predictions and nothing else: one per row plus a header
    assert len(pred.stdout.strip().splitlines()) in (len(df), len(df) + 1), pred.stdout[:500]
