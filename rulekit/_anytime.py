"""The one loop that runs every anytime search.

An engine supplies a *step*: "do about this much work, then tell me where
you are".  :class:`Anytime` owns everything around it, the same way for
CORELS, falling rule lists and column generation:

* the clock: a deadline from ``time_limit`` (nested runs inherit the
  earlier deadline of the run around them, so an estimator's ``time_limit``
  covers its whole fit);
* the limits: time, memory (``max_memory`` in MB, compared with the memory
  the engine says its state takes, so the answer does not depend on what
  else the process holds) and whatever the step itself reports
  (``node_limit``);
* Ctrl-C: while a run is open, SIGINT only sets a flag (a
  ``KeyboardInterrupt`` raised inside a compiled kernel can be lost or
  garbled); the loop sees it between steps and stops with status
  ``interrupted``.  A Ctrl-C during numba compilation or mining waits for
  the first check in the same way;
* the callback: every learner calls it with the same :class:`SearchState`
  record; a truthy return value stops the search (``interrupted``).  A run
  opened inside another calls the callbacks of the runs around it too, so
  an estimator's ``callback`` (given to the run around its whole fit) sees
  every search of the fit without each engine passing it on;
* progress: a tqdm bar on stderr when ``verbose >= 1`` (nodes, best
  objective, lower bound, gap, memory, rate), and ``logging`` records on
  the ``rulekit.<learner>`` logger for detail;
* BLAS threads: one while the outermost run is open.  The engines are
  single-threaded; their few matrix products (a pricing step's ``B.T @
  duals`` over a thousand conditions) are too small to gain from threads,
  yet large enough for OpenBLAS to start its pool, whose idle threads spin:
  on two cores that doubled the CPU of a column-generation fit on 569 rows
  with 1140 conditions, wall clock unchanged.

Steps adapt their size: the loop doubles the work budget while a step takes
less than ``chunk_seconds / 2`` and halves it above ``2 * chunk_seconds``,
so limits and Ctrl-C are honoured within about a tenth of a second while
the Python side costs nothing measurable.
"""

from __future__ import annotations

import ctypes
import itertools
import logging
import math
import os
import sys
import threading
import time
from dataclasses import dataclass, field

from ._interrupt import DeferredInterrupt, is_interrupt
from ._tolerances import MIN_STEP_SECONDS

__all__ = ["SearchState", "Anytime", "current_run", "default_max_memory", "memory_budget_mb",
           "check_allocation", "stop_status", "stopping", "stop_if_short", "progress_bar",
           "wants_progress"]

_local = threading.local()
_blas = None   # threadpoolctl's controller, made on first use (inspecting libraries costs ms)


def _one_blas_thread():
    """Limit BLAS to one thread; the limiter (``restore_original_limits()``), or None.

    A speed-up only: should threadpoolctl fail on some platform, the search
    runs with the BLAS threads as they are.
    """
    global _blas
    try:
        if _blas is None:
            from threadpoolctl import ThreadpoolController
            _blas = ThreadpoolController()
        return _blas.limit(limits=1, user_api="blas")
    except Exception:  # pragma: no cover - depends on the BLAS build
        return None


def _stack() -> list:
    if not hasattr(_local, "runs"):
        _local.runs = []
    return _local.runs


def current_run() -> "Anytime | None":
    """The innermost open run of this thread, if any."""
    runs = _stack()
    return runs[-1] if runs else None


_TRIM = None


def give_back_freed_memory() -> None:
    """Return the heap's freed pages to the system (glibc's ``malloc_trim``; elsewhere
    nothing).

    glibc keeps arrays of up to 32 MB on its heap once one of that size was
    freed, and their pages stay with the process when they are freed in turn.
    A search that makes and drops such arrays round after round (column
    generation's masks and sums over millions of distinct rows) then grows by
    what it dropped: 217 MB over 10 rounds on 3.4 million distinct rows.
    dask's workers trim their memory the same way.
    """
    global _TRIM
    if _TRIM is None:
        _TRIM = False
        if sys.platform.startswith("linux"):
            try:
                _TRIM = ctypes.CDLL("libc.so.6").malloc_trim
            except (OSError, AttributeError):   # not glibc (musl, ...)
                pass
    if _TRIM:
        _TRIM(0)


def default_max_memory() -> float:
    """Default memory limit in MB: half the available memory, at most 4 GB."""
    try:
        avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return 4096.0
    return float(max(256.0, min(4096.0, avail / 2)))


