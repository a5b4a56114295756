"""The command line, run in this process through ``rulekit.cli.main(argv)``.

Only what a real process alone shows starts one (a closed pipe, the on-disk
kernel cache); those tests are in the slow lane.
"""

import os
import re
import subprocess
import sys

import pytest

from helpers import run_cli as run
from rulekit.datasets import load_tictactoe


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory):
    X, y = load_tictactoe(return_X_y=True)
    frame = X.assign(outcome=y).iloc[::4]
    path = tmp_path_factory.mktemp("cli") / "games.csv"
    frame.to_csv(path, index=False)
    return path


def test_datasets_lists_every_bundled_dataset():
    out = run("datasets")
    assert out.returncode == 0
    for name in ("compas", "fico", "tictactoe", "mushroom", "bank_marketing", "adult", "monks", "heart"):
        assert name in out.stdout


@pytest.mark.slow  # CORELS at its defaults on compas, about 5 CPU s
def test_demo_prints_a_certified_rule_list():
    out = run("demo", "compas")
    assert out.returncode == 0, out.stderr
    assert "certified optimal" in out.stdout
    assert "\nif " in out.stdout and "\nelse " in out.stdout


@pytest.fixture(scope="module")
def compas_csv(tmp_path_factory):
    from rulekit.datasets import load_compas

    X, y = load_compas(return_X_y=True)
    path = tmp_path_factory.mktemp("cli") / "compas.csv"
    X.assign(outcome=y).iloc[::3].to_csv(path, index=False)
    return path


def test_fit_save_predict_round_trip(compas_csv, tmp_path):
    csv_path = compas_csv
    model = tmp_path / "model.json"
    out = run("fit", str(csv_path), "--target", "outcome", "--model", "corels", "--corels-c", "0.01",
              "--n-thresholds", "4", "--save", str(model))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("if ") and "certificate: optimal: objective" in out.stdout
    preds = tmp_path / "preds.csv"
    out = run("predict", str(model), str(csv_path), "--output", str(preds))
    assert out.returncode == 0, out.stderr
    import pandas as pd

    from rulekit import CorelsClassifier

    frame = pd.read_csv(preds)
    data = pd.read_csv(csv_path)
    again = CorelsClassifier(c=0.01, n_thresholds=4).fit(data.drop(columns="outcome"), data["outcome"])
    assert (frame["prediction"] == again.predict(data.drop(columns="outcome"))).all()
    assert {"p(0)", "p(1)"} <= set(frame.columns)


def test_fit_reports_a_bad_target_column(csv_path):
    out = run("fit", str(csv_path), "--target", "winner", "--model", "corels")
    assert out.returncode == 2 and "column 'winner'" in out.stderr


def test_compare_with_baselines(csv_path, tmp_path):
    png = tmp_path / "cmp.png"
    out = run("compare", str(csv_path), "--target", "outcome", "--models", "cart,logreg", "--cv", "3",
              "--plot", str(png))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("| model | accuracy_mean")
    assert any(l.startswith("| cart |") for l in lines)
    assert png.stat().st_size > 1000


@pytest.mark.parametrize("args,needle", [
    (["compare", "nope.csv", "--target", "y", "--models", "cart"], "no such file"),
    (["compare", "{csv}", "--target", "nope", "--models", "cart"], "column 'nope'"),
    (["compare", "{csv}", "--target", "outcome", "--models", "alchemy"], "unknown model 'alchemy'"),
    (["fit", "{csv}", "--target", "outcome", "--model", "alchemy"], "unknown model 'alchemy'"),
    (["predict", "nope.json", "{csv}"], "no such file"),
    (["demo", "iris"], "no demo for 'iris'"),
])
def test_errors_are_one_line(csv_path, args, needle):
    out = run(*[a.format(csv=csv_path) for a in args])
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert needle in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_predict_rejects_foreign_json(csv_path, tmp_path):
    bogus = tmp_path / "m.json"
    bogus.write_text('{"hello": 1}')
    out = run("predict", str(bogus), str(csv_path))
    assert out.returncode == 2 and "not a model saved by" in out.stderr


@pytest.mark.parametrize("command", ["fit", "predict", "compare", "demo", "datasets"])
def test_help_on_every_command(command):
    out = run(command, "--help")
    assert out.returncode == 0 and "usage: rulekit" in out.stdout


def test_no_two_options_differ_only_by_case():
    from rulekit.cli import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.choices and isinstance(a.choices, dict)]
    for name, command in sub.choices.items():
        flags = [f for a in command._actions if a.help != "==SUPPRESS==" for f in a.option_strings]
        lowered = [f.lower() for f in flags]
        assert len(set(lowered)) == len(lowered), (name, flags)


