// Bad input met by CUDA kernels, turned into the CPU kernel's exception (built only with
// STRATA_WITH_CUDA). A CUDA kernel only enqueues work and cannot throw where its CPU
// kernel does (an embedding's token id outside [0, input_dim), say). Instead its launch
// is armed with a site — the node and how to word its fault — and a thread meeting bad
// input writes what it found into the run context's one device record
// (core/cuda/fault_record.cuh). When the run context synchronizes (which every run of a
// Program does before its first variable update and at its end), the record is copied
// back and, when a kernel wrote it, the site's message is thrown as a ValueError: the
// CPU kernel's message and type, raised once the enqueued work has finished, and before
// a training step has written any variable. A Program whose kernels never arm a launch
// pays nothing: no record is made and nothing is copied back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda/fault_record.h"

struct CUstream_st;

namespace strata {
struct Node;
}

namespace strata::cuda {

class FaultReport {
 public:
  // The message of a fault at `node`, from what the kernel wrote into `record.values`.
  using Message = std::string (*)(const Node& node, const FaultRecord& record);

  FaultReport(int device, CUstream_st* stream) : device_(device), stream_(stream) {}
  ~FaultReport();  // waits for the stream (a copy may be pending), then frees the record
  FaultReport(const FaultReport&) = delete;
  FaultReport& operator=(const FaultReport&) = delete;

  // For a kernel about to enqueue work that may report: the record (made and zeroed on
  // the stream by the first call) and a new site naming `node`, valid until the next
  // check. `node` must outlive that check. Throws strata::Error when CUDA fails.
  FaultSite arm(const Node& node, Message message);
  // Before the stream is synchronized: enqueues the record's copy to the host when a
  // launch was armed since the last check.
  void enqueue_read_back();
  // After the stream has finished: when a kernel reported, clears the record (on the
  // stream) and throws ValueError with its site's message. Forgets this run's sites
  // either way.
  void throw_if_reported();
  // Launches armed over the report's life. A CUDA graph replays without the check
  // between a step's reads and its variable updates, so an execution state whose run
  // armed one runs eagerly (docs/gpu.md, "CUDA graphs").
  std::int64_t armed_launches() const { return armed_launches_; }

 private:
  struct Site {
    const Node* node;
    Message message;
  };

  int device_;
  CUstream_st* stream_;
  FaultRecord* device_record_ = nullptr;  // a caching allocator block
  FaultRecord* host_record_ = nullptr;    // pinned: the copy back is enqueued on the stream
  std::vector<Site> sites_;               // armed since the last check; keeps its capacity
  bool read_back_pending_ = false;
  std::int64_t armed_launches_ = 0;
};

}  // namespace strata::cuda
