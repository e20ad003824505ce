#include "core/ops/hash_ops.h"

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

void register_hash_ops(OpRegistry& r) {
  r.add({.name = "hash_bucket",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           if (ctx.attrs.get<std::int64_t>("num_bins") < 1) {
             throw ValueError("hash_bucket: num_bins must be positive, got " +
                              std::to_string(ctx.attrs.get<std::int64_t>("num_bins")));
           }
           const auto& salt = ctx.attrs.get<std::vector<std::int64_t>>("salt");
           if (!salt.empty() && salt.size() != 2) throw ValueError("hash_bucket: a salt is two integers");
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, DType::int64}};
         },
         .differentiable = false,
         .takes_strings = true});
  r.add({.name = "hashed_cross",
         .infer = [](const InferContext& ctx) {
           if (ctx.inputs.size() < 2) throw ValueError("hashed_cross: needs at least two features");
           for (const auto& in : ctx.inputs) {
             if (in.dtype == DType::float32) {
               throw ValueError("hashed_cross: features must be integers or strings, got float32");
             }
             if (!in.shape.is_compatible_with(ctx.inputs[0].shape)) {
               throw ShapeError("hashed_cross: features must have one shape, got " + ctx.inputs[0].shape.to_string() +
                                " and " + in.shape.to_string());
             }
           }
           if (ctx.attrs.get<std::int64_t>("num_bins") < 1) throw ValueError("hashed_cross: num_bins must be positive");
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, DType::int64}};
         },
         .differentiable = false,
         .takes_strings = true});
}

Output hash_bucket(Output values, const HashBucketOptions& o) {
  Attrs attrs{{"num_bins", o.num_bins}};
  std::vector<std::int64_t> salt;
  if (o.salt) salt = {o.salt->first, o.salt->second};
  attrs.set("salt", salt);
  // Keras masks only when there is a bin to spare.
  const bool masked = o.mask_value.has_value() && o.num_bins > 1;
  attrs.set("masked", masked);
  attrs.set("mask_int", std::int64_t{0});
  attrs.set("mask_string", std::string());
  if (masked) {
    const bool is_string = std::holds_alternative<std::string>(*o.mask_value);
    if (is_string != (values.dtype() == DType::string)) {
      throw ValueError("Hashing: mask_value must be a string for string inputs and an integer otherwise, inputs are " +
                       to_string(values.dtype()));
    }
    if (is_string) {
      attrs.set("mask_string", std::get<std::string>(*o.mask_value));
    } else {
      attrs.set("mask_int", std::get<std::int64_t>(*o.mask_value));
    }
  }
  return values.graph->add("hash_bucket", {values}, std::move(attrs));
}

Output hashed_cross(const std::vector<Output>& features, std::int64_t num_bins) {
  if (features.empty()) throw ValueError("hashed_cross: needs at least two features");
  return features[0].graph->add("hashed_cross", features, Attrs{{"num_bins", num_bins}});
}

}  // namespace strata::ops
