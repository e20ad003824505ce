// Keras 3 `.keras` archives (keras-spec §3d): config.json, metadata.json and
// model.weights.h5, whose groups are keyed by attribute path: layers/<key>/vars/<i>,
// <key> = snake_case(class) uniquified by position; nested models recurse
// (layers/functional/layers/dense/vars/0); layer families may keep vars elsewhere
// (io/layer_config.h VarGroup: RNN cells at layers/lstm/cell/vars). Layers with assets
// (an adapted lookup layer's vocabulary.txt) keep them at assets/<the same path>/<file>.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <set>

#include "core/error.h"
#include "io/custom_model.h"
#include "io/hdf5.h"
#include "io/model_config.h"
#include "io/optimizer_config.h"
#include "io/saving.h"
#include "io/safe_file.h"
#include "io/zip.h"
#include "layers/keras_class.h"
#include "models/compiled_model.h"
#include "optimizers/loss_scale_optimizer.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

// A temporary file, removed when this goes out of scope. It is read back at once and never
// kept, so its bytes are written without the syncs a saved file takes (safe_file.h): for a
// ResNet50's 100 MB of weights those syncs had been most of load_model's time.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& suffix) {
    static std::atomic<unsigned> counter{0};
    path_ = (fs::temp_directory_path() /
             ("strata_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix))
                .string();
  }
  ~ScratchFile() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  const std::string& path() const { return path_; }

  void write(const std::string& bytes) const { write_scratch_file(path_, bytes); }

 private:
  std::string path_;
};

std::vector<std::string> keys_of(const std::vector<Layer>& layers) {
  std::vector<LayerWeights> lw;
  for (const auto& l : layers) lw.push_back({l.name(), {}, l.class_name()});
  return keras3_layer_keys(lw);
}

bool is_model(const Layer& l) { return is_model_class(l.class_name()); }

std::vector<Layer> container_layers(const Layer& model) {
  return keras_layer_order(Model(std::static_pointer_cast<ModelImpl>(model.shared_impl())));
}

// One layer's variables (and tensors of its own) under `lp`, its path in the file.
void write_layer(h5::File& file, const std::string& lp, const Layer& layer) {
  for (const VarGroup& g : keras3_var_groups(layer)) {
    if (g.variables.empty()) continue;
    h5::Group vars = file.create_group(lp + "/" + g.path);
    vars.write_string_attribute("name", layer.name());
    for (std::size_t v = 0; v < g.variables.size(); ++v)
      vars.create_dataset(std::to_string(v), g.variables[v].value(), h5::stored_element(g.variables[v]));
  }
  const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(layer.class_name());
  if (!k || !k->save_own_tensors) return;
  for (const auto& [path, value] : k->save_own_tensors(layer.impl())) {
    const auto slash = path.rfind('/');
    h5::Group group = file.require_group(lp + "/" + path.substr(0, slash));
    if (!group.has_attribute("name")) group.write_string_attribute("name", layer.name());
    group.create_dataset(path.substr(slash + 1), value);
  }
}

void write_container(h5::File& file, const std::string& prefix, const std::vector<Layer>& layers) {
  const auto keys = keys_of(layers);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string lp = prefix + "layers/" + keys[i];
    if (is_model(layers[i])) {
      write_container(file, lp + "/", container_layers(layers[i]));
      continue;
    }
    write_layer(file, lp, layers[i]);
  }
}

