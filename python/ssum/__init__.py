"""Exact subset sum on CPUs and GPUs.

``ssum.solve(weights, target)`` finds a subset of the weights that sums to the target, or
proves that none exists. The primitives (``inclusive_scan``, ``exclusive_scan``, ``sort``,
``merge``) take numpy arrays, and CUDA device arrays (CuPy, PyTorch) through DLPack. See
docs/python.md.
"""

import operator as _operator

from . import _ssum
from ._ssum import (
    BackendUnavailable,
    CudaError,
    InsufficientMemory,
    OutOfReach,
    Solution,
    __version__,
    exclusive_scan,
    generator_classes,
    inclusive_scan,
    merge,
    solve,
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


__all__ = [
    "BackendUnavailable",
    "CudaError",
    "InsufficientMemory",
    "OutOfReach",
    "Solution",
    "__version__",
    "exclusive_scan",
    "generate",
    "generator_classes",
    "inclusive_scan",
    "merge",
    "solve",
    "sort",
]
