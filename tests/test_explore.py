"""The explorer page without a browser: its payload, its escaping, its entry points, its errors.

The page itself (what a browser shows, the editor's clicks) is tested in
``test_explore_browser.py``.
"""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     SoftFallingRuleListClassifier, datasets)
from rulekit.learners import warmup_data as _warmup_data
from rulekit.explore import build_payload, page_html
from rulekit.explore._build import MAX_EVENTS, MAX_PAGE_BYTES


def _data_block(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="rulekit-data">(.*?)</script>', page, re.S)
    assert m, "no data block"
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def small():
    X, y = _warmup_data()
    return X, y


@pytest.mark.parametrize("cls", [CorelsClassifier, FallingRuleListClassifier,
                                 SoftFallingRuleListClassifier, BooleanRuleCGClassifier])
def test_explore_works_at_every_default(cls, small, tmp_path):
    X, y = small
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls().fit(X, y)
    path = tmp_path / "page.html"
    page = est.explore(X, y, path)
    assert path.read_text(encoding="utf-8") == page.html
    payload = _data_block(page.html)
    assert payload["n"] == len(X)
    assert payload["learner"] == cls.__name__
    # no external reference of any kind: no http(s) address in a src or href
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:)?//', page.html)


def test_function_and_method_agree(small):
    X, y = small
    est = CorelsClassifier(c=0.05, max_card=1).fit(X, y)
    a = rulekit.explore(est, X, y, path=None)
    b = est.explore(X, y, None)
    assert a.html == b.html and a.path is None


def test_nothing_from_the_data_is_markup(tmp_path):
    evil = '</script><script>alert(1)</script><!--'
    rng = np.random.default_rng(0)
    X = pd.DataFrame({evil: rng.choice([evil, "b&<i>", "\u2028x"], 120),
                      "x": rng.integers(0, 5, 120)})
    y = np.where(X["x"] > 2, "<b>yes</b>", "no & <no>")
    est = CorelsClassifier(c=0.02, max_card=1).fit(X, y)
    page = est.explore(X, y, None, title="<i>title</i>")
    html_text = page.html
    assert html_text.count("</script>") == 2  # the data block's and the script's own
    assert "<script>alert" not in html_text and "<b>yes" not in html_text
    assert "<title>&lt;i&gt;title&lt;/i&gt;</title>" in html_text
    payload = _data_block(html_text)
    assert evil in {f["name"] for f in payload["features"]}
    assert "<b>yes</b>" in payload["classes"]
    # the notebook view is an isolated iframe whose srcdoc is escaped
    frame = page._repr_html_()
    assert frame.startswith("<iframe") and 'sandbox="allow-scripts allow-downloads"' in frame
    assert "allow-same-origin" not in frame and "<script" not in frame


def test_bad_input_gets_a_clear_error(small):
    X, y = small
    with pytest.raises(TypeError, match="rulekit estimator"):
        rulekit.explore(object(), X, y, None)
    with pytest.raises(ValueError, match="not fitted"):
        rulekit.explore(CorelsClassifier(), X, y, None)
    est = CorelsClassifier(c=0.05, max_card=1).fit(X, y)
    with pytest.raises(ValueError, match="rows but y has"):
        est.explore(X, y[:-1], None)
    with pytest.raises(ValueError, match="not one of the classes"):
        est.explore(X, np.full(len(y), 7), None)
    with pytest.raises(TypeError, match="RashomonSet"):
        est.explore(X, y, None, rashomon=[1, 2])


def test_payload_numbers_match_the_estimator(small):
    X, y = small
    est = CorelsClassifier(c=0.05, max_card=2).fit(X, y)
    p = build_payload(est, X, y)
    B = est.binarizer_.transform(X)
    assert [c["support"] for c in p["conditions"]] == B.sum(axis=0).tolist()
    assert p["corels"]["objective"] == est.certificate_.objective
    assert p["corels"]["stats"]["pruned"] == est.stats_["pruned"]
    assert p["corels"]["same_data"] is True
    # the editor only offers antecedents inside the certificate's scope
    assert all(len(a["conditions"]) <= est.max_card_ for a in p["pool"])
    # the page is plain JSON with no NaN (JSON has none)
    json.loads(json.dumps(p, allow_nan=False))
    assert page_html(p).startswith("<!DOCTYPE html>")