@pytest.mark.parametrize("old,new", [("--c", "--corels-c"), ("--C", "--frl-c"), ("--C1", "--frl-c1")])
def test_renamed_options_name_their_new_spelling(csv_path, old, new):
    out = run("fit", str(csv_path), "--target", "outcome", "--model", "frl", old, "0.01")
    assert out.returncode == 2
    assert f"{old} was renamed {new}" in out.stderr


def test_frl_penalty_option_reaches_the_estimator(csv_path):
    out = run("fit", str(csv_path), "--target", "outcome", "--model", "frl", "--frl-c", "0.05",
              "--n-iter", "50", "--random-state", "0")
    assert out.returncode == 0, out.stderr
    # the certificate line reads the Certificate, whose objective charges 0.05 per rule
    assert re.search(r"certificate: (heuristic|optimal_relative): objective", out.stdout)
    assert "0.05 x rules" in out.stdout
    from rulekit.cli import _learner

    assert _learner("frl", {"C": 0.05}).C == 0.05


@pytest.mark.parametrize("value,expected", [("balanced", "balanced"), ("7", 7.0)])
def test_frl_weight_option_takes_a_number_or_balanced(value, expected):
    from rulekit.cli import _learner, build_parser

    args = build_parser().parse_args(["fit", "x.csv", "--target", "y", "--model", "frl",
                                      "--w", value])
    assert args.w == expected
    assert _learner("frl", {"w": args.w}).w == expected


def test_frl_weight_option_rejects_other_words(csv_path):
    out = run("fit", str(csv_path), "--target", "outcome", "--model", "frl", "--w", "heavy")
    assert out.returncode == 2 and "expected a number or 'balanced'" in out.stderr


def test_unknown_compare_model_lists_learners_and_baselines(csv_path):
    from rulekit.cli import BASELINES, LEARNERS

    out = run("compare", str(csv_path), "--target", "outcome", "--models", "corels,foo")
    assert out.returncode == 2 and "unknown model 'foo'" in out.stderr
    for name in [*LEARNERS, *BASELINES]:
        assert name in out.stderr


def test_warnings_are_one_clean_line(compas_csv):
    out = run("fit", str(compas_csv), "--target", "outcome", "--model", "corels",
              "--corels-c", "0.001", "--max-nodes", "200")
    assert out.returncode == 0, out.stderr
    lines = out.stderr.strip().splitlines()
    assert lines == [l for l in lines if l.startswith("rulekit: warning: ConvergenceWarning: ")]
    assert len(lines) == 1 and ".py" not in out.stderr


@pytest.mark.slow  # a new process: its standard output is a pipe nobody reads
def test_a_closed_pipe_ends_quietly():
    """Like ``rulekit datasets | head -1``: the reader is gone before we write."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        out = subprocess.run([sys.executable, "-m", "rulekit.cli", "datasets"], stdout=write_end,
                             stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert out.stderr == ""
    assert out.returncode == 141  # as a tool killed by SIGPIPE


CHECK_CACHE = """
import importlib, warnings
from numba.core.registry import CPUDispatcher
from rulekit import (BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier,
                     SoftFallingRuleListClassifier)
from rulekit.datasets import load_compas, load_tictactoe
warnings.simplefilter("ignore")
X, y = load_compas(return_X_y=True)
X, y = X.iloc[::4], y.iloc[::4]
CorelsClassifier(c=0.01, n_thresholds=4).fit(X, y)
FallingRuleListClassifier(n_iter=40).fit(X, y)
SoftFallingRuleListClassifier(n_iter=40).fit(X, y)
X, y = load_tictactoe(return_X_y=True)
BooleanRuleCGClassifier(max_complexity=16, max_literals=3).fit(X, y)
for name in ("rulekit.bitset", "rulekit.corels._kernels", "rulekit.frl._kernels", "rulekit.colgen._enum"):
    hits = misses = 0
    for f in vars(importlib.import_module(name)).values():
        if isinstance(f, CPUDispatcher):  # kernels called from Python (inner ones are compiled in)
            hits += sum(f.stats.cache_hits.values())
            misses += sum(f.stats.cache_misses.values())
    print(name, hits, misses)
