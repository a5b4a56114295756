"""The ``rulekit`` command.

Sub-commands::

    rulekit fit DATA.csv --target COL --model corels [options] [--save model.json]
    rulekit predict model.json DATA.csv [--output preds.csv]
    rulekit export model.json --to sql|python [--dialect sqlite] [--table T] [--output F]
    rulekit compare DATA.csv --target COL --models corels,cart,rf [--cv 5] [--plot out.png]
    rulekit explore --data DATA.csv --target COL --model corels|frl|cg [options] -o page.html
                    [--trace] [--rashomon EPS]
    rulekit demo [compas|tictactoe|bank]
    rulekit compile [--learners corels,frl,...]
    rulekit datasets

Mistakes (a missing file, an unknown column or model, a bad option) are
reported as one line on stderr with exit status 2, never as a traceback.

No command overwrites an existing file unless ``--force`` is given (checked
before any work, so a fit is not wasted), and every file written (``--save``,
``--output``, ``-o``, ``--plot``) is written atomically, only to a regular
file or through a symbolic link to one (:mod:`rulekit._files`).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import math
import sys
from pathlib import Path

from . import datasets
from ._files import writable_target, write_atomic
from ._version import __version__
from .learners import LEARNERS


class CliError(Exception):
    """A user mistake: reported as one line, exit status 2."""


# --- learners the command knows -------------------------------------------------------
# Learners come from the registry (rulekit.learners.LEARNERS): each learner package
# declares its name, estimator, options, warm-up and demo there.
# name -> key of rulekit.compare.baselines()
BASELINES = {
    "cart": "CART depth 4",
    "cart-full": "CART",
    "rf": "random forest",
    "logreg": "logistic regression",
}


def _column_list(text: str) -> list:
    """``--categorical-features a,b``: the column names, in order."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected comma-separated column names")
    return names


# Model options: estimator parameter -> (command-line option, type, help).  An
# option sets its parameter on every chosen learner that has it and is ignored
# by the others.  These are the options several learners share; each learner's
# spec adds its own (options()).  No two options differ only by case: CORELS's
# ``c`` and the falling rule lists' ``C`` are --corels-c and --frl-c.
OPTIONS = {
    "max_card": ("--max-card", int, "most conditions per mined antecedent"),
    "min_support": ("--min-support", float, "mining support threshold in (0, 1]"),
    "n_thresholds": ("--n-thresholds", int, "quantile thresholds per numeric column"),
    "time_limit": ("--time-limit", float, "time limit in seconds for the whole fit"),
    "random_state": ("--random-state", int, "seed"),
    # without it, integer-coded categories become thresholds such as `state > 21`
    "categorical_features": ("--categorical-features", _column_list,
                             "comma-separated columns whose values are categories (each "
                             "value gives `col == v`), not numbers to cut by thresholds"),
}
# spellings of 0.1 that differed only by case: a clear error names the new one
RENAMED = {"--c": "--corels-c", "--C": "--frl-c", "--C1": "--frl-c1"}


def options() -> dict:
    """Every model option: the shared ones, then each registered learner's own."""
    table = dict(OPTIONS)
    for spec in LEARNERS.values():
        table.update(spec.options)
    return table


def _known_models(*, baselines: bool) -> str:
    text = "learners " + ", ".join(sorted(LEARNERS))
    if baselines:
        text += "; baselines " + ", ".join(sorted(BASELINES))
    return text


def _learner(name: str, options: dict, *, baselines: bool = False):
    if name not in LEARNERS:
        raise CliError(f"unknown model {name!r}; choose one of: {_known_models(baselines=baselines)}")
    return LEARNERS[name].make(**options)


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


def _read_training_csv(args):
    """The features and labels of ``args.data``; ``--categorical-features`` must name columns of it."""
    X, y = _read_csv(args.data, args.target)
    for name in getattr(args, "categorical_features", None) or ():
        if name == args.target:
            raise CliError(f"--categorical-features: {name!r} is the target column, not a feature")
        if name not in X.columns:
            raise CliError(f"--categorical-features: column {name!r} is not in {args.data}; "
                           f"columns are: {', '.join(map(str, X.columns))}")
    return X, y


