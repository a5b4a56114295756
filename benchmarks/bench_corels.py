"""Benchmark the CORELS engine on the CORELS authors' compas antecedents.

Each configuration runs in its own subprocess so that CPU time (user + sys)
and peak resident memory are that run's alone (``os.wait4`` returns the
child's own ``rusage``).  The process numbers include interpreter start-up,
imports and loading numba's compiled cache (about 1 s); the ``search cpu``
column is the CPU time inside ``search`` only.

Usage::

    PYTHONPATH=. python benchmarks/bench_corels.py [--repeats 3] [--quick]
        [--time-limit 240] [--reference /path/to/python-with-corels]

``--reference`` points to a command-line driver of the reference C++ CORELS
core (built from the PyPI ``corels`` 1.1.29 sdist, see RESULTS_corels.md);
it runs on the same three files with the same c, policy and map, in its own
subprocess, measured the same way.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.environ.get("RULEKIT_SHARED_DATA", str(Path(__file__).resolve().parents[1].parent / "shared" / "data"))
DATA = os.path.join(DATA, "compas_corels")

CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, {root!r})
from rulekit.corels import search

def load(split="train"):
    rows = []
    for line in open({data!r} + f"/compas_{{split}}.out"):
        parts = line.split()
        if parts:
            rows.append([int(v) for v in parts[1:]])
    A = np.array(rows, dtype=bool).T
    for line in open({data!r} + f"/compas_{{split}}.label"):
        parts = line.split()
        if parts and parts[0] == "{{recidivate-within-two-years:Yes}}":
            y = np.array([int(v) for v in parts[1:]])
    return A, y

A, y = load()
cfg = json.loads(sys.argv[1])
r = search(A, y, cfg["c"], policy=cfg["policy"], symmetry=cfg["symmetry"],
           time_limit=cfg.get("time_limit"), max_nodes=cfg.get("max_nodes", 10_000_000),
           bounds=cfg.get("bounds", "all"))
print(json.dumps(dict(objective=r.objective, mistakes=r.mistakes, rules=len(r.prefix),
                      lower_bound=r.lower_bound, status=r.status,
                      expanded=r.stats["nodes_expanded"], inserted=r.stats["nodes_inserted"],
                      max_trie=r.stats["max_trie_size"], max_queue=r.stats["max_queue_size"],
                      search_cpu=r.stats["cpu_time"], search_wall=r.stats["total_time"])))
"""

def run_child_rusage(cmd: list, timeout: float | None) -> dict:
    """Run one command; reap it with ``os.wait4`` to get its own rusage."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = None if timeout is None else t0 + timeout
    out_chunks = []
    err_chunks = []
    # read pipes fully before reaping (outputs are small)
    import threading

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
    ok = [r for r in rows if "error" not in r]
    if not ok:
        return rows[-1]
    med = dict(ok[0])
    for key in ("wall", "cpu", "peak_mb", "search_cpu"):
        med[key] = statistics.median(r[key] for r in ok)
    med["n"] = len(ok)
    return med


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3, help="repeats for c=0.01 (others: 1)")
    ap.add_argument("--repeats-005", type=int, default=1, help="repeats for c=0.005")
    ap.add_argument("--time-limit", type=float, default=240.0, help="search time limit for c=0.0025")
    ap.add_argument("--quick", action="store_true", help="only c=0.01")
    ap.add_argument("--reference", default=None, help="reference CORELS CLI binary")
    ap.add_argument("--reference-min-c", type=float, default=0.0025,
                    help="run the reference only for c >= this")
    ap.add_argument("--reference-time-limit", type=float, default=600.0,
                    help="time limit for the reference when c has none")
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    ap.add_argument("--ablation", action="store_true",
                    help="instead: c=0.01, lower_bound/permutation, each bound switched off")
    args = ap.parse_args(argv)
    if args.ablation:
        return ablation(args)

    configs = []
    cs = [0.01] if args.quick else [0.01, 0.005, 0.0025]
    for c in cs:
        for policy, symmetry in (("lower_bound", "permutation"), ("lower_bound", "capture"),
                                 ("curious", "permutation")):
            cfg = dict(c=c, policy=policy, symmetry=symmetry)
            if c == 0.0025:
                cfg["time_limit"] = args.time_limit
            reps = args.repeats if c == 0.01 else (args.repeats_005 if c == 0.005 else 1)
            configs.append((cfg, reps))

    code = CHILD.format(root=ROOT, data=DATA)
    header = (f"{'engine':8} {'c':>7} {'policy':12} {'map':12} {'status':11} {'obj':>12} "
              f"{'mist':>5} {'K':>2} {'CPU s':>8} {'wall s':>8} {'srch CPU':>8} {'peak MB':>8} "
              f"{'expanded':>10} {'inserted':>10} {'n':>2}")
    print(header)
    print("-" * len(header))
    all_rows = []
    for cfg, reps in configs:
        timeout = None if "time_limit" not in cfg else cfg["time_limit"] + 120
        cmd = [sys.executable, "-c", code, json.dumps(cfg)]
        rows = [run_child_rusage(cmd, timeout) for _ in range(reps)]
        med = summarize(rows)
        med.update(cfg, engine="rulekit")
        all_rows.append(med)
        _print_row(med)
        if args.reference and cfg["c"] >= args.reference_min_c:
            rcfg = dict(cfg)
            rcfg.setdefault("time_limit", args.reference_time_limit)
            ref_rows = [run_reference(args.reference, rcfg, 6489, rcfg["time_limit"] + 120)]
            rmed = summarize(ref_rows)
            rmed.update(cfg, engine="corels")
            all_rows.append(rmed)
            _print_row(rmed)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(all_rows, fh, indent=1)
    return 0


def ablation(args) -> int:
    """c=0.01 with every bound on, then with each one off (60 s limit each)."""
    sys.path.insert(0, ROOT)
    from rulekit.corels import BOUNDS

    code = CHILD.format(root=ROOT, data=DATA)
    print(f"{'bound off':24} {'status':11} {'obj':>12} {'CPU s':>8} {'srch CPU':>8} "
          f"{'peak MB':>8} {'expanded':>10} {'inserted':>10}")
    for off in [None] + sorted(BOUNDS) + ["symmetry map (none)"]:
        cfg = dict(c=0.01, policy="lower_bound", symmetry="permutation", time_limit=60.0)
        if off == "symmetry map (none)":
            cfg["symmetry"] = "none"
        elif off is not None:
            cfg["bounds"] = sorted(set(BOUNDS) - {off})
        r = run_child_rusage([sys.executable, "-c", code, json.dumps(cfg)], 180)
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
        print(f"{r.get('engine', '?'):8} {r['c']:>7} {r['policy']:12} {r['symmetry']:12} "
              f"ERROR {r['error']}  (CPU {r.get('cpu', float('nan')):.1f} s, "
              f"peak {r.get('peak_mb', float('nan')):.0f} MB)")
        return
    print(f"{r['engine']:8} {r['c']:>7} {r['policy']:12} {r['symmetry']:12} {r['status']:11} "
          f"{r['objective']:12.10f} {r['mistakes']:5d} {r['rules']:2d} {r['cpu']:8.2f} "
          f"{r['wall']:8.2f} {r['search_cpu']:8.2f} {r['peak_mb']:8.0f} {r['expanded']:10d} "
          f"{r['inserted']:10d} {r.get('n', 1):2d}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
