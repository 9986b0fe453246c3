"""Solves a few instances with the ssum Python package (pip install . from the repository)."""

import numpy as np

import ssum

# A target instance of Python ints, with the number of solutions.
weights, target = ssum.generate("planted", 36, seed=7)
s = ssum.solve(weights, target, count=True)
print(s)
print(f"{len(s.subset)} of {len(weights)} items sum to {target}; {s.count} subsets do")
assert sum(weights[i] for i in s.subset) == target

# Zero-sum with weights of 100 bits: exact, whatever their width (up to 127 bits).
weights, _ = ssum.generate("zero-sum", 30, bits=100, seed=3)
s = ssum.solve(weights)
print(f"zero-sum: {s.status}, {len(s.subset)} items, {s.algorithm} on {s.backend} in {s.seconds:.4f} s")

# numpy weights, read in C++ without a Python loop.
rng = np.random.default_rng(1)
array = rng.integers(1, 2**40, size=40, dtype=np.int64)
s = ssum.solve(array, int(array[:17].sum()), backend="cpu")
print(f"numpy: {s.status}, subset {s.subset}")

# Too little memory for the two lists.
try:
    ssum.solve(array, int(array[::3].sum()) + 1, algorithm="two-list", memory=1 << 20)
except ssum.InsufficientMemory as e:
    print(f"refused: {e}")

# A time limit answers "unknown" when it runs out: this whole search takes seconds.
weights, target = ssum.generate("random", 52, seed=3)
s = ssum.solve(weights, target, backend="cpu", algorithm="four-list", time_limit=0.5)
print(f"n = 52 in 0.5 s: {s.status} (feasible = {s.feasible})")
