// Keras's float dtype policies (keras.config.set_dtype_policy, a layer's dtype policy in
// its config): "float32", and "mixed_bfloat16", "bfloat16", "mixed_float16", "float16",
// whose compute dtype Strata emulates on float32 tensors (docs/precision.md, "Mixed
// precision"): a layer under one computes with every op's inputs and outputs rounded to
// bfloat16 or float16 (core/graph.h: PrecisionScope), as TensorFlow's ops compute in that
// dtype; a mixed policy keeps the variables in float32, "bfloat16" and "float16" store
// them in the compute dtype (files hold them so).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"

namespace strata {

class LayerImpl;

// The float policies Keras names; "float64" and others are refused where they are met.
bool is_float_dtype_policy(const std::string& policy);

// Keras's per-layer dtype= argument, an options struct's `dtype`: a policy's name
// ("float32", "mixed_bfloat16", ...), or empty for the global policy the layer takes when
// made. Layer's constructor applies it (layers/layer.h), as Layer::set_dtype_policy. The
// preprocessing layers whose Keras dtype is their output's (Hashing, HashedCrossing,
// Discretization, CategoryEncoding, the lookups, TextVectorization) and Input do not have it.
struct DTypePolicyName {
  std::string value;
  DTypePolicyName() = default;
  DTypePolicyName(const char* name) : value(name) {}             // NOLINT: implicit, as Keras's strings
  DTypePolicyName(std::string name) : value(std::move(name)) {}  // NOLINT
  bool empty() const { return value.empty(); }
  friend bool operator==(const DTypePolicyName&, const DTypePolicyName&) = default;
};
// The dtype a policy's layers compute in.
ComputePrecision compute_precision_of(const std::string& policy);
// Whether the policy stores its variables in the compute dtype ("bfloat16", "float16").
bool stores_variables_in_compute_dtype(const std::string& policy);

// keras.config.set_dtype_policy(name): the policy layers made from now on take (each
// LayerImpl reads it when constructed); ValueError for a name that is not one of the
// float policies above. keras.config.dtype_policy(): the current one.
void set_dtype_policy(const std::string& policy);
std::string global_dtype_policy();

// How a layer class computes under a bfloat16 or float16 policy, as Keras's TensorFlow
// backend does: `refused` (not checked against Keras yet: NotImplementedError naming the
// layer), `low_precision` (every op in the compute dtype), `float32_inside` (Keras casts
// the inputs to float32, computes, and casts the outputs back: only they are rounded;
// LayerNormalization), `float32_rounded_inputs` (the same, but Keras first casts float
// inputs to the compute dtype, as every layer with autocast on: BatchNormalization),
// `not_applicable` (a Model: it adds no computation of its own; its layers compute in
// their policies).
enum class LowPrecisionForm { refused, low_precision, float32_inside, float32_rounded_inputs, not_applicable };

// Under the "bfloat16" and "float16" policies Keras creates a layer's variables in that
// dtype: a float32 variable's value is rounded to it and files store it so
// (Variable::stored_as); other policies leave it as it is.
void store_in_policy_dtype(Variable& variable, const std::string& policy);

// NotImplementedError naming the layer and its policy where the class does not compute
// under it (`refused`); nothing for float32.
void check_dtype_policy(const LayerImpl& layer);
// The layer's call (call_masked where masks are given) in its policy's compute dtype.
std::vector<Output> call_in_dtype_policy(LayerImpl& layer, Graph& graph, const std::vector<Output>& inputs,
                                         const std::vector<Output>& masks);

}  // namespace strata
