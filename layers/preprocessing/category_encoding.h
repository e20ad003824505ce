// CategoryEncoding: integer category ids -> float32 encodings of `num_tokens` slots
// (Keras's layer): "one_hot" (one row per id; a last axis of 1 is dropped), "multi_hot"
// (1 for every id along the last axis) or "count" (how often each occurs). Ids outside
// [0, num_tokens) add nothing. Dense outputs only. Not differentiable (integer inputs).
#pragma once

#include <cstdint>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct CategoryEncodingOptions {  // Keras signature order
  std::string output_mode = "multi_hot";
  std::string name;

  // Keras's sparse=True returns a tf.SparseTensor of the encoding; Strata's tensors are
  // dense, so the same values come dense. Keras 3.15 does not write the key (its files lose
  // it); read with any value, not written.
  static constexpr auto keras_fields() {
    return std::tuple{keras_field("output_mode", &CategoryEncodingOptions::output_mode),
                      keras_unmodeled("sparse", "false").unwritten()};
  }
};

class CategoryEncodingImpl : public LayerImpl {
 public:
  CategoryEncodingImpl(std::int64_t num_tokens, CategoryEncodingOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::int64_t num_tokens;
  CategoryEncodingOptions options;
};

class CategoryEncoding : public Layer {
 public:
  CategoryEncoding(std::int64_t num_tokens, CategoryEncodingOptions options = {});
};

}  // namespace strata::layers
