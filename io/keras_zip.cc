// Keras 3 `.keras` archives (keras-spec §3d): config.json, metadata.json and
// model.weights.h5, whose groups are keyed by attribute path: layers/<key>/vars/<i>,
// <key> = snake_case(class) uniquified by position; nested models recurse
// (layers/functional/layers/dense/vars/0); layer families may keep vars elsewhere
// (io/layer_config.h VarGroup: RNN cells at layers/lstm/cell/vars).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "core/error.h"
#include "io/hdf5.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "io/zip.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

// A temporary file, removed when this goes out of scope.
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

void write_container(h5::File& file, const std::string& prefix, const std::vector<Layer>& layers) {
  const auto keys = keys_of(layers);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string lp = prefix + "layers/" + keys[i];
    if (is_model(layers[i])) {
      write_container(file, lp + "/", container_layers(layers[i]));
      continue;
    }
    for (const VarGroup& g : keras3_var_groups(layers[i])) {
      if (g.variables.empty()) continue;
      h5::Group vars = file.create_group(lp + "/" + g.path);
      vars.write_string_attribute("name", layers[i].name());
      for (std::size_t v = 0; v < g.variables.size(); ++v)
        vars.create_dataset(std::to_string(v), g.variables[v].value());
    }
  }
}

using Pending = std::vector<std::pair<Variable, Tensor>>;

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
    for (const VarGroup& g : keras3_var_groups(layers[i])) {
      const std::string vp = lp + "/" + g.path;
      const bool present = file.has_group(vp);
      std::size_t stored = present ? file.open_group(vp).children().size() : 0;
      if (stored != g.variables.size()) {
        throw ValueError("cannot load weights from '" + source + "': layer '" + layers[i].name() +
                         "' (" + layers[i].class_name() + ") has " +
                         std::to_string(g.variables.size()) + " variables, the file's '/" + vp +
                         "' holds " + std::to_string(stored));
      }
      if (!present) continue;
      const h5::Group vars = file.open_group(vp);
      for (std::size_t v = 0; v < g.variables.size(); ++v) {
        const h5::Dataset ds = vars.open_dataset(std::to_string(v));
        if (ds.shape() != g.variables[v].shape()) {
          throw ValueError("cannot load weights from '" + source + "': layer '" + layers[i].name() +
                           "' weight '" + g.variables[v].path() + "' has shape " +
                           g.variables[v].shape().to_string() + ", the file's dataset '" +
                           ds.path() + "' has shape " + ds.shape().to_string());
        }
        pending.emplace_back(g.variables[v], ds.read(g.variables[v].dtype()));
      }
    }
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
  json opt = tc["optimizer_config"];
  return json{{"optimizer", json{{"module", "keras.optimizers"},
                                 {"class_name", opt["class_name"]},
                                 {"config", opt["config"]},
                                 {"registered_name", nullptr}}},
              {"loss", tc["loss"]},
              {"loss_weights", tc["loss_weights"]},
              {"metrics", tc["metrics"]},
              {"weighted_metrics", nullptr},
              {"run_eagerly", false},
              {"steps_per_execution", 1},
              {"jit_compile", false}};
}

}  // namespace

// Reads the weights of `model` from a Keras 3 weights file (standalone or extracted).
void load_keras3_weights_file(const Model& model, const std::string& h5_path,
                              const std::string& source) {
  Pending pending;
  try {
    const h5::File file(h5_path, h5::File::Mode::read);
    read_container(file, "", keras_layer_order(model), source, pending);
  } catch (const IOError& e) {
    throw IOError("cannot load weights from '" + source + "': " + e.what());
  }
  for (auto& [v, t] : pending) v.assign(t);
}

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
  if (zip.contains("model.weights.h5")) {
    ScratchFile h5(".weights.h5");
    write_file_atomically(h5.path(), zip.read("model.weights.h5"));
    load_keras3_weights_file(model, h5.path(), path + "' member 'model.weights.h5");
  } else if (zip.contains("model.weights.npz")) {
    throw NotImplementedError(
        "'" + path + "' keeps its weights in 'model.weights.npz', which is not supported yet");
  } else if (!model.weights().empty()) {
    throw ValueError("'" + path + "' has no 'model.weights.h5': the model's weights are missing");
  }
  if (compile && config.contains("compile_config") && config["compile_config"].is_object()) {
    json cc = config["compile_config"];
    json tc = cc;
    tc["optimizer_config"] = cc.value("optimizer", json());
    std::string why;
    if (!compile_from_config(model, tc, why))
      std::cerr << "strata: '" << path << "' loads uncompiled: " << why << "\n";
  }
  return model;
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
      h5::File file(h5.path(), h5::File::Mode::truncate);
      write_container(file, "", keras_layer_order(model));
      file.close();
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
  write_file_atomically(path, zip.finish());
}

}  // namespace strata::io
