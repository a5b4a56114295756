"""Is column generation's LP bound of 0 the best the LP can give? (issue 37, item 2)

``BooleanRuleCGClassifier(form="dnf")`` on scikit-learn's breast cancer data (all 569
rows, benign = 1, every other default) returns 7 mistakes with a lower bound of 0.  Its
bound comes from the master LP (the relaxation of the rule-set IP over *every* clause of
the binarized conditions).  That LP is 0 exactly when the positives can be covered
fractionally, within the complexity budget ``C``, by *pure* clauses: clauses that hold
on no negative row.  Then no LP argument gives more than 0.

Usage (from the repository root)::

    python benchmarks/colgen_lp_zero.py --search [--positive benign|malignant]
    python benchmarks/colgen_lp_zero.py            # check the stored cover(s)

``--search`` looks for such a cover by column generation on the cover LP

    min  sum_k (1 + |k|) w_k   s.t.  sum_{k holds on i} w_k >= 1  for every positive i,
                                     w >= 0,  k pure,

whose pricing (a pure clause of ``sum_{i in k} pi_i > 1 + |k|``) is tried in turn by
rulekit's beam (negatives given a residual of 1000, so that the clauses it keeps are
pure), by a randomized greedy clause grown from each positive of positive dual, and by
HiGHS on one small MIP per such positive (the clause's literals among those that hold
on that row).  It stops when the LP's value is at most ``C`` (the cover is written to
``results/colgen_lp_zero.json``), or when no pricing finds a column.

The check reads the stored cover and proves, in exact rational arithmetic, that its
clauses are pure, are clauses of the fitted binarizer's conditions, cover every positive
and cost at most the fitted ``C``: the stored weights are read as exact fractions and
divided by the least coverage of a positive row, which makes every coverage at least 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "results", "colgen_lp_zero.json")
#: the residual the beam gives a negative row: a clause holding on one can never pay
NEGATIVE_RESIDUAL = 1000.0


def problem(positive):
    """The data, the labels and the default DNF fit of one labelling."""
    from sklearn.datasets import load_breast_cancer

    from rulekit import BooleanRuleCGClassifier

    d = load_breast_cancer(as_frame=True)
    y = d.target.to_numpy().astype(int)
    if positive == "malignant":
        y = 1 - y
    fit = BooleanRuleCGClassifier(form="dnf").fit(d.data, y)
    return d.data, y, fit


def holds(X, condition) -> np.ndarray:
    """Where one ``(feature, op, value)`` condition holds, read off the data directly."""
    feature, op, value = condition
    x = X[feature].to_numpy(dtype=float)
    if op == "<=":
        return x <= value
    if op == ">":
        return x > value
    raise ValueError(f"unexpected operator {op!r}")


# ---------------------------------------------------------------------------- search

class CoverSearch:
    """Column generation on the pure cover LP over the fitted binarizer's conditions."""

    def __init__(self, X, y, fit, seed=0):
        self.B = np.asarray(fit.binarizer_.transform(X), dtype=bool)
        self.C = int(fit.max_complexity_)
        self.conditions = fit.binarizer_.conditions_
        self.P, self.N = self.B[y == 1], self.B[y == 0]
        self.y = y
        self.rng = np.random.default_rng(seed)
        # the beam's pruning of redundant extensions, made once for every round
        from rulekit.colgen._metadata import condition_metadata
        self.meta = condition_metadata(self.conditions)
        self.compat = self.meta.compatibility()
        self.clauses = list({c for c in map(self.greedy, range(len(self.P))) if c})

    def pure(self, c):
        return not self.N[:, list(c)].all(axis=1).any()

    def gain(self, c, pi):
        return pi[self.P[:, list(c)].all(axis=1)].sum() - 1 - len(c)

    def greedy(self, p, pi=None, noise=0.0):
        """A pure clause over the literals of positive ``p``: each step takes the literal
        that drops the most negatives still held (per unit of dual it loses, given
        duals ``pi``), its score moved at random by ``noise``."""
        lits = np.flatnonzero(self.P[p])
        chosen, negs = [], np.ones(len(self.N), bool)
        poss = np.ones(len(self.P), bool) if pi is None else pi > 0
        while negs.any():
            dropped = (~self.N[negs][:, lits]).sum(axis=0).astype(float)
            score = dropped.copy()
            if pi is not None:
                lost = (pi[poss][:, None] * ~self.P[poss][:, lits]).sum(axis=0)
                score /= 0.05 + lost
            score *= np.exp(noise * self.rng.standard_normal(len(lits)))
            score[dropped == 0] = -1.0
            if score.max() <= 0:
                return None         # a negative holds every literal of p
            j = int(lits[score.argmax()])
            chosen.append(j)
            negs &= self.N[:, j]
            poss &= self.P[:, j]
        # literals no longer needed for purity only cost complexity
        for j in list(chosen):
            rest = [k for k in chosen if k != j]
            if rest and self.pure(rest):
                chosen = rest
        return tuple(sorted(chosen))

    def solve(self):
        """The cover LP over the clauses so far: value, duals, weights."""
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        K = len(self.clauses)
        for _ in range(K):
            h.addVar(0.0, highspy.kHighsInf)
        h.changeColsCost(K, np.arange(K, dtype=np.int32),
                         np.array([1.0 + len(c) for c in self.clauses]))
        A = np.column_stack([self.P[:, list(c)].all(axis=1) for c in self.clauses])
        for row in A:
            idx = np.flatnonzero(row).astype(np.int32)
            h.addRow(1.0, highspy.kHighsInf, len(idx), idx, np.ones(len(idx)))
        h.run()
        sol = h.getSolution()
        return (h.getInfo().objective_function_value, np.array(sol.row_dual),
                np.array(sol.col_value))

    def by_beam(self, pi):
        from rulekit.colgen._beam import beam_search
        from rulekit.colgen._pricing import PricingProblem
        from rulekit.colgen._settings import ColGenSettings

        r = np.where(self.y == 1, 0.0, NEGATIVE_RESIDUAL)
        r[self.y == 1] = -pi
        settings = ColGenSettings(columns_per_round=20, beam_width=40,
                                  beam_max_literals=self.C - 1, beam_max_candidates=10**7)
        prob = PricingProblem(self.B, r, 1.0, 0.0, 0.0, self.C - 1, meta=self.meta.pruning(),
                              compat=self.compat, exclude=set(self.clauses))
        return [c for rc, c in beam_search(prob, settings).ranked
                if rc < -1e-6 and self.pure(c)]

    def by_greedy(self, pi):
        found = set()
        for p in np.flatnonzero(pi > 1e-9):
            for noise in (0.0, 0.3, 0.6, 1.0):
                c = self.greedy(p, pi, noise)
                if c and self.gain(c, pi) > 1e-6:
                    found.add(c)
        return list(found)

    def by_mip(self, pi, seeds=30, seconds=20.0):
        """The best pure clause holding on one positive, by HiGHS (a MIP per positive,
        those of largest dual first); the first that pays is returned."""
        import highspy

        pos = np.flatnonzero(pi > 1e-9)
        for p in np.argsort(-pi)[:seeds]:
            if pi[p] <= 1e-9:
                break
            lits = np.flatnonzero(self.P[p])
            nx, ny = len(lits), len(pos)
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            h.setOptionValue("time_limit", seconds)
            for _ in range(nx + ny):
                h.addVar(0.0, 1.0)
            idx = np.arange(nx + ny, dtype=np.int32)
            h.changeColsIntegrality(nx + ny, idx,
                                    np.array([highspy.HighsVarType.kInteger] * (nx + ny)))
            h.changeColsCost(nx + ny, idx, np.concatenate([np.ones(nx), -pi[pos]]))
            for neg in self.N[:, lits]:             # some literal drops each negative
                j = np.flatnonzero(~neg).astype(np.int32)
                h.addRow(1.0, highspy.kHighsInf, len(j), j, np.ones(len(j)))
            for t, row in enumerate(self.P[pos][:, lits]):  # a positive held: its literals
                for j in np.flatnonzero(~row):
                    h.addRow(-highspy.kHighsInf, 1.0, 2, np.array([j, nx + t], np.int32),
                             np.ones(2))
            h.run()
            x = np.array(h.getSolution().col_value[:nx])
            c = tuple(int(j) for j in lits[x > 0.5])
            if c and c not in self.clauses and self.pure(c) and self.gain(c, pi) > 1e-6:
                return [c]
        return []

    def run(self, log=print):
        t0 = time.time()
        for round_ in range(100_000):
            z, pi, w = self.solve()
            log(f"round {round_}: cover LP {z:.4f} (budget {self.C}), "
                f"{len(self.clauses)} clauses, {time.time() - t0:.0f} s")
            if z <= self.C:
                return z, w
            for how in (self.by_beam, self.by_greedy, self.by_mip):
                new = [c for c in how(pi) if c not in self.clauses]
                if new:
                    break
            if not new:
                return z, None
            self.clauses.extend(new)


