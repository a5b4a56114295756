"""The teaching explorer: one offline HTML page showing how a rule model was found.

``rulekit.explore(est, X, y, path="explore.html")`` (or ``est.explore(X, y)``,
``rulekit explore`` on the command line, ``Comparison.explore()``) writes the
page; ``docs/explorer.md`` describes its views.
"""

from ._build import ExplorerPage, build_payload, explore, explore_comparison, page_html

__all__ = ["explore", "explore_comparison", "ExplorerPage", "build_payload", "page_html"]
