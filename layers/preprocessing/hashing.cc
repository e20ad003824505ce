#include "layers/preprocessing/hashing.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/hash_ops.h"
#include "core/ops/one_hot.h"

namespace strata::layers {

HashingImpl::HashingImpl(std::int64_t num_bins_, HashingOptions options_)
    : LayerImpl("Hashing", options_.name), num_bins(num_bins_), options(std::move(options_)) {
  const auto& m = options.output_mode;
  if (m != "int" && m != "one_hot" && m != "multi_hot" && m != "count") {
    throw ValueError("Hashing '" + name + "': output_mode must be 'int', 'one_hot', 'multi_hot' or 'count', got '" + m +
                     "'");
  }
  if (options.sparse && m == "int") {
    throw ValueError("Hashing '" + name + "': `sparse` may only be true if `output_mode` is 'one_hot', 'multi_hot' "
                     "or 'count'. Received: sparse=True and output_mode=int");
  }
  if (num_bins <= 0) {
    throw ValueError("Hashing '" + name + "': num_bins must be positive, got " + std::to_string(num_bins));
  }
  if (options.salt) {
    if (options.salt->size() == 1) options.salt->push_back(options.salt->front());
    if (options.salt->size() != 2) throw ValueError("Hashing '" + name + "': salt is one or two integers");
  }
  if (options.dtype.empty()) options.dtype = m == "int" ? "int64" : "float32";
  if (m == "int" && options.dtype != "int64" && options.dtype != "int32") {
    throw ValueError("Hashing '" + name + "': with output_mode 'int' the dtype must be int32 or int64, got '" +
                     options.dtype + "'");
  }
  if (m != "int" && options.dtype != "float32") {
    throw NotImplementedError("Hashing '" + name + "': output dtype '" + options.dtype + "' with output_mode '" + m +
                              "' (float32 only)");
  }
}

std::vector<Output> HashingImpl::call(Graph&, const std::vector<Output>& inputs) {
  ops::HashBucketOptions h{.num_bins = num_bins};
  if (options.salt) h.salt = std::pair{(*options.salt)[0], (*options.salt)[1]};
  if (options.mask_value) h.mask_value = *options.mask_value;
  const Output x = inputs[0];  // one_hot drops a last axis of 1, as Keras squeezes it
  Output bins = ops::hash_bucket(x, h);
  if (options.output_mode == "int") {
    return {options.dtype == "int32" ? ops::cast(bins, DType::int32) : bins};
  }
  return {ops::categorical_encode(bins, num_bins, options.output_mode)};
}

Hashing::Hashing(std::int64_t num_bins, HashingOptions options)
    : Layer(std::make_shared<HashingImpl>(num_bins, std::move(options))) {}

namespace {
const bool hashing_registered = register_keras_class(describe_layer<Hashing>(
    "Hashing", &HashingImpl::options, keras_field("num_bins", &HashingImpl::num_bins).at_least(1)));
}  // namespace

}  // namespace strata::layers
