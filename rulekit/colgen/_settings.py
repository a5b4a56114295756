"""The expert settings of column generation, grouped in one frozen object.

:func:`rulekit.colgen.search` and :class:`rulekit.BooleanRuleCGClassifier`
take the few parameters that shape the model (form, budget, penalties, time)
directly, and everything about *how* the optimisation is carried out --
solvers, pricing strategy, work limits -- through one
:class:`ColGenSettings`.  Every limit in it counts work (rounds, columns,
solver nodes, enumeration steps), never seconds, so two runs with the same
data, settings and seed find the same rule set however busy the machine is;
the run's ``time_limit`` is only the safety net above them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rulekit._params import Boolean, Instance, Integer, Options, Real, validate

from ._solvers import check_solver

PRICINGS = ("auto", "enum", "beam", "ip")

#: Declarations of :class:`ColGenSettings`' fields.
SETTINGS_PARAMETERS = {
    "pricing": Options(*PRICINGS),
    "lp_solver": Options("highs", "cbc"),
    "pricing_solver": Options("highs", "cbc"),
    "mip_solver": Options("highs", "cbc"),
    "max_rounds": Integer(0),
    "columns_per_round": Integer(1),
    "beam_width": Integer(1),
    "beam_widening": Instance((tuple,), "a tuple of widening factors (ints >= 1)"),
    "beam_max_literals": Integer(1),
    "beam_max_candidates": Integer(1),
    "enum_work_limit": Integer(0),
    "pricing_node_limit": Integer(1),
    "pricing_early_nodes": Integer(0, allow_none=True),
    "mip_node_limit": Integer(0),
    "sample_rows": Integer(1),
    "sample_nnz": Integer(1),
    "stall_rounds": Integer(0),
    "stall_tol": Real(0, None),
    "idle_rounds": Integer(0),
    "idle_min_rows": Integer(0),
    "group_min_rows": Integer(0),
    "initial_beam": Boolean(),
    "restricted_mip": Boolean(),
    "eps": Real(0, None, closed="neither"),
    "record_duals": Boolean(),
}


@dataclass(frozen=True)
class ColGenSettings:
    """How column generation is carried out (solvers, pricing, work limits).

    Parameters
    ----------
    pricing : {"enum", "auto", "beam", "ip"}, default="enum"
        How clauses of negative reduced cost are found each round.
        ``"enum"``: the beam heuristic (widened x4 and x16 when it finds
        nothing), then the exact branch-and-bound enumeration (up to
        ``enum_work_limit``); when the enumeration finishes it proves the
        round's bound.  ``"auto"``: the same, then the pricing IP when
        neither found a clause nor proved there is none (stronger bounds on
        small data, but one IP can take many seconds).  ``"beam"``: the
        heuristic only.  ``"ip"``: the IP first (the paper's order), the
        beam when the IP finds nothing.
    lp_solver, pricing_solver, mip_solver : {"highs", "cbc"}, default="highs"
        Back-ends of the master LP, the pricing IP and the restricted master
        IP.  HiGHS runs in-process; CBC (bundled with PuLP) runs as a
        subprocess.
    max_rounds : int, default=100
        Column-generation rounds (one master LP and one pricing each).
    stall_rounds, stall_tol : int, float, default=10, 1e-4
        Stop the rounds at a budget once the master LP value has fallen by
        at most ``stall_tol`` times its value over the last
        ``stall_rounds`` rounds (0: never).  Late rounds on large data add
        clauses that barely move the LP (FICO: 2400 at round 10, 2391.2 at
        round 100), and each costs a master LP and a pricing; a work-based
        stop, so the run still does not depend on the clock.
    columns_per_round : int, default=10
        Most clauses added per round.
    beam_width, beam_max_literals, beam_max_candidates : int
        Beam search: width, longest clause explored, children scored.
    beam_widening : tuple of int, default=(1, 4, 16)
        Width (and candidate) multipliers tried in turn while the beam finds
        no improving clause, before the exact enumeration.
    enum_work_limit : int, default=100_000_000
        Row operations allowed to the exact enumeration per round (0 turns
        it off).  When it finishes, it certifies the round like a solved
        pricing IP.
    pricing_node_limit : int, default=2000
        Branch-and-bound nodes per pricing IP.
    pricing_early_nodes : int or None, default=200
        Stop a HiGHS pricing IP this many nodes after it found an improving
        clause (None: go on to the node limit).
    mip_node_limit : int, default=5000
        Branch-and-bound nodes of the restricted master IP (with
        ``restricted_mip=True``).
    sample_rows, sample_nnz : int
        Pricing rows / pricing-IP nonzeros above which the IP is solved on a
        random sample (the paper's §3 recipe for large data); such a run
        proves no bound.
    idle_rounds : int, default=3
        On data of more than ``idle_min_rows`` distinct rows, a clause whose
        reduced cost has been positive for this many master LPs in a row
        leaves the live LP (0: never).  It is re-priced at every later
        master LP and comes back when it prices out, so the master's value
        and duals are those over every clause generated; the LP re-solves
        faster without the dense columns it does not use.
    idle_min_rows : int, default=5000
        Distinct rows above which ``idle_rounds`` applies.
    group_min_rows : int, default=50_000
        Distinct positive rows above which the master LP is solved over
        groups of positive rows that the clauses in use cover alike
        (:mod:`rulekit.colgen._grouped`; HiGHS only).  The answer is the
        master LP's over every row and clause; its duals may be another
        optimal set than the full LP's vertex, so the clauses priced next
        may differ.  On a million distinct rows the full LP's first solve
        did not finish in two minutes, the grouped one took seconds.
    initial_beam : bool, default=True
        Seed the master with the best multi-literal clauses of one beam round
        besides all single conditions.
    restricted_mip : bool, default=False
        After the greedy selection and its local search, solve the
        restricted master IP (the master IP over the generated clauses, the
        paper's last step) within ``mip_node_limit`` nodes.  It can only
        lower the training objective, but its root node alone takes seconds
        on a few hundred clauses, whatever the node limit.
    eps : float, default=1e-6
        Reduced-cost tolerance.
    record_duals : bool, default=False
        Keep the per-sample duals of every round in the trace (for tests).
    """

    pricing: str = "enum"
    lp_solver: str = "highs"
    pricing_solver: str = "highs"
    mip_solver: str = "highs"
    max_rounds: int = 100
    stall_rounds: int = 10
    stall_tol: float = 1e-4
    columns_per_round: int = 10
    beam_width: int = 5
    beam_widening: tuple = (1, 4, 16)
    beam_max_literals: int = 5
    beam_max_candidates: int = 20_000
    enum_work_limit: int = 100_000_000
    pricing_node_limit: int = 2000
    pricing_early_nodes: int | None = 200
    mip_node_limit: int = 5000
    sample_rows: int = 2000
    sample_nnz: int = 100_000
    idle_rounds: int = 3
    idle_min_rows: int = 5000
    group_min_rows: int = 50_000
    initial_beam: bool = True
    restricted_mip: bool = False
    eps: float = 1e-6
    record_duals: bool = False

    def __post_init__(self):
        values = validate(SETTINGS_PARAMETERS, dataclasses.asdict(self), "ColGenSettings")
        if not values["beam_widening"] or any(
                not isinstance(m, int) or isinstance(m, bool) or m < 1
                for m in values["beam_widening"]):
            raise ValueError("ColGenSettings: parameter 'beam_widening' must be a non-empty "
                             f"tuple of integers >= 1; got {values['beam_widening']!r}")
        for role in ("lp_solver", "pricing_solver", "mip_solver"):
            values[role] = check_solver(values[role], role)
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def replace(self, **changes) -> "ColGenSettings":
        """A copy with some fields changed (validated like a new object)."""
        return dataclasses.replace(self, **changes)
