#include "serving/tensor_json.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string_view>

#include "core/string_pool.h"
#include "serving/base64.h"
#include "serving/errors.h"

namespace strata::serving {
namespace {

using json = nlohmann::json;

std::string shape_string(const std::vector<std::int64_t>& dims) { return Shape(dims).to_string(); }

std::string index_path(const std::vector<std::int64_t>& path) {
  std::string s;
  for (std::int64_t i : path) s += "[" + std::to_string(i) + "]";
  return s;
}

// TensorFlow Serving's encoding of binary strings: {"b64": "..."}, a value and not an
// object of named inputs.
bool is_b64(const json& v) { return v.is_object() && v.size() == 1 && v.contains("b64"); }

bool is_named_inputs(const json& v) { return v.is_object() && !is_b64(v); }

std::string json_kind(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a bool";
  if (v.is_null()) return "null";
  if (v.is_object()) return "an object";
  if (v.is_array()) return "a list";
  return "a number";
}

// One input's numbers, read from JSON values (a number or nested lists of numbers) into a
// flat buffer of the input's dtype.
class ValueBuffer {
 public:
  ValueBuffer(const TensorInfo& info, std::string where) : info_(info), where_(std::move(where)) {}

  // Appends `value`'s numbers (row-major) and returns its shape. `what` says where it
  // came from ("instance 3"), for messages.
  std::vector<std::int64_t> append(const json& value, const std::string& what) {
    std::vector<std::int64_t> shape;
    for (const json* v = &value; v->is_array(); v = &(*v)[0]) {
      shape.push_back(static_cast<std::int64_t>(v->size()));
      if (v->empty()) break;
      if (shape.size() > info_.shape.dims().size()) {
        throw invalid_argument(where_ + ", " + what + ": lists nested " + std::to_string(shape.size()) +
                               " deep or more, but the input has rank " + std::to_string(info_.shape.rank()));
      }
    }
    std::vector<std::int64_t> path;
    walk(value, shape, path, what);
    return shape;
  }

  Tensor to_tensor(const Shape& shape) const {
    Tensor t(shape, info_.dtype);
    if (info_.dtype == DType::float32) {
      std::memcpy(t.raw_data(), floats_.data(), floats_.size() * sizeof(float));
    } else if (info_.dtype == DType::int64) {
      std::memcpy(t.raw_data(), ints_.data(), ints_.size() * sizeof(std::int64_t));
    } else if (info_.dtype == DType::string) {
      std::copy(strings_.begin(), strings_.end(), t.data<StringValue>());
    } else {
      auto* p = t.data<std::int32_t>();
      for (std::size_t i = 0; i < ints_.size(); ++i) p[i] = static_cast<std::int32_t>(ints_[i]);
    }
    return t;
  }

 private:
  void walk(const json& v, const std::vector<std::int64_t>& shape, std::vector<std::int64_t>& path,
            const std::string& what) {
    const std::size_t depth = path.size();
    if (depth == shape.size()) {
      if (v.is_array()) {
        throw invalid_argument(where_ + ", " + what + ": ragged: " + index_path(path) +
                               " is a list where " + index_path(std::vector<std::int64_t>(depth, 0)) +
                               " is a number");
      }
      leaf(v, path, what);
      return;
    }
    if (!v.is_array() || static_cast<std::int64_t>(v.size()) != shape[depth]) {
      throw invalid_argument(
          where_ + ", " + what + ": ragged: " + (path.empty() ? "the value" : index_path(path)) + " is " +
          (v.is_array() ? "a list of " + std::to_string(v.size()) : json_kind(v)) + " where " +
          (path.empty() ? "the value" : index_path(std::vector<std::int64_t>(depth, 0))) + " is a list of " +
          std::to_string(shape[depth]) + "; nested lists must be rectangular");
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      path.push_back(static_cast<std::int64_t>(i));
      walk(v[i], shape, path, what);
      path.pop_back();
    }
  }

