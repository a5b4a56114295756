"""CorelsClassifier() with every default on the 14 benchmark sets (issue 23).

Usage (from the repository root, in a venv with rulekit)::

    RULEKIT_SHARED_DATA=/path/to/shared/data python benchmarks/bench_corels_defaults.py \\
        [--datasets compas,heart] [--folds 5] [--out corels_defaults.jsonl] [--no-cv]
        [--cpp /path/to/corels_cli [--cpp-time-limit 60] [--cpp-max-mb 4096]]

For each data set:

* one fit on all rows in a fresh process (so its peak RSS is the whole
  process's: data, binarization, mining, every search): status, CPU seconds
  (user + system), peak RSS, the ``c`` and ``max_card`` chosen, rules;
* 5-fold stratified CV (shuffled, ``random_state=0``: the folds of
  ``bench_defaults.py``): test accuracy mean and standard error, the folds'
  statuses, the median fit CPU seconds; CART depth 4 on the same folds.

* with ``--cpp``: the reference C++ CORELS (PyPI ``corels`` 1.1.29's core through
  ``benchmarks/corels_reference_driver.cpp``; ``RESULTS_corels.md`` says how to
  build it) on exactly the antecedents the chosen search of that fit used (its
  columns of ``antecedents_``, after the minimum-support filter), the same class
  codes and ``c``, lower-bound policy and prefix permutation map, with the
  equivalent-points minority file; its status, objective, CPU s (the child's own,
  and of its search alone) and peak RSS, beside rulekit's search CPU s of that one point
  (``stats_["cpu_time"]``).  Binary targets only.

"Before" is the table of ``benchmarks/RESULTS.md`` ("Every learner with its
defaults"): ``CorelsClassifier(time_limit=60)`` at commit 879e60e / b3f307d,
when ``c=0.01, max_card=2`` and quantile thresholds were the defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import accuracy_score
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_defaults  # noqa: E402  (the 14 data sets and their loaders)

#: CorelsClassifier(time_limit=60) before issue 23: accuracy %, se, fit CPU s, statuses
BEFORE = {
    "compas": (67.3, 0.4, 36.29, "optimal,time_limit"),
    "tic-tac-toe": (73.8, 1.0, 40.21, "time_limit"),
    "breast-cancer": (94.6, 0.9, 41.17, "time_limit"),
    "heart": (77.0, 2.2, 58.85, "time_limit"),
    "banknote": (96.6, 0.6, 59.04, "time_limit"),
    "pima": (75.0, 1.4, 59.15, "time_limit"),
    "transfusion": (79.0, 1.3, 59.97, "time_limit"),
    "ionosphere": (88.9, 1.0, 59.32, "time_limit"),
    "ilpd": (69.8, 1.2, 59.18, "time_limit"),
    "mushroom": (98.3, 0.2, 59.71, "time_limit"),
    "magic": (79.9, 0.1, 59.52, "time_limit"),
    "fico": (69.9, 0.2, 59.50, "time_limit"),
    "bank": (89.6, 0.1, 59.42, "time_limit"),
    "adult": (82.1, 0.1, 59.18, "time_limit"),
}

ONE_FIT = r"""
import json, os, resource, sys, time, warnings
sys.path.insert(0, {bench!r})
warnings.simplefilter("ignore")
import numpy as np
import bench_defaults
from rulekit import CorelsClassifier
X, y = bench_defaults.datasets()[{name!r}]()
y = np.asarray(y)
warm = np.r_[np.flatnonzero(y == y[0])[:30], np.flatnonzero(y != y[0])[:30]]
CorelsClassifier(c=0.1, max_card=1).fit(X.iloc[warm], y[warm])  # numba's cache, off the clock
t = os.times(); c0 = t.user + t.system; w0 = time.perf_counter()
est = CorelsClassifier().fit(X, y)
t = os.times()
row = dict(cpu=t.user + t.system - c0, wall=time.perf_counter() - w0,
    rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    status=est.certificate_.status, c=est.c_, max_card=est.max_card_,
    rules=len(est.model_.rules), gap=est.certificate_.gap,
    conditions=len(est.binarizer_.conditions_), antecedents=len(est.antecedents_.items),
    certificate=str(est.certificate_))