@contextlib.contextmanager
def _unless_forced(path):
    """An existing output without --force: one line saying so."""
    try:
        yield
    except FileExistsError:
        raise CliError(f"{path} exists; pass --force to replace it") from None


def _check_output(path, force: bool) -> None:
    """Refuse, before any work, an output that exists (without --force) or is no file."""
    if path:
        with _unless_forced(path):
            writable_target(path, overwrite=force)


def _write(path, data, force: bool):
    """Write an output atomically; an existing file only with --force (checked again:
    it may have appeared while we worked)."""
    with _unless_forced(path):
        return write_atomic(path, data, overwrite=force)


def _options(args) -> dict:
    values = {k: getattr(args, k, None) for k in options()}
    gap = getattr(args, "stop_at_gap", None)
    if gap is not None:
        from .callbacks import stop_at_gap

        values["callback"] = stop_at_gap(gap)
    return values


# --- commands -----------------------------------------------------------------------------

@contextlib.contextmanager
def _fit_progress(est, args):
    """While the block runs, ``est`` draws its searches as one bar on stderr (``--progress``;
    by default only when stderr is a terminal), from the states its callback receives."""
    from ._anytime import wants_progress
    from .callbacks import progress

    if not wants_progress(args.progress) or "callback" not in est.get_params():
        yield
        return
    with progress(est.get_params()["callback"]) as bar:
        est.set_params(callback=bar)
        yield


def _is_large_source(args) -> bool:
    """Parquet files, a glob, several files or a dask scheduler: read in chunks, not at once."""
    data = args.data
    return bool(getattr(args, "scheduler", None)) or len(data) > 1 or any(
        any(ch in d for ch in "*?[") or not d.lower().endswith((".csv", ".csv.gz", ".txt"))
        for d in data)


def _source(args):
    """What ``fit`` reads for parquet files, globs or a scheduler (``docs/distributed.md``)."""
    from .stream import Files

    files = Files(args.data if len(args.data) > 1 else args.data[0], target=args.target)
    try:
        found = files.files()
    except FileNotFoundError as exc:
        raise CliError(str(exc)) from None
    if not getattr(args, "scheduler", None):
        return files, None, None
    try:
        from dask.distributed import Client

        import dask.dataframe as dd
    except ImportError:
        raise CliError("--scheduler needs dask: pip install 'rulekit[distributed]'") from None
    try:
        client = Client(args.scheduler)        # the default scheduler from here on
    except (OSError, TimeoutError, ValueError) as exc:
        raise CliError(f"--scheduler {args.scheduler}: cannot connect ({exc})") from None
    frame = (dd.read_csv(found) if all(".csv" in f.lower() for f in found)
             else dd.read_parquet(found))
    if args.target not in frame.columns:
        client.close()
        raise CliError(f"column {args.target!r} is not in {args.data[0]}; columns are: "
                       f"{', '.join(map(str, frame.columns))}")
    return frame.drop(columns=[args.target]), frame[args.target], client


def _training_accuracy_from_counts(est) -> float | None:
    """Accuracy on the training rows read from a rule list's or a two-class rule set's
    counts (no second pass)."""
    model = est.model_
    if getattr(model, "counts_true", None) is not None and model.counts_false is not None:
        # (negative, positive) rows where the rule set holds, and where it does not
        right = model.counts_true[1] + model.counts_false[0]
        return right / (sum(model.counts_true) + sum(model.counts_false))
    rules = [*getattr(model, "rules", []), getattr(model, "default", None)]
    if rules[-1] is None or any(r.counts is None for r in rules):
        return None
    classes = [str(c) for c in model.classes]
    right = sum(r.counts[classes.index(str(r.prediction))] for r in rules)
    return right / sum(sum(r.counts) for r in rules)


