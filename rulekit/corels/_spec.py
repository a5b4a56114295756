"""How the rest of rulekit sees CORELS: its :class:`~rulekit.learners.LearnerSpec`."""

from __future__ import annotations

from rulekit.learners import LearnerSpec, fit_timed

from ._state import compile_growth_kernels


def demo() -> None:
    """``rulekit demo compas``: every default on the COMPAS data, with its certificate."""
    from rulekit import datasets
    from rulekit.estimators.corels import CorelsClassifier

    X, y = datasets.load_compas(return_X_y=True)
    print(f"compas: {X.shape[0]} people, {X.shape[1]} features "
          f"({', '.join(X.columns)}); {int(y.sum())} re-offended within two years (1)\n")
    est = CorelsClassifier()  # every default: what a new user gets
    cpu = fit_timed(est, X, y)
    sel = est.selection_
    certified = sum(row[2] == "optimal" for row in sel.path)
    print(f"CorelsClassifier(): {len(est.binarizer_.conditions_)} conditions, "
          f"{len(est.antecedents_)} antecedents; {len(sel.path)} searches along the "
          f"regularization path ({certified} certified), c = {est.c_:g} (max_card "
          f"{est.max_card_}) chosen by cross-validation; {cpu:.1f} CPU s\n")
    print(est)
    cert = est.certificate_
    verdict = "certified optimal" if cert.proved_optimal else f"NOT certified ({cert.status})"
    print(f"\n{verdict}: objective {cert.objective:.6f} = mistakes / N + {est.c_:g} x rules, "
          f"lower bound {cert.lower_bound:.6f}, over {cert.scope}")
    print(f"training accuracy {est.score(X, y):.4f}")


def precompile() -> None:
    """Kernels the warm-up fit does not reach, for ``rulekit compile``: the growth
    kernels, and the search's recording specialization (``trace="events"``: the
    explorer's replay and the event log), which numba compiles apart (about 40 CPU s)."""
    import warnings

    from rulekit.estimators.corels import CorelsClassifier
    from rulekit.learners import warmup_data

    compile_growth_kernels()
    X, y = warmup_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # a tiny problem: not news here
        CorelsClassifier(c=0.05, max_card=2, trace="events").fit(X, y)


SPEC = LearnerSpec(
    "corels", "rulekit.corels:CorelsClassifier", "certifiably optimal rule list",
    options={"c": ("--corels-c", float, "CORELS: penalty per rule (parameter c)"),
             "max_nodes": ("--max-nodes", int, "CORELS: node limit")},
    warmup={"c": 0.05, "max_card": 2},
    # a small fit never fills the permutation map, nor records a search: compiled apart
    precompile=precompile,
    demo=("compas", demo),
    explore=True,
)
