"""The primitives on device arrays taken through DLPack.

The first part needs no GPU: hand-made DLPack producers (a ctypes DLManagedTensor in a capsule)
claim to live on a device, which reaches every check that comes before device memory is read.
The second part runs on a GPU with CuPy or PyTorch and compares every primitive with numpy.
"""

import ctypes
import functools
import gc

import numpy as np
import pytest

import ssum

DTYPES = [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64]
SIZES = [0, 1, 255, 256, 257, 1_000_003]
UNARY = ["inclusive_scan", "exclusive_scan", "sort"]

# ---- DLPack producers without a GPU ------------------------------------------------------
KDL_CUDA, KDL_OPENCL, KDL_ROCM = 2, 4, 10


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_CAPSULE_NAME = ctypes.create_string_buffer(b"dltensor")  # must outlive every capsule


class FakeDeviceArray:
    """Claims an array on (device_type, device_id); its data pointer is never read by the tests
    that use it (they fail before, or have no elements). No deleter: memory stays with self."""

    def __init__(self, dtype, shape, strides=None, device_type=KDL_CUDA, device_id=0, null=False):
        dtype = np.dtype(dtype)
        self._device = (device_type, device_id)
        self._backing = np.zeros(max(1, int(np.prod(shape)) * 2), dtype=np.uint64)
        self._shape = (ctypes.c_int64 * len(shape))(*shape)
        self._strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        self._tensors = []
        code = {"i": 0, "u": 1, "f": 2, "b": 6, "c": 5}[dtype.kind]
        self._dtype = _DLDataType(code, dtype.itemsize * 8, 1)
        self._data = None if null else self._backing.ctypes.data

    def __dlpack_device__(self):
        return self._device

    def __dlpack__(self, **kwargs):
        t = _DLManagedTensor()
        t.dl_tensor.data = self._data
        t.dl_tensor.device = _DLDevice(*self._device)
        t.dl_tensor.ndim = len(self._shape)
        t.dl_tensor.dtype = self._dtype
        t.dl_tensor.shape = self._shape
        if self._strides is not None:
            t.dl_tensor.strides = self._strides
        self._tensors.append(t)  # alive as long as an import may look at it
        return _capsule_new(ctypes.addressof(t), _CAPSULE_NAME, None)


def call(name, *arrays):
    return getattr(ssum, name)(*arrays)


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def dlpack_shape(x):
    """The shape an object exports through DLPack (for results that have no .shape)."""
    capsule = x.__dlpack__()  # held while its tensor is read: it frees the tensor when it goes
    t = _DLManagedTensor.from_address(_capsule_pointer(capsule, b"dltensor")).dl_tensor
    return tuple(t.shape[i] for i in range(t.ndim))


def posing_as(module):
    """FakeDeviceArray as a type of `module`, which is how the binding tells CuPy and PyTorch
    input apart (their results are made by cupy.from_dlpack, torch.utils.dlpack.from_dlpack)."""
    return FakeDeviceArray if module is None else type("ndarray", (FakeDeviceArray,), {"__module__": module})


@pytest.mark.parametrize("name", UNARY)
def test_numpy_input_still_returns_numpy(name):
    a = np.array([5, -2, 9, 1], dtype=np.int64)
    result = call(name, a)
    assert type(result) is np.ndarray and result.dtype == np.int64
    expected = {"inclusive_scan": np.cumsum(a), "exclusive_scan": np.r_[0, np.cumsum(a)[:-1]], "sort": np.sort(a)}
    assert np.array_equal(result, expected[name])


def test_numpy_input_of_other_dtypes_is_refused_as_device_input_is():
    # The host takes the device's six dtypes and converts none: an int8 array is not widened.
    with pytest.raises(TypeError, match="int8"):
        ssum.sort(np.array([3, 1, 2], dtype=np.int8))
    with pytest.raises(TypeError, match="uint8"):
        ssum.merge(np.array([1, 4], dtype=np.uint8), np.array([2, 3], dtype=np.int16))
    merged = ssum.merge(np.array([1, 4], dtype=np.int32), np.array([2, 3], dtype=np.int32))
    assert type(merged) is np.ndarray and merged.dtype == np.int32 and np.array_equal(merged, [1, 2, 3, 4])


@pytest.mark.parametrize("name", UNARY + ["merge"])
@pytest.mark.parametrize("device_type, label", [(KDL_OPENCL, "OpenCL"), (KDL_ROCM, "ROCm")])
def test_an_array_on_another_device_is_a_type_error(name, device_type, label):
    a = FakeDeviceArray(np.float32, (4,), device_type=device_type)
    with pytest.raises(TypeError, match=label):
        call(name, *([a, a] if name == "merge" else [a]))


