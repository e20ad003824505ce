// Optimizers in Keras files, by class with their whole config (optimizers/config_fields.h
// lists each class's keys once; this file turns them into JSON and back).
// - Saving writes Keras 3's get_config: every key, with Keras 3's defaults for the
//   options Strata does not implement (use_ema, ...); a schedule as Keras's
//   {"module": "keras.optimizers.schedules", "class_name", "config", "registered_name"}.
//   The .h5 training_config gets the same (as Keras 3's own .h5 files have it).
// - Loading reads Keras 3 configs and Keras 2 / tf.keras ones: "lr" for learning_rate,
//   a non-zero legacy "decay" as InverseTimeDecay(lr, decay_steps 1, decay) (Keras 2's
//   lr / (1 + decay·iterations)), tf.keras's "jit_compile" and "is_legacy_optimizer"
//   ignored (no effect on the math), "Custom>Adam" read as Adam. Keras 2's Nadam
//   momentum-schedule decay is ignored with a warning, as Keras 3 does: Strata's Nadam
//   is Keras 3's.
// - Errors name the file and the key: ValueError for a malformed config (wrong type,
//   unknown key, bad value), NotImplementedError for a class or an option Strata does not
//   have (use_ema true, loss_scale_factor, gradient_accumulation_steps). Either way the
//   message says that {.compile = false} loads the model without its training config.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "optimizers/optimizer.h"

namespace strata::io {

using json = nlohmann::ordered_json;

// {"class_name": "AdamW", "config": {...}}: a .h5 training_config's optimizer_config.
json optimizer_config(const optimizers::Optimizer& optimizer);
// Keras 3's serialized object (.keras compile_config "optimizer"): the same with
// "module": "keras.optimizers" and "registered_name": null.
json keras3_optimizer_object(const optimizers::Optimizer& optimizer);

// The optimizer a model's compile was given: the inner optimizer of the LossScaleOptimizer
// compile made for a mixed_float16 model, else `compiled`. Files record it as compile's
// optimizer, as Keras's compile_config records the argument.
optimizers::Optimizer optimizer_given_to_compile(const optimizers::Optimizer& compiled);

// Either form above, a Keras 2 optimizer_config, or an identifier string ("adam").
// `where` says where the config came from, for messages ("'m.keras' compile_config").
optimizers::Optimizer optimizer_from_config(const json& config, const std::string& where);

}  // namespace strata::io
