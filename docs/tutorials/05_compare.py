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
# # Tutorial 5 — every learner against CART, a random forest and logistic regression
#
# Run: ``python docs/tutorials/05_compare.py``, or open ``05_compare.ipynb`` in
# Jupyter.  The full run cross-validates six models on all 10,459 FICO rows in 5
# folds: about 5 CPU minutes (320 CPU s measured; the falling rule list's 2000
# iterations and the learners' time limits take most of it), so it is one to
# start and come back to.  ``RULEKIT_TUTORIAL_QUICK=1`` uses a tenth of the rows,
# 3 folds and shorter limits: about 20 CPU s.
#
# ``compare_models`` cross-validates all models on the same stratified folds,
# reports accuracy, balanced accuracy and AUC with standard errors, the size of
# each model in rules and conditions, and — for rulekit learners — the
# certificate.  The plot marks the Pareto front of accuracy against size: the
# models you could not improve on both counts at once.

# %%
import os
import sys

import matplotlib

if "ipykernel" not in sys.modules:  # a script: draw to files; a notebook: also inline
    matplotlib.use("Agg")

from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     baselines, compare_models)
from rulekit.datasets import load_fico

quick = os.environ.get("RULEKIT_TUTORIAL_QUICK") == "1"
X, y = load_fico(return_X_y=True)
if quick:
    X, y = X.iloc[::10], y.iloc[::10]

# %% [markdown]
# ## The models, cross-validated on the same folds

# %%
models = {
    "CORELS": CorelsClassifier(),
    "falling rule list": FallingRuleListClassifier(w=1.0, n_iter=300 if quick else 2000, random_state=0),
    "DNF (colgen)": BooleanRuleCGClassifier(form="dnf", max_complexity=16,
                                            time_limit=8 if quick else 60),
    **{k: v for k, v in baselines().items() if k != "CART"},
}
comparison = compare_models(models, X, y, cv=3 if quick else 5, n_jobs=None, refit=False)
print(comparison.to_markdown())

# %% [markdown]
# ## Accuracy against size

# %%
print("Pareto front:", comparison.pareto_front())
comparison.plot().savefig("compare_fico.png", dpi=110)
