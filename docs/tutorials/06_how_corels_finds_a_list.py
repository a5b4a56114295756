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
# # Tutorial 6 — how CORELS finds a rule list, step by step
#
# A teaching notebook.  Run it in Jupyter (``06_how_corels_finds_a_list.ipynb``)
# to see the explorer page inline, or as a script:
# ``python docs/tutorials/06_how_corels_finds_a_list.py`` (about 10 CPU s, plus
# the one-time compilation of the CORELS kernels after installing; quick mode,
# ``RULEKIT_TUTORIAL_QUICK=1``, skips the last, larger search).
#
# ``CorelsClassifier().fit(X, y)`` does five things in one call.  Here we do them
# one at a time, on the ProPublica compas data (will a defendant be arrested
# again within two years?), so that each step can be looked at and questioned:
#
# 1. **binarize** — turn each column into yes/no *conditions*;
# 2. **mine** — choose the *antecedents*, the if-parts a rule may use;
# 3. **search** — branch and bound over every rule list built from them;
# 4. **certify** — read what the search proved, and what it did not;
# 5. **edit** — try to beat the machine, by hand and in the explorer page;
#
# and then look past the single best list at the **Rashomon set**: all the lists
# that are almost as good.
#
# A note for teachers: every step prints what it found, and the ``assert`` lines
# state what the step guarantees.  A cell that fails means the claim made in
# the text is false; please tell us.

# %%
import os

import numpy as np

import rulekit
from rulekit import Binarizer, CorelsClassifier, mine_antecedents
from rulekit.corels import search
from rulekit.datasets import load_compas

quick = os.environ.get("RULEKIT_TUTORIAL_QUICK") == "1"

X, y = load_compas(return_X_y=True)
n = len(y)
print(X.shape, "rows x columns;", f"{y.mean():.1%} re-arrested within two years")
X.head()

# %% [markdown]
# ## 1. Binarize: from columns to conditions
#
# A rule list speaks a small language: "if *this* then predict *that*".  The
# *this* must be true or false for each person, so numbers and categories are
# first turned into **conditions** such as ``age <= 22`` or ``sex == Male``.
#
# ``Binarizer`` does it.  For a numeric column it places thresholds at quantiles
# (here at most 9, the deciles), and writes each threshold twice, as ``<=`` and
# ``>``, so that a rule can say either side.  A threshold is kept only when both
# sides hold for at least 1% of the rows (``min_frequency``): a condition that is
# almost always true, or almost never, cannot make a useful rule.  A column with
# few distinct values gets fewer thresholds.
#
# *Question for students:* why does ``juv_fel_count`` (juvenile felonies) get so
# few thresholds, when ``age`` gets many?

# %%
binarizer = Binarizer(n_thresholds=9).fit(X, y)
B = binarizer.transform(X)  # one boolean column per condition
names = list(binarizer.get_feature_names_out())
print(f"{X.shape[1]} columns became {B.shape[1]} conditions")
for feature in X.columns:
    mine = [name for name in names if name.startswith(feature + " ")]
    print(f"  {feature:16s} {len(mine):2d}  e.g. {mine[:2]}")

# %% [markdown]
# The **support** of a condition is the number of rows where it holds.

# %%
support = B.sum(axis=0)
for name, s in list(zip(names, support))[:8]:
    print(f"  {name:22s} holds for {s:5d} rows ({s / n:.1%})")
assert (support >= 0.01 * n).all() and (n - support >= 0.01 * n).all()

# %% [markdown]
# ## 2. Mine: which if-parts may a rule use?
#
# An **antecedent** is a conjunction of conditions, such as
# ``age <= 22 and priors_count > 3``.  With ``max_card=1`` every antecedent is a
# single condition; with ``max_card=2`` pairs are allowed too, and the number of
# candidates grows fast.  ``mine_antecedents`` keeps those that are frequent
# enough (``min_support``, a share of the rows of at least one class).
#
# Mining at a support equal to the penalty ``c`` (next step) loses nothing: a
# theorem of the CORELS paper says an optimal list never uses a rule that
# captures fewer than ``c * n`` rows, because such a rule cannot fix enough
# mistakes to pay its penalty.

# %%
c = 0.01  # the price of one rule: it must remove at least c*n = 72 mistakes
for max_card in (1, 2, 3):
    pool = mine_antecedents(B, y, min_support=c, max_card=max_card, conditions=binarizer.conditions_)
    print(f"max_card={max_card}: {len(pool.names):5d} antecedents")

antecedents = mine_antecedents(B, y, min_support=c, max_card=1, conditions=binarizer.conditions_)
A = antecedents.matrix  # rows x antecedents, True where the antecedent holds
print("the pool we search:", A.shape[1], "antecedents, e.g.", antecedents.names[:3])

