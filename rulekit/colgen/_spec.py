"""How the rest of rulekit sees column generation: its learner specs (one per form)."""

from __future__ import annotations

from rulekit.learners import LearnerSpec, fit_timed

_ESTIMATOR = "rulekit.colgen:BooleanRuleCGClassifier"
_OPTIONS = {
    "max_complexity": ("--max-complexity", int, "column generation: clause+literal budget"),
    "max_literals": ("--max-literals", int, "column generation: literals per clause"),
}


def precompile() -> None:
    """Kernels the warm-up fit does not reach, for ``rulekit compile``: the certifying
    enumeration's lookahead search, the grouped master LP's clause sums and groups, and
    what the search reads from packed rows: their conversions to numbers, the beam's
    sums by byte value and a clause's rows (a fit meets them only when its enumeration
    is cut short, or above 50,000 distinct positive rows or rows)."""
    import numpy as np

    from rulekit.colgen._enum import enumerate_pricing
    from rulekit.colgen._grouped import _first_rows, _or_where_set, _sums
    from rulekit.colgen._packed import (PackedRows, float_rows, float_rows_at, rows_holding,
                                        signed_byte_sums)
    from rulekit.colgen._pricing import PricingProblem
    from rulekit.colgen._settings import ColGenSettings

    rng = np.random.default_rng(0)
    X = rng.random((40, 6)) < 0.5
    problem = PricingProblem(X, rng.normal(size=40), 0.1, 0.0, 0.0, 3)
    enumerate_pricing(problem, ColGenSettings(), ratio_target=-0.5, lookahead=True)
    _sums(rng.random(200), np.packbits(rng.random((3, 200)) < 0.5, axis=1), np.arange(3))
    _first_rows(np.zeros(3, dtype=np.int64), 1)
    _or_where_set(np.zeros(9, dtype=np.int64), np.packbits(rng.random(9) < 0.5), np.int64(2))
    packed = PackedRows.of_rows(X, np.arange(40))
    for dtype in (np.float32, np.float64):
        float_rows(packed, 0, 40, dtype)
        float_rows_at(packed, np.arange(5), dtype, np.empty((5, 6), dtype=dtype))
    # the beam's weights are float32 on packed rows (Float32Rows)
    r = rng.normal(size=40).astype(np.float32)
    signed_byte_sums(packed, None, r)
    rows_holding(packed, 2, rows_holding(packed, 1))


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
                precompile=precompile, demo=("tictactoe", demo), explore=True),
    LearnerSpec("cg-cnf", _ESTIMATOR, "CNF rule set, column generation", fixed={"form": "cnf"},
                options=_OPTIONS, explore=True),
    LearnerSpec("cg", _ESTIMATOR, "rule set, DNF or CNF chosen by validation, column generation",
                fixed={"form": "auto"}, options=_OPTIONS, explore=True),
)
