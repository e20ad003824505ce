// Reporting bad input from a CUDA kernel (included by core/cuda/*.cu only): see
// core/cuda/fault_record.h.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/fault_record.h"

namespace strata::cuda {

// Claims `where.record` for this thread when no report came first, and writes `a`, `b`
// and `c` into it; otherwise does nothing. The record is device memory: device-scope
// atomics suffice, and the host reads it only after the stream has finished.
__device__ inline void report_fault(const FaultSite& where, std::int64_t a, std::int64_t b, std::int64_t c) {
  FaultRecord* r = where.record;
  if (atomicCAS(reinterpret_cast<unsigned int*>(&r->claimed), 0u, 1u) != 0u) return;
  r->site = where.site;
  r->values[0] = a;
  r->values[1] = b;
  r->values[2] = c;
}

}  // namespace strata::cuda
