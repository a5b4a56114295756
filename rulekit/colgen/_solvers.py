"""Solver adapters: which PuLP back-ends exist, and how each role builds one.

Two back-ends are supported, named ``"highs"`` (in-process HiGHS through
``highspy``) and ``"cbc"`` (the CBC binary bundled with PuLP).  Every role
(master LP, pricing IP, restricted master IP) picks one by name; an unknown or
unavailable name raises a ``ValueError`` that lists what is available.

The master LP uses :class:`PersistentHiGHS`, a PuLP solver that keeps one
``highspy.Highs`` model alive across column-generation rounds and only appends
the new columns before re-solving, so the simplex warm-starts from the last
basis instead of rebuilding the whole LP each round.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import highspy
import numpy as np
import pulp

SOLVER_NAMES = ("highs", "cbc")

#: What a back-end raises when it fails (PuLP's errors, HiGHS's, a CBC process that
#: could not run or was killed).  Column generation catches these by name and keeps
#: the model it has; anything else is a bug in rulekit and propagates as a traceback.
SOLVER_ERRORS = (pulp.PulpError, OSError, subprocess.SubprocessError,
                 # highspy names its error class from 1.8 on (HighsError)
                 *[getattr(highspy, name) for name in ("HighsError",) if hasattr(highspy, name)])

_BANNER_LOCK = threading.Lock()
_banner_done = False


def quiet_highspy():
    """The ``highspy`` module, with HiGHS's start-up banner already swallowed.

    highspy 1.16 prints "Running HiGHS ..." to the C-level standard output
    when the first ``Highs`` object of a process is built, before any option
    (``output_flag``) can be set on it.  That line would land in a CLI pipe or
    a notebook, so the first object is built here once, with file descriptor 1
    pointed at ``os.devnull`` for the instant of its construction.  Later
    objects print nothing: every solver path also sets ``msg=False`` /
    ``output_flag=False`` before it runs.
    """
    global _banner_done
    import highspy

    if _banner_done:
        return highspy
    with _BANNER_LOCK:
        if _banner_done:
            return highspy
        try:
            sys.stdout.flush()
            saved = os.dup(1)
        except (OSError, ValueError, AttributeError):  # no fd 1 (an embedded interpreter)
            saved = None
        try:
            if saved is not None:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.close(null)
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            del h
        finally:
            if saved is not None:
                os.dup2(saved, 1)
                os.close(saved)
        _banner_done = True
    return highspy


@functools.lru_cache(maxsize=None)
def _cbc(**kw):
    # PuLP 3.3 deprecates the bundled-CBC class name; it is still the bundled solver
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(**kw)


def _is_available(name: str) -> bool:
    if name == "highs":
        try:
            quiet_highspy()
        except Exception:  # pragma: no cover - depends on the environment
            return False
        return bool(pulp.HiGHS(msg=False).available())
    if name == "cbc":
        try:
            return bool(_cbc(msg=False).available())
        except Exception:  # pragma: no cover
            return False
    return False


def available_solvers() -> list[str]:
    """Names of the solver back-ends usable on this machine."""
    return [name for name in SOLVER_NAMES if _is_available(name)]


def check_solver(name, param: str) -> str:
    """Validate a solver name for the parameter ``param``.

    Raises
    ------
    ValueError
        If ``name`` is not a known back-end or is not installed; the message
        lists the available ones.
    """
    avail = available_solvers()
    if not isinstance(name, str) or name.lower() not in SOLVER_NAMES:
        raise ValueError(
            f"{param}={name!r} is not a known solver; available solvers: {avail}"
        )
    name = name.lower()
    if name not in avail:
        raise ValueError(
            f"{param}={name!r} is not installed on this machine; available "
            f"solvers: {avail}"
        )
    return name


def fallback_solver(name: str) -> str | None:
    """Another available back-end to use when ``name`` fails, or None."""
    for other in available_solvers():
        if other != name:
            return other
    return None


def mip_solver(name: str, time_limit, node_limit, *, should_stop=None, warm_start=False,
               on_event=None, **highs_kw):
    """A PuLP solver object for a MIP with a node limit and a time limit.

    ``time_limit`` (seconds, None for none) is the safety net of the run;
    ``node_limit`` is the work limit that decides.  ``should_stop()`` is
    polled by HiGHS during the search (Ctrl-C, the run's deadline); CBC
    gets the same through :func:`stopping_children`.  ``on_event(kind,
    data_out, data_in)`` sees HiGHS's improving-solution and interrupt
    callbacks (the pricing IP collects its columns there).
    """
    if name == "highs":
        highspy = quiet_highspy()

        kinds = [highspy.cb.HighsCallbackType.kCallbackMipInterrupt,
                 highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution]

        def callback(kind, msg, data_out, data_in, user):
            if on_event is not None:
                on_event(kind, data_out, data_in)
            if (kind == kinds[0] and should_stop is not None and should_stop()):
                data_in.user_interrupt = True

        kw = dict(msg=False, threads=1, mip_max_nodes=int(node_limit),
                  callbackTuple=(callback, None), callbacksToActivate=kinds, **highs_kw)
        if time_limit is not None:
            kw["timeLimit"] = max(float(time_limit), 0.01)
        return _HiGHS(**kw)
    kw = dict(msg=False, warmStart=warm_start, threads=1, maxNodes=int(node_limit),
              timeMode="elapsed")
    if time_limit is not None:
        # CBC takes whole seconds; stopping_children() stops it at the deadline
        kw["timeLimit"] = max(1, int(np.ceil(time_limit)))
    return _cbc(**kw)


class _HiGHS(pulp.HiGHS if hasattr(pulp, "HiGHS") else object):
    """PuLP's HiGHS, knowing the status of a search stopped by its node limit.

    PuLP 3.3 has no entry for HiGHS's ``kSolutionLimit`` (node or solution
    limit reached) and raises ``KeyError``; like a time limit, it may leave
    an integer solution, which is then reported as feasible.
    """

    def findSolutionValues(self, lp):
        import highspy

        try:
            return super().findSolutionValues(lp)
        except KeyError:
            if lp.solverModel.getModelStatus() != highspy.HighsModelStatus.kSolutionLimit:
                raise
        # the values were written back before the lookup failed
        if lp.solverModel.getInfo().primal_solution_status == 2:   # kSolutionStatusFeasible
            return pulp.LpStatusOptimal, pulp.LpSolutionIntegerFeasible
        return pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound


def _cbc_children() -> list[int]:
    """Process ids of this process's CBC subprocesses (Linux; [] elsewhere)."""
    pids = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                pids += [int(p) for p in f.read().split()]
        except OSError:
            continue
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip().startswith("cbc"):
                    out.append(pid)
        except OSError:
            continue
    return out


