#include "distribution/communicator.h"

#include <cstring>

namespace strata::distribution {

void LocalCommunicator::all_gather(const void* data, std::int64_t bytes, std::vector<char>& out) {
  out.resize(static_cast<std::size_t>(bytes));
  if (bytes > 0) std::memcpy(out.data(), data, static_cast<std::size_t>(bytes));
}

}  // namespace strata::distribution
