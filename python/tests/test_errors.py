import numpy as np
import pytest

import ssum


def test_exception_hierarchy():
    assert issubclass(ssum.InsufficientMemory, MemoryError)
    assert issubclass(ssum.BackendUnavailable, RuntimeError)
    assert issubclass(ssum.OutOfReach, RuntimeError)
    assert issubclass(ssum.CudaError, RuntimeError)


@pytest.mark.parametrize("bad", [1.5, None, [1]])
def test_a_weight_that_is_not_an_integer(bad):
    with pytest.raises(TypeError, match=r"weights\[2\]"):
        ssum.solve([1, 2, bad], 3)


@pytest.mark.parametrize("bad", ["abc", "1e3", "1,000.00", ""])
def test_a_weight_string_that_is_not_an_amount(bad):
    # Decimal strings ("3", "12.50") are amounts; anything else is refused, naming it.
    with pytest.raises((TypeError, ValueError)):
        ssum.solve([1, 2, bad], 3)


def test_weights_that_are_not_a_sequence():
    with pytest.raises(TypeError):
        ssum.solve(42, 3)


def test_a_128_bit_weight_names_its_index():
    with pytest.raises(ValueError, match=r"weights\[1\]"):
        ssum.solve([1, 2**127, 3], 4)
    with pytest.raises(ValueError, match=r"weights\[3\]"):
        ssum.solve([1, 2, 3, -(2**127)], 4)
    with pytest.raises(ValueError, match=r"weights\[0\]"):
        ssum.solve([2**200], 4)


def test_weights_whose_magnitudes_add_up_to_two_to_the_127():
    with pytest.raises(ValueError):
        ssum.solve([2**126, 2**126], 1)


def test_a_target_beyond_128_bits():
    with pytest.raises(ValueError, match="target"):
        ssum.solve([1, 2], 2**130)
    with pytest.raises(TypeError, match="target"):
        ssum.solve([1, 2], 2.0)


def test_float_and_2d_arrays():
    with pytest.raises(TypeError):
        ssum.solve(np.array([1.0, 2.0]), 3)
    with pytest.raises(ValueError, match="1-D"):
        ssum.solve(np.array([[1, 2], [3, 4]]), 3)
    with pytest.raises(TypeError):
        ssum.solve(np.array([True, False]), 1)


def test_insufficient_memory_names_the_bytes():
    weights, target = ssum.generate("random", 40, seed=1)
    with pytest.raises(ssum.InsufficientMemory, match=r"needs .*bytes|needs .*iB") as caught:
        ssum.solve(weights, target, backend="cpu", algorithm="two-list", memory=1024)
    assert caught.value.bytes_needed > 1024
    assert caught.value.bytes_available <= 1024
    assert isinstance(caught.value, MemoryError)


def test_cuda_without_a_device():
    # On a machine with a CUDA device this solves; without one (or without a CUDA build) it
    # raises BackendUnavailable.
    try:
        s = ssum.solve([1, 2, 4, 8], 7, backend="cuda")
    except ssum.BackendUnavailable as e:
        assert str(e)
    else:
        assert s.feasible and s.backend == "cuda"


@pytest.mark.parametrize(
    "arguments",
    [
        {"algorithm": "three-list"},
        {"backend": "tpu"},
        {"threads": 0},
        {"threads": 5000},
        {"memory": 0},
        {"memory": -5},
        {"time_limit": 0},
        {"time_limit": -1.0},
        {"time_limit": float("nan")},
    ],
)
def test_bad_arguments_are_value_errors(arguments):
    with pytest.raises(ValueError):
        ssum.solve([1, 2, 3], 3, **arguments)


ROWS, TARGETS = [[1, 2, 3], [3, 2, 1]], [3, 3]


@pytest.mark.parametrize(
    "call, error, name",
    [
        (lambda: ssum.solve_rows(ROWS, TARGETS, seed=-1), ValueError, "seed"),
        (lambda: ssum.solve_rows(ROWS, TARGETS, seed=2**64), ValueError, "seed"),
        (lambda: ssum.solve_rows(ROWS, TARGETS, memory=2**70), ValueError, "memory"),
        (lambda: ssum.solve_rows(ROWS, None), TypeError, "targets"),
        (lambda: ssum.solve_rows(None, TARGETS), TypeError, "rows"),
        (lambda: ssum.solve_rows(ROWS, TARGETS, threads=2**70), ValueError, "threads"),
        (lambda: ssum.solve_rows(ROWS, TARGETS, threads="2"), TypeError, "threads"),
        (lambda: ssum.solve_rows(ROWS, TARGETS, time_limit="1"), TypeError, "time_limit"),
        (lambda: ssum.solve_rows(ROWS, TARGETS, backend=3), TypeError, "backend"),
        (lambda: ssum.solve_rows(ROWS, TARGETS, algorithm=None), TypeError, "algorithm"),
        (lambda: ssum.solve([1, 2], 3, seed=-1), ValueError, "seed"),
        (lambda: ssum.solve([1, 2], 3, seed=1.5), TypeError, "seed"),
        (lambda: ssum.solve([1, 2], 3, memory=2**70), ValueError, "memory"),
        (lambda: ssum.solve([1, 2], 3, memory=1.5), TypeError, "memory"),
        (lambda: ssum.solve([1, 2], 3, threads=2**70), ValueError, "threads"),
        (lambda: ssum.solve([1, 2], 3, time_limit="x"), TypeError, "time_limit"),
        (lambda: ssum.solve([1, 2], 3, backend=None), TypeError, "backend"),
        (lambda: ssum.solve([1, 2], 3, items=1, memory=2**70), ValueError, "memory"),
        (lambda: ssum.solve([1, 2], 3, items=1, seed=-1), ValueError, "seed"),
        (lambda: ssum.solve([1, 2], 3, items="1"), TypeError, "items"),
        (lambda: ssum.solutions([1, 2], 3, memory=2**70), ValueError, "memory"),
        (lambda: ssum.solutions([1, 2], 3, time_limit="x"), TypeError, "time_limit"),
        (lambda: ssum.solutions([1, 2], 3, backend=3), TypeError, "backend"),
        (lambda: ssum.solutions([1, 2], 3, threads=1.0), TypeError, "threads"),
        (lambda: ssum.solutions([1, 2], 3, limit="5"), TypeError, "limit"),
        (lambda: ssum.solutions([1, 2], 3, min_items=None, max_items="2"), TypeError, "max_items"),
    ],
)
def test_a_bad_argument_is_named(call, error, name):
    with pytest.raises(error, match=name) as caught:
        call()
    assert "incompatible function arguments" not in str(caught.value)


def test_huge_bounds_mean_no_bound():
    # Beyond 2^64 items or subsets is no bound at all, not an error.
    every = [[0, 1], [2]]
    # In the order found, which depends on the threads: compared as sets.
    assert sorted(list(s) for s in ssum.solutions([1, 2, 3], 3, limit=2**70)) == every
    assert sorted(list(s) for s in ssum.solutions([1, 2, 3], 3, max_items=2**70)) == every
    assert list(ssum.solutions([1, 2, 3], 3, min_items=2**70)) == []
    assert ssum.solve([1, 2, 3], 3, max_items=2**70, count=True).count == 2
    assert ssum.solve_rows(ROWS, TARGETS, memory=2**40, seed=2**64 - 1).feasible is not None
