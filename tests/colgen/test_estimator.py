"""BooleanRuleCGClassifier: sklearn contract, multi-class, probabilities, CNF."""

import os
import signal

import numpy as np
import pandas as pd
import pytest
from helpers import sklearn_checks
from sklearn.exceptions import ConvergenceWarning

from rulekit.binarize import Binarizer
from rulekit.colgen import BooleanRuleCGClassifier
from rulekit.datasets import load_tictactoe
from rulekit.models import OneVsRestRuleSets, RuleSet


def _ttt():
    X, y = load_tictactoe(return_X_y=True)  # the package's copy of the shared CSV
    return X, np.asarray(y)


# At its defaults every fit chooses its complexity by inner cross-validation (many
# master LPs), so the checks that fit over and over cost about a CPU second each here,
# against a few tenths for the other learners: they run in the slow lane (0.9 CPU s or
# more each, measured one process, warm kernels; together about 10 of colgen's 16).
COLGEN_SLOW_CHECKS = {
    "check_class_weight_classifiers", "check_fit_idempotent", "check_positive_only_tag_during_fit",
    "check_sample_weight_equivalence_on_dense_data", "check_sample_weights_list",
    "check_n_features_in", "check_fit_check_is_fitted", "check_estimators_dtypes",
}


@sklearn_checks(BooleanRuleCGClassifier(), slow_checks=COLGEN_SLOW_CHECKS)
def test_sklearn_compatible(estimator, check):
    """scikit-learn's checks at the default parameters."""
    check(estimator)


def test_tictactoe_dnf_perfect():
    X, y = _ttt()
    clf = BooleanRuleCGClassifier(form="dnf", max_complexity=32, max_literals=3).fit(X, y)
    assert isinstance(clf.model_, RuleSet)
    assert clf.score(X, y) == 1.0
    assert clf.complexity_ <= 32 and clf.certificate_.status == "optimal"
    text = str(clf)
    assert "OR" in text and "positive" in text


def test_cnf_string_and_predictions_agree():
    X, y = _ttt()
    clf = BooleanRuleCGClassifier(form="cnf", max_complexity=12, max_literals=3).fit(X, y)
    B = clf.binarizer_.transform(X)
    holds = np.ones(len(y), dtype=bool)
    for c in clf.model_.clauses:
        holds &= B[:, list(c)].any(axis=1)
    pred = np.where(holds, clf.classes_[1], clf.classes_[0])
    np.testing.assert_array_equal(pred, clf.predict(X))
    assert clf.model_.form == "cnf"


def test_predict_proba_is_training_positive_rate():
    X, y = _ttt()
    clf = BooleanRuleCGClassifier(form="dnf", max_complexity=8, max_literals=3).fit(X, y)
    B = clf.binarizer_.transform(X)
    holds = clf.model_.holds(B)
    pos = y == clf.classes_[1]
    proba = clf.predict_proba(X)[:, 1]
    np.testing.assert_allclose(proba[holds], pos[holds].mean())
    np.testing.assert_allclose(proba[~holds], pos[~holds].mean())


def test_multiclass_one_vs_rest():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True, as_frame=True)
    clf = BooleanRuleCGClassifier(form="dnf", max_complexity=6).fit(X, y)
    assert isinstance(clf.model_, OneVsRestRuleSets)
    assert [r.status for r in clf.result_] == ["optimal"] * 3
    assert clf.score(X, y) > 0.9
    text = str(clf)
    # one decision list, then every class's scores (issue 37: no per-class "predict not c")
    assert "read as a decision list" in text and "predict not" not in text
    table = text[text.index("class   where its rule set holds"):].splitlines()[1:4]
    assert [line.split()[0] for line in table] == [str(c) for c in clf.classes_]


