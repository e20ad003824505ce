// Normalization: (x - mean) / max(sqrt(variance), 1e-7) per feature along `axis`
// (Keras's preprocessing layer). mean and variance are either given (a number or one
// value per feature; the layer then has no weights) or learned by adapt(data), which
// stores them in the non-trainable weights "mean", "variance" and "count". invert = true undoes
// the normalization: mean + x * max(sqrt(variance), 1e-7).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "layers/adapt.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct NormalizationOptions {  // Keras signature order
  // The axes kept (one mean per position along them); empty (Keras's None): a single
  // mean and variance.
  std::vector<std::int64_t> axis = {-1};
  std::optional<std::vector<double>> mean;
  std::optional<std::vector<double>> variance;
  bool invert = false;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = NormalizationOptions;
    return std::tuple{keras_field("axis", &O::axis), keras_field("invert", &O::invert),
                      keras_field("mean", &O::mean), keras_field("variance", &O::variance)};
  }
};

class NormalizationImpl : public LayerImpl, public AdaptableLayer {
 public:
  explicit NormalizationImpl(NormalizationOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // Sets mean and variance from `data` (samples along axis 0), building the layer from
  // its shape if needed: reset_state, update_state(data), finalize_state.
  void adapt(const Tensor& data);
  // adapt in steps (a Dataset's batches, data/adapt.h): the statistics of every batch
  // seen since reset_state, as one tensor of them all would give.
  void reset_state() override;
  void update_state(const Tensor& batch) override;
  void finalize_state() override;

  NormalizationOptions options;
  Variable mean, variance;  // weights when adapted; fixed values when given
  Variable count;           // int64, adapted layers only

 private:
  // The input axes the statistics are kept along, non-negative, for an input of `rank`.
  std::vector<std::int64_t> kept_axes(std::int64_t rank) const;
  Shape broadcast_shape_;  // input rank: kept dims, 1 elsewhere (batch included)
  std::vector<double> sum_, sum_sq_;  // adapt: per statistic, over the batches so far
  std::int64_t seen_ = 0;             // adapt: elements so far
};

class Normalization : public Layer {
 public:
  explicit Normalization(NormalizationOptions options = {});
  void adapt(const Tensor& data) const;
};

}  // namespace strata::layers
