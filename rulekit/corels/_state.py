"""The search state: flat arrays, their growth within a memory budget.

The kernels (``_kernels.py``) never allocate; when one needs room for the
next expansion it returns a request, and :meth:`State.grow` enlarges that
array (doubling, or as much as the budget allows) or, for the arena of
waiting children, first compacts it.  The bytes counted are those of the
arrays themselves (:meth:`State.nbytes`), so the memory limit is a property
of the search, the same on every run, whatever else the process holds.
"""

from __future__ import annotations

import numpy as np

from rulekit.corels import _kernels as kr
from rulekit._tolerances import INT32_MAX

#: Arena entries (waiting children) never exceed int32 offsets.
_MAX_ARENA = INT32_MAX


class MemoryBudgetError(Exception):
    """The arrays cannot grow: the memory budget is spent."""


class State:
    """The arrays the kernel works on, plus their growth rules.

    Parameters
    ----------
    m : int
        Number of antecedents (an expansion stores at most ``m`` children).
    wm : int
        Words of an antecedent mask (rejection propagation).
    sym : int
        Symmetry-aware map in use (``kr.SYM_*``).
    budget : int or None
        Bytes the arrays may take in all; None for no limit (the caller
        checks that the initial arrays fit).
    """

    def __init__(self, m: int, wm: int, sym: int, budget: int | None):
        self.m = m
        self.budget = budget
        self.nodes = np.zeros((1024, kr.N_COLS), dtype=np.int32)
        self.nlb = np.zeros(1024, dtype=np.float64)
        self.free = np.zeros(1024, dtype=np.int32)
        self.hkey = np.zeros(1024, dtype=np.float64)
        self.hseq = np.zeros(1024, dtype=np.int64)
        self.hnode = np.zeros(1024, dtype=np.int32)
        mcap = 2048 if sym != kr.SYM_NONE else 2
        self.mhash = np.zeros(mcap, dtype=np.uint64)
        self.mnode = np.full(mcap, -1, dtype=np.int32)
        self.pool = np.zeros((64, wm), dtype=np.uint64)
        self.pool_free = np.zeros(64, dtype=np.int32)
        acap = max(2 * m, 1024)
        self.dkey = np.zeros(acap, dtype=np.float32)
        self.dlb = np.zeros(acap, dtype=np.float32)
        self.dante = np.zeros(acap, dtype=np.int32)
        self.S = np.zeros(kr.N_S, dtype=np.int64)
        self.F = np.zeros(kr.N_F, dtype=np.float64)

    def arrays(self) -> tuple:
        """The tuple the kernels unpack (rebuilt after every growth)."""
        return (self.nodes, self.nlb, self.free, self.hkey, self.hseq, self.hnode, self.mhash,
                self.mnode, self.pool, self.pool_free, self.dkey, self.dlb, self.dante)

    def nbytes(self) -> int:
        """Bytes the search state takes (what ``max_memory`` limits)."""
        return sum(a.nbytes for a in self.arrays()) + self.S.nbytes + self.F.nbytes

    def _fits(self, extra: int) -> bool:
        return self.budget is None or self.nbytes() + extra <= self.budget

    def _new_size(self, cap: int, need: int, per_item: int, limit: int = _MAX_ARENA) -> int:
        """Doubled capacity, or the largest that fits the budget; raise if ``need`` does not."""
        want = min(2 * cap, limit)
        if self.budget is not None:
            room = (self.budget - self.nbytes()) // per_item
            want = min(want, cap + room)
        if want < need:
            raise MemoryBudgetError
        return want

    def grow(self, code: int) -> None:
        """Make the room a kernel asked for (``kr.R_GROW_*``)."""
        S = self.S
        if code == kr.R_GROW_NODES:
            cap = self.nodes.shape[0]
            new = self._new_size(cap, cap + 2, kr.N_COLS * 4 + 8 + 4)
            self.nodes = _extend(self.nodes, new)
            self.nlb = _extend(self.nlb, new)
            self.free = _extend(self.free, new)
        elif code == kr.R_GROW_HEAP:
            cap = self.hkey.shape[0]
            new = self._new_size(cap, cap + 2, 8 + 8 + 4)
            self.hkey, self.hseq, self.hnode = (_extend(a, new) for a in
                                                (self.hkey, self.hseq, self.hnode))
        elif code == kr.R_GROW_MAP:
            cap = self.mhash.shape[0]
            if not self._fits(cap * 12):
                raise MemoryBudgetError
            new_hash = np.zeros(2 * cap, dtype=np.uint64)
            new_node = np.full(2 * cap, -1, dtype=np.int32)
            kr.rehash(self.mhash, self.mnode, new_hash, new_node)
            self.mhash, self.mnode = new_hash, new_node
        elif code == kr.R_GROW_POOL:
            cap = self.pool.shape[0]
            new = self._new_size(cap, cap + 1, self.pool.shape[1] * 8 + 4)
            self.pool = _extend(self.pool, new)
            self.pool_free = _extend(self.pool_free, new)
        elif code == kr.R_GROW_ARENA:
            self._grow_arena()
        else:  # pragma: no cover - kernel contract
            raise RuntimeError(f"unknown kernel request {code}")

    def _grow_arena(self) -> None:
        S, cap = self.S, self.dkey.shape[0]
        garbage = int(S[kr.S_ATOP] - S[kr.S_WAITING])
        # compact when half is garbage, or when growing is not possible
        if garbage >= cap // 2 or (garbage >= self.m and not self._fits(cap * 12)):
            kr.compact_arena(self.nodes, self.hnode, S, self.dkey, self.dlb, self.dante)
            if cap - S[kr.S_ATOP] >= self.m:
                return
        need = int(S[kr.S_ATOP]) + self.m
        new = self._new_size(cap, need, 12, _MAX_ARENA)
        self.dkey, self.dlb, self.dante = (_extend(a, new) for a in
                                           (self.dkey, self.dlb, self.dante))


