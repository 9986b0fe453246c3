#pragma once
// Execution policies: the first argument of every ssum algorithm chooses its backend.

struct CUstream_st;  // the CUDA runtime's stream type, declared here so that no CUDA header is needed

namespace ssum {

/// Host execution with OpenMP; threads == 0 uses every hardware thread.
struct cpu {
  unsigned threads = 0;
};

/// Device execution on `device`, ordered on `stream` (nullptr: the legacy default stream).
struct cuda {
  CUstream_st* stream = nullptr;
  int device = 0;
};

/// Number of threads a cpu policy resolves to.
unsigned resolved_threads(const cpu& policy);

}  // namespace ssum
