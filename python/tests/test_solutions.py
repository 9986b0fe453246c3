"""ssum.solutions and the listing questions of ssum.solve, against brute force; decimal amounts."""
import _thread
import itertools
import random
import threading
import time
from decimal import Decimal

import pytest

import ssum


def every_subset(weights, lo, hi=None, min_items=0, max_items=None, zero_sum=False):
    """Sorted index tuples whose sum lies in [lo, hi] and whose size in [min_items, max_items]."""
    hi = lo if hi is None else hi
    n = len(weights)
    top = n if max_items is None else min(max_items, n)
    found = []
    for size in range(max(min_items, 1 if zero_sum else 0), top + 1):
        for subset in itertools.combinations(range(n), size):
            if lo <= sum(weights[i] for i in subset) <= hi:
                found.append(subset)
    return sorted(found)


def listed(iterator):
    subsets = [tuple(s) for s in iterator]
    for s in subsets:
        assert list(s) == sorted(set(s))
    assert len(set(subsets)) == len(subsets), "a subset was listed twice"
    return sorted(subsets)


@pytest.mark.parametrize("seed", range(30))
def test_random_signed_weights(seed):
    rng = random.Random(seed)
    n = rng.randint(0, 14)
    weights = [rng.randint(-30, 30) for _ in range(n)]
    if seed % 5 == 0:
        it = ssum.solutions(weights)
        assert listed(it) == every_subset(weights, 0, zero_sum=True)
    else:
        target = rng.randint(-40, 40)
        it = ssum.solutions(weights, target)
        assert listed(it) == every_subset(weights, target)
    assert it.complete and not it.timed_out
    assert it.listed == len(every_subset(weights, 0 if seed % 5 == 0 else target, zero_sum=seed % 5 == 0))


@pytest.mark.parametrize("seed", range(20))
def test_windows_and_sizes(seed):
    rng = random.Random(100 + seed)
    n = rng.randint(1, 13)
    weights = [rng.randint(-20, 50) for _ in range(n)]
    lo = rng.randint(-20, 80)
    hi = lo + rng.randint(0, 15)
    assert listed(ssum.solutions(weights, target_range=(lo, hi))) == every_subset(weights, lo, hi)
    d = rng.randint(0, 5)
    assert listed(ssum.solutions(weights, lo, tolerance=d)) == every_subset(weights, lo - d, lo + d)
    k = rng.randint(0, n)
    assert listed(ssum.solutions(weights, lo, items=k)) == every_subset(weights, lo, lo, k, k)
    a, b = sorted(rng.sample(range(n + 1), 2)) if n >= 1 else (0, 0)
    assert listed(ssum.solutions(weights, target_range=(lo, hi), min_items=a, max_items=b)) == every_subset(
        weights, lo, hi, a, b)
    assert listed(ssum.solutions(weights, min_items=a)) == every_subset(weights, 0, 0, a, None, zero_sum=True)


def test_limit():
    weights = list(range(1, 15))
    every = every_subset(weights, 30)
    it = ssum.solutions(weights, 30, limit=5)
    got = listed(it)
    assert len(got) == 5 and set(got) <= set(every)
    assert it.listed == 5 and not it.complete
    it = ssum.solutions(weights, 30, limit=len(every) + 3)
    assert len(listed(it)) == len(every)
    assert it.complete


def test_early_close_releases_the_listing():
    weights = [random.Random(3).randint(1, 64) for _ in range(44)]
    target = sum(weights) // 2
    before = threading.active_count()
    for _ in range(3):
        for k, subset in enumerate(ssum.solutions(weights, target)):
            assert sum(weights[i] for i in subset) == target
            if k == 2:
                break
    it = ssum.solutions(weights, target)
    next(it)
    start = time.monotonic()
    it.close()
    assert time.monotonic() - start < 5
    with pytest.raises(StopIteration):
        next(it)
    it = ssum.solutions(weights, target)
    next(it)
    del it
    assert threading.active_count() == before
    assert ssum.solve([1, 2, 4, 8], 7).subset == [0, 1, 2]
    assert listed(ssum.solutions([1, 2, 3], 3)) == [(0, 1), (2,)]


def test_keyboard_interrupt_cancels_the_listing():
    rng = random.Random(5)
    weights = [rng.randint(1, 64) for _ in range(44)]
    target = sum(weights) // 2
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            for _ in ssum.solutions(weights, target):
                pass
    finally:
        timer.cancel()
    assert time.monotonic() - start < 10
    assert ssum.solve([3, 5, 7], 12).subset == [1, 2]


