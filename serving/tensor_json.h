// TensorFlow Serving's predict bodies <-> tensors.
//
// Requests: the row format {"instances": [...]} (one entry per example: a value for a
// one-input model, or an object keyed by input name) and the columnar format
// {"inputs": ...} (a tensor for a one-input model, or an object of named tensors), read
// into one tensor per model input, in the signature's order. Numbers are checked against
// the input's dtype (integers are fine for a float input; a float, string, bool or null is
// not fine for an integer one), string inputs take JSON strings or {"b64": "..."} (binary,
// base64; such an object is a value, never an object of named inputs), and nested lists
// must be rectangular; every error is an INVALID_ARGUMENT (400) naming the input, the
// instance and the position inside it.
//
// Responses: {"predictions": [...]} for the row format (one entry per example; an object
// keyed by output name when the model has several outputs) and {"outputs": ...} for the
// columnar format (a tensor, or an object of named tensors). Strings are JSON strings
// (bytes that are not UTF-8 replaced by U+FFFD), or {"b64": ...} for an output whose name
// ends in "_bytes", as TensorFlow Serving writes them. Floats are written in their
// shortest round-trip form; NaN and infinities as NaN, Infinity and -Infinity, as
// TensorFlow Serving writes them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "serving/signature.h"

namespace strata::serving {

enum class RequestFormat { kRow, kColumnar };

struct PredictRequest {
  RequestFormat format = RequestFormat::kRow;
  std::vector<Tensor> inputs;  // one per signature input, batch-major
};

// Throws ServingError (400) for any request the signature does not accept.
PredictRequest parse_predict_request(const nlohmann::json& request, const Signature& signature);

// The response body for `outputs` (one per signature output, batch-major).
std::string predict_response_json(RequestFormat format, const std::vector<Tensor>& outputs,
                                  const Signature& signature);

}  // namespace strata::serving
