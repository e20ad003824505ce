// The CPU kernels of the hashing ops (core/ops/hash_ops.h), with TensorFlow's exact
// hashes (core/fingerprint.h).
#include <charconv>
#include <string_view>

#include "core/cpu/kernels/register.h"
#include "core/error.h"
#include "core/fingerprint.h"
#include "core/op_registry.h"
#include "core/string_pool.h"

namespace strata::cpu {
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

void register_hash_kernels(OpRegistry& r) {
  r.add_kernel("hash_bucket", DeviceType::cpu, {.run = hash_bucket_kernel});
  r.add_kernel("hashed_cross", DeviceType::cpu, {.run = hashed_cross_kernel});
}

}  // namespace strata::cpu
