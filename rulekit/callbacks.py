"""Ready-made callbacks for every learner's ``callback=`` parameter.

A callback is any callable ``callback(state) -> bool``.  Every search of a
fit calls it with a :class:`rulekit._anytime.SearchState` (work done, best
objective, lower bound, memory...) about four times a second and once at
its end; a true return value stops the search, which then returns the best
model found so far with status ``"interrupted"`` and a valid lower bound
where the learner has one, and the estimator warns once
(``ConvergenceWarning``), as for any limit.

Because the callback is an estimator parameter, it can be said from a
scikit-learn ``Pipeline`` or grid search::

    make_pipeline(CorelsClassifier(c=0.001, callback=stop_at_gap(0.01)))

What it sees depends on when it is called: the searches report on the
clock, so two runs of the same fit may show the callback different states
and, when it stops the search, return different models.  A model stopped by
a callback depends on the machine's speed and load, as one stopped by
``time_limit`` does; one that the callback never stops does not.

A fit may run several searches (CORELS's default ``c="auto"`` walks a
regularization path and cross-validates it; column generation's
``form="auto"`` or ``max_complexity="auto"`` validates budgets): the
callback sees them all, one after the other, and stopping any of them ends
the fit's searching as Ctrl-C would.

:class:`progress` draws those searches as one progress bar (``rulekit fit``
uses it when stderr is a terminal).
"""

from __future__ import annotations

import copy

from ._anytime import progress_bar
from .certificate import relative_gap

__all__ = ["stop_at_gap", "record", "progress"]


class stop_at_gap:  # noqa: N801 (used like a function: callback=stop_at_gap(0.01))
    """Stop a search once its relative gap is at most ``gap``.

    The relative gap is ``(best objective - lower bound) / |best objective|``,
    the unitless share :attr:`rulekit.certificate.Certificate.relative_gap`
    reports: ``0.01`` stops when no model of the search space can be more
    than 1 % better than the one in hand.  The stopped search's certificate
    says ``"interrupted"`` with that gap (or less: the bound may still rise
    between the callback's call and the search's return).

    Learners without a lower bound (the falling rule lists' Monte-Carlo
    search) have no gap, and this callback never stops them; they run to
    their own end.

    Parameters
    ----------
    gap : float
        Largest relative gap to stop at, ``>= 0``; 0 stops only at a proof.
    """

    def __init__(self, gap: float):
        gap = float(gap)
        if not gap >= 0:
            raise ValueError(f"stop_at_gap: the gap must be a number >= 0; got {gap!r}")
        self.gap = gap

    def __call__(self, state) -> bool:
        if state.best_objective is None or state.lower_bound is None:
            return False
        return relative_gap(state.best_objective, state.lower_bound) <= self.gap

    def __repr__(self) -> str:
        return f"stop_at_gap({self.gap:g})"


