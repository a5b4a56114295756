"""rulekit: learn small, readable rule models and compare them."""

from .binarize import Binarizer, Condition
from .mining import AntecedentSet, mine_antecedents
from .models import OneVsRestRuleSets, Rule, RuleList, RuleSet, model_from_dict

__version__ = "0.1.0"

__all__ = [
    "Binarizer",
    "Condition",
    "AntecedentSet",
    "mine_antecedents",
    "Rule",
    "RuleList",
    "RuleSet",
    "OneVsRestRuleSets",
    "model_from_dict",
    "__version__",
]
