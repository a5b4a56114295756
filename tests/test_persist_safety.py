"""Saving never loses a model, loading never trusts a file (issue 25, items 9-13).

A model file may be truncated, edited or crafted: :func:`rulekit.load` checks
every field and answers one ``ValueError`` naming the file and the field.
The command line turns that into one line on stderr.
"""

import copy
import json
import math
import os
import re
import stat
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import rulekit
import rulekit._files
from rulekit import BooleanRuleCGClassifier, CorelsClassifier, FallingRuleListClassifier
from rulekit.certificate import Certificate
from rulekit.cli import main


def small_frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.integers(18, 70, n).astype(float),
                      "job": rng.choice(["clerk", "nurse", "pilot", "chef"], n, p=[.4, .3, .2, .1]),
                      "when": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 500, n),
                                                                           unit="D")})
    X.loc[::11, "age"] = np.nan
    y = np.where((X["age"].fillna(40) < 35) ^ (X["job"] == "pilot"), "yes", "no")
    return X, y


def fitted(kind="corels"):
    X, y = small_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "corels":
            return CorelsClassifier(c=0.01, max_card=1).fit(X, y), X
        if kind == "frl":
            return FallingRuleListClassifier(n_iter=50, max_card=1, random_state=0).fit(X, y), X
        return BooleanRuleCGClassifier(max_complexity=6).fit(X, y), X


# -- 9: atomic save ---------------------------------------------------------------------------

@pytest.mark.parametrize("unnamed", [True, False], ids=["O_TMPFILE", "named-temporary"])
def test_a_failed_write_leaves_the_old_file_intact(tmp_path, monkeypatch, unnamed):
    est, X = fitted()
    path = est.save(tmp_path / "m.json")
    before = path.read_bytes()
    real_write_all = rulekit._files._write_all

    def full_disk(fd, data):
        """A write that fails half way, as on a full disk."""
        real_write_all(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    if not unnamed:  # the way without unnamed files (other systems, some file systems)
        monkeypatch.setattr(rulekit._files, "_unnamed", lambda directory: None)
    monkeypatch.setattr(rulekit._files, "_write_all", full_disk)
    with pytest.raises(OSError, match="No space left"):
        est.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]  # no temporary left
    assert list(rulekit.load(path).predict(X)) == list(est.predict(X))


@pytest.mark.slow  # a new process (the file size limit is a process's)
def test_a_write_beyond_the_file_size_limit_keeps_the_old_model(tmp_path):
    """A real failed write, whatever the code writes with: the process may not write
    files longer than 500 bytes (RLIMIT_FSIZE, as a quota would stop it)."""
    est, X = fitted()
    path = est.save(tmp_path / "m.json")
    before = path.read_bytes()
    assert len(before) > 500
    script = (
        "import resource, signal, sys, rulekit\n"
        "model = rulekit.load(sys.argv[1])\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (500, 500))\n"
        "try:\n"
        "    model.save(sys.argv[1])\n"
        "except OSError as exc:\n"
        "    print('failed:', exc.errno)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("failed:")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def test_save_replaces_a_file_and_keeps_its_permissions(tmp_path):
    est, X = fitted()
    path = tmp_path / "m.json"
    path.write_text("old")
    os.chmod(path, 0o640)
    est.save(path)
    assert (path.stat().st_mode & 0o777) == 0o640
    assert rulekit.load(path).estimator == "CorelsClassifier"


# -- issue 36, item 7: only regular files are written; nothing is left behind -----------------

def test_save_refuses_a_fifo_and_leaves_it(tmp_path):
    est, _ = fitted()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"refusing to write .*pipe: it is a FIFO \(named "
                                         r"pipe\); rulekit writes only regular files"):
        est.save(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_save_through_a_link_to_a_device_is_refused(tmp_path):
    # the link is replaced by a file in the old code; /dev/null itself (as root) was the
    # audit's case: it must never be touched, so only a link to it is tried here
    est, _ = fitted()
    link = tmp_path / "null.json"
    link.symlink_to(os.devnull)
    with pytest.raises(ValueError, match=r"null.json \(a symbolic link to /dev/null\): it is "
                                         "a character device"):
        est.save(link)
    assert link.is_symlink() and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null.json"]


def test_save_refuses_a_directory_and_a_link_to_nothing(tmp_path):
    est, _ = fitted()
    (tmp_path / "folder").mkdir()
    with pytest.raises(ValueError, match="folder: it is a directory"):
        est.save(tmp_path / "folder")
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere" / "m.json")
    with pytest.raises(ValueError, match="dangling.json: it is a symbolic link to .*which does "
                                         "not exist"):
        est.save(dangling)
    assert dangling.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.json", "folder"]


def test_save_through_a_link_writes_the_file_it_names(tmp_path):
    est, X = fitted()
    target = tmp_path / "models" / "m.json"
    target.parent.mkdir()
    target.write_text("old")
    os.chmod(target, 0o600)
    link = tmp_path / "current.json"
    link.symlink_to(target)
    est.save(link)
    assert link.is_symlink() and os.readlink(link) == str(target)  # the link stays a link
    assert (target.stat().st_mode & 0o777) == 0o600
    assert list(rulekit.load(target).predict(X)) == list(est.predict(X))
    assert sorted(p.name for p in target.parent.iterdir()) == ["m.json"]


def test_save_without_overwrite_keeps_an_existing_file(tmp_path):
    est, _ = fitted()
    path = tmp_path / "m.json"
    path.write_text("keep me")
    with pytest.raises(FileExistsError, match="m.json"):
        est.save(path, overwrite=False)
    assert path.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]
    est.save(tmp_path / "new.json", overwrite=False)
    assert rulekit.load(tmp_path / "new.json").estimator == "CorelsClassifier"


