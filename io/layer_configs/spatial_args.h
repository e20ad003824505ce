// Config helpers shared by the convolution, pooling and reshaping units: Keras's
// int-or-tuple arguments (Keras 2 writes tuples as lists: "kernel_size": [3, 3], Conv1D's
// [3]), padding strings and data_format (null means Keras's default, channels_last).
#pragma once

#include <cctype>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "io/layer_config.h"
#include "layers/conv_utils.h"

namespace strata::io::spatial {

// An int, or a list of `n` ints (n = 1 or 2), each at least `min`.
inline std::vector<std::int64_t> ints(const json& v, std::size_t n, const std::string& key,
                                      const std::string& where, std::int64_t min = 1) {
  std::vector<std::int64_t> out;
  if (v.is_number_integer()) {
    out.assign(n, v.get<std::int64_t>());
  } else if (v.is_array() && v.size() == n) {
    for (const auto& e : v) {
      if (!e.is_number_integer()) break;
      out.push_back(e.get<std::int64_t>());
    }
  }
  if (out.size() != n) {
    throw ValueError(where + ": '" + key + "' must be an integer or a list of " +
                     std::to_string(n) + " integers, got " + v.dump());
  }
  for (auto x : out) {
    if (x < min) {
      throw ValueError(where + ": '" + key + "' must be >= " + std::to_string(min) + ", got " +
                       v.dump());
    }
  }
  return out;
}

// `key` of a 2-D layer as an IntPair; `fallback` when absent or null.
inline layers::IntPair pair(const json& c, const std::string& key, const std::string& where,
                            layers::IntPair fallback) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  auto v = ints(c[key], 2, key, where);
  return {v[0], v[1]};
}

// `key` of a 1-D layer: an int or a one-element list.
inline std::int64_t single(const json& c, const std::string& key, const std::string& where,
                           std::int64_t fallback) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  return ints(c[key], 1, key, where)[0];
}

inline json pair_to_json(const layers::IntPair& p) { return json::array({p.first, p.second}); }

// "valid" / "same" (/ "causal"), lower-cased as Keras does; ValueError otherwise.
inline std::string padding(const json& c, const std::string& where,
                           const std::vector<std::string>& allowed) {
  std::string p = "valid";
  if (c.contains("padding") && !c["padding"].is_null()) {
    if (!c["padding"].is_string())
      throw ValueError(where + ": 'padding' must be a string, got " + c["padding"].dump());
    p = c["padding"].get<std::string>();
    for (auto& ch : p) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  for (const auto& a : allowed)
    if (p == a) return p;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "'" : ", '") + a + "'";
  throw ValueError(where + ": padding '" + p + "' is not one of " + list);
}

// "" (channels_last) or "channels_first"; null or absent is channels_last.
inline std::string data_format(const json& c, const std::string& where) {
  if (!c.contains("data_format") || c["data_format"].is_null()) return "";
  const json& v = c["data_format"];
  if (v == "channels_last") return "";
  if (v == "channels_first") return "channels_first";
  throw ValueError(where + ": data_format must be 'channels_last' or 'channels_first', got " +
                   v.dump());
}

inline std::string data_format_to_config(const std::string& df) {
  return df.empty() ? "channels_last" : df;
}

// Initializer `key` if present (a Keras 2 or 3 object or a string), else `fallback`.
inline Initializer initializer(const json& c, const std::string& key, const std::string& where,
                               Initializer fallback) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  return initializer_from_config(c[key], where);
}

// Keys a file may set that Strata cannot honour: NotImplementedError unless null/absent.
inline void refuse_non_null(const json& c, const std::vector<std::string>& keys,
                            const std::string& where) {
  for (const auto& k : keys) {
    if (c.contains(k) && !c[k].is_null()) {
      throw NotImplementedError(where + ": '" + k + "' = " + c[k].dump() + " is not supported");
    }
  }
}

// A convolution's stride or dilation as Keras writes it: a list of one int (1-D) or two.
inline json window_to_json(std::int64_t v) { return json::array({v}); }
inline json window_to_json(const layers::IntPair& p) { return pair_to_json(p); }

// strides, padding, data_format and dilation_rate, appended in Keras's order.
template <typename ConvOptions>
void write_window(json& out, const ConvOptions& o) {
  out["strides"] = window_to_json(o.strides);
  out["padding"] = o.padding;
  out["data_format"] = data_format_to_config(o.data_format);
  out["dilation_rate"] = window_to_json(o.dilation_rate);
}

// What every convolution reads the same way: name, strides, padding (one of `paddings`),
// data_format, dilation_rate, activation, use_bias and bias_initializer. Its own
// arguments (filters, kernel initializers, groups...) stay with the layer's unit.
template <typename ConvOptions>
void read_conv_args(const json& c, const ConfigContext& ctx, const std::string& where,
                    const std::vector<std::string>& paddings, ConvOptions& o) {
  o.name = c.value("name", "");
  if constexpr (std::is_same_v<decltype(o.strides), std::int64_t>) {
    o.strides = single(c, "strides", where, 1);
    o.dilation_rate = single(c, "dilation_rate", where, 1);
  } else {
    o.strides = pair(c, "strides", where, 1);
    o.dilation_rate = pair(c, "dilation_rate", where, 1);
  }
  o.padding = padding(c, where, paddings);
  o.data_format = data_format(c, where);
  o.activation = activation_from_config(c.value("activation", json()), ctx, where);
  o.use_bias = c.value("use_bias", true);
  o.bias_initializer = initializer(c, "bias_initializer", where, o.bias_initializer);
}

// Regularizers and constraints only shape training: written as null.
inline void add_nulls(json& out, const std::vector<std::string>& keys) {
  for (const auto& k : keys) out[k] = nullptr;
}

}  // namespace strata::io::spatial
