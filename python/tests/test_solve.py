import random
import threading
import time

import numpy as np
import pytest

import ssum


def check_answer(weights, target, solution, expected):
    """The verdict, the certificate and the count against the brute force's subsets."""
    assert solution.status == ("feasible" if expected else "infeasible")
    assert solution.feasible is bool(expected)
    if expected:
        assert solution.subset == sorted(solution.subset)
        assert len(set(solution.subset)) == len(solution.subset)
        assert sum(weights[i] for i in solution.subset) == (0 if target is None else target)
        if target is None:
            assert solution.subset
    else:
        assert solution.subset == []


@pytest.mark.parametrize("seed", range(40))
def test_small_signed_instances_against_brute_force(brute, seed):
    rng = random.Random(seed)
    n = rng.randint(1, 12)
    weights = [rng.randint(-40, 40) for _ in range(n)]
    target = None if seed % 4 == 0 else rng.randint(-60, 60)
    expected = brute(weights, target)
    s = ssum.solve(weights, target, backend="cpu", count=True)
    check_answer(weights, target, s, expected)
    assert s.count == len(expected)
    assert isinstance(s.count, int)


@pytest.mark.parametrize("algorithm", ["auto", "two-list", "four-list", "dp"])
def test_each_exact_algorithm(brute, algorithm):
    rng = random.Random(7)
    for _ in range(10):
        weights = [rng.randint(1, 200) for _ in range(10)]
        target = rng.randint(1, 600)
        expected = brute(weights, target)
        try:
            s = ssum.solve(weights, target, backend="cpu", algorithm=algorithm, count=True)
        except ssum.BackendUnavailable:
            if algorithm == "dp":  # the dynamic program counts only through GMP
                pytest.skip("this ssum was built without GMP")
            raise
        check_answer(weights, target, s, expected)
        assert s.count == len(expected)


def test_without_count_count_is_none():
    s = ssum.solve([1, 2, 4, 8], 7)
    assert s.count is None
    assert s.subset == [0, 1, 2]
    assert s.feasible is True and bool(s)


def test_zero_sum_needs_a_non_empty_subset():
    s = ssum.solve([5, 7, 11])
    assert s.status == "infeasible" and s.feasible is False
    s = ssum.solve([5, -7, 2, 30])
    assert s.feasible and sum([5, -7, 2, 30][i] for i in s.subset) == 0 and s.subset


def test_empty_subset_answers_target_zero():
    s = ssum.solve([3, 5], 0, count=True)
    assert s.feasible and s.subset == [] and s.count == 1


def test_count_past_two_to_the_64():
    # Every zero weight doubles the count: 2 subsets of (1, 2, 3) sum to 3, times 2^70.
    weights = [0] * 70 + [1, 2, 3]
    s = ssum.solve(weights, 3, backend="cpu", count=True)
    assert s.count == 2 * 2**70
    # Zero-sum: every non-empty subset of the zeros.
    s = ssum.solve([0] * 70 + [4, 9], count=True)
    assert s.count == 2**70 - 1


def test_wide_weights_are_exact():
    rng = random.Random(3)
    weights = [rng.getrandbits(120) for _ in range(24)]
    chosen = rng.sample(range(24), 11)
    target = sum(weights[i] for i in chosen)
    assert target.bit_length() > 120
    s = ssum.solve(weights, target, backend="cpu")
    assert s.feasible
    assert sum(weights[i] for i in s.subset) == target


def test_wide_negative_weights_are_exact():
    rng = random.Random(4)
    weights = [rng.getrandbits(118) * rng.choice((-1, 1)) for _ in range(20)]
    target = sum(weights[i] for i in (1, 4, 9, 16))
    s = ssum.solve(weights, target, backend="cpu")
    assert s.feasible and sum(weights[i] for i in s.subset) == target


