// Per-thread kernel scratch that only grows: a kernel's temporary matrices live in
// buffers allocated on its first runs and reused by every later one, so a steady-state
// step allocates nothing. Each thread has its own slots; buffers a kernel holds at the
// same time (on one thread, including the calling thread inside its own parallel_for)
// must use distinct slots.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace strata::cpu {

inline constexpr int kScratchSlots = 16;

// `floats` floats in slot `slot` of the calling thread; contents are unspecified.
inline float* scratch(int slot, std::size_t floats) {
  thread_local std::array<std::vector<float>, kScratchSlots> buffers;
  std::vector<float>& b = buffers[static_cast<std::size_t>(slot)];
  if (b.size() < floats) b.resize(floats);
  return b.data();
}

}  // namespace strata::cpu
