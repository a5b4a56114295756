import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rulekit import bitset


bool_matrices = st.integers(0, 5).flatmap(
    lambda m: st.integers(0, 300).flatmap(lambda n: arrays(bool, (m, n)))
)


@given(bool_matrices)
@settings(max_examples=80, deadline=None)
def test_pack_unpack_round_trip_and_popcount(bits):
    words = bitset.pack(bits)
    n = bits.shape[1]
    assert words.dtype == np.uint64
    assert words.shape == (bits.shape[0], bitset.n_words(n))
    assert np.array_equal(bitset.unpack(words, n), bits)
    assert np.array_equal(bitset.popcount(words), bits.sum(axis=1))


@given(arrays(bool, st.integers(0, 200)), st.data())
@settings(max_examples=80, deadline=None)
def test_compiled_kernels_match_numpy(a, data):
    b = data.draw(arrays(bool, a.shape))
    c = data.draw(arrays(bool, a.shape))
    pa, pb, pc = bitset.pack(a), bitset.pack(b), bitset.pack(c)
    assert bitset.popcount_words(pa) == a.sum()
    assert bitset.count_and(pa, pb) == (a & b).sum()
    assert bitset.count_andnot(pa, pb) == (a & ~b).sum()
    assert bitset.count_and3(pa, pb, pc) == (a & b & c).sum()
    assert np.array_equal(bitset.unpack(bitset.and_(pa, pb), a.size), a & b)
    assert np.array_equal(bitset.unpack(bitset.andnot(pa, pb), a.size), a & ~b)


def test_bit_layout_is_sample_i_in_word_i_div_64():
    bits = np.zeros(130, dtype=bool)
    bits[[0, 63, 64, 129]] = True
    words = bitset.pack(bits)
    assert words.tolist() == [1 | (1 << 63), 1, 2]


def test_padding_bits_stay_zero():
    words = bitset.andnot(bitset.ones(70), bitset.pack(np.zeros(70, dtype=bool)))
    assert bitset.popcount(words) == 70
    assert int(words[1]) == (1 << 6) - 1


def test_popcount64_all_ones():
    assert bitset.popcount64(np.uint64(0xFFFFFFFFFFFFFFFF)) == 64


def test_bad_shapes():
    with pytest.raises(ValueError, match="1-D or 2-D"):
        bitset.pack(np.zeros((2, 2, 2), dtype=bool))
    with pytest.raises(ValueError, match="samples"):
        bitset.unpack(np.zeros(2, dtype=np.uint64), 200)
    with pytest.raises(ValueError, match="n_samples"):
        bitset.n_words(-1)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000])
def test_transposed_matrix_packs_as_its_copy(monkeypatch, n):
    """``pack(B.T)`` of a row-major B (rows x conditions), packed by the compiled
    kernel from COMPILED_PACK_CELLS cells on, equals the bits set one by one."""
    rng = np.random.default_rng(n)
    B = rng.random((n, 7)) < 0.4
    want = np.zeros((7, bitset.n_words(n)), dtype=np.uint64)
    for i, j in zip(*np.nonzero(B)):
        want[j, i // 64] |= np.uint64(1) << np.uint64(i % 64)
    for cells in (1 << 60, 1):        # numpy's packbits, then the kernel
        monkeypatch.setattr(bitset, "COMPILED_PACK_CELLS", cells)
        got = bitset.pack(B.T)
        assert got.dtype == np.uint64 and got.flags.c_contiguous
        assert np.array_equal(got, want)
        assert np.array_equal(bitset.unpack(got, n), B.T)


@pytest.mark.parametrize("n", [1, 63, 64, 200])
def test_row_bytes_pack_as_numpy_packbits(monkeypatch, n):
    """``pack_row_bytes(B, columns)`` is ``np.packbits(B[:, columns], axis=1)``,
    by numpy below COMPILED_PACK_CELLS cells and by the compiled loop from there."""
    rng = np.random.default_rng(n)
    B = rng.random((n, 19)) < 0.5
    columns = np.array([18, 0, 3, 4, 5, 7, 8, 9, 11, 2, 17])
    want = np.packbits(B[:, columns], axis=1)
    for cells in (1 << 60, 1):
        monkeypatch.setattr(bitset, "COMPILED_PACK_CELLS", cells)
        got = bitset.pack_row_bytes(B, columns)
        assert got.dtype == np.uint8 and np.array_equal(got, want)