"""


@pytest.mark.slow  # two new processes, and every kernel compiled cold (about 90 CPU s)
def test_compile_fills_the_cache_later_processes_load(tmp_path):
    """After `rulekit compile`, a new process fits every learner without compiling a kernel."""
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    out = subprocess.run([sys.executable, "-m", "rulekit.cli", "compile"], env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert "corels:" in out.stdout and str(tmp_path / "numba") in out.stdout
    later = subprocess.run([sys.executable, "-c", CHECK_CACHE], env=env, capture_output=True,
                           text=True, timeout=900)
    assert later.returncode == 0, later.stderr[-3000:]
    counts = {name: (int(h), int(m)) for name, h, m in (line.split() for line in later.stdout.splitlines())}
    assert all(m == 0 for _, m in counts.values()), counts  # nothing compiled again
    assert counts["rulekit.corels._kernels"][0] > 0 and counts["rulekit.frl._kernels"][0] > 0, counts


# -- issue 36, item 8: nothing is overwritten without --force; every write is atomic ----------
# in-process (rulekit.cli.main): a subprocess would pay the imports again

@pytest.fixture
def files(tmp_path):
    """A training CSV and a model saved from it, in a folder of their own."""
    import numpy as np
    import pandas as pd

    from rulekit import CorelsClassifier

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(18, 70, 80), "job": rng.choice(["a", "b", "c"], 80)})
    y = np.where((X["age"] < 35) ^ (X["job"] == "c"), "yes", "no")
    data = tmp_path / "train.csv"
    X.assign(label=y).to_csv(data, index=False)
    model = CorelsClassifier(c=0.05, max_card=1).fit(X, y).save(tmp_path / "m.json")
    return data, model


def _cli(capsys, *argv):
    from rulekit.cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_fit_never_saves_over_its_training_data(files, capsys):
    data, _ = files
    before = data.read_bytes()
    status, _, err = _cli(capsys, "fit", data, "--target", "label", "--model", "corels",
                          "--save", data)
    assert status == 2
    assert err == f"rulekit: error: {data} exists; pass --force to replace it\n"
    assert data.read_bytes() == before


def test_export_never_writes_over_its_model(files, capsys):
    data, model = files
    before = model.read_bytes()
    status, _, err = _cli(capsys, "export", model, "--to", "python", "--output", model)
    assert status == 2 and "exists; pass --force" in err
    assert model.read_bytes() == before
    # with --force, the user asked for it
    out = model.with_name("m.py")
    out.write_text("old")
    assert _cli(capsys, "export", model, "--to", "python", "--output", out)[0] == 2
    assert out.read_text() == "old"
    status, _, err = _cli(capsys, "export", model, "--to", "python", "--output", out, "--force")
    assert status == 0, err
    assert "def predict(row)" in out.read_text()


def test_predict_explore_and_compare_refuse_an_existing_output(files, capsys):
    data, model = files
    out = data.with_name("taken.txt")
    out.write_text("keep me")
    for argv in (["predict", model, data, "--output", out],
                 ["explore", "--data", data, "--target", "label", "--model", "corels", "-o", out],
                 ["compare", data, "--target", "label", "--models", "cart", "--plot", out]):
        status, _, err = _cli(capsys, *argv)
        assert (status, err) == (2, f"rulekit: error: {out} exists; pass --force to replace it\n")
        assert out.read_text() == "keep me"
    status, _, err = _cli(capsys, "predict", model, data, "--output", out, "--force")
    assert status == 0, err
    assert out.read_text().startswith("age,job,label,prediction,")


def test_outputs_go_only_to_regular_files(files, capsys):
    data, model = files
    link = data.with_name("null.sql")
    link.symlink_to(os.devnull)
    status, _, err = _cli(capsys, "export", model, "--to", "sql", "--output", link, "--force")
    assert status == 2
    assert "it is a character device; rulekit writes only regular files" in err
    assert err.count("\n") == 1
    assert link.is_symlink()


def test_a_failed_cli_write_keeps_the_old_file_and_leaves_no_temporary(files, capsys,
                                                                       monkeypatch):
    import rulekit._files

    data, model = files
    out = data.with_name("m.sql")
    out.write_text("old")

    def full_disk(fd, payload):
        os.write(fd, payload[: len(payload) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rulekit._files, "_write_all", full_disk)
    for argv in (["export", model, "--to", "sql", "--output", out, "--force"],
                 ["predict", model, data, "--output", out, "--force"]):
        status, _, err = _cli(capsys, *argv)
        assert status == 2 and "No space left on device" in err
        assert out.read_text() == "old"
    assert sorted(p.name for p in data.parent.iterdir()) == ["m.json", "m.sql", "train.csv"]
