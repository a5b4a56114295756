"""rulekit: learn small, readable rule models and compare them."""

from .binarize import Binarizer, Condition
from .compare import Comparison, baselines, compare_models
from .colgen import BooleanRuleCGClassifier
from .corels import CorelsClassifier
from .frl import FallingRuleListClassifier, SoftFallingRuleListClassifier
from .mining import AntecedentSet, mine_antecedents
from .models import OneVsRestRuleSets, Rule, RuleList, RuleSet, model_from_dict
from .persist import Predictor, load
from . import export
from ._version import __version__
from .explore import ExplorerPage, explore

__all__ = [
    "Binarizer",
    "CorelsClassifier",
    "BooleanRuleCGClassifier",
    "FallingRuleListClassifier",
    "SoftFallingRuleListClassifier",
    "compare_models",
    "Comparison",
    "baselines",
    "Condition",
    "AntecedentSet",
    "mine_antecedents",
    "Rule",
    "RuleList",
    "RuleSet",
    "OneVsRestRuleSets",
    "model_from_dict",
    "Predictor",
    "load",
    "export",
    "explore",
    "ExplorerPage",
    "__version__",
]
