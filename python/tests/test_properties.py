"""Properties checked on examples that Hypothesis draws (the conftest's "ci" profile draws the
same ones on every run): solve's answers against the subset's own sum and against brute force,
the primitives against numpy, and every dtype the primitives do not take refused by name."""

import re

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import ssum  # noqa: E402

BRUTE_FORCE_ITEMS = 14  # 2^14 subset sums, a few milliseconds in Python


def subset_sums(weights):
    """The sums of all 2^n index subsets (the empty one first)."""
    sums = [0]
    for w in weights:
        sums += [s + w for s in sums]
    return sums


# Weights of mixed widths: mostly small (so that subsets collide and zero sums happen), some of
# up to 120 bits. Twenty of them keep the magnitudes' sum below 2^125, inside ssum's 2^127.
weight = st.one_of(
    st.integers(-40, 40),
    st.integers(-(2**62), 2**62),
    st.integers(-(2**120), 2**120),
)


@st.composite
def instances(draw):
    weights = draw(st.lists(weight, min_size=0, max_size=20))
    assert sum(abs(w) for w in weights) < 2**127
    how = draw(st.sampled_from(["none", "subset", "random", "zero"]))
    if how == "none":
        target = None
    elif how == "subset" and weights:
        chosen = draw(st.lists(st.sampled_from(range(len(weights))), unique=True))
        target = sum(weights[i] for i in chosen)
    elif how == "zero":
        target = 0
    else:
        target = draw(st.one_of(st.integers(-100, 100), st.integers(-(2**124), 2**124)))
    return weights, target


def check_answer(weights, target, s):
    assert s.status in ("feasible", "infeasible")
    assert s.subset == sorted(set(s.subset)) and all(0 <= i < len(weights) for i in s.subset)
    if s.feasible:
        assert sum(weights[i] for i in s.subset) == (0 if target is None else target)
        if target is None:
            assert s.subset, "a zero-sum answer is a non-empty subset"
    else:
        assert s.subset == []
        if len(weights) <= BRUTE_FORCE_ITEMS:
            sums = subset_sums(weights)
            hits = sums.count(0) - 1 if target is None else sums.count(target)
            assert hits == 0, "infeasible, yet brute force finds a subset"


@settings(max_examples=300)
@given(instances())
def test_solve_answers_are_right(instance):
    weights, target = instance
    s = ssum.solve(weights, target)
    check_answer(weights, target, s)
    if len(weights) <= BRUTE_FORCE_ITEMS:
        sums = subset_sums(weights)
        exists = (sums.count(0) > 1) if target is None else (target in sums)
        assert bool(s.feasible) == exists
    # An object array of the same ints is the same input.
    again = ssum.solve(np.array(weights, dtype=object), target)
    assert (again.status, again.subset) == (s.status, s.subset)


@settings(max_examples=150)
@given(instances().filter(lambda i: len(i[0]) <= BRUTE_FORCE_ITEMS))
def test_counts_equal_brute_force(instance):
    weights, target = instance
    s = ssum.solve(weights, target, count=True)
    check_answer(weights, target, s)
    sums = subset_sums(weights)
    # Without a target the empty subset is not counted.
    assert s.count == (sums.count(0) - 1 if target is None else sums.count(target))


# ---- the primitives ---------------------------------------------------------------------------
SUPPORTED = [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64]


def elements(dtype, *, for_scan):
    """Elements whose scans are exact and never overflow (numpy's cumsum and ssum's may add in
    different orders), or any values at all for sorting, NaNs and infinities included."""
    dtype = np.dtype(dtype)
    if for_scan:
        low = 0 if dtype.kind == "u" else -(10**4)
        return st.integers(low, 10**4).map(lambda v: dtype.type(v))
    return hnp.from_dtype(dtype)


@st.composite
def arrays(draw, *, for_scan):
    dtype = draw(st.sampled_from(SUPPORTED))
    n = draw(st.one_of(st.sampled_from([0, 1, 2]), st.integers(0, 300)))
    a = draw(hnp.arrays(dtype, n, elements=elements(dtype, for_scan=for_scan)))
    # A strided view now and then: read in place, as a contiguous one.
    if draw(st.booleans()) and n:
        step = draw(st.sampled_from([2, -1, -3]))
        a = a[::step]
    return a


@settings(max_examples=200)
@given(arrays(for_scan=True))
def test_scans_equal_numpy(a):
    inclusive = ssum.inclusive_scan(a)
    exclusive = ssum.exclusive_scan(a)
    expected = np.cumsum(a, dtype=a.dtype)
    assert inclusive.dtype == a.dtype and exclusive.dtype == a.dtype
    assert np.array_equal(inclusive, expected)
    assert np.array_equal(exclusive, np.concatenate([np.zeros(1, a.dtype), expected[:-1]])[: len(a)])


@settings(max_examples=200)
@given(arrays(for_scan=False))
def test_sort_equals_numpy(a):
    before = a.copy()
    result = ssum.sort(a)
    assert result.dtype == a.dtype
    assert np.array_equal(result, np.sort(a), equal_nan=a.dtype.kind == "f")
    assert np.array_equal(a, before, equal_nan=a.dtype.kind == "f")


@st.composite
def sorted_pairs(draw):
    dtype = draw(st.sampled_from(SUPPORTED))
    values = elements(dtype, for_scan=False)
    a = draw(hnp.arrays(dtype, draw(st.integers(0, 200)), elements=values))
    b = draw(hnp.arrays(dtype, draw(st.integers(0, 200)), elements=values))
    return np.sort(a), np.sort(b)


@settings(max_examples=200)
@given(sorted_pairs())
def test_merge_equals_sorting_the_concatenation(pair):
    a, b = pair
    result = ssum.merge(a, b)
    assert result.dtype == a.dtype
    assert np.array_equal(result, np.sort(np.concatenate([a, b]), kind="stable"), equal_nan=a.dtype.kind == "f")


UNSUPPORTED = st.one_of(
    st.sampled_from(["int8", "int16", "uint8", "uint16", "bool", "float16", "complex64", "complex128", "object",
                     "<U4", "S4", "datetime64[ms]", "timedelta64[s]", "longdouble"]).map(np.dtype),
    # The supported ones in the other byte order.
    st.sampled_from(SUPPORTED).map(lambda t: np.dtype(t).newbyteorder(">")),
)


@settings(max_examples=80)
@given(UNSUPPORTED, st.integers(0, 5), st.sampled_from(["sort", "inclusive_scan", "exclusive_scan", "merge"]))
def test_other_dtypes_are_refused_by_name(dtype, n, name):
    if dtype == np.dtype(np.float64) or dtype == np.dtype(np.int64):
        return  # longdouble is float64 on some platforms: taken there
    a = np.zeros(n, dtype=dtype)
    arguments = (a, a) if name == "merge" else (a,)
    with pytest.raises(TypeError, match=re.escape(str(dtype))):
        getattr(ssum, name)(*arguments)
