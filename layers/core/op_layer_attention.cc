// keras.ops.dot_product_attention (issue #38) as Keras's TensorFlow backend computes it
// (its XLA path, the one it runs): logits q·kᵀ (B, N, T, S) times scale (1 / sqrt(H) when
// None), plus bias, masked cells (mask false, or above the diagonal when is_causal) set to
// −0.7 · 3.38953e38, softmax over S, then times v. Key and value heads fewer than the query's
// are repeated, each `groups` times in place, as tf.repeat (one head: to every query head).
// Composed from graph ops, so it runs, with its gradients, wherever those do.
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_matmul.h"
#include "core/ops/scan_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

constexpr float kMasked = -0.7f * 3.38953e38f;  // Keras's _get_large_negative for float32

// (B, S, K, H) with each of the K heads repeated `groups` times in place: (B, S, K·groups, H).
Output repeat_heads(C c, const Output& x, std::int64_t groups) {
  const auto d = x.shape().dims();
  const Output five = ops::expand_dims(x, 3);
  const Output tiled = ops::concat(std::vector<Output>(static_cast<std::size_t>(groups), five), 3);
  return ops::reshape(tiled, {-1, known_size(c, "key", x, 1), d[2] * groups, d[3]});
}

std::optional<double> scale_of(C c) {
  auto it = c.kwargs.find("scale");
  if (it == c.kwargs.end() || std::holds_alternative<std::monostate>(it->second)) return std::nullopt;
  if (const auto* v = std::get_if<double>(&it->second)) return *v;
  if (const auto* v = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*v);
  throw NotImplementedError(c.where + ": scale must be a number or None");
}

Output dot_product_attention(C c) {
  if (c.flag("flash_attention")) refuse(c, "flash_attention", "Keras's TensorFlow backend has none either");
  if (c.has("attn_logits_soft_cap")) refuse(c, "attn_logits_soft_cap", "only None is");
  Output q = c.arg(0), k = c.arg(1), v = c.arg(2);
  for (const Output* x : {&q, &k, &v}) {
    if (x->shape().rank() != 4)
      throw ValueError(c.where + ": query, key and value must be 4-D (batch, steps, heads, head size), got " +
                       x->shape().to_string());
  }
  const std::int64_t heads = known_size(c, "query", q, 2), kv_heads = known_size(c, "key", k, 2);
  const std::int64_t head_size = known_size(c, "key", k, 3);
  if (heads != kv_heads) {
    if (heads % kv_heads != 0)
      throw ValueError(c.where + ": " + std::to_string(heads) + " query heads are not a multiple of " +
                       std::to_string(kv_heads) + " key heads");
    k = repeat_heads(c, k, heads / kv_heads);
    v = repeat_heads(c, v, heads / kv_heads);
  }
  // (B, T, N, H) -> (B, N, T, H); logits (B, N, T, S).
  const std::vector<std::int64_t> heads_first{0, 2, 1, 3};
  Output logits = ops::batch_matmul(ops::transpose(q, heads_first), ops::transpose(k, heads_first), false, true);
  const auto scale = scale_of(c);
  logits = ops::mul(logits, scale ? static_cast<float>(*scale) : 1.0f / std::sqrt(static_cast<float>(head_size)));
  if (auto bias = c.keyword("bias")) logits = ops::add(logits, *bias);
  const auto mask = c.keyword("mask");
  if (mask || c.flag("is_causal")) {
    Output keep = ops::ones_like(logits);
    if (mask) keep = ops::mul(keep, ops::cast(ops::not_equal(*mask, ops::constant(c.graph, 0.f)), DType::float32));
    if (c.flag("is_causal")) {
      // column − row of each (T, S) cell: kept on and below the diagonal (tf.linalg.band_part(·, −1, 0)).
      const Output ones = ops::ones_like(logits);
      const Output above = ops::sub(ops::cumsum(ones, 3), ops::cumsum(ones, 2));
      keep = ops::mul(keep, ops::cast(ops::less_equal(above, ops::constant(c.graph, 0.f)), DType::float32));
    }
    logits = ops::where(ops::not_equal(keep, ops::constant(c.graph, 0.f)), logits,
                        ops::add(ops::zeros_like(logits), kMasked));
  }
  const Output probs = ops::softmax(logits, -1);
  return ops::transpose(ops::batch_matmul(probs, ops::transpose(v, heads_first)), heads_first);
}

}  // namespace

const std::map<std::string, OpFn>& attention_ops() {
  static const std::map<std::string, OpFn> t = {{"DotProductAttention", dot_product_attention}};
  return t;
}

}  // namespace strata::layers::op_detail