def test_auto_complexity_and_class_weight():
    X, y = _ttt()
    clf = BooleanRuleCGClassifier(max_complexity="auto", complexity_grid=(4, 32),
                                  max_literals=3, class_weight="balanced").fit(X.iloc[::3], y[::3])
    assert clf.max_complexity_ in (4, 32)
    assert clf.complexity_ <= clf.max_complexity_


def test_auto_form_is_chosen_and_shown():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.choice(["u", "v", "w"], size=(200, 4), p=[0.3, 0.4, 0.3]),
                     columns=list("abcd"))
    y = ((X.a == "u") | (X.b == "u")).astype(int).to_numpy()
    clf = BooleanRuleCGClassifier(form="auto", max_complexity=3).fit(X, y)
    # only the CNF "(a == u OR b == u)" is exact within complexity 3
    assert clf.form_ == "cnf" and clf.choice_.method == "exact"
    assert clf.model_.form == "cnf" and clf.score(X, y) == 1.0
    assert "(a == u or b == u)" in str(clf.model_)
    fixed = BooleanRuleCGClassifier(form="dnf", max_complexity=3).fit(X, y)
    assert fixed.form_ == "dnf" and fixed.choice_ is None and fixed.score(X, y) < 1.0


def test_exact_choice_is_the_final_model(monkeypatch):
    """On noise-free data the rule set found while choosing already fits every
    row, so the estimator keeps it instead of fitting again."""
    from rulekit.colgen import _select

    def no_second_fit(*args, **kw):
        raise AssertionError("the final fit should not run")

    monkeypatch.setattr(_select, "_final_fit", no_second_fit)
    X, y = load_tictactoe(return_X_y=True)
    clf = BooleanRuleCGClassifier().fit(X, y)
    assert clf.choice_.method == "exact" and clf.result_ is clf.choice_.result
    assert clf.score(X, y) == 1.0 and clf.certificate_.status == "optimal" and clf.certificate_.lower_bound == 0
    assert clf.complexity_ <= clf.max_complexity_ <= 32


def _sigint_on_call(monkeypatch, module, name, at):
    """Make ``module.name`` send this process a real SIGINT on its ``at``-th call.

    The signal arrives while the fit's run is open, as a Ctrl-C would;
    returns the list of calls, to see how much work followed it.
    """
    real = getattr(module, name)
    calls = []

    def wrapped(*args, **kw):
        calls.append(len(calls) + 1)
        if len(calls) == at:
            os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kw)

    monkeypatch.setattr(module, name, wrapped)
    return calls


def test_ctrl_c_while_choosing_stops_the_fit(monkeypatch):
    """A real SIGINT while "auto" is choosing stops everything at once (not
    just the inner fit it landed in) and leaves a usable, honest model: the
    majority class, with status "interrupted" for every class."""
    from rulekit.colgen import _search

    calls = _sigint_on_call(monkeypatch, _search, "beam_search", 3)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((150, 3)), columns=["a", "b", "c"])
    y = np.where(X.a + 0.3 * rng.random(150) > 0.6, "hi", "lo")
    y[:5] = "mid"
    with pytest.warns(ConvergenceWarning, match="interrupted"):
        clf = BooleanRuleCGClassifier().fit(X, y)
    # the beam call the signal landed in finishes; no round starts after it
    assert len(calls) == 3
    assert [r.status for r in clf.result_] == ["interrupted"] * 3 and clf.complexity_ == 0
    majority = pd.Series(y).value_counts().idxmax()
    assert (clf.predict(X) == majority).all()


def test_ctrl_c_in_the_final_fit_keeps_the_best_rule_set(monkeypatch):
    """A real SIGINT during the final fit's rounds: the rounds stop, the
    selection runs without the restricted IP, and the rule set found so far
    is the model."""
    from rulekit.colgen import _search

    calls = _sigint_on_call(monkeypatch, _search.ColumnGeneration, "round", 2)
    X, y = _ttt()
    with pytest.warns(ConvergenceWarning, match="interrupted"):
        clf = BooleanRuleCGClassifier(form="dnf", max_complexity=32, max_literals=3).fit(X, y)
    # the round the signal landed in is the last (its LP may stop at once)
    assert len(calls) == 2 and len(clf.trace_) in (1, 2)
    assert clf.certificate_.status == "interrupted" and clf.complexity_ > 0
    assert clf.score(X, y) > (y == pd.Series(y).value_counts().idxmax()).mean()


