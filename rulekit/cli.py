"""The ``rulekit`` command.

Sub-commands::

    rulekit fit DATA.csv --target COL --model corels [options] [--save model.json]
    rulekit predict model.json DATA.csv [--output preds.csv]
    rulekit export model.json --to sql|python [--dialect sqlite] [--table T] [--output F]
    rulekit compare DATA.csv --target COL --models corels,cart,rf [--cv 5] [--plot out.png]
    rulekit explore --data DATA.csv --target COL --model corels|frl|cg [options] -o page.html
    rulekit demo [compas|tictactoe|bank]
    rulekit compile [--learners corels,frl,...]
    rulekit datasets

Mistakes (a missing file, an unknown column or model, a bad option) are
reported as one line on stderr with exit status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import datasets
from ._version import __version__


class CliError(Exception):
    """A user mistake: reported as one line, exit status 2."""


# --- learners the command knows -------------------------------------------------------
# name -> (import path "module:Class", fixed parameters, description).  Learners
# are imported only when used, so `rulekit datasets` stays fast.
LEARNERS: dict = {
    "corels": ("rulekit.corels:CorelsClassifier", {}, "certifiably optimal rule list"),
    "frl": ("rulekit.frl:FallingRuleListClassifier", {}, "falling rule list"),
    "softfrl": ("rulekit.frl:SoftFallingRuleListClassifier", {}, "softly falling rule list"),
    "cg-dnf": ("rulekit.colgen:BooleanRuleCGClassifier", {"form": "dnf"}, "DNF rule set, column generation"),
    "cg-cnf": ("rulekit.colgen:BooleanRuleCGClassifier", {"form": "cnf"}, "CNF rule set, column generation"),
    "cg": ("rulekit.colgen:BooleanRuleCGClassifier", {"form": "auto"},
           "rule set, DNF or CNF chosen by validation, column generation"),
}
# name -> key of rulekit.compare.baselines()
BASELINES = {
    "cart": "CART depth 4",
    "cart-full": "CART",
    "rf": "random forest",
    "logreg": "logistic regression",
}


def _weight(text: str):
    """``--w``: a number, or ``balanced`` (the negative-to-positive ratio)."""
    if text == "balanced":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'balanced', got {text!r}") from None


# Model options: estimator parameter -> (command-line option, type, help).  An
# option sets its parameter on every chosen learner that has it and is ignored
# by the others.  No two options differ only by case: CORELS's ``c`` and the
# falling rule lists' ``C`` are --corels-c and --frl-c.
OPTIONS = {
    "c": ("--corels-c", float, "CORELS: penalty per rule (parameter c)"),
    "max_card": ("--max-card", int, "most conditions per mined antecedent"),
    "min_support": ("--min-support", float, "mining support threshold in (0, 1]"),
    "n_thresholds": ("--n-thresholds", int, "quantile thresholds per numeric column"),
    "time_limit": ("--time-limit", float, "time limit in seconds for the whole fit"),
    "max_nodes": ("--max-nodes", int, "CORELS: node limit"),
    "random_state": ("--random-state", int, "seed"),
    "w": ("--w", _weight, "falling rule lists: weight of a missed positive (parameter w), "
                          "a number or 'balanced'"),
    "C": ("--frl-c", float, "falling rule lists: penalty per rule (parameter C)"),
    "C1": ("--frl-c1", float, "softly falling rule lists: monotonicity penalty (parameter C1)"),
    "n_iter": ("--n-iter", int, "falling rule lists: Monte-Carlo iterations"),
    "max_complexity": ("--max-complexity", int, "column generation: clause+literal budget"),
    "max_literals": ("--max-literals", int, "column generation: literals per clause"),
}
# spellings of 0.1 that differed only by case: a clear error names the new one
RENAMED = {"--c": "--corels-c", "--C": "--frl-c", "--C1": "--frl-c1"}


def _known_models(*, baselines: bool) -> str:
    text = "learners " + ", ".join(sorted(LEARNERS))
    if baselines:
        text += "; baselines " + ", ".join(sorted(BASELINES))
    return text


def _learner(name: str, options: dict, *, baselines: bool = False):
    if name not in LEARNERS:
        raise CliError(f"unknown model {name!r}; choose one of: {_known_models(baselines=baselines)}")
    import importlib

    path, fixed, _ = LEARNERS[name]
    module, cls = path.split(":")
    estimator_cls = getattr(importlib.import_module(module), cls)
    est = estimator_cls(**fixed)
    valid = est.get_params()
    est.set_params(**{k: v for k, v in options.items() if v is not None and k in valid})
    return est


def _estimator(name: str, options: dict, random_state: int = 0):
    if name in BASELINES:
        from .compare import baselines

        return baselines(random_state)[BASELINES[name]]
    return _learner(name, options, baselines=True)


def _read_csv(path: str, target: str | None = None):
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise CliError(f"no such file: {path}")
    try:
        frame = pd.read_csv(p)
    except Exception as exc:  # pandas raises many types for malformed files
        raise CliError(f"cannot read {path} as CSV: {exc}") from None
    if target is None:
        return frame, None
    if target not in frame.columns:
        raise CliError(f"column {target!r} is not in {path}; columns are: {', '.join(map(str, frame.columns))}")
    return frame.drop(columns=[target]), frame[target]


def _options(args) -> dict:
    return {k: getattr(args, k, None) for k in OPTIONS}


# --- commands -----------------------------------------------------------------------------

def cmd_fit(args) -> int:
    X, y = _read_csv(args.data, args.target)
    est = _learner(args.model, _options(args))
    est.set_params(**({"verbose": args.verbose} if "verbose" in est.get_params() else {}))
    est.fit(X, y)
    print(est)
    print(f"\ntraining accuracy: {est.score(X, y):.4f}")
    print(f"certificate: {est.certificate_}")
    if args.save:
        est.save(args.save, metadata={"target": args.target})
        print(f"saved to {args.save}")
    return 0


def _load_model(path: str):
    from .persist import load

    if not Path(path).is_file():
        raise CliError(f"no such file: {path}")
    try:
        return load(path)  # its errors name the file and the field
    except ValueError as exc:
        raise CliError(str(exc)) from None


def cmd_predict(args) -> int:
    model = _load_model(args.model)
    X, _ = _read_csv(args.data)
    out = X.copy()
    out["prediction"] = model.predict(X)
    proba = model.predict_proba(X)
    for k, label in enumerate(model.classes_):
        out[f"p({label})"] = proba[:, k].round(6)
    text = out.to_csv(index=False)
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_export(args) -> int:
    model = _load_model(args.model)
    if args.to == "python":
        text = model.to_python()
    elif args.table:
        text = model.to_sql(args.table, dialect=args.dialect, proba=True) + "\n"
    else:
        text = model.to_sql(dialect=args.dialect) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_compare(args) -> int:
    from .compare import compare_models

    X, y = _read_csv(args.data, args.target)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    if not names:
        raise CliError("--models needs at least one model name")
    models = {n: _estimator(n, _options(args), args.random_state or 0) for n in names}
    comp = compare_models(models, X, y, cv=args.cv, n_jobs=args.n_jobs, refit=False,
                          random_state=args.random_state or 0, verbose=args.verbose)
    print(comp.to_markdown())
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        path = _plot_path(args.plot)
        comp.plot().savefig(path, dpi=120)
        print(f"plot saved to {path}")
    return 0


#: --model of `rulekit explore`: the three families (cg lets validation choose DNF or CNF)
EXPLORE_MODELS = ("corels", "frl", "softfrl", "cg", "cg-dnf", "cg-cnf")


def cmd_explore(args) -> int:
    if args.model not in EXPLORE_MODELS:
        raise CliError(f"rulekit explore: unknown model {args.model!r}; choose one of: "
                       + ", ".join(EXPLORE_MODELS))
    X, y = _read_csv(args.data, args.target)
    est = _learner(args.model, _options(args))
    est.set_params(**({"verbose": args.verbose} if "verbose" in est.get_params() else {}))
    est.fit(X, y)
    page = est.explore(X, y, args.output)
    print(f"explorer written to {page.path} ({len(page) / 1e6:.2f} MB); open it in a browser")
    return 0


def _plot_path(text: str) -> Path:
    """Where ``--plot`` writes: into a directory it names (an existing one, or any
    path ending in a separator) as ``comparison.png``; else the file itself, with
    ``.png`` added when it has no extension (what matplotlib would do, said aloud)."""
    import os

    path = Path(text)
    if path.is_dir() or text.endswith(("/", os.sep)):
        path.mkdir(parents=True, exist_ok=True)
        return path / "comparison.png"
    if not path.suffix:
        return path.with_name(path.name + ".png")
    return path


def _fit_timed(est, X, y) -> float:
    """Fit ``est`` and return the CPU seconds it took (the demos print them)."""
    import time

    start = time.process_time()
    est.fit(X, y)
    return time.process_time() - start


def _demo_compas(args) -> None:
    from .corels import CorelsClassifier

    X, y = datasets.load_compas(return_X_y=True)
    print(f"compas: {X.shape[0]} people, {X.shape[1]} features "
          f"({', '.join(X.columns)}); {int(y.sum())} re-offended within two years (1)\n")
    est = CorelsClassifier()  # every default: what a new user gets
    cpu = _fit_timed(est, X, y)
    sel = est.selection_
    certified = sum(row[2] == "optimal" for row in sel.path)
    print(f"CorelsClassifier(): {len(est.binarizer_.conditions_)} conditions, "
          f"{len(est.antecedents_)} antecedents; {len(sel.path)} searches along the "
          f"regularization path ({certified} certified), c = {est.c_:g} (max_card "
          f"{est.max_card_}) chosen by cross-validation; {cpu:.1f} CPU s\n")
    print(est)
    cert = est.certificate_
    verdict = "certified optimal" if cert.proved_optimal else f"NOT certified ({cert.status})"
    print(f"\n{verdict}: objective {cert.objective:.6f} = mistakes/N + {est.c_:g} x rules, "
          f"lower bound {cert.lower_bound:.6f}, over {cert.scope}")
    print(f"training accuracy {est.score(X, y):.4f}")


def _demo_bank(args) -> None:
    from .frl import FallingRuleListClassifier

    X, y = datasets.load_bank_marketing(discretized=True, return_X_y=True)
    print(f"bank marketing (discretized as in the falling-rule-list paper): {X.shape[0]} calls, "
          f"{int(y.sum())} subscriptions (1)\n")
    est = FallingRuleListClassifier(w=7.0, C=1e-6, n_iter=3000, min_support=0.1, max_card=2, random_state=0)
    cpu = _fit_timed(est, X, y)
    print(f"FallingRuleListClassifier(w=7, C=1e-6, n_iter=3000): {len(est.antecedents_)} antecedents, "
          f"{cpu:.1f} CPU s\n")
    print(est)
    print(f"\nobjective {est.certificate_.objective:.6f} (weighted risk + C x rules); a row is predicted 1 when its "
          f"rule's probability exceeds 1/(1+w) = {est.threshold_:.3f}")


def _demo_tictactoe(args) -> None:
    from .colgen import BooleanRuleCGClassifier

    X, y = datasets.load_tictactoe(return_X_y=True)
    print(f"tic-tac-toe endgames: {X.shape[0]} boards, x wins in {int((y == 'positive').sum())}\n")
    est = BooleanRuleCGClassifier(form="dnf", max_complexity=32, max_literals=3, time_limit=120)
    cpu = _fit_timed(est, X, y)
    print(f"BooleanRuleCGClassifier(form='dnf', max_complexity=32, max_literals=3): "
          f"{len(est.binarizer_.conditions_)} conditions, {cpu:.1f} CPU s\n")
    print(est)
    cert = est.certificate_
    print(f"\nstatus {cert.status}, Hamming loss {cert.objective:g}, lower bound {cert.lower_bound}, "
          f"complexity {est.complexity_}, training accuracy {est.score(X, y):.4f}")


DEMOS = {"compas": _demo_compas, "bank": _demo_bank, "tictactoe": _demo_tictactoe}


def cmd_demo(args) -> int:
    if args.dataset not in DEMOS:
        raise CliError(f"no demo for {args.dataset!r} yet; available: {', '.join(DEMOS)}")
    DEMOS[args.dataset](args)
    return 0


def _warmup_data(seed: int = 0):
    """A small mixed frame (numbers, categories, missing values) and labels."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    n = 80
    X = pd.DataFrame({"a": rng.integers(0, 6, n).astype(float), "b": rng.choice(["x", "y", "z"], n),
                      "c": rng.random(n)})
    X.loc[::9, "c"] = np.nan
    y = ((X["a"] > 2) ^ (X["b"] == "x") ^ (rng.random(n) < 0.1)).astype(int)
    return X, y


