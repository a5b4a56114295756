"""Benchmark CORELS: the compas instance of its authors, and the estimator's defaults.

Each configuration runs in its own subprocess so that CPU time (user + sys)
and peak resident memory are that run's alone (``os.wait4`` returns the
child's own ``rusage``).  The process numbers include interpreter start-up,
imports and loading numba's compiled cache (about 1 s); ``search cpu`` is
the CPU time inside ``search`` only, ``engine MB`` the engine's own count of
its memory (what ``max_memory`` limits), to compare with the peak RSS.

Usage::

    PYTHONPATH=. python benchmarks/bench_corels.py compas155 [--repeats 3]
        [--time-limit 600] [--reference /path/to/corels_cli]
    PYTHONPATH=. python benchmarks/bench_corels.py targets [--only "label text"]
    PYTHONPATH=. python benchmarks/bench_corels.py ablation
    PYTHONPATH=. python benchmarks/bench_corels.py counting [--time-limit 15]

``--reference`` points to a command-line driver of the reference C++ CORELS
core (the PyPI ``corels`` 1.1.29 sources with
``benchmarks/corels_reference_driver.cpp``, see ``RESULTS_corels.md``); it
runs on the same three files with the same c, policy and map.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.environ.get("RULEKIT_SHARED_DATA", str(Path(__file__).resolve().parents[1].parent / "shared" / "data"))
DATA = os.path.join(DATA, "compas_corels")

ENGINE = r"""
import json, sys
import numpy as np
sys.path.insert(0, {root!r})
from rulekit.corels import search
from rulekit.datasets import load_corels_compas

b = load_corels_compas()
A, y = np.asarray(b.data, dtype=bool), np.asarray(b.target)
cfg = json.loads(sys.argv[1])
r = search(A, y, cfg.pop("c"), **cfg)
print(json.dumps(dict(objective=r.objective, mistakes=r.mistakes, rules=len(r.prefix),
                      lower_bound=r.lower_bound, status=r.status,
                      expanded=r.stats["nodes_expanded"], inserted=r.stats["nodes_inserted"],
                      engine_mb=r.stats["memory_mb"], search_cpu=r.stats["cpu_time"],
                      search_wall=r.stats["total_time"])))
"""

ESTIMATOR = r"""
import json, sys, warnings
import numpy as np
sys.path.insert(0, {root!r})
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier
from rulekit import Binarizer, CorelsClassifier
import rulekit.datasets as datasets

warnings.simplefilter("ignore")
job = json.loads(sys.argv[1])
X, y = getattr(datasets, "load_" + job["data"])(return_X_y=True)
test = None
if job.get("split"):
    X, Xt, y, yt = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    test = (Xt, yt)
if job.get("model") == "cart":
    binz = Binarizer(min_frequency=None).fit(X)
    cart = DecisionTreeClassifier(max_depth=4, random_state=0).fit(binz.transform(X), y)
    print(json.dumps(dict(status="-", test_accuracy=cart.score(binz.transform(test[0]), test[1]))))
    raise SystemExit
est = CorelsClassifier(**job["params"]).fit(X, y)
cert, st = est.certificate_, est.stats_
print(json.dumps(dict(status=cert.status, objective=cert.objective, lower_bound=cert.lower_bound,
                      gap=cert.gap, antecedents=len(est.antecedents_), rules=len(est.model_),
                      expanded=st["nodes_expanded"], engine_mb=st["memory_mb"],
                      search_cpu=st["cpu_time"],
                      test_accuracy=None if test is None else est.score(*test))))
"""


def run_child_rusage(cmd: list, timeout: float | None, preexec_fn=None) -> dict:
    """Run one command; reap it with ``os.wait4`` to get its own rusage."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=preexec_fn)
    deadline = None if timeout is None else t0 + timeout
    out_chunks = []
    err_chunks = []
    # read pipes fully before reaping (outputs are small)
    def drain(stream, sink):
        sink.append(stream.read())

    th_out = threading.Thread(target=drain, args=(proc.stdout, out_chunks))
    th_err = threading.Thread(target=drain, args=(proc.stderr, err_chunks))
    th_out.start()
    th_err.start()
    killed = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if deadline is not None and time.perf_counter() > deadline and not killed:
            proc.kill()
            killed = True
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)
    th_out.join()
    th_err.join()
    wall = time.perf_counter() - t0
    out = "".join(out_chunks)
    err = "".join(err_chunks)
    base = dict(wall=wall, cpu=usage.ru_utime + usage.ru_stime,
                peak_mb=usage.ru_maxrss / 1024.0)
    if proc.returncode != 0 or not out.strip():
        base["error"] = ("killed at timeout" if killed else
                         " ".join((err or "no output").strip().splitlines()[-1:]))
        return base
    row = json.loads(out.strip().splitlines()[-1])
    row.update(base)
    return row


