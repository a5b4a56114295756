"""What a fitted learner proves about its model: one type for every learner.

Every engine returns, and every estimator exposes as ``certificate_``, a
:class:`Certificate`: the objective of the returned model, a lower bound on
the best objective any model in the search space could reach (where the
method has one), the status that ended the search, and the scope of the
claim in words.  ``compare_models``, the command line and the plots read
only this.

Statuses (one vocabulary for all learners):

``optimal``
    No model in the search space has a lower objective; ``scope`` says what
    the search space is (e.g. every rule list over the antecedents mined at
    support ``c``).
``optimal_relative``
    Optimal within a narrower space that the user chose or a reference model
    fixed (mined antecedents above the support the theory allows, lists no
    better than a reference on the samples they leave uncaptured...).
    ``scope`` states the condition.
``feasible``
    The method stopped by its own rule (column generation's master LP is
    solved but the rule set is not proved optimal); the lower bound and gap
    are valid.
``time_limit``, ``node_limit``, ``work_limit``, ``memory_limit``, ``interrupted``
    A limit (or Ctrl-C, or a callback) stopped the search; the model is the
    best found so far and the lower bound, where there is one, is still
    valid.
``heuristic``
    The search proves nothing about its model (Monte-Carlo search, sampled
    pricing); ``lower_bound`` is None.
``infeasible``
    User constraints admit no model at all.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

__all__ = ["Certificate", "STATUSES", "LIMIT_STATUSES", "relative_gap"]

#: Every status a certificate may carry, with what it means.
STATUSES = {
    "optimal": "proved optimal over the search space",
    "optimal_relative": "proved optimal within a stated narrower space",
    "feasible": "stopped by the method's own rule, with a valid bound",
    "time_limit": "stopped at the time limit",
    "node_limit": "stopped at the node limit",
    "work_limit": "stopped when its work budget was spent",
    "memory_limit": "stopped at the memory limit",
    "interrupted": "stopped by Ctrl-C or a callback",
    "heuristic": "a heuristic search: nothing is proved",
    "infeasible": "the constraints admit no model",
}
#: Statuses that mean a limit ended the search early (estimators warn).
LIMIT_STATUSES = frozenset({"time_limit", "node_limit", "work_limit", "memory_limit",
                            "interrupted"})


def relative_gap(objective: float, lower_bound: float) -> float:
    """``(objective - lower_bound) / |objective|``: the gap as a share of the objective.

    Unitless, so one threshold means the same for every learner.  0 when
    the bound meets the objective, ``inf`` for a positive gap at objective 0.

    Parameters
    ----------
    objective : float
    lower_bound : float

    Returns
    -------
    float
    """
    gap = max(0.0, objective - lower_bound)
    if gap == 0:
        return 0.0
    return math.inf if objective == 0 else gap / abs(objective)


def _check_count(n) -> float:
    """``n`` as a float, when it is a positive finite count of rows (or of weight)."""
    value = float(n)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"certificate n must be a positive count, got {n!r}")
    return value


def _percent(share: float) -> str:
    """A relative gap as a percentage with three significant digits."""
    return "inf %" if math.isinf(share) else f"{100 * share:.3g} %"


@dataclass(frozen=True)
class Certificate:
    """The claim a search makes about the model it returns.

    Parameters
    ----------
    status : str
        One of :data:`STATUSES`.
    objective : float
        Objective of the returned model, in the learner's own units (see
        ``scope``); ``nan`` when there is no model (``infeasible``).
    lower_bound : float or None
        No model of the search space scores below it; None when the method
        has no bound.  Equals ``objective`` when ``status`` is ``optimal``
        or ``optimal_relative``.
    scope : str
        What the objective is and over which models the claim holds.
    n : float or None
        The count the objective is a rate of: every estimator states its
        objective per training row (CORELS: mistakes / N + c x rules; column
        generation: weighted mistakes / total weight), and ``n`` is that N,
        so ``objective * n`` is the objective as a count (shown beside the
        rate).  None when the objective is not a rate (an engine's raw
        result).
    unit : str
        What ``n`` counts: ``"rows"``, or ``"units of weight"`` when sample
        or class weights make the rows count unequally.

    Attributes
    ----------
    gap : float or None
        ``objective - lower_bound`` (0 when proved optimal), None without a
        bound; in the objective's units: a rate per row when ``n`` is set
        (``gap * n`` rows).
    relative_gap : float or None
        ``gap / |objective|`` (0 when the gap is 0, ``inf`` for a positive gap
        at objective 0): unitless, so it compares across learners.  ``str()``
        shows it beside the gap.
    proved_optimal : bool
        True for ``optimal`` and ``optimal_relative``.
    stopped_early : bool
        True when a limit, Ctrl-C or a callback ended the search.
    """

    status: str
    objective: float
    lower_bound: float | None = None
    scope: str = ""
    n: float | None = None
    unit: str = "rows"

    def __post_init__(self):
        if self.n is not None:
            object.__setattr__(self, "n", _check_count(self.n))
        if self.status not in STATUSES:
            raise ValueError(f"certificate status must be one of {sorted(STATUSES)}, "
                             f"got {self.status!r}")
        object.__setattr__(self, "objective", float(self.objective))
        if self.lower_bound is not None:
            lb = float(self.lower_bound)
            if self.proved_optimal:
                lb = self.objective
            elif lb > self.objective:
                # a bound above the model's own objective would be a false claim
                raise ValueError(f"lower bound {lb!r} exceeds the objective {self.objective!r}")
            object.__setattr__(self, "lower_bound", lb)
        elif self.proved_optimal:
            object.__setattr__(self, "lower_bound", self.objective)

    @property
    def proved_optimal(self) -> bool:
        return self.status in ("optimal", "optimal_relative")

    @property
    def stopped_early(self) -> bool:
        return self.status in LIMIT_STATUSES

    @property
    def gap(self) -> float | None:
        if self.lower_bound is None or math.isnan(self.objective):
            return None
        return max(0.0, self.objective - self.lower_bound)

    @property
    def relative_gap(self) -> float | None:
        if self.gap is None:
            return None
        return relative_gap(self.objective, self.lower_bound)

    def restricted_to(self, scope: str) -> "Certificate":
        """The same claim, stated over a narrower space than the engine searched.

        An engine proves its model optimal over the matrix it was given; when
        the estimator chose that matrix without a theorem saying the choice
        loses nothing (antecedents mined above the support the theory
        allows), the proof holds only within the choice.  The returned
        certificate says so: ``optimal`` becomes ``optimal_relative``, every
        other status stays, and ``scope`` is replaced.

        Parameters
        ----------
        scope : str
            The narrower space and the objective, in words.

        Returns
        -------
        Certificate
        """
        status = "optimal_relative" if self.status == "optimal" else self.status
        return dataclasses.replace(self, status=status, scope=scope)

    def per(self, n: float, unit: str = "rows") -> "Certificate":
        """The same claim with objective and bound divided by ``n``: rates per row.

        For an engine whose objective is a count (column generation's
        weighted mistakes); ``n`` is kept, so the counts can still be shown.

        Parameters
        ----------
        n : float
            Rows (or total weight) the count is over.
        unit : str
            What ``n`` counts.

        Returns
        -------
        Certificate
        """
        n = _check_count(n)
        lower = None if self.lower_bound is None else self.lower_bound / n
        return dataclasses.replace(self, objective=self.objective / n, lower_bound=lower,
                                   n=n, unit=unit)

    def rate_of(self, n: float, unit: str = "rows") -> "Certificate":
        """The same claim, recording that its objective is already a rate over ``n`` rows."""
        return dataclasses.replace(self, n=n, unit=unit)

    def count(self, value: float | None) -> float | None:
        """``value * n``: an objective, bound or gap of this certificate as a count (None without ``n``)."""
        if value is None or self.n is None:
            return None
        return value * self.n

    def cut_short(self, status: str) -> "Certificate":
        """The claim when a limit stopped the work before the search (binarization, mining).

        The engine searched what was done by then (the columns binarized,
        the antecedents mined): its proof and bound hold for that part only,
        which is not the problem asked.  The returned certificate has the
        limit's ``status`` and the one bound valid for every learner's
        objective, 0 (each objective is a loss plus penalties, never
        negative); ``scope`` says what happened.

        Parameters
        ----------
        status : str
            The limit: ``"time_limit"`` or ``"interrupted"``.

        Returns
        -------
        Certificate
        """
        if self.status == "infeasible" or math.isnan(self.objective):
            return self
        scope = ("the part of the data binarized and mined before the limit (the search "
                 "saw only that part: its proof does not hold for the problem asked); "
                 + self.scope)
        return dataclasses.replace(self, status=status,
                                   lower_bound=0.0 if self.objective >= 0 else None, scope=scope)

    def to_dict(self) -> dict:
        """Plain dict (JSON-ready) with the derived ``gap`` and ``proved_optimal``."""
        return {"status": self.status, "objective": self.objective,
                "lower_bound": self.lower_bound, "gap": self.gap, "scope": self.scope,
                "proved_optimal": self.proved_optimal, "n": self.n, "unit": self.unit}

    def _with_count(self, value: float, digits: str = ".4g") -> str:
        """A rate, and beside it the count it stands for (``0.142 (43 / 303 rows)``)."""
        text = format(value, digits)
        if self.n is None:
            return text
        return f"{text} ({self.count(value):.4g} / {self.n:.6g} {self.unit})"

    def summary(self) -> str:
        """One line: status, objective, bound and gap (rates, with their counts), relative gap."""
        if self.status == "infeasible":
            return "infeasible: the constraints admit no model"
        text = f"{self.status}: objective {self._with_count(self.objective)}"
        if self.proved_optimal:
            return text + " (proved)"
        if self.lower_bound is None:
            return text + ", no lower bound"
        gap = f"{self.gap:.3g}"
        if self.n is not None:
            count = self.count(self.gap)
            unit = "row" if self.unit == "rows" and f"{count:.4g}" == "1" else self.unit
            gap += f" ({count:.4g} {unit})"
        return (text + f", lower bound {self._with_count(self.lower_bound)}, gap {gap} = "
                f"{_percent(self.relative_gap)} of the objective (relative gap)")

    def __str__(self) -> str:
        return self.summary() + (f"\n  over {self.scope}" if self.scope else "")

    @classmethod
    def combine(cls, parts, scope: str = "") -> "Certificate":
        """One certificate for a sum of independent problems (one-vs-rest).

        The objective and lower bound add up (the problems share nothing);
        the status is the least proved one, in the order of :data:`STATUSES`
        reversed (any ``heuristic`` part makes the whole heuristic, etc.).
        """
        parts = list(parts)
        if not parts:
            raise ValueError("combine needs at least one certificate")
        rank = {s: k for k, s in enumerate(STATUSES)}
        status = max((p.status for p in parts), key=rank.__getitem__)
        objective = sum(p.objective for p in parts)
        bounds = [p.lower_bound for p in parts]
        lower = None if any(b is None for b in bounds) else sum(bounds)
        # rates of the same rows add up as rates of those rows
        shared = {(p.n, p.unit) for p in parts}
        n, unit = shared.pop() if len(shared) == 1 else (None, "rows")
        return cls(status, objective, lower,
                   scope or "; ".join(dict.fromkeys(p.scope for p in parts)), n, unit)