def cmd_fit(args) -> int:
    _check_output(args.save, args.force)
    est = _learner(args.model, _options(args))
    est.set_params(**({"verbose": args.verbose} if "verbose" in est.get_params() else {}))
    if _is_large_source(args):
        X, y, client = _source(args)
        try:
            with _fit_progress(est, args):
                est.fit(X, y)
        except TypeError as exc:       # a learner that fits rows in memory only
            raise CliError(str(exc)) from None
        finally:
            if client is not None:     # closed here, not in the interpreter's exit
                client.close()
        print(est)
        accuracy = _training_accuracy_from_counts(est)
        if accuracy is not None:
            print(f"\ntraining accuracy: {accuracy:.4f}")
    else:
        args.data = args.data[0]
        X, y = _read_training_csv(args)
        with _fit_progress(est, args):
            est.fit(X, y)
        print(est)
        print(f"\ntraining accuracy: {est.score(X, y):.4f}")
    print(f"certificate: {est.certificate_}")
    if args.save:
        with _unless_forced(args.save):
            est.save(args.save, metadata={"target": args.target}, overwrite=args.force)
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
    _check_output(args.output, args.force)
    model = _load_model(args.model)
    X, _ = _read_csv(args.data)
    out = X.copy()
    out["prediction"] = model.predict(X)
    proba = model.predict_proba(X)
    for k, label in enumerate(model.classes_):
        out[f"p({label})"] = proba[:, k].round(6)
    text = out.to_csv(index=False)
    if args.output:
        _write(args.output, text, args.force)
    else:
        sys.stdout.write(text)
    return 0


def cmd_export(args) -> int:
    _check_output(args.output, args.force)
    model = _load_model(args.model)
    if args.to == "python":
        text = model.to_python()
    elif args.table:
        text = model.to_sql(args.table, dialect=args.dialect, proba=True) + "\n"
    else:
        text = model.to_sql(dialect=args.dialect) + "\n"
    if args.output:
        _write(args.output, text, args.force)
    else:
        sys.stdout.write(text)
    return 0


def cmd_compare(args) -> int:
    from .compare import compare_models

    path = _plot_path(args.plot) if args.plot else None
    _check_output(path, args.force)
    X, y = _read_training_csv(args)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    if not names:
        raise CliError("--models needs at least one model name")
    models = {n: _estimator(n, _options(args), args.random_state or 0) for n in names}
    comp = compare_models(models, X, y, cv=args.cv, n_jobs=args.n_jobs, refit=False,
                          random_state=args.random_state or 0, verbose=args.verbose,
                          progress=args.progress)
    print(comp.to_markdown())
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        image = io.BytesIO()
        comp.plot().savefig(image, dpi=120, format=path.suffix[1:])
        _write(path, image.getvalue(), args.force)
        print(f"plot saved to {path}")
    return 0


def _explorable() -> list:
    """--model of `rulekit explore`: the learners whose specs say the explorer draws them."""
    return [name for name, spec in LEARNERS.items() if spec.explore]


def cmd_explore(args) -> int:
    if args.model not in _explorable():
        raise CliError(f"rulekit explore: unknown model {args.model!r}; choose one of: "
                       + ", ".join(_explorable()))
    eps = args.rashomon
    if eps is not None and not (math.isfinite(eps) and eps >= 0):
        raise CliError(f"--rashomon takes EPS >= 0 (objective units: 0.01 is one percent of "
                       f"the rows), got {eps}")
    _check_output(args.output, args.force)
    X, y = _read_training_csv(args)
    est = _learner(args.model, _options(args))
    # the replay and the Rashomon view exist for CORELS only: say so before the fit
    for flag, asked, able, lacks in (
            ("--trace", args.trace, "trace" in est.get_params(), "records no event log"),
            ("--rashomon", eps is not None, hasattr(est, "rashomon_set"), "has no Rashomon set")):
        if asked and not able:
            raise CliError(f"rulekit explore: {flag} needs --model corels (the {args.model!r} "
                           f"learner {lacks})")
    est.set_params(**({"verbose": args.verbose} if "verbose" in est.get_params() else {}))
    if args.trace:
        est.set_params(trace="events")
    with _fit_progress(est, args):
        est.fit(X, y)
    rset = None
    if eps is not None:
        rset = est.rashomon_set(eps)
        print(f"Rashomon set: {rset.count} lists within {eps} of the optimum")
    page = est.explore(X, y, None, rashomon=rset)
    with _unless_forced(args.output):
        page.save(args.output, overwrite=args.force)
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