def memory_budget_mb() -> float:
    """MB an engine may allocate: ``max_memory`` of the innermost open run that has one,
    else :func:`default_max_memory` (a learner without a ``max_memory`` parameter is
    held to the default: ``max_memory`` covers the whole process)."""
    return _memory_budget()[0]


def _memory_budget() -> tuple:
    """``(MB, where that number comes from)``."""
    run = current_run()
    while run is not None:
        if run.max_memory is not None:
            return float(run.max_memory), "max_memory"
        run = run._parent
    return default_max_memory(), "half the available memory, at most 4 GB"


def check_allocation(nbytes: float, what: str, remedies: str) -> None:
    """A ``ValueError`` naming ``what``, its size and the ``remedies``, *before* an
    engine allocates ``nbytes`` that :func:`memory_budget_mb` does not allow.

    Refusing is the choice for arrays whose size the data fix (a matrix over
    every pair of conditions): a smaller one would be another problem, so
    there is no best-so-far to return.
    """
    limit, source = _memory_budget()
    need = nbytes / 2**20
    if need > limit:
        raise ValueError(f"{what} would take {need:,.0f} MB, more than the {limit:,.0f} MB "
                         f"allowed ({source}): {remedies}")


def stop_status() -> str | None:
    """The status a limit of the open run calls for now (``"time_limit"``,
    ``"interrupted"``), None when it goes on or no run is open: what a search checks
    before a set-up that would overrun a limit already reached."""
    run = current_run()
    return None if run is None else run.limit_reached()


def stopping(reserve: float = 0.0) -> bool:
    """Has a time limit or Ctrl-C told the open run (if any) to stop?

    For work outside a search's steps (binarization, mining, building a
    problem): check it between columns or blocks, and return early with
    what is done; the search that follows then stops at once with the
    status, its best model and one warning.

    ``reserve`` (seconds) asks to stop that much before the deadline: work
    whose results still have to be mined and searched stops early enough
    for that to fit in the time limit too.  A stop for a reserve is recorded
    on the run (:attr:`Anytime.cut`), since the clock alone no longer says
    that the data were cut.
    """
    run = current_run()
    if run is None:
        return False
    if stop_status() is not None:
        return True
    left = run.time_left()
    if reserve > 0 and left is not None and left <= reserve:
        run.cut = "time_limit"
        return True
    return False


def stop_if_short(reserve: float) -> bool:
    """Before work that takes about ``reserve`` seconds and cannot stop midway (a
    search's set-up on many rows: folding, packing, pairs): if less time than that is
    left, the open run's deadline is moved to now, so that every search after it
    stops at once with its best model so far (the constant one) and the status
    ``time_limit``, rather than overrun the limit by its set-up.

    Returns whether it did; without a time limit it never does.
    """
    run = current_run()
    if run is None or reserve <= 0:
        return False
    left = run.time_left()
    if left is None or left > reserve:
        return False
    run.deadline = time.perf_counter()
    return True


@dataclass(frozen=True)
class SearchState:
    """Where a search stands: what every callback and progress line receives.

    Attributes
    ----------
    learner : str
        ``"corels"``, ``"frl"``, ``"colgen"``...
    elapsed : float
        Wall seconds since the search started.
    work : int
        Work done, in ``unit`` (nodes expanded, iterations, rounds).
    unit : str
    best_objective : float or None
        Objective of the best model so far.
    lower_bound : float or None
        Valid lower bound on the best objective reachable, if the method has one.
    memory_mb : float or None
        Memory the search state takes, as the engine counts it.
    info : dict
        Learner-specific numbers (queue size, columns...), for display.
    search_id : int or None
        Which run reported the state: every :class:`Anytime` run takes the
        next number of the process when it opens, so the states of one search
        share it and no two searches do (None for a state made by hand).
    depth : int
        How many runs are open around that run: 0 for the run around a whole
        fit, 1 for a search inside it (a point of CORELS's path, one binary
        problem of column generation), 2 for a search inside that one.
    """

    learner: str
    elapsed: float
    work: int
    unit: str = "steps"
    best_objective: float | None = None
    lower_bound: float | None = None
    memory_mb: float | None = None
    info: dict = field(default_factory=dict)
    search_id: int | None = None
    depth: int = 0

    @property
    def gap(self) -> float | None:
        if self.best_objective is None or self.lower_bound is None:
            return None
        return max(0.0, self.best_objective - self.lower_bound)

    @property
    def rate(self) -> float:
        """Work per second so far."""
        return self.work / self.elapsed if self.elapsed > 0 else 0.0

    def describe(self) -> str:
        """Short text: best, bound, gap, memory (what the progress bar shows)."""
        parts = []
        if self.best_objective is not None:
            parts.append(f"best={self.best_objective:.6g}")
        if self.lower_bound is not None:
            parts.append(f"bound={self.lower_bound:.6g}")
        if self.gap is not None:
            parts.append(f"gap={self.gap:.3g}")
        if self.memory_mb is not None:
            parts.append(f"mem={self.memory_mb:.0f}MB")
        parts += [f"{k}={v}" for k, v in self.info.items()]
        return ", ".join(parts)


