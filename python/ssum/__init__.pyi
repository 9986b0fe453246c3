"""Exact subset sum on CPUs and GPUs."""

import os
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any, Dict, Literal, Optional, Protocol, SupportsIndex, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

_Backend = Literal["auto", "cpu", "cuda"]
_Algorithm = Literal["auto", "two-list", "four-list", "dp", "completion"]
_Weights = Union[
    Iterable[Union[SupportsIndex, Decimal, str]], npt.NDArray[np.integer], npt.NDArray[np.object_]
]
# An int, a decimal.Decimal or a decimal string such as "1234.56" (never a float: not exact).
_Amount = Union[SupportsIndex, Decimal, str]
_Number = Union[int, Decimal]
_Primitive = TypeVar(
    "_Primitive", np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64
)

class _DLPackArray(Protocol):
    """An array that exports itself through DLPack (a CuPy array, a PyTorch tensor, ...)."""

    def __dlpack__(self, *, stream: Any = ...) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

# A 1-D contiguous CUDA device array of int32, int64, uint32, uint64, float32 or float64. The
# result is of the input's kind for CuPy and PyTorch; for other producers it is nanobind's
# ndarray, which has __dlpack__ and __dlpack_device__.
_DeviceArray = TypeVar("_DeviceArray", bound=_DLPackArray)

class InsufficientMemory(MemoryError):
    """The solve would need more memory than is available (or than ``memory=`` allows);
    raised before allocating. The message names both byte counts."""

    bytes_needed: float
    bytes_available: float

class BackendUnavailable(RuntimeError):
    """The backend asked for cannot run here: no CUDA build or device, or a count through the
    dynamic program in a build without GMP."""

class OutOfReach(RuntimeError):
    """``backend`` and ``algorithm`` "auto": the instance expects no solution and its exact
    search would run for more than a day. A ``time_limit`` searches anyway."""

class CudaError(RuntimeError):
    """A CUDA call failed; ``code`` is the cudaError_t value."""

    code: int

class Solution:
    """The answer of :func:`solve`. Truthy when a subset was found."""

    @property
    def feasible(self) -> Optional[bool]:
        """True (a subset was found), False (proven that none exists), None (time ran out)."""
    @property
    def status(self) -> Literal["feasible", "infeasible", "unknown"]:
        """The verdict as a word, as ``ssum solve --json`` writes it."""
    @property
    def subset(self) -> list[int]:
        """0-based, ascending indices of the weights that sum to the target, re-verified;
        empty when not feasible (and for the empty subset of target 0)."""
    @property
    def count(self) -> Optional[int]:
        """With ``count=True``: how many subsets (index sets) sum to the target, exact at any
        size; None otherwise. Without a target the empty subset is not counted."""
    @property
    def algorithm(self) -> str:
        """What ran: "two-list", "four-list", "dp", "balanced-dp", "completion",
        "greedy-fill" or "reductions"."""
    @property
    def backend(self) -> Literal["cpu", "cuda"]: ...
    @property
    def threads(self) -> int:
        """Host threads used."""
    @property
    def seconds(self) -> float:
        """Time of the whole solve, in seconds."""
    @property
    def reason(self) -> str:
        """Why the plan was chosen, in a sentence."""
    @property
    def reductions(self) -> list[str]:
        """The reductions the solve ran on, in order (e.g. "divided by the gcd 3")."""
    @property
    def planned_bytes(self) -> int:
        """Memory the plan reserved for lists and buffers."""
    @property
    def target(self) -> Optional[_Number]:
        """The target as asked (the centre for ``tolerance``); None for zero-sum and for
        ``target_range``, which asks no target (``window`` holds it). A Decimal when any amount
        was a Decimal or a decimal string."""
    @property
    def window(self) -> Optional[tuple[_Number, _Number]]:
        """(lo, hi) for ``target_range`` or ``tolerance``; None for the target alone."""
    @property
    def sum(self) -> Optional[_Number]:
        """The subset's sum, in the units of the input (a Decimal for decimal input); None when
        not feasible."""
    @property
    def decimals(self) -> int:
        """The scale decimal amounts were read at (the most decimals of any amount); 0 for ints."""
    @property
    def unique(self) -> Optional[Literal["none", "unique", "several", "unknown"]]:
        """With ``unique=True``: whether no subset, exactly one, or at least two answer
        ("unknown": the time limit ran out first); None otherwise."""
    @property
    def subsets(self) -> list[list[int]]:
        """With ``unique=True``: the subsets found, two at most; otherwise ``[subset]`` when
        feasible, else []."""
    def __bool__(self) -> bool: ...

