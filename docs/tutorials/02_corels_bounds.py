"""Tutorial 2 — what each CORELS bound buys.

Run: ``python docs/tutorials/02_corels_bounds.py [out.png]`` (full mode: about
13 CPU s; ``RULEKIT_TUTORIAL_QUICK=1`` uses a quarter of the rows and 60 of
the 155 antecedents: about 7 CPU s, mostly imports).

Every pruning rule of CORELS can be switched off.  The ablation runs the
same problem once with all bounds and once without each one, and plots the
time and nodes each run needed.  Runs that hit the limits are drawn in red:
without that bound the problem is not solved in the budget at all.
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")

from rulekit.corels import BOUNDS
from rulekit.datasets import load_corels_compas
from rulekit.plotting import corels_ablation, plot_corels_ablation, plot_corels_trace
from rulekit.corels import search

quick = os.environ.get("RULEKIT_TUTORIAL_QUICK") == "1"
inst = load_corels_compas()
A, y = inst.data, inst.target
if quick:  # a smaller instance so the test suite stays fast
    A, y = A[::4, :60], y[::4]

table = corels_ablation(A, y, 0.01, time_limit=5 if quick else 60, max_nodes=2_000_000)
print(table.to_string())
# every run that finished agrees on the optimum: bounds only remove lists
# that cannot win, they never change the answer
finished = table[table["status"] == "optimal"]
assert finished["objective"].nunique() == 1

fig = plot_corels_ablation(table)
fig.savefig(sys.argv[1] if len(sys.argv) > 1 else "corels_ablation.png", dpi=110)

# the search trace: best objective and lower bound closing in, the queue, and
# the shrinking upper bound on the remaining search space
trace_fig = plot_corels_trace(search(A, y, 0.01))
trace_fig.savefig("corels_trace.png" if len(sys.argv) <= 2 else sys.argv[2], dpi=110)
print("bounds:", ", ".join(BOUNDS))
