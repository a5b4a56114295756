"""Build the explorer page: a payload of plain JSON, then one self-contained HTML file.

The page is ``assets/page.html`` with the style sheet, the script and the
payload put inline.  Nothing from the data is ever written as HTML: the
payload goes into a ``<script type="application/json">`` element with ``<``,
``>``, ``&`` and the two JavaScript line separators escaped as ``\\uXXXX``
(so no value can close the element or start a comment), and the script sets
every text with ``textContent``.

Sample sets travel as packed bit sets (sample ``i`` is bit ``i % 32`` of
little-endian 32-bit word ``i // 32``, base64-encoded): the page recomputes a
rule list's mistakes from them with the same integer counts as
:func:`rulekit.evaluate.capture_counts`, and its objective with the same
floating-point expression as the CORELS engine (``mistakes / N + c * K``), so
the two agree to the last bit.
"""

from __future__ import annotations

import base64
import html
import json
import math
from importlib import resources
from pathlib import Path

import numpy as np

from .._files import write_atomic
from .._render import format_value
from .._columns import plain as _plain
from ..bitset import unpack
from ..mining import evaluate_antecedents
from ..models import OneVsRestRuleSets, RuleList, RuleSet
from ..persist import Predictor
from .._tolerances import FLOAT_SLACK, RATE_SLACK

__all__ = ["explore", "ExplorerPage", "build_payload", "page_html", "MAX_PAGE_BYTES"]

#: the bit sets of the antecedent pool take at most this many bytes (before base64);
#: beyond it the pool keeps the model's antecedents and then the most frequent ones
POOL_BYTES = 900_000
#: raw cells (rows x columns) of the data shown beside "which rule fired"
MAX_CELLS = 120_000
#: points of a history (FRL objective, ...) kept; longer ones are sampled evenly
MAX_POINTS = 600
#: the size the page aims to stay under (the issue's budget for compas)
MAX_PAGE_BYTES = 2_000_000
#: events of a recorded search (``trace="events"``) the replay carries; a longer log is
#: sampled evenly (first and last kept, every new best list kept) and the page says so
MAX_EVENTS = 4000

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
            "\u2029": "\\u2029"}


def _finite(value):
    """A float for JSON, or None for NaN and infinities (JSON has neither)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _text(value) -> str:
    return format_value(_plain(value))


def _bits(col: np.ndarray) -> str:
    """One boolean column as base64 of little-endian uint32 words."""
    raw = np.packbits(np.asarray(col, dtype=bool), bitorder="little").tobytes()
    raw += b"\0" * (-len(raw) % 4)
    return base64.b64encode(raw).decode("ascii")


def _sampled(values, limit: int = MAX_POINTS):
    """Indices of at most ``limit`` evenly spaced points, first and last kept."""
    n = len(values)
    if n <= limit:
        return list(range(n))
    return sorted(set(np.linspace(0, n - 1, limit).round().astype(int).tolist()))


def _check_fitted(estimator):
    # every rulekit estimator implements the learner contract's ``_solve``: asking for it
    # instead of importing the estimator base keeps the explorer below the estimators, whose
    # ``explore`` method calls it
    if isinstance(estimator, type) or not callable(getattr(estimator, "_solve", None)):
        raise TypeError("explore: expected a fitted rulekit estimator (CorelsClassifier, "
                        "FallingRuleListClassifier, SoftFallingRuleListClassifier or "
                        f"BooleanRuleCGClassifier), got {type(estimator).__name__}")
    if not hasattr(estimator, "model_"):
        raise ValueError(f"explore: this {type(estimator).__name__} is not fitted; call fit(X, y) "
                         "first")


def _codes(estimator, y, n: int) -> np.ndarray:
    y = np.asarray(y, dtype=object).ravel() if not hasattr(y, "to_numpy") else \
        np.asarray(y.to_numpy(), dtype=object).ravel()
    if y.shape[0] != n:
        raise ValueError(f"explore: X has {n} rows but y has {y.shape[0]} labels")
    index = {_plain(c): k for k, c in enumerate(estimator.classes_)}
    codes = np.empty(n, dtype=np.int64)
    for i, v in enumerate(y):
        k = index.get(_plain(v))
        if k is None:
            raise ValueError(f"explore: y holds the label {_plain(v)!r}, which is not one of the "
                             f"classes the estimator was fitted on {list(index)}")
        codes[i] = k
    return codes


def _features(conditions) -> list:
    """Each feature: its kind, thresholds and conditions (indices), in the binarizer's order."""
    out, where = [], {}
    for j, cond in enumerate(conditions):
        if cond.feature not in where:
            where[cond.feature] = len(out)
            out.append({"name": str(cond.feature), "conditions": [], "thresholds": []})
        f = out[where[cond.feature]]
        f["conditions"].append(j)
        if cond.op in ("<=", ">"):
            t = _plain(cond.value)
            if t not in f["thresholds"]:
                f["thresholds"].append(t)
    for f in out:
        f["thresholds"] = sorted(f["thresholds"])
        f["threshold_text"] = [_text(t) for t in f["thresholds"]]
    return out