class RowsSolution(Solution):
    """The answer of :func:`solve_rows`: a :class:`Solution` over the columns (``subset``
    meets every row, ``count`` counts the subsets that do), whose ``target`` and ``sum`` are
    None (there is one per row: ``targets``, ``sums``), with how the rows were answered."""

    @property
    def method(self) -> Literal["fold", "fold and check", "lattice", "bounds"]:
        """"fold": every row folded into one subset sum, solved by :func:`solve`'s solvers;
        "fold and check": past 127 bits, the rows that fit folded, every subset meeting them
        listed on the host and checked on the others; "lattice": the lattice stage found the
        subset; "bounds": a target lies outside the sums its row reaches."""
    @property
    def rows_folded(self) -> int:
        """Rows in the one subset sum (all of them for "fold")."""
    @property
    def encoding_bits(self) -> int:
        """The bits the fold of every row needs (more than 127: "fold and check")."""
    @property
    def checked(self) -> int:
        """"fold and check": subsets of the folded rows checked on the others; else 0."""
    @property
    def lattice_seconds(self) -> float:
        """Time in the lattice stage (0 when it did not run)."""
    @property
    def targets(self) -> list[int]:
        """The targets, one per row."""
    @property
    def sums(self) -> Optional[list[int]]:
        """Each row's sum over the subset (equal to ``targets``); None when not feasible."""

class Solutions(Iterator[list[int]]):
    """The iterator :func:`solutions` returns. Closing it (``close()``, ``del``, leaving a
    ``with`` block, garbage collection) stops the listing and its thread. One next() at a
    time, as for a generator: a next() while another thread is inside one raises ValueError."""

    def __next__(self) -> list[int]: ...
    def __iter__(self) -> "Solutions": ...
    def __enter__(self) -> "Solutions": ...
    def __exit__(self, *args: object) -> None: ...
    def close(self) -> None:
        """Stops the listing; next() then raises StopIteration. From another thread while a
        next() waits: that next() ends with StopIteration."""
    @property
    def listed(self) -> int:
        """Subsets yielded so far."""
    @property
    def complete(self) -> bool:
        """True once the last subset was yielded and they were every subset asked for (False
        while subsets remain, after a limit, a time limit or close())."""
    @property
    def timed_out(self) -> bool:
        """True once the listing ended because ``time_limit`` ran out."""
    @property
    def seconds(self) -> Optional[float]:
        """The listing's time, once it ended; None before."""
    @property
    def planned_bytes(self) -> Optional[int]:
        """Memory the listing planned (bounded, whatever the number of subsets), once it ended."""
    @property
    def reason(self) -> Optional[str]:
        """Why the plan was chosen, once the listing ended."""

def solve(
    weights: _Weights,
    target: Optional[_Amount] = None,
    *,
    backend: _Backend = "auto",
    algorithm: _Algorithm = "auto",
    threads: Optional[int] = None,
    memory: Optional[int] = None,
    count: Union[bool, np.bool_] = False,
    time_limit: Optional[float] = None,
    seed: int = 1,
    items: Optional[int] = None,
    min_items: Optional[int] = None,
    max_items: Optional[int] = None,
    target_range: Optional[tuple[_Amount, _Amount]] = None,
    tolerance: Optional[_Amount] = None,
    unique: Union[bool, np.bool_] = False,
) -> Solution:
    """Finds a subset of ``weights`` summing to ``target``, or proves that none exists.

    weights: Python ints (any width up to 127 bits; bools and numpy bools count as 0 and 1),
    a 1-D numpy object array of them, or a 1-D integer numpy array (int8 to int64, uint8 to
    uint64, in the machine's byte order). Their absolute values must add up to less than 2^127.
    Amounts may be decimal.Decimal or decimal strings ("1234.56", at most 18 decimals): all are
    then read exactly at one scale, the most decimals of any amount; floats are refused
    (TypeError: not exact).
    target: an int, Decimal or decimal string; None asks for a non-empty subset summing to zero.
    backend: "auto" (the GPU only where it pays), "cpu" or "cuda".
    algorithm: "auto", "two-list", "four-list", "dp" or "completion" (see docs/cli.md).
    threads: host threads (None: all, or OMP_NUM_THREADS). memory: bytes the solve may plan
    (None: what is free). count: also count every subset that sums to the target.
    time_limit: seconds; when they run out the answer is status "unknown".
    seed: the completion search's seed.
    items (exactly), min_items, max_items: the subset's number of items. target_range=(lo, hi):
    a sum from lo to hi replaces the target; tolerance=d: from target - d to target + d.
    unique: look for two subsets; Solution.unique says "none", "unique" or "several". Any of
    these is answered by listing subsets on the host (the two-list): the first one found, or
    with count=True every one counted.

    The GIL is released while the solve runs; Ctrl-C stops it (KeyboardInterrupt).
    Raises ValueError (bad input, a weight of 128 bits or more, naming its index), TypeError
    (a weight that is not an integer or amount, an array of another dtype), InsufficientMemory,
    BackendUnavailable, OutOfReach, CudaError. An exception raised while the weights are read
    (by a generator, or an __index__ method) propagates unchanged.
    """

