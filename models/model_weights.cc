// Model::save_weights / load_weights: the model's layers and their weights, in order,
// handed to the HDF5 weights writer and reader in io/.
#include "io/weights_h5.h"
#include "models/model.h"

namespace strata {

namespace {
std::vector<io::LayerWeights> layer_weights(const Model& m) {
  std::vector<io::LayerWeights> out;
  for (const auto& l : m.layers()) {
    if (l.class_name() == "InputLayer") continue;
    out.push_back({l.name(), l.weights(), l.class_name()});
  }
  return out;
}
}  // namespace

void Model::save_weights(const std::string& path) const { io::save_weights_h5(path, layer_weights(*this)); }
void Model::load_weights(const std::string& path, const io::LoadWeightsOptions& options) const {
  auto hold = model().usage.exclusive("load_weights", name());
  io::load_weights_h5(path, layer_weights(*this), options);
}

}  // namespace strata
