#include "layers/preprocessing/hashed_crossing.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/hash_ops.h"
#include "core/ops/one_hot.h"

namespace strata::layers {

HashedCrossingImpl::HashedCrossingImpl(std::int64_t num_bins_, HashedCrossingOptions options_)
    : LayerImpl("HashedCrossing", options_.name), num_bins(num_bins_), options(std::move(options_)) {
  const auto& m = options.output_mode;
  if (m != "int" && m != "one_hot") {
    throw ValueError("HashedCrossing '" + name + "': output_mode must be 'int' or 'one_hot', got '" + m + "'");
  }
  if (num_bins <= 0) {
    throw ValueError("HashedCrossing '" + name + "': num_bins must be positive, got " + std::to_string(num_bins));
  }
  if (options.dtype.empty()) options.dtype = m == "int" ? "int64" : "float32";
  if ((m == "int" && options.dtype != "int64") || (m == "one_hot" && options.dtype != "float32")) {
    throw NotImplementedError("HashedCrossing '" + name + "': dtype '" + options.dtype + "' with output_mode '" + m +
                              "' (int64 for int, float32 for one_hot)");
  }
}

std::vector<Output> HashedCrossingImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Shape& first = inputs[0].shape();
  if (first.rank() > 2 || (first.rank() == 2 && first.dims()[1] != 1)) {
    throw ShapeError("HashedCrossing '" + name + "': inputs must have shape (), (batch) or (batch, 1), got " +
                     first.to_string());
  }
  for (const Output& in : inputs) {
    if (in.shape().rank() != first.rank() || !in.shape().is_compatible_with(first)) {
      throw ShapeError("HashedCrossing '" + name + "': inputs must have equal shapes, got " + first.to_string() +
                       " and " + in.shape().to_string());
    }
    if (in.dtype() == DType::float32) {
      throw ValueError("HashedCrossing '" + name + "': inputs must be integers or strings, got float32");
    }
  }
  Output bins = ops::hashed_cross(inputs, num_bins);
  if (options.output_mode == "int") return {bins};
  return {ops::categorical_encode(bins, num_bins, "one_hot")};
}

HashedCrossing::HashedCrossing(std::int64_t num_bins, HashedCrossingOptions options)
    : Layer(std::make_shared<HashedCrossingImpl>(num_bins, std::move(options))) {}

namespace {
const bool hashed_crossing_registered = register_keras_class(describe_layer<HashedCrossing>(
    "HashedCrossing", &HashedCrossingImpl::options, keras_field("num_bins", &HashedCrossingImpl::num_bins).at_least(1)));
}  // namespace

}  // namespace strata::layers