@pytest.mark.parametrize("name", UNARY + ["merge"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, np.bool_, np.complex64])
def test_a_device_array_of_another_dtype_is_a_type_error(name, dtype):
    a = FakeDeviceArray(dtype, (4,))
    with pytest.raises(TypeError, match=np.dtype(dtype).name if dtype is not np.bool_ else "bool"):
        call(name, *([a, a] if name == "merge" else [a]))


@pytest.mark.parametrize("name", UNARY)
def test_a_strided_device_array_is_a_value_error(name):
    with pytest.raises(ValueError, match="contiguous"):
        call(name, FakeDeviceArray(np.int64, (5,), strides=(2,)))
    with pytest.raises(ValueError, match="contiguous"):
        call(name, FakeDeviceArray(np.int64, (5,), strides=(-1,)))


@pytest.mark.parametrize("name", UNARY)
def test_a_2d_device_array_is_a_value_error(name):
    with pytest.raises(ValueError, match="1-D"):
        call(name, FakeDeviceArray(np.float64, (2, 3)))


def test_merge_refuses_mixed_and_mismatched_operands():
    device = FakeDeviceArray(np.int64, (3,))
    with pytest.raises(TypeError, match="a is a device array and b is not"):
        ssum.merge(device, np.arange(3, dtype=np.int64))
    with pytest.raises(TypeError, match="b is a device array and a is not"):
        ssum.merge([1, 2], device)
    with pytest.raises(TypeError, match="int64 and int32"):
        ssum.merge(device, FakeDeviceArray(np.int32, (3,)))
    with pytest.raises(ValueError, match="device 0 and b on device 1"):
        ssum.merge(device, FakeDeviceArray(np.int64, (3,), device_id=1))


def expect_empty_or_unavailable(name, a, shape_of):
    # An empty CUDA result on a GPU; BackendUnavailable without one or without CUDA.
    try:
        result = call(name, *([a, a] if name == "merge" else [a]))
    except ssum.BackendUnavailable as e:
        assert "CUDA" in str(e)
    else:
        assert result.__dlpack_device__() == (KDL_CUDA, 0)
        assert shape_of(result) == (0,)


@pytest.mark.parametrize("name", UNARY + ["merge"])
def test_an_empty_device_array_runs_or_says_why_not(name):
    # No element is read: on a GPU the result is an empty device array; without one, or in a
    # build without CUDA, BackendUnavailable.
    expect_empty_or_unavailable(name, FakeDeviceArray(np.float64, (0,), null=True), dlpack_shape)


@pytest.mark.parametrize("name", UNARY + ["merge"])
@pytest.mark.parametrize("module", [None, "cupy._core.core", "torch"])
def test_the_input_framework_is_read_before_device_memory(name, module):
    # The framework is found before anything runs on the device, so a CUDA build on a machine
    # without a GPU goes through that step too. With a GPU only an empty array is safe: the
    # fake's data is host memory.
    if _cuda_built() and module is not None:
        pytest.importorskip(module.split(".")[0])
    a = posing_as(module)(np.int64, (0,) if _cuda_built() else (3,), null=_cuda_built())
    expect_empty_or_unavailable(name, a, (lambda r: tuple(r.shape)) if module else dlpack_shape)


# ---- on a GPU, against numpy -------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _cuda_built():
    """Whether this ssum has its CUDA backend and sees a device."""
    try:
        ssum.solve([1, 2], 3, backend="cuda")
    except ssum.BackendUnavailable:
        return False
    return True