def _demos() -> dict:
    """Dataset -> demo function, from the learners' specs."""
    return dict(spec.demo for spec in LEARNERS.values() if spec.demo is not None)


def cmd_demo(args) -> int:
    demos = _demos()
    if args.dataset not in demos:
        raise CliError(f"no demo for {args.dataset!r} yet; available: {', '.join(demos)}")
    demos[args.dataset]()
    return 0


def _compilable() -> list:
    """Learners with a warm-up fit (one per family: the variants share kernels)."""
    return [name for name, spec in LEARNERS.items() if spec.warmup is not None]


def cmd_compile(args) -> int:
    import time

    known = _compilable()
    names = [n.strip() for n in args.learners.split(",")] if args.learners else known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CliError(f"cannot compile {unknown[0]!r}; choose from {', '.join(known)}")
    for name in names:
        start = time.process_time()
        LEARNERS[name].warm_up()
        print(f"{name}: {time.process_time() - start:.1f} CPU s")
    if not args.learners:
        # the counting pass of a fit from files or dask has kernels of its own
        from . import stream
        from .learners import warmup_data

        start = time.process_time()
        X, y = warmup_data()
        stream.count(X.assign(_label=y), "_label")
        print(f"counting pass (fits from files): {time.process_time() - start:.1f} CPU s")
        # large fits, in memory or from files, fold their rows from packed bytes, pack
        # their conditions and evaluate the mined pool on packed words: kernels a small
        # fit does not reach (what the package's build compiles too)
        from ._precompile import counting

        start = time.process_time()
        counting()
        print(f"large fits, from files or in memory: {time.process_time() - start:.1f} CPU s")
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