def test_auto_returns_the_empty_rule_set_when_nothing_generalises():
    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.random((300, 3)), columns=["a", "b", "c"])
    y = np.where(rng.random(300) < 0.25, "no", "yes")
    clf = BooleanRuleCGClassifier(complexity_grid=(0, 3, 6)).fit(X, y)
    assert clf.max_complexity_ == 0 and clf.complexity_ == 0
    assert clf.form_ == "cnf" and clf.certificate_.status == "optimal"   # empty CNF: always "yes"
    assert (clf.predict(X) == "yes").all()
    assert clf.certificate_.count(clf.certificate_.objective) == (y == "no").sum()
    assert clf.certificate_.objective == clf.certificate_.lower_bound == pytest.approx((y == "no").mean())
    assert clf.model_.complexity == 0


def test_bad_params():
    X, y = _ttt()
    with pytest.raises(ValueError, match="max_complexity"):
        BooleanRuleCGClassifier(max_complexity=1).fit(X, y)
    with pytest.raises(ValueError, match="form"):
        BooleanRuleCGClassifier(form="xnf").fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        BooleanRuleCGClassifier(class_weight="auto").fit(X, y)
    with pytest.raises(TypeError, match="settings"):
        BooleanRuleCGClassifier(settings={"lp_solver": "gurobi"}).fit(X, y)
    with pytest.raises(ValueError, match="complexity_grid"):
        BooleanRuleCGClassifier(complexity_grid=(1, 8)).fit(X, y)
    with pytest.raises(TypeError, match="random_state"):
        BooleanRuleCGClassifier(random_state="seed").fit(X, y)


