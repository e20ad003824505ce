// What a CUDA kernel writes when it meets input it cannot handle (plain C++17: the .cu
// files and the host side both see it). A kernel cannot throw as the CPU kernel does, so
// the first thread to meet bad input claims the run context's record and writes what it
// found; the host reads the record back when the run context synchronizes and throws the
// CPU kernel's exception (core/cuda/fault_report.h). Later reports, by any thread of any
// kernel, find the record claimed and are dropped: the message names one bad element,
// not necessarily the first in index order.
#pragma once

#include <cstdint>

namespace strata::cuda {

struct FaultRecord {
  std::uint32_t claimed = 0;  // 0 until a thread claims the record (atomicCAS)
  std::int32_t site = 0;      // which armed launch reported: FaultReport::arm's index
  std::int64_t values[3] = {0, 0, 0};  // what the kernel found (the site's message reads them)
};

// What a launcher that may report is given: the record, and its own site index.
struct FaultSite {
  FaultRecord* record = nullptr;
  std::int32_t site = 0;
};

}  // namespace strata::cuda
