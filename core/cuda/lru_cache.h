// A map of bounded size that forgets its least recently used entry: what the CUDA run
// context keeps per-call host work in (core/cuda/cudnn_conv_plan_cache.h: cuDNN
// convolution plans), so that a model fed ever-changing shapes cannot grow it without
// bound. Plain C++ (no CUDA, no cuDNN): tests/core/cuda_conv_plan_cache_test.cc checks
// its policy in every build. Not thread-safe, by design: a run context serves one
// execution state, which runs one call at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace strata::cuda {

template <typename Key, typename Value, typename Hash = std::hash<Key>>
class LruCache {
 public:
  // Throws std::invalid_argument for a capacity of 0: a cache that keeps nothing would
  // hand out a value it has just destroyed.
  explicit LruCache(std::size_t capacity) : capacity_(capacity) {
    if (capacity == 0) throw std::invalid_argument("LruCache: capacity must be at least 1");
  }
  LruCache(const LruCache&) = delete;
  LruCache& operator=(const LruCache&) = delete;

  // The value for `key`, now the most recently used. On a miss, `build()` makes it (a
  // std::unique_ptr<Value>: values may be neither copyable nor movable, as RAII
  // descriptors are) and the least recently used entry is dropped when the cache is
  // over capacity. When `build` throws, the cache is as it was. The reference stays
  // valid until the next call that may evict.
  template <typename Build>
  Value& find_or_build(const Key& key, Build&& build) {
    if (auto found = index_.find(key); found != index_.end()) {
      entries_.splice(entries_.begin(), entries_, found->second);  // to the front
      ++hits_;
      return *found->second->second;
    }
    std::unique_ptr<Value> value = std::forward<Build>(build)();
    entries_.emplace_front(key, std::move(value));
    try {
      index_.emplace(key, entries_.begin());
    } catch (...) {
      entries_.pop_front();
      throw;
    }
    ++built_;
    if (entries_.size() > capacity_) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
      ++evicted_;
    }
    return *entries_.front().second;
  }

  // Whether `key` has a value, without making it the most recently used.
  bool contains(const Key& key) const { return index_.count(key) != 0; }
  // The keys, most recently used first (the order in which they would survive eviction).
  std::vector<Key> keys_by_recency() const {
    std::vector<Key> keys;
    keys.reserve(entries_.size());
    for (const auto& entry : entries_) keys.push_back(entry.first);
    return keys;
  }

  std::size_t size() const { return entries_.size(); }
  std::size_t capacity() const { return capacity_; }
  // Counters over the cache's life: values built (misses), lookups served without
  // building, and entries dropped for want of room.
  std::int64_t built() const { return built_; }
  std::int64_t hits() const { return hits_; }
  std::int64_t evicted() const { return evicted_; }

 private:
  using Entries = std::list<std::pair<Key, std::unique_ptr<Value>>>;

  std::size_t capacity_;
  Entries entries_;  // most recently used first
  std::unordered_map<Key, typename Entries::iterator, Hash> index_;
  std::int64_t built_ = 0, hits_ = 0, evicted_ = 0;
};

}  // namespace strata::cuda
