"""Exact subset sum on CPUs and GPUs.

``ssum.solve(weights, target)`` finds a subset of the weights that sums to the target, or
proves that none exists; ``ssum.solutions(weights, target)`` yields every such subset;
``ssum.solve_rows(rows, targets)`` answers several rows at once (market split). The
primitives (``inclusive_scan``, ``exclusive_scan``, ``sort``, ``merge``) take numpy arrays,
and CUDA device arrays (CuPy, PyTorch) through DLPack. See docs/python.md.
"""

import collections.abc as _abc
import decimal as _decimal
import operator as _operator
import os as _os

from . import _ssum
from ._ssum import (
    BackendUnavailable,
    CudaError,
    InsufficientMemory,
    OutOfReach,
    RowsSolution,
    Solution,
    __version__,
    exclusive_scan,
    explain_rows,
    generator_classes,
    inclusive_scan,
    Solutions,
    merge,
    solve_rows,
    sort,
)

# As `ssum gen -n`: the program stops at 2^20 items, whose text (about 42 MB at 127 bits) is
# what `ssum solve` reads at most.
_MAX_GENERATED_ITEMS = 1 << 20


def generate(cls, n, bits=None, seed=1):
    """An instance of a standard class (see generator_classes() and docs/instances.md): its
    weights (a list of ints) and its target (None for zero-sum classes). The defaults are
    those of ``ssum gen``, so that the same arguments give the same instance from both."""
    n = _operator.index(n)
    if not 0 <= n <= _MAX_GENERATED_ITEMS:
        raise ValueError(f"n must be from 0 to 2^20 = {_MAX_GENERATED_ITEMS} (the limit of ssum gen), not {n}")
    return _ssum.generate(cls, n, bits, seed)


# ---- decimal amounts ----------------------------------------------------------------------
# As the program reads them: [+-]digits[.digits] (either side of the point may be empty, not
# both), at most 18 decimals; the instance's scale is the most decimals of any amount, and every
# amount becomes an exact integer at that scale. Strings go through the program's own parser.
_MAX_DECIMALS = 18


def _is_amount(value):
    return isinstance(value, (str, _decimal.Decimal))


def _has_amounts(weights):
    """Whether the weights hold a Decimal or a string (only lists, tuples and object arrays can)."""
    if isinstance(weights, (list, tuple)) or getattr(getattr(weights, "dtype", None), "kind", None) == "O":
        return any(isinstance(w, (str, _decimal.Decimal)) for w in weights)
    return False


def _amount(value, what):
    """(m, d) with value = m / 10^d exactly, for an int, a Decimal or a decimal string."""
    if isinstance(value, float):
        raise TypeError(f"{what} must be an integer, a decimal.Decimal or a decimal string, not "
                        f"{type(value).__name__}: a float is not exact")
    if isinstance(value, str):
        return _ssum._amount(value, what)
    if isinstance(value, _decimal.Decimal):
        if not value.is_finite():
            raise ValueError(f"{what} must be a finite amount, not {value}")
        sign, digits, exponent = value.as_tuple()
        mantissa = int("".join(map(str, digits)) or "0")
        if sign:
            mantissa = -mantissa
        if exponent >= 0:
            if mantissa and exponent > 39:  # 10^39 is beyond 127 bits already
                raise ValueError(f"{what} needs 128 bits or more; ssum takes amounts below 2^127")
            return mantissa * 10**exponent, 0
        if -exponent > _MAX_DECIMALS:
            raise ValueError(f"{what} has {-exponent} decimals; ssum takes at most {_MAX_DECIMALS}")
        return mantissa, -exponent
    if not hasattr(type(value), "__index__"):
        raise TypeError(f"{what} must be an integer, a decimal.Decimal or a decimal string, not "
                        f"{type(value).__name__}")
    return _operator.index(value), 0


def _question(weights, target, items, min_items, max_items, target_range, tolerance):
    """The arguments of a listing, checked, as integers at one scale: (weights, target, high,
    min_items, max_items, decimals); high is None for the target alone, decimals None for
    integer input (whose weights are passed on as they are, arrays included)."""
    if items is not None and (min_items is not None or max_items is not None):
        raise ValueError("items=K is exactly K items: not with min_items or max_items")
    if target_range is not None and (target is not None or tolerance is not None):
        raise ValueError("target_range=(lo, hi) is the target: not with target or tolerance")
    if tolerance is not None and target is None:
        raise ValueError("tolerance=d is a window around the target: give a target")
    lo = hi = None
    if target_range is not None:
        try:
            lo, hi = target_range
        except (TypeError, ValueError):
            raise TypeError("target_range must be a pair (lo, hi)") from None
    scalars = {"target": target, "target_range[0]": lo, "target_range[1]": hi, "tolerance": tolerance}
    decimal = any(_is_amount(v) for v in scalars.values()) or _has_amounts(weights)
    scaled = {name: _amount(v, name) for name, v in scalars.items() if v is not None}
    decimals = max((d for _, d in scaled.values()), default=0)
    if decimal:
        pairs = [_amount(w, f"weights[{i}]") for i, w in enumerate(weights)]
        decimals = max([decimals] + [d for _, d in pairs])
        weights = [m * 10 ** (decimals - d) for m, d in pairs]
    value = {name: m * 10 ** (decimals - d) for name, (m, d) in scaled.items()}
    target, high = value.get("target"), None
    asked = target  # what Solution.target reports: None for target_range, the centre for tolerance
    if target_range is not None:
        target, high = value["target_range[0]"], value["target_range[1]"]
        if high < target:
            raise ValueError("target_range=(lo, hi): hi is below lo, so the window is empty")
    if tolerance is not None:
        d = value["tolerance"]
        if d < 0:
            raise ValueError(f"tolerance must be 0 or more, not {tolerance}")
        target, high = target - d, target + d
    if items is not None:
        min_items = max_items = _whole(items, "items")
    min_items = 0 if min_items is None else _whole(min_items, "min_items")
    max_items = None if max_items is None else _whole(max_items, "max_items")
    if min_items < 0 or (max_items is not None and max_items < 0):
        raise ValueError("items, min_items and max_items must be numbers of items, 0 or more")
    if max_items is not None and min_items > max_items:
        raise ValueError("min_items is above max_items: no subset has such a size")
    # No instance has 2^64 items: a larger bound asks the same as 2^64 - 1, which C++ takes.
    min_items = min(min_items, _MAX_COUNT)
    max_items = None if max_items is None else min(max_items, _MAX_COUNT)
    return weights, target, high, min_items, max_items, (decimals if decimal else None), asked


