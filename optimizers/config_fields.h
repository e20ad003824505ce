// ConfigFields: Keras's config keys bound to the members of an options struct. Every
// optimizer and learning-rate schedule options struct lists its fields once, in Keras's
// get_config order (`void fields(ConfigFields&)`); io/optimizer_config.cc walks that list
// with a writer to save a config and with a reader to load one, so an option is declared
// in one place and its default stays the struct's. No JSON here: optimizers/ depends on
// core only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::optimizers {

class LearningRate;

class ConfigFields {
 public:
  virtual ~ConfigFields() = default;
  virtual void operator()(const char* key, bool& value) = 0;
  virtual void operator()(const char* key, std::int64_t& value) = 0;
  virtual void operator()(const char* key, double& value) = 0;
  virtual void operator()(const char* key, std::optional<double>& value) = 0;  // null when unset
  virtual void operator()(const char* key, std::string& value) = 0;
  virtual void operator()(const char* key, std::vector<std::int64_t>& value) = 0;
  virtual void operator()(const char* key, std::vector<double>& value) = 0;
  virtual void operator()(const char* key, LearningRate& value) = 0;  // a number or a schedule
  // Where Keras 3's optimizer options that Strata does not implement (use_ema,
  // ema_momentum, ema_overwrite_frequency, loss_scale_factor,
  // gradient_accumulation_steps) sit in the config: written with Keras's defaults,
  // refused on loading when a file sets them (io/optimizer_config.cc).
  virtual void unimplemented_options() {}
};

// The keys every Keras 3 optimizer's get_config starts with.
template <typename Options>
void common_fields(Options& o, ConfigFields& f) {
  f("name", o.name);
  f("learning_rate", o.learning_rate);
  f("weight_decay", o.weight_decay);
  f("clipnorm", o.clipnorm);
  f("global_clipnorm", o.global_clipnorm);
  f("clipvalue", o.clipvalue);
  f.unimplemented_options();
}

}  // namespace strata::optimizers