def run_reference(cli: str, cfg: dict, n_samples: int, timeout: float | None) -> dict:
    """The reference C++ CORELS core through a small CLI driver (see RESULTS)."""
    policy = {"lower_bound": 2, "curious": 1}[cfg["policy"]]
    map_type = {"permutation": 1, "capture": 2, "none": 0}[cfg["symmetry"]]
    cmd = [cli, f"{DATA}/compas_train.out", f"{DATA}/compas_train.label",
           f"{DATA}/compas_train.minor", str(cfg["c"]), str(policy), str(map_type),
           "1000000000", str(cfg.get("time_limit", 0))]
    row = run_child_rusage(cmd, timeout)
    if "error" in row:
        return row
    mistakes = int(round((1.0 - row["accuracy"]) * n_samples))
    k = row["rules"]
    row.update(objective=mistakes / n_samples + cfg["c"] * k, mistakes=mistakes,
               status="time_limit" if row["early"] else "optimal", expanded=-1, inserted=-1,
               search_cpu=float("nan"), lower_bound=float("nan"))
    return row


def summarize(rows: list[dict]) -> dict:
    """Medians of CPU, wall, peak RSS and search CPU over the runs that worked."""
    ok = [r for r in rows if "error" not in r]
    if not ok:
        return rows[-1]
    med = dict(ok[0])
    for key in ("wall", "cpu", "peak_mb", "search_cpu"):
        if all(key in r for r in ok):
            med[key] = statistics.median(r[key] for r in ok)
    med["n"] = len(ok)
    return med


def _engine_rows(args) -> list:
    """The CORELS compas file, c from 0.01 down to 0.001, side by side with the reference."""
    code = ENGINE.format(root=ROOT)
    rows = []
    for c, reps in ((0.01, args.repeats), (0.005, args.repeats), (0.0025, 1), (0.001, 1)):
        cfg = dict(c=c, max_memory=args.max_memory)
        if c < 0.005:
            cfg["time_limit"] = args.time_limit
        runs = [run_child_rusage([sys.executable, "-c", code, json.dumps(cfg)],
                                 args.time_limit + 300) for _ in range(reps)]
        med = summarize(runs) | dict(engine="rulekit", c=c, policy="lower_bound",
                                     symmetry="permutation")
        rows.append(med)
        _print_row(med)
        if args.reference and c >= args.reference_min_c:
            rcfg = dict(c=c, policy="lower_bound", symmetry="permutation",
                        time_limit=args.reference_time_limit)
            ref = run_reference(args.reference, rcfg, 6489, rcfg["time_limit"] + 120)
            ref.update(engine="corels", c=c, policy="lower_bound", symmetry="permutation")
            rows.append(ref)
            _print_row(ref)
    return rows


#: Estimator jobs of the targets table: (label, data, params, split, repeats).
TARGETS = [
    ("compas, 0.1 binarization (floor off)", "compas", {"min_frequency": None}, False, 3),
    ("compas, defaults", "compas", {}, False, 3),
    ("compas, reference thresholds", "compas", {"thresholds": "reference"}, False, 1),
    ("adult, defaults", "adult", {"time_limit": 60}, False, 1),
    ("fico, defaults", "fico", {"time_limit": 60}, False, 1),
    ("bank, defaults", "bank_marketing", {"time_limit": 60}, False, 1),
]
#: Train/test rows: the exact list, the reference-guided lists and CART depth 4.
SPLITS = [
    ("exact, defaults", {"time_limit": 60}),
    ("reference=gbdt", {"reference": "gbdt", "time_limit": 60}),
    ("reference=gbdt, reference thresholds", {"reference": "gbdt", "thresholds": "reference",
                                             "time_limit": 60}),
]


