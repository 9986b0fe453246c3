// Built instead of src/cuda/ when CUDA is not found or switched off.
#include <cmath>

#include "solver/dp/bitset_dp_cuda.hpp"
#include "solver/four_list/four_list_cuda.hpp"
#include "solver/gpu/cuda_room.hpp"
#include "solver/two_list/enumerate_cuda.hpp"
#include "solver/two_list/two_list_cuda.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"

namespace ssum {

bool cuda_compiled() noexcept { return false; }

std::vector<cuda_device_info> cuda_devices() { return {}; }

void cuda_self_test(int) { throw backend_unavailable("this build of ssum has no CUDA backend"); }

void release_cuda_memory() {}

std::size_t cuda_memory_kept() { return 0; }

namespace detail {
solution solve_two_list_cuda(const cuda&, const problem&, const flipped_totals&, const solve_options&, unsigned) {
  throw backend_unavailable("this build of ssum has no CUDA backend");
}
solution solve_four_list_cuda(const cuda&, const problem&, const flipped_totals&, const solve_options&,
                              const four_list_tuning&) {
  throw backend_unavailable("this build of ssum has no CUDA backend");
}
double cuda_solver_room(int) { return 0; }
std::string enumerate_cuda_refusal(const std::vector<int128>&) { return "this build of ssum has no CUDA backend"; }
double enumerate_cuda_bytes(std::size_t) { return 0; }
enumerate_result enumerate_subsets_cuda(int, const enumerate_request&,
                                        const std::function<bool(const std::vector<std::size_t>&)>&,
                                        const enumerate_cuda_tuning&) {
  throw backend_unavailable("this build of ssum has no CUDA backend");
}
enumerate_result enumerate_pairs_cuda(int, const enumerate_request&, std::uint64_t, const pair_sink&,
                                      const enumerate_cuda_tuning&) {
  throw backend_unavailable("this build of ssum has no CUDA backend");
}
double dp_cuda_seconds(const reduction&) { return std::ldexp(1.0, 127); }
solution solve_dp(const cuda&, const problem&, const reduction&, const solve_options&, dp_cuda_stats*) {
  throw backend_unavailable("this build of ssum has no CUDA backend");
}
}  // namespace detail

}  // namespace ssum