@contextlib.contextmanager
def stopping_children(should_stop, period: float = 0.05):
    """While open, send SIGINT to CBC subprocesses once ``should_stop()`` is true.

    CBC stops its search on SIGINT and still writes its best solution, which
    PuLP then reads.  A Ctrl-C at a terminal reaches CBC directly (it is in
    the same process group); this forwards the ones that reach only Python
    (a deferred Ctrl-C, a callback) and the run's deadline, which CBC's own
    whole-second limit and its start-up would overrun.
    """
    if should_stop is None:
        yield
        return
    done = threading.Event()

    def watch():
        while not done.wait(period):
            if should_stop():
                for pid in _cbc_children():
                    try:
                        os.kill(pid, signal.SIGINT)
                    except OSError:
                        pass
                return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def solve_pulp(prob, solver, should_stop=None):
    """``prob.solve(solver)``, with CBC stopped when ``should_stop()`` turns true."""
    if isinstance(solver, pulp.HiGHS):
        return prob.solve(solver)
    with stopping_children(should_stop):
        return prob.solve(solver)


def _coefficients(n, coef):
    """A pending column's ``n`` coefficients: the array, or ones ending in ``coef``."""
    if not isinstance(coef, float):
        return coef
    out = np.ones(n)
    out[-1] = coef
    return out