class Framework:
    def __init__(self, name):
        self.name = name
        if name == "cupy":
            self.mod = pytest.importorskip("cupy")
            try:
                count = self.mod.cuda.runtime.getDeviceCount()
            except Exception as e:  # no driver: CuPy raises its own CUDARuntimeError
                pytest.skip(f"CuPy sees no CUDA device ({e})")
            if count == 0:
                pytest.skip("CuPy sees no CUDA device")
            self.array_type = self.mod.ndarray
        else:
            self.mod = pytest.importorskip("torch")
            if not self.mod.cuda.is_available():
                pytest.skip("PyTorch sees no CUDA device")
            self.array_type = self.mod.Tensor

    def to_device(self, a, device=0):
        if self.name == "cupy":
            with self.mod.cuda.Device(device):
                return self.mod.asarray(a)
        try:
            x = self.mod.from_numpy(np.ascontiguousarray(a)).to(f"cuda:{device}")
            x.__dlpack__()  # some builds cannot export the unsigned types
            return x
        except (TypeError, RuntimeError, BufferError) as e:
            pytest.skip(f"PyTorch cannot put {a.dtype} on the GPU and export it here ({e})")

    def to_host(self, x):
        if self.name == "cupy":
            return self.mod.asnumpy(x)
        try:
            return x.cpu().numpy()
        except (TypeError, RuntimeError) as e:
            pytest.skip(f"PyTorch cannot bring {x.dtype} back here ({e})")

    def device_of(self, x):
        return x.device.id if self.name == "cupy" else x.device.index

    def free_memory(self):
        if self.name == "cupy":
            return self.mod.cuda.runtime.memGetInfo()[0]
        return self.mod.cuda.mem_get_info()[0]

    def synchronize(self):
        if self.name == "cupy":
            self.mod.cuda.runtime.deviceSynchronize()
        else:
            self.mod.cuda.synchronize()


@pytest.fixture(params=["cupy", "torch"])
def fw(request):
    framework = Framework(request.param)
    if not _cuda_built():
        pytest.skip("this ssum was built without CUDA (see test_device_arrays_without_cuda_in_the_build)")
    return framework


def test_device_arrays_without_cuda_in_the_build():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except Exception:
        pytest.skip("no CUDA driver")
    if _cuda_built():
        pytest.skip("this ssum has CUDA: the other tests run")
    with pytest.raises(ssum.BackendUnavailable, match="without CUDA"):
        ssum.sort(cupy.arange(4))


def sample(dtype, n, seed=0):
    """Integers, as floats too: small enough (|x| <= 8) that every partial sum of a million of
    them is exact in float32 whatever the association, so scans compare exactly."""
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.floating):
        return rng.integers(-8, 9, size=n).astype(dtype)
    return rng.integers(0, 1000, size=n).astype(dtype)


def exclusive(a):
    out = np.zeros_like(a)
    if len(a):
        out[1:] = np.cumsum(a, dtype=a.dtype)[:-1]
    return out


