#include "io/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "core/error.h"
#include "io/hdf5.h"
#include "io/safe_file.h"
#include "models/compiled_model.h"
#include "models/custom_model.h"
#include "models/custom_steps.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

void write_group(h5::File& file, const std::string& name, const std::vector<Variable>& vars) {
  h5::Group g = file.create_group(name);
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& v : vars) {
    if (!seen.insert(v.path()).second) {
      throw ValueError("two variables are named '" + v.path() +
                       "'; checkpoint names must be unique");
    }
    names.push_back(v.path());
  }
  g.write_string_list_attribute("names", names);
  for (std::size_t i = 0; i < vars.size(); ++i)
    g.create_dataset(std::to_string(i), vars[i].value());
}

// `where` opens every mismatch message ("checkpoint '...' does not match model '...': ").
void read_group(const h5::File& file, const std::string& name, const std::vector<Variable>& vars,
                const std::string& path, const std::string& where,
                std::vector<std::pair<Variable, Tensor>>& pending) {
  if (!file.has_group(name))
    throw IOError("checkpoint '" + path + "' has no group '/" + name + "'");
  const h5::Group g = file.open_group(name);
  const auto names = g.read_string_list_attribute("names");
  const std::string what = name == "weights" ? "model weight" : "optimizer variable";
  const std::size_t common = std::min(names.size(), vars.size());
  // Entries are matched by position: names may differ between processes (default layer names
  // count per process). But where the file names exactly these variables in another order
  // (a Model subclass's optimizer, built on its call's order before 2026-12-01 and on Keras's
  // since), each is read under its own name, not into a same-shaped neighbour.
  std::vector<std::size_t> source(common);
  for (std::size_t i = 0; i < common; ++i) source[i] = i;
  if (names.size() == vars.size()) {
    std::map<std::string, std::size_t> stored;
    for (std::size_t i = 0; i < names.size(); ++i) stored.emplace(names[i], i);
    std::set<std::size_t> taken;
    for (std::size_t i = 0; i < vars.size(); ++i) {
      const auto at = stored.find(vars[i].path());
      if (at == stored.end() || !taken.insert(at->second).second) break;
    }
    if (taken.size() == vars.size()) {
      for (std::size_t i = 0; i < vars.size(); ++i) source[i] = stored.at(vars[i].path());
    }
  }
  for (std::size_t i = 0; i < common; ++i) {
    const h5::Dataset ds = g.open_dataset(std::to_string(source[i]));
    if (ds.shape() != vars[i].shape()) {
      throw ValueError(where + "first mismatching " + what + " is " + std::to_string(i) +
                       ": the file has '" + names[source[i]] + "' " + ds.shape().to_string() +
                       " (dataset '" + ds.path() + "'), the model '" + vars[i].path() + "' " +
                       vars[i].shape().to_string());
    }
    pending.emplace_back(vars[i], ds.read(vars[i].dtype()));
  }
  const std::string counts = " ('/" + name + "' holds " + std::to_string(names.size()) +
                             ", the model has " + std::to_string(vars.size()) + ")";
  if (names.size() < vars.size()) {
    throw ValueError(where + "the model's " + what + " " + std::to_string(common) + " '" +
                     vars[common].path() + "' " + vars[common].shape().to_string() +
                     " has no counterpart in the file" + counts);
  }
  if (names.size() > vars.size()) {
    throw ValueError(where + "the file has an extra " + what + " " + std::to_string(common) +
                     " '" + names[common] + "'" + counts);
  }
}

Tensor scalar64(std::uint64_t v) {
  return Tensor::from_vector<std::int64_t>(Shape{}, {static_cast<std::int64_t>(v)});
}

}  // namespace

