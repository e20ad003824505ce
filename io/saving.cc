#include "io/saving.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>

#include "core/error.h"
#include "io/hdf5.h"
#include "io/model_config.h"
#include "io/optimizer_config.h"
#include "io/zip.h"
#include "layers/weight_budget.h"
#include "optimizers/optimizers.h"

namespace strata::io {

namespace {

std::string head_of(const std::string& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<std::size_t>(in.gcount()));
  return s;
}

// A loss entry: "mse", {"class_name": "MeanSquaredError", ...}, Keras 3 {"module", "class_name",
// "config"}.
std::string loss_identifier(const json& l) {
  if (l.is_string()) return l.get<std::string>();
  if (l.is_object() && l.contains("class_name")) {
    std::string cls = l["class_name"].get<std::string>();
    if (cls == "function" && l.contains("config") && l["config"].is_string())
      return l["config"].get<std::string>();
    if (auto p = cls.find('>'); p != std::string::npos) cls = cls.substr(p + 1);
    return cls;
  }
  throw ValueError("cannot read loss " + l.dump().substr(0, 80));
}

std::string metric_identifier(const json& m) {
  if (m.is_string()) return m.get<std::string>();
  if (m.is_object() && m.contains("config") && m["config"].is_object() &&
      m["config"].contains("name")) {
    return m["config"]["name"].get<std::string>();
  }
  if (m.is_object() && m.contains("class_name")) return m["class_name"].get<std::string>();
  throw ValueError("cannot read metric " + m.dump().substr(0, 80));
}

}  // namespace

std::string detect_model_format(const std::string& path) {
  if (!std::filesystem::exists(path)) throw IOError("cannot open '" + path + "': no such file");
  if (std::filesystem::is_directory(path)) {
    throw ValueError(
        "'" + path +
        "' is a directory (a TensorFlow SavedModel?); Strata loads .h5 and .keras files");
  }
  // ZIP first: a .keras archive stores model.weights.h5 uncompressed, and when that lands
  // at offset 512, 1024, ... HDF5 finds its signature there (HDF5 allows a user block).
  if (is_zip_file(path)) return "zip";
  if (h5::is_hdf5_file(path)) return "hdf5";
  const std::string head = head_of(path, 200);
  if (head.starts_with("version https://git-lfs")) {
    throw ValueError(
        "'" + path +
        "' is a Git LFS pointer, not the model itself: run `git lfs pull` to fetch it");
  }
  if (head.empty()) throw IOError("'" + path + "' is empty");
  if (head.starts_with("\x89HDF")) throw IOError("'" + path + "' has a truncated HDF5 signature");
  throw IOError(
      "'" + path +
      "' is neither an HDF5 file nor a ZIP archive (.keras): cannot load a model from it");
}

bool compile_from_config(Model& model, const json& tc, const std::string& where, std::string& why) {
  if (!tc.is_object()) {
    why = "no training configuration";
    return false;
  }
  const json oc = tc.value("optimizer_config", tc.value("optimizer", json()));
  if (oc.is_null()) {
    why = "no optimizer in the training configuration";
    return false;
  }
  // Outside the try below: an optimizer config that cannot be honoured is an error, not a
  // reason to load uncompiled.
  optimizers::Optimizer opt = optimizer_from_config(oc, where);
  try {
    CompileOptions options;
    options.optimizer = opt;
    const json loss = tc.value("loss", json());
    if (loss.is_null()) {
      why = "no loss";
      return false;
    }
    if (loss.is_array()) {
      std::vector<losses::Loss> list;
      for (const auto& l : loss) list.push_back(losses::get(loss_identifier(l)));
      // One loss for every output is what LossSpec can hold from a runtime list.
      for (const auto& l : list) {
        if (l.name() != list.at(0).name()) {
          why = "different losses per output are not supported when loading";
          return false;
        }
      }
      if (list.empty()) {
        why = "an empty loss list";
        return false;
      }
      options.loss = list[0];
    } else if (loss.is_object() && !loss.contains("class_name")) {
      why = "losses given per output name are not supported when loading";
      return false;
    } else {
      options.loss = losses::get(loss_identifier(loss));
    }
    for (const auto& m : tc.value("metrics", json::array())) {
      if (m.is_null()) continue;
      if (m.is_array()) {
        for (const auto& x : m) options.metrics.push_back(metric_identifier(x));
      } else {
        options.metrics.push_back(metric_identifier(m));
      }
    }
    for (auto& m : options.metrics) {
      if (m == "acc") m = "accuracy";
    }
    if (tc.contains("loss_weights") && tc["loss_weights"].is_array()) {
      for (const auto& w : tc["loss_weights"]) options.loss_weights.push_back(w.get<float>());
    }
    model.compile(options);
    return true;
  } catch (const Error& e) {
    why = e.what();
    return false;
  } catch (const json::exception& e) {
    why = e.what();
    return false;
  }
}