def check_result(fw, result, dtype, n):
    assert isinstance(result, fw.array_type)
    assert tuple(result.shape) == (n,)
    host = fw.to_host(result)
    assert host.dtype == np.dtype(dtype)
    return host


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_scans(fw, dtype, n):
    a = sample(dtype, n, seed=n)
    x = fw.to_device(a)
    inclusive = check_result(fw, ssum.inclusive_scan(x), dtype, n)
    assert np.array_equal(inclusive, np.cumsum(a, dtype=a.dtype))
    assert np.array_equal(check_result(fw, ssum.exclusive_scan(x), dtype, n), exclusive(a))
    assert np.array_equal(fw.to_host(x), a)  # the input is left as it was


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scan_of_fractions_is_close(fw, dtype):
    a = np.random.default_rng(4).standard_normal(300_000).astype(dtype)
    result = fw.to_host(ssum.inclusive_scan(fw.to_device(a)))
    reference = np.cumsum(a.astype(np.float64))
    scale = np.cumsum(np.abs(a.astype(np.float64)))
    assert np.all(np.abs(result - reference) <= 64 * np.finfo(dtype).eps * scale + 1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sort(fw, dtype, n):
    rng = np.random.default_rng(n + 1)
    if np.issubdtype(dtype, np.floating):
        a = rng.standard_normal(n).astype(dtype)
        a[rng.random(n) < 0.01] = np.nan  # NaNs go last, as numpy puts them
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    x = fw.to_device(a)
    result = check_result(fw, ssum.sort(x), dtype, n)
    assert np.array_equal(result, np.sort(a), equal_nan=True)
    assert np.array_equal(fw.to_host(x), a, equal_nan=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_merge(fw, dtype, n):
    a = np.sort(sample(dtype, n, seed=2))
    for m in (0, 1, 256, n // 3 + 5):
        b = np.sort(sample(dtype, m, seed=3 + m))
        result = check_result(fw, ssum.merge(fw.to_device(a), fw.to_device(b)), dtype, n + m)
        assert np.array_equal(result, np.sort(np.concatenate([a, b]), kind="stable"))


def test_merge_of_floats_with_nans_and_signed_zeros(fw):
    a = np.array([-1.0, -0.0, 2.0, np.nan])
    b = np.array([0.0, 0.0, 3.0, np.nan, np.nan])
    result = fw.to_host(ssum.merge(fw.to_device(a), fw.to_device(b)))
    assert np.array_equal(result, [-1.0, -0.0, 0.0, 0.0, 2.0, 3.0, np.nan, np.nan, np.nan], equal_nan=True)
    assert np.signbit(result[1]) and not np.signbit(result[2])  # stable: a's zero first


def test_merge_refuses_unsorted_device_input(fw):
    a = np.arange(100_000, dtype=np.int64)
    a[70_001] = 5
    sorted_ = fw.to_device(np.arange(10, dtype=np.int64))
    with pytest.raises(ValueError, match=r"a is not sorted ascending \(at index 70001\)"):
        ssum.merge(fw.to_device(a), sorted_)
    with pytest.raises(ValueError, match=r"b is not sorted ascending \(at index 70001\)"):
        ssum.merge(sorted_, fw.to_device(a))
    with pytest.raises(ValueError, match=r"at index 3\)"):
        ssum.merge(fw.to_device(np.array([1.0, 2.0, np.nan, 4.0])), fw.to_device(np.zeros(1)))


def test_views_with_an_offset(fw):
    a = sample(np.int32, 10_001, seed=5)
    x = fw.to_device(a)[3:]  # contiguous, 12 bytes into the buffer
    assert np.array_equal(fw.to_host(ssum.inclusive_scan(x)), np.cumsum(a[3:], dtype=np.int32))
    assert np.array_equal(fw.to_host(ssum.sort(x)), np.sort(a[3:]))
    assert np.array_equal(fw.to_host(ssum.merge(x[:0], ssum.sort(x))), np.sort(a[3:]))


@pytest.mark.parametrize("name", UNARY + ["merge"])
def test_device_errors(fw, name):
    def run(x):
        return call(name, *([x, x] if name == "merge" else [x]))

    strided = fw.to_device(np.arange(20, dtype=np.int64))[::2]
    with pytest.raises(ValueError, match="contiguous"):
        run(strided)
    with pytest.raises(ValueError, match="1-D"):
        run(fw.to_device(np.zeros((3, 4), dtype=np.float32)))
    for dtype, label in [(np.int8, "int8"), (np.int16, "int16"), (np.float16, "float16"), (np.bool_, "bool")]:
        with pytest.raises(TypeError, match=label):
            run(fw.to_device(np.zeros(8, dtype=dtype)))


def test_merge_of_a_device_and_a_host_array(fw):
    with pytest.raises(TypeError, match="a is a device array and b is not"):
        ssum.merge(fw.to_device(np.arange(3, dtype=np.int64)), np.arange(3, dtype=np.int64))
    with pytest.raises(TypeError, match="int64 and int32"):
        ssum.merge(fw.to_device(np.arange(3, dtype=np.int64)), fw.to_device(np.arange(3, dtype=np.int32)))


def test_results_outlive_their_inputs_and_are_freed(fw):
    a = sample(np.float64, 1_000_003, seed=6)
    result = ssum.sort(fw.to_device(a))  # the input goes at once
    gc.collect()
    assert np.array_equal(fw.to_host(result), np.sort(a))

    x = fw.to_device(a)
    del result
    gc.collect()
    fw.synchronize()  # the pool gives freed memory back to the device at a synchronisation
    before = fw.free_memory()
    for _ in range(200):  # 1.6 GB of results in all, each collected when the next replaces it
        result = ssum.sort(x)
    del result
    gc.collect()
    fw.synchronize()
    assert before - fw.free_memory() < 50 * a.nbytes


def test_threads_is_accepted_and_ignored(fw):
    a = sample(np.int64, 1000)
    assert np.array_equal(fw.to_host(ssum.inclusive_scan(fw.to_device(a), threads=3)), np.cumsum(a))


def test_results_stay_on_the_input_device(fw):
    count = fw.mod.cuda.runtime.getDeviceCount() if fw.name == "cupy" else fw.mod.cuda.device_count()
    if count < 2:
        pytest.skip("one CUDA device")
    a = sample(np.uint64, 100_000, seed=7)
    x = fw.to_device(a, device=1)
    for result, expected in [(ssum.sort(x), np.sort(a)), (ssum.inclusive_scan(x), np.cumsum(a, dtype=np.uint64))]:
        assert fw.device_of(result) == 1
        assert np.array_equal(fw.to_host(result), expected)
    b = np.sort(a)
    merged = ssum.merge(fw.to_device(b, device=1), fw.to_device(b, device=1))
    assert fw.device_of(merged) == 1 and np.array_equal(fw.to_host(merged), np.repeat(b, 2))
    with pytest.raises(ValueError, match="device 1 and b on device 0"):
        ssum.merge(fw.to_device(b, device=1), fw.to_device(b, device=0))
