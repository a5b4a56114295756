"""Write docs/api.md from the public docstrings (numpydoc style).

Run from the repository root: ``python scripts/make_api_doc.py``.  The test
suite checks that the committed file matches what this script writes.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

SECTIONS = [
    ("Estimators", "rulekit", ["CorelsClassifier", "FallingRuleListClassifier",
                               "SoftFallingRuleListClassifier", "BooleanRuleCGClassifier"]),
    ("Engines", None, ["rulekit.corels:search", "rulekit.frl:search", "rulekit.colgen:search",
                       "rulekit.corels:ablation",
                       "rulekit.colgen:ColGenSettings", "rulekit.colgen:choose_complexity"]),
    ("Data layer", "rulekit", ["Binarizer", "Condition", "mine_antecedents", "AntecedentSet"]),
    ("Models", "rulekit", ["RuleList", "RuleSet", "OneVsRestRuleSets", "Rule", "model_from_dict"]),
    ("Callbacks", "rulekit.callbacks", ["stop_at_gap", "record", "progress"]),
    ("Learner registry", "rulekit.learners", ["LearnerSpec", "register", "unregister",
                                              "registered"]),
    ("Saving and loading", "rulekit", ["load", "Predictor"]),
    ("Export", "rulekit.export", ["to_sql", "to_python"]),
    ("Comparison", "rulekit.compare", ["compare_models", "Comparison", "baselines", "model_size"]),
    ("Plots", "rulekit.plotting", ["plot_comparison", "plot_corels_trace",
                                   "plot_corels_ablation", "plot_falling_rule_list",
                                   "plot_candidate_sizes", "plot_colgen_trace"]),
    ("Datasets", "rulekit.datasets", ["list_datasets", "load_dataset", "load_compas", "load_corels_compas",
                                      "load_fico", "load_tictactoe", "load_mushroom",
                                      "load_bank_marketing", "load_adult", "load_monks", "load_heart"]),
    ("Bit vectors", "rulekit.bitset", ["pack", "unpack", "popcount", "n_words"]),
]


def _resolve(module: str | None, name: str):
    if module is None:
        module, name = name.split(":")
        label = f"{module}.{name}"
    else:
        label = f"{module}.{name}"
    return label, getattr(importlib.import_module(module), name)


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def render() -> str:
    out = ["# API reference", "",
           "Generated from the docstrings by `scripts/make_api_doc.py`; do not edit by hand.", ""]
    for title, module, names in SECTIONS:
        out += [f"## {title}", ""]
        for name in names:
            label, obj = _resolve(module, name)
            out += [f"### `{label}{_signature(obj)}`", ""]
            doc = inspect.cleandoc(obj.__doc__ or "(no docstring)")
            out += ["```text", doc, "```", ""]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    path = Path(__file__).resolve().parents[1] / "docs" / "api.md"
    path.write_text(render())
    print(f"wrote {path}")