def test_other_threads_run_while_the_subsets_are_taken():
    # next() must not take the GIL back at once after each small batch: another Python thread
    # would wait for it as long as the listing lasts.
    rng = random.Random(5)
    weights = [rng.randint(1, 64) for _ in range(44)]
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        end = time.monotonic() + 1.5
        with ssum.solutions(weights, sum(weights) // 2) as it:
            for _ in it:
                if time.monotonic() > end:
                    break
    finally:
        stop.set()
        ticker.join()
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert len(ticks) > 10 and max(gaps) < 0.5, (len(ticks), max(gaps, default=None))


def test_exceptions_propagate_at_next():
    it = ssum.solutions(list(range(1, 41)), 100, memory=1, backend="cpu")
    with pytest.raises(ssum.InsufficientMemory):
        next(it)
    with pytest.raises(ssum.InsufficientMemory):
        ssum.solve(list(range(1, 41)), 100, items=3, memory=1)
    with pytest.raises(ValueError):
        ssum.solutions([1, 2], 3, target_range=(1, 2))
    with pytest.raises(ValueError):
        ssum.solutions([1, 2], 3, items=1, min_items=1)
    with pytest.raises(ValueError):
        ssum.solutions([1, 2], limit=0)
    with pytest.raises(ValueError):
        ssum.solve([1, 2], 3, unique=True, count=True)
    with pytest.raises(ValueError, match="completion"):
        ssum.solve([1, 2], 3, items=2, algorithm="completion")


def test_each_enumerator_answers_a_question_over_sizes():
    weights = [3, 5, 7, 11, 13, 2, 8]
    want = sorted(c for k in range(len(weights) + 1) for c in itertools.combinations(range(len(weights)), k)
                  if len(c) == 3 and sum(weights[i] for i in c) == 21)
    for algorithm in ("auto", "two-list", "four-list", "dp"):
        s = ssum.solve(weights, 21, items=3, count=True, algorithm=algorithm)
        assert s.count == len(want), algorithm
        assert tuple(s.subset) in want, algorithm


def test_solve_over_windows_and_sizes():
    weights = [3, 5, 7, 11, 13]
    s = ssum.solve(weights, target_range=(19, 20))
    assert s.feasible and 19 <= s.sum <= 20 and s.window == (19, 20)
    assert ssum.solve(weights, target_range=(19, 20), count=True).count == len(every_subset(weights, 19, 20))
    assert ssum.solve(weights, 15, items=2).feasible is False  # 3 + 5 + 7 has three
    assert ssum.solve(weights, 16, items=2).subset in ([0, 4], [1, 3])
    s = ssum.solve(weights, 15, items=3)
    assert s.feasible and len(s.subset) == 3 and s.sum == 15
    s = ssum.solve(weights, 2, tolerance=0)
    assert s.feasible is False and s.status == "infeasible" and s.subset == [] and s.sum is None
    s = ssum.solve(weights, 17, max_items=2, count=True)
    assert s.count == len(every_subset(weights, 17, 17, 0, 2))


def test_unique_three_answers():
    none = ssum.solve([2, 4, 6], 5, unique=True)
    assert none.unique == "none" and none.subsets == [] and not none
    one = ssum.solve([2, 4, 7], 6, unique=True)
    assert one.unique == "unique" and one.subsets == [[0, 1]] and one.subset == [0, 1]
    several = ssum.solve([1, 2, 3], 3, unique=True)
    assert several.unique == "several" and len(several.subsets) == 2
    assert sorted(map(tuple, several.subsets)) == [(0, 1), (2,)]
    assert "unique='several'" in repr(several)
    assert ssum.solve([1, 2, 3], 3).unique is None


@pytest.mark.parametrize("seed", range(10))
def test_decimal_amounts(seed):
    rng = random.Random(200 + seed)
    n = rng.randint(1, 12)
    weights = [Decimal(rng.randint(-5000, 5000)).scaleb(-rng.randint(0, 3)) for _ in range(n)]
    pick = [w for w in weights if rng.random() < 0.5]
    target = sum(pick, Decimal(0))
    expected = sorted(s for size in range(n + 1) for s in itertools.combinations(range(n), size)
                      if sum((weights[i] for i in s), Decimal(0)) == target)
    assert listed(ssum.solutions(weights, target)) == expected
    as_text = [str(w) for w in weights]
    assert listed(ssum.solutions(as_text, str(target))) == expected
    s = ssum.solve(weights, target, count=True)
    assert s.feasible and s.count == len(expected)
    assert isinstance(s.target, Decimal) and s.target == target
    assert sum((weights[i] for i in s.subset), Decimal(0)) == target and s.sum == target


def test_decimal_windows_and_invoice_matching():
    invoices = ["1200.00", "349.99", "75.50", "980.25", "15.01"]
    payment = Decimal("1625.49")
    s = ssum.solve(invoices, payment)
    assert s.subset == [0, 1, 2] and s.target == payment and s.decimals == 2
    s = ssum.solve(invoices, "1625.50", tolerance="0.01", unique=True)
    assert s.unique == "unique" and s.sum == Decimal("1625.49") and s.window == (Decimal("1625.49"), Decimal("1625.51"))
    got = listed(ssum.solutions([Decimal("0.1"), Decimal("0.2"), 3, "0.30"], target_range=("0.3", "0.3")))
    assert got == [(0, 1), (3,)]
    assert ssum.solve([1, 2, 3], Decimal("3")).target == Decimal(3)
    assert ssum.solve([1, 2, 3], 3).target == 3 and ssum.solve([1, 2, 3], 3).decimals == 0


def test_floats_and_bad_amounts_are_refused():
    with pytest.raises(TypeError, match="float is not exact"):
        ssum.solve([1.5, 2], 2)
    with pytest.raises(TypeError, match="float is not exact"):
        ssum.solve([1, 2], 2.0)
    with pytest.raises(TypeError, match="float is not exact"):
        ssum.solve([Decimal("1.5"), 2.5], 4)
    with pytest.raises(TypeError, match="float is not exact"):
        ssum.solutions([1, 2], 3, tolerance=0.5)
    with pytest.raises(ValueError, match="not a decimal amount"):
        ssum.solve(["1.5", "abc"], 1)
    with pytest.raises(ValueError, match="decimals"):
        ssum.solve([Decimal("1e-19"), 1], 1)
    with pytest.raises(ValueError, match="finite"):
        ssum.solve([Decimal("NaN"), 1], 1)


try:
    from hypothesis import given
    from hypothesis import strategies as st
except ImportError:
    given = None

if given is not None:

    @given(st.lists(st.integers(-50, 50), max_size=10), st.integers(-60, 60), st.integers(0, 6))
    def test_property_window_listing(weights, lo, width):
        assert listed(ssum.solutions(weights, target_range=(lo, lo + width))) == every_subset(weights, lo, lo + width)


def test_window_solutions_report_the_target_asked():
    # tolerance: the target is the one asked, the window around it.
    s = ssum.solve([1, 2, 3, 4], 5, tolerance=1)
    assert s.feasible and s.target == 5 and s.window == (4, 6) and 4 <= s.sum <= 6
    assert sum([1, 2, 3, 4][i] for i in s.subset) == s.sum
    s = ssum.solve(["1.00", "2.00"], "3.00", tolerance="0.50")
    assert s.target == Decimal("3.00") and s.window == (Decimal("2.50"), Decimal("3.50")) and s.sum == Decimal("3.00")
    # target_range asks no target: the window says what was asked.
    s = ssum.solve([1, 2, 3, 4], target_range=(4, 6))
    assert s.feasible and s.target is None and s.window == (4, 6) and 4 <= s.sum <= 6
    s = ssum.solve([1, 2, 3, 4], target_range=(50, 60), count=True)
    assert s.feasible is False and s.count == 0 and s.target is None and s.window == (50, 60)
    # Sizes alone keep the target and have no window.
    s = ssum.solve([1, 2, 3], 3, items=1)
    assert s.subset == [2] and s.target == 3 and s.window is None


@pytest.mark.parametrize(
    "text, value", [(".5", Decimal("0.5")), ("1.", Decimal(1)), ("-.5", Decimal("-0.5")), ("+.25", Decimal("0.25"))]
)
def test_decimal_strings_as_the_program_reads_them(text, value):
    # [+-]digits[.digits] where either side of the point may be empty, not both.
    weights = [text, "1", "0.75"]
    target = value + Decimal("0.75")
    s = ssum.solve(weights, target)
    assert s.feasible and s.sum == target
    assert sum((Decimal(weights[i]) for i in s.subset), Decimal(0)) == target
    got = listed(ssum.solutions(weights, str(target)))
    assert (0, 2) in got
    for subset in got:
        assert sum((Decimal(weights[i]) for i in subset), Decimal(0)) == target


@pytest.mark.parametrize("text", [".", "-.", "+", "", "1.2.3", " 1", "1 ", "--1", ".e5", "1e3", "1,000.00"])
def test_strings_that_are_not_amounts(text):
    with pytest.raises(ValueError, match=r"weights\[1\]"):
        ssum.solve(["1", text], 1)


def test_the_gpu_lists_what_the_host_lists():
    # backend="cuda": the meet in the middle on the device, the same subsets in the host's
    # order; without a device (or a CUDA build) the listing is refused by next().
    rng = random.Random(8)
    weights = [rng.randint(-300, 1000) for _ in range(26)]
    target = sum(weights) // 3
    host = [tuple(s) for s in ssum.solutions(weights, target, backend="cpu")]
    try:
        it = ssum.solutions(weights, target, backend="cuda")
        device = [tuple(s) for s in it]
    except ssum.BackendUnavailable:
        return
    assert sorted(device) == sorted(host) and len(host) > 0
    for s in device:
        assert sum(weights[i] for i in s) == target
    assert it.complete
