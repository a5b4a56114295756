"""The ``rulekit`` command.

Sub-commands: ``demo`` (learn and print a model on a bundled dataset) and
``datasets`` (list the bundled datasets).  Errors are printed as one line
on stderr with a non-zero exit status, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys

from . import datasets

DEMOS = ("compas",)


class CliError(Exception):
    """A user mistake: reported as one line, exit status 2."""


def _demo_compas(args) -> None:
    from .binarize import Binarizer
    from .mining import mine_antecedents

    X, y = datasets.load_compas(return_X_y=True)
    binarizer = Binarizer().fit(X)
    B = binarizer.transform(X)
    ants = mine_antecedents(B, y, min_support=0.05, max_card=2, conditions=binarizer.conditions_)
    print(f"compas: {X.shape[0]} people, {X.shape[1]} features, "
          f"{int(y.sum())} re-offended within two years\n")
    print(f"{len(binarizer.conditions_)} binarized conditions:")
    for c in binarizer.conditions_:
        print(f"  {c}")
    print(f"\n{len(ants)} antecedents mined (support >= 5% within a class, at most 2 conditions); "
          "the 10 with the largest support:")
    for k in sorted(range(len(ants)), key=lambda k: -ants.support[k])[:10]:
        print(f"  {ants.names[k]:<45} captures {ants.support[k]}")


def cmd_demo(args) -> int:
    {"compas": _demo_compas}[args.dataset](args)
    return 0


def cmd_datasets(args) -> int:
    width = max(len(n) for n in datasets.DATASETS)
    for name, (desc, source) in datasets.DATASETS.items():
        print(f"{name:<{width}}  {desc}  [{source}]")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rulekit", description="Learn small, readable rule models.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="learn and print a model on a bundled dataset")
    p.add_argument("dataset", nargs="?", default="compas", choices=DEMOS)
    p.set_defaults(func=cmd_demo)
    p = sub.add_parser("datasets", help="list the bundled datasets")
    p.set_defaults(func=cmd_datasets)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (CliError, ValueError, TypeError, OSError) as exc:
        print(f"rulekit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rulekit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