def _tail_rule(n=400, seed=0):
    """Continuous columns; the label is ``x0 > t``, ``t`` the 95th percentile:
    a cut no decile gives (the nearest, the 90th, mislabels 5 % of rows)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["x0", "x1", "x2"])
    t = np.sort(X.x0.to_numpy())[int(0.95 * n) - 1]
    return X, (X.x0 > t).astype(int).to_numpy(), t


def test_auto_thresholds_keep_the_finer_cut_when_validation_needs_it():
    X, y, t = _tail_rule()
    auto = BooleanRuleCGClassifier().fit(X, y)
    assert auto.n_thresholds_ == 19 == auto.binarizer_.n_thresholds
    assert auto.score(X, y) == 1.0
    cut = [c for c in auto.binarizer_.conditions_ if c.feature == "x0" and c.op == ">"
           and c.value >= t and not np.any((X.x0 > t) != (X.x0 > c.value))]
    assert cut and cut[0] not in Binarizer(n_thresholds=9, negations=True).fit(X).conditions_
    deciles = BooleanRuleCGClassifier(n_thresholds=9).fit(X, y)
    assert deciles.n_thresholds_ == 9 and deciles.score(X, y) <= 0.96
    # the finer view only where validation runs anyway
    fixed = BooleanRuleCGClassifier(form="dnf", max_complexity=4).fit(X, y)
    assert fixed.n_thresholds_ == 9 and fixed.choice_ is None


def test_auto_thresholds_keep_the_deciles_when_finer_cuts_do_not_help():
    # integer columns with 10 values: both resolutions give the same conditions
    rng = np.random.default_rng(1)
    Xn = pd.DataFrame(rng.integers(0, 10, size=(300, 3)), columns=["a", "b", "c"])
    yn = ((Xn.a > 6) | (Xn.b < 2)).astype(int).to_numpy()
    clf = BooleanRuleCGClassifier().fit(Xn, yn)
    assert clf.n_thresholds_ == 9 and clf.score(Xn, yn) == 1.0
    # a multi-class problem keeps the deciles (one binarizer for every member)
    from sklearn.datasets import load_iris
    Xi, yi = load_iris(return_X_y=True, as_frame=True)
    assert BooleanRuleCGClassifier(complexity_grid=(0, 3, 4)).fit(Xi, yi).n_thresholds_ == 9


@pytest.mark.slow  # about 9 CPU s
def test_choice_does_not_depend_on_the_time_limit():
    """Two fits whose time limits differ tenfold (both complete) choose the same
    form and budget, with the same validation errors, and the same rule set:
    every fit made while choosing is bounded by work, not by a share of the
    clock."""
    from rulekit.datasets import load_heart

    X, y = load_heart(return_X_y=True)
    a = BooleanRuleCGClassifier(time_limit=600.0, random_state=3).fit(X, y)
    b = BooleanRuleCGClassifier(time_limit=6000.0, random_state=3).fit(X, y)
    assert a.choice_.stopped is None and b.choice_.stopped is None
    assert a.certificate_.status == b.certificate_.status != "time_limit"
    assert (a.form_, a.max_complexity_) == (b.form_, b.max_complexity_)
    assert a.choice_.errors == b.choice_.errors and len(a.choice_.errors) > 2
    assert a.model_.clauses == b.model_.clauses
    assert a.certificate_ == b.certificate_


def test_time_limit_returns_the_best_so_far_and_warns():
    """A limit far below what the fit needs: the fit stops at it with status
    time_limit, a rule set of the budget and a ConvergenceWarning."""
    X, y = _ttt()
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        clf = BooleanRuleCGClassifier(form="dnf", max_complexity=32, max_literals=3,
                                      time_limit=0.05).fit(X, y)
    cert = clf.certificate_
    assert cert.status == "time_limit" and cert.stopped_early
    assert clf.complexity_ <= 32
    assert cert.lower_bound is None or cert.lower_bound <= cert.objective


_CHILD = """
import sys, warnings
warnings.simplefilter("ignore")
from pulp.apis import coin_api
from rulekit import BooleanRuleCGClassifier
from rulekit.colgen import ColGenSettings
from rulekit.datasets import load_tictactoe

real, calls = coin_api.COIN_CMD.solve_CBC, []

def solve_cbc(self, lp, **kw):
    calls.append(1)
    if len(calls) == 3:               # tell the parent: CBC is about to run
        print("in cbc", flush=True)
    return real(self, lp, **kw)

coin_api.COIN_CMD.solve_CBC = solve_cbc
X, y = load_tictactoe(return_X_y=True)
# every master LP and every IP goes to a CBC subprocess
cbc = ColGenSettings(lp_solver="cbc", pricing_solver="cbc", mip_solver="cbc",
                     pricing="auto", restricted_mip=True)
clf = BooleanRuleCGClassifier(form="dnf", max_complexity=64, max_literals=6, settings=cbc,
                              time_limit=None).fit(X, y)
print(clf.certificate_.status, len(clf.trace_), len(calls), flush=True)
"""


@pytest.mark.slow  # a fit in a new process, with CBC subprocesses
def test_terminal_ctrl_c_reaches_cbc_and_the_fit_returns():
    """A terminal's Ctrl-C goes to the whole process group: Python and the CBC
    subprocess it waits for.  The fit must come back with its best rule set
    and status "interrupted", not a solver error or a traceback."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _CHILD], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout.readline().strip() == "in cbc"
    os.killpg(proc.pid, signal.SIGINT)       # the fit is waiting for CBC now
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    status, rounds, cbc_calls = out.split()
    # it stops in the round it was in: at most one more CBC call (the round's
    # pricing or the next LP may have started before the flag was seen)
    assert status == "interrupted" and int(rounds) <= 3 and int(cbc_calls) <= 4
    assert "Traceback" not in err
