#pragma once
// SSUM_HOST_DEVICE marks functions that are host C++ and, compiled by nvcc, device code too
// (merge_path.hpp, merge.hpp's generators, the GPU four-list's per-element rules). Needs no
// CUDA header.
#ifndef SSUM_HOST_DEVICE
#if defined(__CUDACC__)
#define SSUM_HOST_DEVICE __host__ __device__
#else
#define SSUM_HOST_DEVICE
#endif
#endif
