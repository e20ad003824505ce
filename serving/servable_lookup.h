// What a request names (model, version or label) resolved against the ModelRegistry, with
// TensorFlow Serving's NOT_FOUND messages, for the REST handler and the gRPC services
// alike: both APIs find servables and statuses here, so they answer the same.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "serving/model_registry.h"

namespace strata::serving {

// How TensorFlow Serving names a request in its messages: "Latest(NAME)" or
// "Specific(NAME, VERSION)".
std::string request_spec(const std::string& name, std::optional<std::int64_t> version);

// The servable `name` (at `version`, or the latest). Throws NOT_FOUND "Servable not found
// for request: ..." (with why, when the manager knows) when the model or the version is
// not served.
std::shared_ptr<Servable> find_servable(const ModelRegistry& models, const std::string& name,
                                        std::optional<std::int64_t> version);

// The statuses of `name`'s versions (only `version`'s when given), in increasing order.
// Throws NOT_FOUND "Could not find any versions of model NAME" / "Could not find version
// V of model NAME" when there are none.
std::vector<VersionStatus> find_statuses(const ModelRegistry& models, const std::string& name,
                                         std::optional<std::int64_t> version);

// The version `label` names for model `name` (its config's version_labels). Throws
// TensorFlow Serving's INVALID_ARGUMENT "Unrecognized servable version label: LABEL" when the
// model has no such label, NOT_FOUND when there is no model `name`.
std::int64_t find_label(const ModelRegistry& models, const std::string& name, const std::string& label);

// The signature names a request may give for the one signature a Keras model has:
// "serving_default", or empty (the default).
bool is_default_signature(const std::string& signature_name);
inline constexpr const char* kDefaultSignature = "serving_default";

}  // namespace strata::serving
