"""Exact subset sum on CPUs and GPUs.

``ssum.solve(weights, target)`` finds a subset of the weights that sums to the target, or
proves that none exists. The primitives (``inclusive_scan``, ``exclusive_scan``, ``sort``,
``merge``) take numpy arrays, and CUDA device arrays (CuPy, PyTorch) through DLPack. See
docs/python.md.
"""

from ._ssum import (
    BackendUnavailable,
    CudaError,
    InsufficientMemory,
    OutOfReach,
    Solution,
    __version__,
    exclusive_scan,
    generate,
    generator_classes,
    inclusive_scan,
    merge,
    solve,
    sort,
)

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