// The layers of a Model subclass and their paths (io/custom_model.h); a model tracked
// inside one is not supported yet.
std::vector<std::pair<std::string, Layer>> subclass_layers(const Model& model) {
  auto paths = subclass_weight_paths(dynamic_cast<const CustomModel&>(model.model()));
  std::set<const LayerImpl*> reached;
  std::function<void(const Layer&)> reach = [&](const Layer& layer) {
    if (!reached.insert(&layer.impl()).second) return;
    for (const Layer& inner : layer.impl().sublayers()) reach(inner);
  };
  for (const auto& [at, layer] : paths) {
    if (is_model(layer) || dynamic_cast<const CustomModel*>(&layer.impl())) {
      throw NotImplementedError("model '" + model.name() + "' tracks the model '" + layer.name() + "' as '" + at +
                                "': a model inside a Model subclass is not saved or loaded yet");
    }
    reach(layer);
  }
  // A layer the call uses but the model does not track has no place in the file: its
  // weights would be lost silently (Python tracks every layer set as an attribute; C++
  // says so with track()).
  for (const Layer& layer : model.layers()) {
    if (!layer.weights().empty() && !reached.count(&layer.impl())) {
      throw ValueError("model '" + model.name() + "' calls layer '" + layer.name() + "' (" + layer.class_name() +
                       ") without tracking it, so its weights have no place in the file: set it with track(\"" +
                       layer.name() + "\", ...) in the constructor");
    }
  }
  return paths;
}

// Keras 3's save_assets: each layer's files under assets/<layer path>/.
void write_layer_assets(ZipWriter& zip, const std::string& lp, const Layer& layer) {
  const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(layer.class_name());
  if (!k || !k->save_assets) return;
  for (const auto& [name, bytes] : k->save_assets(layer.impl())) zip.add("assets/" + lp + "/" + name, bytes);
}

void write_assets(ZipWriter& zip, const std::string& prefix, const std::vector<Layer>& layers) {
  const auto keys = keys_of(layers);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string lp = prefix + "layers/" + keys[i];
    if (is_model(layers[i])) {
      write_assets(zip, lp + "/", container_layers(layers[i]));
      continue;
    }
    write_layer_assets(zip, lp, layers[i]);
  }
}

// Keras 3's load_assets.
void read_layer_assets(const ZipReader& zip, const std::string& lp, const Layer& layer) {
  const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(layer.class_name());
  if (!k || !k->load_assets) return;
  k->load_assets(layer.impl(), [&](const std::string& name) -> std::optional<std::string> {
    const std::string path = "assets/" + lp + "/" + name;
    if (!zip.contains(path)) return std::nullopt;
    return zip.read(path);
  });
}

void read_assets(const ZipReader& zip, const std::string& prefix, const std::vector<Layer>& layers) {
  const auto keys = keys_of(layers);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string lp = prefix + "layers/" + keys[i];
    if (is_model(layers[i])) {
      read_assets(zip, lp + "/", container_layers(layers[i]));
      continue;
    }
    read_layer_assets(zip, lp, layers[i]);
  }
}

using Pending = std::vector<std::pair<Variable, Tensor>>;

// One layer's variables (and tensors of its own) from `lp`, its path in the file.
void read_layer(const h5::File& file, const std::string& lp, const Layer& layer, const std::string& source,
                Pending& pending) {
  for (const VarGroup& g : keras3_var_groups(layer)) {
    const std::string vp = lp + "/" + g.path;
    const bool present = file.has_group(vp);
    std::size_t stored = present ? file.open_group(vp).children().size() : 0;
    if (stored != g.variables.size()) {
      throw ValueError("cannot load weights from '" + source + "': layer '" + layer.name() + "' (" +
                       layer.class_name() + ") has " + std::to_string(g.variables.size()) +
                       " variables, the file's '/" + vp + "' holds " + std::to_string(stored));
    }
    if (!present) continue;
    const h5::Group vars = file.open_group(vp);
    for (std::size_t v = 0; v < g.variables.size(); ++v) {
      const h5::Dataset ds = vars.open_dataset(std::to_string(v));
      if (ds.shape() != g.variables[v].shape()) {
        throw ValueError("cannot load weights from '" + source + "': layer '" + layer.name() + "' weight '" +
                         g.variables[v].path() + "' has shape " + g.variables[v].shape().to_string() +
                         ", the file's dataset '" + ds.path() + "' has shape " + ds.shape().to_string());
      }
      pending.emplace_back(g.variables[v], ds.read(g.variables[v].dtype()));
    }
  }
  const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(layer.class_name());
  if (!k || !k->load_own_tensors) return;
  k->load_own_tensors(layer.impl(), [&](const std::string& path) -> std::optional<Tensor> {
    if (!file.has_dataset(lp + "/" + path)) return std::nullopt;
    return file.open_group(lp).open_dataset(path).read(DType::float32);
  });
}

