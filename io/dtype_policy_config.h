// Keras's dtype policies, the "dtype" key of every layer's config (docs/precision.md):
// Keras 3's DTypePolicy {"name": "float32"} and its quantized policies
// (QuantizedDTypePolicy {"mode": "int8", "source_name": "float32"}, Int4DTypePolicy,
// QuantizedFloat8DTypePolicy, ...), Keras 2's "float32" or Policy. Strata computes in
// float32, in int8 where a layer supports it, and in emulated bfloat16 and float16
// (mixed_bfloat16, bfloat16, mixed_float16, float16) where a class does; any other policy
// is refused naming the layer, the key and the value, never computed in float32 silently.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "layers/layer.h"

namespace strata::io {

// The quantization mode a config's "dtype" value asks for: "" for float32 and for dtype
// names that are not float policies (an InputLayer's "int32", a Hashing's "int64": the
// class reads those itself), "int8" for QuantizedDTypePolicy int8 over float32. Throws
// NotImplementedError naming `where`, 'dtype' and the value for every other policy.
std::string quantization_mode_of(const nlohmann::ordered_json& dtype, const std::string& where);
// Checks a quantized layer's "quantization_config" (absent or null: Keras's default):
// int8 reads Keras's Int8QuantizationConfig with no weight quantizer (the kernel is
// already quantized) and the default AbsMaxQuantizer of the inputs; anything else is
// refused naming `where`, the key and the value.
void check_quantization_config(const nlohmann::ordered_json& config, const std::string& mode, const std::string& where);
// Sets an unbuilt layer's quantization mode, refusing ('dtype' = `dtype`) a class that
// has no such form.
void set_quantization_mode(LayerImpl& layer, const std::string& mode, const nlohmann::ordered_json& dtype,
                           const std::string& where);
// The float policy (layers/dtype_policy.h) a config's "dtype" names: its DTypePolicy's or
// Policy's name, or the string; "float32" for anything else (absent, a quantized policy,
// a dtype name a class reads itself, as an InputLayer's "int32").
std::string float_policy_of(const nlohmann::ordered_json& dtype);
// Sets a loaded layer's float policy, refusing ('dtype' = `dtype`, naming `where`) a
// class that does not compute in it.
void set_float_policy(LayerImpl& layer, const std::string& policy, const nlohmann::ordered_json& dtype,
                      const std::string& where);
// The "dtype" a layer's config is saved with: Keras 3's DTypePolicy of its float policy, or
// the QuantizedDTypePolicy of its quantization mode.
nlohmann::ordered_json dtype_policy_config(const LayerImpl& layer);
// The "quantization_config" Keras writes for a layer of that mode (Int8QuantizationConfig).
nlohmann::ordered_json quantization_config_of(const std::string& mode);

}  // namespace strata::io
