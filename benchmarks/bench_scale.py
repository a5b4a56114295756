"""Fit cost against rows on parquet data, in one process and on a 2-worker dask cluster (issue 35).

Usage (from the repository root; the data from ``generate_adult_like.py``)::

    python benchmarks/generate_adult_like.py --rows 1e6 --out data/adult_1m --seed 0
    python benchmarks/bench_scale.py --data data/adult_1m [--data data/adult_10m ...] \\
        [--learners corels,frl,softfrl,cg] [--modes single,dask] \\
        [--out scale.json] [--baseline before.json] [--plot docs/images/scaling_rows.png]
    python benchmarks/bench_scale.py --out scale.json --plot scaling_rows.png   # redraw only

Every learner is constructed at its defaults from :data:`rulekit.learners.LEARNERS`
(``corels``, ``frl``, ``softfrl`` and ``cg``, column generation choosing DNF or
CNF).  Each measurement runs in a fresh Python process, as one user's fit would,
so that peak RSS belongs to that fit alone:

``load``
    Imports rulekit and the learner and reads the parquet files into pandas,
    nothing else: the baseline subtracted from the fit's CPU seconds.
``fit`` (mode ``single``)
    The same, then ``fit(X, y)``.  Fit CPU s = the child's user+sys (from
    ``os.wait4``) minus the ``load`` child's; wall s is over ``fit`` alone.
    Peak RSS is the child's high-water mark; "fit's own" is that minus the
    RSS just before ``fit`` (the data loaded), the memory the fit adds.
``patterns``
    The two passes of a fit from the files (``rulekit.stream``), timed apart in
    one process: pass 1 (summaries, thresholds) and pass 2, the counting pass
    (binarize into packed keys, count the distinct (pattern, class) keys per
    fold), each as rows per CPU second on one core, reading included; and the
    number of distinct (pattern, class) rows a fit on counts searches.
``fit`` (mode ``dask``)
    A ``LocalCluster`` of 2 worker processes on 127.0.0.1 (1 thread each); the
    files read with ``dask.dataframe.read_parquet``; ``fit(ddf_X, ddf_y)``.
    An estimator that rejects a dask frame with TypeError or ValueError is
    recorded as "not supported yet" (the error kept), not as a failure.  Fit CPU
    s is the client's plus the workers' CPU over ``fit``; peak RSS is given for
    the client and for each worker (``resource.getrusage`` run on the workers).

Results are JSON records merged into ``--out`` (keyed by rows, learner and
mode, so several runs build one table); the script prints a markdown table,
ratios against ``--baseline`` (an earlier ``--out`` file) when given, and draws
rows against fit CPU s and peak RSS on log-log axes.  The 1-minute load
average is recorded with every fit: the machine is shared, so compare CPU
seconds, not wall seconds.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the label column written by generate_adult_like.py
LABEL = "income"
#: learner names in rulekit.learners.LEARNERS -> the names in the table
LEARNER_LABELS = {"corels": "CORELS", "frl": "FRL", "softfrl": "softFRL", "cg": "CG"}


# ---------------------------------------------------------------- helpers used by children

def parquet_files(spec: str) -> list[str]:
    """The parquet files of a folder, a glob or one file, sorted (chunk order)."""
    path = Path(spec)
    if path.is_dir():
        files = sorted(str(p) for p in path.glob("*.parquet"))
    else:
        files = sorted(glob.glob(spec))
    if not files:
        raise ValueError(f"no parquet files at {spec!r}: give a folder, a glob or a file")
    return files


def count_rows(files: list[str]) -> int:
    """Rows in the files, read from the parquet footers (no data is read)."""
    import pyarrow.parquet as pq
    return sum(pq.ParquetFile(f).metadata.num_rows for f in files)


def proc_status_mb(field: str = "VmRSS") -> float:
    """A memory line of /proc/self/status in MB: ``VmRSS`` the resident set now (not its
    peak), ``VmHWM`` its peak since start or since ``/proc/self/clear_refs`` reset it."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _load(files: list[str], learner: str):
    """Import the learner and read every row into pandas: what a user does before ``fit``."""
    import numpy as np
    import pandas as pd

    from rulekit.learners import LEARNERS

    spec = LEARNERS[learner]
    spec.estimator_class()  # the import of the learner's package belongs to the baseline
    frame = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    y = frame.pop(LABEL).to_numpy()
    return spec, frame, np.asarray(y)