def _learner_defaults(param: str) -> str:
    """Each learner's default for a model option, grouped: ``corels 'auto'; frl, softfrl 2``."""
    import inspect

    by_value = {}
    for name, spec in sorted(LEARNERS.items()):
        if param in spec.fixed:
            continue
        found = inspect.signature(spec.estimator_class()).parameters.get(param)
        if found is not None and found.default is not inspect.Parameter.empty:
            by_value.setdefault(repr(found.default), []).append(name)
    return "; ".join(f"{', '.join(names)} {value}" for value, names in by_value.items())


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` names every option's default.

    A model option left out keeps each learner's own default, which the help
    lists per learner (the estimators are imported only when help is shown).
    """

    def _get_help_string(self, action):
        text = action.help or ""
        if action.help is argparse.SUPPRESS or "%(default)" in text or "default" in text:
            return text
        if getattr(action, "model_option", False):
            defaults = _learner_defaults(action.dest)
            return f"{text} (default: {defaults})" if defaults else text
        if action.required:
            return text + " (required)"
        if action.default is None and action.option_strings:
            return text + " (default: none)"
        return super()._get_help_string(action)

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
    for name, (flag, kind, text) in options().items():
        action = g.add_argument(flag, dest=name, type=kind, help=text,
                                metavar=flag[2:].upper().replace("-", "_"))
        action.model_option = True   # help shows each learner's default
    g.add_argument("--stop-at-gap", dest="stop_at_gap", type=float, metavar="GAP",
                   help="stop a search once its relative gap (objective - lower bound) / "
                   "objective is at most GAP, e.g. 0.01 (learners with a lower bound)")
    for old in RENAMED:
        g.add_argument(old, action=_Renamed, help=argparse.SUPPRESS)
    g.add_argument("-v", "--verbose", type=int, default=0,
                   help="1: a progress bar per search on stderr (0 = none)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr (default: only when stderr is a terminal)")


def _add_force(p):
    p.add_argument("--force", action="store_true",
                   help="replace the output file if it exists (without it, nothing is overwritten)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rulekit", description="Learn small, readable rule models and compare them.")
    parser.add_argument("--version", action="version", version=f"rulekit {__version__}")
    # every sub-command's --help names the defaults
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=functools.partial(argparse.ArgumentParser,
                                                               formatter_class=_HelpFormatter))

    p = sub.add_parser("fit", help="learn a model from a CSV file (or parquet files) and print it")
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="a CSV file with a header row; or parquet/CSV files or globs "
                   "('claims/*.parquet'), read in two passes without holding the rows "
                   "(every built-in learner)")
    p.add_argument("--target", required=True, help="name of the label column")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="count on this dask scheduler (tcp://host:8786): binarizing and "
                   "counting run on its workers, the search here (docs/distributed.md)")
    p.add_argument("--model", required=True, help="learner: " + ", ".join(sorted(LEARNERS)))
    p.add_argument("--save", help="write the fitted model to this JSON file")
    _add_force(p)
    _add_model_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("predict", help="apply a saved model to a CSV file")
    p.add_argument("model", help="JSON file written by 'rulekit fit --save'")
    p.add_argument("data", help="CSV file with the model's feature columns")
    p.add_argument("--output", help="write predictions here instead of stdout")
    _add_force(p)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("export", help="write a saved model as SQL or standalone Python")
    p.add_argument("model", help="JSON file written by 'rulekit fit --save' or est.save()")
    p.add_argument("--to", required=True, choices=["sql", "python"], help="what to write")
    p.add_argument("--dialect", default="sqlite", choices=["sqlite", "duckdb", "postgresql"],
                   help="SQL dialect (default sqlite)")
    p.add_argument("--table", help="SQL: write a SELECT from this table with prediction and "
                   "probability columns (without it: the prediction's CASE expression)")
    p.add_argument("--output", help="write here instead of stdout")
    _add_force(p)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("compare", help="cross-validate several models on a CSV file")
    _add_data_arguments(p)
    p.add_argument("--models", required=True,
                   help="comma-separated " + _known_models(baselines=True))
    p.add_argument("--cv", type=int, default=5, help="number of stratified folds (default 5)")
    p.add_argument("--n-jobs", dest="n_jobs", type=int, default=None, help="parallel fits")
    p.add_argument("--plot", help="save the accuracy-vs-size plot to this file (PNG unless "
                   "its extension says otherwise), or into this directory as comparison.png")
    _add_force(p)
    _add_model_options(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("explore", help="fit a model and write the teaching explorer (one offline "
                       "HTML page)")
    p.add_argument("--data", required=True, help="CSV file with a header row")
    p.add_argument("--target", required=True, help="name of the label column")
    p.add_argument("--model", required=True, help="learner: " + ", ".join(_explorable()))
    p.add_argument("-o", "--output", default="explore.html",
                   help="the HTML file to write (default explore.html)")
    p.add_argument("--trace", action="store_true",
                   help="record the search's event log: adds the search replay (corels)")
    p.add_argument("--rashomon", type=float, metavar="EPS",
                   help="add the Rashomon view: every rule list within EPS of the optimal "
                   "objective, e.g. 0.005 (corels)")
    _add_force(p)
    _add_model_options(p)
    p.set_defaults(func=cmd_explore)

    p = sub.add_parser("demo", help="learn and print a model on a bundled dataset")
    p.add_argument("dataset", nargs="?", default="compas", help="one of: " + ", ".join(_demos()))
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("compile", help="compile the learners' numba kernels into the on-disk cache",
                       description="Fit each learner once on a small generated problem, so numba "
                       "compiles its kernels and caches the machine code on disk: later processes "
                       "load it instead of compiling (tens of CPU seconds on a first fit; docs/compilation.md).")
    p.add_argument("--learners", help="comma-separated, default all: " + ", ".join(_compilable()))
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
