// Optimizers and learning-rate schedules by Keras class name, built from a config read
// field by field (io/optimizer_config.cc reads files with it): each class starts from its
// options struct's defaults and lets `read` set the fields the config holds.
#pragma once

#include <string>
#include <vector>

#include "optimizers/config_fields.h"
#include "optimizers/optimizer.h"
#include "optimizers/schedules.h"

namespace strata::optimizers {

// `class_name` as Keras spells it ("Adam", "RMSprop"), matched without regard to case as
// Keras does for its built-ins. An undefined handle for a class Strata does not have.
Optimizer optimizer_from_fields(const std::string& class_name, ConfigFields& read);
LearningRateSchedule schedule_from_fields(const std::string& class_name, ConfigFields& read);

// The Keras class names the two above know, for messages.
std::vector<std::string> optimizer_class_names();
std::vector<std::string> schedule_class_names();

}  // namespace strata::optimizers
