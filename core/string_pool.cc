#include "core/string_pool.h"

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_set>
#include <vector>

namespace strata {
namespace {

// Strings are copied into large blocks that never move or free, so a handle's pointer
// stays valid; the set indexes the pooled copies.
class StringPool {
 public:
  StringValue intern(std::string_view value) {
    if (value.empty()) return {};
    {
      std::shared_lock lock(mutex_);
      auto it = index_.find(value);
      if (it != index_.end()) return {it->data(), it->size()};
    }
    std::unique_lock lock(mutex_);
    auto it = index_.find(value);
    if (it != index_.end()) return {it->data(), it->size()};
    const char* copy = store(value);
    index_.insert(std::string_view(copy, value.size()));
    bytes_ += value.size();
    return {copy, value.size()};
  }
  std::size_t bytes() {
    std::shared_lock lock(mutex_);
    return bytes_;
  }
  std::size_t size() {
    std::shared_lock lock(mutex_);
    return index_.size();
  }

 private:
  static constexpr std::size_t kBlock = 1 << 16;

  const char* store(std::string_view value) {
    if (value.size() > kBlock / 4) {  // large values get a block of their own
      blocks_.push_back(std::make_unique<char[]>(value.size()));
      std::copy(value.begin(), value.end(), blocks_.back().get());
      return blocks_.back().get();
    }
    if (!current_ || used_ + value.size() > kBlock) {
      blocks_.push_back(std::make_unique<char[]>(kBlock));
      current_ = blocks_.back().get();
      used_ = 0;
    }
    char* out = current_ + used_;
    std::copy(value.begin(), value.end(), out);
    used_ += value.size();
    return out;
  }

  std::shared_mutex mutex_;
  std::unordered_set<std::string_view> index_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* current_ = nullptr;
  std::size_t used_ = 0;
  std::size_t bytes_ = 0;
};

StringPool& pool() {
  static StringPool* p = new StringPool();  // never destroyed: handles outlive statics
  return *p;
}

}  // namespace

StringValue intern_string(std::string_view value) { return pool().intern(value); }
std::size_t string_pool_bytes() { return pool().bytes(); }
std::size_t string_pool_size() { return pool().size(); }

}  // namespace strata
