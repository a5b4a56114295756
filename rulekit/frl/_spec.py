"""How the rest of rulekit sees the falling rule lists: their learner specs."""

from __future__ import annotations

from rulekit.learners import LearnerSpec, fit_timed

def weight(text: str):
    """``--w``: a number, or ``balanced`` (the negative-to-positive ratio)."""
    import argparse

    if text == "balanced":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'balanced', got {text!r}") from None


#: options the two falling-rule-list learners share
_OPTIONS = {
    "w": ("--w", weight, "falling rule lists: weight of a missed positive (parameter w), "
                         "a number or 'balanced'"),
    "C": ("--frl-c", float, "falling rule lists: penalty per rule (parameter C)"),
    "n_iter": ("--n-iter", int, "falling rule lists: Monte-Carlo iterations"),
}


def demo() -> None:
    """``rulekit demo bank``: the falling rule list of the paper's bank-marketing setting."""
    from rulekit import datasets
    from rulekit.estimators.frl import FallingRuleListClassifier

    X, y = datasets.load_bank_marketing(discretized=True, return_X_y=True)
    print(f"bank marketing (discretized as in the falling-rule-list paper): {X.shape[0]} calls, "
          f"{int(y.sum())} subscriptions (1)\n")
    est = FallingRuleListClassifier(w=7.0, C=1e-6, n_iter=3000, min_support=0.1, max_card=2, random_state=0)
    cpu = fit_timed(est, X, y)
    print(f"FallingRuleListClassifier(w=7, C=1e-6, n_iter=3000): {len(est.antecedents_)} antecedents, "
          f"{cpu:.1f} CPU s\n")
    print(est)
    print(f"\nobjective {est.certificate_.objective:.6f} (weighted risk + C x rules); a row is predicted 1 when its "
          f"rule's probability exceeds 1/(1+w) = {est.threshold_:.3f}")


_WARMUP = {"n_iter": 30, "min_support": 0.05, "random_state": 0}

SPECS = (
    LearnerSpec("frl", "rulekit.frl:FallingRuleListClassifier", "falling rule list",
                options=_OPTIONS, warmup=_WARMUP, demo=("bank", demo), explore=True),
    LearnerSpec("softfrl", "rulekit.frl:SoftFallingRuleListClassifier",
                "softly falling rule list",
                options={**_OPTIONS, "C1": ("--frl-c1", float, "softly falling rule lists: "
                                                               "monotonicity penalty (parameter C1)")},
                warmup=_WARMUP, explore=True),
)
