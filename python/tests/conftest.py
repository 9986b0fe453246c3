import itertools
import os
import threading
import time

import pytest

try:
    from hypothesis import settings
except ImportError:  # test_properties.py then skips itself
    settings = None

if settings is not None:
    # "ci", the default: the same examples on every run, so that a failure is reproducible and
    # a pass means the same thing everywhere. HYPOTHESIS_PROFILE=explore draws new ones each run.
    settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
    settings.register_profile("explore", database=None, deadline=None, print_blob=True)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def brute_force(weights, target):
    """Every subset (as a sorted index tuple) summing to target; for target None the non-empty
    subsets summing to zero."""
    wanted = 0 if target is None else target
    found = []
    n = len(weights)
    for size in range(0 if target is not None else 1, n + 1):
        for subset in itertools.combinations(range(n), size):
            if sum(weights[i] for i in subset) == wanted:
                found.append(subset)
    return found


@pytest.fixture
def brute():
    return brute_force


def ticks_while(call):
    """Runs call() while another thread ticks every millisecond: (its result, seconds, ticks).
    A solve that holds the GIL lets the ticker run a handful of times, not hundreds."""
    ticks = 0
    stop = threading.Event()

    def count_ticks():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count_ticks)
    counter.start()
    start = time.perf_counter()
    try:
        result = call()
    finally:
        elapsed = time.perf_counter() - start
        stop.set()
        counter.join()
    return result, elapsed, ticks


@pytest.fixture
def ticking():
    return ticks_while


def pytest_report_header(config):
    """Where the solver's free host memory was read from: a plan refused for want of memory
    on some machine shows why in the run's header."""
    import ssum

    return "ssum host memory: " + ssum._ssum._host_memory_report()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that fails for want of memory also shows what the free host memory was read
    from at that moment."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None and call.excinfo.errisinstance(MemoryError):
        import ssum

        report.sections.append(("ssum host memory", ssum._ssum._host_memory_report()))