_MAX_COUNT = 2**64 - 1


def _whole(value, what):
    """An integer argument, with a TypeError that names it."""
    if isinstance(value, float) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    return _operator.index(value)


def _flag(value, what):
    if isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", None) == "b":
        return bool(value)
    raise TypeError(f"{what} must be True or False, not {type(value).__name__}")


def solve(weights, target=None, *, items=None, min_items=None, max_items=None, target_range=None,
          tolerance=None, unique=False, **options):
    """Finds a subset of ``weights`` summing to ``target`` (or within a window, of a number of
    items), or proves that none exists. See __init__.pyi and docs/python.md."""
    if isinstance(weights, _abc.Iterator):
        weights = list(weights)  # read once: a decimal instance is read a second time below
    unique = _flag(unique, "unique")
    if not unique and items is None and min_items is None and max_items is None and target_range is None \
            and tolerance is None:
        # Integer input goes straight to the compiled solve; decimal input is found by its
        # refusal, so that a large list of ints is never scanned in Python.
        try:
            return _ssum.solve(weights, target, **options)
        except TypeError:
            if not (_is_amount(target) or _has_amounts(weights)):
                raise
        weights, target, _, _, _, decimals, _ = _question(weights, target, None, None, None, None, None)
        return _ssum.solve(weights, target, _decimals=decimals, **options)
    if unique and options.get("count", False) is not False and _flag(options["count"], "count"):
        raise ValueError("unique=True looks for two subsets and count=True counts every one: ask for one of them")
    weights, target, high, min_items, max_items, decimals, asked = _question(
        weights, target, items, min_items, max_items, target_range, tolerance)
    return _ssum.solve(weights, target, _listing=True, _high=high, _min_items=min_items, _max_items=max_items,
                       _unique=unique, _decimals=decimals, _asked=asked, **options)


def solutions(weights, target=None, *, limit=None, items=None, min_items=None, max_items=None,
              target_range=None, tolerance=None, time_limit=None, memory=None, threads=None, backend="auto"):
    """An iterator over every subset of ``weights`` summing to ``target`` (or within a window,
    of a number of items), each a list of ascending indices. See __init__.pyi and
    docs/python.md."""
    if isinstance(weights, _abc.Iterator):
        weights = list(weights)
    if limit is not None:
        limit = _whole(limit, "limit")
        if limit < 1:
            raise ValueError(f"limit must be a number of subsets from 1 up, or None for every one, not {limit}")
        limit = min(limit, _MAX_COUNT)  # 2^64 or more subsets: every one, as far as anyone can wait
    weights, target, high, min_items, max_items, _, _ = _question(
        weights, target, items, min_items, max_items, target_range, tolerance)
    # time_limit, memory, threads and backend are checked in C++, with messages naming them.
    return _ssum._solutions(weights, target, high, min_items, max_items, limit or 0, time_limit, memory, threads,
                            backend)


def explain(weights, target=None, *, count=False, backend="auto", algorithm="auto", threads=None, memory=None):
    """The plan's table for ``solve(weights, target, ...)``, without solving: a dict with
    'question', 'items', 'threads', 'host_room', 'candidates' (each algorithm on each backend:
    'takes', 'fits', 'exact', 'bytes', 'seconds', 'role', 'why') and 'plan' (what the solve
    would run; None with 'refusal' where it would refuse the instance). See docs/planner.md."""
    if isinstance(weights, _abc.Iterator):
        weights = list(weights)
    options = dict(count=count, backend=backend, algorithm=algorithm, threads=threads, memory=memory)
    try:
        return _ssum._explain(weights, target, **options)
    except TypeError:
        if not (_is_amount(target) or _has_amounts(weights)):
            raise
    weights, target, _, _, _, _, _ = _question(weights, target, None, None, None, None, None)
    return _ssum._explain(weights, target, **options)


def read_rows(path):
    """A multi-row instance from a file (QOBLIB's market split .dat, or JSON {"rows": ...,
    "targets": ...}), as ``(rows, targets)``: a list of rows (lists of ints) and a list of
    ints, ready for :func:`solve_rows`. See __init__.pyi."""
    path = _os.fspath(path)
    if not isinstance(path, str):
        path = _os.fsdecode(path)
    if path != "-":
        # Opened here first, so that a missing file is Python's FileNotFoundError (an OSError),
        # not the ValueError that the reader's input errors become.
        open(path, "rb").close()
    return _ssum._read_rows(path)


__all__ = [
    "BackendUnavailable",
    "CudaError",
    "InsufficientMemory",
    "OutOfReach",
    "RowsSolution",
    "Solution",
    "__version__",
    "exclusive_scan",
    "explain",
    "explain_rows",
    "generate",
    "generator_classes",
    "inclusive_scan",
    "merge",
    "read_rows",
    "Solutions",
    "solutions",
    "solve",
    "solve_rows",
    "sort",
]