def _columns(binarizer) -> list:
    """Every column the binarizer read, with its count of conditions and, when it gave
    none, the binarizer's own reason (the page does not guess it)."""
    report = getattr(binarizer, "column_report", None)
    if report is None:
        return []
    return [{"name": str(name), "column": str(r["column"]), "kind": str(r["kind"]),
             "conditions": int(r["conditions"]), "reason": str(r["reason"])}
            for name, r in report().iterrows()]


def _data_rows(X, n: int) -> dict:
    """The raw rows shown beside "which rule fired" (all of them, within MAX_CELLS)."""
    import pandas as pd

    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X, dtype=object))
    p = max(frame.shape[1], 1)
    rows = min(n, max(1, MAX_CELLS // p))
    head = frame.iloc[:rows]
    columns = [str(c) for c in frame.columns]
    values = [[None if (v is None or (isinstance(v, float) and math.isnan(v))) or v is pd.NA
               else _text(v) for v in head[c].tolist()] for c in frame.columns]
    return {"columns": columns, "values": values, "rows": rows}


def _model_rules(model, pool_index: dict, classes) -> dict:
    """The fitted model in the page's terms."""
    if isinstance(model, RuleList):
        stated = [None if r.probabilities is None else [float(p) for p in r.probabilities]
                  for r in [*model.rules, model.default]]
        return {"type": "RuleList", "positive": None if model.positive is None
                else _text(model.positive),
                "rules": [{"conditions": list(r.conditions),
                           "text": " and ".join(model.condition_text(j) for j in r.conditions),
                           "antecedent": pool_index.get(tuple(r.conditions), -1),
                           "prediction": _text(r.prediction),
                           "counts": [int(v) for v in r.counts],
                           "probabilities": p}
                          for r, p in zip(model.rules, stated)],
                "default": {"prediction": _text(model.default.prediction),
                            "counts": [int(v) for v in model.default.counts],
                            "probabilities": stated[-1]}}
    if isinstance(model, OneVsRestRuleSets):
        # the decision list the model prints (and predict follows): the page shows it
        # above the members, so a row's class can be read off the page by hand
        steps, default = model.steps()
        return {"type": "OneVsRestRuleSets",
                "members": [_model_rules(m, pool_index, classes) for m in model.members],
                "classes": [_text(c) for c in model.classes],
                "steps": [{"member": int(st.cls), "holds": bool(st.holds),
                           "score": float(st.score)} for st in steps],
                "default": int(default)}
    if isinstance(model, RuleSet):
        joiner = " and " if model.form == "dnf" else " or "
        return {"type": "RuleSet", "form": model.form,
                "clauses": [{"conditions": list(cl),
                             "text": joiner.join(model.condition_text(j) for j in cl)}
                            for cl in model.clauses],
                "positive": _text(model.classes[1]),
                "proba_true": model.proba_true, "proba_false": model.proba_false,
                "counts_true": model.counts_true and list(model.counts_true),
                "counts_false": model.counts_false and list(model.counts_false)}
    return {"type": type(model).__name__, "text": str(model)}


def _pool(estimator, B, model) -> tuple[list, dict, dict]:
    """The antecedents the page offers, with their bit sets, within POOL_BYTES."""
    ants = getattr(estimator, "antecedents_", None)
    if ants is None:
        return [], {}, {}
    items = [tuple(int(j) for j in item) for item in ants.items]
    # CORELS certifies over antecedents of up to max_card_ conditions: lists built from
    # wider ones are outside the certificate's scope, so the editor does not offer them
    card = getattr(estimator, "max_card_", None)
    allowed = [a for a, item in enumerate(items) if card is None or len(item) <= card]
    A = evaluate_antecedents(B, [items[a] for a in allowed]) if allowed else \
        np.zeros((B.shape[0], 0), bool)
    support = A.sum(axis=0).astype(int)
    used = {tuple(r.conditions) for r in getattr(model, "rules", [])}
    per_set = (B.shape[0] + 31) // 32 * 4
    budget = max(len(used), POOL_BYTES // max(per_set, 1))
    order = sorted(range(len(allowed)),
                   key=lambda k: (items[allowed[k]] not in used, -support[k], allowed[k]))
    kept = sorted(order[:budget])
    pool = [{"id": allowed[k], "conditions": list(items[allowed[k]]),
             "support": int(support[k]), "bits": _bits(A[:, k])} for k in kept]
    index = {items[allowed[k]]: i for i, k in enumerate(kept)}
    info = {"mined": len(items), "in_scope": len(allowed), "shown": len(kept),
            "max_card": card, "sampled": len(kept) < len(allowed)}
    return pool, index, info


def _corels(estimator, pool_index, same) -> dict:
    cert = estimator.certificate_
    out = {"c": float(estimator.c_), "status": cert.status, "proved": bool(cert.proved_optimal),
           "objective": _finite(cert.objective), "lower_bound": _finite(cert.lower_bound),
           "scope": cert.scope, "same_data": same}
    items = [tuple(r.conditions) for r in estimator.model_.rules]
    out["optimal"] = [pool_index.get(it, -1) for it in items]
    # the bound holds for every list the editor can build only when the search was neither
    # constrained (forbidden / required / fairness: the editor does not enforce them) nor
    # relative to a reference model (its proof covers a class of lists, not all of them)
    params = estimator.get_params(deep=False)
    constrained = bool(params.get("forbidden") or params.get("required") or params.get("fairness"))
    relative = bool(getattr(getattr(estimator, "result_", None), "reference", False))
    out["bound_covers_editor"] = not constrained and not relative
    out["bound_note"] = ("the search was constrained (forbidden, required or fairness), which "
                         "this editor does not enforce" if constrained else
                         "the proof is relative to a reference model and covers only some lists"
                         if relative else "")
    stats = getattr(estimator, "stats_", None) or {}
    if "pruned" in stats:
        out["stats"] = {"nodes_expanded": int(stats.get("nodes_expanded", 0)),
                        "nodes_evaluated": int(stats.get("nodes_evaluated", 0)),
                        "pruned": {k: int(v) for k, v in stats["pruned"].items()}}
    trace = getattr(estimator, "trace_", None) or {}
    if "best_objective" in trace and len(trace["best_objective"]):
        keep = _sampled(trace["best_objective"])
        out["trace"] = {k: [_finite(trace[k][i]) for i in keep]
                        for k in ("nodes", "best_objective", "lower_bound") if k in trace}
        out["trace_sampled"] = len(keep) < len(trace["best_objective"])
    events = getattr(getattr(estimator, "result_", None), "events", None)
    if events is not None and "pruned" in stats:
        ante = getattr(estimator, "antecedents_", None)
        out["replay"] = _replay(events, stats["pruned"], None if ante is None else ante.items,
                                estimator.binarizer_.conditions_)
    return out


def _replay(events, pruned_names, items, conditions) -> dict:
    """The search replay: counts over the whole event log, and the events the page shows.

    Columns of ``events`` (one entry per shown event): ``i`` its number in the log,
    ``k`` kind (0 expand, 1 prune, 2 new best), ``r`` the prune reason (index into
    ``reasons``, -1 otherwise), ``p`` the prefix as antecedent numbers, ``v`` the value
    (objective units), ``x`` expansions in the log up to and including the event.
    """
    kind = np.asarray(events["kind"])
    total = len(kind)
    codes = {"expand": 0, "prune": 1, "best": 2}
    reasons = list(pruned_names)
    rindex = {r: i for i, r in enumerate(reasons)}
    is_prune = kind == "prune"
    counts = {"expand": int((kind == "expand").sum()), "best": int((kind == "best").sum()),
              "prune": {r: int((np.asarray(events["reason"])[is_prune] == r).sum())
                        for r in reasons}}
    keep = set(_sampled(kind, MAX_EVENTS)) | set(np.flatnonzero(kind == "best").tolist())
    keep = sorted(keep)
    expanded = np.asarray(events["expanded"])
    labels = {}
    for i in keep:
        for a in events["prefix"][i]:
            if a not in labels:
                labels[a] = (" and ".join(str(conditions[j]) for j in items[a])
                             if items is not None else str(a))
    return {
        "total": total, "shown": len(keep), "sampled": len(keep) < total,
        "truncated": int(events.get("truncated", 0)), "cap": int(events.get("cap", 0)),
        "reasons": reasons, "counts": counts,
        "labels": {str(a): t for a, t in labels.items()},
        "events": {"i": keep, "k": [codes[str(kind[i])] for i in keep],
                   "r": [rindex.get(str(events["reason"][i]), -1) for i in keep],
                   "p": [list(events["prefix"][i]) for i in keep],
                   "v": [_finite(events["value"][i]) for i in keep],
                   "x": [int(expanded[i]) for i in keep]},
    }


def _frl(estimator) -> dict:
    best = np.asarray(getattr(estimator, "best_objective_history_", []), dtype=float)
    obj = np.asarray(getattr(estimator, "objective_history_", []), dtype=float)
    keep = _sampled(best)
    cert = estimator.certificate_
    return {"iterations": [i + 1 for i in keep], "best": [_finite(best[i]) for i in keep],
            "objective": [_finite(obj[i]) for i in keep], "n_iter": int(best.size),
            "sampled": len(keep) < best.size,
            "final": _finite(cert.objective), "status": cert.status,
            "lower_bound": _finite(cert.lower_bound), "scope": cert.scope,
            "threshold": _finite(getattr(estimator, "threshold_", None)),
            "positive": _text(getattr(estimator, "positive_class_", estimator.classes_[-1]))}


#: column-generation pricings whose bound on the reduced cost is exact (a valid bound)
EXACT_PRICING = ("enum", "ip", "none")


def _cg(estimator) -> dict:
    results = estimator.result_ if isinstance(estimator.result_, list) else [estimator.result_]
    n, unit = estimator.certificate_.n, estimator.certificate_.unit
    runs = []
    for k, res in enumerate(results):
        recs = list(res.trace)
        keep = _sampled(recs)
        runs.append({
            # the member's claim in the estimator's unit (a rate, its count beside); the
            # chart and the table below stay in the engine's counts
            "summary": (res.certificate if n is None else res.certificate.per(n, unit)).summary(),
            "member": _text(estimator.classes_[k]) if len(results) > 1 else None,
            "form": res.form, "status": res.status, "objective": _finite(res.objective),
            "lower_bound": _finite(res.lower_bound), "lp_value": _finite(res.lp_value),
            "lp_proven": bool(res.lp_proven), "n_columns": int(res.n_columns),
            "complexity": int(res.complexity), "sampled": len(keep) < len(recs),
            "iterations": [{"iteration": int(recs[i].iteration), "rmlp": _finite(recs[i].rmlp),
                            "bound": _finite(recs[i].bound), "pricing": recs[i].pricing,
                            "exact": recs[i].pricing in EXACT_PRICING and
                            recs[i].bound is not None,
                            "n_added": int(recs[i].n_added),
                            "n_columns": int(recs[i].n_columns)} for i in keep]})
    return {"runs": runs}


#: lists of a Rashomon set compared pairwise on the page (the first, best, ones)
MAX_PAIRS = 20
#: lists of a Rashomon set the page carries (the best ones) for its filters; the count and
#: the histogram of objectives are over every list of the set
MAX_LISTS = 2000
#: bins of the histogram of the Rashomon set's objectives
OBJECTIVE_BINS = 12


def _objective_histogram(objectives: np.ndarray, shown: int) -> dict:
    """Counts of every list's objective in equal bins, and of the lists the page carries.

    The bins run from the lowest objective to the highest, the last one closed.
    """
    if objectives.size == 0:
        return {"edges": [], "all": [], "shown": []}
    lo, hi = float(objectives.min()), float(objectives.max())
    if hi <= lo:
        hi = lo + max(abs(lo) * FLOAT_SLACK, RATE_SLACK)   # one bin of width near 0
    edges = np.linspace(lo, hi, OBJECTIVE_BINS + 1)
    every = np.histogram(objectives, bins=edges)[0]
    kept = np.histogram(objectives[:shown], bins=edges)[0]
    return {"edges": [float(v) for v in edges], "all": every.tolist(), "shown": kept.tolist()}


def _rashomon(rset, B) -> dict:
    if getattr(rset, "kind", None) != "RashomonSet":
        raise TypeError(f"explore: rashomon= takes the RashomonSet of est.rashomon_set(...), got "
                        f"{type(rset).__name__}")
    objectives = np.asarray(rset.objectives, dtype=float)
    shown = min(len(rset), MAX_LISTS)
    lengths = rset.result.prefixes.lengths() if len(rset) else np.zeros(0, int)
    imp = rset.condition_importance()
    flat, off = rset.result.prefixes.arrays() if len(rset) else (np.zeros(0, int), [0])
    items = rset.antecedents.items
    conds = [sorted({j for a in flat[off[i]:off[i + 1]] for j in items[a]})
             for i in range(shown)]
    features = list(dict.fromkeys(c.feature for c in rset.conditions))
    spans = rset.feature_importance()
    k = min(len(rset), MAX_PAIRS)
    preds = np.array([np.asarray(rset[i].predict(B), dtype=object) for i in range(k)])
    pairs = [[float(np.mean(preds[i] != preds[j])) for j in range(k)] for i in range(k)]
    dis = rset.disagreement()
    top = dis.max(axis=1).to_numpy()
    return {"count": len(rset), "complete": bool(rset.complete), "status": rset.status,
            "epsilon": float(rset.epsilon), "optimum": _finite(rset.optimum),
            "scope": rset.scope, "objectives": [float(v) for v in objectives[:shown]],
            "histogram": _objective_histogram(objectives, shown),
            "lengths": [int(v) for v in lengths[:shown]], "list_conditions": conds,
            "features": features,
            "list_features": [sorted({features.index(rset.conditions[j].feature) for j in cs})
                              for cs in conds],
            "feature_importance": [
                {"feature": str(f), "min": float(r["min"]), "mean": float(r["mean"]),
                 "max": float(r["max"]), "lists": float(r["share of lists"])}
                for f, r in spans.iterrows()],
            "lists_shown": shown,
            "importance": [{"condition": str(k), "share": float(v)} for k, v in imp.items()],
            "ambiguous": int((top < 1.0).sum()), "rows": int(top.size), "pairs": pairs,
            "agreement_hist": np.histogram(top, bins=10, range=(0.0, 1.0))[0].tolist()}


def _is_training_data(train, B, codes) -> bool:
    """Are ``(B, codes)`` the rows the estimator was fitted on (``_train``)?

    ``_train`` is ``(packed rows, codes, rows, counts)``; with counts, the fit
    searched distinct rows, and the data are the training data when they fold
    into the same rows with the same counts (in any order).
    """
    if train is None:
        return False
    packed, train_codes, n_rows, counts = (*train, None)[:4]
    if counts is None:
        return bool(n_rows == codes.size and np.array_equal(train_codes, codes))
    if int(counts.sum()) != codes.size:
        return False
    mine = _folded(unpack(packed, n_rows).T, train_codes, counts)
    theirs = _folded(B, codes, np.ones(codes.size, dtype=np.int64))
    return bool(mine[0].shape == theirs[0].shape and np.array_equal(mine[0], theirs[0])
                and np.array_equal(mine[1], theirs[1]))


def _folded(rows, labels, weight):
    """The distinct ``(row, label)`` pairs, sorted, and the summed weight of each."""
    keys = np.column_stack([np.packbits(np.asarray(rows, dtype=bool), axis=1),
                            np.asarray(labels, dtype=">u8").view(np.uint8).reshape(-1, 8)])
    distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
    return distinct, np.bincount(inverse.ravel(), weights=weight, minlength=len(distinct))


def build_payload(estimator, X, y, *, rashomon=None, title=None) -> dict:
    """Everything the page shows, as plain JSON-ready values.

    Parameters
    ----------
    estimator : fitted rulekit estimator
    X : DataFrame or array-like
        The rows to show (normally the training rows: the certificate refers to those).
    y : array-like
        Their labels.
    rashomon : RashomonSet, optional
        From :meth:`rulekit.CorelsClassifier.rashomon_set`; adds the Rashomon view.
    title : str, optional

    Returns
    -------
    dict
    """
    _check_fitted(estimator)
    B = estimator.binarizer_.transform(X)
    n = B.shape[0]
    if n == 0:
        raise ValueError("explore: X has no rows")
    codes = _codes(estimator, y, n)
    conditions = estimator.binarizer_.conditions_
    model = estimator.model_
    pool, pool_index, pool_info = _pool(estimator, B, model)
    train = getattr(estimator, "_train", None)
    same = _is_training_data(train, B, codes)
    learner = type(estimator).__name__
    payload = {
        "format": "rulekit-explorer", "schema": 1, "learner": learner,
        "title": title or f"{learner} explorer",
        "n": int(n), "classes": [_text(c) for c in estimator.classes_],
        "class_counts": np.bincount(codes, minlength=len(estimator.classes_)).tolist(),
        "labels": [_bits(codes == k) for k in range(len(estimator.classes_))],
        "features": _features(conditions),
        "columns": _columns(estimator.binarizer_),
        "n_columns": int(getattr(estimator.binarizer_, "n_features_in_", 0)),
        "conditions": [{"text": str(c), "feature": str(c.feature), "op": c.op,
                        "support": int(s), "bits": _bits(B[:, j])}
                       for j, (c, s) in enumerate(zip(conditions, B.sum(axis=0)))],
        "pool": pool, "pool_info": pool_info,
        "model": _model_rules(model, pool_index, estimator.classes_),
        "rows": _data_rows(X, n),
        "certificate": {"status": estimator.certificate_.status,
                        "objective": _finite(estimator.certificate_.objective),
                        "lower_bound": _finite(estimator.certificate_.lower_bound),
                        "scope": estimator.certificate_.scope,
                        "n": _finite(estimator.certificate_.n),
                        "summary": estimator.certificate_.summary()},
    }
    for entry in payload["pool"]:
        entry["text"] = " and ".join(str(conditions[j]) for j in entry["conditions"])
    if learner == "CorelsClassifier" and hasattr(estimator, "c_"):
        payload["corels"] = _corels(estimator, pool_index, same)
        # the saved-model file the editor's export starts from (rulekit.load reads it)
        saved = Predictor.from_estimator(estimator).to_dict()
        saved["certificate"] = None
        payload["saved"] = saved
    if learner.endswith("FallingRuleListClassifier"):
        payload["frl"] = _frl(estimator)
    if learner == "BooleanRuleCGClassifier":
        payload["cg"] = _cg(estimator)
    if rashomon is not None:
        payload["rashomon"] = _rashomon(rashomon, B)
    return payload


def comparison_payload(comparison, *, title=None) -> dict:
    """The payload of a Compare-only page, from a :class:`rulekit.Comparison`."""
    table = comparison.table
    score = f"{comparison.scoring[0]}_mean"
    front = set(comparison.pareto_front(score, "n_conditions"))
    rows = []
    for name, row in table.iterrows():
        rows.append({"name": str(name),
                     "scores": {s: {"mean": _finite(row.get(f"{s}_mean")),
                                    "se": _finite(row.get(f"{s}_se"))}
                                for s in comparison.scoring},
                     "n_rules": _finite(row.get("n_rules")),
                     "n_conditions": _finite(row.get("n_conditions")),
                     "fit_time": _finite(row.get("fit_time")),
                     "certificate": None if row.get("certificate") is None
                     else str(row.get("certificate")), "pareto": name in front})
    return {"format": "rulekit-explorer", "schema": 1, "learner": "Comparison",
            "title": title or "Model comparison",
            "compare": {"scoring": list(comparison.scoring), "models": rows}}


def _json(payload: dict) -> str:
    text = json.dumps(payload, allow_nan=False, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in _ESCAPES.items():
        text = text.replace(ch, esc)
    return text


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def page_html(payload: dict) -> str:
    """The self-contained HTML page for a payload."""
    page = _asset("page.html")
    # replace the markers in one pass, so no inserted text is searched for the next marker
    parts = {"/*@CSS@*/": _asset("explore.css"), "/*@JS@*/": _asset("explore.js"),
             "@DATA@": _json(payload), "@TITLE@": html.escape(str(payload.get("title", "")))}
    out, i = [], 0
    while True:
        hits = [(page.find(k, i), k) for k in parts if page.find(k, i) >= 0]
        if not hits:
            out.append(page[i:])
            break
        at, key = min(hits)
        out.append(page[i:at])
        out.append(parts[key])
        i = at + len(key)
    return "".join(out)


class ExplorerPage:
    """An explorer page: its HTML, the file it was written to, and a notebook view.

    Attributes
    ----------
    html : str
        The whole self-contained page.
    path : Path or None
        Where :func:`explore` wrote it.
    payload : dict
        The data the page shows.
    """

    def __init__(self, html_text: str, payload: dict, path=None):
        self.html = html_text
        self.payload = payload
        self.path = None if path is None else Path(path)

    def save(self, path, *, overwrite: bool = True) -> Path:
        """Write the page to ``path`` (UTF-8) and return the path.

        Atomic, and only to a regular file or through a link to one; with
        ``overwrite=False`` an existing file is refused (``FileExistsError``).
        """
        path = write_atomic(path, self.html, overwrite=overwrite)
        self.path = path
        return path

    def __len__(self) -> int:
        return len(self.html.encode("utf-8"))

    def __repr__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"<ExplorerPage {self.payload.get('title')!r}, {len(self) / 1e6:.2f} MB{where}>"

    def _repr_html_(self) -> str:
        # srcdoc in a sandbox without allow-same-origin: the page runs isolated from the notebook
        return ('<iframe title="rulekit explorer" sandbox="allow-scripts allow-downloads" '
                'style="width:100%;height:760px;border:1px solid #ddd" srcdoc="'
                + html.escape(self.html, quote=True) + '"></iframe>')


def _finish(payload: dict, path) -> ExplorerPage:
    page = ExplorerPage(page_html(payload), payload)
    if path is not None:
        page.save(path)
    return page


def explore(estimator, X, y, path="explore.html", *, rashomon=None, title=None) -> ExplorerPage:
    """Write the teaching explorer of a fitted rule model: one offline HTML page.

    The page needs no server and no network: data, style and script are
    inline.  Its views: the data turned into conditions and antecedents; for
    CORELS, a rule-list editor scored against the certificate; for falling
    rule lists, the probabilities and the search's objective; for column
    generation, the LP value and bounds per iteration; the Rashomon set when
    given.  ``docs/explorer.md`` says what each view teaches.

    Parameters
    ----------
    estimator : fitted rulekit estimator
    X : DataFrame or array-like
        The training rows (the certificate refers to them; other rows are
        shown, and the page says the certificate is not about them).
    y : array-like
        Their labels.
    path : str, Path or None, default "explore.html"
        Where to write the page; None writes nothing.
    rashomon : RashomonSet, optional
        From ``estimator.rashomon_set(epsilon)``: adds the Rashomon view.
    title : str, optional
        The page's title.

    Returns
    -------
    ExplorerPage
        ``.html``, ``.path``; shown inline in Jupyter (in an isolated iframe).

    Raises
    ------
    TypeError
        When ``estimator`` is not a rulekit estimator.
    ValueError
        When it is not fitted, or ``X`` and ``y`` do not fit it.
    """
    return _finish(build_payload(estimator, X, y, rashomon=rashomon, title=title), path)


def explore_comparison(comparison, path="compare.html", *, title=None) -> ExplorerPage:
    """The Compare view of a :func:`rulekit.compare_models` result (``Comparison.explore``)."""
    return _finish(comparison_payload(comparison, title=title), path)