def _fit_or_refusal(est, *args) -> tuple[str, str]:
    """``est.fit(*args)`` with its warnings silenced: ``(status, error)``.

    A learner that refuses the input (TypeError or ValueError: it cannot read
    it, or the patterns need more memory than it allows) is recorded as "not
    supported yet" with the first line of its message, not as a failure.
    """
    import warnings

    try:
        with warnings.catch_warnings():
            # a default fit may warn (time budget, identifier-like column): the status says it
            warnings.simplefilter("ignore")
            est.fit(*args)
    except (TypeError, ValueError) as exc:
        return "not supported yet", f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    return _status(est), ""


def _rows_fitted(est) -> int | None:
    """Rows the fitted model's training counts add up to: every row, or the rows counted
    before a time limit cut the passes (the fit then searched part of the data)."""
    model = getattr(est, "model_", None)
    if hasattr(model, "default"):                         # a rule list
        return int(sum(sum(r.counts) for r in [*model.rules, model.default]))
    if getattr(model, "counts_true", None) is not None:   # a binary rule set
        return int(sum(model.counts_true) + sum(model.counts_false))
    return None


def _status(est) -> str:
    """The fit's certificate status when the learner has one (CORELS), else ''."""
    return str(getattr(getattr(est, "certificate_", None), "status", "") or "")


# ---------------------------------------------------------------- child processes

def child_load(job: dict) -> dict:
    _load(job["files"], job["learner"])
    return dict(rss_loaded_mb=proc_status_mb())


def child_fit(job: dict) -> dict:
    import warnings

    spec, X, y = _load(job["files"], job["learner"])
    rss_loaded = proc_status_mb()
    est = spec.make()
    c0, w0 = _cpu_s(), time.perf_counter()
    with warnings.catch_warnings():
        # a default fit may warn (time budget, identifier-like column): the status says it
        warnings.simplefilter("ignore")
        est.fit(X, y)
    return dict(fit_cpu_inprocess_s=_cpu_s() - c0, wall_s=time.perf_counter() - w0,
                rss_loaded_mb=rss_loaded, status=_status(est), rows_fitted=_rows_fitted(est))