def solutions(
    weights: _Weights,
    target: Optional[_Amount] = None,
    *,
    limit: Optional[int] = None,
    items: Optional[int] = None,
    min_items: Optional[int] = None,
    max_items: Optional[int] = None,
    target_range: Optional[tuple[_Amount, _Amount]] = None,
    tolerance: Optional[_Amount] = None,
    time_limit: Optional[float] = None,
    memory: Optional[int] = None,
    threads: Optional[int] = None,
    backend: Literal["auto", "cpu", "cuda"] = "auto",
) -> Solutions:
    """Every subset of ``weights`` summing to ``target`` (or within ``target_range`` /
    ``tolerance``, of ``items`` or ``min_items`` to ``max_items`` items), each once, as a list
    of ascending indices, verified; without a target, the non-empty subsets summing to zero.
    Arguments as for :func:`solve`; limit: stop after that many.

    The listing runs on a thread of its own and hands subsets over in batches through a
    bounded queue: memory does not grow with the number of subsets. next() waits with the GIL
    released; Ctrl-C cancels the listing and raises KeyboardInterrupt. An error of the listing
    (InsufficientMemory, ...) is raised by next(); argument errors by the call.
    """

def explain(
    weights: _Weights,
    target: Optional[Union[int, str, Decimal]] = None,
    *,
    count: Union[bool, np.bool_] = False,
    backend: _Backend = "auto",
    algorithm: _Algorithm = "auto",
    threads: Optional[int] = None,
    memory: Optional[int] = None,
) -> Dict[str, Any]:
    """The plan's table for ``solve(weights, target, ...)``, without solving: 'question',
    'items', 'threads', 'host_room', 'candidates' (a dict per algorithm and backend: 'algorithm',
    'backend', 'takes', 'fits', 'exact', 'bytes', 'seconds' (None: no model), 'role' ('chosen',
    'first', 'races' or ''), 'why'), 'plan' ({'algorithm', 'backend', 'reason'}, or None where
    the solve would refuse the instance) and 'refusal' (the solve's message, or None)."""
    ...

def explain_rows(
    rows: Union[Iterable[_Weights], npt.NDArray[np.integer], npt.NDArray[np.object_]],
    targets: _Weights,
    *,
    backend: _Backend = "auto",
    algorithm: _Algorithm = "auto",
    threads: Optional[int] = None,
    memory: Optional[int] = None,
    count: Union[bool, np.bool_] = False,
) -> Dict[str, Any]:
    """The plan's table for ``solve_rows(rows, targets, ...)``, as :func:`explain` gives it;
    the lattice stage is its last candidate."""
    ...

