"""ssum.solve_rows and ssum.read_rows: multi-row (market split) instances."""
import itertools
import json
import pathlib
import random
import threading
import time

import numpy as np
import pytest

import ssum

MARKETSPLIT = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "marketsplit"


def brute_rows(rows, targets):
    """Every subset of the columns (a sorted index tuple) meeting every row, by trying them all."""
    n = len(rows[0])
    columns = [tuple(row[j] for row in rows) for j in range(n)]
    goal = tuple(targets)
    found = []
    for size in range(n + 1):
        for subset in itertools.combinations(range(n), size):
            sums = [0] * len(rows)
            for j in subset:
                for i, a in enumerate(columns[j]):
                    sums[i] += a
            if tuple(sums) == goal:
                found.append(subset)
    return found


def meets_every_row(rows, targets, subset):
    return all(sum(row[j] for j in subset) == b for row, b in zip(rows, targets))


def check(rows, targets, s, expected):
    """The verdict, the certificate (checked here, row by row) and the count against brute force."""
    assert s.status == ("feasible" if expected else "infeasible")
    assert s.feasible is bool(expected)
    if expected:
        assert s.subset == sorted(set(s.subset))
        assert meets_every_row(rows, targets, s.subset)
        assert s.sums == list(targets)
    else:
        assert s.subset == [] and s.sums is None
    if s.count is not None:
        assert s.count == len(expected)


def random_instance(seed, planted):
    rng = random.Random(seed)
    m = rng.randint(2, 5)
    n = rng.randint(1, 14)
    low = -30 if seed % 3 == 0 else 0  # some instances with negative coefficients
    rows = [[rng.randint(low, 40) for _ in range(n)] for _ in range(m)]
    if planted:
        chosen = [j for j in range(n) if rng.random() < 0.5]
        targets = [sum(row[j] for j in chosen) for row in rows]
    else:
        targets = [rng.randint(0, 20 * n) for _ in range(m)]
    return rows, targets


@pytest.mark.parametrize("planted", [True, False], ids=["planted", "random-targets"])
@pytest.mark.parametrize("seed", range(20))
def test_small_instances_against_brute_force(seed, planted):
    rows, targets = random_instance(seed, planted)
    expected = brute_rows(rows, targets)
    s = ssum.solve_rows(rows, targets, backend="cpu", count=True)
    check(rows, targets, s, expected)
    assert s.method in ("fold", "bounds")
    assert s.rows_folded == len(rows)
    assert s.count == len(expected) and isinstance(s.count, int)
    # Without count the decision alone, the same verdict.
    d = ssum.solve_rows(rows, targets, backend="cpu")
    check(rows, targets, d, expected)
    assert d.count is None


def test_both_verdicts_occur_among_the_small_instances():
    verdicts = {bool(brute_rows(*random_instance(seed, planted))) for seed in range(20) for planted in (True, False)}
    assert verdicts == {True, False}


@pytest.mark.parametrize("algorithm", ["auto", "two-list", "four-list", "dp"])
def test_each_algorithm_on_the_fold(algorithm):
    rng = random.Random(11)
    for _ in range(6):
        rows = [[rng.randint(1, 30) for _ in range(10)] for _ in range(3)]
        chosen = rng.sample(range(10), 4)
        targets = [sum(row[j] for j in chosen) for row in rows]
        try:
            s = ssum.solve_rows(rows, targets, backend="cpu", algorithm=algorithm, count=True)
        except ssum.BackendUnavailable:
            if algorithm == "dp":  # the dynamic program counts only through GMP
                pytest.skip("this ssum was built without GMP")
            raise
        check(rows, targets, s, brute_rows(rows, targets))


def test_numpy_arrays_and_other_sequences():
    rows = [[3, 5, 7, 11, 13], [2, 4, 6, 8, 10]]
    targets = [16, 12]  # columns 1 and 3
    expected = brute_rows(rows, targets)
    assert (1, 3) in expected
    for r, t in [
        (np.array(rows), np.array(targets)),
        (np.array(rows, dtype=np.int8), targets),
        (np.array(rows, dtype=np.uint32), np.array(targets, dtype=np.uint64)),
        (np.array(rows, dtype=np.int64)[:, ::-1][:, ::-1], targets),  # a strided view
        (np.array(rows, dtype=object), targets),
        (tuple(tuple(row) for row in rows), tuple(targets)),
        ((row for row in rows), iter(targets)),
        ([np.array(row) for row in rows], [np.int64(t) for t in targets]),
    ]:
        s = ssum.solve_rows(r, t, backend="cpu", count=True)
        check(rows, targets, s, expected)


