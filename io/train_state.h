// A training-state file: the model's weights, the optimizer's variables (iterations,
// learning rate, slots) and the fit position (models/fit_state.h), so a fit interrupted
// mid-epoch resumes in a fresh process exactly where it stopped.
//
// Strata's own minimal format, until the shared checkpoint format lands: the text line
// "STRATA-TRAIN-STATE 1", a little-endian uint64 header length, a JSON header (the fit
// position, then every tensor's group, path, dtype, shape and byte offset), then the raw
// tensor bytes. Written to a temporary file and renamed, so a crash never leaves a torn
// file.
#pragma once

#include <string>

#include "models/fit_state.h"
#include "models/model.h"

namespace strata::io {

void save_train_state(const std::string& path, const Model& model, const FitState& fit);

// Assigns the model's weights and the optimizer's variables from the file and returns
// the fit position. Throws IOError for a missing or corrupt file, and ValueError naming
// the first weight whose path, shape or dtype differs (a checkpoint of another model),
// before assigning anything.
FitState load_train_state(const std::string& path, const Model& model);

}  // namespace strata::io