def solve_rows(
    rows: Union[Iterable[_Weights], npt.NDArray[np.integer], npt.NDArray[np.object_]],
    targets: _Weights,
    *,
    backend: _Backend = "auto",
    algorithm: _Algorithm = "auto",
    threads: Optional[int] = None,
    memory: Optional[int] = None,
    count: Union[bool, np.bool_] = False,
    time_limit: Optional[float] = None,
    seed: int = 1,
) -> RowsSolution:
    """Finds a subset of the columns that meets every row (``sum(rows[i][j] for j in subset)
    == targets[i]`` for each i), or proves that none exists: multi-row subset sum, the market
    split problem.

    rows: m rows (1 to 64) of n coefficients each (n >= 1), as a 2-D integer numpy array
    (int8 to int64, uint8 to uint64, or an object array of Python ints) or a sequence of rows,
    each read as :func:`solve` reads its weights (ints up to 127 bits, negative too; each
    row's absolute values must add up to less than 2^127). targets: m ints, likewise.
    The other arguments as for :func:`solve`.

    Rows whose fold into one sum fits 127 bits are solved as that one sum (method "fold");
    past that, the rows that fit are folded and every subset meeting them is checked on the
    others (method "fold and check", on the host: backend "cuda" is then BackendUnavailable).
    The GIL is released while the solve runs; Ctrl-C stops it (KeyboardInterrupt).
    Raises ValueError (no rows, more than 64 rows, rows of unequal length, a
    target count other than the row count, a value of 128 bits or more, a row whose absolute
    values add up to 2^127), TypeError (a value that is not an integer, a float, an array of
    another dtype, a row that is not a sequence), and what :func:`solve` raises.
    """

def read_rows(path: Union[str, "os.PathLike[str]"]) -> tuple[list[list[int]], list[int]]:
    """A multi-row instance read from a file: QOBLIB's market split ``.dat`` form ("m n",
    then each row's n coefficients and its target), or JSON ``{"rows": [[...], ...],
    "targets": [...]}``. Returns ``(rows, targets)`` for :func:`solve_rows`. "-" reads standard
    input. OSError (FileNotFoundError, ...) when the file cannot be opened; ValueError naming
    the line for malformed content."""

def generate(
    cls: str, n: int, bits: Optional[int] = None, seed: int = 1
) -> tuple[list[int], Optional[int]]:
    """An instance of a standard class (see :func:`generator_classes` and
    docs/instances.md): its weights and its target (None for zero-sum instances).
    Deterministic for a given seed on every platform; the same instance as ``ssum gen`` with
    the same arguments (the same default seed, 1). n is at most 2^20, as for ``ssum gen``
    (ValueError beyond)."""

def generator_classes() -> list[str]:
    """The classes :func:`generate` takes."""

@overload
def inclusive_scan(a: npt.NDArray[_Primitive], *, threads: Optional[int] = None) -> npt.NDArray[_Primitive]:
    """Running sums: out[i] = a[0] + ... + a[i], in a's dtype (integer overflow is not
    checked). int32, int64, uint32, uint64, float32, float64 in the machine's byte order; a new
    array. Another dtype (int8, bool, float16, ...) is a TypeError naming it, never converted:
    cast first (numpy's cumsum would promote small integers to int64). A 1-D array only
    (ValueError naming the shape). A CUDA device array gives a new array on its device (see
    docs/python.md); threads is then ignored."""

@overload
def inclusive_scan(a: _DeviceArray, *, threads: Optional[int] = None) -> _DeviceArray: ...
@overload
def exclusive_scan(a: npt.NDArray[_Primitive], *, threads: Optional[int] = None) -> npt.NDArray[_Primitive]:
    """out[0] = 0, out[i] = a[0] + ... + a[i - 1], in a's dtype; a new array (on a's device
    for a CUDA device array)."""

@overload
def exclusive_scan(a: _DeviceArray, *, threads: Optional[int] = None) -> _DeviceArray: ...
@overload
def sort(a: npt.NDArray[_Primitive], *, threads: Optional[int] = None) -> npt.NDArray[_Primitive]:
    """A sorted copy of a (ascending; NaNs last), by Batcher's odd-even merge sort, on the host
    or on a's CUDA device."""

@overload
def sort(a: _DeviceArray, *, threads: Optional[int] = None) -> _DeviceArray: ...
@overload
def merge(
    a: npt.NDArray[_Primitive], b: npt.NDArray[_Primitive], *, threads: Optional[int] = None
) -> npt.NDArray[_Primitive]:
    """The stable merge of two ascending arrays of one dtype (a's elements first on ties);
    ValueError when either is not sorted, TypeError for two dtypes (no promotion). Two CUDA device arrays (one dtype, one device) merge
    there; a device array with a host array is a TypeError."""

@overload
def merge(a: _DeviceArray, b: _DeviceArray, *, threads: Optional[int] = None) -> _DeviceArray: ...
