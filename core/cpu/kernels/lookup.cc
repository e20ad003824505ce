// The CPU kernels of the lookup ops (core/ops/lookup_ops.h): index lookups in a layer's
// vocabulary, their inverse, tf_idf's weighing of counts, and bucketizing by a layer's bin
// boundaries.
#include <algorithm>
#include <charconv>

#include "core/cpu/kernels/register.h"
#include "core/error.h"
#include "core/fingerprint.h"
#include "core/op_registry.h"
#include "core/ops/lookup_ops.h"

namespace strata::cpu {
namespace {

// The node's table, held for the kernel's run (a table replaced meanwhile stays alive).
template <typename T>
std::shared_ptr<const T> table_of(const KernelContext& ctx, const char* op) {
  auto table = std::dynamic_pointer_cast<const T>(
      find_lookup_table(ctx.node.attrs.get<std::int64_t>("table"), op, ctx.node.name));
  if (!table) throw ValueError(std::string(op) + " '" + ctx.node.name + "': the table has another kind");
  return table;
}

std::int64_t key_at(const Tensor& t, std::int64_t i) {
  return t.dtype() == DType::int32 ? t.data<std::int32_t>()[i] : t.data<std::int64_t>()[i];
}

// The OOV index of a key not in the vocabulary (num_oov > 1): Keras hashes it into the
// OOV range (floormod for IntegerLookup's default oov_method, else TF's string hashes
// of the key, integers as decimal strings).
std::int64_t oov_index(const IndexLookupTable& t, std::string_view text, std::int64_t int_key, bool is_int) {
  const auto n = static_cast<std::uint64_t>(t.num_oov);
  if (is_int && t.floormod_oov) {
    std::int64_t m = int_key % t.num_oov;
    if (m < 0) m += t.num_oov;
    return t.oov_start + m;
  }
  char digits[24];
  if (is_int) {  // integers hash as their decimal text (tf.strings.as_string)
    auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), int_key);
    text = std::string_view(digits, static_cast<std::size_t>(end - digits));
  }
  const std::uint64_t h = t.salt ? siphash24(t.salt->first, t.salt->second, text) : fingerprint64(text);
  return t.oov_start + static_cast<std::int64_t>(h % n);
}

void lookup_kernel(KernelContext& ctx) {
  const auto table = table_of<IndexLookupTable>(ctx, "index_lookup");
  const IndexLookupTable& t = *table;
  const std::string& node = ctx.node.name;
  const Tensor& keys = ctx.input(0);
  std::int64_t* out = ctx.output(0).data<std::int64_t>();
  const std::int64_t n = keys.size();
  auto missing = [&](const std::string& value) {
    throw ValueError("index_lookup '" + node + "': when num_oov_indices = 0 all inputs must be in the vocabulary, found '" +
                     value + "'; consider num_oov_indices = 1");
  };
  if (keys.dtype() == DType::string) {
    if (!t.string_keys) throw ValueError("index_lookup '" + node + "': string inputs to an integer vocabulary");
    const StringValue* k = keys.data<StringValue>();
    for (std::int64_t i = 0; i < n; ++i) {
      if (t.has_mask && k[i] == t.string_mask) {
        out[i] = t.mask_output;
        continue;
      }
      auto it = t.string_index.find(k[i].data);
      if (it != t.string_index.end()) {
        out[i] = it->second;
      } else if (t.num_oov == 1) {
        out[i] = t.oov_start;
      } else if (t.num_oov == 0) {
        missing(k[i].str());
      } else {
        out[i] = oov_index(t, k[i].view(), 0, false);
      }
    }
    return;
  }
  if (t.string_keys) throw ValueError("index_lookup '" + node + "': integer inputs to a string vocabulary");
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = key_at(keys, i);
    if (t.has_mask && k == t.int_mask) {
      out[i] = t.mask_output;
      continue;
    }
    auto it = t.int_index.find(k);
    if (it != t.int_index.end()) {
      out[i] = it->second;
    } else if (t.num_oov == 1) {
      out[i] = t.oov_start;
    } else if (t.num_oov == 0) {
      missing(std::to_string(k));
    } else {
      out[i] = oov_index(t, {}, k, true);
    }
  }
}

