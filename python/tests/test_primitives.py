import numpy as np
import pytest

import ssum

DTYPES = [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64]


def sample(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(0, 1000, size=n).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 100_000])
def test_scans(dtype, n):
    a = sample(dtype, n)
    inclusive = ssum.inclusive_scan(a)
    exclusive = ssum.exclusive_scan(a)
    assert inclusive.dtype == a.dtype and exclusive.dtype == a.dtype
    expected = np.cumsum(a, dtype=a.dtype)
    if np.issubdtype(dtype, np.floating):
        # The association differs from a sequential loop: equal up to rounding.
        assert np.allclose(inclusive, expected, rtol=1e-3, atol=1e-2)
    else:
        assert np.array_equal(inclusive, expected)
    if n:
        assert exclusive[0] == 0
        if np.issubdtype(dtype, np.floating):
            assert np.allclose(exclusive[1:], inclusive[:-1], rtol=1e-3, atol=1e-2)
        else:
            assert np.array_equal(exclusive[1:], inclusive[:-1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 5, 1000, 50_001])
def test_sort_returns_a_new_sorted_array(dtype, n):
    a = sample(dtype, n, seed=1)
    before = a.copy()
    result = ssum.sort(a)
    assert result.dtype == a.dtype
    assert np.array_equal(result, np.sort(a))
    assert np.array_equal(a, before)


def test_sort_puts_nans_last():
    result = ssum.sort(np.array([3.0, np.nan, -1.0, 2.0]))
    assert np.array_equal(result[:3], [-1.0, 2.0, 3.0]) and np.isnan(result[3])


@pytest.mark.parametrize("dtype", DTYPES)
def test_merge(dtype):
    a = np.sort(sample(dtype, 3000, seed=2))
    b = np.sort(sample(dtype, 70_000, seed=3))
    result = ssum.merge(a, b)
    assert result.dtype == a.dtype
    assert np.array_equal(result, np.sort(np.concatenate([a, b]), kind="stable"))
    assert np.array_equal(ssum.merge(a[:0], b), b)


def test_merge_refuses_unsorted_input():
    with pytest.raises(ValueError, match="not sorted"):
        ssum.merge(np.array([3, 1], dtype=np.int64), np.array([1, 2], dtype=np.int64))


def test_threads_argument():
    a = sample(np.int64, 10_000)
    assert np.array_equal(ssum.inclusive_scan(a, threads=1), np.cumsum(a))


def test_non_contiguous_input_is_copied():
    a = np.arange(20, dtype=np.int64)[::2]
    assert np.array_equal(ssum.inclusive_scan(a), np.cumsum(a))