def _estimator_rows(args) -> list:
    code = ESTIMATOR.format(root=ROOT)
    jobs = [(label, dict(data=data, params=params, split=split), reps)
            for label, data, params, split, reps in TARGETS]
    for data in ("adult", "fico", "bank_marketing"):
        jobs += [(f"{data} 75/25: {label}", dict(data=data, params=params, split=True), 1)
                 for label, params in SPLITS]
        jobs.append((f"{data} 75/25: CART depth 4", dict(data=data, model="cart", split=True), 1))
    if args.only:
        jobs = [job for job in jobs if args.only in job[0]]
    rows = []
    for label, job, reps in jobs:
        runs = [run_child_rusage([sys.executable, "-c", code, json.dumps(job)], 900)
                for _ in range(reps)]
        med = summarize(runs) | dict(label=label)
        rows.append(med)
        print(json.dumps(med), flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", choices=("compas155", "targets", "ablation", "counting"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=600.0, help="for c=0.0025 and 0.001")
    ap.add_argument("--max-memory", type=float, default=4096.0)
    ap.add_argument("--reference", default=None, help="reference CORELS CLI binary")
    ap.add_argument("--reference-min-c", type=float, default=0.0025)
    ap.add_argument("--reference-time-limit", type=float, default=600.0)
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    ap.add_argument("--only", default=None, help="targets: the rows whose label contains this")
    args = ap.parse_args(argv)
    if args.suite == "ablation":
        return ablation(args)
    if args.suite == "counting":
        return counting(args)
    rows = _engine_rows(args) if args.suite == "compas155" else _estimator_rows(args)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


def ablation(args) -> int:
    """c=0.005 with every bound on, then with each one off (600 s limit each)."""
    sys.path.insert(0, ROOT)
    from rulekit.corels import BOUNDS

    code = ENGINE.format(root=ROOT)
    print(f"{'bound off':24} {'status':11} {'obj':>12} {'CPU s':>8} {'srch CPU':>8} "
          f"{'peak MB':>8} {'expanded':>10} {'inserted':>10}")
    for off in [None] + sorted(BOUNDS) + ["symmetry map (none)"]:
        cfg = dict(c=0.005, time_limit=args.time_limit)
        if off == "symmetry map (none)":
            cfg["symmetry"] = "none"
        elif off is not None:
            cfg["bounds"] = sorted(set(BOUNDS) - {off})
        r = run_child_rusage([sys.executable, "-c", code, json.dumps(cfg)], args.time_limit + 120)
        name = off or "(all on)"
        if "error" in r:
            print(f"{name:24} ERROR {r['error']}")
            continue
        print(f"{name:24} {r['status']:11} {r['objective']:12.10f} {r['cpu']:8.2f} "
              f"{r['search_cpu']:8.2f} {r['peak_mb']:8.0f} {r['expanded']:10d} {r['inserted']:10d}",
              flush=True)
    return 0


def _print_row(r: dict) -> None:
    if "error" in r:
        print(f"{r.get('engine', '?'):8} {r['c']:>7} ERROR {r['error']}  (CPU "
              f"{r.get('cpu', float('nan')):.1f} s, peak {r.get('peak_mb', float('nan')):.0f} MB)")
        return
    print(f"{r['engine']:8} {r['c']:>7} {r['status']:16} {r['objective']:12.10f} "
          f"lb {r.get('lower_bound', float('nan')):12.10f} {r['mistakes']:5d} {r['rules']:2d} "
          f"CPU {r['cpu']:8.2f} wall {r['wall']:8.2f} search {r['search_cpu']:8.2f} "
          f"peak {r['peak_mb']:7.0f} MB engine {r.get('engine_mb', float('nan')):7.1f} MB "
          f"expanded {r['expanded']:9d} n {r.get('n', 1)}", flush=True)



COUNTING = r"""
import json, sys, time, warnings
import numpy as np
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
from sklearn.model_selection import train_test_split
import rulekit.estimators.corels as est_mod
import rulekit.corels._problem as problem
from rulekit import CorelsClassifier
from rulekit.corels import search
from rulekit.datasets import load_dataset

job = json.loads(sys.argv[1])
X, y = load_dataset(job["data"], return_X_y=True)
Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
seen = {{}}
real = est_mod.search
def capture(A, y, c, **kw):  # the arrays the estimator searches, then a 1 s search
    seen.update(A=A, y=y, c=c, reference=kw["reference"])
    return real(A, y, c, **dict(kw, time_limit=1))
est_mod.search = capture
CorelsClassifier(**job["params"]).fit(Xtr, ytr)
if job["form"] == "table":
    problem.count_table = problem.packed_table
elif job["form"] == "planes":
    problem.count_table = problem.bit_planes
kw = {{}} if seen["reference"] is None else dict(reference=seen["reference"])
r = search(seen["A"], seen["y"], seen["c"], time_limit=job["time_limit"], **kw)
print(json.dumps(dict(expanded=r.stats["nodes_expanded"], search_cpu=r.stats["cpu_time"],
                      gap=r.objective - r.lower_bound, antecedents=int(np.shape(seen["A"])[1]))))
"""


def counting(args) -> int:
    """Each counting form forced in turn on adult and FICO (75 % part), one search each."""
    code = COUNTING.format(root=ROOT)
    limit = args.time_limit if args.time_limit != 600.0 else 15.0
    cases = [("adult, exact", "adult", {}), ("adult, reference=gbdt", "adult", {"reference": "gbdt"}),
             ("fico, exact", "fico", {}),
             ("fico, reference=gbdt, reference thresholds", "fico",
              {"reference": "gbdt", "thresholds": "reference"})]
    print("| instance | form | antecedents | expansions | search CPU s | gap |")
    print("|---|---|---|---|---|---|")
    for label, data, params in cases:
        for form in ("chosen", "table", "planes"):
            job = dict(data=data, params=params, form=form, time_limit=limit)
            r = run_child_rusage([sys.executable, "-c", code, json.dumps(job)], 900)
            if "error" in r:
                print(f"| {label} | {form} | ERROR {r['error']} |")
                continue
            print(f"| {label} | {form} | {r['antecedents']} | {r['expanded']} | "
                  f"{r['search_cpu']:.1f} | {r['gap']:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
