"""The Rashomon set as models: what ``CorelsClassifier.rashomon_set`` returns.

:func:`rulekit.corels.rashomon` finds the prefixes; :class:`RashomonSet` turns
them into something to read and to question: each list as a
:class:`~rulekit.models.RuleList`, how many there are (exactly, or at least
how many when a limit stopped the enumeration), which conditions the good
lists rely on, and on which rows they disagree.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from rulekit.bitset import lowest_bit, n_words, pack
from rulekit.corels import _capture_graph as cg
from rulekit.evaluate import capture_counts, merge_rows
from rulekit.models import Rule, RuleList
from rulekit.plotting import plot_condition_usage, plot_rashomon_objectives

__all__ = ["RashomonSet"]


@njit(cache=True, inline="always")
def _take(free, row, out):
    """``out`` = the rows of ``free`` that ``row`` captures, then removed from ``free``."""
    for w in range(free.shape[0]):
        out[w] = free[w] & row[w]
        free[w] &= ~row[w]


@njit(cache=True)
def _walk_lists(flat, off, Ap, luts, fb, per, n_classes, labels, default, captured):
    """Training labels (majority) and sizes of every rule of every list.

    ``Ap`` packs the antecedents over the training groups; ``labels[e]`` and
    ``captured[e]`` are filled for every entry ``e`` of ``flat``;
    ``default[i]`` is list ``i``'s default label.
    """
    W = Ap.shape[1]
    free = np.empty(W, dtype=np.uint64)
    x = np.empty(W, dtype=np.uint64)
    ccnt = np.zeros(n_classes, dtype=np.int64)
    for i in range(off.shape[0] - 1):
        for w in range(W):
            free[w] = ~np.uint64(0)
        for e in range(off[i], off[i + 1]):
            _take(free, Ap[flat[e]], x)
            nv, _ = cg.stats(x, luts, fb, per, ccnt)
            labels[e] = np.argmax(ccnt)
            captured[e] = nv
        # padding bits beyond the last group weigh nothing in the tables
        cg.stats(free, luts, fb, per, ccnt)
        default[i] = np.argmax(ccnt)


@njit(cache=True)
def _votes(flat, off, labels, default, Ap, n_groups, n_classes):
    """How many lists predict each class for each group of rows."""
    W = Ap.shape[1]
    votes = np.zeros((n_groups, n_classes), dtype=np.int64)
    free = np.empty(W, dtype=np.uint64)
    took = np.empty(W, dtype=np.uint64)
    for i in range(off.shape[0] - 1):
        for w in range(W):
            free[w] = ~np.uint64(0)
        for e in range(off[i], off[i + 1]):
            _take(free, Ap[flat[e]], took)
            for w in range(W):
                x = took[w]
                while x:
                    g = w * 64 + lowest_bit(x)
                    if g < n_groups:
                        votes[g, labels[e]] += 1
                    x &= x - np.uint64(1)       # the lowest bit cleared
        for g in range(n_groups):
            if (free[g >> 6] >> np.uint64(g & 63)) & np.uint64(1):
                votes[g, default[i]] += 1
    return votes


class RashomonSet:
    """Every rule list within ``epsilon`` of the optimum, over an estimator's antecedents.

    Built by :meth:`rulekit.CorelsClassifier.rashomon_set`; not meant to be
    constructed by hand.

    Attributes
    ----------
    result : rulekit.corels.RashomonResult
        The engine's answer: prefixes, objectives, status.
    objectives : ndarray
        Objective of every list, lowest first.
    epsilon, optimum : float
    complete : bool
        True when every list within epsilon was found; otherwise the
        enumeration stopped at a limit (``status``) and the lists are a
        subset.
    status : str
    scope : str
        Over which lists the count is exact.
    """

    #: what readers such as the explorer check for, instead of importing this class
    kind = "RashomonSet"

    def __init__(self, result, antecedents, conditions, classes, A, codes, binarizer, scope):
        self.result = result
        self.antecedents = antecedents
        self.conditions = list(conditions)
        self.classes = list(classes)
        self.binarizer = binarizer
        self.scope = scope
        self._A = np.asarray(A, dtype=bool)
        self._codes = np.asarray(codes, dtype=np.int64)
        self._labels = None

    # -- the set ------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.result)

    @property
    def objectives(self) -> np.ndarray:
        return self.result.objectives

    @property
    def epsilon(self) -> float:
        return self.result.epsilon

    @property
    def optimum(self) -> float | None:
        return self.result.optimum

    @property
    def status(self) -> str:
        return self.result.status

    @property
    def complete(self) -> bool:
        return self.result.complete

    @property
    def count(self) -> str:
        """How many lists, in words: exact, or a lower bound and why."""
        n = f"{len(self):,}"
        if self.complete:
            return f"exactly {n}"
        return f"at least {n} (the enumeration stopped: {self.status})"

    def __getitem__(self, i) -> RuleList:
        """List ``i`` (0 is the optimum) as a :class:`RuleList` with training counts."""
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        prefix = self.result.prefixes[i]
        items = [self.antecedents.items[a] for a in prefix]
        counts = capture_counts(self._A, [(a,) for a in prefix], self._codes, len(self.classes))
        rules = [Rule(tuple(int(j) for j in item), self.classes[int(np.argmax(row))],
                      tuple(int(v) for v in row)) for item, row in zip([*items, ()], counts)]
        return RuleList(rules[:-1], rules[-1], self.conditions, self.classes)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        opt = "?" if self.optimum is None else f"{self.optimum:.6g}"
        return (f"RashomonSet({self.count} rule lists with objective <= {opt} + "
                f"{self.epsilon:g})")

    def __str__(self) -> str:
        lines = [repr(self), f"  over {self.scope}"]
        if len(self):
            lengths = np.bincount(self.result.prefixes.lengths())
            lines.append("  rules per list: " + ", ".join(
                f"{k}: {v:,}" for k, v in enumerate(lengths) if v))
            lines += ["", "best list:", str(self[0])]
        return "\n".join(lines)

    # -- what the lists rely on -------------------------------------------------
    def _rule_labels(self):
        """Training label and captured size of every rule of every list (cached)."""
        if self._labels is None:
            flat, off = self.result.prefixes.arrays()
            rows, group, (ones, *per_class) = merge_rows(
                self._A, np.ones(len(self._codes), dtype=np.int64),
                *[(self._codes == k).astype(np.int64) for k in range(len(self.classes))])
            table = np.column_stack(per_class)
            Ap = np.ascontiguousarray(pack(rows.T))
            luts, fb, per = cg.count_tables(table, n_words(rows.shape[0]), len(self._codes))
            labels = np.zeros(len(flat), dtype=np.int64)
            captured = np.zeros(len(flat), dtype=np.int64)
            default = np.zeros(len(self), dtype=np.int64)
            _walk_lists(flat, off, Ap, luts, fb, per, len(self.classes), labels, default,
                        captured)
            self._labels = (labels, default, captured)
        return self._labels

    def condition_importance(self, weighted: bool = False) -> pd.Series:
        """Share of the lists that use each condition, most used first.

        Parameters
        ----------
        weighted : bool, default=False
            False: the share of lists with a rule whose antecedent contains
            the condition.  True: the average over the lists of the share of
            training rows whose prediction is made by such a rule (a
            condition in a rule that decides many rows counts more).

        Returns
        -------
        Series indexed by the condition's text.
        """
        flat, off = self.result.prefixes.arrays()
        n_lists = max(len(self), 1)
        which = np.repeat(np.arange(len(self)), np.diff(off))
        pairs, sizes = [], []
        captured = self._rule_labels()[2] if weighted else np.ones(len(flat))
        for e, a in enumerate(flat):
            for j in self.antecedents.items[a]:
                pairs.append((which[e], j))
                sizes.append(captured[e])
        usage = np.zeros(len(self.conditions))
        if pairs:
            pairs = np.asarray(pairs)
            sizes = np.asarray(sizes, dtype=float)
            if weighted:
                np.add.at(usage, pairs[:, 1], sizes / len(self._codes))
            else:
                unique = np.unique(pairs, axis=0)
                np.add.at(usage, unique[:, 1], 1.0)
        series = pd.Series(usage / n_lists, index=[str(c) for c in self.conditions],
                           name="weighted usage" if weighted else "share of lists")
        return series[series > 0].sort_values(ascending=False, kind="stable")

    def feature_importance(self) -> pd.DataFrame:
        """Each feature's importance in every list, summarised as a range over the set.

        The importance of a feature in one list is the share of training rows
        whose prediction is made by a rule that tests the feature (the rule
        that captures the row; the default rule tests nothing).  Good lists
        can rely on different features to the same effect, so one number per
        feature would hide what the set says; the range does not: a feature
        whose minimum is above zero is needed by every good list, one whose
        maximum is large but minimum zero can be replaced.

        Returns
        -------
        DataFrame indexed by feature, with columns ``min``, ``mean``, ``max``
        (over the lists, lists that do not use the feature counting 0) and
        ``share of lists`` (that use it), for the features at least one list
        uses, largest ``max`` first.
        """
        names = list(dict.fromkeys(c.feature for c in self.conditions))
        keys, rows = self._feature_rows(names)
        n_lists, n_rows, F = len(self), len(self._codes), len(names)
        feature = keys % F
        used = np.bincount(feature, minlength=F)
        top = np.zeros(F)
        np.maximum.at(top, feature, rows / n_rows)
        low = np.full(F, np.inf)
        np.minimum.at(low, feature, rows / n_rows)
        low[used < n_lists] = 0.0  # a list without the feature gives it nothing
        mean = np.bincount(feature, weights=rows, minlength=F) / n_rows / max(n_lists, 1)
        frame = pd.DataFrame({"min": low, "mean": mean, "max": top,
                              "share of lists": used / max(n_lists, 1)}, index=names)
        frame.index.name = "feature"
        frame = frame[used > 0]
        return frame.sort_values(["max", "mean"], ascending=False, kind="stable")

    def _feature_rows(self, names):
        """Rows decided by a rule testing each feature, per (list, feature) pair.

        Returns the pairs as keys ``list * len(names) + feature`` (sorted,
        unique) and, for each, the number of training rows.  Works entry by
        entry so that memory grows with the lists' rules, not with lists
        times features.
        """
        F = len(names)
        where = {f: k for k, f in enumerate(names)}
        per_ant = [sorted({where[self.conditions[j].feature] for j in item})
                   for item in self.antecedents.items]
        ant_off = np.concatenate([[0], np.cumsum([len(fs) for fs in per_ant])]).astype(np.int64)
        ant_flat = np.fromiter((f for fs in per_ant for f in fs), dtype=np.int64,
                               count=int(ant_off[-1]))
        if not len(self):
            return np.zeros(0, np.int64), np.zeros(0)
        flat, off = self.result.prefixes.arrays()
        flat = np.asarray(flat, dtype=np.int64)
        captured = self._rule_labels()[2]
        # one (entry, feature) pair for each feature an entry's antecedent tests
        sizes = ant_off[flat + 1] - ant_off[flat]
        entry = np.repeat(np.arange(len(flat)), sizes)
        first = np.repeat(np.cumsum(sizes) - sizes, sizes)
        feature = ant_flat[np.repeat(ant_off[flat], sizes) + np.arange(entry.size) - first]
        lists = np.repeat(np.arange(len(self)), np.diff(off))[entry]
        keys, inverse = np.unique(lists * F + feature, return_inverse=True)
        rows = np.bincount(inverse.ravel(), weights=captured[entry], minlength=keys.size)
        return keys, rows

    def disagreement(self, X=None) -> pd.DataFrame:
        """For each row, the share of the lists that predict each class.

        Parameters
        ----------
        X : DataFrame or array, optional
            Rows to ask about (the estimator's input format); default: the
            training rows.

        Returns
        -------
        DataFrame with one column per class; a row with a value near 1 is
        one the good lists agree on, one near ``1 / n_classes`` is one they
        dispute.
        """
        if X is None:
            A = self._A
        else:
            A = self.antecedents.transform(self.binarizer.transform(X))
        labels, default, _ = self._rule_labels()
        rows, group, _ = merge_rows(A)
        Ap = np.ascontiguousarray(pack(rows.T)) if rows.shape[1] else np.zeros(
            (0, n_words(rows.shape[0])), np.uint64)
        flat, off = self.result.prefixes.arrays()
        votes = _votes(flat, off, labels, default, Ap, rows.shape[0], len(self.classes))
        shares = votes[group] / max(len(self), 1)
        index = X.index if isinstance(X, pd.DataFrame) else None
        return pd.DataFrame(shares, columns=self.classes, index=index)

    # -- figures --------------------------------------------------------------------
    def plot_objectives(self, ax=None):
        """Histogram of the lists' objectives, optimum and threshold marked."""
        return plot_rashomon_objectives(self, ax=ax)

    def plot_conditions(self, top: int = 15, weighted: bool = False, ax=None):
        """The conditions the lists use most, as horizontal bars."""
        return plot_condition_usage(self, top=top, weighted=weighted, ax=ax)
