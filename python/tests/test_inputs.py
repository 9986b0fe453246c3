"""What the binding takes and refuses: dtypes kept or refused by name (never converted), errors
raised by the caller's own objects propagated as raised, numpy's object arrays and bools taken
as Python's, and ssum.generate as `ssum gen`."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import ssum

PRIMITIVES = ["sort", "inclusive_scan", "exclusive_scan"]
SUPPORTED = [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64]
# Small integers and bools too: a scan in int8 would overflow where numpy's cumsum promotes,
# so the primitives refuse them rather than pick a wider type behind the caller's back.
UNSUPPORTED = ["int8", "int16", "uint8", "uint16", "bool", "float16", "complex128", "<U3", "datetime64[s]",
               "timedelta64[s]", "object", ">i8", ">f8"]


def run(name, *arrays):
    return getattr(ssum, name)(*arrays)


def unsupported_array(dtype):
    return np.array([3, 1, 2]).astype(dtype)


# ---- the primitives' dtypes -----------------------------------------------------------------
@pytest.mark.parametrize("name", PRIMITIVES)
@pytest.mark.parametrize("dtype", UNSUPPORTED)
def test_unary_primitives_refuse_other_dtypes_by_name(name, dtype):
    a = unsupported_array(dtype)
    with pytest.raises(TypeError, match=f"ssum.{name}: .*{re.escape(str(np.dtype(dtype)))}.* not supported") as caught:
        run(name, a)
    assert "DLPack" not in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("dtype", UNSUPPORTED)
def test_merge_refuses_other_dtypes_by_name(dtype):
    a = np.sort(unsupported_array(dtype)) if dtype != "object" else unsupported_array(dtype)
    with pytest.raises(TypeError, match=f"ssum.merge: .*{re.escape(str(np.dtype(dtype)))}"):
        ssum.merge(a, a)


def test_float16_is_not_truncated():
    a = np.array([2.5, 0.25, 1.75], dtype=np.float16)
    with pytest.raises(TypeError, match="float16"):
        ssum.sort(a)
    with pytest.raises(TypeError, match="float16"):
        ssum.inclusive_scan(a)


def test_big_endian_arrays_name_their_byte_order():
    with pytest.raises(TypeError, match="big-endian"):
        ssum.sort(np.array([3, 1, 2], dtype=">i8"))


@pytest.mark.parametrize(("a_dtype", "b_dtype"), [(np.int32, np.float64), (np.int64, np.uint64), (np.float32, np.float64),
                                                  (np.int32, np.int64)])
def test_merge_of_two_dtypes_names_both(a_dtype, b_dtype):
    a = np.array([1, 2, 3], dtype=a_dtype)
    b = np.array([0, 2, 5], dtype=b_dtype)
    with pytest.raises(TypeError, match=f"{np.dtype(a_dtype)} and {np.dtype(b_dtype)}"):
        ssum.merge(a, b)
    with pytest.raises(TypeError, match=f"{np.dtype(b_dtype)} and {np.dtype(a_dtype)}"):
        ssum.merge(b, a)


def test_merge_does_not_wrap_uint64_beyond_int64():
    big = np.array([2**63 + 5], dtype=np.uint64)
    with pytest.raises(TypeError, match="uint64"):
        ssum.merge(np.array([1, 2], dtype=np.int64), big)
    # Of one dtype, the value comes back exactly.
    merged = ssum.merge(np.array([1, 2], dtype=np.uint64), big)
    assert merged.dtype == np.uint64 and [int(x) for x in merged] == [1, 2, 2**63 + 5]


@pytest.mark.parametrize("dtype", SUPPORTED)
@pytest.mark.parametrize("name", PRIMITIVES)
def test_supported_dtypes_are_kept_on_strided_views(name, dtype):
    base = (np.arange(40)[::-1] % 7).astype(dtype)
    for a in (base[::3], base[::-2], base[5:6], base[:0]):
        result = run(name, a)
        assert result.dtype == a.dtype
        expected = {"sort": np.sort(a), "inclusive_scan": np.cumsum(a, dtype=a.dtype),
                    "exclusive_scan": np.concatenate([[0], np.cumsum(a, dtype=a.dtype)[:-1]]).astype(a.dtype)
                    if len(a) else a}[name]
        assert np.array_equal(result, expected)


def test_a_2d_array_is_one_sentence():
    for name in PRIMITIVES:
        with pytest.raises((ValueError, TypeError), match=r"expects a 1-D array, got shape \(1, 2\)") as caught:
            run(name, np.array([[1, 2]], dtype=np.int64))
        assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match=r"got shape \(2, 2\)"):
        ssum.merge(np.zeros((2, 2)), np.zeros(3))
    with pytest.raises(ValueError, match=r"got shape \(\)"):
        ssum.sort(np.int64(4))


def test_non_arrays_are_refused_in_one_sentence():
    with pytest.raises(TypeError, match="expects a 1-D numpy array, not list") as caught:
        ssum.sort([3, 1, 2])
    assert "\n" not in str(caught.value)


# ---- errors of the caller's own objects -----------------------------------------------------
class Boom(Exception):
    pass


def test_a_generators_exception_propagates():
    def weights():
        yield 1
        raise ValueError("boom")

    with pytest.raises(ValueError, match="^boom$"):
        ssum.solve(weights(), 1)

    def other():
        yield 2
        raise Boom("custom")

    with pytest.raises(Boom):
        ssum.solve(other(), 1)


def test_an_iterators_type_error_propagates():
    class Iterable:
        def __iter__(self):
            raise TypeError("my own type error")

    with pytest.raises(TypeError, match="^my own type error$"):
        ssum.solve(Iterable(), 1)


class BadIndex:
    def __init__(self, exception):
        self.exception = exception

    def __index__(self):
        raise self.exception


@pytest.mark.parametrize("exception", [ValueError("from __index__"), Boom("from __index__"),
                                       TypeError("from __index__"), OverflowError("from __index__")])
def test_an_index_methods_exception_propagates(exception):
    with pytest.raises(type(exception), match="^from __index__$"):
        ssum.solve([1, BadIndex(exception), 3], 4)
    with pytest.raises(type(exception), match="^from __index__$"):
        ssum.solve([1, 2], BadIndex(exception))
    with pytest.raises(type(exception), match="^from __index__$"):
        ssum.solve(np.array([1, BadIndex(exception)], dtype=object), 1)


def test_index_objects_are_still_taken():
    class Five:
        def __index__(self):
            return 5

    assert ssum.solve([Five(), 2], 7).subset == [0, 1]


def test_non_iterables_keep_their_message():
    with pytest.raises(TypeError, match="weights must be a sequence"):
        ssum.solve(42, 3)


# ---- object arrays, odd dtypes as weights -------------------------------------------------------
def brute_count(weights, target):
    sums = [0]
    for w in weights:
        sums += [s + w for s in sums]
    return sums.count(target)


@pytest.mark.parametrize("weights", [[1, 2**100, 3], [-(2**120), 5, 2**120, 7, -3], [], [0]])
def test_object_arrays_are_taken_as_lists(weights):
    array = np.array(weights, dtype=object)
    for target in (2**100 + 3, 4, 12, 0, 1):
        s = ssum.solve(array, target, count=True)
        expected = ssum.solve(list(weights), target, count=True)
        assert (s.status, s.subset, s.count) == (expected.status, expected.subset, expected.count)
        assert s.count == brute_count(weights, target)
        if s.feasible:
            assert sum(weights[i] for i in s.subset) == target


def test_object_arrays_of_other_things_name_the_index():
    with pytest.raises(TypeError, match=r"weights\[1\]"):
        ssum.solve(np.array([1, 2.5], dtype=object), 1)
    with pytest.raises(ValueError, match="1-D"):
        ssum.solve(np.array([[1, 2], [3, 4]], dtype=object), 1)


@pytest.mark.parametrize("dtype", [">i8", ">u4", "<U3", "datetime64[s]", "timedelta64[s]", "float16", "complex64"])
def test_weight_arrays_of_other_dtypes_name_it(dtype):
    with pytest.raises(TypeError, match=re.escape(str(np.dtype(dtype)))) as caught:
        ssum.solve(np.array([1, 2]).astype(dtype), 3)
    assert "DLPack" not in str(caught.value)


def test_native_integer_arrays_match_lists():
    weights = [5, -3, 9, 2**40, 7]
    for dtype in (np.int64, np.int32, np.int8, np.uint16):
        values = [w for w in weights if np.can_cast(np.min_scalar_type(w), dtype)] or [1]
        array = np.array(values, dtype=dtype)
        for target in range(-3, 15):
            assert ssum.solve(array, target).status == ssum.solve(values, target).status


# ---- numpy bools -------------------------------------------------------------------------------
def test_numpy_bools_stand_where_python_bools_do():
    assert ssum.solve([1, 2, 3], 3, count=np.True_).count == 2
    assert ssum.solve([1, 2, 3], 3, count=np.False_).count is None
    assert ssum.solve([1, 2, 3], 3, count=np.bool_(True)).count == brute_count([1, 2, 3], 3)
    # As weights and targets they are 0 and 1, as Python's are.
    assert ssum.solve([np.True_, 2], 3).subset == ssum.solve([True, 2], 3).subset == [0, 1]
    assert ssum.solve([np.False_, 1], np.True_, count=True).count == brute_count([0, 1], 1)


@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0])
def test_count_must_be_a_bool(bad):
    with pytest.raises(TypeError, match="count must be True or False"):
        ssum.solve([1, 2], 3, count=bad)


# ---- generate as ssum gen -------------------------------------------------------------------------
def test_generate_defaults_to_the_programs_seed():
    assert ssum.generate("random", 12) == ssum.generate("random", 12, seed=1)
    assert ssum.generate("planted", 12) == ssum.generate("planted", 12, seed=1)


def test_generate_stops_where_ssum_gen_does():
    with pytest.raises(ValueError, match=r"2\^20"):
        ssum.generate("random", 2**20 + 1)
    with pytest.raises(ValueError, match=r"2\^20"):
        ssum.generate("random", 2**21)
    with pytest.raises(ValueError):
        ssum.generate("random", -1)
    assert len(ssum.generate("random", np.int64(5))[0]) == 5


def find_program():
    candidate = os.environ.get("SSUM_PROGRAM") or shutil.which("ssum")
    return candidate if candidate and os.access(candidate, os.X_OK) else None


@pytest.mark.skipif(find_program() is None, reason="the ssum program is not on PATH (or in SSUM_PROGRAM)")
def test_generate_matches_ssum_gen():
    text = subprocess.run([find_program(), "gen", "random", "-n", "9"], capture_output=True, text=True,
                          check=True).stdout
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    target = int(next(line for line in lines if line.startswith("target:")).split(":")[1])
    weights = [int(token) for line in lines if not line.startswith("target:") for token in line.split()]
    assert ssum.generate("random", 9) == (weights, target)
