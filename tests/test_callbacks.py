"""callback= on every estimator, and the ready-made callbacks of rulekit.callbacks."""

import warnings

import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline

from rulekit import CorelsClassifier
from rulekit._anytime import Anytime, SearchState
from rulekit.callbacks import record, stop_at_gap
from rulekit.datasets import load_compas
from rulekit.learners import LEARNERS, warmup_data


@pytest.fixture(scope="module")
def compas():
    return load_compas(return_X_y=True)


def _state(best, bound, elapsed=1.0, learner="corels"):
    return SearchState(learner, elapsed, 10, best_objective=best, lower_bound=bound)


def test_stop_at_gap_reads_the_relative_gap():
    stop = stop_at_gap(0.01)
    assert stop(_state(0.30, 0.2971)) and not stop(_state(0.30, 0.29))
    assert stop(_state(0.30, 0.30)) and stop(_state(0.0, 0.0))
    assert not stop(_state(0.0, -0.1))     # a positive gap at objective 0 is infinite
    # no bound (a heuristic search) or no model yet: nothing to compare, never stops
    assert not stop(_state(0.3, None)) and not stop(_state(None, None))
    assert stop_at_gap(0)(_state(0.3, 0.3)) and not stop_at_gap(0)(_state(0.3, 0.2999))
    with pytest.raises(ValueError, match="gap"):
        stop_at_gap(-0.1)
    with pytest.raises(ValueError, match="gap"):
        stop_at_gap(float("nan"))


