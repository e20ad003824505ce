#include "serving/servable_lookup.h"

#include "serving/errors.h"

namespace strata::serving {

std::string request_spec(const std::string& name, std::optional<std::int64_t> version) {
  return version ? "Specific(" + name + ", " + std::to_string(*version) + ")" : "Latest(" + name + ")";
}

std::shared_ptr<Servable> find_servable(const ModelManager& manager, const std::string& name,
                                        std::optional<std::int64_t> version) {
  if (name != manager.name()) throw not_found("Servable not found for request: " + request_spec(name, version));
  auto s = version ? manager.version(*version) : manager.latest();
  if (!s) {
    std::string why = manager.unavailable_reason();
    if (version && manager.latest()) why = "the served version is " + std::to_string(manager.latest()->version());
    throw not_found("Servable not found for request: " + request_spec(name, version) +
                    (why.empty() ? "" : " (" + why + ")"));
  }
  return s;
}

std::vector<VersionStatus> find_statuses(const ModelManager& manager, const std::string& name,
                                         std::optional<std::int64_t> version) {
  if (name != manager.name()) throw not_found("Could not find any versions of model " + name);
  std::vector<VersionStatus> found;
  for (const auto& s : manager.statuses()) {
    if (!version || s.version == *version) found.push_back(s);
  }
  if (found.empty()) {
    if (version) throw not_found("Could not find version " + std::to_string(*version) + " of model " + name);
    throw not_found("Could not find any versions of model " + name + " (" + manager.unavailable_reason() + ")");
  }
  return found;
}

void throw_unknown_label(const std::string& label) {
  throw invalid_argument("Unrecognized servable version label: " + label +
                         " (strata-serve defines no labels; ask for a version number)");
}

bool is_default_signature(const std::string& signature_name) {
  return signature_name.empty() || signature_name == kDefaultSignature;
}

}  // namespace strata::serving