def child_patterns(job: dict) -> dict:
    """The two counting passes of a fit from files (``rulekit.stream.count``), timed apart."""
    from rulekit import stream
    from rulekit._patterns import PatternCounter
    from rulekit.binarize import Binarizer

    source = stream.Files(job["files"], target=LABEL)
    c0 = _cpu_s()
    summary = None
    for chunk in source.chunks():
        part = stream.summarize(chunk, LABEL, None, Binarizer())
        summary = part if summary is None else summary.merge(part)
    c1 = _cpu_s()
    fitted = stream.fit_binarizer(summary, Binarizer())
    classes = stream.classes_of(summary)
    m = len(fitted.conditions_)
    counter = PatternCounter(-(-m // 8) + 2, 5)
    for chunk in source.chunks():
        keys, fold = stream.chunk_keys(chunk, fitted, classes, LABEL)
        counter.add(keys, fold)
    c2 = _cpu_s()
    n = summary.n_rows
    return dict(patterns=int(counter.used), conditions=int(m), pass1_cpu_s=c1 - c0,
                pass2_cpu_s=c2 - c1, pass1_rows_per_cpu_s=n / (c1 - c0),
                rows_per_cpu_s=n / (c2 - c1))


def child_stream(job: dict) -> dict:
    """``fit(stream.Files(...))``: two passes over the files, never all the rows at once."""
    from rulekit import stream
    from rulekit.learners import LEARNERS

    spec = LEARNERS[job["learner"]]
    spec.estimator_class()
    rss_before = proc_status_mb()
    est = spec.make()
    c0, w0 = _cpu_s(), time.perf_counter()
    status, error = _fit_or_refusal(est, stream.Files(job["files"], target=LABEL))
    return dict(fit_cpu_inprocess_s=_cpu_s() - c0, wall_s=time.perf_counter() - w0,
                rss_loaded_mb=rss_before, status=status, error=error,
                rows_fitted=_rows_fitted(est))


def _worker_usage():
    """Run on each dask worker: its peak RSS (MB) and CPU seconds so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def child_dask(job: dict) -> dict:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from rulekit.learners import LEARNERS

    spec = LEARNERS[job["learner"]]
    # worker processes on the loopback address: data is pickled and sent over TCP,
    # as on a cluster of machines (tests/test_distributed.py does the same)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=40) as cluster, \
            Client(cluster) as client:
        ddf = dd.read_parquet(job["files"])
        X, y = ddf.drop(columns=[LABEL]), ddf[LABEL]
        before = client.run(_worker_usage)
        est = spec.make()
        c0, w0 = _cpu_s(), time.perf_counter()
        status, error = _fit_or_refusal(est, X, y)
        wall = time.perf_counter() - w0
        client_cpu = _cpu_s() - c0
        after = client.run(_worker_usage)
    workers_cpu = sum(after[w][1] - before[w][1] for w in after)
    return dict(fit_cpu_s=client_cpu + workers_cpu, wall_s=wall, status=status, error=error,
                rows_fitted=_rows_fitted(est), peak_rss_mb=_peak_rss_mb(),
                worker_peak_rss_mb=sorted(round(after[w][0], 1) for w in after))


CHILDREN = {"load": child_load, "fit": child_fit, "patterns": child_patterns, "dask": child_dask,
            "stream": child_stream}


def run_child(kind: str, **job) -> dict:
    """Run one measurement in a fresh interpreter; add its own CPU s and peak RSS (os.wait4)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, __file__, "--child", kind, json.dumps(job)],
                                stdout=out, stderr=err, text=True)
        # wait4 rather than wait: it returns this child's own rusage (RUSAGE_CHILDREN
        # would be the maximum over every child so far, not this one's peak)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} {job} failed (exit {proc.returncode}):\n{stderr[-3000:]}")
    row = json.loads(stdout.strip().splitlines()[-1])
    row.update(child_cpu_s=usage.ru_utime + usage.ru_stime, child_peak_rss_mb=usage.ru_maxrss / 1024)
    return row


# ---------------------------------------------------------------- the parent

def measure(data: str, learner: str, mode: str, patterns: dict) -> dict:
    """One row of the table: a learner fitted on one file set in one mode."""
    files = parquet_files(data)
    rows = count_rows(files)
    record = dict(rows=rows, data=data, learner=learner, mode=mode,
                  load_avg_1min=round(os.getloadavg()[0], 1), **patterns)
    if mode == "single":
        load = run_child("load", files=files, learner=learner)
        fit = run_child("fit", files=files, learner=learner)
        record.update(
            fit_cpu_s=fit["child_cpu_s"] - load["child_cpu_s"],
            fit_cpu_inprocess_s=fit["fit_cpu_inprocess_s"], wall_s=fit["wall_s"],
            peak_rss_mb=fit["child_peak_rss_mb"], rss_loaded_mb=fit["rss_loaded_mb"],
            fit_own_rss_mb=fit["child_peak_rss_mb"] - fit["rss_loaded_mb"],
            load_cpu_s=load["child_cpu_s"], load_peak_rss_mb=load["child_peak_rss_mb"],
            status=fit["status"], rows_fitted=fit["rows_fitted"])
    elif mode == "stream":
        fit = run_child("stream", files=files, learner=learner)
        record.update(fit_cpu_s=fit["fit_cpu_inprocess_s"], wall_s=fit["wall_s"],
                      peak_rss_mb=fit["child_peak_rss_mb"], rss_loaded_mb=fit["rss_loaded_mb"],
                      fit_own_rss_mb=fit["child_peak_rss_mb"] - fit["rss_loaded_mb"],
                      status=fit["status"], error=fit["error"], rows_fitted=fit["rows_fitted"])
    else:
        fit = run_child("dask", files=files, learner=learner)
        record.update(fit_cpu_s=fit["fit_cpu_s"], wall_s=fit["wall_s"],
                      peak_rss_mb=fit["peak_rss_mb"], worker_peak_rss_mb=fit["worker_peak_rss_mb"],
                      status=fit["status"], error=fit["error"], rows_fitted=fit["rows_fitted"])
    return record


