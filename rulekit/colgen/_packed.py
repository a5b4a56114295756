"""Distinct rows of conditions kept a bit per row, and what the search reads from them.

On millions of distinct rows the boolean matrix ``X`` (one byte per row and
condition) is the largest thing a column-generation fit holds: 630 MB on 3.7
million distinct rows of 169 conditions.  Every stage of the search reads it
in a few shapes only -- a clause's rows, some columns as masks, some rows, a
block of rows, the whole matrix transposed -- and each of those is as quick
to make from the conditions packed eight rows to a byte (a condition's bits
side by side), an eighth of the memory.  :class:`PackedRows` holds the rows so
and :func:`columns`, :func:`take`, :func:`row_block`, :func:`transposed` and
:func:`all_rows_of` read either form: the same booleans, in the same layout,
so every product and sum over them is the same as over ``X``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rulekit._patterns import PackedBits
from rulekit.evaluate import all_of

__all__ = ["PackedRows", "columns", "take", "row_block", "float_rows", "float_rows_at",
           "weighed_columns", "signed_byte_sums", "rows_holding", "transposed",
           "all_rows_of"]

#: Rows packed at a time when the rows are packed from a boolean matrix.
PACK_BLOCK_ROWS = 1 << 16


class PackedRows:
    """A boolean matrix of shape ``(U, d)`` kept as ``d`` rows of ``ceil(U / 8)`` bytes.

    ``bits[j]`` is ``numpy.packbits(X[:, j])``: condition ``j``'s rows, eight
    to a byte, the first row in the high bit.  There is no ``__array__``: a
    reader that needs the booleans asks for the part it reads, so the whole
    matrix is never made by accident.
    """

    dtype = np.dtype(bool)

    def __init__(self, bits: np.ndarray, n_rows: int, by_row: np.ndarray | None = None):
        self.bits = bits
        self.shape = (int(n_rows), int(bits.shape[0]))
        if by_row is None:
            # made from ``bits`` when not given (:meth:`of_rows` and :meth:`complement`
            # give it, without the boolean matrix this makes)
            by_row = np.packbits(np.unpackbits(bits, axis=1, count=self.shape[0]).T, axis=1)
        #: The same bits a row at a time, shape ``(U, ceil(d / 8))``
        #: (``numpy.packbits(X, axis=1)``).  The conversions to numbers
        #: (:func:`float_rows`) read a row's bytes side by side from it, four times
        #: as fast as gathering a bit from each condition's row of ``bits``, for an
        #: eighth more memory.
        self.by_row = by_row

    @classmethod
    def of_rows(cls, B, rows) -> "PackedRows":
        """Rows ``rows`` of the boolean matrix ``B`` (or of counted rows already packed,
        :class:`rulekit._patterns.PackedBits`), packed.

        The rows' own bytes are packed a block at a time (the boolean copy of the rows
        is never made whole) or taken as they are, and the conditions' bits are made
        from them eight rows and eight conditions at a time
        (:func:`_conditions_from_rows`): packing the transposed boolean blocks took 2.4
        s of a fit on 2.75 million distinct rows of 169 conditions, a strided read of
        every boolean.
        """
        rows = np.asarray(rows, dtype=np.intp)
        U, d = rows.size, B.shape[1]
        if isinstance(B, PackedBits):
            by_row = B.packed[rows]
        else:
            by_row = np.empty((U, (d + 7) // 8), dtype=np.uint8)
            for start in range(0, U, PACK_BLOCK_ROWS):
                stop = min(start + PACK_BLOCK_ROWS, U)
                by_row[start:stop] = np.packbits(B[rows[start:stop]], axis=1)
        bits = np.empty((d, (U + 7) // 8), dtype=np.uint8)
        _conditions_from_rows(by_row, d, bits)
        return cls(bits, U, by_row)

    def complement(self) -> "PackedRows":
        """The complemented matrix ``~X`` (the bits past the last row stay 0)."""
        bits = ~self.bits
        tail = self.shape[0] % 8
        if tail:
            bits[:, -1] &= np.uint8((0xFF << (8 - tail)) & 0xFF)
        by_row = ~self.by_row
        tail = self.shape[1] % 8
        if tail:
            by_row[:, -1] &= np.uint8((0xFF << (8 - tail)) & 0xFF)
        return PackedRows(bits, self.shape[0], by_row)

    def all_of(self, clause) -> np.ndarray:
        """Rows where every condition of ``clause`` holds (all rows for an empty one)."""
        U = self.shape[0]
        if not len(clause):
            return np.ones(U, dtype=bool)
        hit = self.bits[clause[0]].copy()
        for j in clause[1:]:
            hit &= self.bits[j]
        return np.unpackbits(hit, count=U).view(bool)


#: The masks that swap the bits of an 8 x 8 bit matrix held in 64 bits across its
#: diagonal, in three steps (single bits, pairs, nibbles), with the shifts they go with.
_TRANSPOSE_STEPS = ((0x00AA00AA00AA00AA, 7), (0x0000CCCC0000CCCC, 14), (0x00000000F0F0F0F0, 28))


@njit(cache=True)
def _conditions_from_rows(by_row, d, bits):
    """``bits[j]`` = ``numpy.packbits`` of condition ``j`` over the rows of ``by_row`` (each
    row its conditions' bits, eight to a byte): the same bits, the other way round.

    Eight rows' byte ``b`` are eight conditions' byte for those rows, transposed: the
    eight bytes are read into one 64-bit word, high byte first, and its 8 x 8 bits are
    swapped across the diagonal in three masked steps; byte ``c`` of the word, high
    byte first, is then condition ``8 b + c``'s. The bits of a last byte past the last
    row stay 0, as ``packbits`` leaves them.
    """
    n, nb = by_row.shape
    for t0 in range(0, n, 8):
        m = min(8, n - t0)
        for b in range(nb):
            x = np.uint64(0)
            for k in range(m):
                x |= np.uint64(by_row[t0 + k, b]) << np.uint64(8 * (7 - k))
            for mask, shift in _TRANSPOSE_STEPS:
                t = (x ^ (x >> np.uint64(shift))) & np.uint64(mask)
                x = x ^ t ^ (t << np.uint64(shift))
            for c in range(min(8, d - 8 * b)):
                bits[8 * b + c, t0 >> 3] = np.uint8((x >> np.uint64(8 * (7 - c))) & np.uint64(0xFF))


def columns(X, js) -> np.ndarray:
    """Columns ``js`` of ``X`` as contiguous masks, shape ``(len(js), U)``."""
    js = np.asarray(js, dtype=np.intp)
    if isinstance(X, PackedRows):
        return np.unpackbits(X.bits[js], axis=1, count=X.shape[0]).view(bool)
    return np.ascontiguousarray(X[:, js].T)


def take(X, rows) -> np.ndarray:
    """Rows ``rows`` (indices) of ``X``, shape ``(len(rows), d)``, C-contiguous."""
    rows = np.asarray(rows, dtype=np.intp)
    if not isinstance(X, PackedRows):
        return X[rows]
    shift = (7 - (rows & 7)).astype(np.uint8)
    return np.ascontiguousarray(((X.bits[:, rows >> 3] >> shift) & 1).T).view(bool)


def row_block(X, start: int, stop: int) -> np.ndarray:
    """Rows ``start:stop`` of ``X``, C-contiguous booleans."""
    if not isinstance(X, PackedRows):
        return X[start:stop]
    lo = start // 8
    block = np.unpackbits(X.bits[:, lo:(stop + 7) // 8], axis=1)[:, start - 8 * lo:stop - 8 * lo]
    return np.ascontiguousarray(block.T).view(bool)


@njit(cache=True)
def _unpack_row_bytes_at(by_row, rows, out):
    """``out[i, j] = bit j of row rows[i]``, from the rows' own bytes."""
    d = out.shape[1]
    for i in range(rows.size):
        u = rows[i]
        for j in range(d):
            out[i, j] = (by_row[u, j >> 3] >> (7 - (j & 7))) & 1


def float_rows(X, start: int, stop: int, dtype, out=None) -> np.ndarray:
    """Rows ``start:stop`` of ``X`` as 0/1 numbers of ``dtype``, C-contiguous: what
    ``X[start:stop].astype(dtype)`` is for a boolean ``X``, made from packed rows directly.

    ``out``: an array of ``dtype`` with at least ``stop - start`` rows to write them
    into (its first rows are returned); a block read again and again then stays in
    cache, and is not allocated anew each time.
    """
    n = max(stop - start, 0)
    if out is None:
        out = np.empty((n, X.shape[1]), dtype=dtype)
    else:
        out = out[:n]
    if isinstance(X, PackedRows):
        _unpack_row_bytes_at(X.by_row, np.arange(start, start + n, dtype=np.int64), out)
    else:
        out[...] = X[start:stop]
    return out


def float_rows_at(X, rows, dtype, out) -> np.ndarray:
    """Rows ``rows`` (ascending indices) of ``X`` as 0/1 numbers of ``dtype``, written
    into the first ``len(rows)`` rows of ``out``, which are returned."""
    out = out[:len(rows)]
    if isinstance(X, PackedRows):
        _unpack_row_bytes_at(X.by_row, np.asarray(rows, dtype=np.int64), out)
    else:
        out[...] = X[rows]
    return out


def weighed_columns(r, X, block=1 << 13) -> np.ndarray:
    """``r @ X`` in float64: each condition's sum of ``r`` over the rows where it holds.

    Packed rows are unpacked ``block`` rows at a time into one buffer, so that the
    float64 copy of the whole matrix (1 GB on 716,289 distinct rows of 185
    conditions) is never made; the blocks' products add up in order, which may
    round otherwise than one product over a boolean ``X`` (taken as it is).
    """
    r = np.asarray(r, dtype=np.float64)
    if not isinstance(X, PackedRows):
        return r @ float_rows(X, 0, X.shape[0], np.float64)
    U = X.shape[0]
    out = np.zeros(X.shape[1])
    buf = np.empty((min(block, U), X.shape[1]))
    for start in range(0, U, block):
        stop = min(start + block, U)
        out += r[start:stop] @ float_rows(X, start, stop, np.float64, out=buf)
    return out


@njit(cache=True)
def _add_by_byte(by_row, rows, every, r, acc):
    """Add ``r[i]`` to ``acc[s, b, by_row[i, b]]`` for every byte ``b`` of each row ``i`` of
    ``rows`` (ascending indices; every row with ``every``), ``s`` 0 where ``r[i] > 0``
    and 1 where ``r[i] < 0``."""
    nb = by_row.shape[1]
    n = by_row.shape[0] if every else rows.shape[0]
    for t in range(n):
        i = t if every else rows[t]
        w = r[i]
        if w == 0.0:
            continue
        side = 0 if w > 0.0 else 1
        wf = np.float64(w)
        for b in range(nb):
            acc[side, b, by_row[i, b]] += wf


@njit(cache=True)
def _fold_bytes(acc, out):
    """``out[s, 8 b + t]`` += the sums ``acc[s, b, v]`` of the byte values ``v`` whose bit
    ``t`` (the high bit first, as ``numpy.packbits``) is set."""
    for side in range(acc.shape[0]):
        for b in range(acc.shape[1]):
            for v in range(1, 256):
                total = acc[side, b, v]
                if total != 0.0:
                    for t in range(8):
                        if (v >> (7 - t)) & 1:
                            out[side, 8 * b + t] += total


def signed_byte_sums(X: PackedRows, rows, r) -> tuple:
    """``(P, N)``: each condition's sum of ``r`` over ``rows`` where the condition holds,
    over the rows of ``r > 0`` and of ``r < 0``.

    ``rows``: None (every row), a boolean mask, or ascending row indices. Read from the
    rows' own bytes (:attr:`PackedRows.by_row`): a row adds its weight once per byte,
    to that byte's value, and each value's total is then added to the conditions whose
    bits it sets. That is a sixteenth of the additions of a sum per condition (for 116
    conditions), and no row is converted to numbers. Only the rows given are read: the
    beam's clauses past its first level hold a few percent of the rows, and a pass over
    every row to find them took three quarters of its time at ten million rows. The
    totals are kept in float64 and added in row order, so they may round otherwise than
    a float32 product would.
    """
    nb = X.by_row.shape[1]
    acc = np.zeros((2, nb, 256))
    every = rows is None
    if every:
        rows = np.zeros(0, dtype=np.int64)
    else:
        rows = np.asarray(rows)
        rows = np.flatnonzero(rows) if rows.dtype == bool else rows.astype(np.int64, copy=False)
    _add_by_byte(X.by_row, rows, every, r, acc)
    out = np.zeros((2, 8 * nb))
    _fold_bytes(acc, out)
    d = X.shape[1]
    return out[0, :d], out[1, :d]


def rows_holding(X: PackedRows, j: int, rows=None) -> np.ndarray:
    """The rows of ``rows`` (ascending indices; every row when None) where condition
    ``j`` holds, as ascending indices: what ``numpy.flatnonzero(mask & X[:, j])`` is
    for the mask of ``rows``, in a time of ``len(rows)`` rather than of every row."""
    if rows is None:
        return np.flatnonzero(np.unpackbits(X.bits[j], count=X.shape[0]))
    return _rows_with_bit(X.by_row, np.asarray(rows, dtype=np.int64), j >> 3,
                          np.uint8(1 << (7 - (j & 7))))


@njit(cache=True)
def _rows_with_bit(by_row, rows, byte, bit):
    """The entries of ``rows`` whose byte ``byte`` of ``by_row`` has ``bit`` set, in order."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    at = 0
    for t in range(rows.shape[0]):
        i = rows[t]
        if by_row[i, byte] & bit:
            out[at] = i
            at += 1
    return out[:at]


def transposed(X) -> np.ndarray:
    """``X.T`` as a C-contiguous boolean matrix, shape ``(d, U)``."""
    if isinstance(X, PackedRows):
        return np.unpackbits(X.bits, axis=1, count=X.shape[0]).view(bool)
    return np.ascontiguousarray(X.T)


def all_rows_of(X, clause) -> np.ndarray:
    """Rows of ``X`` where every condition of ``clause`` holds."""
    if isinstance(X, PackedRows):
        return X.all_of(clause)
    return all_of(X, clause)