# %% [markdown]
# The pool grows from dozens to thousands of antecedents, and the number of
# rule lists grows much faster still (with 44 antecedents there are already
# 44 x 43 x 42 = 79,464 lists of three rules).  We search single conditions here so
# that the notebook runs in seconds; the full mode at the end searches pairs.
#
# ## 3. Search: branch and bound
#
# CORELS minimizes
#
#     objective = mistakes / n  +  c x (number of rules)
#
# over **every** rule list whose rules are antecedents of the pool.  Each rule
# predicts the majority label of the rows it *captures* (rows that reach it and
# satisfy it); the default rule at the end predicts the majority of the rest.
#
# It cannot list them all, so it grows lists one rule at a time (a *prefix*
# tree) and throws a prefix away as soon as a **bound** proves that nothing
# starting with it can beat the best list found so far.  One example: the
# mistakes a prefix has already made can never be undone by adding rules, so
# ``mistakes_so_far / n + c x rules_so_far`` is a lower bound for every list that
# starts with it.
#
# ``rulekit.corels.search`` is the engine itself: it takes the boolean matrix
# and the labels, nothing else.

# %%
labels = y.to_numpy()
result = search(A, labels, c)
print(result.status, "objective", round(result.objective, 6), "with", result.mistakes, "mistakes")
for j, label in zip(result.prefix, result.rule_labels):
    print(f"  if {antecedents.names[j]} then predict {label}")
print(f"  else predict {result.default_label}")
pruned = result.stats["pruned"]
print("prefixes expanded:", result.stats["nodes_expanded"], " pruned, by reason:",
      {reason: count for reason, count in pruned.items() if count})

# %% [markdown]
# The estimator does the same three steps in one call, and wraps the answer in a
# readable model.  With the same settings it finds the same list:

# %%
est = CorelsClassifier(c=c, max_card=1, thresholds="quantile").fit(X, y)
print(est)
assert est.result_.prefix == result.prefix and est.antecedents_.names == antecedents.names

# %% [markdown]
# ## 4. Certify: what "optimal" promises
#
# The search stops when the **lower bound** (the least objective any list not
# yet ruled out could have) meets the **objective** of the best list found.  Then
# the certificate says ``optimal``, with a gap of zero:

# %%
cert = est.certificate_
print(cert.summary())
print("objective", cert.objective, " lower bound", cert.lower_bound, " gap", cert.gap)
assert cert.status == "optimal" and cert.gap == 0.0

# %% [markdown]
# Read the ``scope`` line carefully: it is the whole promise.
#
# * **It promises**: no rule list over *these* antecedents has a lower objective
#   *on these training rows*, for *this* ``c``.  Not "probably", not "we tried
#   hard": every other list was either scored or ruled out by a bound.
# * **It does not promise** the best accuracy on new people (that is a question
#   for held-out data, below); nor the best list over other thresholds, pairs of
#   conditions, or another ``c``; nor that the list is fair or causal.  Those are
#   questions a certificate cannot answer, and a class should ask them.
#
# Training accuracy follows from the objective: ``1 - (objective - c x rules)``.
# On rows the model never saw, the accuracy is measured, not certified:

# %%
k = len(est.model_)
print(f"{k} rules: training accuracy {est.score(X, y):.4f} = 1 - ({cert.objective:.4f} - {c} x {k})")

rng = np.random.default_rng(0)
test = rng.random(n) < 0.25
held = CorelsClassifier(c=c, max_card=1, thresholds="quantile").fit(X[~test], y[~test])
print(f"fitted on 75%: training accuracy {held.score(X[~test], y[~test]):.3f}, "
      f"held-out accuracy {held.score(X[test], y[test]):.3f}")

# %% [markdown]
# A search that is stopped early (here after 20 prefixes) still returns its best
# list, but the certificate is honest about it: a status other than
# ``optimal``, and the gap between what it found and what might exist.

# %%
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the ConvergenceWarning says the same
    rushed = search(A, labels, 0.002, max_nodes=20)
print(rushed.status, "objective", round(rushed.objective, 4), "lower bound", round(rushed.lower_bound, 4))
assert rushed.lower_bound <= rushed.objective


# %% [markdown]
# ## 5. Edit: try to beat the machine
#
# The objective is simple enough to compute by hand.  Here it is in ten lines of
# numpy: walk down the list, let each rule capture the rows that reach it, count
# the minority of what it captured as mistakes.

