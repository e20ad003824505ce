#include "serving/servable_lookup.h"

#include "serving/errors.h"

namespace strata::serving {

std::string request_spec(const std::string& name, std::optional<std::int64_t> version) {
  return version ? "Specific(" + name + ", " + std::to_string(*version) + ")" : "Latest(" + name + ")";
}

std::shared_ptr<Servable> find_servable(const ModelRegistry& models, const std::string& name,
                                        std::optional<std::int64_t> version) {
  const auto manager = models.find(name);
  if (!manager) throw not_found("Servable not found for request: " + request_spec(name, version));
  auto s = version ? manager->version(*version) : manager->latest();
  if (!s) {
    std::string why = manager->unavailable_reason();
    if (const auto served = manager->served_versions(); version && !served.empty()) {
      why = served.size() == 1 ? "the served version is " : "the served versions are ";
      for (std::size_t i = 0; i < served.size(); ++i) why += (i ? ", " : "") + std::to_string(served[i]);
    }
    throw not_found("Servable not found for request: " + request_spec(name, version) +
                    (why.empty() ? "" : " (" + why + ")"));
  }
  return s;
}

std::vector<VersionStatus> find_statuses(const ModelRegistry& models, const std::string& name,
                                         std::optional<std::int64_t> version) {
  const auto manager = models.find(name);
  if (!manager) throw not_found("Could not find any versions of model " + name);
  std::vector<VersionStatus> found;
  for (const auto& s : manager->statuses()) {
    if (!version || s.version == *version) found.push_back(s);
  }
  if (found.empty()) {
    if (version) throw not_found("Could not find version " + std::to_string(*version) + " of model " + name);
    throw not_found("Could not find any versions of model " + name + " (" + manager->unavailable_reason() + ")");
  }
  return found;
}

std::int64_t find_label(const ModelRegistry& models, const std::string& name, const std::string& label) {
  const auto manager = models.find(name);
  if (!manager) throw not_found("Servable not found for request: Latest(" + name + ")");
  if (auto version = manager->label(label)) return *version;
  throw invalid_argument("Unrecognized servable version label: " + label);
}

bool is_default_signature(const std::string& signature_name) {
  return signature_name.empty() || signature_name == kDefaultSignature;
}

}  // namespace strata::serving