namespace {

void save_checkpoint_variables(const std::string& path, const Model& model,
                               const std::vector<Variable>& optimizer_variables, const CheckpointState& state) {
  SafeFile out(path);
  try {
    {
      h5::File file(out.temp_path(), h5::File::Mode::truncate);
      file.write_string_attribute("format", "strata-checkpoint");
      file.write_string_attribute("version", "1");
      write_group(file, "weights", model.weights());
      write_group(file, "optimizer", optimizer_variables);
      h5::Group s = file.create_group("state");
      s.create_dataset("epoch", scalar64(static_cast<std::uint64_t>(state.epoch)));
      s.create_dataset("step", scalar64(static_cast<std::uint64_t>(state.step)));
      s.create_dataset("seed", scalar64(state.seed));
      s.create_dataset("shuffle_seed", scalar64(state.shuffle_seed));
      s.create_dataset("stream", scalar64(state.stream));
      s.create_dataset("pass", scalar64(state.pass));
      s.create_dataset("pass_batch", scalar64(static_cast<std::uint64_t>(state.pass_batch)));
      s.create_dataset("train_steps", scalar64(static_cast<std::uint64_t>(state.train_steps)));
      file.close();
    }
    out.commit();
  } catch (const Error& e) {
    if (dynamic_cast<const ValueError*>(&e))
      throw ValueError("cannot save checkpoint '" + path + "': " + e.what());
    throw IOError("cannot save checkpoint '" + path + "': " + e.what());
  }
}

// `optimizer_variables` empty: the optimizer's group is not read (weights only).
CheckpointState load_checkpoint_variables(const std::string& path, const Model& model,
                                          const std::optional<std::vector<Variable>>& optimizer_variables) {
  const h5::File file(path, h5::File::Mode::read);
  if (!file.has_attribute("format") ||
      file.read_string_attribute("format") != "strata-checkpoint") {
    throw IOError("'" + path +
                  "' is not a Strata checkpoint (no attribute format='strata-checkpoint')");
  }
  const std::string where =
      "checkpoint '" + path + "' does not match model '" + model.name() + "': ";
  std::vector<std::pair<Variable, Tensor>> pending;
  read_group(file, "weights", model.weights(), path, where, pending);
  if (optimizer_variables) read_group(file, "optimizer", *optimizer_variables, path, where, pending);
  CheckpointState st;
  // Datasets added after version 1's first files are optional (`fallback`).
  auto get = [&](const char* name, std::optional<std::int64_t> fallback = {}) -> std::int64_t {
    const std::string p = std::string("state/") + name;
    if (!file.has_dataset(p)) {
      if (fallback) return *fallback;
      throw IOError("checkpoint '" + path + "' has no dataset '/" + p + "'");
    }
    const h5::Dataset dataset = file.open_dataset(p);
    if (dataset.shape().num_elements() != 1) {
      throw IOError("checkpoint '" + path + "' has dataset '/" + p + "' of shape " +
                    dataset.shape().to_string() + "; it holds one number");
    }
    return dataset.read(DType::int64).data<std::int64_t>()[0];
  };
  st.epoch = get("epoch");
  st.step = get("step");
  st.seed = static_cast<std::uint64_t>(get("seed"));
  st.shuffle_seed = static_cast<std::uint64_t>(get("shuffle_seed"));
  st.stream = static_cast<std::uint64_t>(get("stream"));
  st.pass = static_cast<std::uint64_t>(get("pass", st.epoch));
  st.pass_batch = get("pass_batch", st.step);
  st.train_steps = get("train_steps", 0);
  for (auto& [v, t] : pending) v.assign(t);
  return st;
}

std::vector<Variable> optimizer_variables_of(const optimizers::Optimizer& optimizer) {
  return optimizer.defined() ? optimizer.variables() : std::vector<Variable>{};
}

}  // namespace

void save_checkpoint(const std::string& path, const Model& model,
                     const optimizers::Optimizer& optimizer, const CheckpointState& state) {
  save_checkpoint_variables(path, model, optimizer_variables_of(optimizer), state);
}

CheckpointState load_checkpoint(const std::string& path, const Model& model,
                                const optimizers::Optimizer& optimizer) {
  return load_checkpoint_variables(
      path, model, optimizer.defined() ? std::optional(optimizer.variables()) : std::nullopt);
}

CheckpointState checkpoint_state(const FitState& fit) {
  return {.epoch = fit.epoch,
          .step = fit.step,
          .shuffle_seed = fit.shuffle_seed,
          .pass = fit.pass,
          .pass_batch = fit.pass_batch,
          .train_steps = fit.train_steps};
}

FitState fit_state(const CheckpointState& state) {
  return {.epoch = static_cast<int>(state.epoch),
          .step = state.step,
          .pass = state.pass,
          .pass_batch = state.pass_batch,
          .shuffle_seed = state.shuffle_seed,
          .train_steps = state.train_steps};
}

namespace {
// The compiled model's optimizer's variables, or a CustomModel's: those of every
// optimizer its train step applies (the GAN's two).
std::vector<Variable> model_optimizer_variables(const Model& model) {
  const ModelImpl& m = model.model();
  if (const auto* custom = dynamic_cast<const CustomModel*>(&m); custom && custom->steps()) {
    return custom->steps()->optimizer_variables();
  }
  return m.compiled ? m.compiled->optimizer().variables() : std::vector<Variable>{};
}
}  // namespace

void save_checkpoint(const std::string& path, const Model& model, const CheckpointState& state) {
  save_checkpoint_variables(path, model, model_optimizer_variables(model), state);
}

CheckpointState load_checkpoint(const std::string& path, const Model& model) {
  const ModelImpl& m = model.model();
  const auto* custom = dynamic_cast<const CustomModel*>(&m);
  const bool compiled = m.compiled || (custom && custom->steps());
  return load_checkpoint_variables(
      path, model, compiled ? std::optional(model_optimizer_variables(model)) : std::nullopt);
}

}  // namespace strata::io