def test_the_answer_is_a_solution_with_the_rows_fields():
    s = ssum.solve_rows([[1, 2, 3, 4], [4, 3, 2, 1]], [5, 5], count=True)
    assert isinstance(s, ssum.RowsSolution) and isinstance(s, ssum.Solution)
    assert s and s.feasible and s.count == 2  # {0, 3} and {1, 2}
    assert s.method == "fold" and s.rows_folded == 2 and s.encoding_bits > 0
    assert s.checked == 0
    assert s.targets == [5, 5] and s.sums == [5, 5]
    assert s.target is None and s.sum is None  # one per row: targets, sums
    assert s.subsets == [s.subset]
    assert s.algorithm and s.backend in ("cpu", "cuda") and s.seconds >= 0
    assert repr(s).startswith("RowsSolution(status='feasible'") and "method='fold'" in repr(s)


def test_a_target_out_of_reach_is_answered_by_bounds():
    s = ssum.solve_rows([[1, 2, 3], [1, 1, 1]], [3, 4], count=True)
    assert s.status == "infeasible" and s.method == "bounds" and s.count == 0


def test_coefficients_past_two_to_the_64_fold_when_they_fit():
    rng = random.Random(5)
    # A row past 2^64 (about 70 bits of span) and one of about 45: the fold fits 127 bits.
    rows = [[rng.randrange(2**66, 2**67) for _ in range(12)], [rng.randrange(2**40, 2**41) for _ in range(12)]]
    chosen = [1, 4, 5, 9]
    targets = [sum(row[j] for j in chosen) for row in rows]
    s = ssum.solve_rows(rows, targets, backend="cpu", count=True)
    assert max(rows[0]).bit_length() > 64
    assert s.method == "fold" and s.encoding_bits <= 127
    check(rows, targets, s, brute_rows(rows, targets))


@pytest.mark.parametrize("planted", [True, False], ids=["planted", "off-by-one"])
def test_big_coefficients_go_through_fold_and_check(planted):
    rng = random.Random(8)
    # Two rows near 2^70: each folds alone, both together need about 148 bits.
    rows = [[rng.randrange(2**70, 2**71) for _ in range(12)] for _ in range(2)]
    chosen = [0, 3, 4, 8, 11]
    targets = [sum(row[j] for j in chosen) for row in rows]
    if not planted:
        targets[1] += 1
    expected = brute_rows(rows, targets)
    assert bool(expected) is planted
    s = ssum.solve_rows(rows, targets, backend="cpu", count=True)
    assert s.method == "fold and check"
    assert s.encoding_bits > 127 and s.rows_folded == 1
    check(rows, targets, s, expected)
    # The same from an object array of Python ints.
    s = ssum.solve_rows(np.array(rows, dtype=object), np.array(targets, dtype=object), backend="cpu")
    check(rows, targets, s, expected)


def test_six_rows_near_two_to_the_26_fold_part_and_check_the_rest():
    rng = random.Random(26)
    rows = [[rng.randrange(2**26 - 2**20, 2**26) for _ in range(12)] for _ in range(6)]
    chosen = [2, 3, 5, 7, 10]
    targets = [sum(row[j] for j in chosen) for row in rows]
    expected = brute_rows(rows, targets)
    s = ssum.solve_rows(rows, targets, backend="cpu", count=True)
    assert s.method == "fold and check"
    assert s.encoding_bits > 127 and 1 <= s.rows_folded < 6
    assert s.checked >= 1
    check(rows, targets, s, expected)
    assert s.count == len(expected) >= 1
    # The host checks the rows past the fold: the device cannot be asked for them.
    with pytest.raises(ssum.BackendUnavailable):
        ssum.solve_rows(rows, targets, backend="cuda")


def read_dat(path):
    """The .dat form, parsed here independently of ssum."""
    lines = [line.split("#")[0].replace(",", " ").split() for line in path.read_text().splitlines()]
    lines = [line for line in lines if line]
    m, n = map(int, lines[0])
    rows = [list(map(int, line[:n])) for line in lines[1 : m + 1]]
    targets = [int(line[n]) for line in lines[1 : m + 1]]
    return rows, targets


def test_qoblib_instance_read_and_solved():
    path = MARKETSPLIT / "ms_04_050_001.dat"
    rows, targets = ssum.read_rows(path)
    assert (rows, targets) == read_dat(path)
    assert len(rows) == 4 and all(len(row) == len(rows[0]) for row in rows)
    known = [j for j, x in enumerate((MARKETSPLIT / "ms_04_050_001.opt.sol").read_text().split()) if x == "1"]
    assert meets_every_row(rows, targets, known)
    s = ssum.solve_rows(rows, targets)
    assert s.status == "feasible"
    assert meets_every_row(rows, targets, s.subset)
    assert s.sums == targets and s.rows_folded == 4
    assert ssum.read_rows(str(path)) == (rows, targets)


def test_read_rows_json_and_errors(tmp_path):
    path = tmp_path / "rows.json"
    path.write_text(json.dumps({"rows": [[1, 2, 3], [str(2**100), "-5", "7"]], "targets": [3, str(2**100 + 2)]}))
    rows, targets = ssum.read_rows(path)
    assert rows == [[1, 2, 3], [2**100, -5, 7]] and targets == [3, 2**100 + 2]
    s = ssum.solve_rows(rows, targets, count=True)
    check(rows, targets, s, brute_rows(rows, targets))
    with pytest.raises(FileNotFoundError):
        ssum.read_rows(tmp_path / "missing.dat")
    bad = tmp_path / "bad.dat"
    bad.write_text("2 3\n1 2 3 4\n5 6 7\n")
    with pytest.raises(ValueError, match="line 3"):
        ssum.read_rows(bad)