  void leaf(const json& v, const std::vector<std::int64_t>& path, const std::string& what) {
    auto bad = [&](const std::string& found) {
      return invalid_argument(where_ + " has dtype " + to_string(info_.dtype) + ": expected " +
                              (info_.dtype == DType::float32 ? "a number" : "an integer") + ", got " +
                              found + " at " + what + index_path(path));
    };
    if (info_.dtype == DType::string) {
      if (is_b64(v)) {
        const json& text = v["b64"];
        std::optional<std::string> bytes = text.is_string() ? base64_decode(text.get<std::string>()) : std::nullopt;
        if (!bytes) {
          throw invalid_argument("Unable to base64 decode the {\"b64\": ...} value of " + where_ + " at " + what +
                                 index_path(path) + ": " + (text.is_string() ? "not base64" : json_kind(text)));
        }
        strings_.push_back(intern_string(*bytes));
        return;
      }
      if (!v.is_string()) {
        throw invalid_argument(where_ + " has dtype string: expected a string or {\"b64\": ...}, got " + json_kind(v) +
                               " at " + what + index_path(path));
      }
      strings_.push_back(intern_string(v.get<std::string>()));
      return;
    }
    if (info_.dtype == DType::float32) {
      if (v.is_number_float()) {
        const auto f = static_cast<float>(v.get<double>());
        if (!std::isfinite(f)) throw bad(v.dump() + ", which is not a finite float32");
        floats_.push_back(f);
      } else if (v.is_number_integer()) {
        floats_.push_back(v.is_number_unsigned() ? static_cast<float>(v.get<std::uint64_t>())
                                                 : static_cast<float>(v.get<std::int64_t>()));
      } else {
        throw bad(json_kind(v));
      }
      return;
    }
    if (v.is_number_float()) throw bad(v.dump());
    if (!v.is_number_integer()) throw bad(json_kind(v));
    const bool is32 = info_.dtype == DType::int32;
    const std::int64_t lo = is32 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
    const std::int64_t hi = is32 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int64_t>::max();
    if (v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)
                               : v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
      throw bad(v.dump() + ", out of range for " + to_string(info_.dtype));
    }
    ints_.push_back(v.get<std::int64_t>());
  }

  const TensorInfo& info_;
  std::string where_;
  std::vector<float> floats_;
  std::vector<std::int64_t> ints_;
  std::vector<StringValue> strings_;
};

std::string input_names(const Signature& sig) {
  std::string s;
  for (const auto& i : sig.inputs) s += (s.empty() ? "'" : ", '") + i.name + "'";
  return s;
}

// Object keys must all be input names.
void check_keys(const json& object, const Signature& sig, const std::string& what) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const auto& i : sig.inputs) known = known || i.name == key;
    if (!known) {
      throw invalid_argument(what + " names input '" + key + "', which the model does not have; its inputs are " +
                             input_names(sig));
    }
  }
}

const json& named_value(const json& object, const TensorInfo& input, const std::string& what) {
  auto it = object.find(input.name);
  if (it == object.end()) throw invalid_argument(what + " has no value for input '" + input.name + "'");
  return *it;
}

void check_shape(const TensorInfo& input, const std::vector<std::int64_t>& dims, const std::string& what) {
  const auto& want = input.shape.dims();
  bool ok = dims.size() == want.size();
  for (std::size_t d = 0; ok && d < dims.size(); ++d) ok = want[d] == kUnknownDim || want[d] == dims[d];
  if (!ok) {
    throw invalid_argument("input '" + input.name + "' expects shape " + input.shape.to_string() + ", got " +
                           shape_string(dims) + " from " + what);
  }
}

PredictRequest parse_rows(const json& instances, const Signature& sig) {
  if (!instances.is_array()) throw invalid_argument("'instances' must be a list, got " + json_kind(instances));
  if (instances.empty()) throw invalid_argument("'instances' is an empty list");
  const bool named = is_named_inputs(instances[0]);
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const std::string what = "instance " + std::to_string(i);
    if (is_named_inputs(instances[i]) != named) {
      throw invalid_argument(what + " is " + json_kind(instances[i]) + " but instance 0 is " + json_kind(instances[0]) +
                             "; instances must all be objects keyed by input name, or all values");
    }
    if (named) check_keys(instances[i], sig, what);
  }
  if (!named && sig.inputs.size() != 1) {
    throw invalid_argument("the model has " + std::to_string(sig.inputs.size()) + " inputs (" + input_names(sig) +
                           "): each instance must be an object keyed by input name");
  }
  PredictRequest request{RequestFormat::kRow, {}};
  const auto n = static_cast<std::int64_t>(instances.size());
  for (const auto& input : sig.inputs) {
    ValueBuffer buffer(input, "input '" + input.name + "'");
    std::vector<std::int64_t> first;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::string what = "instance " + std::to_string(i);
      const json& v = named ? named_value(instances[i], input, what) : instances[i];
      auto dims = buffer.append(v, what);
      if (i == 0) {
        first = dims;
      } else if (dims != first) {
        throw invalid_argument("input '" + input.name + "': instance " + std::to_string(i) + " has shape " +
                               shape_string(dims) + " but instance 0 has " + shape_string(first) +
                               "; all instances must have the same shape");
      }
    }
    std::vector<std::int64_t> dims{n};
    dims.insert(dims.end(), first.begin(), first.end());
    check_shape(input, dims, "instances of shape " + shape_string(first));
    request.inputs.push_back(buffer.to_tensor(Shape(dims)));
  }
  return request;
}

