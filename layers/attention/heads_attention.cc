#include "layers/attention/heads_attention.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_matmul.h"
#include "core/ops/causal_mask.h"
#include "core/ops/scan_ops.h"
#include "layers/attention/attention.h"

namespace strata::layers {

void add_projection_activity_penalties(Graph& graph, const LayerImpl& layer, const std::vector<Output>& projected,
                                       Output batch_of) {
  if (!layer.activity_regularizer.defined()) return;
  for (const Output& y : projected) {
    graph.add_loss(layer.activity_regularizer.activity_penalty(y, batch_of.valid() ? batch_of : y));
  }
}

std::vector<std::string> heads_call_argument_names() {
  return {"return_attention_scores", "use_causal_mask", "query_mask", "value_mask", "key_mask", "attention_mask"};
}

std::vector<TensorArgument> heads_tensor_arguments() {
  return {{"query_mask", "query_mask"}, {"value_mask", "value_mask"}, {"key_mask", "key_mask"},
          {"attention_mask", "attention_mask"}};
}

void check_positive_argument(const char* argument, std::int64_t value) {
  if (value <= 0) {
    throw ValueError(std::string("Invalid value for argument `") + argument +
                     "`. Expected a positive integer. Received: " + argument + "=" + std::to_string(value));
  }
}

void check_dropout_rate(double rate) {
  if (rate < 0.0 || rate >= 1.0) throw ValueError("dropout must be in [0, 1), got " + std::to_string(rate));
}

namespace {

// What Keras's masked Softmax puts in place of a hidden score (Attention instead
// subtracts 1e9 from it, layers/attention/attention.cc).
constexpr float kHiddenScoreValue = -1.0e9f;

// (batch, T, heads, dim) -> (batch, heads, T, dim), and back.
Output heads_first(Output x) { return ops::transpose(x, {0, 2, 1, 3}); }

}  // namespace

Output heads_scores(Output q, Output k, std::int64_t key_dim) {
  Output scaled = ops::mul(heads_first(q), static_cast<float>(1.0 / std::sqrt(static_cast<double>(key_dim))));
  return ops::batch_matmul(scaled, heads_first(k), false, true);
}

HeadsAttention heads_attend(Graph& graph, Output scores, Output visible, Output v, HeadsDropout dropout,
                            bool zero_hidden_rows) {
  if (visible.valid()) scores = ops::where(visible, scores, ops::constant(graph, kHiddenScoreValue));
  Output weights = ops::softmax(scores, -1);
  if (visible.valid() && zero_hidden_rows) weights = ops::where(visible, weights, ops::constant(graph, 0.f));
  Output dropped = weights;
  if (dropout.rate > 0.0) {
    dropped = ops::dropout(weights, static_cast<float>(dropout.rate), dropout.seed, dropout.stream);
  }
  return {heads_first(ops::batch_matmul(dropped, heads_first(v))), weights};
}

Output heads_visible_mask(Graph& graph, const LayerImpl& layer, const CallInputs<Output>& call,
                          const std::vector<Output>& masks, Output scores, HeadsMaskRules rules) {
  const auto& inputs = call.inputs;
  auto implicit = [&](std::size_t i) { return i < masks.size() && i < inputs.size() ? masks[i] : Output{}; };
  const Shape& query = inputs[0].shape();
  const Shape& value = inputs[1].shape();
  // A mask passed with the call, else the input's own (Keras fills {name}_mask from the
  // input's mask only where none was passed).
  auto given = [&](const char* name, std::size_t input, const Shape& expected, const char* meaning) -> Output {
    if (const Output* m = call.find(name)) {
      check_mask_shape(name, m->shape(), expected, meaning);
      return mask_as_visible(graph, *m);
    }
    return implicit(input);
  };
  const Shape sequence{value[0], value[1]};  // (batch, S)
  Output query_mask =
      rules.query_mask_argument ? given("query_mask", 0, Shape{query[0], query[1]}, "(batch, T)") : implicit(0);
  Output value_mask = given("value_mask", 1, sequence, "(batch, S)");
  Output key_mask = given("key_mask", 2, sequence, "(batch, S)");
  // One mask shared by the heads: (batch, T, 1), (batch, 1, S), (T, S) broadcast together.
  Output visible;
  auto both = [&](Output m) { visible = visible.valid() ? ops::mul(visible, m) : m; };
  if (query_mask.valid()) both(ops::expand_dims(query_mask, -1));
  if (value_mask.valid()) both(ops::expand_dims(value_mask, -2));
  if (key_mask.valid()) both(ops::expand_dims(key_mask, -2));
  if (layer.argument("use_causal_mask")) both(ops::causal_mask(scores));
  if (rules.sliding_window) {
    // Keras's band, |row - column| < sliding_window, (T, S) from the scores' runtime shape.
    const Output band = ops::abs(ops::column_minus_row(ops::causal_mask(scores)));
    both(ops::cast(ops::less(band, ops::constant(graph, static_cast<float>(*rules.sliding_window))), DType::float32));
  }
  if (const Output* m = call.find("attention_mask")) {
    const Shape& s = m->shape();
    const std::int64_t T = query[1], S = value[1];
    if (s.rank() == 2) {
      check_mask_shape("attention_mask", s, Shape{T, S}, "(T, S)");
    } else if (s.rank() == 4) {
      check_mask_shape("attention_mask", s, Shape{query[0], rules.num_heads, T, S}, "(batch, num_heads, T, S)");
    } else {
      check_mask_shape("attention_mask", s, Shape{query[0], T, S}, "(batch, T, S)");
    }
    // Keras: attention_mask & auto_mask, broadcast as NumPy does.
    Output given_mask = mask_as_visible(graph, *m);
    visible = visible.valid() ? ops::mul(given_mask, visible) : given_mask;
  }
  // Keras expands the mask at the heads' axis until it has the scores' rank.
  while (visible.valid() && visible.shape().rank() < 4) visible = ops::expand_dims(visible, -3);
  return visible;
}

}  // namespace strata::layers