@pytest.mark.parametrize(
    "rows, targets, error, match",
    [
        ([], [], ValueError, "at least one row"),
        (np.zeros((0, 3), dtype=np.int64), [], ValueError, "at least one row"),
        ([[1, 2, 3], [4, 5]], [1, 2], ValueError, r"rows\[1\] has 2 coefficients where rows\[0\] has 3"),
        ([[1, 2], [3, 4]], [1, 2, 3], ValueError, "targets has 3 values for 2 rows"),
        ([[1, 2], [3, 4]], [1], ValueError, "targets has 1 value for 2 rows"),
        ([1, 2, 3], [6], TypeError, r"rows\[0\] \(int\) is not a row"),
        ([[1, 2.0]], [1], TypeError, r"rows\[0\]\[1\] must be an integer, not float: a float is not exact"),
        ([[1, 2]], [1.5], TypeError, r"targets\[0\] must be an integer, not float"),
        ([[1, "2"]], [1], TypeError, r"rows\[0\]\[1\] must be an integer, not str"),
        (np.array([[1.0, 2.0]]), [1], TypeError, "not of dtype float64"),
        (np.array([1, 2]), [1], ValueError, "2-D array"),
        (np.zeros((2, 2, 2), dtype=np.int64), [1, 2], ValueError, "3 dimensions"),
        ("12", [1, 2], TypeError, "not str"),
        (5, [1], TypeError, "not int"),
        ([[1, 2]], 3, TypeError, "targets must be a sequence"),
        ([[1, 2**127]], [1], ValueError, r"rows\[0\]\[1\] needs 128 bits or more"),
        ([[2**126, 2**126]], [1], ValueError, r"rows\[0\]: its coefficients' absolute values add up to 2\^127"),
        ([[1, 2]], [2**127], ValueError, r"targets\[0\] needs 128 bits"),
        ([[1]] * 65, [1] * 65, ValueError, "at most 64"),
    ],
)
def test_bad_inputs(rows, targets, error, match):
    with pytest.raises(error, match=match):
        ssum.solve_rows(rows, targets)


def test_bad_options():
    rows, targets = [[1, 2], [3, 4]], [1, 3]
    with pytest.raises(ValueError, match="backend"):
        ssum.solve_rows(rows, targets, backend="gpu")
    with pytest.raises(ValueError, match="algorithm"):
        ssum.solve_rows(rows, targets, algorithm="magic")
    with pytest.raises(ValueError, match="threads"):
        ssum.solve_rows(rows, targets, threads=0)
    with pytest.raises(TypeError, match="count"):
        ssum.solve_rows(rows, targets, count=1)
    with pytest.raises(TypeError):
        ssum.solve_rows(rows, targets, "cpu")  # options are keywords
    assert ssum.solve_rows(rows, targets, count=np.bool_(True), threads=1).count == 1


def long_rows():
    """One row that the four-list searches for about 12 s on 2 host threads (as test_solve's
    long instance): time for a time limit and an interrupt to act."""
    weights, target = ssum.generate("random", 56, seed=3)
    return [weights], [target]


def test_time_limit_and_the_gil_is_released(ticking):
    s, elapsed, ticks = ticking(
        lambda: ssum.solve_rows(*long_rows(), backend="cpu", algorithm="four-list", threads=2, time_limit=1.0))
    assert s.status == "unknown" and s.feasible is None
    assert elapsed > 0.9
    assert ticks > 100 * elapsed  # a thread blocked on the GIL would tick a handful of times


def test_keyboard_interrupt_stops_solve_rows():
    import _thread

    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    start = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            ssum.solve_rows(*long_rows(), backend="cpu", algorithm="four-list", threads=2, time_limit=30)
    finally:
        timer.cancel()  # a solve that failed at once must not leave the interrupt to a later test
    elapsed = time.perf_counter() - start
    timer.join()
    assert elapsed < 1.3
    assert ssum.solve_rows([[1, 2], [2, 1]], [3, 3]).feasible


@pytest.mark.parametrize("targets", [[0, 0], [0, 3]])
def test_rows_of_no_columns_as_read_from_a_file(tmp_path, targets):
    # read_rows reads an `m 0` file; solve_rows answers what it returns, as the program does.
    path = tmp_path / "n0.dat"
    path.write_text("2 0\n%d\n%d\n" % tuple(targets))
    rows, read_targets = ssum.read_rows(path)
    assert rows == [[], []] and read_targets == targets
    s = ssum.solve_rows(rows, read_targets, count=True)
    expected = brute_rows(rows, targets) if rows[0] else ([()] if all(t == 0 for t in targets) else [])
    assert s.feasible is bool(expected) and s.subset == [] and s.count == len(expected)
