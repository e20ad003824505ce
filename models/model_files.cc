// Model's file methods: save_weights, load_weights, save, to_json, each through the
// ModelFiles that io/ implements (models/model_files.h).
#include "models/model_files.h"

#include "models/model.h"

namespace strata {

void Model::save_weights(const std::string& path) const { model_files().save_weights(*this, path); }

void Model::load_weights(const std::string& path, const LoadWeightsOptions& options) const {
  auto hold = model().usage.exclusive("load_weights", name());
  model_files().load_weights(*this, path, options);
}

void Model::save(const std::string& path) const { model_files().save_model(*this, path); }

std::string Model::to_json() const { return model_files().to_json(*this); }

}  // namespace strata
