"""Write adult-like data of any size as parquet, a chunk at a time (issue 35, benchmarks).

Usage (from the repository root)::

    python benchmarks/generate_adult_like.py --rows 1e6 --out data/adult_1m --seed 0
    python benchmarks/generate_adult_like.py --rows 5e7 --out data/adult_50m --seed 0

The output folder receives ``part-00000.parquet``, ``part-00001.parquet``...,
one file (one row group) per chunk of ``--chunk-rows`` rows (default one
million), with the 14 columns of :func:`rulekit.datasets.load_adult` under the
same names and dtypes, and the label ``income`` (``"<=50K"`` or ``">50K"``).
Pandas, pyarrow and dask read the folder as one table.  At most one chunk is
held in memory, so 50 million rows need about as much memory as one million.

The generative model
--------------------
A chain of empirical conditionals (a small Bayesian network whose tables
are the counts of the shipped adult data, 48,842 rows), sampled in this order::

    income                                  P(income)
    sex            | income                 P(sex | income)
    relationship   | sex, income
    marital_status | relationship, income
    age            | marital_status, income
    education      | sex, income
    education_num  | education, income      (one value per education level)
    occupation     | education, income      (missing is a level of its own)
    workclass      | occupation, income     (so workclass and occupation are missing together)
    race           | income
    native_country | race, income
    capital_gain   | income                 (0 in about 92 % of the rows)
    capital_loss   | capital_gain == 0, income
    hours_per_week | sex, income
    fnlwgt         | race, income, then + an integer in [-1000, 1000], kept >= 1

"Empirical conditional" means: among the adult rows whose parents take the
sampled values, copy the child's value of one of them, drawn uniformly
(precisely: with the row's uniform ``u`` and the ``k`` such adult rows in
adult's order, the one at position ``min(floor(u * k), k - 1)``; a missing
value is a level like any other).
Every numeric column but ``fnlwgt`` therefore takes only values adult has
(integer ages 17..90, capital gain mostly 0, hours 1..99), so the number of
distinct binarized rows levels off as rows grow, as it does on data drawn
from one population; ``fnlwgt`` gets new values from the jitter, which the
default binarization's quantile thresholds absorb.  The chain keeps the
dependencies that make adult's rules (marital status, relationship, age,
education, capital gain against income) and drops the others, so rules fitted
here resemble adult's but accuracies are not adult's.  Every parent set is
chosen so that the sampled parent values always occur together in adult
(each child is conditioned on its parent and ``income``, and that parent was
itself drawn given ``income``), so no conditional is ever empty.

Reproducibility
---------------
Chunk ``i`` of column ``j`` (its position in the chain above, from 0) draws
its uniforms from ``numpy.random.default_rng([seed, i, j])``, and ``fnlwgt``'s
jitter, ``floor(v * 2001) - 1000``, its ``v`` from
``default_rng([seed, i, j, 1])``.  So a chunk depends only on the seed, its
index and the chunk size, never on the chunks before it or on the total: any
chunk can be regenerated alone, and the first million rows of a
50-million-row set are the million-row set with the same seed and chunk size.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

#: label column written beside the 14 feature columns
LABEL = "income"
#: rows per chunk (one parquet file, one row group each)
CHUNK_ROWS = 1_000_000
#: fnlwgt's jitter bound: new values without moving adult's quantiles much
FNLWGT_JITTER = 1000

#: (column, parents) in sampling order; parents are columns sampled before.
#: ``capital_gain_is_zero`` is a derived parent (see :func:`_parent_values`).
CHAIN: tuple[tuple[str, tuple[str, ...]], ...] = (
    (LABEL, ()),
    ("sex", (LABEL,)),
    ("relationship", ("sex", LABEL)),
    ("marital_status", ("relationship", LABEL)),
    ("age", ("marital_status", LABEL)),
    ("education", ("sex", LABEL)),
    ("education_num", ("education", LABEL)),
    ("occupation", ("education", LABEL)),
    ("workclass", ("occupation", LABEL)),
    ("race", (LABEL,)),
    ("native_country", ("race", LABEL)),
    ("capital_gain", (LABEL,)),
    ("capital_loss", ("capital_gain_is_zero", LABEL)),
    ("hours_per_week", ("sex", LABEL)),
    ("fnlwgt", ("race", LABEL)),
)


#: derived parents: the name used in :data:`CHAIN` -> the sampled column it is computed from
DERIVED_FROM = {"capital_gain_is_zero": "capital_gain"}


def _parent_values(frame: pd.DataFrame, name: str) -> np.ndarray:
    """A parent column as an object array, missing values as their own level."""
    if name == "capital_gain_is_zero":
        return (frame["capital_gain"].to_numpy() == 0).astype(object)
    # NaN != NaN, so missing becomes a plain marker that groups like any level
    return frame[name].astype(object).where(frame[name].notna(), "<missing>").to_numpy()


class AdultLikeModel:
    """The fitted chain: for each column, adult's rows grouped by parent cell.

    Sampling works on source row numbers, never on values: every sampled value
    is a copy of the column's value in one source row, so the sampler draws
    that row's number, reads a parent's level code as the code of the
    parent's source row (computed once, here), and takes each output column's
    values from the typed source column by row number.  This gives exactly the
    values of drawing and comparing the values themselves, without object
    arrays or text conversion per chunk.

    Parameters
    ----------
    source : tuple (X, y) or None, default=None
        The data whose conditionals are copied; None: ``load_adult()`` (all
        48,842 rows).

    Attributes
    ----------
    columns_ : list of str
        Output columns in ``load_adult`` order, then ``income``.
    dtypes_ : pandas.Series
        The dtype of each output column (those of the source).
    """

    def __init__(self, source=None):
        if source is None:
            from rulekit.datasets import load_adult
            source = load_adult(return_X_y=True)
        X, y = source
        frame = X.reset_index(drop=True).copy()
        frame[LABEL] = pd.Series(y).reset_index(drop=True)
        self.columns_ = list(X.columns) + [LABEL]
        self.dtypes_ = frame[self.columns_].dtypes
        # each column's values as its typed array (int64, or pandas' string dtype with
        # missing as NA): the output takes from these by source row number
        self._arrays = {c: frame[c].array for c in self.columns_}
        # every parent's levels (as text, missing as a marker, sorted) and the level
        # code of each source row; a sampled row's code is its source row's code
        self._levels, self._codes = {}, {}
        for _, parents in CHAIN:
            for p in parents:
                if p not in self._levels:
                    levels, codes = np.unique(_parent_values(frame, p).astype(str),
                                              return_inverse=True)
                    self._levels[p], self._codes[p] = levels, codes.astype(np.int64).ravel()
        self._tables = {}
        for column, parents in CHAIN:
            # source rows grouped by parent cell (a mixed-radix code over the parents'
            # levels): the rows sorted by cell, cell c being
            # rows[offsets[c]:offsets[c] + counts[c]], in source order within a cell
            cell_of_row = self._cells(self._codes, parents, len(frame))
            n_cells = int(np.prod([len(self._levels[p]) for p in parents]))
            rows = np.argsort(cell_of_row, kind="stable")
            counts = np.bincount(cell_of_row, minlength=n_cells)
            offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
            self._tables[column] = (parents, offsets, counts, rows)

    def _cells(self, codes: dict, parents: tuple[str, ...], n: int) -> np.ndarray:
        """Each row's parent cell: its parents' level codes (``codes[p]``) in mixed radix."""
        cell = np.zeros(n, dtype=np.int64)
        for p in parents:
            cell = cell * len(self._levels[p]) + codes[p]
        return cell

    def sample_chunk(self, n: int, seed: int, index: int) -> pd.DataFrame:
        """Rows ``0..n-1`` of chunk ``index``: a frame with :attr:`columns_` and :attr:`dtypes_`.

        A shorter ``n`` gives a prefix of a longer one (each column draws from
        its own stream), which is how the last, partial chunk is made.

        Parameters
        ----------
        n : int
            Rows to draw.
        seed : int
            The data set's seed.
        index : int
            The chunk's position; chunk ``index`` never depends on the others.

        Returns
        -------
        pandas.DataFrame
        """
        codes = {}  # parent -> level code of each sampled row, once its column is drawn
        out = {}
        for j, (column, (parents, offsets, counts, rows)) in enumerate(self._tables.items()):
            u = np.random.default_rng([seed, index, j]).random(n)
            cell = self._cells(codes, parents, n)
            k = counts[cell]  # the number of source rows in each sampled row's cell
            if (k == 0).any():  # the chain's parent sets make this impossible
                raise RuntimeError(f"empty conditional for {column!r}")
            # uniform pick among the k source rows of the cell: floor(u * k), at most k - 1
            # (u < 1, but u * k can round up to k)
            pick = offsets[cell] + np.minimum((u * k).astype(np.int64), k - 1)
            source_row = rows[pick]
            # the codes this column gives its children (directly or through a derived parent)
            for p in self._levels:
                if DERIVED_FROM.get(p, p) == column:
                    codes[p] = self._codes[p][source_row]
            out[column] = self._arrays[column].take(source_row)
            if column == "fnlwgt":
                jitter = np.floor(np.random.default_rng([seed, index, j, 1]).random(n)
                                  * (2 * FNLWGT_JITTER + 1)).astype(np.int64) - FNLWGT_JITTER
                out[column] = np.maximum(np.asarray(out[column], dtype=np.int64) + jitter, 1)
        # the source's dtypes throughout (int64 for numbers, pandas' string dtype for text);
        # the astype is a no-op kept as a guard that the columns come out as promised
        out = pd.DataFrame({c: out[c] for c in self.columns_}, index=pd.RangeIndex(n))
        return out.astype(self.dtypes_.to_dict())


def write(rows: int, out: str | Path, seed: int = 0, chunk_rows: int = CHUNK_ROWS,
          model: AdultLikeModel | None = None) -> list[Path]:
    """Write ``rows`` adult-like rows to ``out/part-NNNNN.parquet``, one chunk at a time.

    Parameters
    ----------
    rows : int
        Total rows.
    out : str or Path
        Output folder (created); existing part files are replaced.
    seed : int, default=0
    chunk_rows : int, default=1_000_000
        Rows per file (and row group); part of the data's identity, like the seed.
    model : AdultLikeModel or None
        None: fitted on ``load_adult()``.

    Returns
    -------
    list of Path
        The files written.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if rows < 1 or chunk_rows < 1:
        raise ValueError(f"rows and chunk_rows must be positive, got {rows} and {chunk_rows}")
    model = model or AdultLikeModel()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("part-*.parquet"):
        old.unlink()
    written = []
    for index, start in enumerate(range(0, rows, chunk_rows)):
        chunk = model.sample_chunk(min(chunk_rows, rows - start), seed, index)
        path = out / f"part-{index:05d}.parquet"
        # write under a temporary name, then rename: a reader never sees half a file
        tmp = path.with_suffix(".parquet.tmp")
        pq.write_table(pa.Table.from_pandas(chunk, preserve_index=False), tmp,
                       row_group_size=chunk_rows)
        tmp.replace(path)
        written.append(path)
        del chunk
    return written


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=float, required=True, help="rows to write (1e6, 5e7...)")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk-rows", type=int, default=CHUNK_ROWS)
    args = parser.parse_args(argv)
    files = write(int(args.rows), args.out, args.seed, args.chunk_rows)
    print(f"{int(args.rows):,} rows in {len(files)} file(s) under {args.out}")


if __name__ == "__main__":
    main()
