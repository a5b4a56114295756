"""The one place rulekit's version is written.

The package root, saved model files (``rulekit_version``), exported SQL and
Python headers and ``rulekit --version`` all read it from here, so that no
module needs the package root (which imports everything) to know it.
``pyproject.toml`` carries the same number; a test checks that the two agree.
"""

__version__ = "0.2.0"
