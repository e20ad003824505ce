// Permute: reorders the non-batch axes; `dims` is 1-based as in Keras ({2, 1} swaps them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layers/layer.h"

namespace strata::layers {

struct PermuteOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class PermuteImpl : public LayerImpl {
 public:
  PermuteImpl(std::vector<std::int64_t> dims, PermuteOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<std::int64_t> dims;
  PermuteOptions options;
};

class Permute : public Layer {
 public:
  explicit Permute(std::vector<std::int64_t> dims, PermuteOptions options = {});
};

}  // namespace strata::layers
