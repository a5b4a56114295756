"""How the rest of rulekit sees column generation: its learner specs (one per form)."""

from __future__ import annotations

from rulekit.learners import LearnerSpec, fit_timed

_ESTIMATOR = "rulekit.colgen:BooleanRuleCGClassifier"
_OPTIONS = {
    "max_complexity": ("--max-complexity", int, "column generation: clause+literal budget"),
    "max_literals": ("--max-literals", int, "column generation: literals per clause"),
}


def demo() -> None:
    """``rulekit demo tictactoe``: a DNF rule set for the tic-tac-toe endgames."""
    from rulekit import datasets
    from rulekit.estimators.colgen import BooleanRuleCGClassifier

    X, y = datasets.load_tictactoe(return_X_y=True)
    print(f"tic-tac-toe endgames: {X.shape[0]} boards, x wins in {int((y == 'positive').sum())}\n")
    est = BooleanRuleCGClassifier(form="dnf", max_complexity=32, max_literals=3, time_limit=120)
    cpu = fit_timed(est, X, y)
    print(f"BooleanRuleCGClassifier(form='dnf', max_complexity=32, max_literals=3): "
          f"{len(est.binarizer_.conditions_)} conditions, {cpu:.1f} CPU s\n")
    print(est)
    cert = est.certificate_
    print(f"\n{cert.summary()}\ncomplexity {est.complexity_}, "
          f"training accuracy {est.score(X, y):.4f}")


SPECS = (
    # the three forms share their kernels: one warm-up compiles them all
    LearnerSpec("cg-dnf", _ESTIMATOR, "DNF rule set, column generation", fixed={"form": "dnf"},
                options=_OPTIONS, warmup={"max_complexity": 8, "max_literals": 3},
                demo=("tictactoe", demo), explore=True),
    LearnerSpec("cg-cnf", _ESTIMATOR, "CNF rule set, column generation", fixed={"form": "cnf"},
                options=_OPTIONS, explore=True),
    LearnerSpec("cg", _ESTIMATOR, "rule set, DNF or CNF chosen by validation, column generation",
                fixed={"form": "auto"}, options=_OPTIONS, explore=True),
)
