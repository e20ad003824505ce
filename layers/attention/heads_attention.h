// The attention shared by the layers with heads (MultiHeadAttention, GroupQueryAttention),
// after their projections: scores per head, the mask, the softmax, dropout, and the
// weighted values.
//
// Which query may attend to which key, as Keras's _compute_attention_mask combines the
// masks: the query's mask (batch, T) as (batch, T, 1), the value's and the key's (batch, S)
// as (batch, 1, S), the causal mask (T, S) with use_causal_mask, then the attention_mask
// passed with the call, (batch, T, S), (T, S) or (batch, heads, T, S), 1 broadcasting.
// The value_mask, key_mask (and, where the layer honours it, query_mask) passed with the
// call replace the inputs' own Keras masks.
#pragma once

#include <optional>

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "layers/call_tensors.h"
#include "layers/layer.h"

namespace strata::layers {

// The call arguments of the layers with heads, in Keras's order: the flags, then the
// masks passed as tensors (call_tensors.h).
std::vector<std::string> heads_call_argument_names();
std::vector<TensorArgument> heads_tensor_arguments();

// Keras's checks of the constructor's arguments: a count or size that must be positive
// (ValueError in Keras's words, naming the argument), and a dropout rate in [0, 1).
void check_positive_argument(const char* argument, std::int64_t value);
void check_dropout_rate(double rate);

// The layer's activity_regularizer as Keras's attention layers apply it: given to each
// projection (EinsumDense), whose call adds the penalty of its output over its batch to the
// model's losses. The projections' outputs, each (batch, ...), or with the batch merged with
// other axes, whose batch size is then `batch_of`'s first axis (the query's).
void add_projection_activity_penalties(Graph& graph, const LayerImpl& layer, const std::vector<Output>& projected,
                                       Output batch_of = {});

// (q / sqrt(key_dim)) · kᵀ per head: q (batch, T, heads, key_dim) and k (batch, S, heads,
// key_dim) give (batch, heads, T, S).
Output heads_scores(Output q, Output k, std::int64_t key_dim);

struct HeadsMaskRules {
  std::int64_t num_heads;
  // Whether a query_mask passed with the call counts: GroupQueryAttention's does; Keras
  // 3.15.1's MultiHeadAttention.call overwrites it with the query's own mask.
  bool query_mask_argument;
  // GroupQueryAttention's sliding_window: query t sees only keys s with |t - s| < it.
  std::optional<std::int64_t> sliding_window = std::nullopt;
};

// 1 where query t may attend to key s, 0 elsewhere, of rank 4 to broadcast against the
// (batch, heads, T, S) scores; invalid when nothing is hidden. `layer` is the attention
// layer (its current call's use_causal_mask); `masks` the inputs' Keras masks.
Output heads_visible_mask(Graph& graph, const LayerImpl& layer, const CallInputs<Output>& call,
                          const std::vector<Output>& masks, Output scores, HeadsMaskRules rules);

struct HeadsAttention {
  Output attended;  // (batch, T, heads, value_dim)
  Output weights;   // (batch, heads, T, S), after the mask, before dropout
};

// Dropout on the attention weights, in training only.
struct HeadsDropout {
  double rate = 0.0;
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;  // the layer's call
};

// softmax over S of the scores, hidden where `visible` is 0, dropout, then · v
// (batch, S, heads, value_dim). Keras computes this two ways: with dropout or returned
// scores, through its Softmax layer, which gives a row with every key hidden (a hidden
// query) zeros; otherwise through dot_product_attention, which gives it equal weights.
// `zero_hidden_rows` says which.
HeadsAttention heads_attend(Graph& graph, Output scores, Output visible, Output v, HeadsDropout dropout,
                            bool zero_hidden_rows);

}  // namespace strata::layers
