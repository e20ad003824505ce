// Static attributes of a graph node (axis, transpose flags, rates). Comparable, so
// that common-subexpression elimination can tell identical nodes apart.
#pragma once

#include <cstdint>
#include <map>
#include <string>
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
  bool has(const std::string& key) const { return values_.count(key) > 0; }

  template <typename T>
  const T& get(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) throw ValueError("node attribute '" + key + "' is missing");
    const T* v = std::get_if<T>(&it->second);
    if (!v) throw ValueError("node attribute '" + key + "' has another type");
    return *v;
  }
  template <typename T>
  T get_or(const std::string& key, T fallback) const {
    return has(key) ? get<T>(key) : fallback;
  }
  const std::map<std::string, AttrValue>& values() const { return values_; }

  friend bool operator==(const Attrs&, const Attrs&) = default;
  friend bool operator<(const Attrs& a, const Attrs& b) { return a.values_ < b.values_; }

 private:
  std::map<std::string, AttrValue> values_;
};

}  // namespace strata
