#include "layers/keras_class.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace strata::layers {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, std::shared_ptr<const KerasClass>>& registry() {
  static std::map<std::string, std::shared_ptr<const KerasClass>> r;
  return r;
}

}  // namespace

bool register_keras_class(KerasClass description) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::shared_ptr<const KerasClass>& entry = registry()[description.class_name];
  if (entry && entry->hand_written && !description.hand_written) return true;
  entry = std::make_shared<const KerasClass>(std::move(description));
  return true;
}

std::shared_ptr<const KerasClass> find_keras_class(const std::string& class_name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(class_name);
  return it == registry().end() ? nullptr : it->second;
}

std::vector<std::string> keras_class_names() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> names;
  for (const auto& [name, k] : registry()) names.push_back(name);
  return names;
}

}  // namespace strata::layers
