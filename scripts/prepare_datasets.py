"""Rebuild the compressed CSVs shipped in ``rulekit/datasets/data``.

Run from the repository root with ``../shared/data`` beside it::

    python scripts/prepare_datasets.py

Most files are copied unchanged and gzipped.  Two are reduced:

* ``compas.csv.gz`` keeps the ProPublica two-year-recidivism rows (all 7214)
  but only the columns of the CORELS feature set plus the label;
* the CORELS authors' pre-mined antecedents (``compas_train.out``) are
  gzipped as they are.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT.parent / "shared" / "data"
DST = ROOT / "rulekit" / "datasets" / "data"

COPIES = {
    "tic_tac_toe/tic-tac-toe.csv": "tictactoe.csv.gz",
    "mushroom/mushroom.csv": "mushroom.csv.gz",
    "heart/heart.csv": "heart.csv.gz",
    "fico/heloc_dataset_v1.csv.gz": "fico.csv.gz",
    "bank_full/bank-full.csv.gz": "bank_full.csv.gz",
    "bank_full_frl/bank-full-discretized.csv.gz": "bank_full_frl.csv.gz",
    "adult/adult_train.csv.gz": "adult_train.csv.gz",
    "adult/adult_test.csv.gz": "adult_test.csv.gz",
    "compas_corels/compas_train.out": "corels_compas_train.out.gz",
    "compas_corels/compas_train.label": "corels_compas_train.label.gz",
    "compas_corels/compas_test.out": "corels_compas_test.out.gz",
    "compas_corels/compas_test.label": "corels_compas_test.label.gz",
}
for k in (1, 2, 3):
    for part in ("train", "test"):
        COPIES[f"monks/monks-{k}_{part}.csv"] = f"monks-{k}_{part}.csv.gz"

COMPAS_COLUMNS = [
    "sex", "age", "juv_fel_count", "juv_misd_count", "juv_other_count",
    "priors_count", "c_charge_degree", "two_year_recid",
]


def _gzip_bytes(data: bytes, dst: Path) -> None:
    # mtime=0 keeps the archive byte-identical between runs.
    with open(dst, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz:
        gz.write(data)


def main() -> None:
    DST.mkdir(parents=True, exist_ok=True)
    for src, dst in COPIES.items():
        path = SRC / src
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        _gzip_bytes(data, DST / dst)
    raw = pd.read_csv(SRC / "compas_raw" / "compas-scores-two-years.csv.gz")
    _gzip_bytes(raw[COMPAS_COLUMNS].to_csv(index=False).encode(), DST / "compas.csv.gz")
    total = sum(p.stat().st_size for p in DST.iterdir())
    print(f"wrote {len(list(DST.iterdir()))} files, {total / 1e6:.2f} MB")


if __name__ == "__main__":
    shutil.os.umask(0o022)
    main()
