"""Every tolerance and cap of rulekit, named once with the reason for its size.

The claim that "optimal" is never a rounding accident rests on these numbers,
so they live in one place: a comparison anywhere in the package reads its
slack from here by name.  Counts of rows are integers and compared exactly;
the tolerances below only absorb the rounding of float sums (weights, penalties
``c * N``, LP values), which is of order 1e-16 relative, far below each of them,
and each is far below the smallest real difference it must not hide (one row,
one literal, one unit of work).
"""

from __future__ import annotations

# --- comparisons of objectives --------------------------------------------------------------

#: CORELS and the Rashomon set: two lists whose scores (mistakes + c*N*K, in samples) differ
#: by less than ``TIE_PER_SAMPLE * N`` tie.  Mistakes differ by whole samples, so this only
#: absorbs the float rounding of c*N*K; the tie then goes to the shorter list.
TIE_PER_SAMPLE = 1e-9

#: Absolute slack for sums of float weights (objectives, budgets, LP values of order 1 to N):
#: a weighted objective is "better" only when lower by more than this.
FLOAT_SLACK = 1e-9

#: Slack for comparing means and rates (errors in [0, 1], standard errors): differences
#: between candidates that are exactly equal in exact arithmetic must compare equal.
RATE_SLACK = 1e-12

#: An LP or IP solver's value within this of an integer is that integer, and an upper
#: bound within this (relative to max(1, |bound|)) of a lower bound meets it.  HiGHS's and
#: CBC's feasibility tolerances are 1e-7 to 1e-6, so a tighter test would call a proved
#: optimum unproved.
SOLVER_TOL = 1e-6

#: softFRL: a lower bound must clear a threshold by this before the search skips an exact
#: computation (objectives are of order 1, their rounding of order 1e-16).
G_SKIP_MARGIN = 1e-9

#: The smallest mining support: mlxtend needs a positive threshold, and 1e-9 of the rows is
#: below one row for any table that fits in memory, so it keeps every antecedent seen once.
MIN_SUPPORT_FLOOR = 1e-9

# --- clocks and budgets ---------------------------------------------------------------------

#: The shortest time a step is taken to last when the anytime loop sizes the next one (a
#: step measured at zero seconds must not make the budget infinite).
MIN_STEP_SECONDS = 1e-9

#: The least time a share of a deadline may be (seconds): one-vs-rest problems split the
#: time left, and a zero share would read as "no limit" in the solvers.
MIN_TIME_SHARE = 1e-3

#: Seconds per distinct row a rule-set fit keeps, out of its searches' time, for the work
#: after them: the selection's last steps and the model's counts over the rows.  Measured
#: on 3.7 million distinct rows (column generation at ten million rows, docs/scaling.md):
#: 0.45 s from the end of the search to the end of the fit, 0.12 microseconds a row, since
#: the rule set is read over the rows a block at a time (rulekit.evaluate; 1.7 s before).
#: 0.5 leaves a margin for a search that ends a little late.  A 50,000-row fit keeps 25 ms.
WRAP_UP_SECONDS_PER_ROW = 5e-7

#: The least memory (MB) left to a search after the matrices a path holds: a non-positive
#: limit would read as "none" (the search then stops at once with memory_limit).
MIN_MEMORY_MB = 1e-6

# --- caps of integer sizes ------------------------------------------------------------------

#: CORELS's path with ``max_work=None``: more work units than any search can spend.
UNBOUNDED_WORK = 2**62

#: Node and arena indices are int32 offsets in the compiled search's arrays.
INT32_MAX = 2**31 - 1
#: The most nodes the CORELS search may hold (one below the int32 limit, which marks "none").
MAX_NODES_CAP = 2**31 - 2

#: The range of a 64-bit signed integer: a label outside it cannot be an SQL BIGINT.
INT64_MIN, INT64_MAX_EXCLUSIVE = -2**63, 2**63

#: Seeds drawn for numpy from a legacy RandomState are in [0, 2**31 - 1).
SEED_MAX = 2**31 - 1
