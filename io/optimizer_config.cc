#include "io/optimizer_config.h"

#include <cmath>
#include <iostream>
#include <set>

#include "core/error.h"
#include "optimizers/classes.h"
#include "optimizers/loss_scale_optimizer.h"
#include "optimizers/schedules.h"

namespace strata::io {

namespace {

using optimizers::ConfigFields;
using optimizers::LearningRate;
using optimizers::LearningRateSchedule;

// Keras 3's optimizer options that Strata does not implement, with Keras's defaults:
// saving writes these; loading accepts only these values (ema_momentum and
// ema_overwrite_frequency mean nothing while use_ema is false, so any value passes).
const std::vector<std::pair<std::string, json>>& unimplemented_defaults() {
  static const std::vector<std::pair<std::string, json>> defaults = {
      {"use_ema", false},
      {"ema_momentum", 0.99},
      {"ema_overwrite_frequency", nullptr},
      {"loss_scale_factor", nullptr},
      {"gradient_accumulation_steps", nullptr}};
  return defaults;
}

std::string comma_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// "Custom>Adam" (tf.keras 2.11+), "keras.optimizers.Adam" -> "Adam".
std::string base_class(std::string cls) {
  if (auto p = cls.find_last_of(">."); p != std::string::npos) cls = cls.substr(p + 1);
  return cls;
}

std::string hint() { return " (load the model with {.compile = false} to skip its training configuration)"; }

json schedule_object(const LearningRateSchedule& s);

class JsonWriter : public ConfigFields {
 public:
  json out = json::object();
  void operator()(const char* k, bool& v) override { out[k] = v; }
  void operator()(const char* k, std::int64_t& v) override { out[k] = v; }
  void operator()(const char* k, double& v) override { out[k] = v; }
  void operator()(const char* k, std::optional<double>& v) override { out[k] = v ? json(*v) : json(nullptr); }
  void operator()(const char* k, std::string& v) override { out[k] = v; }
  void operator()(const char* k, std::vector<std::int64_t>& v) override { out[k] = v; }
  void operator()(const char* k, std::vector<double>& v) override { out[k] = v; }
  void operator()(const char* k, LearningRate& v) override {
    out[k] = v.schedule().defined() ? schedule_object(v.schedule()) : json(double(v));
  }
  void unimplemented_options() override {
    for (const auto& [k, v] : unimplemented_defaults()) out[k] = v;
  }
};

json schedule_object(const LearningRateSchedule& s) {
  if (!s.has_config()) {
    throw ValueError("the learning-rate schedule '" + s.class_name() +
                     "' is a function of one's own, which Keras files cannot hold; use one of " +
                     comma_list(optimizers::schedule_class_names()));
  }
  JsonWriter w;
  s.config_fields(w);
  return json{{"module", "keras.optimizers.schedules"},
              {"class_name", s.class_name()},
              {"config", w.out},
              {"registered_name", nullptr}};
}

LearningRate read_learning_rate(const json& j, const std::string& where);

// Reads the fields a class asks for from its config; remembers which keys it read, so
// that keys no field claims are reported rather than dropped.
class JsonReader : public ConfigFields {
 public:
  JsonReader(const json& config, std::string where) : config_(config), where_(std::move(where)) {}

  void operator()(const char* k, bool& v) override {
    if (const json* j = find(k)) v = j->is_boolean() ? j->get<bool>() : fail<bool>(k, *j, "true or false");
  }
  void operator()(const char* k, std::int64_t& v) override {
    if (const json* j = find(k)) v = integer(k, *j);
  }
  void operator()(const char* k, double& v) override {
    if (const json* j = find(k)) v = number(k, *j);
  }
  void operator()(const char* k, std::optional<double>& v) override {
    if (const json* j = find(k)) v = j->is_null() ? std::nullopt : std::optional<double>(number(k, *j));
  }
  void operator()(const char* k, std::string& v) override {
    const json* j = find(k);
    if (j && !j->is_null()) v = j->is_string() ? j->get<std::string>() : fail<std::string>(k, *j, "a string");
  }
  void operator()(const char* k, std::vector<std::int64_t>& v) override {
    if (const json* j = find(k)) {
      if (!j->is_array()) fail<int>(k, *j, "a list of integers");
      v.clear();
      for (const auto& x : *j) v.push_back(integer(k, x));
    }
  }
  void operator()(const char* k, std::vector<double>& v) override {
    if (const json* j = find(k)) {
      if (!j->is_array()) fail<int>(k, *j, "a list of numbers");
      v.clear();
      for (const auto& x : *j) v.push_back(number(k, x));
    }
  }
  void operator()(const char* k, LearningRate& v) override {
    if (const json* j = find(k)) v = read_learning_rate(*j, where_ + " key '" + k + "'");
  }
  void unimplemented_options() override {
    for (const auto& [k, keras_default] : unimplemented_defaults()) {
      const json* j = find(k.c_str());
      if (!j || *j == keras_default || j->is_null() || k == "ema_momentum" || k == "ema_overwrite_frequency")
        continue;
      throw NotImplementedError(where_ + ": option " + k + "=" + j->dump() +
                                " is not supported by Strata (Keras's default is " + keras_default.dump() + ")" +
                                hint());
    }
  }
  // Throws for a key that no field read.
  void check_all_read() const {
    for (const auto& [k, v] : config_.items()) {
      if (!read_.count(k)) throw ValueError(where_ + ": unknown key '" + k + "' (value " + v.dump() + ")" + hint());
    }
  }

