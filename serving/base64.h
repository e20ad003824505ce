// Base64 (RFC 4648's standard alphabet) for TensorFlow Serving's REST API, which carries
// binary strings as {"b64": "..."} both ways: decoding accepts the text with or without
// its '=' padding, as TensorFlow Serving's decoder does, and encoding writes the padding.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata::serving {

// The decoded bytes; nullopt when `text` is not base64.
std::optional<std::string> base64_decode(std::string_view text);
std::string base64_encode(std::string_view bytes);

}  // namespace strata::serving