void read_container(const h5::File& file, const std::string& prefix,
                    const std::vector<Layer>& layers, const std::string& source, Pending& pending) {
  std::string container = prefix + "layers";
  if (!file.has_group(container) && file.has_group(prefix + "_layer_checkpoint_dependencies")) {
    container = prefix + "_layer_checkpoint_dependencies";  // tf.keras 2.13 archives
  }
  const auto keys = keys_of(layers);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string lp = container + "/" + keys[i];
    if (is_model(layers[i])) {
      read_container(file, lp + "/", container_layers(layers[i]), source, pending);
      continue;
    }
    read_layer(file, lp, layers[i], source, pending);
  }
}

std::string now_string() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d@%H:%M:%S", std::gmtime(&t));
  return buf;
}

json compile_config_of(const Model& model) {
  json tc = training_config_of(model);
  if (tc.is_null()) return nullptr;
  return json{{"optimizer", keras3_optimizer_object(optimizer_given_to_compile(model.optimizer()))},
              {"loss", tc["loss"]},
              {"loss_weights", tc["loss_weights"]},
              {"metrics", tc["metrics"]},
              {"weighted_metrics", nullptr},
              {"run_eagerly", false},
              {"steps_per_execution", 1},
              {"jit_compile", false}};
}

// Keras 3's model.trainable_variables: layers in Keras's order, nested models recursed.
void keras_trainable(const Layer& layer, bool trainable, std::vector<Variable>& out) {
  trainable = trainable && layer.trainable();
  if (!trainable) return;
  if (is_model(layer)) {
    for (const auto& l : container_layers(layer)) keras_trainable(l, true, out);
    return;
  }
  // Nested layers' too (RNN cells, Bidirectional's two layers, TimeDistributed's layer).
  for (const auto& v : layer.trainable_weights()) out.push_back(v);
}

// The compiled model's optimizer when its slots line up with Keras's (one slot set per
// trainable variable, in Keras's variable order); else undefined, and `why` says why.
optimizers::Optimizer optimizer_in_keras_order(const Model& model, std::string& why) {
  const ModelImpl& m = model.model();
  if (!m.compiled || !m.compiled->optimizer().defined()) {
    why = "the model is not compiled";
    return {};
  }
  std::vector<Variable> ours, keras;
  if (m.trainable) {
    for (const auto& layer : m.sublayers()) {
      for (const auto& v : layer.trainable_weights()) ours.push_back(v);
    }
  }
  for (const auto& l : keras_layer_order(model)) keras_trainable(l, true, keras);
  bool same = ours.size() == keras.size();
  for (std::size_t i = 0; same && i < ours.size(); ++i) same = ours[i].path() == keras[i].path();
  if (!same) {
    why = "Strata's variable order differs from Keras's for this graph";
    return {};
  }
  return m.compiled->optimizer();
}

}  // namespace

// Reads the weights of `model` from a Keras 3 weights file (standalone or extracted).
void load_keras3_weights_file(const Model& model, const std::string& h5_path,
                              const std::string& source) {
  Pending pending;
  try {
    const h5::File file(h5_path, h5::File::Mode::read);
    if (saved_as_subclass(model)) {
      for (const auto& [path, layer] : subclass_layers(model)) read_layer(file, path, layer, source, pending);
    } else {
      read_container(file, "", keras_layer_order(model), source, pending);
    }
  } catch (const IOError& e) {
    throw IOError("cannot load weights from '" + source + "': " + e.what());
  }
  for (auto& [v, t] : pending) v.assign(t);
}