# ---------------------------------------------------------------------------- check

def check(entry, log=print, budget=None) -> bool:
    """Prove one stored cover exactly; True when it shows the master LP is 0.

    ``budget``: the complexity budget to hold it to (default: the fitted ``C``).
    """
    X, y, fit = problem(entry["positive"])
    C = int(fit.max_complexity_) if budget is None else budget
    known = {(c.feature, c.op, float(c.value)) for c in fit.binarizer_.conditions_}
    pos = y == 1
    cover = [Fraction(0)] * int(pos.sum())
    cost = Fraction(0)
    for clause in entry["clauses"]:
        conds = [(f, op, float(v)) for f, op, v in clause["conditions"]]
        missing = [c for c in conds if c not in known]
        if missing:
            log(f"  not conditions of the fitted binarizer: {missing}")
            return False
        held = np.all([holds(X, c) for c in conds], axis=0)
        if held[~pos].any():
            log(f"  not pure: {conds}")
            return False
        w = Fraction(clause["weight"])      # the float's exact value
        cost += (1 + len(conds)) * w
        for i in np.flatnonzero(held[pos]):
            cover[i] += w
    least = min(cover)
    if least <= 0:
        log("  a positive row is not covered")
        return False
    scaled = cost / least
    log(f"  {entry['positive']} = 1: fitted budget C = {C}, objective "
        f"{fit.certificate_.objective:.4f}, lower bound {fit.certificate_.lower_bound}; "
        f"{len(entry['clauses'])} pure clauses cover every positive at cost "
        f"{float(scaled):.6f} (exact: {'<=' if scaled <= C else '>'} {C})")
    return scaled <= C


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--search", action="store_true", help="look for a cover and store it")
    ap.add_argument("--positive", default="benign", choices=["benign", "malignant"])
    args = ap.parse_args(argv)
    stored = json.load(open(OUT)) if os.path.exists(OUT) else []
    if not args.search:
        ok = [check(e) for e in stored]
        print(f"{sum(ok)} of {len(ok)} stored covers prove a master LP of 0")
        return 0 if ok and all(ok) else 1
    X, y, fit = problem(args.positive)
    search = CoverSearch(X, y, fit)
    z, w = search.run(log=lambda s: print(s, flush=True))
    if w is None:
        print(f"no pricing found a column: the cover LP stays at {z:.4f} > {search.C}")
        return 1
    clauses = [{"weight": float(w[k]),
                "conditions": [[search.conditions[j].feature, search.conditions[j].op,
                                float(search.conditions[j].value)] for j in c]}
               for k, c in enumerate(search.clauses) if w[k] > 0]
    entry = {"positive": args.positive, "C": search.C, "cover_lp": z, "clauses": clauses}
    stored = [e for e in stored if e["positive"] != args.positive] + [entry]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT + ".tmp", "w") as f:
        json.dump(stored, f, indent=1)
    os.replace(OUT + ".tmp", OUT)
    return 0 if check(entry) else 1


if __name__ == "__main__":
    sys.exit(main())
