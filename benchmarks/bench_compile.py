"""What the first fit in a new process costs: numba compilation, cold and warm.

Each case runs in a fresh Python process of an *installed* rulekit (pass the
interpreter of a virtual environment that did ``pip install .``, not ``-e``)
and is measured as a whole process: CPU seconds (user + sys) and peak RSS,
read from the child's resource usage, as ``/usr/bin/time -v`` reports them.

* ``cold``: numba's on-disk cache of the installed package is deleted first
  (``__pycache__/*.nbi``/``*.nbc`` beside the installed sources, where numba
  keeps it for a writable install; ``NUMBA_CACHE_DIR`` is unset), so the
  process compiles every kernel it calls;
* ``warm``: the same process again, with the cache the cold run wrote.

With ``--fresh-cache-dir`` each cold run gets instead an empty temporary
``NUMBA_CACHE_DIR`` (the warm run after it reuses it): any rulekit works then,
a source checkout too, and nothing beside the sources is deleted.  This is
how a user's first run meets an empty cache.

With ``--as-installed`` the first run meets the cache as ``pip install`` left
it: since issue 37 the build compiles the kernels of every default fit into the
wheel (``setup.py``, ``rulekit/_precompile.py``), so this is a new user's first
run.  Whatever that run adds to the cache is put back as installed before the
next repeat.  ``--install SRC`` first makes that installation: a new virtual
environment in a temporary folder and ``pip install SRC`` (dependencies from
pip's cache when it holds them), whose wall seconds and CPU seconds (user + sys
of pip and everything it ran, the build included) are printed; it implies
``--as-installed``.  ``RULEKIT_PRECOMPILE=0`` in the environment installs without
compiling at build time, the "before" of issue 37.

Each row gives CPU seconds as user + sys (both medians), the peak RSS, and
the load average when the case started: the machine may be shared, and CPU
seconds are what load changes least.

Usage::

    python benchmarks/bench_compile.py --python /path/to/venv/bin/python [--repeat 3]
    python benchmarks/bench_compile.py --python "$(which python)" --fresh-cache-dir \
        --cases "rulekit demo"
    python benchmarks/bench_compile.py --install . --cases "rulekit demo" --repeat 1
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: case -> code run in the fresh process (small data: the fit itself is short)
CASES = {
    "import rulekit": "import rulekit",
    "CORELS": (
        "from rulekit import CorelsClassifier\n"
        "from rulekit.datasets import load_compas\n"
        "X, y = load_compas(return_X_y=True)\n"
        "CorelsClassifier(c=0.02, max_card=1, n_thresholds=4).fit(X, y)\n"
    ),
    "falling rule list": (
        "from rulekit import FallingRuleListClassifier\n"
        "from rulekit.datasets import load_compas\n"
        "X, y = load_compas(return_X_y=True)\n"
        "FallingRuleListClassifier(n_iter=50, random_state=0).fit(X, y)\n"
    ),
    "softly falling rule list": (
        "from rulekit import SoftFallingRuleListClassifier\n"
        "from rulekit.datasets import load_compas\n"
        "X, y = load_compas(return_X_y=True)\n"
        "SoftFallingRuleListClassifier(n_iter=50, random_state=0).fit(X, y)\n"
    ),
    "column generation": (
        "from rulekit import BooleanRuleCGClassifier\n"
        "from rulekit.datasets import load_tictactoe\n"
        "X, y = load_tictactoe(return_X_y=True)\n"
        "BooleanRuleCGClassifier(max_complexity=32, max_literals=3).fit(X, y)\n"
    ),
    "rulekit demo": "from rulekit.cli import main\nmain(['demo'])\n",
    # the default fit recording its event log: the traced kernels are a second specialization
    "CORELS trace='events'": (
        "from rulekit import CorelsClassifier\n"
        "from rulekit.datasets import load_compas\n"
        "X, y = load_compas(return_X_y=True)\n"
        "CorelsClassifier(trace='events').fit(X, y)\n"
    ),
    "rulekit compile (all learners)": "from rulekit.cli import main\nmain(['compile'])\n",
}


def installed_package(python: str) -> Path:
    out = subprocess.run([python, "-c", "import rulekit, os; print(os.path.dirname(rulekit.__file__))"],
                         capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return Path(out.stdout.strip())


def clear_cache(package: Path) -> None:
    for f in [*package.rglob("*.nbi"), *package.rglob("*.nbc")]:
        f.unlink()


def install(src: str) -> str:
    """A new venv in a temporary folder with ``pip install src``; its interpreter.

    Prints the install's wall seconds and CPU seconds (user + sys of pip and of
    every process it waited for: the build, and the kernels it compiles)."""
    venv = Path(tempfile.mkdtemp(prefix="rulekit-install-")) / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([python, "-m", "pip", "install", "--quiet", str(Path(src).resolve())],
                   check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    precompile = os.environ.get("RULEKIT_PRECOMPILE", "1") != "0"
    print(f"pip install {src}: {wall:.1f} s wall, {cpu:.1f} CPU s (user + sys), kernels compiled "
          f"at build time: {'yes' if precompile else 'no (RULEKIT_PRECOMPILE=0)'}, load average "
          f"{os.getloadavg()[0]:.1f}\n")
    return python


def snapshot(package: Path) -> dict:
    """The cache files beside the installed sources, path -> bytes."""
    return {f: f.read_bytes() for f in [*package.rglob("*.nbi"), *package.rglob("*.nbc")]}


def restore(package: Path, files: dict) -> None:
    """Put the cache back as :func:`snapshot` found it."""
    clear_cache(package)
    for f, data in files.items():
        f.write_bytes(data)


def measure(python: str, code: str, env: dict) -> tuple[float, float, float, float]:
    """(CPU seconds, user, sys, peak RSS in MB) of one fresh process running ``code``."""
    proc = subprocess.Popen([python, "-c", code], env=env, cwd=tempfile.gettempdir(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"case failed: {code!r}")
    return (usage.ru_utime + usage.ru_stime, usage.ru_utime, usage.ru_stime,
            usage.ru_maxrss / 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", help="interpreter of a venv with rulekit installed")
    parser.add_argument("--install", metavar="SRC",
                        help="install SRC into a new venv first, and measure that (implies "
                             "--as-installed)")
    parser.add_argument("--as-installed", action="store_true",
                        help="cold: the cache as pip installed it (a new user's first run)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--fresh-cache-dir", action="store_true",
                        help="cold: an empty NUMBA_CACHE_DIR per run (any rulekit, a checkout too)")
    args = parser.parse_args()
    if args.install:
        args.python, args.as_installed = install(args.install), True
    if not args.python:
        parser.error("give --python or --install")
    package = installed_package(args.python)
    installed = snapshot(package) if args.as_installed else None
    if not args.fresh_cache_dir and "site-packages" not in str(package):
        raise SystemExit(f"{package} is not an installed copy: use a venv with a plain "
                         "'pip install .', or --fresh-cache-dir")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    print(f"rulekit: {package}\n")
    print("| case | cold CPU s (user + sys) | warm CPU s (user + sys) | compile share | "
          "cold peak RSS MB | warm peak RSS MB | load average at start |")
    print("|---|---|---|---|---|---|---|")
    for name in args.cases.split(","):
        code = CASES[name]
        cold, warm = [], []
        load = os.getloadavg()[0]
        for _ in range(args.repeat):
            if args.fresh_cache_dir:
                cache = tempfile.mkdtemp(prefix="numba-cold-")
                run_env = {**env, "NUMBA_CACHE_DIR": cache}
            elif installed is not None:
                cache, run_env = None, env
                restore(package, installed)
            else:
                cache, run_env = None, env
                clear_cache(package)
            try:
                cold.append(measure(args.python, code, run_env))
                warm.append(measure(args.python, code, run_env))
            finally:
                if cache is not None:
                    shutil.rmtree(cache, ignore_errors=True)
        med = lambda runs, i: statistics.median(r[i] for r in runs)  # noqa: E731
        c_cpu, w_cpu = med(cold, 0), med(warm, 0)
        if (not args.fresh_cache_dir and installed is None and c_cpu > w_cpu + 1
                and not any(package.rglob("*.nbi"))):
            raise SystemExit(f"numba wrote no cache under {package}: is the install read-only?")
        print(f"| {name} | {c_cpu:.2f} ({med(cold, 1):.2f} + {med(cold, 2):.2f}) | "
              f"{w_cpu:.2f} ({med(warm, 1):.2f} + {med(warm, 2):.2f}) | {c_cpu - w_cpu:.2f} | "
              f"{med(cold, 3):.0f} | {med(warm, 3):.0f} | {load:.1f} |", flush=True)


if __name__ == "__main__":
    main()
