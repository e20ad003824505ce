#include "serving/model_registry.h"

#include <iostream>
#include <set>

#include "core/error.h"

namespace strata::serving {

ModelRegistry::ModelRegistry(ModelManagerOptions model) {
  const std::string name = model.name;
  models_[name] = std::make_shared<ModelManager>(std::move(model));
}

void ModelRegistry::configure(std::vector<ModelManagerOptions> models) {
  std::lock_guard configuring(configure_mu_);
  std::set<std::string> names;
  for (const auto& m : models) {
    if (m.name.empty()) throw ValueError("a served model needs a name");
    if (!names.insert(m.name).second) throw ValueError("the model name '" + m.name + "' is configured twice");
  }
  std::map<std::string, std::shared_ptr<ModelManager>> current;
  bool polling;
  {
    std::shared_lock lock(mu_);
    current = models_;
    polling = polling_;
  }
  // Loading takes long: done outside the lock, while requests keep being answered.
  std::map<std::string, std::shared_ptr<ModelManager>> next;
  for (auto& m : models) {
    auto it = current.find(m.name);
    if (it != current.end()) {
      const ModelManagerOptions was = it->second->options();
      if (was.base_path == m.base_path && was.batching == m.batching &&
          was.file_system_poll_wait_seconds == m.file_system_poll_wait_seconds) {
        if (!(was.version_policy == m.version_policy) || was.version_labels != m.version_labels) {
          it->second->update(m.version_policy, m.version_labels);
        }
        next[m.name] = it->second;
        continue;
      }
    }
    const std::string name = m.name;
    auto manager = std::make_shared<ModelManager>(std::move(m));
    if (polling) manager->start_polling();
    next[name] = std::move(manager);
  }
  for (const auto& [name, manager] : current) {
    if (!next.contains(name)) std::cerr << "strata-serve: model '" << name << "' is no longer served" << std::endl;
  }
  std::unique_lock lock(mu_);
  models_ = std::move(next);
  // The managers dropped are destroyed when their last request lets go of them.
}

void ModelRegistry::start_polling() {
  std::unique_lock lock(mu_);
  polling_ = true;
  for (auto& [name, manager] : models_) manager->start_polling();
}

std::shared_ptr<ModelManager> ModelRegistry::find(const std::string& name) const {
  std::shared_lock lock(mu_);
  auto it = models_.find(name);
  return it == models_.end() ? nullptr : it->second;
}

std::vector<std::string> ModelRegistry::names() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, manager] : models_) out.push_back(name);
  return out;
}

}  // namespace strata::serving
