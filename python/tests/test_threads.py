"""One ssum.solutions iterator used from several Python threads: at most one next() runs at a
time (a second raises ValueError, as a generator does), close() from another thread ends a
waiting next(), and Ctrl-C still reaches a waiting next(). Time bounds carry a wide margin:
the suite runs on loaded machines of two cores."""
import _thread
import random
import threading
import time

import pytest

import ssum


def slow_listing():
    """An iterator whose first subset takes far longer than any of these tests: 66 random
    weights of 90 bits, a target no subset is likely to meet (54 weights of 56 bits were all
    listed within a quarter second on 16 cores)."""
    weights, target = ssum.generate("random", 66, seed=3, bits=90)
    return ssum.solutions(weights, target)


def run_in_thread(call):
    """Starts call() on a daemon thread (a hang fails the test instead of the suite); returns
    the thread and a dict that gets 'result' or 'error', and 'seconds'."""
    out = {}

    def body():
        start = time.monotonic()
        try:
            out["result"] = call()
        except BaseException as e:  # noqa: BLE001 - the test inspects it
            out["error"] = e
        out["seconds"] = time.monotonic() - start

    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t, out


def check_subsets(subsets, weights, target):
    for s in subsets:
        assert s == sorted(set(s)), s
        assert all(0 <= i < len(weights) for i in s), s
        assert sum(weights[i] for i in s) == target, s



def run_threads(target, count):
    """Runs target on `count` daemon threads at once and waits for them (a minute at most)."""
    threads = [threading.Thread(target=target, daemon=True) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a thread is still running after a minute"

def test_second_concurrent_next_raises_and_close_ends_the_waiting_one():
    it = slow_listing()
    waiter, out = run_in_thread(lambda: next(it))
    time.sleep(0.3)  # the thread is now waiting inside next()
    assert waiter.is_alive()
    start = time.monotonic()
    with pytest.raises(ValueError, match="already executing"):
        next(it)
    assert time.monotonic() - start < 2.5
    start = time.monotonic()
    it.close()
    assert time.monotonic() - start < 2.5
    waiter.join(2.5)
    assert not waiter.is_alive(), "close() from another thread left next() waiting"
    assert isinstance(out.get("error"), StopIteration), out
    assert out["seconds"] < 0.3 + 2.5 + 2.5 + 1
    with pytest.raises(StopIteration):
        next(it)
    assert not it.complete
    # The module still answers afterwards.
    assert ssum.solve([1, 2, 4, 8], 7).subset == [0, 1, 2]


def test_close_from_a_thread_while_next_waits():
    it = slow_listing()
    timer = threading.Timer(0.3, it.close)
    timer.daemon = True
    waiter, out = run_in_thread(lambda: next(it))
    timer.start()
    waiter.join(0.3 + 2.5)
    timer.cancel()
    assert not waiter.is_alive(), "close() from another thread left next() waiting"
    assert isinstance(out.get("error"), StopIteration), out
    with pytest.raises(StopIteration):
        next(it)
    it.close()  # again: nothing to do


def test_ctrl_c_reaches_a_waiting_next():
    it = slow_listing()
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            next(it)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 0.3 + 2.5
    with pytest.raises(StopIteration):  # the interrupt cancelled the listing
        next(it)


def test_threads_sharing_one_iterator_get_every_subset_once():
    rng = random.Random(40)
    weights = [rng.randint(1, 100) for _ in range(40)]
    target, limit = 1030, 30000
    it = ssum.solutions(weights, target, limit=limit)
    got, errors, busy = [], [], [0]

    def eat():
        mine = []
        try:
            while True:
                try:
                    mine.append(next(it))
                except ValueError as e:
                    # Another thread is inside next(): the one way that may fail.
                    assert "already executing" in str(e)
                    busy[0] += 1
                    time.sleep(0)
                except StopIteration:
                    break
        except BaseException as e:  # noqa: BLE001
            errors.append(e)
        got.extend(mine)

    run_threads(eat, 3)
    assert errors == []
    check_subsets(got, weights, target)
    assert len(set(map(tuple, got))) == len(got) == limit
    assert it.listed == limit


def test_threads_taking_turns_share_one_iterator():
    rng = random.Random(7)
    weights = [rng.randint(1, 30) for _ in range(16)]
    target = sum(weights) // 2
    every = {
        tuple(i for i in range(len(weights)) if mask >> i & 1)
        for mask in range(1 << len(weights))
        if sum(weights[i] for i in range(len(weights)) if mask >> i & 1) == target
    }
    it = ssum.solutions(weights, target)
    turn = threading.Lock()
    got, errors = [], []

    def eat():
        try:
            while True:
                with turn:
                    s = next(it, None)
                if s is None:
                    return
                got.append(s)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    run_threads(eat, 4)
    assert errors == []
    check_subsets(got, weights, target)
    assert sorted(map(tuple, got)) == sorted(every)
    assert it.complete and it.listed == len(every)