def _key(r: dict) -> tuple:
    return (r["rows"], r["learner"], r["mode"])


def merge(path: Path | None, new: list[dict]) -> list[dict]:
    """Records of ``path`` updated with ``new`` (same rows, learner and mode: replaced)."""
    old = json.loads(path.read_text()) if path and path.exists() else []
    merged = {_key(r): r for r in old}
    merged.update({_key(r): r for r in new})
    return sorted(merged.values(), key=lambda r: (r["mode"], r["learner"], r["rows"]))


def _fmt(value, digits=1) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, list):
        return " / ".join(_fmt(v, 0) for v in value)
    return f"{value:,}" if isinstance(value, int) else str(value)


def to_markdown(records: list[dict], baseline: list[dict] | None = None) -> str:
    """The table: one line per (mode, learner, rows); ratios when a baseline is given."""
    head = ["rows", "learner", "mode", "fit CPU s", "wall s", "peak RSS MB", "fit's own MB",
            "workers' peak MB", "distinct patterns", "pass 1 rows/CPU s",
            "counting pass (pass 2) rows/CPU s", "status", "rows the model counts",
            "load avg"]
    base = {_key(r): r for r in baseline or []}
    if baseline is not None:
        head += ["CPU: baseline / now", "fit's own MB: baseline / now"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in records:
        cells = [_fmt(r["rows"]), LEARNER_LABELS.get(r["learner"], r["learner"]), r["mode"],
                 _fmt(r.get("fit_cpu_s")), _fmt(r.get("wall_s")), _fmt(r.get("peak_rss_mb"), 0),
                 _fmt(r.get("fit_own_rss_mb"), 0), _fmt(r.get("worker_peak_rss_mb")),
                 _fmt(r.get("patterns")), _fmt(r.get("pass1_rows_per_cpu_s"), 0),
                 _fmt(r.get("rows_per_cpu_s"), 0),
                 r.get("status") or "—", _fmt(r.get("rows_fitted")),
                 _fmt(r.get("load_avg_1min"))]
        if baseline is not None:
            b = base.get(_key(r))
            ratio = lambda k: (_fmt(b[k] / r[k], 2) + "x"  # noqa: E731
                               if b and b.get(k) and r.get(k) else "—")
            cells += [ratio("fit_cpu_s"), ratio("fit_own_rss_mb")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: how each mode is drawn: (marker, line style); the largest dask worker's RSS as its own
_MODE_STYLE = {"single": ("o", "-"), "stream": ("s", "--"), "dask": ("^", ":")}
_WORKER_STYLE = ("v", (0, (1, 3)))


def plot(records: list[dict], path: Path) -> None:
    """Rows against fit CPU s and peak RSS, log-log, one line per learner and mode.

    A learner keeps one colour and a mode one marker and line style in both panels, so
    that every line can be told apart (a colour per line ran out of colours); the
    issue's targets are drawn as grey lines (120 CPU s at ten million rows; 2 GB in one
    process, 4 GB per process on the cluster).
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (cpu_ax, rss_ax) = plt.subplots(1, 2, figsize=(11, 4.2))
    series = {}
    for r in records:
        if r.get("status") == "not supported yet" or r.get("fit_cpu_s") is None:
            continue
        series.setdefault((r["learner"], r["mode"]), []).append(r)
    learners = sorted({learner for learner, _ in series})
    colors = {learner: f"C{i}" for i, learner in enumerate(learners)}
    for (learner, mode), rs in sorted(series.items()):
        rs = sorted(rs, key=lambda r: r["rows"])
        marker, line = _MODE_STYLE.get(mode, ("x", "-."))
        style = dict(color=colors[learner], marker=marker, linestyle=line)
        label = f"{LEARNER_LABELS.get(learner, learner)} ({mode})"
        rows = [r["rows"] for r in rs]
        cpu_ax.plot(rows, [r["fit_cpu_s"] for r in rs], label=label, **style)
        # the dask client's peak, and the largest worker's beside it
        rss_ax.plot(rows, [r["peak_rss_mb"] / 1024 for r in rs], label=label, **style)
        if mode == "dask":
            rss_ax.plot(rows, [max(r["worker_peak_rss_mb"]) / 1024 for r in rs],
                        color=colors[learner], marker=_WORKER_STYLE[0],
                        linestyle=_WORKER_STYLE[1], label=f"{label}, largest worker")
    cpu_ax.axhline(120, color="grey", linewidth=1, alpha=0.7)
    cpu_ax.annotate("target at 10 M rows: 120 CPU s", (0.55, 120), xycoords=("axes fraction",
                    "data"), fontsize=7, color="grey", va="bottom")
    for limit, text in ((2, "target, one process: 2 GB"), (4, "target, each dask process: 4 GB")):
        rss_ax.axhline(limit, color="grey", linewidth=1, alpha=0.7)
        rss_ax.annotate(text, (0.02, limit), xycoords=("axes fraction", "data"), fontsize=7,
                        color="grey", va="bottom")
    for ax, title in ((cpu_ax, "fit CPU s (user + sys, minus loading)"),
                      (rss_ax, "peak RSS GB (data and imports included)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rows (adult-like, generate_adult_like.py)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    # one legend beside both panels: the RSS panel holds every line (workers included)
    handles, labels = rss_ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8,
               frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", action="append", default=[],
                        help="a folder, glob or file of parquet (repeat for several sizes); "
                             "none: print and plot the records already in --out")
    parser.add_argument("--learners", default=",".join(LEARNER_LABELS),
                        help="names in rulekit.learners.LEARNERS, comma-separated")
    parser.add_argument("--modes", default="single,dask",
                        help="single (rows read into pandas, then fit), stream (fit from the "
                        "files: two passes) and/or dask, comma-separated")
    parser.add_argument("--no-patterns", action="store_true",
                        help="skip counting the distinct binarized rows")
    parser.add_argument("--out", type=Path, help="JSON file the records are merged into")
    parser.add_argument("--baseline", type=Path, help="an earlier --out file to compare with")
    parser.add_argument("--plot", type=Path, help="PNG of rows against CPU s and peak RSS")
    args = parser.parse_args(argv)

    learners = [n for n in args.learners.split(",") if n]
    modes = [m for m in args.modes.split(",") if m]
    if set(modes) - {"single", "stream", "dask"}:
        parser.error(f"--modes takes single, stream and/or dask, got {args.modes!r}")
    new = []
    for data in args.data:
        # the patterns do not depend on the learner: count them once per file set
        patterns = ({} if args.no_patterns else
                    run_child("patterns", files=parquet_files(data), learner=learners[0]))
        patterns = {k: patterns[k] for k in ("patterns", "conditions", "rows_per_cpu_s",
                                             "pass1_rows_per_cpu_s") if k in patterns}
        for learner in learners:
            for mode in modes:
                record = measure(data, learner, mode, patterns)
                print(json.dumps(record), file=sys.stderr, flush=True)
                new.append(record)
    records = merge(args.out, new)
    if args.out:
        args.out.write_text(json.dumps(records, indent=1) + "\n")
    baseline = json.loads(args.baseline.read_text()) if args.baseline else None
    print(f"machine: {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(to_markdown(records, baseline))
    if args.plot:
        plot(records, args.plot)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        print(json.dumps(CHILDREN[sys.argv[2]](json.loads(sys.argv[3]))))
    else:
        main()