dump = {dump!r}
if dump:  # after the figures above: the chosen search's antecedent matrix, for C++ CORELS
    from rulekit import bitset
    sel = est.selection_
    cols = sel.chosen.columns if sel is not None else np.arange(len(est.antecedents_.items))
    assert set(est.result_.prefix) <= set(cols.tolist())
    # over the training rows (the fit searched them folded into distinct rows)
    A = est.antecedents_.transform(est.binarizer_.transform(X))[:, cols]
    np.savez(dump, A=A, y=np.unique(y, return_inverse=True)[1].ravel(), c=est.c_)
    where = {{int(col): k for k, col in enumerate(cols)}}
    row["prefix"] = [where[a] for a in est.result_.prefix]   # columns of the dumped matrix
    row.update(search_status=est.result_.status, search_cpu=est.stats_["cpu_time"],
               objective=est.result_.objective, lower_bound=est.result_.lower_bound,
               n_classes=len(est.classes_), searched=len(cols),
               searched_distinct=len(np.unique(A, axis=0)))
print(json.dumps(row))
"""


def one_fit(name: str, dump: str | None = None) -> dict:
    code = ONE_FIT.format(bench=str(Path(__file__).resolve().parent), name=name, dump=dump)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=os.environ)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


#: the C++ driver's node limit: never the binding one (its memory cap comes first)
CPP_MAX_NODES = 1_000_000_000
#: objectives closer than this are the same
AGREE = 1e-9


def run_cpp(cli: str, dump: str, time_limit: float, max_mb: float | None) -> dict:
    """C++ CORELS (``corels_reference_driver.cpp``) on the antecedent matrix in ``dump``.

    The chosen search's matrix (exactly its columns, in order), the class codes
    and ``c``; lower-bound policy (2) and the prefix permutation map (1), as
    rulekit's defaults.  CPU s is the child's own (``os.wait4``), peak RSS its
    ``VmHWM`` (the driver prints it); ``max_mb`` caps its address space (``RLIMIT_AS``).
    """
    import resource

    import corels_files
    from bench_corels import run_child_rusage

    data = np.load(dump)
    A, y, c = data["A"], data["y"], float(data["c"])
    if y.max() > 1:
        return dict(status="multi-class: C++ CORELS is binary-only")

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (int(max_mb * 2**20),) * 2)

    with tempfile.TemporaryDirectory() as tmp:
        files = corels_files.write(tmp, "train", A, y)
        minor = int(corels_files.minority(A, y).sum())
        cmd = [cli, *map(str, files), repr(c), "2", "1", str(CPP_MAX_NODES), str(time_limit)]
        row = run_child_rusage(cmd, time_limit + 120, preexec_fn=cap if max_mb else None)
    row["minority"] = minor
    if "error" in row:
        memory = max_mb and ("bad_alloc" in row["error"] or row["peak_mb"] > 0.9 * max_mb)
        row["status"] = f"memory limit ({max_mb:g} MB)" if memory else f"error: {row['error']}"
        return row
    # the driver's own VmHWM: ru_maxrss of a child also counts this process's peak, which
    # fork and exec carry over
    row["peak_mb_rusage"], row["peak_mb"] = row["peak_mb"], row.pop("peak_rss_mb")
    n = len(y)
    # run_corels_end: accuracy = 1 - min_objective + c * rules (the default rule not counted)
    row.update(status="time limit" if row["early"] else "optimal",
               objective=(1.0 - row["accuracy"]) + c * row["rules"],
               mistakes=int(round((1.0 - row["accuracy"]) * n)))
    return row


def agreement(full: dict, cpp: dict) -> str:
    """How the two objectives compare, given which of the two searches certified."""
    if "objective" not in cpp or "objective" not in full:
        return "-"
    rk, cc = full["objective"], cpp["objective"]
    rk_opt, cc_opt = full["search_status"] == "optimal", cpp["status"] == "optimal"
    if rk_opt and cc_opt:
        if abs(rk - cc) > AGREE:
            return f"NO ({cc - rk:+.3g})"
        return "yes, same list" if full.get("prefix") == cpp.get("prefix") else "yes"
    if rk_opt:   # C++ stopped: its best list cannot beat a certified optimum
        return "C++ best >= optimum" if cc >= rk - AGREE else f"NO: C++ below ({cc - rk:+.3g})"
    if cc_opt:   # rulekit stopped: its bound <= the optimum <= its best list
        ok = full["lower_bound"] - AGREE <= cc <= rk + AGREE
        return "rulekit bound <= optimum <= best" if ok else "NO: outside rulekit's bounds"
    # neither: both best lists lie above rulekit's valid lower bound
    ok = cc >= full["lower_bound"] - AGREE
    return "neither certified" + ("" if ok else "; NO: C++ below rulekit's bound")


def _cpu():
    t = os.times()
    return t.user + t.system


def cross_validate(make, X, y, folds):
    accs, cpus, statuses = [], [], []
    for tr, te in folds:
        est = make()
        c0 = _cpu()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X.iloc[tr], y[tr])
        cpus.append(_cpu() - c0)
        accs.append(accuracy_score(y[te], est.predict(X.iloc[te])))
        statuses.append(getattr(getattr(est, "certificate_", None), "status", ""))
    accs = np.asarray(accs)
    return dict(acc=100 * accs.mean(), se=100 * accs.std(ddof=1) / np.sqrt(len(accs)),
                cpu_med=float(np.median(cpus)), statuses=statuses)


def main(argv=None):
    from rulekit import CorelsClassifier
    from rulekit.compare import baselines

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", default=",".join(BEFORE))
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--out", help="JSON lines, one per data set (resumable)")
    p.add_argument("--no-cv", action="store_true",
                   help="skip the cross-validation of CORELS and CART (the one fit only)")
    p.add_argument("--cpp", metavar="CORELS_CLI",
                   help="C++ CORELS driver (benchmarks/corels_reference_driver.cpp, built as "
                        "RESULTS_corels.md says): run it on the antecedents of the chosen search")
    p.add_argument("--cpp-time-limit", type=float, default=60.0,
                   help="wall-clock seconds for each C++ run (the driver's own limit)")
    p.add_argument("--cpp-max-mb", type=float, default=4096.0,
                   help="address-space cap of each C++ run in MB (0: none)")
    args = p.parse_args(argv)
    sets = bench_defaults.datasets()
    done = {}
    if args.out and Path(args.out).exists():
        for line in Path(args.out).read_text().splitlines():
            row = json.loads(line)
            done[row["dataset"]] = row
    for name in args.datasets.split(","):
        if name in done:
            continue
        X, y = sets[name]()
        X = X.reset_index(drop=True)
        y = np.asarray(y)
        folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=0).split(X, y))
        with tempfile.TemporaryDirectory() as tmp:
            dump = os.path.join(tmp, "chosen.npz") if args.cpp else None
            row = dict(dataset=name, n=len(y), full=one_fit(name, dump))
            if args.cpp:
                row["cpp"] = run_cpp(args.cpp, dump, args.cpp_time_limit, args.cpp_max_mb)
        if not args.no_cv:
            row.update(cv=cross_validate(CorelsClassifier, X, y, folds),
                       cart=cross_validate(lambda: clone(baselines(0)["CART depth 4"]), X, y,
                                           folds))
        done[name] = row
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(row) + "\n")
        line = (f"{name:14s} {row['full']['status']:11s} cpu {row['full']['cpu']:6.2f} s "
                f"rss {row['full']['rss_mb']:5.0f} MB")
        if "cv" in row:
            line += (f"  cv {row['cv']['acc']:5.1f} ({row['cv']['se']:.1f})  "
                     f"cart {row['cart']['acc']:5.1f}")
        if "cpp" in row:
            cpp = row["cpp"]
            line += f"  C++ {cpp['status']}"
            if "cpu" in cpp:
                line += f" cpu {cpp['cpu']:.2f} s"
            if "objective" in cpp:
                line += (f" obj {cpp['objective']:.6f} (rulekit {row['full']['objective']:.6f}: "
                         f"{agreement(row['full'], cpp)})")
        print(line, flush=True)
    rows = [done[k] for k in args.datasets.split(",") if k in done]
    if any("cv" in r for r in rows):
        print(table([r for r in rows if "cv" in r]))
    if any("cpp" in r for r in rows):
        print()
        print(cpp_table([r for r in rows if "cpp" in r]))


def table(rows) -> str:
    lines = ["| data set | rows | status (all rows) | fit CPU s | peak RSS MB | c, max_card | rules "
             "| CV accuracy % (se) | folds optimal | CV fit CPU s (median) | before: accuracy (se) "
             "| before: CPU s, status | CART depth 4 |",
             "|" + "---|" * 13]
    for r in rows:
        f, cv, b = r["full"], r["cv"], BEFORE[r["dataset"]]
        opt = sum(s == "optimal" for s in cv["statuses"])
        lines.append(
            f"| {r['dataset']} | {r['n']} | {f['status']} | {f['cpu']:.2f} | {f['rss_mb']:.0f} | "
            f"{f['c']:g}, {f['max_card']} | {f['rules']} | {cv['acc']:.1f} ({cv['se']:.1f}) | "
            f"{opt}/{len(cv['statuses'])} | {cv['cpu_med']:.2f} | {b[0]:.1f} ({b[1]:.1f}) | "
            f"{b[2]:.1f}, {b[3]} | {r['cart']['acc']:.1f} |")
    cpu = [r["full"]["cpu"] for r in rows]
    acc = [r["cv"]["acc"] for r in rows]
    cart = [r["cart"]["acc"] for r in rows]
    before = [BEFORE[r["dataset"]][0] for r in rows]
    certified = sum(r["full"]["status"] == "optimal" for r in rows)
    lines.append("")
    lines.append(f"certified on all rows: {certified} of {len(rows)}; fit CPU s median "
                 f"{np.median(cpu):.2f}, max {max(cpu):.2f}; mean CV accuracy {np.mean(acc):.2f} "
                 f"(before {np.mean(before):.2f}, CART depth 4 {np.mean(cart):.2f}); sets more "
                 "than one se below before: " + (", ".join(
                     r["dataset"] for r in rows
                     if r["cv"]["acc"] < BEFORE[r["dataset"]][0] - BEFORE[r["dataset"]][1])
                     or "none"))
    return "\n".join(lines)


def cpp_table(rows) -> str:
    """rulekit's chosen search beside C++ CORELS on the same antecedents.

    C++ CPU s is its whole process (``os.wait4``: reading the files too); its search
    CPU s runs from ``run_corels_begin`` to ``run_corels_end`` (the driver's
    ``std::clock``).  rulekit's search CPU s is ``stats_["cpu_time"]`` of the chosen
    search (the compiled loop; grouping rows and packing come before it).  A ratio
    after a C++ time limit is a lower bound (">").
    """
    lines = ["| data set | rows | antecedents searched (distinct) | c | rulekit: status "
             "| rulekit: search CPU s | rulekit: objective | C++: status | C++: CPU s "
             "| C++: search CPU s | C++: peak RSS MB | C++: objective "
             "| C++ CPU / rulekit search CPU | C++ search CPU / rulekit search CPU "
             "| objectives |",
             "|" + "---|" * 15]
    ratios = []
    for r in rows:
        f, cpp = r["full"], r["cpp"]
        head = (f"| {r['dataset']} | {r['n']} | {f['searched']} ({f['searched_distinct']}) | "
                f"{f['c']:g} | {f['search_status']} | {f['search_cpu']:.3f} | "
                f"{f['objective']:.6f} | {cpp['status']} | ")
        if "objective" not in cpp:
            cpu = f"{cpp['cpu']:.2f}" if "cpu" in cpp else "-"
            lines.append(head + f"{cpu} | - | - | - | - | - | - |")
            continue
        more = "" if cpp["status"] == "optimal" else "> "
        ratio = [x / f["search_cpu"] if f["search_cpu"] > 0 else float("inf")
                 for x in (cpp["cpu"], cpp["search_cpu"])]
        if cpp["status"] == "optimal" and np.all(np.isfinite(ratio)):
            ratios.append(ratio)
        lines.append(
            head + f"{cpp['cpu']:.2f} | {cpp['search_cpu']:.3f} | {cpp['peak_mb']:.0f} | "
            f"{cpp['objective']:.6f} | {more}{ratio[0]:.1f} | {more}{ratio[1]:.1f} | "
            f"{agreement(f, cpp)} |")
    both = [r for r in rows if r["full"]["search_status"] == "optimal"
            and r["cpp"].get("status") == "optimal"]
    agree = sum(agreement(r["full"], r["cpp"]).startswith("yes") for r in both)
    lines.append("")
    text = (f"C++ certified on {sum(r['cpp'].get('status') == 'optimal' for r in rows)} of "
            f"{len(rows)}; both certified on {len(both)}, objectives equal (within {AGREE:g}) "
            f"on {agree} of them")
    if ratios:
        ratios = np.array(ratios)
        med, geo = np.median(ratios, axis=0), np.exp(np.log(ratios).mean(axis=0))
        text += (f"; where C++ certified, C++ CPU / rulekit search CPU: median {med[0]:.1f}, "
                 f"geometric mean {geo[0]:.1f}; C++ search CPU / rulekit search CPU: median "
                 f"{med[1]:.1f}, geometric mean {geo[1]:.1f}")
    lines.append(text)
    return "\n".join(lines)


if __name__ == "__main__":
    main()