#: The number the next run takes (:attr:`SearchState.search_id`); shared by the threads of a
#: process, and ``next`` on an itertools counter is atomic under the GIL.
_SEARCH_IDS = itertools.count(1)


class Anytime:
    """Clock, limits, Ctrl-C, callback and progress of one search.

    Use as a context manager around the search; inside it, either hand a
    step function to :meth:`drive`, or call :meth:`report` between rounds of
    a loop of your own and stop when it returns a status.

    Parameters
    ----------
    learner : str
        Name for progress and logging (``rulekit.<learner>`` logger).
    unit : str
        What ``work`` counts.
    time_limit : float or None
        Seconds from entering the run; a run opened inside another keeps
        the earlier of the two deadlines.
    max_memory : float or None
        MB the engine's state may take.
    callback : callable or None
        ``callback(state) -> bool``; True stops the search.  It is also
        called by the runs opened inside this one, with their states.
    verbose : int
        ``>= 1`` shows a progress bar on stderr.
    total : int or None
        Known amount of work (draws a bar with a percentage).
    """

    def __init__(self, learner: str, *, unit: str = "steps", time_limit=None, max_memory=None,
                 callback=None, verbose=0, total=None, report_seconds: float = 0.25):
        self.learner = learner
        self.unit = unit
        self.time_limit = time_limit
        self.max_memory = max_memory
        self.callback = callback
        self.verbose = int(verbose or 0)
        self.total = total
        self.report_seconds = report_seconds
        self.logger = logging.getLogger(f"rulekit.{learner}")
        self.last_state: SearchState | None = None
        self.search_id: int | None = None
        self.depth = 0
        self._parent = None
        self._sigint = None
        self._blas_limit = None
        self._bar = None
        self._last_report = -math.inf
        self._last_log = -math.inf
        #: the status of a limit that stopped the preparation before the clock ran out
        #: (a pass over a source keeping time for the search: :func:`stopping`)
        self.cut: str | None = None

    # -- context ---------------------------------------------------------------
    def __enter__(self) -> "Anytime":
        self.start = time.perf_counter()
        self.cpu_start = time.process_time()
        runs = _stack()
        self._parent = runs[-1] if runs else None
        self.search_id = next(_SEARCH_IDS)
        self.depth = 0 if self._parent is None else self._parent.depth + 1
        own = None if self.time_limit is None else self.start + float(self.time_limit)
        parent = None if self._parent is None else self._parent.deadline
        self.deadline = min((d for d in (own, parent) if d is not None), default=None)
        if self._parent is None:
            # BLAS first: nothing between installing the SIGINT handler and
            # entering the stack may fail and leave the handler behind
            self._blas_limit = _one_blas_thread()
            self._sigint = DeferredInterrupt().install()
        runs.append(self)
        if self.verbose >= 1:
            self._bar = progress_bar(self.learner, self.unit, self.total)
        return self

    def __exit__(self, *exc) -> bool:
        runs = _stack()
        if runs and runs[-1] is self:
            runs.pop()
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._sigint is not None:
            self._sigint.restore()
            self._sigint = None
        if self._blas_limit is not None:
            self._blas_limit.restore_original_limits()
            self._blas_limit = None
        return False

    # -- clock and flags -----------------------------------------------------------
    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    @property
    def cpu_time(self) -> float:
        return time.process_time() - self.cpu_start

    def time_left(self) -> float | None:
        """Seconds to the deadline (never negative), None without one."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.perf_counter())

    @property
    def interrupted(self) -> bool:
        """Has Ctrl-C been pressed since the outermost run opened?"""
        root = self
        while root._parent is not None:
            root = root._parent
        return bool(root._sigint is not None and root._sigint.received)

    def limit_reached(self, state: SearchState | None = None) -> str | None:
        """The status a limit calls for now (Ctrl-C, time, memory), else None."""
        if self.interrupted:
            return "interrupted"
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return "time_limit"
        if (self.max_memory is not None and state is not None and state.memory_mb is not None
                and state.memory_mb >= self.max_memory):
            return "memory_limit"
        return None

    # -- reporting -------------------------------------------------------------------
    def report(self, state: SearchState, *, force: bool = False) -> str | None:
        """Record progress; return the status to stop with, or None to go on.

        Limits are checked on every call; the callback, the progress bar and
        the log run at most every ``report_seconds`` unless ``force``.
        """
        self.last_state = state
        reason = self.limit_reached(state)
        now = time.perf_counter()
        if not force and now - self._last_report < self.report_seconds:
            return reason
        self._last_report = now
        self.show(state)
        if self._ask_callbacks(state):
            reason = reason or "interrupted"
        return reason

    def _ask_callbacks(self, state: SearchState) -> bool:
        """Call this run's callback and those of the runs around it; True: stop."""
        stop, run = False, self
        while run is not None:
            # every callback sees the state, even after another asked to stop
            # (a recorder must not miss the last one)
            if run.callback is not None and run.callback(state):
                stop = True
            run = run._parent
        return stop

    def show(self, state: SearchState) -> None:
        """Update the progress bar and the debug log (no limits, no callback)."""
        self.last_state = state
        if self._bar is not None:
            self._bar.update(max(0, state.work - self._bar.n))
            self._bar.set_postfix_str(state.describe(), refresh=True)
        now = time.perf_counter()
        if now - self._last_log >= 1.0:
            self._last_log = now
            self.logger.debug("%s %d %s, %.1f s: %s", self.learner, state.work, self.unit,
                              state.elapsed, state.describe())

    def state(self, work: int, **fields) -> SearchState:
        """A :class:`SearchState` of this run at the current time."""
        return SearchState(self.learner, self.elapsed, int(work), self.unit, **fields,
                           search_id=self.search_id, depth=self.depth)

    def drive(self, step, *, chunk_seconds: float = 0.05, budget: int = 1,
              max_budget: int = 1 << 20) -> str:
        """Call ``step(budget)`` until it finishes or the search must stop.

        ``step`` returns ``(status, state)``: status ``None`` to go on,
        ``"done"`` when the search space is exhausted, or a stop status of
        its own (``"node_limit"``); ``state`` is a :class:`SearchState`.

        A ``KeyboardInterrupt`` (a second Ctrl-C, or one raised by a callback)
        also ends the loop, with ``"interrupted"``.

        Returns
        -------
        str
            ``"done"`` or the stop status.
        """
        try:
            return self._loop(step, chunk_seconds, budget, max_budget)
        except (KeyboardInterrupt, SystemError) as exc:
            if not is_interrupt(exc):
                raise
            return "interrupted"

    def _loop(self, step, chunk_seconds, budget, max_budget) -> str:
        while True:
            t0 = time.perf_counter()
            status, state = step(budget)
            dt, pace = time.perf_counter() - t0, budget
            if status is not None:
                self.report(state, force=True)
                return status
            if dt < chunk_seconds / 2:
                budget = min(2 * budget, max_budget)
            elif dt > 2 * chunk_seconds and budget > 1:
                budget //= 2
            left = self.time_left()
            if left is not None:
                # a chunk must not outlast the deadline (one unit of work can
                # take seconds on large data): at most what the last pace allows
                budget = max(1, min(budget, int(left * pace / max(dt, MIN_STEP_SECONDS))))
            reason = self.report(state)
            if reason is not None:
                self.show(state)
                return reason

    def finish(self, status: str) -> None:
        """Log how the search ended (INFO) and close the bar line."""
        state = self.last_state
        work = state.work if state is not None else 0
        self.logger.info("%s: %s after %d %s, %.2f s wall, %.2f s CPU", self.learner, status,
                         work, self.unit, self.elapsed, self.cpu_time)


def progress_bar(label: str, unit: str, total=None, *, scale: bool = True):
    """The progress bar every rulekit display uses (tqdm, on stderr).

    ``scale``: counts in k and M (nodes, iterations); False for a few dozen
    whole things (fits, searches), which read best as ``7/15``.
    """
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=f" {unit}", desc=label, file=sys.stderr, leave=True,
                dynamic_ncols=True, unit_scale=scale, mininterval=0.2)


def wants_progress(progress) -> bool:
    """Resolve a ``progress`` argument: ``True`` or ``False`` as given; ``None`` (the
    default of every caller) shows progress only when stderr is an interactive terminal.

    A log file, a pipe, a notebook's or a test runner's captured stream gets no bar: its
    carriage returns would only fill it with the bar's every redraw.
    """
    if progress is not None:
        return bool(progress)
    stream = sys.stderr
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