def _extend(a: np.ndarray, new: int) -> np.ndarray:
    out = np.zeros((new,) + a.shape[1:], dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


def workspace(m: int, w: int, wm: int, n_classes: int) -> tuple:
    """Scratch arrays of one expansion, in the order the kernels unpack them."""
    c = n_classes
    g = c if c <= kr.MAX_GAIN_CLASSES else 1
    return (
        np.zeros(m + 1, np.int64),  # path
        np.zeros(m + 1, np.int64),  # epath
        np.zeros(m, np.bool_),  # inpfx
        np.zeros(w, np.uint64),  # u: samples not captured
        np.zeros(w, np.uint64),  # fbuf
        np.zeros(w, np.uint64),  # tmpw
        np.zeros(8, np.int64),  # acc: packed counts
        np.zeros(wm, np.uint64),  # pmask: rejected antecedents
        np.zeros((m + 1, c + 3), np.int64),  # tv: counts per antecedent (+ one scratch row)
        np.zeros(m, np.int64),  # tlist: antecedents evaluated
        np.zeros(c + 3, np.int64),  # ucnt: counts of the uncaptured samples
        np.zeros(m, np.float64),  # skey
        np.zeros(m, np.float64),  # slb
        np.zeros(m, np.int64),  # sante
        np.zeros((g, g, kr.N_BUCKETS), np.float64),  # gpre: next-rule gain tables
        np.zeros((g, g, kr.N_BUCKETS), np.float64),  # gsuf
        np.zeros(c, np.int64),  # gtop
        np.zeros(c, np.int64),  # umd
        np.zeros(m, np.int64),  # order of the survivors
        np.zeros(m, np.int64),  # clist: children that pass the cheap bounds
        np.zeros(m, np.int64),  # tpk: packed counts per antecedent (one-word case)
        np.zeros(w, np.uint64),  # capw: samples the last rule of the prefix captures
        np.zeros(c + 3, np.int64),  # row: counts of one set (exact next-rule excess)
        np.zeros((g, m), np.int64),  # gord: antecedents by decreasing M_d(U & t)
        np.zeros((g, m), np.int64),  # gkey: caps of M_d(U & t) along gord
        np.zeros(w, np.uint64),  # xbuf: the set a bit-plane count reads
    )


def compile_growth_kernels() -> None:
    """Compile the kernels a search calls only when its tables grow.

    A small fit never fills the permutation map nor its arena, so ``rulekit
    compile`` and the build (``rulekit/_precompile.py``) call this to have
    :func:`~rulekit.corels._kernels.rehash` and
    :func:`~rulekit.corels._kernels.compact_arena` in numba's cache too (an
    empty map and an empty arena: nothing moves).
    """
    empty = np.full(1, -1, dtype=np.int32)
    kr.rehash(np.zeros(1, dtype=np.uint64), empty, np.zeros(1, dtype=np.uint64), empty.copy())
    # nor its arena: compacting an empty state moves nothing
    st = State(1, 1, kr.SYM_NONE, None)
    kr.compact_arena(st.nodes, st.hnode, st.S, st.dkey, st.dlb, st.dante)
