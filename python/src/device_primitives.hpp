#pragma once
// The CUDA side of the primitives on device arrays (device_primitives.cu), behind plain C++
// declarations so that the binding code needs no CUDA header. Compiled only with CUDA
// (SSUM_PYTHON_CUDA). All work is ordered on the legacy default stream of `device`; nothing
// here waits for it except first_unsorted. Failures throw ssum::cuda_error, "no device or
// driver" throws ssum::backend_unavailable, and an allocation that does not fit
// ssum::insufficient_memory.
#include <cstddef>

namespace ssum::python::device {

/// At least `bytes` (and at least 1) of device memory on `device`, from the stream-ordered pool.
void* allocate(std::size_t bytes, int device);
/// Returns memory from allocate() to the pool, in stream order. Errors are ignored: this runs
/// from a capsule's destructor, possibly while the interpreter exits.
void release(void* p, int device) noexcept;

template <class T>
void inclusive_scan(const T* in, T* out, std::size_t n, int device);
template <class T>
void exclusive_scan(const T* in, T* out, std::size_t n, int device);
/// out = in sorted ascending (NaNs last), by Batcher's odd-even merge sort.
template <class T>
void sort(const T* in, T* out, std::size_t n, int device);
/// The first i with a[i] < a[i - 1] under ssum::less, or n when a is sorted; waits for the stream.
template <class T>
std::size_t first_unsorted(const T* a, std::size_t n, int device);
template <class T>
void merge(const T* a, std::size_t na, const T* b, std::size_t nb, T* out, int device);

}  // namespace ssum::python::device
