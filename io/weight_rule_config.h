// Regularizers and constraints in layer configs, as Keras writes them:
// {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.01},
//  "registered_name": null} (Keras 2 files: without module and registered_name; a string
// names a class with its defaults, as keras.regularizers.get). Anything Strata cannot
// honour — a class it lacks, a user's registered class, an unknown config key, a bad value —
// is an error naming the layer, the key and the value, never dropped.
#pragma once

#include <string>

#include "io/layer_config.h"

namespace strata::io {

json regularizer_to_config(const Regularizer& regularizer);  // null when undefined
// `where` names the layer ("Dense 'd' in m.keras"), `key` its config key. Throws
// NotImplementedError for classes Strata lacks, ValueError for bad values.
Regularizer regularizer_from_config(const json& value, const std::string& where, const std::string& key);

json constraint_to_config(const Constraint& constraint);  // null when undefined
Constraint constraint_from_config(const json& value, const std::string& where, const std::string& key);

}  // namespace strata::io
