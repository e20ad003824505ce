// Flatten: (batch, d1, d2, ...) -> (batch, d1 * d2 * ...), row-major.
#pragma once

#include <string>

#include "layers/layer.h"

namespace strata::layers {

struct FlattenOptions {
  std::string name;
};

class FlattenImpl : public LayerImpl {
 public:
  explicit FlattenImpl(FlattenOptions options_) : LayerImpl("Flatten", options_.name), options(std::move(options_)) {}
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::low_precision; }

  FlattenOptions options;
};

class Flatten : public Layer {
 public:
  explicit Flatten(FlattenOptions options = {});
};

}  // namespace strata::layers