class record:  # noqa: N801 (used like a function: callback=record())
    """Keep every state a search reports, to plot or inspect after the fit.

    On its own the recorder never stops a search.  After the fit, :attr:`history` holds
    the states in the order they came, :meth:`searches` splits them into one
    list per search, and :meth:`columns` gives each field as a list.

    ``sklearn.base.clone`` copies the recorder with the estimator, so a
    clone records into its own copy: read the history from the fitted
    estimator's ``callback`` (``pipeline[-1].callback.history``), not from
    the object you passed in, when a tool such as ``cross_validate`` clones
    it.  Processes of a parallel run record into their own copies too.

    Parameters
    ----------
    stop : callable, optional
        Another callback to ask after recording (e.g. ``stop_at_gap(0.01)``):
        the recorder stops when it does.

    Attributes
    ----------
    history : list of SearchState
    """

    def __init__(self, stop=None):
        self.stop = stop
        self.history = []

    def __call__(self, state) -> bool:
        self.history.append(state)
        return bool(self.stop(state)) if self.stop is not None else False

    def searches(self) -> list:
        """The history split into one list per search, in the order the searches began.

        States are grouped by their ``search_id`` (every run numbers its
        states, so the searches of a fit never merge, however they nest).  A
        state made by hand, without an id, starts a new search when its
        ``elapsed`` is smaller than the one before or its learner differs.

        Returns
        -------
        list of list of SearchState
        """
        out, by_id = [], {}
        for state in self.history:
            if state.search_id is not None:
                if state.search_id not in by_id:
                    by_id[state.search_id] = []
                    out.append(by_id[state.search_id])
                by_id[state.search_id].append(state)
                continue
            last = out[-1][-1] if out else None
            if (last is None or last.search_id is not None or state.elapsed < last.elapsed
                    or state.learner != last.learner):
                out.append([])
            out[-1].append(state)
        return out

    def columns(self) -> dict:
        """Each field of the history as a list (``{"lower_bound": [...], ...}``).

        Returns
        -------
        dict of str to list
            ``search_id``, ``depth``, ``learner``, ``elapsed``, ``work``, ``unit``,
            ``best_objective``, ``lower_bound``, ``gap`` and ``memory_mb``, one entry per
            state.
        """
        names = ("search_id", "depth", "learner", "elapsed", "work", "unit", "best_objective",
                 "lower_bound", "gap", "memory_mb")
        return {name: [getattr(s, name) for s in self.history] for name in names}

    def __deepcopy__(self, memo):
        # a copy (sklearn's clone) starts empty: it records its own fit
        return type(self)(copy.deepcopy(self.stop, memo))

    def __repr__(self) -> str:
        inner = "" if self.stop is None else repr(self.stop)
        return f"record({inner})"


class progress:  # noqa: N801 (used like a function: callback=progress())
    """Show a fit's searches as one progress bar on stderr (tqdm).

    The bar counts the searches of the fit (CORELS's default walks a
    regularization path and cross-validates it: a few dozen searches) and
    shows where the current one stands: its learner, work done and best
    objective, lower bound and gap (:meth:`SearchState.describe
    <rulekit._anytime.SearchState.describe>`).  It is drawn from the states
    every search already reports about four times a second, so it costs
    nothing in the search and never changes the model.

    Use it as a context manager, which closes the bar when the fit is done
    (or call :meth:`close`)::

        with progress() as bar:
            CorelsClassifier(callback=bar).fit(X, y)

    ``sklearn.base.clone`` copies it without its bar (a clone draws its own),
    as :class:`record` starts empty in a copy.

    Parameters
    ----------
    stop : callable, optional
        Another callback to ask after drawing (e.g. ``stop_at_gap(0.01)``):
        the search stops when it says so.
    label : str, default="fit"
        The bar's label.

    Attributes
    ----------
    searches : int
        Searches seen so far.
    """

    def __init__(self, stop=None, *, label: str = "fit"):
        self.stop = stop
        self.label = label
        self.searches = 0
        self._seen = set()
        self._bar = None

    def __call__(self, state) -> bool:
        if self._bar is None:
            self._bar = progress_bar(self.label, "searches", scale=False)
        key = state.search_id if state.search_id is not None else (state.learner, id(state))
        if key not in self._seen:
            self._seen.add(key)
            self.searches += 1
            self._bar.update(1)
        self._bar.set_postfix_str(f"{state.learner} {state.work:,} {state.unit}: "
                                  f"{state.describe()}", refresh=False)
        return bool(self.stop(state)) if self.stop is not None else False

    def close(self) -> None:
        """Close the bar (its last line stays on stderr)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "progress":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False

    def __deepcopy__(self, memo):
        # a copy (sklearn's clone) draws its own bar
        return type(self)(copy.deepcopy(self.stop, memo), label=self.label)

    def __getstate__(self):
        # a process of a parallel run gets the settings, not the open bar
        return {"stop": self.stop, "label": self.label}

    def __setstate__(self, state):
        self.__init__(state["stop"], label=state["label"])

    def __repr__(self) -> str:
        inner = "" if self.stop is None else repr(self.stop)
        return f"progress({inner})"
