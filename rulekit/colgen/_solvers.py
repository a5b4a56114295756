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

import functools
import warnings

import numpy as np
import pulp

SOLVER_NAMES = ("highs", "cbc")


@functools.lru_cache(maxsize=None)
def _cbc(**kw):
    # PuLP 3.3 deprecates the bundled-CBC class name; it is still the bundled solver
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(**kw)


def _is_available(name: str) -> bool:
    if name == "highs":
        try:
            import highspy  # noqa: F401
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


def mip_solver(name: str, time_limit: float, *, warm_start=False, **highs_kw):
    """A PuLP solver object for a MIP with a time limit (seconds)."""
    time_limit = max(float(time_limit), 0.05)
    if name == "highs":
        return pulp.HiGHS(msg=False, timeLimit=time_limit, threads=1, **highs_kw)
    # CBC takes whole seconds.
    return _cbc(
        msg=False, timeLimit=max(1, int(np.ceil(time_limit))), warmStart=warm_start,
        threads=1,
    )


class PersistentHiGHS(pulp.HiGHS if hasattr(pulp, "HiGHS") else object):
    """PuLP HiGHS solver that appends new columns to a live ``Highs`` model.

    The owner declares the rows once (:meth:`set_rows`) and registers every
    column with :meth:`add_column` (its PuLP variable, objective cost, row
    indices and coefficients).  The first :meth:`actualSolve` loads all of
    them in one batch; later ones only ``addCols`` the pending columns and
    re-run, so HiGHS starts from the previous optimal basis instead of
    rebuilding the LP.  Values and duals are written back to the PuLP
    variables and constraints as with ``pulp.HiGHS``.
    """

    def __init__(self, time_limit=None):
        super().__init__(mip=False, msg=False, timeLimit=time_limit, threads=1)
        self._built = False
        self._pending = []
        self._vars = []
        self._cons = []
        self._row_lb = self._row_ub = None
        self.last_status = None

    def set_rows(self, constraints, lower, upper):
        self._cons = list(constraints)
        self._row_lb = np.asarray(lower, dtype=np.float64)
        self._row_ub = np.asarray(upper, dtype=np.float64)

    def add_column(self, var, cost, row_index, coef):
        self._pending.append((var, float(cost), np.asarray(row_index, dtype=np.int32),
                              np.asarray(coef, dtype=np.float64)))

    def set_time_limit(self, seconds):
        self.timeLimit = max(float(seconds), 0.05)

    def _flush(self, h):
        import highspy

        if not self._pending:
            return
        inf = highspy.kHighsInf
        n = len(self._pending)
        costs = np.array([p[1] for p in self._pending])
        lens = np.array([p[2].size for p in self._pending], dtype=np.int64)
        starts = np.zeros(n, dtype=np.int32)
        starts[1:] = np.cumsum(lens)[:-1]
        idx = np.concatenate([p[2] for p in self._pending]).astype(np.int32)
        val = np.concatenate([p[3] for p in self._pending])
        h.addCols(n, costs, np.zeros(n), np.full(n, inf), int(idx.size), starts, idx, val)
        for var, *_ in self._pending:
            var.index = len(self._vars)
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
            self._built = True
        h = lp.solverModel
        self._flush(h)
        if self.timeLimit is not None:
            h.setOptionValue("time_limit", float(self.timeLimit))
        h.run()
        status = h.getModelStatus()
        self.last_status = status
        sol = h.getSolution()
        col_values = np.asarray(sol.col_value)
        row_duals = np.asarray(sol.row_dual)
        for var in self._vars:
            var.varValue = float(col_values[var.index])
        for i, con in enumerate(self._cons):
            con.pi = float(row_duals[i])
        if status == highspy.HighsModelStatus.kOptimal:
            lp.assignStatus(pulp.LpStatusOptimal, pulp.LpSolutionOptimal)
            return pulp.LpStatusOptimal
        lp.assignStatus(pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound)
        return pulp.LpStatusNotSolved
