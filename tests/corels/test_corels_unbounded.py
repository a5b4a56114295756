"""Issue 36, item 9: ``max_work=None`` is an unbounded search the user asks for knowingly.

The audit's case: 1,500 rows, ``c=0.005``, ``max_card="auto"`` and
``max_work=None`` did not return within 120 s (the default: 3.3 s): the
path's two-condition search ran without any bound.  Now the fit warns when
it starts, shows its progress, every point of the path keeps the default
per-search budget, only the chosen point is searched to the end, and Ctrl-C
returns the best list with a valid bound.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from rulekit import CorelsClassifier
from rulekit.estimators import corels_auto as _auto
from rulekit.datasets import load_dataset

ROOT = Path(__file__).resolve().parents[2]


def _compas(n):
    data = load_dataset("compas")
    return data.data.iloc[:n], np.asarray(data.target)[:n]


def _give_up_after(seconds):
    """A callback that stops a search running past ``seconds`` (old code: forever)."""
    start = time.perf_counter()
    return lambda state: time.perf_counter() - start > seconds


def test_an_unbounded_fit_warns_when_it_starts_and_shows_its_progress(capsys):
    X, y = _compas(300)
    with pytest.warns(UserWarning, match=r"max_work=None and no time_limit.*Ctrl-C"):
        est = CorelsClassifier(c=0.02, max_card=1, max_work=None).fit(X, y)
    assert est.certificate_.proved_optimal
    assert "corels:" in capsys.readouterr().err       # the progress bar, asked for or not
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # bounded fits say nothing
        CorelsClassifier(c=0.02, max_card=1, max_work=None, time_limit=60).fit(X, y)
        CorelsClassifier(c=0.02, max_card=1).fit(X, y)
    assert capsys.readouterr().err == ""


def test_every_point_of_the_path_keeps_a_budget_when_max_work_is_none(monkeypatch):
    # the audit's shape; the budget is made small so that the test is quick
    monkeypatch.setattr(_auto, "SEARCH_WORK", 5_000_000)
    X, y = _compas(1500)
    with pytest.warns(UserWarning, match="max_work=None"):
        est = CorelsClassifier(c=0.005, max_work=None, callback=_give_up_after(120)).fit(X, y)
    path = est.selection_.path
    assert [(c, card) for c, card, *_ in path] == [(0.005, 1), (0.005, 2)]
    # the two-condition search, which never certifies here, stopped at its budget
    assert path[1][2] == "work_limit" and path[1][5] <= 5_000_000 * 1.01
    assert est.certificate_.status == "optimal" and est.max_card_ == 1


def test_the_chosen_point_is_searched_to_the_end(monkeypatch):
    # one condition per antecedent (pairs "do not fit") and a budget too small to certify
    # it: the path keeps its uncertified point, which max_work=None searches to the end
    monkeypatch.setattr(_auto, "PAIR_CELLS", 0)
    monkeypatch.setattr(_auto, "SEARCH_WORK", 100)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=list("abc"))
    y = ((X.a > 0) & (X.b > 0.3) | (rng.random(200) < 0.1)).astype(int)
    with pytest.warns(UserWarning, match="max_work=None"):
        est = CorelsClassifier(c=0.01, max_work=None, callback=_give_up_after(120)).fit(X, y)
    assert [row[:3] for row in est.selection_.path] == [(0.01, 1, "work_limit")]
    assert est.certificate_.status == "optimal"
    assert est.selection_.chosen.result.status == "optimal"
    # the optimum the default certifies within its own budget
    monkeypatch.setattr(_auto, "SEARCH_WORK", 400_000_000)
    bounded = CorelsClassifier(c=0.01).fit(X, y)
    assert bounded.certificate_.status == "optimal"
    assert est.certificate_.objective == pytest.approx(bounded.certificate_.objective, abs=1e-12)


@pytest.mark.slow
def test_ctrl_c_stops_an_unbounded_search_with_its_best_list_and_bound(tmp_path):
    script = tmp_path / "fit.py"
    script.write_text(
        "import numpy as np\n"
        "from rulekit import CorelsClassifier\n"
        "from rulekit.datasets import load_dataset\n"
        "d = load_dataset('compas')\n"
        "X, y = d.data.iloc[:1500], np.asarray(d.target)[:1500]\n"
        "print('fitting', flush=True)\n"
        "est = CorelsClassifier(c=0.005, max_card=2, max_work=None).fit(X, y)\n"
        "cert = est.certificate_\n"
        "print(cert.status, cert.objective, cert.lower_bound, len(est.model_.rules), flush=True)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="default")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "fitting"
        time.sleep(15)              # binarizing, mining, then the search (it never ends here)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    status, objective, bound, _ = out.split()
    assert status == "interrupted"
    assert 0 <= float(bound) <= float(objective)
    assert "max_work=None and no time_limit" in err          # warned when it started
    assert "corels:" in err                                  # progress was shown
    assert "ConvergenceWarning" in err and "interrupted" in err
