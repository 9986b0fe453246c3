"""ssum.explain and ssum.explain_rows: the plan's table, without solving, agreeing with what
ssum.solve and ssum.solve_rows then run."""
import random

import pytest

import ssum


def chosen(table):
    rows = [c for c in table["candidates"] if c["role"] == "chosen"]
    assert len(rows) <= 1
    return rows[0] if rows else None


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("count", [False, True])
def test_explain_names_what_solve_runs(seed, count):
    rng = random.Random(seed)
    n = rng.randrange(1, 34)
    weights = [rng.randrange(-(1 << 30), 1 << 30) for _ in range(n)]
    target = sum(w for w in weights if rng.random() < 0.5)
    # A memory limit below what is free: the room in the reasons does not move between the calls.
    table = ssum.explain(weights, target, count=count, backend="cpu", threads=2, memory=1 << 30)
    answer = ssum.solve(weights, target, count=count, backend="cpu", threads=2, memory=1 << 30)
    assert table["question"] == ("count" if count else "decide")
    # The plan's reason is the one the solve reports; what ran is the plan's algorithm.
    assert table["plan"]["reason"] == answer.reason
    assert table["plan"]["algorithm"] == answer.algorithm
    row = chosen(table)
    assert row is not None and row["algorithm"] == answer.algorithm and row["takes"]
    for c in table["candidates"]:
        assert set(c) == {"algorithm", "backend", "takes", "fits", "exact", "bytes", "seconds", "role", "why"}
        assert c["seconds"] is None or c["seconds"] >= 0


def test_decimal_amounts_are_explained_at_their_scale():
    table = ssum.explain(["1.50", "2.25", "3.00"], "3.75")
    assert table["plan"] is not None
    assert ssum.solve(["1.50", "2.25", "3.00"], "3.75").reason == table["plan"]["reason"]


def test_a_refused_instance_is_explained_not_raised():
    weights, target = ssum.generate("random", 120, bits=120, seed=5)
    table = ssum.explain(weights, target, backend="cpu")
    assert table["plan"] is None
    assert "no proof is possible" in table["refusal"]


@pytest.mark.parametrize(
    "call, error, name",
    [
        (lambda: ssum.explain([1, 2], 3, algorithm="x"), ValueError, "algorithm"),
        (lambda: ssum.explain([1, 2], 3, threads=-1), ValueError, "threads"),
        (lambda: ssum.explain([1, 2], 3, memory="lots"), TypeError, "memory"),
        (lambda: ssum.explain([1, 2], 3, count="yes"), TypeError, "count"),
        (lambda: ssum.explain([1, 2], 3, algorithm="completion", count=True), ValueError, "count"),
        (lambda: ssum.explain_rows([[1, 2]], [1, 2]), ValueError, "targets"),
    ],
)
def test_a_bad_argument_is_named(call, error, name):
    with pytest.raises(error, match=name):
        call()


def test_rows_table_ends_with_the_lattice_and_matches_solve_rows():
    rng = random.Random(4)
    rows = [[rng.randrange(0, 30) for _ in range(60)] for _ in range(2)]
    targets = [sum(r) // 2 for r in rows]
    table = ssum.explain_rows(rows, targets, count=True, threads=2)
    assert table["question"].startswith("rows: count")
    assert table["candidates"][-1]["algorithm"] == "lattice"
    assert not table["candidates"][-1]["takes"]  # it cannot count
    answer = ssum.solve_rows(rows, targets, count=True, threads=2)
    assert answer.algorithm == table["plan"]["algorithm"]
