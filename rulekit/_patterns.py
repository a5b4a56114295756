"""Rows of conditions packed into bytes, and a table that counts the distinct ones.

A fit from files or chunks (:mod:`rulekit.stream`) needs, of each row, only its
pattern: which conditions it meets, eight to a byte (``numpy.packbits``'s
layout, first condition in the high bit), followed by its class.  This module
holds the two compiled loops that make that fast:

* :func:`pack_conditions` evaluates a binarizer's conditions on encoded
  columns (numbers as floats, categories as integer codes) and writes each row's
  packed bytes directly, never the boolean matrix;
* :class:`PatternCounter` adds packed rows into an open-addressing hash table of
  the distinct ones, with a count per fold, in time linear in the rows.  The
  distinct rows are kept in the order each first occurs, which is the same from
  any chunking of the same rows, so nothing needs sorting.

:class:`PackedBits` keeps the distinct rows so packed for a learner that reads
them a block at a time (column generation), rather than as booleans.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["OP_CODES", "MISSING_CODE", "UNKNOWN_CODE", "NUMERIC", "CATEGORICAL",
           "pack_conditions", "unpack_rows", "condition_bitsets", "PatternCounter",
           "PackedBits", "runs_if_sorted", "sorted_groups"]

#: A condition's operator as the compiled loop reads it.
OP_CODES = {"<=": 0, ">": 1, "is missing": 2, "==": 3, "!=": 4, "in": 5, "not in": 6}
#: A categorical code: the value is missing.
MISSING_CODE = -2
#: A categorical code: a category not seen at fit time, read as no known category.
UNKNOWN_CODE = -1

#: Kinds of condition (``kind`` argument of :func:`pack_conditions`).
NUMERIC, CATEGORICAL = 0, 1

#: The hash table is kept at most this full (open addressing slows down as it fills).
MAX_LOAD = 0.5


@njit(cache=True)
def pack_conditions(X_num, X_cat, kind, column, op, value, size, out):
    """Evaluate every condition on every row into ``out``, eight to a byte.

    Parameters
    ----------
    X_num : ndarray of float64, shape (p, n)
        The numeric columns (one per row of the array), NaN where missing.
    X_cat : ndarray of int64, shape (q, n)
        The categorical columns as codes: a frequent category's position, ``size``
        for an infrequent one, :data:`UNKNOWN_CODE`, or :data:`MISSING_CODE`.
    kind, column, op, value, size : ndarray, shape (m,)
        Per condition: :data:`NUMERIC`, :data:`CATEGORICAL` or -1 (never holds); its
        column in ``X_num`` or ``X_cat``; its :data:`OP_CODES` code; its threshold
        (numeric) or category position (categorical); the number of frequent
        categories of its column.
    out : ndarray of uint8, shape (n, ceil(m / 8)), zeros
    """
    n = out.shape[0]
    # one condition at a time over a contiguous column: one comparison per row, no branch
    # on the operator inside the loop
    for k in range(kind.shape[0]):
        byte = k >> 3
        shift = np.uint8(7 - (k & 7))
        o = op[k]
        if kind[k] == NUMERIC:
            x = X_num[column[k]]
            t = value[k]
            if o == 0:
                for i in range(n):         # without a branch: the bit is the comparison
                    out[i, byte] |= np.uint8(x[i] <= t) << shift   # 0 for NaN (missing)
            elif o == 1:
                for i in range(n):
                    out[i, byte] |= np.uint8(x[i] > t) << shift
            else:                               # "is missing"
                for i in range(n):
                    out[i, byte] |= np.uint8(np.isnan(x[i])) << shift
        elif kind[k] == CATEGORICAL:
            c = X_cat[column[k]]
            pos = np.int64(value[k])
            z = size[k]
            for i in range(n):
                if o == 2:
                    hit = c[i] == MISSING_CODE
                elif o == 3:
                    hit = c[i] == pos
                elif o == 4:
                    hit = c[i] != MISSING_CODE and c[i] != pos
                elif o == 5:
                    hit = c[i] >= z             # infrequent (or unknown read as such)
                else:                           # "not in"
                    hit = c[i] != MISSING_CODE and c[i] < z
                out[i, byte] |= np.uint8(hit) << shift


@njit(cache=True)
def unpack_rows(keys, order, m):
    """Rows ``order`` of packed ``keys`` as booleans: ``np.unpackbits(keys[order], axis=1,
    count=m).view(bool)`` in one pass, without the reordered copy of the keys."""
    out = np.empty((order.shape[0], m), dtype=np.bool_)
    for i in range(order.shape[0]):
        r = order[i]
        for k in range(m):
            out[i, k] = (keys[r, k >> 3] >> (7 - (k & 7))) & 1
    return out


class PackedBits:
    """A read-only boolean matrix of shape ``(n, m)`` kept as its rows packed into bytes.

    ``packed[i]`` is ``numpy.packbits(X[i])``: row ``i``'s conditions eight to a byte,
    the first in the high bit, the bits past the last condition 0 -- the layout of the
    counted keys, so the counted rows are held without their boolean matrix (an eighth
    of its memory: 10.9 million distinct rows of 161 conditions take 230 MB rather
    than 1.76 GB).

    It reads as the boolean matrix wherever rows are read: ``B[rows]`` (an index, a
    slice or a mask) and ``B[rows, columns]`` give booleans, and ``numpy.asarray(B)``
    the whole matrix.  Readers that go through the rows a block at a time
    (:func:`rulekit.evaluate.dnf_holds` and its kin, column generation's search) never
    make the whole; :meth:`take` and :meth:`columns` give packed parts.
    """

    dtype = np.dtype(bool)
    ndim = 2

    def __init__(self, packed: np.ndarray, n_columns: int):
        packed = np.ascontiguousarray(packed, dtype=np.uint8)
        if packed.ndim != 2 or packed.shape[1] != (n_columns + 7) // 8:
            raise ValueError(f"packed rows of {n_columns} columns need {(n_columns + 7) // 8} "
                             f"bytes a row, got an array of shape {packed.shape}")
        self.packed = packed
        self.shape = (int(packed.shape[0]), int(n_columns))

    @classmethod
    def of(cls, B) -> "PackedBits":
        """The boolean matrix ``B`` packed (a :class:`PackedBits` is returned as it is)."""
        if isinstance(B, cls):
            return B
        B = np.asarray(B, dtype=bool)
        return cls(np.packbits(B, axis=1), B.shape[1])

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def size(self) -> int:
        return self.shape[0] * self.shape[1]

    @property
    def nbytes(self) -> int:
        return self.packed.nbytes

    def __repr__(self) -> str:
        return f"PackedBits(shape={self.shape})"

    def _unpack(self, packed) -> np.ndarray:
        return np.unpackbits(packed, axis=-1, count=self.shape[1]).view(bool)

    def __getitem__(self, key) -> np.ndarray:
        if isinstance(key, tuple):
            rows, cols = key if len(key) == 2 else (key[0], slice(None))
            return self[rows][..., cols]
        return self._unpack(self.packed[key])

    def __iter__(self):
        for start in range(0, self.shape[0], 1 << 16):
            yield from self[start:start + (1 << 16)]

    def __array__(self, dtype=None, copy=None):
        out = self._unpack(self.packed)
        return out if dtype is None else out.astype(dtype, copy=False)

    def copy(self) -> "PackedBits":
        return PackedBits(self.packed.copy(), self.shape[1])

    def take(self, rows) -> "PackedBits":
        """Rows ``rows`` (indices, a slice or a mask), still packed."""
        return PackedBits(self.packed[rows], self.shape[1])

    def columns(self, start: int, stop: int, block: int = 1 << 16) -> "PackedBits":
        """Columns ``start:stop``, still packed (unpacked ``block`` rows at a time)."""
        width = stop - start
        if start % 8 == 0 and (stop % 8 == 0 or stop == self.shape[1]):
            return PackedBits(self.packed[:, start // 8:(stop + 7) // 8], width)
        out = np.empty((self.shape[0], (width + 7) // 8), dtype=np.uint8)
        for lo in range(0, self.shape[0], block):
            out[lo:lo + block] = np.packbits(self[lo:lo + block, start:stop], axis=1)
        return PackedBits(out, width)


@njit(cache=True)
def runs_if_sorted(keys):
    """``(True, new)`` when the rows of ``keys`` (uint8) are in ascending byte order,
    ``new[i]`` telling whether row ``i`` starts a run of equal rows; ``(False, ...)``
    as soon as a row comes before the one above it.

    Sorted rows group without hashing: each run is a group, numbered in order.
    Column generation's pairs come sorted (:func:`rulekit.estimators.validation.pair_order`),
    and hashing ten million of them took over a gigabyte of temporaries.
    """
    n, w = keys.shape
    new = np.empty(n, dtype=np.bool_)
    if n:
        new[0] = True
    for i in range(1, n):
        step = 0
        for j in range(w):
            a, b = keys[i - 1, j], keys[i, j]
            if a != b:
                step = 1 if b > a else -1
                break
        if step < 0:
            return False, new
        new[i] = step > 0
    return True, new


def sorted_groups(keys):
    """``(first, group)`` of rows of ``keys`` that come in byte order -- each run of equal
    rows a group, numbered in order (first appearance and sorted order agree) -- or None
    when they do not come in order (:func:`runs_if_sorted`)."""
    ordered, new = runs_if_sorted(keys)
    if not ordered:
        return None
    return np.flatnonzero(new).astype(np.int64), np.cumsum(new, dtype=np.int64) - 1


@njit(cache=True)
def condition_bitsets(keys, m):
    """The conditions of packed rows as bit vectors over the rows: what
    ``rulekit.bitset.pack(np.unpackbits(keys, axis=1, count=m).T)`` returns (``m`` rows of
    ``ceil(n / 64)`` words, row ``i``'s bit at word ``i // 64``, bit ``i % 64``), without the
    boolean matrix of every row."""
    n = keys.shape[0]
    out = np.zeros((m, (n + 63) // 64), dtype=np.uint64)
    for i in range(n):
        word = i >> 6
        bit = np.uint64(1) << np.uint64(i & 63)
        for k in range(m):
            if (keys[i, k >> 3] >> (7 - (k & 7))) & 1:
                out[k, word] |= bit
    return out


@njit(cache=True, inline="always")
def _hash(words, i):
    h = np.uint64(0x9E3779B97F4A7C15)
    for j in range(words.shape[1]):
        h ^= words[i, j]
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


@njit(cache=True, inline="always")
def _find_or_add(words, i, slots, table, used):
    """``(row of table holding key i of words, the new used)``, adding the key if new."""
    mask = np.uint64(slots.shape[0] - 1)
    w = words.shape[1]
    s = _hash(words, i) & mask
    while True:
        at = slots[s]
        if at < 0:                              # a new pattern
            for j in range(w):
                table[used, j] = words[i, j]
            slots[s] = used
            return used, used + 1
        same = True
        for j in range(w):
            if table[at, j] != words[i, j]:
                same = False
                break
        if same:
            return at, used
        s = (s + np.uint64(1)) & mask


@njit(cache=True)
def _add_rows(words, fold, slots, table, used):
    """Add each row of ``words`` to ``table``, counted once in its fold; the new ``used``.

    A row of ``table`` is the key's words, then its count in each fold, side by side,
    so that finding a key and counting it touch the same cache line.  The caller has
    made room: ``table`` holds at least ``used + n`` rows, and ``slots`` stays at most
    :data:`MAX_LOAD` full.
    """
    w = words.shape[1]
    for i in range(words.shape[0]):
        at, used = _find_or_add(words, i, slots, table, used)
        table[at, w + fold[i]] += np.uint64(1)
    return used


@njit(cache=True)
def _add_counts(words, counts, slots, table, used):
    """:func:`_add_rows` for keys that come with their counts per fold (a merge)."""
    w = words.shape[1]
    for i in range(words.shape[0]):
        at, used = _find_or_add(words, i, slots, table, used)
        for f in range(counts.shape[1]):
            table[at, w + f] += np.uint64(counts[i, f])
    return used


@njit(cache=True)
def _rehash(table, w, used, slots):
    mask = np.uint64(slots.shape[0] - 1)
    for at in range(used):
        s = _hash(table[:, :w], at) & mask
        while slots[s] >= 0:
            s = (s + np.uint64(1)) & mask
        slots[s] = at


class PatternCounter:
    """The distinct packed rows added so far, with a count per fold.

    Parameters
    ----------
    width : int
        Bytes per row.
    n_folds : int
    """

    def __init__(self, width: int, n_folds: int):
        self.width = int(width)
        self.n_folds = int(n_folds)
        self._w = -(-self.width // 8)           # 64-bit words per key
        self.used = 0
        self.n_rows = 0
        self._table = np.zeros((0, self._w + self.n_folds), dtype=np.uint64)
        self._slots = np.full(16, -1, dtype=np.int64)

    def add(self, keys: np.ndarray, fold: np.ndarray) -> None:
        """Add rows (uint8, shape (n, width)), row ``i`` counted once in ``fold[i]``."""
        words = self._words(keys)
        self.used = int(_add_rows(words, np.ascontiguousarray(fold, dtype=np.int64),
                                  self._slots, self._table, self.used))
        self.n_rows += keys.shape[0]

    def add_counts(self, keys: np.ndarray, fold_counts: np.ndarray) -> None:
        """Add distinct rows that come with their counts (int64, shape (n, n_folds))."""
        words = self._words(keys)
        self.used = int(_add_counts(words, np.ascontiguousarray(fold_counts, dtype=np.int64),
                                    self._slots, self._table, self.used))
        self.n_rows += int(fold_counts.sum())

    def _words(self, keys: np.ndarray) -> np.ndarray:
        """The keys as 64-bit words (zero bytes after each), with room made for them."""
        if self._slots is None:
            raise RuntimeError("the counter was released: it takes no more rows")
        if keys.ndim != 2 or keys.shape[1] != self.width:
            raise ValueError(f"rows of {keys.shape[1:]} bytes, the table holds {self.width}")
        padded = np.zeros((keys.shape[0], self._w * 8), dtype=np.uint8)
        padded[:, :self.width] = keys
        self.reserve(self.used + keys.shape[0])
        return padded.view(np.uint64)

    def reserve(self, distinct: int) -> None:
        """Room for ``distinct`` rows in all (at worst every row added is new)."""
        if distinct > self._table.shape[0]:
            table = np.zeros((max(distinct, 2 * self._table.shape[0]), self._table.shape[1]),
                             dtype=np.uint64)
            table[:self.used] = self._table[:self.used]
            self._table = table
        if distinct > MAX_LOAD * self._slots.shape[0]:
            size = self._slots.shape[0]
            while distinct > MAX_LOAD * size:
                size *= 2
            self._slots = np.full(size, -1, dtype=np.int64)
            _rehash(self._table, self._w, self.used, self._slots)

    def release(self) -> None:
        """Drop the hash slots: the counter takes no more rows."""
        self._slots = None

    def nbytes(self) -> int:
        return self._table.nbytes + (0 if self._slots is None else self._slots.nbytes)

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, fold_counts)``: the distinct rows (uint8, shape (d, width)) in the
        order each was first added, and their counts per fold (int64, shape (d, n_folds))."""
        rows = self._table[:self.used]
        keys = rows[:, :self._w].copy().view(np.uint8)
        return np.ascontiguousarray(keys[:, :self.width]), rows[:, self._w:].astype(np.int64)