def test_cli_explore(small, tmp_path, capsys):
    # in-process (rulekit.cli.main): a subprocess would pay the imports again
    from rulekit.cli import main

    X, y = small
    csv = tmp_path / "d.csv"
    X.assign(label=y).to_csv(csv, index=False)
    out = tmp_path / "page.html"
    status = main(["explore", "--data", str(csv), "--target", "label", "--model", "corels",
                   "--corels-c", "0.05", "--max-card", "1", "-o", str(out)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "explorer written to" in captured.out
    assert _data_block(out.read_text(encoding="utf-8"))["learner"] == "CorelsClassifier"
    status = main(["explore", "--data", str(csv), "--target", "label", "--model", "cart",
                   "-o", str(out)])
    assert status == 2 and "unknown model" in capsys.readouterr().err


def test_cli_explore_trace_and_rashomon(small, tmp_path, capsys):
    """--trace adds the search replay, --rashomon EPS the Rashomon view (issue 37, item 4)."""
    from rulekit.cli import main

    X, y = small
    csv = tmp_path / "d.csv"
    X.assign(label=y).to_csv(csv, index=False)
    out = tmp_path / "page.html"
    status = main(["explore", "--data", str(csv), "--target", "label", "--model", "corels",
                   "--corels-c", "0.05", "--max-card", "1", "--trace", "--rashomon", "0.02",
                   "-o", str(out)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    page = _data_block(out.read_text(encoding="utf-8"))
    # the same fit and set in Python, from the same file
    frame = pd.read_csv(csv)
    Xf, yf = frame.drop(columns="label"), frame["label"]
    est = CorelsClassifier(c=0.05, max_card=1, trace="events").fit(Xf, yf)
    rset = est.rashomon_set(0.02)
    replay = page["corels"]["replay"]
    assert replay["total"] == len(est.result_.events["kind"])
    assert replay["counts"]["prune"] == est.stats_["pruned"]
    assert page["rashomon"]["count"] == len(rset) and page["rashomon"]["epsilon"] == 0.02
    assert page["rashomon"]["objectives"] == [float(v) for v in rset.objectives]
    assert f"{len(rset):,} lists within 0.02" in captured.out


def test_cli_explore_flags_refuse_before_fitting(small, tmp_path, capsys):
    """--trace and --rashomon on a learner without them, or a bad EPS: exit 2, no file written."""
    from rulekit.cli import main

    X, y = small
    csv = tmp_path / "d.csv"
    X.assign(label=y).to_csv(csv, index=False)
    out = tmp_path / "page.html"
    base = ["explore", "--data", str(csv), "--target", "label", "-o", str(out)]
    for extra, words in ((["--model", "frl", "--trace"], "--trace needs --model corels"),
                         (["--model", "cg", "--rashomon", "0.01"], "--rashomon needs --model corels"),
                         (["--model", "corels", "--rashomon", "-0.01"], "--rashomon takes EPS >= 0"),
                         (["--model", "corels", "--rashomon", "nan"], "--rashomon takes EPS >= 0")):
        assert main(base + extra) == 2, extra
        assert words in capsys.readouterr().err, extra
        assert not out.exists()


def test_editor_says_when_the_bound_does_not_cover_it(small):
    X, y = small
    est = CorelsClassifier(c=0.02, max_card=1, forbidden=["b"]).fit(X, y)
    p = build_payload(est, X, y)
    assert p["corels"]["bound_covers_editor"] is False
    assert "constrained" in p["corels"]["bound_note"]


def test_one_vs_rest_rule_sets_show_every_member(small):
    X, y = small
    y3 = np.where(X["a"] > 4, "hi", np.where(y == 1, "one", "zero"))
    est = BooleanRuleCGClassifier(max_complexity=10).fit(X, y3)
    p = build_payload(est, X, y3)
    assert p["model"]["type"] == "OneVsRestRuleSets"
    assert [len(m["clauses"]) for m in p["model"]["members"]] == \
        [len(m.clauses) for m in est.model_.members]
    assert len(p["cg"]["runs"]) == 3
    # the decision list the model prints (issue 37): same steps, same default
    steps, default = est.model_.steps()
    assert [(s["member"], s["holds"], s["score"]) for s in p["model"]["steps"]] == \
        [(s.cls, s.holds, s.score) for s in steps]
    assert p["model"]["default"] == default
    assert p["model"]["classes"] == [str(c) for c in est.classes_]


def test_replay_of_a_full_log_is_sampled_within_budget(tmp_path):
    """A compas fit whose event log fills its cap: the page samples it and says so."""
    X, y = datasets.load_compas(return_X_y=True)
    est = CorelsClassifier(c=0.002, max_card=1, n_thresholds=9, thresholds="quantile",
                           trace="events").fit(X, y)
    ev = est.result_.events
    assert ev["truncated"] > 0 and len(ev["kind"]) == ev["cap"] + 1
    page = est.explore(X, y, tmp_path / "big.html")
    assert len(page) < MAX_PAGE_BYTES
    replay = _data_block(page.html)["corels"]["replay"]
    assert replay["sampled"] and replay["truncated"] == ev["truncated"]
    assert replay["shown"] <= MAX_EVENTS + int((ev["kind"] == "best").sum())
    assert replay["total"] == len(ev["kind"])
    # counts are over the whole log, the "tree size" of each shown event too
    kinds = np.asarray(ev["kind"])
    assert replay["counts"]["expand"] == int((kinds == "expand").sum())
    for r, count in replay["counts"]["prune"].items():
        assert count == int((np.asarray(ev["reason"])[kinds == "prune"] == r).sum())
    expanded = np.cumsum(kinds == "expand")
    assert replay["events"]["x"] == [int(expanded[i]) for i in replay["events"]["i"]]
    assert replay["events"]["i"] == sorted(replay["events"]["i"])
    # deterministic: the same page twice
    assert est.explore(X, y, None).html == page.html