namespace {

// Keras 3's optimizer.variables: iteration, learning_rate, then the slots; no
// learning_rate when a schedule drives the rate (Keras computes it at every step).
std::vector<Variable> keras3_optimizer_variables(const optimizers::Optimizer& opt) {
  if (optimizers::is_loss_scale_optimizer(opt)) {
    // Its own four (iteration, learning_rate, step_counter, dynamic_scale), then the
    // inner optimizer's as Keras lists them.
    std::vector<Variable> vars = opt.variables();
    vars.resize(vars.size() - optimizers::LossScaleOptimizer::from(opt).inner_optimizer().variables().size());
    for (const Variable& v : keras3_optimizer_variables(optimizers::LossScaleOptimizer::from(opt).inner_optimizer())) {
      vars.push_back(v);
    }
    return vars;
  }
  std::vector<Variable> vars = opt.variables();
  if (optimizer_config(opt)["config"]["learning_rate"].is_object()) vars.erase(vars.begin() + 1);
  return vars;
}

// What Keras 3 writes of an optimizer it never built (compiled, not trained): its
// iteration and learning_rate (iteration alone under a schedule); a LossScaleOptimizer's
// own two, then its inner optimizer's.
std::vector<Variable> keras3_unbuilt_optimizer_variables(const optimizers::Optimizer& opt) {
  if (optimizers::is_loss_scale_optimizer(opt)) {
    const std::vector<Variable> own = opt.variables();
    std::vector<Variable> vars{own.at(0), own.at(1)};
    for (const Variable& v :
         keras3_unbuilt_optimizer_variables(optimizers::LossScaleOptimizer::from(opt).inner_optimizer())) {
      vars.push_back(v);
    }
    return vars;
  }
  std::vector<Variable> vars = keras3_optimizer_variables(opt);
  vars.resize(std::min<std::size_t>(vars.size(), vars.size() == opt.variables().size() ? 2 : 1));
  return vars;
}

// A registered Model subclass's trainable variables in Keras's order (models/custom_model.h).
std::vector<Variable> subclass_trainable_variables(const Model& model) {
  return dynamic_cast<const CustomModel&>(model.model()).trainable_variables();
}

// A compiled Model subclass's optimizer variables as Keras 3 writes them (optimizer/vars):
// Keras builds the optimizer on the model's trainable_variables, as a Strata step does
// (models/custom_model.h), and each optimizer's build lays its slots out over them in its
// own pattern (Adam's per variable, RMSprop's a block per slot kind, Nadam's u_product
// after), which Strata's mirror; so the created order is the file's. Undefined (and `why`
// says why) when a custom step built the optimizer on other variables or in another order.
std::pair<optimizers::Optimizer, std::vector<Variable>> subclass_optimizer_state(const Model& model,
                                                                                  std::string& why) {
  if (!model.compiled()) {
    why = "the model is not compiled";
    return {};
  }
  optimizers::Optimizer opt = model.optimizer();
  std::vector<const void*> built_on, trainable;
  for (const auto& s : opt.impl().slot_variables()) {
    if (std::find(built_on.begin(), built_on.end(), s.variable.id()) == built_on.end()) {
      built_on.push_back(s.variable.id());
    }
  }
  for (const Variable& v : subclass_trainable_variables(model)) trainable.push_back(v.id());
  if (!built_on.empty() && built_on != trainable) {
    why = "the optimizer was built on other variables than the model's trainable_variables, or in another order";
    return {};
  }
  return {opt, keras3_optimizer_variables(opt)};
}

// The compiled model's optimizer and its variables in the order Keras 3 writes them; an
// undefined optimizer when they do not line up with Keras's, and `why` says why.
std::pair<optimizers::Optimizer, std::vector<Variable>> optimizer_state_in_keras_order(const Model& model,
                                                                                        std::string& why) {
  if (saved_as_subclass(model)) return subclass_optimizer_state(model, why);
  optimizers::Optimizer opt = optimizer_in_keras_order(model, why);
  if (!opt.defined()) return {};
  return {opt, keras3_optimizer_variables(opt)};
}

// Keras 3's optimizer/vars (iteration, learning_rate, slots) into the compiled model's
// optimizer, when they line up; otherwise the optimizer starts fresh, with a warning. A
// subclass's step, and with it its optimizer's slots, is built at the first fit; Keras
// builds the optimizer on the model's trainable variables to read a file's state into it,
// and so does this.
void load_optimizer_state(const Model& model, const std::string& h5_path, const std::string& path) {
  if (saved_as_subclass(model)) model.optimizer().build(subclass_trainable_variables(model));
  std::string why;
  auto [opt, vars] = optimizer_state_in_keras_order(model, why);
  const h5::File file(h5_path, h5::File::Mode::read);
  if (!file.has_group("optimizer/vars")) return;
  const h5::Group g = file.open_group("optimizer/vars");
  const std::size_t stored = g.children().size();
  const std::vector<Variable> unbuilt_vars = opt.defined() ? keras3_unbuilt_optimizer_variables(opt) : vars;
  const bool unbuilt = stored == unbuilt_vars.size() && stored != vars.size();
  if (opt.defined() && stored != vars.size() && !unbuilt) {
    why = "the file holds " + std::to_string(stored) + " optimizer variables, the optimizer has " +
          std::to_string(vars.size());
    opt = {};
  }
  std::vector<std::pair<Variable, Tensor>> pending;
  if (opt.defined()) {
    if (unbuilt) vars = unbuilt_vars;
    for (std::size_t i = 0; i < vars.size() && opt.defined(); ++i) {
      const h5::Dataset ds = g.open_dataset(std::to_string(i));
      if (ds.shape() != vars[i].shape()) {
        why = "optimizer variable " + std::to_string(i) + " has shape " + ds.shape().to_string() +
              " in the file, " + vars[i].shape().to_string() + " in the optimizer";
        opt = {};
        break;
      }
      pending.emplace_back(vars[i], ds.read(vars[i].dtype()));
    }
  }
  if (!opt.defined()) {
    std::cerr << "strata: '" << path << "': optimizer state not restored (" << why
              << "); training resumes with a fresh optimizer\n";
    return;
  }
  for (auto& [v, t] : pending) v.assign(t);
}

}  // namespace