# %%
def objective(prefix, A=A, labels=labels, c=c):
    """mistakes / n + c * rules of the rule list made of these antecedents."""
    left = np.ones(len(labels), bool)  # rows not captured yet
    mistakes = 0
    for j in prefix:
        captured = A[:, j] & left
        ones = int(labels[captured].sum())
        mistakes += min(ones, int(captured.sum()) - ones)  # the rule predicts the majority
        left &= ~captured
    ones = int(labels[left].sum())
    mistakes += min(ones, int(left.sum()) - ones)  # and so does the default rule
    return mistakes / len(labels) + c * len(prefix)


best = list(result.prefix)
print("the certified list:", round(objective(best), 6))
assert abs(objective(best) - result.objective) < 1e-12

# %% [markdown]
# Now edit it: reverse the order, drop a rule, add one, or try hundreds of lists
# at random.  Whatever we do, nothing goes below the certified optimum.

# %%
edits = {
    "reversed": best[::-1],
    "first rule only": best[:1],
    "no rules at all": [],
    "one more rule": best + [int(np.argmax(A.sum(axis=0)))],
}
for what, prefix in edits.items():
    print(f"  {what:16s} {objective(prefix):.6f}  {[antecedents.names[j] for j in prefix]}")
random_lists = [list(rng.choice(A.shape[1], size=rng.integers(1, 5), replace=False)) for _ in range(300)]
scores = [objective(p) for p in random_lists]
print(f"300 random lists: best {min(scores):.6f}, certified optimum {result.objective:.6f}")
assert min(scores) >= result.objective - 1e-12
assert all(objective(p) >= result.objective - 1e-12 for p in edits.values())

# %% [markdown]
# ### The explorer page
#
# The same game is more fun with a mouse.  ``rulekit.explore`` writes one HTML
# file that opens in any browser, with no server and no network: its "Edit"
# view starts from the certified list and lets students add, move and remove
# rules while the objective, the optimum and the lower bound stay on screen.  We
# pass the Rashomon set (next section) so that the page has that view too.
#
# In Jupyter the page shows right below the cell, in an isolated frame; the file
# ``compas_explorer.html`` can also be handed out and opened from disk.

# %%
rashomon = est.rashomon_set(0.005)
page = rulekit.explore(est, X, y, path="compas_explorer.html", rashomon=rashomon,
                       title="How CORELS finds a rule list: compas")
print("wrote", page.path, f"({len(page.html) / 1e6:.1f} MB)")
page

# %% [markdown]
# ## 6. The Rashomon set: many lists, almost as good
#
# The optimal list is one answer, not the answer.  The **Rashomon set** holds
# every list whose objective is within ``epsilon`` of the optimum; with
# ``epsilon = 0.005`` that is half a percent of the rows, or half a rule's price.
# ``rashomon_set`` enumerates it exactly, with the same bounds as the search.

# %%
print(rashomon.count)
objectives = np.asarray(rashomon.objectives)
print(f"objectives from {objectives.min():.6f} to {objectives.max():.6f}")
assert objectives.min() >= cert.lower_bound - 1e-12
assert objectives.max() <= cert.objective + 0.005 + 1e-12

# %% [markdown]
# Which conditions do the good lists use?  A condition used by nearly every list
# is a robust finding; one used by a few is a choice among equals.

# %%
importance = rashomon.condition_importance()
print(importance.head(8).to_string())

# %% [markdown]
# And do they agree on each person?  For each row, the share of the lists that
# predict each label: rows near 50/50 are people whose prediction depends on
# which of the equally good lists we happened to pick.

# %%
votes = rashomon.disagreement()
ambiguous = votes.min(axis=1) > 0
print(f"{ambiguous.mean():.1%} of the rows get different predictions from different good lists")

# %% [markdown]
# *Questions for a class:* if two lists are equally good on the data but treat a
# person differently, which should a court use, and who decides?  Which of the
# robust conditions would you expect, and which surprise you?

# %% [markdown]
# ## Full mode: a larger pool
#
# With ``max_card=2`` the pool holds pairs of conditions, hundreds of
# antecedents instead of dozens.  The search is the same; it only has more to
# rule out, and the estimator gives it a budget of work (``max_work``, a count of
# operations, not a clock, so the answer is the same on every machine).  Read the
# certificate: when the budget runs out before the proof, it says ``work_limit``
# and how large the gap is.  That list is the best *found*, not *proved*: a
# different statement, and the certificate never blurs the two.  (Quick mode
# skips this cell: it takes about 10 CPU s more.)

# %%
if not quick:
    pairs = CorelsClassifier(c=c, max_card=2, thresholds="quantile").fit(X, y)
    print(pairs)
    print(pairs.certificate_.summary())
    assert pairs.certificate_.lower_bound <= pairs.certificate_.objective
