"""What the column-generation engine returns: the rule set, its certificate, the trace."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from rulekit._patterns import PackedBits
from rulekit._columns import plain as _plain
from rulekit.certificate import Certificate
from rulekit.evaluate import cnf_holds, dnf_holds


@dataclass(frozen=True)
class IterationRecord:
    """One column-generation round.

    Attributes
    ----------
    iteration : int
    rmlp : float
        Value of the restricted master LP.
    dual_value : float
        ``sum(mu) - C * lam`` (equals ``rmlp`` by strong duality).
    bound : float or None
        Early-termination (Lagrangian) lower bound of this round, when the
        pricing produced a valid bound on the minimum reduced cost.
    n_added : int
        Columns added this round.
    pricing : str
        Which pricing produced this round's columns (or its certificate):
        ``"beam"``, ``"enum"`` (exact branch-and-bound), ``"ip"``,
        ``"ip-sampled"`` or ``"none"`` (RMLP already 0).  A run ended by
        its own rule after a beam round closes with one more record: the
        master LP solved again and priced by the enumeration for the
        bound alone (``n_added`` 0).
    best_rc : float or None
        Most negative exact reduced cost among checked candidates.
    time : float
        Seconds since the start of the run.
    n_columns : int
        Columns in the master after this round.
    lam : float
        Budget-row dual.
    duals : ndarray or None
        Per-sample cover duals (only with ``record_duals=True``; zero for
        negatives; for CNF they refer to the negated problem).
    """

    iteration: int
    rmlp: float
    dual_value: float
    bound: float | None
    n_added: int
    pricing: str
    best_rc: float | None
    time: float
    n_columns: int
    lam: float
    duals: np.ndarray | None = None


SCOPE = ("{form} rule sets ({shape}) within the budget; objective = weighted Hamming loss "
         "({loss}) + penalties")

#: What a rule set of each form is, and its Hamming loss (Dash, Günlük and Wei, §2.1):
#: the loss the master LP and the lower bound are about.  A CNF is learnt as the DNF
#: of the complemented conditions for the other class, whose loss reads as below.
FORM_WORDS = {
    "dnf": ("an OR of ANDs of conditions",
            "each positive no clause covers, plus each negative once per clause covering it"),
    "cnf": ("an AND of ORs of conditions",
            "each negative every clause accepts, plus each positive once per clause it fails"),
}

#: How :class:`~rulekit.colgen.BudgetChoice` methods chose, in words.
CHOICE_WORDS = {
    "exact": "as the first budget of the validation path whose rule set fits every row",
    "cv": "by {folds}-fold validation{on} along a path of budgets (one-standard-error rule)",
    "probe": "by short runs of each form compared on their training objective",
    "largest": "as the largest budget of the grid",
}


@dataclass(frozen=True)
class ColGenResult:
    """Outcome of :func:`rulekit.colgen.search`.

    Attributes
    ----------
    clauses : tuple of tuple of int
        Selected clauses as sorted condition indices.  DNF: each clause is a
        conjunction and the model is their OR.  CNF: each clause is a
        *disjunction* of the original conditions and the model is their AND.
    form : {"dnf", "cnf"}
    objective : float
        Hamming loss (weighted) plus penalties of the returned rule set.
    lower_bound : float or None
        Proven lower bound on the optimal objective over all rule sets within
        the budget; None when pricing was sampled (nothing is proved).
    status : str
        In the shared vocabulary (:mod:`rulekit.certificate`): ``"optimal"``
        (the objective meets the bound), ``"feasible"`` (column generation
        stopped by its own rule: no improving clause found, or its round
        limit; the bound is valid), ``"heuristic"`` (sampled pricing, no
        bound), ``"time_limit"`` or ``"interrupted"``.
    trace : tuple of IterationRecord
    complexity : int
        Number of clauses plus number of literals.
    constant : int or None
        When the training labels had a single class, the prediction (0 or 1)
        of the trivial rule set returned.
    lp_value : float or None
        Last restricted master LP value (the master LP's value when proven).
    n_columns : int
        Number of generated columns.
    lp_proven : bool
        True when the master LP was proven optimal over *all* clauses.
    columns : tuple of tuple of int
        Every clause generated (to seed another run: ``search(columns=...)``).
    """

    clauses: tuple
    form: str
    objective: float
    lower_bound: float | None
    status: str
    trace: tuple
    complexity: int
    constant: int | None = None
    lp_value: float | None = None
    n_columns: int = 0
    lp_proven: bool = False
    columns: tuple = field(default=(), repr=False)

    @property
    def certificate(self) -> Certificate:
        """The claim in the shared vocabulary."""
        shape, loss = FORM_WORDS[self.form]
        return Certificate(self.status, self.objective, self.lower_bound,
                           SCOPE.format(form=self.form.upper(), shape=shape, loss=loss))

    def predict(self, B) -> np.ndarray:
        """Predictions (0/1) of the rule set on a boolean condition matrix."""
        return predict_clauses(self.clauses, self.form, B, self.constant)


def predict_clauses(clauses, form, B, constant=None) -> np.ndarray:
    """Evaluate a DNF (OR of ANDs) or CNF (AND of ORs) on ``B``."""
    if not isinstance(B, PackedBits):    # packed rows are read a block at a time
        B = np.asarray(B, dtype=bool)
    if constant is not None:
        return np.full(B.shape[0], int(constant), dtype=np.int64)
    return (dnf_holds if form == "dnf" else cnf_holds)(B, clauses).astype(np.int64)


def empty_result(y, sample_weight, form) -> ColGenResult:
    """The rule set with no clauses (complexity 0), as a :class:`ColGenResult`.

    An empty DNF predicts 0 everywhere and an empty CNF predicts 1, so its
    loss is the weight of the other class.  Being the only rule set of
    complexity 0 it is optimal at that budget, which the bound records.
    """
    y = np.asarray(y).astype(np.int64)
    w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    loss = float(w[y == (1 if form == "dnf" else 0)].sum())
    return ColGenResult(clauses=(), form=form, objective=loss, lower_bound=loss,
                        status="optimal", trace=(), complexity=0)


def estimator_certificate(fits, labels, *, n, unit, n_conditions, lambda0=0.0, lambda1=0.0,
                          folds=3, hash_folds=False) -> Certificate:
    """The estimator's certificate: the engines' claims as rates, in words that fit the problem.

    Parameters
    ----------
    fits : list of BinaryFit
        One per binary problem solved (one for a two-class target, one per
        class otherwise), each with its result, form, budget and choice.
    labels : list or None
        The class each fit separates from the rest (None: a two-class target).
    n : float
        Total weight of the training rows (the row count when unweighted):
        the engines' objectives are counts, divided by it here.
    unit : str
        What ``n`` counts (``"rows"`` or ``"units of weight"``).
    n_conditions : int
        Binarized conditions the rule sets are built from.
    lambda0, lambda1 : float
        Penalties per clause and per literal (named when not 0).
    folds : int
        Inner folds of the validation (named when it chose).
    hash_folds : bool
        The folds are the hash folds of counted data (``docs/streaming.md``).

    Returns
    -------
    Certificate
        Objective and lower bound per row (``n`` kept for the counts);
        the scope names the form, the complexity budget and how they were
        chosen, and, for one-vs-rest, that the objective adds the problems.
    """
    def how(fit):
        if fit.choice is None or fit.choice.method not in CHOICE_WORDS:
            return "as given"
        return "chosen " + CHOICE_WORDS[fit.choice.method].format(
            folds=folds, on=" on hash folds" if hash_folds else "")

    per = "row" if unit == "rows" else "unit of weight"
    mistakes = ("weighted mistakes" if unit != "rows" else "mistakes")
    penalty = "" if lambda0 == 0 and lambda1 == 0 else (
        f" + ({lambda0:g} x clauses + {lambda1:g} x literals) / N")
    # what each form is and the loss its bound is about, once per form used
    forms = "; ".join(f"a {f.upper()} is {FORM_WORDS[f][0]}, its loss counts "
                      f"{FORM_WORDS[f][1]}" for f in dict.fromkeys(fit.form for fit in fits))
    hamming = "weighted Hamming loss" if unit != "rows" else "Hamming loss"
    loss = f"{forms}; it is the {mistakes} unless two clauses count one row"
    if labels is None:
        (fit,) = fits
        scope = (f"{fit.form.upper()} rule sets of complexity (clauses + literals) at most "
                 f"{fit.max_complexity} (form and budget {how(fit)}) over the {n_conditions} "
                 f"binarized conditions; objective = {hamming} / N{penalty} (a rate per "
                 f"{per}; N = {n:.6g} {unit}; {loss})")
        return dataclasses.replace(fit.result.certificate.per(n, unit), scope=scope)
    members = "; ".join(f"class {_plain(label)!r}: {fit.form.upper()} of complexity at most "
                        f"{fit.max_complexity}" for fit, label in zip(fits, labels))
    ways = list(dict.fromkeys(how(fit) for fit in fits))
    chosen = (f"forms and budgets {ways[0]}" if len(ways) == 1 else
              "forms and budgets " + "; ".join(f"{how(fit)} for class {_plain(label)!r}"
                                               for fit, label in zip(fits, labels)))
    scope = (f"one rule set per class, each against the rest (one-vs-rest; complexity = "
             f"clauses + literals; {members}; {chosen}) over the {n_conditions} binarized "
             f"conditions; objective = the {len(fits)} rule sets' {hamming}es added up / N"
             f"{penalty} (a row misjudged by two of them counts twice; N = {n:.6g} {unit}; "
             f"{loss}); the lower bound adds theirs")
    return Certificate.combine([f.result.certificate for f in fits], scope).per(n, unit)

