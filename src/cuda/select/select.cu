// ssum::copy_if on CUDA for the predicates scan.hpp names.
#include "cuda/select/select.cuh"
#include "ssum/scan.hpp"

namespace ssum::detail {

template <class T, class Pred>
std::size_t cuda_copy_if(const cuda& policy, const T* d_in, T* d_out, std::size_t n, Pred pred) {
  if (n > 0 && (!d_in || !d_out)) throw std::invalid_argument("ssum::cuda copy_if: null device pointer");
  cuda_detail::device_scope on(policy.device);
  return cuda_detail::select_if(policy.stream, d_in, d_out, n, pred);
}

#define SSUM_SELECT(T)                                                                                \
  template std::size_t cuda_copy_if<T, nonzero>(const cuda&, const T*, T*, std::size_t, nonzero);    \
  template std::size_t cuda_copy_if<T, in_range<T>>(const cuda&, const T*, T*, std::size_t, in_range<T>);
SSUM_FOR_EACH_CUDA_KEY(SSUM_SELECT)
#undef SSUM_SELECT

}  // namespace ssum::detail