void invert_kernel(KernelContext& ctx) {
  const auto table = table_of<IndexLookupTable>(ctx, "index_lookup_invert");
  const IndexLookupTable& t = *table;
  const Tensor& idx = ctx.input(0);
  const std::int64_t n = idx.size();
  const std::int64_t vocab = t.size();
  if (t.string_keys) {
    StringValue* out = ctx.output(0).data<StringValue>();
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t k = key_at(idx, i);
      if (t.has_mask && k == 0) {
        out[i] = t.string_mask;
      } else if (k >= t.token_start && k < vocab) {
        out[i] = t.string_tokens[static_cast<std::size_t>(k - t.token_start)];
      } else {
        out[i] = t.string_oov_token;
      }
    }
    return;
  }
  std::int64_t* out = ctx.output(0).data<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = key_at(idx, i);
    if (t.has_mask && k == 0) {
      out[i] = t.int_mask;
    } else if (k >= t.token_start && k < vocab) {
      out[i] = t.int_tokens[static_cast<std::size_t>(k - t.token_start)];
    } else {
      out[i] = t.int_oov_token;
    }
  }
}

void tf_idf_weigh_kernel(KernelContext& ctx) {
  const auto table = table_of<IndexLookupTable>(ctx, "tf_idf_weigh");
  const std::vector<float>& w = table->idf_weights;
  const Tensor& counts = ctx.input(0);
  const std::int64_t depth = counts.shape().dims().back();
  if (static_cast<std::int64_t>(w.size()) != depth) {
    throw ValueError("tf_idf_weigh '" + ctx.node.name + "': the layer has " + std::to_string(w.size()) +
                     " idf weights for an encoding of " + std::to_string(depth) +
                     " slots; give idf_weights with the vocabulary, or adapt the layer");
  }
  const float* x = counts.data<float>();
  float* y = ctx.output(0).data<float>();
  const std::int64_t rows = depth == 0 ? 0 : counts.size() / depth;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t j = 0; j < depth; ++j) y[r * depth + j] = x[r * depth + j] * w[static_cast<std::size_t>(j)];
  }
}

void bucketize_kernel(KernelContext& ctx) {
  const auto table = table_of<BoundariesTable>(ctx, "bucketize");
  const BoundariesTable& t = *table;
  const Tensor& x = ctx.input(0);
  std::int32_t* out = ctx.output(0).data<std::int32_t>();
  const auto& b = t.boundaries;
  auto bucket = [&](float v) {
    return static_cast<std::int32_t>(std::upper_bound(b.begin(), b.end(), v) - b.begin());
  };
  const std::int64_t n = x.size();
  switch (x.dtype()) {
    case DType::float32: for (std::int64_t i = 0; i < n; ++i) out[i] = bucket(x.data<float>()[i]); break;
    case DType::int32: for (std::int64_t i = 0; i < n; ++i) out[i] = bucket(static_cast<float>(x.data<std::int32_t>()[i])); break;
    case DType::int64: for (std::int64_t i = 0; i < n; ++i) out[i] = bucket(static_cast<float>(x.data<std::int64_t>()[i])); break;
    case DType::string: throw ValueError("bucketize: string inputs");
  }
}

}  // namespace

void register_lookup_kernels(OpRegistry& r) {
  r.add_kernel("index_lookup", DeviceType::cpu, {.run = lookup_kernel});
  r.add_kernel("index_lookup_invert", DeviceType::cpu, {.run = invert_kernel});
  r.add_kernel("tf_idf_weigh", DeviceType::cpu, {.run = tf_idf_weigh_kernel});
  r.add_kernel("bucketize", DeviceType::cpu, {.run = bucketize_kernel});
}

}  // namespace strata::cpu
