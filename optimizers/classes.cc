#include "optimizers/classes.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <utility>

#include "optimizers/optimizers.h"

namespace strata::optimizers {

namespace {

template <typename T>
using Table = std::vector<std::pair<std::string, std::function<T(ConfigFields&)>>>;

// Default options, the config's fields read over them, then the object.
template <typename T, typename Options, typename Make>
std::pair<std::string, std::function<T(ConfigFields&)>> entry(const char* class_name, Make make) {
  return {class_name, [make](ConfigFields& read) {
            Options options;
            options.fields(read);
            return T(make(std::move(options)));
          }};
}

template <typename Handle, typename Options>
auto optimizer(const char* class_name) {
  return entry<Optimizer, Options>(class_name, [](Options o) { return Handle(std::move(o)); });
}

template <typename Options>
auto schedule(const char* class_name, LearningRateSchedule (*make)(Options)) {
  return entry<LearningRateSchedule, Options>(class_name, make);
}

const Table<Optimizer>& optimizers_table() {
  static const Table<Optimizer> table = {
      optimizer<SGD, SGDOptions>("SGD"),           optimizer<Adam, AdamOptions>("Adam"),
      optimizer<AdamW, AdamWOptions>("AdamW"),     optimizer<RMSprop, RMSpropOptions>("RMSprop"),
      optimizer<Adagrad, AdagradOptions>("Adagrad"), optimizer<Adadelta, AdadeltaOptions>("Adadelta"),
      optimizer<Adamax, AdamaxOptions>("Adamax"),  optimizer<Nadam, NadamOptions>("Nadam"),
      optimizer<Lion, LionOptions>("Lion"),
  };
  return table;
}

const Table<LearningRateSchedule>& schedules_table() {
  using namespace schedules;
  static const Table<LearningRateSchedule> table = {
      schedule<ExponentialDecayOptions>("ExponentialDecay", ExponentialDecay),
      schedule<PiecewiseConstantDecayOptions>("PiecewiseConstantDecay", PiecewiseConstantDecay),
      schedule<PolynomialDecayOptions>("PolynomialDecay", PolynomialDecay),
      schedule<InverseTimeDecayOptions>("InverseTimeDecay", InverseTimeDecay),
      schedule<CosineDecayOptions>("CosineDecay", CosineDecay),
      schedule<CosineDecayRestartsOptions>("CosineDecayRestarts", CosineDecayRestarts),
  };
  return table;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

template <typename T>
T build(const Table<T>& table, const std::string& class_name, ConfigFields& read) {
  for (const auto& [name, make] : table) {
    if (lower(name) == lower(class_name)) return make(read);
  }
  return T();
}

template <typename T>
std::vector<std::string> names(const Table<T>& table) {
  std::vector<std::string> out;
  for (const auto& e : table) out.push_back(e.first);
  return out;
}

}  // namespace

Optimizer optimizer_from_fields(const std::string& class_name, ConfigFields& read) {
  return build(optimizers_table(), class_name, read);
}

LearningRateSchedule schedule_from_fields(const std::string& class_name, ConfigFields& read) {
  return build(schedules_table(), class_name, read);
}

std::vector<std::string> optimizer_class_names() { return names(optimizers_table()); }
std::vector<std::string> schedule_class_names() { return names(schedules_table()); }

}  // namespace strata::optimizers