Model load_model_keras(const std::string& path, bool compile) {
  ZipReader zip(path);
  int major = 3;
  if (zip.contains("metadata.json")) {
    json meta = parse_json(zip.read("metadata.json"), "'" + path + "' member 'metadata.json'");
    std::string v = meta.value("keras_version", "3");
    if (!v.empty() && v[0] == '2') major = 2;
  }
  if (!zip.contains("config.json"))
    throw IOError("'" + path + "' is a ZIP archive but not a .keras model: no 'config.json'");
  const json config = parse_json(zip.read("config.json"), "'" + path + "' member 'config.json'");
  Model model = model_from_config(config, {major, path});
  if (model.model().inputs.empty()) {
    throw ValueError(
        "'" + path +
        "': the model's input shape is not in its config, so its weights cannot be built");
  }
  if (saved_as_subclass(model)) {
    for (const auto& [path, layer] : subclass_layers(model)) read_layer_assets(zip, path, layer);
  } else {
    read_assets(zip, "", keras_layer_order(model));
  }
  // The weights file, extracted once: the weights and then the optimizer's state read it.
  std::optional<ScratchFile> h5;
  if (zip.contains("model.weights.h5")) {
    h5.emplace(".weights.h5");
    h5->write(zip.read("model.weights.h5"));
    load_keras3_weights_file(model, h5->path(), path + "' member 'model.weights.h5");
  } else if (zip.contains("model.weights.npz")) {
    throw NotImplementedError(
        "'" + path + "' keeps its weights in 'model.weights.npz', which is not supported yet");
  } else if (!model.weights().empty()) {
    throw ValueError("'" + path + "' has no 'model.weights.h5': the model's weights are missing");
  }
  // Keras writes {} for a model never compiled.
  if (compile && config.contains("compile_config") && config["compile_config"].is_object() &&
      !config["compile_config"].empty()) {
    json cc = config["compile_config"];
    json tc = cc;
    tc["optimizer_config"] = cc.value("optimizer", json());
    std::string why;
    if (!compile_from_config(model, tc, "'" + path + "' compile_config", why)) {
      std::cerr << "strata: '" << path << "' loads uncompiled: " << why << "\n";
    } else if (h5) {
      load_optimizer_state(model, h5->path(), path);
    }
  }
  return model;
}