def test_corels_in_a_pipeline_stops_at_a_one_percent_gap(compas):
    X, y = compas
    # with max_card=1 and c=0.002 the search is within 1 % after about half a second and
    # proves its list after two or three: the callback stops it, unless the machine is
    # fast enough to prove optimality before its first report
    pipe = make_pipeline(CorelsClassifier(c=0.002, max_card=1, callback=stop_at_gap(0.01)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pipe.fit(X, y)
    cert = pipe[-1].certificate_
    assert cert.status in ("interrupted", "optimal"), cert
    assert cert.relative_gap <= 0.01
    stopped = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    if cert.status == "interrupted":
        assert cert.stopped_early and len(stopped) == 1 and "interrupted" in str(stopped[0].message)
    else:
        assert not stopped


def test_record_keeps_monotone_bounds_and_best_objectives(compas):
    X, y = compas
    rec = record()
    est = CorelsClassifier(c=0.002, max_card=1, callback=rec).fit(X, y)
    searches = rec.searches()
    assert len(searches) == 1 and len(rec.history) >= 2
    states = searches[0]
    assert all(isinstance(s, SearchState) and s.learner == "corels" for s in states)
    bounds = [s.lower_bound for s in states]
    best = [s.best_objective for s in states]
    assert all(a <= b + 1e-12 for a, b in zip(bounds, bounds[1:])), bounds
    assert all(a >= b - 1e-12 for a, b in zip(best, best[1:])), best
    # the last state is the search's end: its best list is the model
    assert best[-1] == pytest.approx(est.certificate_.objective)
    cols = rec.columns()
    assert cols["lower_bound"] == bounds and len(cols["gap"]) == len(states)


def test_record_splits_the_searches_of_a_fit():
    rec = record()
    for elapsed, learner in [(0.1, "corels"), (0.4, "corels"), (0.2, "corels"), (0.3, "corels"),
                             (0.5, "frl")]:
        rec(_state(0.3, 0.2, elapsed, learner))
    assert [len(s) for s in rec.searches()] == [2, 2, 1]


def test_every_run_numbers_its_states_and_says_how_deep_it_is():
    rec = record()
    with Anytime("fit", callback=rec) as fit:
        for _ in range(2):
            with Anytime("search", report_seconds=0.0) as run:
                for work in (1, 2):
                    run.report(run.state(work))
                with Anytime("inner", report_seconds=0.0) as inner:
                    inner.report(inner.state(1))
        fit.report(fit.state(9), force=True)
    ids = [s.search_id for s in rec.history]
    assert all(isinstance(i, int) for i in ids)
    # two searches with one nested search each, then the fit's own state: five runs
    assert len(set(ids)) == 5
    groups = rec.searches()
    assert [len(g) for g in groups] == [2, 1, 2, 1, 1]
    assert [g[0].learner for g in groups] == ["search", "inner", "search", "inner", "fit"]
    assert [g[0].depth for g in groups] == [1, 2, 1, 2, 0]
    assert all(len({s.search_id for s in g}) == 1 for g in groups)
    assert rec.columns()["depth"] == [1, 1, 2, 1, 1, 2, 0]


def test_the_searches_of_a_default_corels_fit_are_told_apart(compas):
    X, y = compas
    rec = record()
    CorelsClassifier(callback=rec).fit(X.iloc[:600], y[:600])
    groups = rec.searches()
    # the regularization path and its cross-validation: many searches, each inside the fit
    assert len(groups) > 1
    assert len({g[0].search_id for g in groups}) == len(groups)
    assert all(s.depth >= 1 for g in groups for s in g)
    for g in groups:           # within one search, time and work only grow
        assert all(a.elapsed <= b.elapsed and a.work <= b.work for a, b in zip(g, g[1:]))


def test_record_can_carry_a_stop_and_sees_the_last_state():
    rec = record(stop_at_gap(0.05))
    assert not rec(_state(0.3, 0.2)) and rec(_state(0.3, 0.29))
    assert len(rec.history) == 2
    assert repr(rec) == "record(stop_at_gap(0.05))"


def test_an_outer_runs_callback_sees_the_inner_runs_states():
    outer_seen, inner_seen = [], []
    with Anytime("outer", callback=lambda s: outer_seen.append(s) or True):
        with Anytime("inner", callback=inner_seen.append, report_seconds=0.0) as run:
            assert run.report(run.state(5, best_objective=1.0)) == "interrupted"
    assert [s.learner for s in outer_seen] == ["inner"] and inner_seen == outer_seen


@pytest.mark.parametrize("callback", [stop_at_gap(0.01), record(), None])
def test_clone_and_get_params_keep_the_callback(callback):
    est = CorelsClassifier(c=0.01, callback=callback)
    assert est.get_params()["callback"] is callback
    copy = clone(est)
    assert type(copy.callback) is type(callback)
    if isinstance(callback, record):
        assert copy.callback is not callback and copy.callback.history == []
    if isinstance(callback, stop_at_gap):
        assert copy.callback.gap == callback.gap
    pipe = clone(make_pipeline(est))
    assert type(pipe[-1].callback) is type(callback)


@pytest.mark.parametrize("name", ["frl", "softfrl", "cg-dnf"])
def test_every_learner_passes_its_callback_to_its_searches(name):
    X, y = warmup_data()
    rec = record(lambda state: True)    # stop at the first report
    spec = LEARNERS[name]
    est = spec.make(**spec.warmup, callback=rec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    # the first report always reaches the callback; a search that finished in its
    # first step ends with its own status, any other one was stopped
    assert rec.history and {s.learner for s in rec.history} <= {"frl", "colgen"}
    assert est.certificate_.status in ("interrupted", "heuristic", "optimal_relative", "optimal",
                                       "feasible")


def test_a_bad_callback_is_refused(compas):
    X, y = compas
    with pytest.raises(TypeError, match="callback"):
        CorelsClassifier(callback="stop").fit(X.iloc[:50], y.iloc[:50])


def test_stop_at_gap_on_the_command_line(tmp_path, compas, capsys):
    from rulekit import cli

    X, y = compas
    path = tmp_path / "compas.csv"
    X.assign(outcome=y).iloc[::3].to_csv(path, index=False)
    argv = ["fit", str(path), "--target", "outcome", "--model", "corels", "--corels-c", "0.01",
            "--max-card", "1", "--stop-at-gap", "0.05"]
    options = cli._options(cli.build_parser().parse_args(argv))
    assert isinstance(options["callback"], stop_at_gap) and options["callback"].gap == 0.05
    assert cli.main(argv) == 0
    assert "certificate: " in capsys.readouterr().out