class PersistentHiGHS(pulp.HiGHS if hasattr(pulp, "HiGHS") else object):
    """PuLP HiGHS solver that appends new columns to a live ``Highs`` model.

    The owner declares the rows once (:meth:`set_rows`), may declare a block
    of unit columns without PuLP variables (:meth:`set_unit_columns`: one
    per row, the master's slack of each cover row), and registers every
    other column with :meth:`add_column` (its PuLP variable, objective cost,
    row indices and coefficients).  The first :meth:`actualSolve` loads all
    of them in one batch, the unit columns first; later ones only
    ``addCols`` the pending columns and re-run, so HiGHS starts from the
    previous optimal basis instead of rebuilding the LP.  Values and duals
    are written back to the PuLP variables and the constraints named in
    :meth:`set_rows` as with ``pulp.HiGHS``; :attr:`col_value` and
    :attr:`row_dual` hold them all as arrays.  Rows and unit columns stay
    arrays: on millions of distinct rows a PuLP variable and constraint per
    row took several GB and most of the master's set-up time.
    """

    def __init__(self, time_limit=None, should_stop=None):
        highspy = quiet_highspy()

        kind = highspy.cb.HighsCallbackType.kCallbackSimplexInterrupt

        def callback(cb_type, msg, data_out, data_in, user):
            if should_stop is not None and should_stop():
                data_in.user_interrupt = True

        super().__init__(mip=False, msg=False, timeLimit=time_limit, threads=1,
                         callbackTuple=(callback, None) if should_stop else None,
                         callbacksToActivate=[kind] if should_stop else None)
        self._built = False
        self._pending = []
        self._vars = []
        self._cons = {}
        self._row_lb = self._row_ub = None
        self._unit_cost = self._unit_row = None
        self.n_unit = 0
        self.last_status = None
        self.last_col_dual = None
        self.col_value = self.row_dual = None

    def set_rows(self, constraints, lower, upper):
        """The rows' bounds; ``constraints``: ``{row: PuLP constraint}`` to write duals to."""
        self._cons = dict(constraints)
        self._row_lb = np.asarray(lower, dtype=np.float64)
        self._row_ub = np.asarray(upper, dtype=np.float64)

    def set_unit_columns(self, costs, rows):
        """Columns ``0..n-1`` of the model: column ``i`` costs ``costs[i]`` and has one
        coefficient, 1, in row ``rows[i]``; no PuLP variables (values in :attr:`col_value`).
        Declared before the first solve."""
        if self._built:
            raise RuntimeError("unit columns must be declared before the first solve")
        self._unit_cost = np.asarray(costs, dtype=np.float64)
        self._unit_row = np.asarray(rows, dtype=np.int32)
        self.n_unit = int(self._unit_cost.size)

    def add_column(self, var, cost, row_index, coef):
        coef = np.asarray(coef, dtype=np.float64)
        if coef.size and np.all(coef[:-1] == 1.0):
            # the usual column (1 in each cover row, its size in the budget row): kept as
            # its last coefficient, not 8 bytes per row until the next solve
            coef = float(coef[-1])
        self._pending.append((var, float(cost), np.asarray(row_index, dtype=np.int32), coef))

    def delete_columns(self, lp, variables):
        """Take live columns out of the model (their values read 0 from now on).

        Only nonbasic columns should go: HiGHS then keeps the basis, and the
        next solve starts from it.  A column can come back through
        :meth:`add_column`.
        """
        gone = {id(v) for v in variables}
        if not gone:
            return
        # HiGHS reads a set of indices as sorted (unsorted, it deletes others)
        index = np.unique(np.array([v.index for v in variables], dtype=np.int32))
        lp.solverModel.deleteCols(int(index.size), index)
        for v in variables:
            v.varValue = 0.0
        self._vars = [v for v in self._vars if id(v) not in gone]
        for i, v in enumerate(self._vars):
            v.index = self.n_unit + i

    def set_time_limit(self, seconds):
        """Seconds for the next solve, counted from now: loading the pending columns
        (seconds on millions of rows) comes out of them, not on top."""
        self.timeLimit = None if seconds is None else max(float(seconds), 0.01)
        self._deadline = None if seconds is None else time.perf_counter() + float(seconds)

    def set_row_upper(self, lp, row, upper):
        """Change one row's upper bound (the budget), in the live model too."""
        self._row_ub[row] = float(upper)
        if self._built:
            lp.solverModel.changeRowBounds(int(row), float(self._row_lb[row]), float(upper))

    def _flush(self, h):
        import highspy

        units = self.n_unit if not self._built else 0
        if not self._pending and not units:
            return
        inf = highspy.kHighsInf
        n = len(self._pending)
        # the unit columns (first solve only) and the pending ones in one batch
        costs = np.concatenate([self._unit_cost[:units], [p[1] for p in self._pending]])
        lens = np.concatenate([np.ones(units, dtype=np.int64),
                               np.array([p[2].size for p in self._pending], dtype=np.int64)])
        starts = np.zeros(units + n, dtype=np.int32)
        starts[1:] = np.cumsum(lens)[:-1]
        idx = np.concatenate([self._unit_row[:units], *[p[2] for p in self._pending]]
                             ).astype(np.int32)
        val = np.concatenate([np.ones(units), *[_coefficients(p[2].size, p[3])
                                                for p in self._pending]])
        h.addCols(units + n, costs, np.zeros(units + n), np.full(units + n, inf),
                  int(idx.size), starts, idx, val)
        for var, *_ in self._pending:
            var.index = self.n_unit + len(self._vars)
            self._vars.append(var)
        self._pending = []

    def actualSolve(self, lp):
        import highspy

        if not self._built:
            self.createAndConfigureSolver(lp)
            h = lp.solverModel
            m = self._row_lb.size
            inf = highspy.kHighsInf
            lb = np.where(np.isfinite(self._row_lb), self._row_lb, -inf)
            ub = np.where(np.isfinite(self._row_ub), self._row_ub, inf)
            h.addRows(m, lb, ub, 0, np.zeros(m, dtype=np.int32), np.zeros(0, dtype=np.int32),
                      np.zeros(0))
            self._flush(h)
            self._built = True
        h = lp.solverModel
        self._flush(h)
        limit = highspy.kHighsInf if self.timeLimit is None else float(self.timeLimit)
        if getattr(self, "_deadline", None) is not None:
            limit = max(self._deadline - time.perf_counter(), 0.01)
        h.setOptionValue("time_limit", limit)
        h.run()
        status = h.getModelStatus()
        self.last_status = status
        sol = h.getSolution()
        col_values = np.asarray(sol.col_value)
        row_duals = np.asarray(sol.row_dual)
        self.last_col_dual = np.asarray(sol.col_dual)
        self.col_value, self.row_dual = col_values, row_duals
        for var in self._vars:
            var.varValue = float(col_values[var.index])
        for i, con in self._cons.items():
            con.pi = float(row_duals[i])
        if status == highspy.HighsModelStatus.kOptimal:
            lp.assignStatus(pulp.LpStatusOptimal, pulp.LpSolutionOptimal)
            return pulp.LpStatusOptimal
        lp.assignStatus(pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound)
        return pulp.LpStatusNotSolved