json training_config_of(const Model& model) {
  const ModelImpl& m = model.model();
  if (!m.compile_options) return nullptr;
  const CompileOptions& o = *m.compile_options;
  json tc;
  const auto& ls = o.loss.losses();
  if (ls.size() == 1) {
    tc["loss"] = ls[0].name();
  } else {
    json list = json::array();
    for (const auto& l : ls) list.push_back(l.name());
    tc["loss"] = list;
  }
  tc["metrics"] = o.metrics;
  tc["weighted_metrics"] = nullptr;
  tc["loss_weights"] = o.loss_weights.empty() ? json(nullptr) : json(o.loss_weights);
  // The compiled optimizer: its name, its current rate (resolving an identifier again
  // would make a fresh one).
  tc["optimizer_config"] = optimizer_config(optimizer_given_to_compile(model.optimizer()));
  return tc;
}

namespace {

// Keras 2's `_legacy_weights` of a layer: trainable_weights + non_trainable_weights, where a
// nested model gathers its layers' in Keras's layer order (frozen layers' weights all go
// to the non-trainable part).
void gather_legacy(const Layer& layer, bool trainable, std::vector<Variable>& train,
                   std::vector<Variable>& frozen) {
  trainable = trainable && layer.trainable();
  if (is_model_class(layer.class_name())) {
    for (const auto& l :
         keras_layer_order(Model(std::static_pointer_cast<ModelImpl>(layer.shared_impl())))) {
      gather_legacy(l, trainable, train, frozen);
    }
    return;
  }
  for (const auto& v : layer.weights()) (trainable && v.trainable() ? train : frozen).push_back(v);
}

}  // namespace

std::vector<LayerWeights> model_layer_weights(const Model& model) {
  std::vector<LayerWeights> out;
  // Keras's model.layers: a functional model's InputLayers included (no weights).
  for (const auto& l : keras_layer_order(model)) {
    std::vector<Variable> train, frozen;
    gather_legacy(l, true, train, frozen);
    train.insert(train.end(), frozen.begin(), frozen.end());
    out.push_back({l.name(), train, l.class_name()});
  }
  return out;
}

ModelFileInfo inspect_model_file(const std::string& path) {
  ModelFileInfo info;
  const std::string kind = detect_model_format(path);
  if (kind == "zip") {
    ZipReader zip(path);
    info.format = "keras3-zip";
    if (zip.contains("metadata.json")) {
      json meta = parse_json(zip.read("metadata.json"), "'" + path + "' member 'metadata.json'");
      info.keras_version = meta.value("keras_version", "");
      info.date_saved = meta.value("date_saved", "");
    }
    info.config = parse_json(zip.read("config.json"), "'" + path + "' member 'config.json'");
    info.training_config = info.config.value("compile_config", json());
    return info;
  }
  h5::File file(path, h5::File::Mode::read);
  if (file.has_attribute("keras_version"))
    info.keras_version = file.read_string_attribute("keras_version");
  if (file.has_attribute("backend")) info.backend = file.read_string_attribute("backend");
  info.format = info.keras_version.starts_with("3") ? "keras3-legacy-h5" : "keras2-h5";
  if (file.has_attribute("model_config")) {
    info.config = parse_json(file.read_string_attribute("model_config"),
                             "'" + path + "' attribute '/model_config'");
  }
  if (file.has_attribute("training_config")) {
    info.training_config = parse_json(file.read_string_attribute("training_config"),
                                      "'" + path + "' attribute '/training_config'");
  }
  return info;
}

}  // namespace strata::io

namespace strata::models {

Model load_model(const std::string& path, const LoadOptions& options) {
  const std::string kind = io::detect_model_format(path);
  // The file holds the weights its config declares: a config declaring more is damaged.
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size(path, ec);
  layers::WeightBudget budget(
      ec ? std::numeric_limits<std::int64_t>::max()
         : layers::WeightBudget::for_file(static_cast<std::int64_t>(file_bytes)),
      path);
  try {
    return kind == "zip" ? io::load_model_keras(path, options.compile)
                         : io::load_model_h5(path, options.compile);
  } catch (const Error&) {
    throw;
  } catch (const io::json::exception& e) {
    throw ValueError("cannot load model from '" + path +
                     "': its config does not have the expected structure: " + e.what());
  } catch (const std::exception& e) {  // e.g. a damaged file's absurd sizes
    throw IOError("cannot load model from '" + path + "': " + e.what());
  }
}

void save_model(const Model& model, const std::string& path) {
  if (path.ends_with(".keras")) {
    io::save_model_keras(model, path);
  } else {
    io::save_model_h5(model, path);
  }
}

}  // namespace strata::models
