"""Result of :func:`rulekit.corels.search`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rulekit.certificate import Certificate

#: Scope of a certificate relative to a reference model, in words (defined beside the
#: certificate that states it; :mod:`rulekit.corels._search` re-exports it).
REFERENCE_SCOPE = ("rule lists whose every rule captures more than c*N samples and classifies "
                   "more than c*N of them correctly, and which, on the samples left uncaptured "
                   "by each of their non-empty proper prefixes, make at least as many mistakes "
                   "as the reference model")


def scope(lists: str, c: float) -> str:
    """The scope of a CORELS certificate: which lists the claim covers, then the objective.

    Every CORELS claim (the engine's, the estimator's, the constrained
    search's, the Rashomon set's) is written by this function, so the
    objective reads the same everywhere: ``N`` is the number of training
    rows, as in ``docs/math.md``.

    Parameters
    ----------
    lists : str
        The lists the claim covers, in words.
    c : float
        The penalty per rule.

    Returns
    -------
    str
    """
    return f"{lists}; objective = mistakes / N + {c:g} x rules"


@dataclass(frozen=True)
class CorelsResult:
    """A rule list found by branch and bound, with its certificate.

    Attributes
    ----------
    prefix : tuple of int
        Antecedent indices (columns of ``A``), in rule order.
    rule_labels : tuple
        Predicted label of each rule (original label values of ``y``).
    default_label : object
        Label of the default (else) rule.
    objective : float
        ``mistakes / N + c * len(prefix)``.
    mistakes : int
        Misclassified training samples.
    lower_bound : float
        Certified lower bound on the optimal objective; equals ``objective``
        when ``status == "optimal"``.
    status : str
        ``"optimal"``; ``"optimal_relative"`` with a reference model (see
        :func:`rulekit.corels.search`); ``"node_limit"``, ``"memory_limit"``,
        ``"time_limit"`` or ``"interrupted"`` when a limit stopped the search.
    classes : ndarray
        Sorted distinct labels of ``y``; class counts are in this order.
    counts : ndarray of int, shape (len(prefix) + 1, n_classes)
        Training class counts captured by each rule, last row = default rule.
    c : float
        Regularization used.
    stats : dict
        Search statistics (nodes, pruning counts per bound, sizes, times).
    trace : dict of ndarray
        Sampled search progress: ``time``, ``nodes``, ``queue_size``
        (children waiting), ``trie_size``, ``best_objective``,
        ``lower_bound``, ``log10_remaining``, ``memory_mb``.
    reference : bool
        Whether a reference model bounded the search (the proof is then
        relative to it; ``certificate.scope`` says how).
    events : dict of ndarray or None
        The search's event log when it was asked for (``trace="events"``),
        else None.  ``kind`` (``"expand"``, ``"prune"``, ``"best"`` per
        event), ``reason`` (a key of ``stats["pruned"]`` for prunes, else
        ``""``), ``prefix`` (tuple of antecedent indices: the expanded
        prefix, the pruned child, or the new best list), ``value`` (in
        objective units: an expanded prefix's lower bound, the bound that
        failed — or for ``min_support``/``min_accurate_support`` the support
        as a fraction of N —, or the new best objective), ``expanded`` (the
        expansions done when the event happened), plus ``cap`` and
        ``truncated`` (events lost once the log held ``cap``; then its
        counts fall short of ``stats``).  The first event is the empty
        list as the initial best.
    """

    prefix: tuple
    rule_labels: tuple
    default_label: object
    objective: float
    mistakes: int
    lower_bound: float
    status: str
    classes: np.ndarray
    counts: np.ndarray
    c: float
    stats: dict = field(default_factory=dict)
    trace: dict = field(default_factory=dict)
    reference: bool = False
    events: dict | None = None

    @property
    def certificate(self) -> Certificate:
        """The claim: status, objective, lower bound, gap, over which lists."""
        lists = "rule lists over the given antecedents"
        if self.reference:
            lists = f"{lists} among the {REFERENCE_SCOPE}"
        return Certificate(self.status, self.objective, self.lower_bound, scope(lists, self.c))

    def __repr__(self) -> str:  # short: the trace and stats are long
        return (
            f"CorelsResult(prefix={self.prefix}, rule_labels={self.rule_labels}, "
            f"default_label={self.default_label!r}, objective={self.objective:.10g}, "
            f"mistakes={self.mistakes}, lower_bound={self.lower_bound:.10g}, "
            f"status={self.status!r})"
        )
