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
# # Tutorial 1 — a certified rule list on compas, and how to read the certificate
#
# Run: ``python docs/tutorials/01_corels_compas.py``, or open
# ``01_corels_compas.ipynb`` in Jupyter (about 5 CPU s, plus about 10 s of one-time
# compilation on the first CORELS fit after installing; the tutorial is small, so
# its quick mode, ``RULEKIT_TUTORIAL_QUICK=1``, runs the same steps).
#
# CORELS searches every rule list over a pool of antecedents and stops only
# when it has *proved* that none is better than the one it returns.  The
# objective is ``mistakes / N + c * (number of rules)``: ``c`` is the accuracy
# a rule must buy to earn its place.

# %%
from rulekit import CorelsClassifier
from rulekit.datasets import load_compas, load_corels_compas
from rulekit.corels import search

X, y = load_compas(return_X_y=True)

# %% [markdown]
# ## 1. Fit, with every default
#
# The thresholds come from a small boosted ensemble (few and useful), and c is
# chosen by cross-validation along a regularization path of penalties that the
# search certifies.

# %%
model = CorelsClassifier().fit(X, y)
print(model)
print(model.selection_.table())   # every point of the path, and the one chosen

# %% [markdown]
# ## 2. The certificate
#
# "optimal" means the lower bound met the objective: no list over these
# antecedents scores better.  Its scope says which pool: mining at support c
# (the default) loses nothing, by CORELS's minimum-support theorem, so the claim
# covers every antecedent of up to max_card conditions over the binarized
# features.

# %%
cert = model.certificate_
print(cert)
assert cert.status == "optimal" and cert.gap == 0.0

# %% [markdown]
# ## 3. Read the numbers behind it
#
# Training accuracy is 1 - (objective - c*K).

# %%
k = len(model.model_)
c = model.c_
print(f"{k} rules, training accuracy {model.score(X, y):.4f} = 1 - ({cert.objective:.4f} - {c:g} x {k})")

# %% [markdown]
# ## 4. When a limit stops the search
#
# You still get the best list so far, a ConvergenceWarning and an honest gap.

# %%
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    rushed = CorelsClassifier(c=0.002, max_nodes=5000).fit(X, y)
print(rushed.certificate_.status, "gap", round(rushed.certificate_.gap, 4))
assert rushed.certificate_.lower_bound <= rushed.certificate_.objective

# %% [markdown]
# ## 5. The standard CORELS instance
#
# The authors' 155 pre-mined antecedents.  The engine works on any boolean
# antecedent matrix directly.

# %%
inst = load_corels_compas()
result = search(inst.data, inst.target, 0.01)
print(result.status, result.mistakes, "mistakes,", [inst.feature_names[j] for j in result.prefix])
assert result.mistakes == 2258 and len(result.prefix) == 2