 private:
  const json* find(const char* k) {
    read_.insert(k);
    auto it = config_.find(k);
    return it == config_.end() ? nullptr : &*it;
  }
  template <typename T>
  T fail(const char* k, const json& j, const char* expected) const {
    throw ValueError(where_ + ": key '" + k + "' should be " + expected + ", found " + j.dump() + hint());
  }
  double number(const char* k, const json& j) const {
    return j.is_number() ? j.get<double>() : fail<double>(k, j, "a number");
  }
  std::int64_t integer(const char* k, const json& j) const {
    if (j.is_number_integer()) return j.get<std::int64_t>();
    // Keras keeps what it was given; 1000.0 is a step count too.
    if (j.is_number() && std::floor(j.get<double>()) == j.get<double>()) return static_cast<std::int64_t>(j.get<double>());
    return fail<std::int64_t>(k, j, "an integer");
  }

  const json& config_;
  std::string where_;
  std::set<std::string> read_;
};

// {"class_name", "config"} (+ "module", "registered_name"); a malformed entry throws.
std::pair<std::string, json> class_and_config(const json& j, const std::string& where, const char* what) {
  if (!j.is_object() || !j.contains("class_name") || !j["class_name"].is_string()) {
    throw ValueError(where + ": " + what + " should be an object with a string \"class_name\", found " +
                     j.dump().substr(0, 200) + hint());
  }
  json config = j.value("config", json::object());
  if (!config.is_object()) {
    throw ValueError(where + ": the \"config\" of " + what + " '" + j["class_name"].get<std::string>() +
                     "' should be an object, found " + config.dump().substr(0, 200) + hint());
  }
  return {base_class(j["class_name"].get<std::string>()), config};
}

LearningRate read_learning_rate(const json& j, const std::string& where) {
  if (j.is_number()) return j.get<double>();
  auto [cls, config] = class_and_config(j, where, "a learning rate (a number or a schedule)");
  const std::string here = where + " (" + cls + ")";
  JsonReader reader(config, here);
  LearningRateSchedule s = optimizers::schedule_from_fields(cls, reader);
  if (!s.defined()) {
    throw NotImplementedError(where + ": learning-rate schedule class '" + cls + "' is not supported; Strata has " +
                              comma_list(optimizers::schedule_class_names()) + hint());
  }
  reader.check_all_read();
  return s;
}

// Keras 2 / tf.keras spellings into Keras 3's, in place.
void keras2_to_keras3(const std::string& cls, json& c, const std::string& where) {
  if (c.contains("lr")) {
    if (!c.contains("learning_rate")) c["learning_rate"] = c["lr"];
    c.erase("lr");
  }
  c.erase("jit_compile");          // tf.keras: XLA compilation, no effect on the math
  c.erase("is_legacy_optimizer");  // tf.keras: which implementation it was
  for (const char* k : {"decay", "schedule_decay"}) {
    if (!c.contains(k)) continue;
    const json d = c[k];
    c.erase(k);
    if (!d.is_number()) throw ValueError(where + ": key '" + k + "' should be a number, found " + d.dump() + hint());
    if (d.get<double>() == 0.0) continue;
    if (cls == "Nadam") {
      // Keras 2's Nadam decays its momentum schedule by this; Keras 3's, which Strata has,
      // uses 0.96^t and ignores the key with a warning, as this does.
      std::cerr << "strata: " << where << ": Keras 2's Nadam " << k << "=" << d.dump()
                << " is ignored: Strata's Nadam follows Keras 3's momentum schedule, as Keras 3 does\n";
      continue;
    }
    const json lr = c.value("learning_rate", json(0.001));
    if (!lr.is_number()) {
      throw NotImplementedError(where + ": Keras 2's " + k + "=" + d.dump() +
                                " together with a learning-rate schedule is not supported" + hint());
    }
    // Keras 2: lr / (1 + decay·iterations).
    optimizers::LearningRate rate = optimizers::schedules::InverseTimeDecay(
        {.initial_learning_rate = lr.get<double>(), .decay_steps = 1, .decay_rate = d.get<double>()});
    c["learning_rate"] = schedule_object(rate.schedule());
  }
}

// Keras 3's LossScaleOptimizer config (name, inner_optimizer, initial_scale,
// dynamic_growth_steps), and tf.keras's, whose "dynamic" Keras 3 accepts when true.
optimizers::Optimizer loss_scale_optimizer_from_config(json config, const std::string& where,
                                                       const std::string& here) {
  if (!config.contains("inner_optimizer")) {
    throw ValueError(here + ": the config has no \"inner_optimizer\"" + hint());
  }
  const optimizers::Optimizer inner = optimizer_from_config(config["inner_optimizer"], where + " inner_optimizer");
  config.erase("inner_optimizer");
  if (config.contains("dynamic")) {
    if (config["dynamic"] != json(true)) {
      throw NotImplementedError(here + ": \"dynamic\": " + config["dynamic"].dump() +
                                " (a fixed loss scale) is not supported, as in Keras 3" + hint());
    }
    config.erase("dynamic");
  }
  optimizers::LossScaleOptimizerOptions options;
  JsonReader reader(config, here);
  options.fields(reader);
  reader.check_all_read();
  return optimizers::LossScaleOptimizer(inner, options);
}

}  // namespace

json optimizer_config(const optimizers::Optimizer& optimizer) {
  JsonWriter w;
  optimizer.impl().config_fields(w);
  if (optimizers::is_loss_scale_optimizer(optimizer)) {
    // Keras's get_config: name, the inner optimizer serialized, then the scale's options.
    json config = json::object();
    for (const auto& [key, value] : w.out.items()) {
      config[key] = value;
      if (key == "name") {
        config["inner_optimizer"] =
            keras3_optimizer_object(optimizers::LossScaleOptimizer::from(optimizer).inner_optimizer());
      }
    }
    return json{{"class_name", optimizer.class_name()}, {"config", config}};
  }
  return json{{"class_name", optimizer.class_name()}, {"config", w.out}};
}

optimizers::Optimizer optimizer_given_to_compile(const optimizers::Optimizer& compiled) {
  if (!optimizers::is_loss_scale_optimizer(compiled)) return compiled;
  const auto wrapper = optimizers::LossScaleOptimizer::from(compiled);
  return wrapper.is_made_by_compile() ? wrapper.inner_optimizer() : compiled;
}

json keras3_optimizer_object(const optimizers::Optimizer& optimizer) {
  const json c = optimizer_config(optimizer);
  return json{{"module", "keras.optimizers"},
              {"class_name", c["class_name"]},
              {"config", c["config"]},
              {"registered_name", nullptr}};
}

optimizers::Optimizer optimizer_from_config(const json& j, const std::string& where) {
  try {
    if (j.is_string()) return optimizers::get(j.get<std::string>());
    auto [cls, config] = class_and_config(j, where, "the optimizer");
    const std::string here = where + " optimizer " + cls;
    if (cls == "LossScaleOptimizer") return loss_scale_optimizer_from_config(config, where, here);
    keras2_to_keras3(cls, config, here);
    JsonReader reader(config, here);
    optimizers::Optimizer opt = optimizers::optimizer_from_fields(cls, reader);
    if (!opt.defined()) {
      throw NotImplementedError(where + ": optimizer class '" + j["class_name"].get<std::string>() +
                                "' is not supported; Strata has " + comma_list(optimizers::optimizer_class_names()) +
                                hint());
    }
    reader.check_all_read();
    return opt;
  } catch (const NotImplementedError&) {
    throw;
  } catch (const ValueError& e) {
    // The optimizer's own checks (two clipping options, a negative rate) name no file.
    const std::string msg = e.what();
    if (msg.find(where) != std::string::npos) throw;
    throw ValueError(where + ": " + msg + hint());
  }
}

}  // namespace strata::io