@pytest.mark.parametrize("overwrite", [True, False])
def test_an_interrupted_save_leaves_no_temporary_file(tmp_path, monkeypatch, overwrite):
    est, _ = fitted()
    path = tmp_path / "m.json"

    def interrupted(fd, data):
        raise KeyboardInterrupt

    monkeypatch.setattr(rulekit._files, "_write_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        est.save(path, overwrite=overwrite)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # a new process, killed mid-save (SIGKILL ends a process, not a thread)
def test_a_save_killed_midway_leaves_no_hidden_file(tmp_path):
    """A process killed (SIGKILL: no handler, no cleanup) while the data is on its way
    to disk: the old code left its hidden .m.json.PID.RANDOM.tmp behind."""
    est, _ = fitted()
    path = est.save(tmp_path / "m.json")
    before = path.read_bytes()
    script = (
        "import os, signal, sys, rulekit\n"
        "model = rulekit.load(sys.argv[1])\n"
        "os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)  # dies mid-save\n"
        "model.save(sys.argv[1])\n"
        "print('not killed')\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == -9, (out.returncode, out.stdout, out.stderr)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


# -- 10: the loader checks the whole file ------------------------------------------------------

def _rules(d):
    return d["model"]["rules"]


#: (what is wrong, how to make it so, the field the error must name)
CRAFTED = [
    ("rules not a list", lambda d: d["model"].__setitem__("rules", "abc"), "model.rules"),
    ("fractional index", lambda d: _rules(d)[0].__setitem__("conditions", [0.5]),
     "model.rules[0].conditions[0]"),
    ("index out of range", lambda d: _rules(d)[0].__setitem__("conditions", [10 ** 6]),
     "model.rules[0].conditions[0]"),
    ("boolean index", lambda d: _rules(d)[0].__setitem__("conditions", [True]),
     "model.rules[0].conditions[0]"),
    ("negative probability", lambda d: _rules(d)[0].__setitem__("probabilities", [-0.5, 1.5]),
     "model.rules[0].probabilities[0]"),
    ("NaN probability", lambda d: _rules(d)[0].__setitem__("probabilities", [math.nan, 1.0]),
     "model.rules[0].probabilities[0]"),
    ("probabilities not summing to 1", lambda d: _rules(d)[0].__setitem__(
        "probabilities", [0.5, 0.6]), "model.rules[0].probabilities"),
    ("negative count", lambda d: _rules(d)[0].__setitem__("counts", [-1, 3]),
     "model.rules[0].counts[0]"),
    ("prediction not a class", lambda d: _rules(d)[0].__setitem__("prediction", "maybe"),
     "model.rules[0].prediction"),
    ("unknown model type", lambda d: d["model"].__setitem__("type", "Forest"), "model.type"),
    ("classes not a list", lambda d: d["model"].__setitem__("classes", {"a": 1}), "model.classes"),
    ("infinite threshold", lambda d: [c.__setitem__("value", math.inf) for m in (
        d["model"], d["binarizer"]) for c in m["conditions"] if c["op"] == "<="],
     "model.conditions"),
    ("unknown operator", lambda d: d["model"]["conditions"][0].__setitem__("op", "~"),
     "model.conditions[0].op"),
    ("model and binarizer disagree", lambda d: d["model"]["conditions"].pop(),
     "model."),
    ("binarizer parameter of the wrong type", lambda d: d["binarizer"]["params"].__setitem__(
        "handle_unknown", 3), "binarizer.params"),
    ("unknown binarizer parameter", lambda d: d["binarizer"]["params"].__setitem__("evil", 1),
     "binarizer.params"),
    ("column spans out of order", lambda d: d["binarizer"]["columns"][0].__setitem__("stop", 10 ** 6),
     "binarizer.columns[0].first"),
    ("column source unknown", lambda d: d["binarizer"]["columns"][0].__setitem__("source", "zz"),
     "binarizer.columns[0].source"),
    ("estimator not text", lambda d: d.__setitem__("estimator", ["X"]), "estimator"),
    ("certificate status unknown", lambda d: d["certificate"].__setitem__("status", "great"),
     "certificate.status"),
    ("lower bound above objective", lambda d: d["certificate"].update(
        status="feasible", objective=0.1, lower_bound=0.5), "certificate.lower_bound"),
    ("metadata too deep", lambda d: d.__setitem__("metadata", {"a": json.loads("[" * 40 + "]" * 40)}),
     "metadata"),
    ("schema as text", lambda d: d.__setitem__("schema", "2"), "schema"),
    ("schema as boolean", lambda d: d.__setitem__("schema", True), "schema"),
    ("schema zero", lambda d: d.__setitem__("schema", 0), "schema"),
]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    est, X = fitted("frl")   # rules with stated probabilities
    path = est.save(tmp_path_factory.mktemp("saved") / "m.json")
    return json.loads(path.read_text()), X


@pytest.mark.parametrize("what,damage,field", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_a_crafted_file_is_one_clear_error(saved, tmp_path, what, damage, field):
    payload = copy.deepcopy(saved[0])
    damage(payload)
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(ValueError) as info:
        rulekit.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert field in message, message
    assert "newer" not in message or what == "schema newer"


def test_schema_text_is_not_reported_as_newer(saved, tmp_path):
    payload = dict(saved[0], schema="2")
    (tmp_path / "m.json").write_text(json.dumps(payload))
    with pytest.raises(ValueError, match=r"field 'schema': expected the integer 1 or 2, got '2'"):
        rulekit.load(tmp_path / "m.json")
    payload["schema"] = 3
    (tmp_path / "m.json").write_text(json.dumps(payload))
    with pytest.raises(ValueError, match="schema 3 is newer than this rulekit"):
        rulekit.load(tmp_path / "m.json")


def test_deeply_nested_json_is_a_clear_error(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="deep.json.*nested too deeply"):
        rulekit.load(tmp_path / "deep.json")


def test_an_intact_file_still_loads_and_predicts(saved, tmp_path):
    payload, X = saved
    (tmp_path / "m.json").write_text(json.dumps(payload))
    loaded = rulekit.load(tmp_path / "m.json")
    assert len(loaded.predict(X)) == len(X)


@pytest.mark.parametrize("command", ["predict", "export"])
@pytest.mark.parametrize("what,damage,field", CRAFTED[:6], ids=[c[0] for c in CRAFTED[:6]])
def test_the_command_line_reports_a_crafted_file_in_one_line(saved, tmp_path, capsys, command,
                                                              what, damage, field):
    payload = copy.deepcopy(saved[0])
    damage(payload)
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(payload))
    saved[1].to_csv(tmp_path / "data.csv", index=False)
    args = ([command, str(path), str(tmp_path / "data.csv")] if command == "predict"
            else [command, str(path), "--to", "sql"])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("rulekit: error: ")
    assert str(path) in err and field in err and "Traceback" not in err


# -- issue 36, item 12: integers too long for 64 bits --------------------------------------------

#: where a long integer is put, and the field the error must name
LONG_INTEGER_FIELDS = [
    (lambda d: d["model"]["rules"][0]["counts"].__setitem__(0, "@@"), "model.rules[0].counts[0]"),
    (lambda d: d["certificate"].__setitem__("objective", "@@"), "certificate.objective"),
    (lambda d: d["binarizer"]["conditions"][0].__setitem__("value", "@@"),
     "binarizer.conditions[0].value"),
    (lambda d: d["model"]["classes"].__setitem__(0, "@@"), "model.classes[0]"),
    (lambda d: d["params"].__setitem__("n_iter", "@@"), "params.n_iter"),
    (lambda d: d["metadata"].__setitem__("rows", "@@"), "metadata.rows"),
]


def _with_long_integer(payload, put, digits: int) -> str:
    payload = copy.deepcopy(payload)
    payload.setdefault("metadata", {})
    put(payload)
    return json.dumps(payload).replace('"@@"', "9" * digits)


@pytest.mark.parametrize("digits", [401, 5000])
@pytest.mark.parametrize("put,field", LONG_INTEGER_FIELDS, ids=[f for _, f in LONG_INTEGER_FIELDS])
def test_an_integer_too_long_for_64_bits_names_its_field(saved, tmp_path, put, field, digits):
    # 401 digits overflowed float() (OverflowError); 5000 hit Python's digit limit for
    # int() without naming the file or the field
    path = tmp_path / "long.json"
    path.write_text(_with_long_integer(saved[0], put, digits))
    with pytest.raises(ValueError) as info:
        rulekit.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: field '{field}'"), message
    assert f"integer of {digits} digits" in message and "\n" not in message


def test_a_count_must_fit_in_64_bits_a_label_need_not(saved, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(_with_long_integer(saved[0], LONG_INTEGER_FIELDS[0][0], 20))
    with pytest.raises(ValueError, match=r"field 'model.rules\[0\].counts\[0\]': an integer of "
                                         r"20 digits is beyond the 64-bit integers"):
        rulekit.load(path)
    # labels and categories may be beyond 64-bit signed integers (here uint64 labels of 20
    # digits): they round-trip
    X, y = small_frame()
    labels = np.where(y == "yes", np.uint64(2**64 - 1), np.uint64(2**63))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = CorelsClassifier(c=0.01, max_card=1).fit(X, labels)
    loaded = rulekit.load(est.save(tmp_path / "big.json"))
    assert list(loaded.classes_) == [2**63, 2**64 - 1]
    assert list(loaded.predict(X)) == list(est.predict(X))


@pytest.mark.parametrize("command", ["predict", "export"])
@pytest.mark.parametrize("digits", [401, 5000])
def test_the_command_line_reports_a_long_integer_in_one_line(saved, tmp_path, capsys, command,
                                                             digits):
    path = tmp_path / "long.json"
    path.write_text(_with_long_integer(saved[0], LONG_INTEGER_FIELDS[0][0], digits))
    saved[1].to_csv(tmp_path / "data.csv", index=False)
    args = ([command, str(path), str(tmp_path / "data.csv")] if command == "predict"
            else [command, str(path), "--to", "python"])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err == (f"rulekit: error: {path}: field 'model.rules[0].counts[0]': expected a "
                   f"non-negative integer count, got an integer of {digits} digits (a model file "
                   "holds integers of at most 300 digits)\n")


# -- issue 36, item 10: size limits ------------------------------------------------------------

def _amplifier(n_categories: int, n_rules: int) -> dict:
    """A small valid file whose export is huge: one column of many categories, whose
    infrequent group is tested by many rules.  An unseen category counts as infrequent
    (handle_unknown="warn"), so each use of the test is written "present and not one of
    the frequent categories": the whole list again."""
    rng = np.random.default_rng(0)
    n = 200
    job = np.where(rng.random(n) < 0.2, [f"r{i}" for i in range(n)], rng.choice(["a", "b"], n))
    X = pd.DataFrame({"age": rng.integers(18, 70, n).astype(float), "job": job})
    y = np.where((X["age"] < 35) ^ (X["job"].str.startswith("r")), "yes", "no")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = CorelsClassifier(c=0.01, max_card=1).fit(X, y)
    payload = json.loads(json.dumps(rulekit.persist.Predictor.from_estimator(est).to_dict()))
    (k, c), = [(k, c) for k, c in enumerate(payload["model"]["conditions"]) if c["op"] == "in"]
    column = next(s for s in payload["binarizer"]["columns"] if s["name"] == c["feature"])
    column["values"] += [f"c{i:06d}" for i in range(n_categories)]
    rule = next(r for r in payload["model"]["rules"] if r["conditions"] == [k])
    payload["model"]["rules"] = [copy.deepcopy(rule) for _ in range(n_rules)]
    return payload


def test_a_small_file_that_would_export_gigabytes_is_refused(tmp_path):
    # about 1 MB; its exports would repeat a 1 MB list 3,000 times (about 3 GB)
    path = tmp_path / "amplifier.json"
    path.write_text(json.dumps(_amplifier(90_000, 3_000)))
    assert 0.5e6 < path.stat().st_size < 1.5e6
    with pytest.raises(ValueError, match=r"amplifier.json: field 'model.rules\[\d+\].conditions'"
                                         r": the exported code would repeat .* above the limit "
                                         r"of 20,000,000.*limits=\{'max_export_chars': \.\.\.\}"):
        rulekit.load(path)
    # the user who trusts the file lifts that one limit (loading is cheap; exporting is not)
    loaded = rulekit.load(path, limits={"max_export_chars": None})
    assert len(loaded.model.rules) == 3_000


def test_a_file_above_the_byte_limit_is_refused_before_it_is_read(saved, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(saved[0]))
    size = path.stat().st_size
    with pytest.raises(ValueError, match=rf"m.json is larger than {size - 1:,} bytes, the limit "
                                         r"for a model file.*'max_bytes': None"):
        rulekit.load(path, limits={"max_bytes": size - 1})
    assert rulekit.load(path, limits={"max_bytes": size}).estimator == "FallingRuleListClassifier"
    assert rulekit.persist.LIMITS["max_bytes"] == 100_000_000


#: (limit, a value the saved model exceeds, the field its error names)
LIMITED = [
    ("max_text", 20, "metadata.note"),  # above the layout's own keys, below the note
    ("max_classes", 1, "model.classes"),
    ("max_columns", 1, "binarizer.feature_names_in"),
    ("max_values", 1, "binarizer.columns[0].values"),
    ("max_conditions", 1, "binarizer.conditions"),
    ("max_rules", 1, "model.rules"),
    ("max_export_chars", 1, "model.rules["),
]


@pytest.mark.parametrize("limit,value,field", LIMITED, ids=[k for k, _, _ in LIMITED])
def test_each_limit_refuses_a_file_above_it(saved, tmp_path, limit, value, field):
    payload = copy.deepcopy(saved[0])
    payload["metadata"] = {"note": "x" * 50}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(ValueError, match=rf"field '{re.escape(field)}.*above the limit of "
                                         rf"{value}\b.*limits=\{{'{limit}': \.\.\.\}}"):
        rulekit.load(path, limits={limit: value})
    assert rulekit.load(path, limits={limit: None}).estimator == "FallingRuleListClassifier"
    assert rulekit.load(path).metadata == {"note": "x" * 50}  # the defaults take it


def test_conditions_per_rule_are_limited(saved, tmp_path):
    payload = copy.deepcopy(saved[0])
    rule = payload["model"]["rules"][0]
    rule["conditions"] = rule["conditions"] * 101
    (tmp_path / "m.json").write_text(json.dumps(payload))
    with pytest.raises(ValueError, match=r"field 'model.rules\[0\].conditions': conditions in one "
                                         r"rule 101, above the limit of 100"):
        rulekit.load(tmp_path / "m.json")


@pytest.mark.parametrize("limits,error", [({"max_rows": 1}, ValueError),
                                          ({"max_rules": 0}, ValueError),
                                          ({"max_rules": 2.5}, ValueError),
                                          (["max_rules"], TypeError)])
def test_a_bad_limit_is_a_clear_error(saved, tmp_path, limits, error):
    (tmp_path / "m.json").write_text(json.dumps(saved[0]))
    with pytest.raises(error, match="limit"):
        rulekit.load(tmp_path / "m.json", limits=limits)


# -- 11: duplicated columns -------------------------------------------------------------------

def test_duplicated_columns_are_the_same_clear_error_for_a_loaded_model(tmp_path):
    est, X = fitted()
    loaded = rulekit.load(est.save(tmp_path / "m.json"))
    doubled = pd.concat([X, X[["job"]]], axis=1)
    messages = []
    for model in (est, loaded):
        for method in (model.predict, model.predict_proba):
            with pytest.raises(ValueError, match="duplicate column names: 'job' \\(2 times\\)") as e:
                method(doubled)
            messages.append(str(e.value))
    assert len(set(messages)) == 1


# -- 12: compare --plot ----------------------------------------------------------------------

@pytest.mark.parametrize("target", ["dir", "dir/", "file.png", "noext"])
def test_compare_plot_writes_where_it_says(tmp_path, capsys, monkeypatch, target):
    X, y = small_frame(80)
    X.drop(columns="when").assign(outcome=y).to_csv(tmp_path / "d.csv", index=False)
    monkeypatch.chdir(tmp_path)
    if target == "dir":
        (tmp_path / "dir").mkdir()
    assert main(["compare", "d.csv", "--target", "outcome", "--models", "cart", "--cv", "2",
                 "--plot", target]) == 0
    said = capsys.readouterr().out.strip().splitlines()[-1]
    assert said.startswith("plot saved to ")
    where = tmp_path / said[len("plot saved to "):]
    assert where.is_file() and where.stat().st_size > 1000
    expected = {"dir": "dir/comparison.png", "dir/": "dir/comparison.png",
                "file.png": "file.png", "noext": "noext.png"}[target]
    assert where == tmp_path / expected


# -- 13: certificates in comparable units ---------------------------------------------------

def test_certificates_show_a_relative_gap_beside_their_own_units():
    corels = Certificate("time_limit", 0.3, 0.2962, "rule lists", n=500)
    colgen = Certificate("feasible", 3074.0, 2413.0, "rule sets")
    for cert in (corels, colgen):
        text = str(cert)
        assert "relative gap" in text
        assert cert.relative_gap == pytest.approx(cert.gap / cert.objective)
    # a rate shows the rows it stands for beside it
    assert "gap 0.0038 (1.9 rows)" in str(corels)
    assert "1.27 %" in str(corels) and "21.5 %" in str(colgen)
    assert Certificate("feasible", 0.0, -1.0).relative_gap == math.inf
    assert Certificate("optimal", 0.2).relative_gap == 0.0


def test_compare_models_shows_the_relative_gap():
    X, y = small_frame(150, seed=3)
    models = {"corels": CorelsClassifier(c=0.0001, max_card=2, max_nodes=30),
              "cg": BooleanRuleCGClassifier(max_complexity=6)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = rulekit.compare_models(models, X, y, cv=2, refit=False)
    assert "relative_gap" in comparison.folds
    unproved = comparison.folds[comparison.folds["status"] == "node_limit"]
    assert len(unproved) and unproved["relative_gap"].notna().all()
    assert "max relative gap" in comparison.table.loc["corels", "certificate"]
    assert "max relative gap" in comparison.to_markdown()