#: learner family -> estimator arguments of a small fit that calls every
#: compiled kernel a fit of that learner calls
WARMUP = {
    "corels": {"c": 0.05, "max_card": 2},
    "frl": {"n_iter": 30, "min_support": 0.05, "random_state": 0},
    "softfrl": {"n_iter": 30, "min_support": 0.05, "random_state": 0},
    "cg-dnf": {"max_complexity": 8, "max_literals": 3},
}


def cmd_compile(args) -> int:
    import time
    import warnings

    names = [n.strip() for n in args.learners.split(",")] if args.learners else list(WARMUP)
    unknown = [n for n in names if n not in WARMUP]
    if unknown:
        raise CliError(f"cannot compile {unknown[0]!r}; choose from {', '.join(WARMUP)}")
    X, y = _warmup_data()
    for name in names:
        start = time.process_time()
        est = _learner(name, WARMUP[name])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
        if name == "corels":
            from .corels._state import compile_growth_kernels

            compile_growth_kernels()
        print(f"{name}: {time.process_time() - start:.1f} CPU s")
    import numba

    where = numba.config.CACHE_DIR or "__pycache__ beside the installed rulekit sources"
    print(f"compiled kernels are cached in {where}")
    return 0


def cmd_datasets(args) -> int:
    width = max(len(n) for n in datasets.DATASETS)
    for name, (desc, source) in datasets.DATASETS.items():
        print(f"{name:<{width}}  {desc}  [{source}]")
    return 0


