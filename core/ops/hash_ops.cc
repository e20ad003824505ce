#include "core/ops/hash_ops.h"

#include <charconv>
#include <string_view>

#include "core/error.h"
#include "core/fingerprint.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"
#include "core/string_pool.h"

namespace strata::ops {
namespace {

constexpr std::uint64_t kCrossHashKey = 0xDECAFCAFFEULL;  // tf.sparse.cross_hashed's default

// The decimal text of `v` in `buffer` (tf.strings.as_string).
std::string_view decimal(std::int64_t v, char (&buffer)[24]) {
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return {buffer, static_cast<std::size_t>(end - buffer)};
}

void hash_bucket_kernel(KernelContext& ctx) {
  const Attrs& a = ctx.node.attrs;
  const Tensor& x = ctx.input(0);
  std::int64_t* out = ctx.output(0).data<std::int64_t>();
  const auto& salt = a.get<std::vector<std::int64_t>>("salt");
  const bool masked = a.get<bool>("masked");
  const auto bins = static_cast<std::uint64_t>(a.get<std::int64_t>("num_bins") - (masked ? 1 : 0));
  const std::int64_t offset = masked ? 1 : 0;
  auto bin_of = [&](std::string_view text) {
    const std::uint64_t h = salt.empty() ? fingerprint64(text)
                                         : siphash24(static_cast<std::uint64_t>(salt[0]),
                                                     static_cast<std::uint64_t>(salt[1]), text);
    return static_cast<std::int64_t>(h % bins) + offset;
  };
  const std::int64_t n = x.size();
  char buffer[24];
  if (x.dtype() == DType::string) {
    const StringValue mask = masked ? intern_string(a.get<std::string>("mask_string")) : StringValue{};
    const StringValue* v = x.data<StringValue>();
    for (std::int64_t i = 0; i < n; ++i) out[i] = masked && v[i] == mask ? 0 : bin_of(v[i].view());
    return;
  }
  const std::int64_t mask = a.get<std::int64_t>("mask_int");
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t v = 0;
    bool is_mask = false;
    switch (x.dtype()) {
      case DType::float32: {
        const float f = x.data<float>()[i];
        is_mask = masked && f == static_cast<float>(mask);
        v = static_cast<std::int64_t>(f);
        break;
      }
      case DType::int32: v = x.data<std::int32_t>()[i]; is_mask = masked && v == mask; break;
      case DType::int64: v = x.data<std::int64_t>()[i]; is_mask = masked && v == mask; break;
      case DType::string: break;
    }
    out[i] = is_mask ? 0 : bin_of(decimal(v, buffer));
  }
}

void hashed_cross_kernel(KernelContext& ctx) {
  const auto bins = static_cast<std::uint64_t>(ctx.node.attrs.get<std::int64_t>("num_bins"));
  std::int64_t* out = ctx.output(0).data<std::int64_t>();
  const std::int64_t n = ctx.output(0).size();
  for (const Tensor* f : ctx.inputs) {
    if (f->size() != n) {
      throw ShapeError("hashed_cross '" + ctx.node.name + "': features must have one shape, got " +
                       ctx.input(0).shape().to_string() + " and " + f->shape().to_string());
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t h = kCrossHashKey;
    for (const Tensor* f : ctx.inputs) {
      std::uint64_t fh = 0;
      switch (f->dtype()) {
        case DType::string: fh = fingerprint64(f->data<StringValue>()[i].view()); break;
        case DType::int32: fh = static_cast<std::uint64_t>(static_cast<std::int64_t>(f->data<std::int32_t>()[i])); break;
        case DType::int64: fh = static_cast<std::uint64_t>(f->data<std::int64_t>()[i]); break;
        case DType::float32: break;  // refused by inference
      }
      h = fingerprint_cat64(h, fh);
    }
    out[i] = static_cast<std::int64_t>(h % bins);
  }
}

}  // namespace

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
         .cpu_kernel = hash_bucket_kernel,
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
         .cpu_kernel = hashed_cross_kernel,
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
