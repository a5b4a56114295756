# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Tutorial 2 — what each CORELS bound buys
#
# Run: ``python docs/tutorials/02_corels_bounds.py [out.png]``, or open
# ``02_corels_bounds.ipynb`` in Jupyter (full mode: about 13 CPU s;
# ``RULEKIT_TUTORIAL_QUICK=1`` uses a quarter of the rows and 60 of the 155
# antecedents: about 7 CPU s, mostly imports).
#
# Every pruning rule of CORELS can be switched off.  The ablation runs the
# same problem once with all bounds and once without each one, and plots the
# time and nodes each run needed.  Runs that hit the limits are drawn in red:
# without that bound the problem is not solved in the budget at all.

# %%
import os
import sys

import matplotlib

if "ipykernel" not in sys.modules:  # a script: draw to files; a notebook: also inline
    matplotlib.use("Agg")

from rulekit.corels import BOUNDS, ablation, search
from rulekit.datasets import load_corels_compas
from rulekit.plotting import plot_corels_ablation, plot_corels_trace

quick = os.environ.get("RULEKIT_TUTORIAL_QUICK") == "1"
# a figure file name from the command line; a notebook kernel's own arguments are not ours
args = [] if "ipykernel" in sys.modules else sys.argv[1:]

# %% [markdown]
# ## The instance
#
# The CORELS authors' 155 pre-mined compas antecedents; quick mode takes a smaller
# instance so the test suite stays fast.

# %%
inst = load_corels_compas()
A, y = inst.data, inst.target
if quick:
    A, y = A[::4, :60], y[::4]

# %% [markdown]
# ## The ablation
#
# Every run that finished agrees on the optimum: bounds only remove lists that
# cannot win, they never change the answer.

# %%
table = ablation(A, y, 0.01, time_limit=5 if quick else 60, max_nodes=2_000_000)
print(table.to_string())
finished = table[table["status"] == "optimal"]
assert finished["objective"].nunique() == 1

# %%
fig = plot_corels_ablation(table)
fig.savefig(args[0] if args else "corels_ablation.png", dpi=110)

# %% [markdown]
# ## The search trace
#
# The best objective and the lower bound closing in, the queue, and the shrinking
# upper bound on the remaining search space.

# %%
trace_fig = plot_corels_trace(search(A, y, 0.01))
trace_fig.savefig(args[1] if len(args) > 1 else "corels_trace.png", dpi=110)
print("bounds:", ", ".join(BOUNDS))
