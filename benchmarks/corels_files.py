"""The input files of the reference C++ CORELS (``.out``, ``.label``, ``.minor``).

Benchmark-only: ``bench_corels_defaults.py --cpp`` writes the antecedent matrix
a rulekit search used in the format that the original CORELS command line and
``benchmarks/corels_reference_driver.cpp`` read:

* ``.out``: one line per antecedent, ``{name} 0101...`` (one bit per sample);
* ``.label``: two lines, ``{label=0} bits`` and ``{label=1} bits``;
* ``.minor``: one line, ``{minor} bits``: 1 for the samples outside the
  majority label of their group of identical antecedent rows (the
  equivalent-points minority: mistakes every rule list over these
  antecedents makes; Angelino et al., JMLR 18(234), 2018, Section 3.14).

The driver adds the default rule itself, as rule 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def minority(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bool per sample: its label is not the majority label of its identical-row group.

    ``y`` holds codes 0 and 1.  In a tied group (as many 0s as 1s) the 1s are
    marked: which half is marked does not change any count the bound uses,
    since a group is always captured whole.
    """
    A = np.asarray(A, dtype=bool)
    y = np.asarray(y, dtype=np.int64)
    if A.shape[1] == 0:
        group = np.zeros(len(y), dtype=np.int64)
    else:
        _, group = np.unique(np.packbits(A, axis=1), axis=0, return_inverse=True)
        group = group.ravel()
    ones = np.bincount(group, weights=y, minlength=group.max(initial=0) + 1)
    total = np.bincount(group, minlength=len(ones))
    majority = (ones > total - ones).astype(np.int64)   # ties: label 0 is the majority
    return y != majority[group]


def _bits(v: np.ndarray) -> str:
    return (np.asarray(v, dtype=np.uint8) + ord("0")).tobytes().decode("ascii")


def write(directory, stem: str, A: np.ndarray, y: np.ndarray) -> tuple[Path, Path, Path]:
    """Write ``stem.out``, ``stem.label`` and ``stem.minor`` in ``directory``; their paths.

    Antecedent ``j`` is named ``{aj}`` (names must not contain spaces).
    """
    A = np.asarray(A, dtype=bool)
    y = np.asarray(y, dtype=np.int64)
    if not set(np.unique(y).tolist()) <= {0, 1}:
        raise ValueError("the reference C++ CORELS takes binary labels (codes 0 and 1)")
    d = Path(directory)
    out, label, minor = (d / f"{stem}.{ext}" for ext in ("out", "label", "minor"))
    with open(out, "w") as f:
        for j in range(A.shape[1]):
            f.write(f"{{a{j}}} {_bits(A[:, j])}\n")
    label.write_text(f"{{label=0}} {_bits(y == 0)}\n{{label=1}} {_bits(y == 1)}\n")
    minor.write_text(f"{{minor}} {_bits(minority(A, y))}\n")
    return out, label, minor
