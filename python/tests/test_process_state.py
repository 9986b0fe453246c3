"""A solve after whatever the process did before it: another C++ runtime loaded first, CuPy and
PyTorch arrays through the primitives, a device reset, another thread's solve, a solve cut short
by its time limit, a refused allocation. Each scenario runs in a fresh interpreter, so that what
it leaves behind is all the solve sees; each answer is checked here (sums, counts against the
host's)."""
import ctypes.util
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import ssum

MODULE_DIR = pathlib.Path(ssum.__file__).resolve().parent

# Solves on `backend` whose answers are checked against the host's and by their certificates.
CHECK = """
def check(backend):
    import ssum
    w, t = ssum.generate("random", 36, seed=5)
    s = ssum.solve(w, t, backend=backend, count=True)
    assert s.backend == backend, repr(s)
    host = ssum.solve(w, t, backend="cpu", count=True)
    assert s.count == host.count and s.feasible == host.feasible, (repr(s), repr(host))
    if s.feasible:
        assert sum(w[i] for i in s.subset) == t
    assert repr(s).startswith("Solution(status=")
    r = ssum.solve_rows([[1, 2, 3, 4], [4, 3, 2, 1]], [5, 5], count=True, backend=backend)
    assert r.count == 2 and r.sums == [5, 5] and repr(r).startswith("RowsSolution(")
    import itertools
    v = [3, 5, 7, 11, 13, 2, 8, 6]
    listed = sorted(map(tuple, ssum.solutions(v, 18)))
    every = sorted(c for k in range(len(v) + 1) for c in itertools.combinations(range(len(v)), k) if sum(v[i] for i in c) == 18)
    assert listed == every and len(every) > 3, listed
    report = ssum._ssum._host_memory_report()
    assert "above" not in report and "GiB" in report, report
    print("OK", flush=True)
"""


def run_scenario(code, timeout=120):
    script = CHECK + textwrap.dedent(code)
    env = dict(os.environ, PYTHONPATH=str(MODULE_DIR.parent) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0 and done.stdout.strip().endswith("OK"), (
        "rc %d\n%s\n%s" % (done.returncode, done.stdout[-2000:], done.stderr[-4000:]))


def test_the_module_keeps_its_static_runtimes_private():
    # A toolchain that links libstdc++ (or the CUDA runtime) statically must not export it from
    # the module: another copy in the process would take some of its references.
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm to list the module's symbols")
    module = next(MODULE_DIR.glob("_ssum*.so"), None)
    if module is None:
        pytest.skip("the module is not a .so here")
    listed = subprocess.run([nm, "-D", "--defined-only", str(module)], capture_output=True, text=True, check=True)
    runtime = re.compile(r"\s(_ZNSt6locale|_ZSt4cout|_ZNSt8ios_base4Init|_ZNKSt7codecvt|cudaMalloc$|cudaLaunchKernel$)")
    exported = [line for line in listed.stdout.splitlines() if runtime.search(line)]
    assert exported == [], exported[:10]


def test_a_solve_after_the_shared_cpp_runtime_was_loaded_first():
    path = ctypes.util.find_library("stdc++")
    if path is None:
        pytest.skip("no shared libstdc++ found")
    run_scenario("""
        import ctypes
        ctypes.CDLL(%r, mode=ctypes.RTLD_GLOBAL)
        import numpy
        check("cpu")
    """ % path)


def _cuda_device():
    try:
        ssum.solve([1, 2], 3, backend="cuda")
        return True
    except ssum.BackendUnavailable:
        return False


needs_device = pytest.mark.skipif(not _cuda_device(), reason="no CUDA device (or a build without CUDA)")


@needs_device
@pytest.mark.parametrize("scenario", [
    "nothing first",
    "numpy and the shared C++ runtime first",
    "another thread's solve",
    "a solve cut short by its time limit",
    "a refused allocation",
    "a host solve on every thread",
])
def test_a_gpu_solve_after(scenario):
    code = {
        "nothing first": "",
        "numpy and the shared C++ runtime first":
            "import ctypes, ctypes.util\n"
            "ctypes.CDLL(ctypes.util.find_library('stdc++'), mode=ctypes.RTLD_GLOBAL)\nimport numpy\n",
        "another thread's solve":
            "import threading\nth = threading.Thread(target=check, args=('cuda',))\nth.start(); th.join()\n",
        "a solve cut short by its time limit":
            "import ssum\nw, t = ssum.generate('random', 66, seed=3)\n"
            "s = ssum.solve(w, t, backend='cuda', time_limit=0.05)\nassert s.status in ('unknown', 'feasible', 'infeasible')\n",
        "a refused allocation":
            "import ssum\nw, t = ssum.generate('random', 50, seed=3)\n"
            "try:\n    ssum.solve(w, t, backend='cuda', memory=4096)\nexcept ssum.InsufficientMemory:\n    pass\n",
        "a host solve on every thread":
            "import ssum\nw, t = ssum.generate('random', 40, seed=9)\nssum.solve(w, t, backend='cpu', count=True)\n",
    }[scenario]
    run_scenario(code + "\ncheck('cuda')\n")


@needs_device
@pytest.mark.parametrize("framework", ["cupy", "torch"])
def test_a_gpu_solve_after_device_arrays(framework):
    if importlib.util.find_spec(framework) is None:
        pytest.skip(framework + " is not installed")
    make = ("import cupy as xp\na = xp.arange(5000, dtype=xp.int64)[::-1].copy()\n" if framework == "cupy" else
            "import torch as xp\na = xp.arange(5000, dtype=xp.int64, device='cuda').flip(0).contiguous()\n")
    run_scenario(make + """
import ssum
b = ssum.sort(a)
c = ssum.inclusive_scan(b)
assert int(c[-1]) == 5000 * 4999 // 2
check("cuda")
""")


@needs_device
def test_a_gpu_solve_after_a_device_reset():
    # The primary context reset through the driver, as another library's cudaDeviceReset does.
    run_scenario("""
import ctypes, ssum
check("cuda")
driver = ctypes.CDLL("libcuda.so.1")
assert driver.cuInit(0) == 0
reset = getattr(driver, "cuDevicePrimaryCtxReset_v2", None) or driver.cuDevicePrimaryCtxReset
assert reset(0) == 0, "the driver refused the reset"
check("cuda")
""")