def test_a_127_bit_weight_is_taken():
    s = ssum.solve([2**126, 2**125, 1], 2**126 + 1)
    assert s.feasible and s.subset == [0, 2]


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
)
def test_numpy_weights_of_every_integer_dtype(brute, dtype):
    rng = np.random.default_rng(5)
    values = rng.integers(1, 100, size=12)
    weights = values.astype(dtype)
    target = int(values[[0, 3, 5, 8]].sum())
    s = ssum.solve(weights, target, count=True)
    expected = brute([int(v) for v in values], target)
    check_answer([int(v) for v in values], target, s, expected)
    assert s.count == len(expected)


def test_numpy_negative_and_strided_weights():
    weights = np.array([-5, 100, 7, 100, -2, 100, 9, 100], dtype=np.int64)[::2]  # -5, 7, -2, 9
    s = ssum.solve(weights, 14)
    assert s.feasible and sum(int(weights[i]) for i in s.subset) == 14


def test_uint64_above_two_to_the_63():
    big = np.array([2**63 + 5, 2**63 + 7, 3], dtype=np.uint64)
    s = ssum.solve(big, 2**64 + 12)
    assert s.feasible and s.subset == [0, 1]


def test_other_iterables_and_numpy_scalars():
    assert ssum.solve(range(1, 6), 9).feasible
    assert ssum.solve((np.int64(3), np.uint8(4)), 7).subset == [0, 1]
    assert ssum.solve(w for w in [1, 2, 3]).status == "infeasible"


def test_solution_fields_and_repr():
    s = ssum.solve([1, 2, 4, 8], 7, backend="cpu", count=True)
    assert s.backend == "cpu"
    assert isinstance(s.algorithm, str) and s.algorithm
    assert s.seconds >= 0
    text = repr(s)
    assert text.startswith("Solution(status='feasible', subset=[0, 1, 2]")
    assert "count=1" in text
    with pytest.raises(AttributeError):
        s.feasible = False


def test_time_limit_gives_unknown():
    weights, target = long_instance()
    s = ssum.solve(weights, target, backend="cpu", algorithm="four-list", threads=2, time_limit=0.2)
    assert s.status == "unknown"
    assert s.feasible is None
    assert s.subset == []


def test_generate():
    weights, target = ssum.generate("planted", 20, seed=2)
    assert len(weights) == 20 and all(isinstance(w, int) for w in weights)
    assert ssum.solve(weights, target).feasible
    weights, target = ssum.generate("zero-sum", 16, bits=100, seed=1)
    assert target is None
    assert max(abs(w) for w in weights).bit_length() > 64
    assert ssum.generate("random", 10, seed=4) == ssum.generate("random", 10, seed=4)
    assert "planted" in ssum.generator_classes()
    with pytest.raises(ValueError):
        ssum.generate("no-such-class", 10)


def long_instance():
    """A no-instance whose whole four-list search takes about 12 s on 2 host threads (the
    tests ask for 2 threads, so that many fast cores do not end it before the limit or the
    interrupt); the four-list looks at the cancel flag and the time limit often."""
    return ssum.generate("random", 56, seed=3)


def test_the_gil_is_released_during_a_solve(ticking):
    s, elapsed, ticks = ticking(
        lambda: ssum.solve(*long_instance(), backend="cpu", algorithm="four-list", threads=2, time_limit=1.0))
    assert s.status == "unknown"
    assert elapsed > 0.9
    # A thread blocked on the GIL would tick a handful of times, not hundreds.
    assert ticks > 100 * elapsed


def test_keyboard_interrupt_stops_a_solve():
    import _thread

    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    start = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            ssum.solve(*long_instance(), backend="cpu", algorithm="four-list", threads=2, time_limit=30)
    finally:
        timer.cancel()  # a solve that failed at once must not leave the interrupt to a later test
    elapsed = time.perf_counter() - start
    timer.join()
    assert elapsed < 1.3
    # The module still works after an interrupted solve.
    assert ssum.solve([1, 2, 3], 5).feasible
