// Flatten: (batch, d1, d2, ...) -> (batch, d1 * d2 * ...), row-major.
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct FlattenOptions {  // Keras signature order
  // channels_first: the channels (axis 1) moved last before flattening, as Keras's, so
  // that the flattened order matches a channels_last model's.
  std::string data_format;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &FlattenOptions::data_format, Spelling::data_format)};
  }
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