void write_keras3_model_weights(const Model& model, const std::string& h5_path, const std::string& target) {
  h5::File file(h5_path, h5::File::Mode::truncate);
  if (saved_as_subclass(model)) {
    for (const auto& [path, layer] : subclass_layers(model)) write_layer(file, path, layer);
    // The model's own variables, none, as Keras writes them.
    file.create_group("vars").write_string_attribute("name", model.name());
  } else {
    write_container(file, "", keras_layer_order(model));
  }
  std::string why;
  auto [opt, vars] = optimizer_state_in_keras_order(model, why);
  if (!opt.defined() && model.compiled()) {
    std::cerr << "strata: '" << target << "': the optimizer's state is not saved (" << why
              << "); the file loads with a fresh optimizer\n";
  }
  if (opt.defined() && !vars.empty()) {
    h5::Group g = file.create_group("optimizer/vars");
    g.write_string_attribute("name", opt.name());
    for (std::size_t i = 0; i < vars.size(); ++i) g.create_dataset(std::to_string(i), vars[i].value());
    if (optimizers::is_loss_scale_optimizer(opt)) {
      // Keras writes the inner optimizer's variables again, as a tracked child of its own.
      const optimizers::Optimizer inner = optimizers::LossScaleOptimizer::from(opt).inner_optimizer();
      const std::vector<Variable> inner_vars = keras3_optimizer_variables(inner);
      h5::Group ig = file.create_group("optimizer/inner_optimizer/vars");
      ig.write_string_attribute("name", inner.name());
      for (std::size_t i = 0; i < inner_vars.size(); ++i) ig.create_dataset(std::to_string(i), inner_vars[i].value());
    }
  }
  file.close();
}

void load_keras3_model_weights(const Model& model, const std::string& h5_path, const std::string& source) {
  load_keras3_weights_file(model, h5_path, source);
  if (!model.compiled()) return;
  load_optimizer_state(model, h5_path, source);
}

void save_model_keras(const Model& model, const std::string& path) {
  if (model.model().inputs.empty()) {
    throw ValueError("cannot save model '" + model.name() + "' to '" + path +
                     "': it is not built yet (no Input, no data seen)");
  }
  json config = model_to_config(model);
  json cc = compile_config_of(model);
  if (!cc.is_null()) config["compile_config"] = cc;
  std::string weights;
  {
    ScratchFile h5(".weights.h5");
    try {
      write_keras3_model_weights(model, h5.path(), path);
    } catch (const IOError& e) {
      throw IOError("cannot save model to '" + path + "': " + e.what());
    }
    weights = read_file_bytes(h5.path());
  }
  ZipWriter zip;
  zip.add(
      "metadata.json",
      json{{"keras_version", "3.4.1"}, {"date_saved", now_string()}, {"writer", "strata"}}.dump());
  zip.add("config.json", config.dump());
  zip.add("model.weights.h5", weights);
  if (saved_as_subclass(model)) {
    for (const auto& [path, layer] : subclass_layers(model)) write_layer_assets(zip, path, layer);
  } else {
    write_assets(zip, "", keras_layer_order(model));
  }
  write_file_atomically(path, zip.finish());
}

}  // namespace strata::io
