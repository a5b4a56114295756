"""The explorer page in a real browser (Debian's chromium, headless, driven by Playwright).

Every expected number is computed here from the estimator and numpy, never
read back from the page's embedded data.  Without Playwright or chromium the
tests skip, saying why; with ``CI=true`` a missing browser fails instead.

``RULEKIT_CHROMIUM`` names another chromium binary (default: ``chromium`` on PATH).
Set ``RULEKIT_EXPLORER_SCREENSHOTS=docs/images`` to write the documentation's
screenshots (one per view); otherwise they go to a temporary folder.
"""

import contextlib
import json
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import rulekit
from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     compare_models, datasets)
from rulekit.evaluate import first_match
from rulekit.explore._build import MAX_PAGE_BYTES

from helpers import feature_shares

pytestmark = pytest.mark.slow  # a real browser


def _need_browser():
    why = None
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        why = "Playwright's Python package is not installed (pip install -e '.[test]')"
    exe = os.environ.get("RULEKIT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if why is None and not Path(exe).exists():
        why = "no chromium (apt-get install -y chromium)"
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests need a browser in CI: {why}")
        pytest.skip(why)
    return exe


@pytest.fixture(scope="module")
def browser():
    exe = _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


class Opened:
    """A page opened from file:// with every other request blocked and recorded."""

    def __init__(self, browser, path: Path):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900},
                                           accept_downloads=True)
        self.requests, self.blocked, self.errors = [], [], []

        def route(r):
            if r.request.url.startswith("file:"):
                r.continue_()
            else:
                self.blocked.append(r.request.url)
                r.abort()

        self.context.route("**/*", route)
        self.page = self.context.new_page()
        self.page.on("request", lambda req: self.requests.append(req.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector("body[data-ready=true]")

    def value(self, testid: str) -> str:
        return self.page.get_by_test_id(testid).first.get_attribute("data-value")

    def number(self, testid: str) -> float:
        return float(self.value(testid))

    def values(self, prefix: str) -> dict:
        """data-value of every element whose data-testid starts with ``prefix`` (one round trip)."""
        return self.page.evaluate("""p => Object.fromEntries(Array.from(
            document.querySelectorAll('[data-testid^="' + p + '"]'))
            .map(e => [e.getAttribute('data-testid'), e.getAttribute('data-value')]))""", prefix)

    def tab(self, name: str):
        self.page.get_by_test_id(f"tab-{name}").click()

    def screenshot(self, name: str, tmp: Path):
        where = Path(os.environ.get("RULEKIT_EXPLORER_SCREENSHOTS") or tmp)
        where.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(where / f"explorer-{name}.png"), full_page=True)

    def offline_checks(self):
        assert self.blocked == []
        assert all(u.startswith("file:") for u in self.requests), self.requests
        assert self.errors == []
        external = self.page.evaluate("""() => Array.from(document.querySelectorAll('[src],[href]'))
            .map(e => e.getAttribute('src') || e.getAttribute('href'))
            .filter(u => !/^(blob:|data:|#)/.test(u))""")
        assert external == []

    def accessible_checks(self):
        """Every number carries data-testid and data-value; every chart has a table beside it."""
        bad = self.page.evaluate("""() => ({
            numbers: Array.from(document.querySelectorAll('.num'))
                .filter(e => !e.hasAttribute('data-testid') || !e.hasAttribute('data-value')).length,
            charts: Array.from(document.querySelectorAll('svg[role=img]'))
                .filter(s => !(s.closest('.card') && s.closest('.card').querySelector('table'))).length,
            unlabelled: Array.from(document.querySelectorAll('svg[role=img]'))
                .filter(s => !s.getAttribute('aria-label')).length})""")
        assert bad == {"numbers": 0, "charts": 0, "unlabelled": 0}

    def close(self):
        self.context.close()


@contextlib.contextmanager
def checked_view(browser, path, tab=None):
    """The page at ``path`` on ``tab``, past the offline and accessibility checks; closed after."""
    o = Opened(browser, path)
    try:
        if tab is not None:
            o.tab(tab)
        o.offline_checks()
        o.accessible_checks()
        yield o
    finally:
        o.close()


@pytest.fixture(scope="module")
def compas():
    return datasets.load_compas(return_X_y=True)


@pytest.fixture(scope="module")
def corels(compas, tmp_path_factory):
    """A small certified CORELS fit on compas (the page is tested, not the search)."""
    X, y = compas
    est = CorelsClassifier(c=0.01, max_card=1, n_thresholds=4, thresholds="quantile",
                           trace="events").fit(X, y)
    assert est.certificate_.proved_optimal
    rset = est.rashomon_set(0.004)
    path = tmp_path_factory.mktemp("explore") / "corels.html"
    page = est.explore(X, y, path, rashomon=rset)
    assert len(page) < MAX_PAGE_BYTES  # the budget for compas
    return est, rset, path


@pytest.fixture(scope="module")
def opened(browser, corels):
    # one page for the CORELS tests (they run in file order: the editor test starts from
    # the certified list, the edit test changes it)
    page = Opened(browser, corels[2])
    yield page
    page.close()


def test_page_is_offline_and_clean(opened, tmp_path):
    """Opened from file://: no request leaves it, no console error, no external address."""
    opened.offline_checks()
    assert opened.page.title() == "CorelsClassifier explorer"
    for view in ("data", "edit", "search", "rashomon"):
        opened.tab(view)
        opened.screenshot(view, tmp_path)
    opened.offline_checks()
    opened.accessible_checks()


def test_data_view_shows_the_binarization(opened, corels, compas):
    est, _, _ = corels
    X, y = compas
    B = est.binarizer_.transform(X)
    conds = est.binarizer_.conditions_
    assert int(opened.value("n-rows")) == len(X)
    assert int(opened.value("condition-count")) == len(conds)
    assert int(opened.value("antecedent-count")) == len(est.antecedents_)
    features = list(dict.fromkeys(c.feature for c in conds))
    for fi, f in enumerate(features):
        expected = sorted({float(c.value) for c in conds if c.feature == f and c.op in ("<=", ">")})
        shown = [float(opened.value(f"threshold-{fi}-{k}")) for k in range(len(expected))]
        assert shown == expected, f
        assert opened.page.get_by_test_id(f"threshold-{fi}-{len(expected)}").count() == 0
    shown = opened.values("condition-support-")
    assert shown == {f"condition-support-{j}": str(int(B[:, j].sum())) for j in range(len(conds))}
    shown = opened.values("ante-support-")
    assert shown == {f"ante-support-{a}": str(int(B[:, list(item)].all(axis=1).sum()))
                     for a, item in enumerate(est.antecedents_.items)}


def _objective(A, y, n_classes, prefix, c):
    """mistakes / n + c * K of a rule list whose rules predict their majority class."""
    rule = first_match(A, [(a,) for a in prefix])
    mistakes = 0
    for k in range(len(prefix) + 1):
        counts = np.bincount(y[rule == k], minlength=n_classes)
        mistakes += int(counts.sum() - counts.max())
    return mistakes / A.shape[0] + c * len(prefix), mistakes


def _shown_list(opened) -> list:
    out, k = [], 0
    while opened.page.get_by_test_id(f"rule-text-{k}").count():
        out.append(int(opened.value(f"rule-text-{k}")))
        k += 1
    return out


def test_editor_starts_at_the_certified_list(opened, corels, compas):
    est, _, _ = corels
    X, y = compas
    opened.tab("edit")
    items = [tuple(i) for i in est.antecedents_.items]
    optimal = [items.index(tuple(r.conditions)) for r in est.model_.rules]
    assert _shown_list(opened) == optimal
    codes = np.searchsorted(est.classes_, np.asarray(y))
    A = est.antecedents_.transform(est.binarizer_.transform(X))
    obj, mistakes = _objective(A, codes, len(est.classes_), optimal, est.c_)
    assert opened.number("edit-objective") == obj
    assert int(opened.value("edit-mistakes")) == mistakes
    assert opened.number("cert-objective") == est.certificate_.objective
    assert opened.number("cert-lower-bound") == est.certificate_.lower_bound
    assert opened.value("cert-status") == est.certificate_.status
    opened.tab("search")
    assert int(opened.value("search-expanded")) == est.stats_["nodes_expanded"]
    for reason, count in est.stats_["pruned"].items():
        assert int(opened.value(f"pruned-{reason}")) == count


def test_search_replay_agrees_with_the_engine(opened, corels, tmp_path):
    """The replay's counts are the event log's and the engine's; the scrubber grows the tree."""
    est, _, _ = corels
    ev = est.result_.events
    kinds = np.asarray(ev["kind"])
    reasons = np.asarray(ev["reason"])
    opened.tab("search")
    shown = opened.values("replay-pruned-")
    for reason, count in est.stats_["pruned"].items():
        assert int(reasons[kinds == "prune"].tolist().count(reason)) == count
        assert int(shown[f"replay-pruned-{reason}"]) == count
        assert int(opened.value(f"pruned-{reason}")) == count
    assert int(opened.value("replay-expanded")) == est.stats_["nodes_expanded"]
    assert int(opened.value("replay-expanded")) == int((kinds == "expand").sum())
    assert int(opened.value("replay-total")) == len(kinds)
    # every event is on this page (a small fit): dots drawn = expansions so far
    scrub = opened.page.get_by_test_id("replay-scrubber")
    seen = set()
    for at in (0, 1, 37, len(kinds) // 3, len(kinds) // 2, len(kinds) - 1):
        scrub.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", at)
        i = int(opened.value("replay-event-index"))
        assert i == at
        expected = int((kinds[: i + 1] == "expand").sum())
        assert int(opened.value("replay-tree-nodes")) == expected
        assert int(opened.value("replay-tree-drawn")) == expected
        visible = opened.page.evaluate("""() => Array.from(document.querySelectorAll(
            '[data-testid=replay-tree] circle[display=inline]')).length""")
        assert visible == expected
        seen.add(expected)
    assert len(seen) >= 4  # the scrubber moved the tree
    # the best so far at the end is the certified list's objective
    assert opened.number("replay-incumbent") == pytest.approx(est.certificate_.objective)
    # the log table filters by reason
    reason = max(est.stats_["pruned"], key=est.stats_["pruned"].get)
    opened.page.get_by_test_id("replay-filter-reason").select_option(label=reason)
    assert int(opened.value("replay-log-rows")) == est.stats_["pruned"][reason]
    opened.page.get_by_test_id("replay-filter-reason").select_option(label="all reasons")
    where = Path(os.environ.get("RULEKIT_EXPLORER_SCREENSHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    scrub.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }",
                   int(len(kinds) * 0.6))
    card = opened.page.locator("h2:has-text('Search replay')").locator("..")
    card.screenshot(path=str(where / "explorer-replay.png"))
    opened.offline_checks()
    opened.accessible_checks()


def test_twenty_seeded_hand_edits(opened, corels, compas, tmp_path):
    est, _, _ = corels
    X, y = compas
    opened.tab("edit")
    items = [tuple(i) for i in est.antecedents_.items]
    codes = np.searchsorted(est.classes_, np.asarray(y))
    A = est.antecedents_.transform(est.binarizer_.transform(X))
    lb = est.certificate_.lower_bound
    current = [items.index(tuple(r.conditions)) for r in est.model_.rules]
    history = []
    rng = np.random.default_rng(24)
    page = opened.page
    for step in range(20):
        action = rng.choice(["add", "add", "remove", "up", "down", "undo"])
        if action != "undo":
            history.append(list(current))
        if action == "add" or not current:
            if action == "undo":
                history.append(list(current))
            a = int(rng.choice([a for a in range(len(items)) if a not in current]))
            page.get_by_test_id(f"add-{a}").click()
            current.append(a)
        elif action == "undo":
            page.get_by_test_id("undo").click()
            current = history.pop() if history else current
        else:
            k = int(rng.integers(len(current)))
            if action == "up" and k == 0 or action == "down" and k == len(current) - 1:
                action = "remove"
            page.get_by_test_id(f"rule-{action}-{k}").click()
            if action == "remove":
                current.pop(k)
            else:
                j = k - 1 if action == "up" else k + 1
                current[k], current[j] = current[j], current[k]
        assert _shown_list(opened) == current, (step, action)
        expected, _ = _objective(A, codes, len(est.classes_), current, est.c_)
        shown = opened.number("edit-objective")
        assert abs(shown - expected) <= 1e-12, (step, action)
        assert shown >= lb - 1e-12
    # which rule fired, for a few samples
    fired = first_match(A, [(a,) for a in current])
    for i in (0, 17, len(X) - 1):
        page.get_by_test_id("sample-input").fill(str(i))
        page.get_by_test_id("sample-input").press("Enter")
        assert int(opened.value("fired-rule")) == int(fired[i])
    opened.screenshot("edit-after", tmp_path)
    # the exported list is a model file rulekit loads and predicts with
    page.get_by_test_id("export").click()
    text = page.get_by_test_id("export-json").input_value()
    path = tmp_path / "edited.json"
    path.write_text(text, encoding="utf-8")
    loaded = rulekit.load(path)
    labels = [np.bincount(codes[fired == k], minlength=len(est.classes_)).argmax()
              for k in range(len(current) + 1)]
    expected = est.classes_[np.asarray(labels)[fired]]
    assert np.array_equal(loaded.predict(X), expected)
    assert json.loads(text)["metadata"]["objective"] == opened.number("edit-objective")
    opened.offline_checks()


def test_rashomon_view(opened, corels, compas):
    est, rset, _ = corels
    opened.tab("rashomon")
    assert int(opened.value("rset-count")) == len(rset)
    assert opened.number("rset-optimum") == rset.optimum
    importance = rset.condition_importance()
    for k, share in enumerate(importance.to_numpy()):
        assert opened.number(f"rset-imp-{k}") == pytest.approx(share, abs=1e-15)
    shares = rset.disagreement().to_numpy()
    assert int(opened.value("rset-ambiguous")) == int((shares.max(axis=1) < 1).sum())
    assert int(opened.value("rset-filtered")) == len(rset)
    X, _ = compas
    B = est.binarizer_.transform(X)
    k = min(len(rset), 20)
    preds = [rset[i].predict(B) for i in range(k)]
    shown = opened.values("rset-pair-")
    for i in range(k):
        for j in range(k):
            assert float(shown[f"rset-pair-{i}-{j}"]) == np.mean(preds[i] != preds[j])
    # each feature's importance range, from every list's own captures
    features, shares, tests = feature_shares(list(rset), B, est.binarizer_.conditions_)
    shown_names = [opened.page.get_by_test_id(f"rset-fimp-name-{k}").text_content()
                   for k in range(int(tests.any(axis=0).sum()))]
    assert sorted(shown_names) == sorted(f for k, f in enumerate(features) if tests[:, k].any())
    for k, name in enumerate(shown_names):
        col = shares[:, features.index(name)]
        assert opened.number(f"rset-fimp-min-{k}") == pytest.approx(col.min(), abs=1e-12)
        assert opened.number(f"rset-fimp-mean-{k}") == pytest.approx(col.mean(), abs=1e-12)
        assert opened.number(f"rset-fimp-max-{k}") == pytest.approx(col.max(), abs=1e-12)
        assert opened.number(f"rset-fimp-lists-{k}") == pytest.approx(
            tests[:, features.index(name)].mean(), abs=1e-12)
    # filter: the lists that use the first condition of the optimal list
    j = est.model_.rules[0].conditions[0]
    opened.page.get_by_test_id("rset-condition").select_option(str(j))
    uses = sum(any(j in rl.rules[k].conditions for k in range(len(rl.rules))) for rl in rset)
    assert int(opened.value("rset-filtered")) == uses
    # and by feature: the lists with a rule testing the feature of that condition
    feature = est.binarizer_.conditions_[j].feature
    opened.page.get_by_test_id("rset-condition").select_option("-1")
    opened.page.get_by_test_id("rset-feature").select_option(str(features.index(feature)))
    assert int(opened.value("rset-filtered")) == int(tests[:, features.index(feature)].sum())


def test_frl_and_cg_views(browser, compas, tmp_path):
    X, y = compas
    frl = FallingRuleListClassifier(n_iter=100, max_card=1, n_thresholds=4,
                                    random_state=0).fit(X.iloc[::4], y.iloc[::4])
    X, y = X.iloc[::4], y.iloc[::4]
    path = tmp_path / "frl.html"
    frl.explore(X, y, path)
    with checked_view(browser, path, "frl") as o:
        rules = [*frl.model_.rules, frl.model_.default]
        pos = list(frl.classes_).index(frl.positive_class_)
        for k, r in enumerate(rules):
            assert o.number(f"frl-prob-{k}") == r.probabilities[pos]
            for c, v in enumerate(r.counts):
                assert int(o.value(f"frl-count-{k}-{c}")) == v
        assert o.number("frl-objective") == frl.certificate_.objective
        lb = frl.certificate_.lower_bound
        assert o.value("frl-lower-bound") == "null" if lb is None else o.number("frl-lower-bound") == lb
        assert int(o.value("frl-iterations")) == len(frl.best_objective_history_)
        o.screenshot("frl", tmp_path)
    Xt, yt = datasets.load_tictactoe(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cg = BooleanRuleCGClassifier(form="dnf", max_complexity=12, max_literals=3,
                                     time_limit=10).fit(Xt, yt)
    path = tmp_path / "cg.html"
    cg.explore(Xt, yt, path)
    with checked_view(browser, path, "cg") as o:
        res = cg.result_
        assert o.number("cg-objective-0") == res.objective
        shown_lb = o.value("cg-lower-bound-0")
        assert (shown_lb == "null") if res.lower_bound is None else \
            float(shown_lb) == res.lower_bound
        for i, rec in enumerate(res.trace):
            assert int(o.value(f"cg-iter-0-{i}")) == rec.iteration
            assert o.number(f"cg-rmlp-0-{i}") == rec.rmlp
            exact = rec.pricing in ("enum", "ip", "none") and rec.bound is not None
            assert o.value(f"cg-exact-0-{i}") == ("true" if exact else "false")
        for k, clause in enumerate(cg.model_.clauses):
            text = o.page.get_by_test_id(f"cg-clause-{k}").text_content()
            assert text == "(" + " and ".join(cg.model_.condition_text(j) for j in clause) + ")"
        o.screenshot("cg", tmp_path)


def test_compare_view(browser, compas, tmp_path):
    X, y = compas
    models = {"CORELS": CorelsClassifier(c=0.01, max_card=1, n_thresholds=4,
                                         thresholds="quantile"),
              "CART depth 4": rulekit.baselines(0)["CART depth 4"]}
    comp = compare_models(models, X.iloc[::3], y.iloc[::3], cv=3, refit=False)
    page = comp.explore(tmp_path / "compare.html")
    with checked_view(browser, page.path) as o:
        for k, (name, row) in enumerate(comp.table.iterrows()):
            assert o.page.get_by_test_id(f"cmp-name-{k}").text_content().startswith(str(name))
            assert o.number(f"cmp-score-{k}") == row["accuracy_mean"]
            assert o.number(f"cmp-conds-{k}") == row["n_conditions"]
        o.screenshot("compare", tmp_path)
