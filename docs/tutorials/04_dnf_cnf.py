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
# # Tutorial 4 — DNF versus CNF rule sets on tic-tac-toe and mushroom
#
# Run: ``python docs/tutorials/04_dnf_cnf.py``, or open ``04_dnf_cnf.ipynb`` in
# Jupyter (full mode: about 10-15 CPU s; ``RULEKIT_TUTORIAL_QUICK=1`` fits
# mushroom on an eighth and the automatic choice on half of tic-tac-toe: about
# 7 CPU s).
#
# A DNF says "positive if ANY of these AND-clauses holds"; a CNF says
# "positive if ALL of these OR-clauses hold".  Column generation learns
# either (a CNF is the DNF of the complemented problem, by De Morgan) and
# reports a lower bound that certifies how close the rule set is to the best.

# %%
import os
import sys

import matplotlib

if "ipykernel" not in sys.modules:  # a script: draw to files; a notebook: also inline
    matplotlib.use("Agg")

from rulekit import BooleanRuleCGClassifier
from rulekit.datasets import load_mushroom, load_tictactoe
from rulekit.plotting import plot_colgen_trace

quick = os.environ.get("RULEKIT_TUTORIAL_QUICK") == "1"

# %% [markdown]
# ## Tic-tac-toe
#
# By the rules of the game, x wins when one of the eight lines holds three x's.
# A DNF of eight 3-literal clauses (complexity 32) can say exactly that, and
# column generation finds a rule set with no training error.  It need not be the
# game's rule, though: a clause may test "!= o" where the game says "== x".  On
# these 958 final boards both make no mistake, so the data cannot tell them
# apart (the certificate is about the training loss).

# %%
X, y = load_tictactoe(return_X_y=True)
dnf = BooleanRuleCGClassifier(form="dnf", max_complexity=32, max_literals=3, time_limit=60).fit(X, y)
print(dnf, f"\nstatus {dnf.certificate_.status}, training accuracy {dnf.score(X, y):.3f}")
assert dnf.score(X, y) == 1.0
LINES = [("top_left", "top_middle", "top_right"), ("middle_left", "middle_middle", "middle_right"),
         ("bottom_left", "bottom_middle", "bottom_right"), ("top_left", "middle_left", "bottom_left"),
         ("top_middle", "middle_middle", "bottom_middle"), ("top_right", "middle_right", "bottom_right"),
         ("top_left", "middle_middle", "bottom_right"), ("top_right", "middle_middle", "bottom_left")]
game = [{f"{cell} == x" for cell in line} for line in LINES]
clauses = [{dnf.model_.condition_text(j) for j in clause} for clause in dnf.model_.clauses]
print(f"{sum(c in game for c in clauses)} of its {len(clauses)} clauses are a line of three x's\n")

# %%
cnf = BooleanRuleCGClassifier(form="cnf", max_complexity=32, max_literals=3, time_limit=60).fit(X, y)
print(cnf, f"\nstatus {cnf.certificate_.status}, training accuracy {cnf.score(X, y):.3f}\n")

# %% [markdown]
# ## Mushroom: which form says "poisonous" more compactly?

# %%
X, y = load_mushroom(return_X_y=True)
if quick:
    X, y = X.iloc[::8], y.iloc[::8]
for form in ("dnf", "cnf"):
    m = BooleanRuleCGClassifier(form=form, max_complexity=16, time_limit=30).fit(X, y)
    print(f"mushroom {form}: complexity {m.complexity_}, accuracy {m.score(X, y):.4f}, status {m.certificate_.status}")
    print(m, "\n")

# %% [markdown]
# ## Letting the data choose
#
# The defaults form="auto", max_complexity="auto" validate DNF and CNF rule sets
# along a path of growing budgets on up to 5000 rows (one-standard-error rule);
# budget 0, the empty rule set, is a candidate, so a rule set is only kept when
# it beats the constant prediction on held-out rows.  Noise-free data such as
# these stop at the first budget that fits every row.

# %%
X, y = load_tictactoe(return_X_y=True)
if quick:
    X, y = X.iloc[::2], y.iloc[::2]
auto = BooleanRuleCGClassifier(max_literals=3).fit(X, y)
print(f"tic-tac-toe auto: chose {auto.form_} with budget {auto.max_complexity_} "
      f"({auto.choice_.method}), accuracy {auto.score(X, y):.3f}")
print(auto, "\n")

# %%
plot_colgen_trace(dnf).savefig("colgen_trace.png", dpi=110)