# --- parser ---------------------------------------------------------------------------------

def _add_data_arguments(p):
    p.add_argument("data", help="CSV file with a header row")
    p.add_argument("--target", required=True, help="name of the label column")


class _Renamed(argparse.Action):
    """An option spelling of rulekit 0.1 that was renamed: fail naming the new one."""

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} was renamed {RENAMED[option_string]} "
                     "(no two options differ only by case)")


def _add_model_options(p):
    g = p.add_argument_group("model options (used by the learners that have them)")
    for name, (flag, kind, text) in OPTIONS.items():
        g.add_argument(flag, dest=name, type=kind, help=text, metavar=flag[2:].upper().replace("-", "_"))
    for old in RENAMED:
        g.add_argument(old, action=_Renamed, help=argparse.SUPPRESS)
    g.add_argument("-v", "--verbose", type=int, default=0, help="progress on stderr (0 = quiet)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rulekit", description="Learn small, readable rule models and compare them.")
    parser.add_argument("--version", action="version", version=f"rulekit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("fit", help="learn a model from a CSV file and print it")
    _add_data_arguments(p)
    p.add_argument("--model", required=True, help="learner: " + ", ".join(sorted(LEARNERS)))
    p.add_argument("--save", help="write the fitted model to this JSON file")
    _add_model_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("predict", help="apply a saved model to a CSV file")
    p.add_argument("model", help="JSON file written by 'rulekit fit --save'")
    p.add_argument("data", help="CSV file with the model's feature columns")
    p.add_argument("--output", help="write predictions here instead of stdout")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("export", help="write a saved model as SQL or standalone Python")
    p.add_argument("model", help="JSON file written by 'rulekit fit --save' or est.save()")
    p.add_argument("--to", required=True, choices=["sql", "python"], help="what to write")
    p.add_argument("--dialect", default="sqlite", choices=["sqlite", "duckdb", "postgresql"],
                   help="SQL dialect (default sqlite)")
    p.add_argument("--table", help="SQL: write a SELECT from this table with prediction and "
                   "probability columns (without it: the prediction's CASE expression)")
    p.add_argument("--output", help="write here instead of stdout")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("compare", help="cross-validate several models on a CSV file")
    _add_data_arguments(p)
    p.add_argument("--models", required=True,
                   help="comma-separated " + _known_models(baselines=True))
    p.add_argument("--cv", type=int, default=5, help="number of stratified folds (default 5)")
    p.add_argument("--n-jobs", dest="n_jobs", type=int, default=None, help="parallel fits")
    p.add_argument("--plot", help="save the accuracy-vs-size plot to this file (PNG unless "
                   "its extension says otherwise), or into this directory as comparison.png")
    _add_model_options(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("explore", help="fit a model and write the teaching explorer (one offline "
                       "HTML page)")
    p.add_argument("--data", required=True, help="CSV file with a header row")
    p.add_argument("--target", required=True, help="name of the label column")
    p.add_argument("--model", required=True, help="learner: " + ", ".join(EXPLORE_MODELS))
    p.add_argument("-o", "--output", default="explore.html",
                   help="the HTML file to write (default explore.html)")
    _add_model_options(p)
    p.set_defaults(func=cmd_explore)

    p = sub.add_parser("demo", help="learn and print a model on a bundled dataset")
    p.add_argument("dataset", nargs="?", default="compas", help="one of: " + ", ".join(DEMOS))
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("compile", help="compile the learners' numba kernels into the on-disk cache",
                       description="Fit each learner once on a small generated problem, so numba "
                       "compiles its kernels and caches the machine code on disk: later processes "
                       "load it instead of compiling (about 10 CPU s per learner on a first fit).")
    p.add_argument("--learners", help="comma-separated, default all: " + ", ".join(WARMUP))
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("datasets", help="list the bundled datasets")
    p.set_defaults(func=cmd_datasets)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings as one line on stderr, without the source path and code line."""
    text = str(message).splitlines()[0] if str(message) else ""
    print(f"rulekit: warning: {category.__name__}: {text}", file=file or sys.stderr)


def _quiet_broken_pipe() -> int:
    """The reader of stdout went away (``rulekit demo | head``): stop quietly.

    Later writes, including the interpreter's last flush, go to /dev/null;
    the exit status is the one a tool killed by SIGPIPE has (128 + 13).
    """
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    import warnings

    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return status
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except (CliError, ValueError, TypeError, OSError, ImportError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"rulekit: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rulekit: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.showwarning = shown


if __name__ == "__main__":
    sys.exit(main())
