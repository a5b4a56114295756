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
# # Tutorial 3 — falling rule lists on bank marketing, with a cost-sensitive weight
#
# Run: ``python docs/tutorials/03_frl_bank.py``, or open ``03_frl_bank.ipynb`` in
# Jupyter (full mode, 3000 Monte-Carlo iterations: about 9 CPU s;
# ``RULEKIT_TUTORIAL_QUICK=1`` runs 300 iterations, which saves little: loading
# and mining the 45,211 calls is most of the time).
#
# A falling rule list orders groups from the most to the least likely to
# subscribe.  ``w`` is the cost of missing a subscriber relative to a wasted
# call: a rule predicts "call" (1) when its probability exceeds 1/(1+w).

# %%
import os
import sys

import matplotlib

if "ipykernel" not in sys.modules:  # a script: draw to files; a notebook: also inline
    matplotlib.use("Agg")

from rulekit import FallingRuleListClassifier, SoftFallingRuleListClassifier
from rulekit.datasets import load_bank_marketing
from rulekit.plotting import plot_candidate_sizes, plot_falling_rule_list

quick = os.environ.get("RULEKIT_TUTORIAL_QUICK") == "1"
n_iter = 300 if quick else 3000
X, y = load_bank_marketing(discretized=True, return_X_y=True)

# %% [markdown]
# ## Two costs of a missed subscriber
#
# The probabilities fall down the list, always; ``predict`` is the
# cost-sensitive rule: probability > 1/(1+w), strictly.

# %%
for w in (1.0, 7.0):
    frl = FallingRuleListClassifier(w=w, C=1e-6, n_iter=n_iter, random_state=0).fit(X, y)
    print(f"\nw = {w}: threshold {frl.threshold_:.3f}, objective {frl.certificate_.objective:.6f}")
    print(frl)
    probs = frl.probabilities_
    assert all(a >= b for a, b in zip(probs, probs[1:]))  # falling, always
    assert ((frl.predict_proba(X)[:, 1] > frl.threshold_) == (frl.predict(X) == 1)).all()

# %% [markdown]
# A larger w calls more people: more rules sit above the lower threshold.
#
# ## Softly falling
#
# The soft variant may search lists whose observed proportions rise, paying
# ``C1`` times the total rise; the fitted list states the running minimum, so
# its probabilities still fall.

# %%
soft = SoftFallingRuleListClassifier(w=7.0, C=1e-6, C1=0.5, n_iter=2 * n_iter, random_state=0).fit(X, y)
print("\nsoftly falling (C1 = 0.5):\n", soft, sep="")

# %%
plot_falling_rule_list(frl).savefig("frl_bank.png", dpi=110)
plot_candidate_sizes(frl).savefig("frl_candidates.png", dpi=110)
