"""rulekit: learn small, readable rule models and compare them."""

__version__ = "0.1.0"