PredictRequest parse_columns(const json& inputs, const Signature& sig) {
  const bool named = is_named_inputs(inputs);
  if (named) check_keys(inputs, sig, "'inputs'");
  if (!named && sig.inputs.size() != 1) {
    throw invalid_argument("the model has " + std::to_string(sig.inputs.size()) + " inputs (" + input_names(sig) +
                           "): 'inputs' must be an object keyed by input name");
  }
  PredictRequest request{RequestFormat::kColumnar, {}};
  for (const auto& input : sig.inputs) {
    const json& v = named ? named_value(inputs, input, "'inputs'") : inputs;
    ValueBuffer buffer(input, "input '" + input.name + "'");
    auto dims = buffer.append(v, "'inputs'");
    check_shape(input, dims, "'inputs'");
    if (dims[0] == 0) throw invalid_argument("input '" + input.name + "' has no rows");
    if (!request.inputs.empty() && request.inputs[0].shape()[0] != dims[0]) {
      throw invalid_argument("input '" + input.name + "' has " + std::to_string(dims[0]) + " rows but input '" +
                             sig.inputs[0].name + "' has " + std::to_string(request.inputs[0].shape()[0]) +
                             "; every input needs one row per example");
    }
    request.inputs.push_back(buffer.to_tensor(Shape(dims)));
  }
  return request;
}

// Writers: JSON text for tensors, straight into the response string.
void write_number(std::string& out, float v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "Infinity" : "-Infinity";
  } else {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, end);
  }
}

template <typename T>
void write_integer(std::string& out, T v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

// Writes the sub-tensor of `t` at flat element offset `offset` spanning dims [axis, rank).
// A string output: {"b64": ...} when the output's name ends in "_bytes", as TensorFlow
// Serving writes them; else a JSON string, with bytes that are not UTF-8 replaced by U+FFFD.
void write_string(std::string& out, std::string_view value, bool as_b64) {
  if (as_b64) {
    out += "{\"b64\":\"" + base64_encode(value) + "\"}";
  } else {
    out += json(std::string(value)).dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

void write_values(std::string& out, const Tensor& t, int axis, std::int64_t offset, bool as_b64) {
  if (axis == t.rank()) {
    switch (t.dtype()) {
      case DType::float32:
        write_number(out, t.data<float>()[offset]);
        break;
      case DType::int32:
        write_integer(out, t.data<std::int32_t>()[offset]);
        break;
      case DType::int64:
        write_integer(out, t.data<std::int64_t>()[offset]);
        break;
      case DType::string:
        write_string(out, t.data<StringValue>()[offset].view(), as_b64);
        break;
    }
    return;
  }
  const std::int64_t n = t.shape()[axis];
  const std::int64_t stride = t.shape().product(axis + 1, t.rank());
  out += '[';
  for (std::int64_t i = 0; i < n; ++i) {
    if (i) out += ',';
    write_values(out, t, axis + 1, offset + i * stride, as_b64);
  }
  out += ']';
}

void write_name(std::string& out, const std::string& name) { out += json(name).dump() + ":"; }

}  // namespace

PredictRequest parse_predict_request(const json& request, const Signature& sig) {
  if (!request.is_object()) throw invalid_argument("the request body must be a JSON object, got " + json_kind(request));
  const bool rows = request.contains("instances"), columns = request.contains("inputs");
  if (rows && columns) throw invalid_argument("the request has both 'instances' and 'inputs'; send one of them");
  if (!rows && !columns) throw invalid_argument("the request has neither 'instances' (row format) nor 'inputs' (columnar format)");
  return rows ? parse_rows(request["instances"], sig) : parse_columns(request["inputs"], sig);
}

std::string predict_response_json(RequestFormat format, const std::vector<Tensor>& outputs, const Signature& sig) {
  std::string out;
  const bool several = outputs.size() > 1;
  if (format == RequestFormat::kColumnar) {
    out += "{\"outputs\":";
    if (several) out += '{';
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      if (k) out += ',';
      if (several) write_name(out, sig.outputs[k].name);
      write_values(out, outputs[k], 0, 0, sig.outputs[k].name.ends_with("_bytes"));
    }
    if (several) out += '}';
    return out + "}";
  }
  out += "{\"predictions\":[";
  const std::int64_t n = outputs.empty() || outputs[0].rank() == 0 ? 0 : outputs[0].shape()[0];
  for (std::int64_t i = 0; i < n; ++i) {
    if (i) out += ',';
    if (several) out += '{';
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      if (k) out += ',';
      if (several) write_name(out, sig.outputs[k].name);
      write_values(out, outputs[k], 1, i * outputs[k].shape().product(1, outputs[k].rank()),
                   sig.outputs[k].name.ends_with("_bytes"));
    }
    if (several) out += '}';
  }
  return out + "]}";
}

}  // namespace strata::serving
