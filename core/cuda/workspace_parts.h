// One kernel call's scratch arrays, carved from one block of a run context's workspace
// (core/cuda/workspace.h), each 256-byte aligned: every part is added first, then the
// block is asked for once (the workspace may move when it grows, so no pointer is taken
// before). A part of no bytes is null. Used by the recurrent ops' kernels
// (core/cuda/rnn_kernels.cc, core/cuda/cudnn_rnn.cc).
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "core/cuda/workspace.h"

namespace strata::cuda {

class WorkspaceParts {
 public:
  // Adds a part of `bytes`; returns its index for at().
  int add(std::size_t bytes) {
    offsets_.push_back(bytes > 0 ? total_ : kNone);
    total_ += (bytes + 255) / 256 * 256;
    return static_cast<int>(offsets_.size()) - 1;
  }
  // Asks `workspace` for the parts added so far (nothing when they are all empty).
  void carve(Workspace& workspace) {
    if (total_ > 0) base_ = static_cast<char*>(workspace.get(total_));
  }
  template <typename T>
  T* at(int part) const {
    const std::size_t offset = offsets_[static_cast<std::size_t>(part)];
    return offset == kNone ? nullptr : reinterpret_cast<T*>(base_ + offset);
  }

 private:
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> offsets_;
  std::size_t total_ = 0;
  char* base_ = nullptr;
};

}  // namespace strata::cuda
