#pragma once
// Internal: the device memory both GPU solvers plan with (src/solver/gpu/solver_memory.cu;
// src/solver/gpu/cuda_unavailable.cpp in builds without CUDA). Host-only declaration.

namespace ssum::detail {

/// Bytes a solve on `device` may plan for: 95% of the free memory plus what the solvers'
/// kept allocation already holds there. Throws ssum::cuda_error.
double cuda_solver_room(int device);

}  // namespace ssum::detail
