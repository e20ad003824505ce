// Discretization: numbers -> bucket indices by bin boundaries (Keras's layer; like
// np.digitize: bucket i holds boundaries[i-1] <= x < boundaries[i]). The boundaries are
// given, or learned by adapt with Keras's own approximate-quantile algorithm (its
// summarize / merge / compress steps, `epsilon` the precision, `num_bins` the bins),
// reproduced exactly. output_mode "int" gives int32 indices; "one_hot", "multi_hot",
// "count" encode them over len(boundaries) + 1 slots (float32). The boundaries are layer
// state (a lookup table, core/ops/lookup_ops.h) and saved in the config, as Keras does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ops/lookup_ops.h"
#include "layers/adapt.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct DiscretizationOptions {  // Keras signature order
  std::optional<std::vector<double>> bin_boundaries;
  std::optional<std::int64_t> num_bins;
  double epsilon = 0.01;
  std::string output_mode = "int";
  // Keras returns a tf.SparseTensor; Strata's tensors are dense, so the same values come
  // dense (tf.sparse.to_dense of Keras's output). Not with output_mode "int", as Keras.
  bool sparse = false;
  std::string name;

  static constexpr auto keras_fields() {
    using O = DiscretizationOptions;
    return std::tuple{keras_field("bin_boundaries", &O::bin_boundaries), keras_field("num_bins", &O::num_bins),
                      keras_field("epsilon", &O::epsilon), keras_field("output_mode", &O::output_mode),
                      keras_field("sparse", &O::sparse)};
  }
};

// Keras's quantile summary: row 0 the values, row 1 their weights (float32, as Keras).
struct QuantileSummary {
  std::vector<float> values, weights;
};

class DiscretizationImpl : public LayerImpl, public AdaptableLayer {
 public:
  explicit DiscretizationImpl(DiscretizationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  // adapt in steps, as Keras: reset_state, update_state per batch, finalize_state.
  void reset_state() override;
  void update_state(const Tensor& batch) override;
  void finalize_state() override;
  void adapt(const Tensor& data);

  DiscretizationOptions options;  // bin_boundaries hold the adapted ones after adapt

 private:
  void publish();
  QuantileSummary summary_;
  TableHandle table_;
};

class Discretization : public Layer {
 public:
  explicit Discretization(DiscretizationOptions options = {});
  void adapt(const Tensor& data) const;
  std::vector<double> bin_boundaries() const;
  DiscretizationImpl& discretization() const;
};

}  // namespace strata::layers
