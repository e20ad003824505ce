// Static attributes of a graph node (axis, transpose flags, rates). Comparable, so
// that common-subexpression elimination can tell identical nodes apart. Lookups take a
// string_view: a kernel reading "recurrent_activation" builds no std::string (a key
// longer than the small-string buffer would allocate on every step).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/error.h"

namespace strata {

using AttrValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>>;

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> values) : values_(values) {}

  Attrs& set(const std::string& key, AttrValue value) {
    values_[key] = std::move(value);
    return *this;
  }
  bool has(std::string_view key) const { return values_.find(key) != values_.end(); }

  template <typename T>
  const T& get(std::string_view key) const {
    auto it = values_.find(key);
    if (it == values_.end()) throw ValueError("node attribute '" + std::string(key) + "' is missing");
    const T* v = std::get_if<T>(&it->second);
    if (!v) throw ValueError("node attribute '" + std::string(key) + "' has another type");
    return *v;
  }
  // The attribute, or null when the node has none; throws when it has another type.
  // One lookup and no copy: kernels read attributes on every run.
  template <typename T>
  const T* find(std::string_view key) const {
    auto it = values_.find(key);
    if (it == values_.end()) return nullptr;
    const T* v = std::get_if<T>(&it->second);
    if (!v) throw ValueError("node attribute '" + std::string(key) + "' has another type");
    return v;
  }
  template <typename T>
  T get_or(std::string_view key, T fallback) const {
    const T* v = find<T>(key);
    return v ? *v : fallback;
  }
  const std::map<std::string, AttrValue, std::less<>>& values() const { return values_; }

  friend bool operator==(const Attrs&, const Attrs&) = default;
  friend bool operator<(const Attrs& a, const Attrs& b) { return a.values_ < b.values_; }

 private:
  std::map<std::string, AttrValue, std::less<>> values_;
};

}  // namespace strata
