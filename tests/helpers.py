"""Test helpers shared across the test folders (on pytest's pythonpath)."""

import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator


def seeds(n: int, fast: int) -> list:
    """``range(n)`` for ``pytest.mark.parametrize``: the first ``fast`` seeds run in the
    fast lane, the others are marked slow.  The same check on more random instances
    adds confidence, not a new path; the two lanes together still run every seed
    (the ids stay ``[0]``, ``[1]``, ...)."""
    return [pytest.param(seed, marks=() if seed < fast else pytest.mark.slow)
            for seed in range(n)]


def _check_name(check) -> str:
    func = getattr(check, "func", check)
    return func.__name__


#: scikit-learn's checks that fit many times over (the slow lane; about 48 CPU s of the
#: suite's checks together, measured under load, the rest of the checks about 30)
SLOW_CHECKS = {"check_classifiers_train", "check_dtype_object", "check_supervised_y_2d"}


def sklearn_checks(*estimators, expected_failed_checks=None, slow_checks=()):
    """``pytest.mark.parametrize`` over sklearn's estimator checks.

    Like ``parametrize_with_checks`` but leaves out the array-API checks,
    which only run when SciPy's experimental array API mode is switched on
    and would otherwise show up as skipped tests.  ``expected_failed_checks``
    maps a check name to the reason it is known to fail, or is a function of
    the estimator returning such a dict (scikit-learn's convention); the
    checks are marked by scikit-learn itself, as strict xfail: the test
    fails if the check starts passing.  The checks named in ``SLOW_CHECKS``
    are marked slow, and so are those named in ``slow_checks`` (for these
    estimators only: a learner whose every fit is dearer moves more of its checks).
    """
    def expected(est) -> dict:
        if callable(expected_failed_checks):
            return expected_failed_checks(est)
        return expected_failed_checks or {}

    cases = []
    for est in estimators:
        for item in estimator_checks_generator(est, expected_failed_checks=expected(est),
                                               mark="xfail", xfail_strict=True):
            # a check expected to fail comes as a pytest.param carrying its mark
            (est_, check), marks = (item.values, item.marks) if hasattr(item, "marks") \
                else (item, ())
            if "array_api" in _check_name(check):
                continue
            if _check_name(check) in SLOW_CHECKS or _check_name(check) in slow_checks:
                marks = (*marks, pytest.mark.slow)
            cases.append(pytest.param(est_, check, marks=marks,
                                      id=f"{type(est_).__name__}-{_check_name(check)}"))
    return pytest.mark.parametrize("estimator,check", cases)


def check_learner_contract(spec) -> None:
    """What every registered learner promises (``rulekit.learners.LearnerSpec``).

    Its estimator declares exactly its ``get_params()`` (the defaults
    satisfying their own declaration), takes the shared ``callback``, and
    its spec's fixed parameters, warm-up parameters and options name
    parameters the estimator has.
    """
    from rulekit._params import validate

    est = spec.make()
    name = f"{spec.name} ({type(est).__name__})"
    params = est.get_params(deep=False)
    assert set(est._rulekit_parameters) == set(params), name
    validate(est._rulekit_parameters, params, name)
    assert "callback" in params, f"{name}: every estimator takes callback="
    for table in (spec.fixed, spec.warmup or {}, spec.options):
        assert set(table) <= set(params), f"{name}: {sorted(set(table) - set(params))}"
    if spec.demo is not None:
        assert callable(spec.demo[1]), name


import os  # noqa: E402
from pathlib import Path  # noqa: E402

#: The project's shared data folder (beside the repository, as in CI); tests
#: read it only where the package's own copy is not the thing under test.
SHARED_DATA = Path(os.environ.get(
    "RULEKIT_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def feature_shares(models, B, conditions):
    """Each list's share of rows decided by a rule testing each feature, by hand.

    For the Rashomon set's importance ranges: walks every list's rules over the
    binarized rows ``B`` (first rule whose conditions all hold captures the
    row).  Returns ``(features, shares, tests)``: the feature names in
    condition order, a lists x features array of shares and a boolean array
    saying which list has a rule testing which feature.
    """
    import numpy as np

    features = list(dict.fromkeys(c.feature for c in conditions))
    shares = np.zeros((len(models), len(features)))
    tests = np.zeros(shares.shape, dtype=bool)
    for i, model in enumerate(models):
        free = np.ones(B.shape[0], dtype=bool)
        for rule in model.rules:
            fires = free & np.all(B[:, list(rule.conditions)], axis=1)
            for f in {conditions[j].feature for j in rule.conditions}:
                shares[i, features.index(f)] += fires.sum() / B.shape[0]
                tests[i, features.index(f)] = True
            free &= ~fires
    return features, shares, tests


def run_cli(*args):
    """``rulekit ARGS`` run in this process, as ``python -m rulekit.cli ARGS`` would run.

    Calls ``rulekit.cli.main(argv)`` with standard output and error captured,
    and returns a ``subprocess.CompletedProcess`` (``returncode``, ``stdout``,
    ``stderr``) like the subprocess it stands for.  argparse ends ``--help``
    and usage errors with ``SystemExit``; its code is the exit status.  A new
    Python process per command costs seconds of imports (and, under load,
    tens); the few tests of what only a real process shows (a closed pipe,
    the on-disk kernel cache, output written by C code) still start one and
    are marked slow.
    """
    import contextlib
    import io
    import subprocess

    from rulekit.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
            status = 0 if status is None else status  # as sys.exit(None)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess(["rulekit", *argv], status, out.getvalue(), err.getvalue())


def rule_set_losses(est, X, y) -> tuple:
    """Column generation's objective, recounted from a fitted estimator's rule sets on rows.

    Returns ``(loss, counts)``: the Hamming loss its certificate reports (added over
    the members of a one-vs-rest model), straight from the definition: a DNF counts a
    positive row no clause covers once and a negative row once per clause that covers
    it; a CNF, a DNF of the other class, counts a negative row on which every clause
    holds once and a positive row once per clause that fails.  ``counts`` holds each
    member's ``(counts_true, counts_false)`` as printed, recounted the same way.
    """
    import numpy as np

    B = est.binarizer_.transform(X)
    y = np.asarray(y)
    two = len(est.classes_) == 2
    members = [est.model_] if two else est.model_.members
    targets = [est.classes_[1]] if two else list(est.classes_)
    loss, counts = 0, []
    for member, label in zip(members, targets):
        positive = y == label
        if member.form == "dnf":
            per = np.array([B[:, list(c)].all(axis=1) for c in member.clauses]).reshape(-1, len(y))
            loss += int((positive & ~per.any(axis=0)).sum() + per[:, ~positive].sum())
        else:
            per = np.array([~B[:, list(c)].any(axis=1) for c in member.clauses]).reshape(-1, len(y))
            loss += int((~positive & ~per.any(axis=0)).sum() + per[:, positive].sum())
        holds = member.holds(B).astype(bool)
        counts.append(((int((holds & ~positive).sum()), int((holds & positive).sum())),
                       (int((~holds & ~positive).sum()), int((~holds & positive).sum()))))
    return loss, counts


def load_benchmark(name: str):
    """A script of ``benchmarks/`` loaded as a module (that folder is not a package)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
