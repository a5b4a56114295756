"""The CORELS pruning bounds, each declared once with its slots in the kernel arrays.

A bound lives in three places of the compiled search (``_kernels.py``): a
configuration slot ``G_*`` that switches it on, a counter ``S_PR_*`` of the
children it pruned, and the reason code of its prune events (the counter's
index, so the event log and the statistics name a prune the same way).  This
table is the one place that ties a bound's name to them: ``_problem.py`` reads
the switches from it, ``_search.py`` the counters, the public ``BOUNDS`` and
the event log's reasons.  Adding a bound is a row here, its two slots in
``_kernels.py`` and its test in the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from rulekit.corels import _kernels as kr

__all__ = ["Bound", "BOUND_TABLE", "BOUNDS", "PRUNE_COUNTERS", "PRUNE_REASONS"]


@dataclass(frozen=True)
class Bound:
    """One pruning rule of the search.

    Attributes
    ----------
    name : str
        Its name in ``bounds=``, in ``stats["pruned"]`` and in the event log.
    switch : int or None
        The configuration slot (``cfg[G_*]``) that turns it on; None for a
        rule the caller does not choose by name (symmetry has its own
        parameter, the reference bound comes with ``reference=``).
    counter : int
        The counter slot (``S[S_PR_*]``) of the prefixes it pruned, which is
        also the reason code of its prune events.
    paper : str
        The result it rests on, by its title in Angelino et al., JMLR 18(234), 2018,
        or what it is.
    """

    name: str
    switch: int | None
    counter: int
    paper: str


BOUND_TABLE: tuple[Bound, ...] = (
    Bound("hierarchical", kr.G_HIER, kr.S_PR_HIER, "theorem: hierarchical objective lower bound"),
    Bound("lookahead", kr.G_LOOK, kr.S_PR_LOOK, "lemma: objective lower bound with one-step lookahead"),
    Bound("prefix_length", kr.G_PLEN, kr.S_PR_PLEN, "theorem: prefix-specific upper bound on prefix length"),
    Bound("min_support", kr.G_MINSUP, kr.S_PR_MINSUP, "theorem: lower bound on antecedent support"),
    Bound("min_accurate_support", kr.G_MINACC, kr.S_PR_MINACC,
          "theorem: lower bound on accurate antecedent support"),
    Bound("rejection_propagation", kr.G_REJPROP, kr.S_PR_REJPROP,
          "theorem: antecedent rejection propagates"),
    Bound("equivalent_points", kr.G_EQPTS, kr.S_PR_EQPTS, "theorem: equivalent points bound"),
    Bound("next_rule_gain", kr.G_GAIN, kr.S_PR_GAIN,
          "the next rule's largest possible gain (docs/math.md)"),
    Bound("reference", kr.G_REFB, kr.S_PR_REF, "the reference model's mistakes (reference=)"),
    Bound("symmetry", None, kr.S_PR_SYM, "corollary: permutation bound; the symmetry-aware map (symmetry=)"),
)

#: The bounds a caller switches by name (``bounds=``).
BOUNDS = frozenset(b.name for b in BOUND_TABLE if b.switch is not None and b.name != "reference")
#: ``stats["pruned"]``: name -> counter slot, for every pruning rule.
PRUNE_COUNTERS = {b.name: b.counter for b in BOUND_TABLE}
#: The event log's reason codes: counter slot -> name.
PRUNE_REASONS = {b.counter: b.name for b in BOUND_TABLE}


def switches(chosen) -> dict:
    """``{cfg slot: 0 or 1}`` for the bounds of ``bounds=`` (``chosen``: a set of names)."""
    return {b.switch: int(b.name in chosen) for b in BOUND_TABLE
            if b.switch is not None and b.name in BOUNDS}
