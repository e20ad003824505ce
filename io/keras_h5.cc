// Full-model HDF5 files (keras-spec §3a, §3c): load from Keras 2 / tf.keras 2 / Keras 3
// legacy h5, save in the tf.keras 2 layout.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

#include "core/error.h"
#include "io/hdf5.h"
#include "io/safe_file.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "layers/keras_class.h"
#include "optimizers/optimizer.h"

namespace strata::io {

namespace {

int major_of(const std::string& version) {
  if (version.empty() || !std::isdigit(static_cast<unsigned char>(version[0]))) return 0;
  return std::stoi(version.substr(0, version.find('.')));
}

// Keras 2 files written by the Theano backend hold convolution kernels flipped along their
// spatial axes (Theano convolves where TensorFlow correlates); Keras 2's loader flips them
// back for Conv1D/2D/3D and Conv2DTranspose (convert_kernel, keras-spec §2). So do we;
// like Keras 2, not for Conv3DTranspose (nor Conv1DTranspose, which Keras 2 never had).
void flip_spatial_axes(Variable& kernel) {
  const auto dims = kernel.shape().dims();
  if (dims.size() < 3 || kernel.dtype() != DType::float32) return;
  const std::size_t spatial = dims.size() - 2;
  const std::int64_t inner = dims[dims.size() - 2] * dims.back();
  Tensor flipped(kernel.shape());
  auto src = kernel.value().values<float>();
  auto dst = flipped.values<float>();
  std::vector<std::int64_t> idx(spatial, 0);
  const std::int64_t cells =
      static_cast<std::int64_t>(src.size()) / std::max<std::int64_t>(inner, 1);
  for (std::int64_t cell = 0; cell < cells; ++cell) {
    std::int64_t from = 0, to = 0;
    for (std::size_t a = 0; a < spatial; ++a) {
      from = from * dims[a] + idx[a];
      to = to * dims[a] + (dims[a] - 1 - idx[a]);
    }
    std::copy_n(src.begin() + from * inner, inner, dst.begin() + to * inner);
    for (std::size_t a = spatial; a-- > 0;) {  // next spatial index, last axis fastest
      if (++idx[a] < dims[a]) break;
      idx[a] = 0;
    }
  }
  kernel.assign(flipped);
}

void flip_theano_kernels(const Layer& layer) {
  for (const Layer& sub : layer.impl().sublayers()) flip_theano_kernels(sub);
  static const std::set<std::string> kConv{"Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose"};
  if (kConv.count(layer.class_name()) && !layer.impl().weights.empty())
    flip_spatial_axes(layer.impl().weights[0]);
}

std::string backend_of(const h5::File& file) {
  if (file.has_attribute("backend")) return file.read_string_attribute("backend");
  if (file.has_group("model_weights")) {
    const h5::Group mw = file.open_group("model_weights");
    if (mw.has_attribute("backend")) return mw.read_string_attribute("backend");
  }
  return "";
}

void write_layer_groups(h5::Group& root, const std::vector<LayerWeights>& layers) {
  std::vector<std::string> names;
  for (const auto& l : layers) names.push_back(l.layer_name);
  root.write_string_list_attribute("layer_names", names);
  root.write_string_attribute("backend", "tensorflow", h5::StringEncoding::ascii);
  root.write_string_attribute("keras_version", kKeras2LayoutVersion, h5::StringEncoding::ascii);
  std::set<std::string> seen;
  for (const auto& l : layers) {
    h5::Group g = root.create_group(l.layer_name);
    std::vector<std::string> weight_names;
    for (const auto& v : l.weights) {
      std::string n = v.path() + ":0";
      if (!seen.insert(n).second) {
        throw ValueError("two weights are named '" + v.path() +
                         "'; weight names must be unique to save");
      }
      weight_names.push_back(n);
    }
    g.write_string_list_attribute("weight_names", weight_names);
    for (std::size_t i = 0; i < l.weights.size(); ++i)
      g.create_dataset(weight_names[i], l.weights[i].value(), h5::stored_element(l.weights[i]));
  }
}


// The optimizer's slots in the tf.keras 2 `optimizer_weights` order: kind by kind (every
// m, then every v), each kind over the variables in creation order. False (with `why`)
// when the optimizer has state besides iterations, learning rate and slots.
bool slots_in_keras2_order(const optimizers::Optimizer& opt,
                           std::vector<optimizers::SlotVariable>& out, std::string& why) {
  const auto slots = opt.impl().slot_variables();
  if (opt.variables().size() != 2 + slots.size()) {
    why = "optimizer '" + opt.name() + "' has state besides its iteration count and slots";
    return false;
  }
  std::vector<std::string> kinds;
  for (const auto& s : slots) {
    if (std::find(kinds.begin(), kinds.end(), s.slot_name) == kinds.end())
      kinds.push_back(s.slot_name);
  }
  for (const auto& kind : kinds) {
    for (const auto& s : slots) {
      if (s.slot_name == kind) out.push_back(s);
    }
  }
  return true;
}

// tf.keras 2's slot names for Keras 3's ("momentum" of Adam is "m").
std::string keras2_slot_name(const std::string& cls, const std::string& slot) {
  if (cls == "Adam" || cls == "AdamW" || cls == "Adamax" || cls == "Nadam") {
    if (slot == "momentum") return "m";
    if (slot == "velocity") return "v";
    if (slot == "velocity_hat") return "vhat";
    if (slot == "norm") return "v";
  }
  if (cls == "RMSprop" && slot == "velocity") return "rms";
  return slot;
}

// Root group `optimizer_weights` in the tf.keras 2 layout: "Adam/iter:0", then
// "Adam/dense/kernel/m:0" for every m, then every v. Writes nothing when the optimizer's
// state does not fit that layout.
void write_optimizer_weights(h5::File& file, const Model& model, const std::string& cls) {
  const optimizers::Optimizer opt = model.optimizer();
  std::vector<optimizers::SlotVariable> slots;
  std::string why;
  if (!slots_in_keras2_order(opt, slots, why)) return;
  std::vector<std::string> names{cls + "/iter:0"};
  std::vector<Tensor> values{opt.impl().iterations().value()};
  for (const auto& s : slots) {
    names.push_back(cls + "/" + s.variable.path() + "/" + keras2_slot_name(cls, s.slot_name) +
                    ":0");
    values.push_back(s.slot.value());
  }
  if (std::set<std::string>(names.begin(), names.end()).size() != names.size()) return;
  h5::Group g = file.create_group("optimizer_weights");
  g.write_string_list_attribute("weight_names", names);
  for (std::size_t i = 0; i < names.size(); ++i) g.create_dataset(names[i], values[i]);
}

// Whether two stored slot names are two kinds of one variable: Keras 2.11+ writes slots
// variable by variable ("Adam/m/dense/kernel:0", "Adam/v/dense/kernel:0", ...), in the
// order Strata creates them; older Keras kind by kind.
bool slots_interleaved(const std::string& a, const std::string& b) {
  static const std::set<std::string> kinds{"m",  "v", "vhat", "momentum", "velocity", "velocity_hat",
                                           "rms", "mg", "accumulator", "accumulated_grad",
                                           "accumulated_delta_var", "norm"};
  auto split = [](const std::string& s) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i) {
      if (i == s.size() || s[i] == '/') {
        parts.push_back(s.substr(start, i - start));
        start = i + 1;
      }
    }
    return parts;
  };
  const auto pa = split(a), pb = split(b);
  if (pa.size() != pb.size()) return false;
  std::size_t diff = pa.size();
  for (std::size_t i = 0; i < pa.size(); ++i) {
    if (pa[i] == pb[i]) continue;
    if (diff != pa.size()) return false;
    diff = i;
  }
  return diff + 1 < pa.size() && kinds.count(pa[diff]) && kinds.count(pb[diff]);
}

// Restores the optimizer's state from the root group `optimizer_weights` of a Keras 2,
// tf.keras 2 or Strata file. The iteration count is the scalar named "...iter...";
// other scalars (lr, beta_1, decay stored as variables by standalone Keras 2) are
// hyperparameters, set from the config instead; the other tensors are the slots, kind
// by kind (or variable by variable, Keras 2.11+), matched to ours by order and shape. Trailing shape-(1,) tensors are Keras 2's
// unused `vhats` placeholders. Checks everything before assigning anything.
bool restore_optimizer_weights(const h5::File& file, Model& model, std::string& why) {
  try {
    const h5::Group g = file.open_group("optimizer_weights");
    const std::vector<std::string> names = g.read_string_list_attribute("weight_names");
    optimizers::Optimizer opt = model.optimizer();
    bool have_iterations = false;
    std::int64_t iterations = 0;
    std::vector<h5::Dataset> stored;
    std::vector<std::string> stored_names;
    for (const auto& name : names) {
      h5::Dataset d = g.open_dataset(name);
      if (d.shape().rank() > 0) {
        stored.push_back(std::move(d));
        stored_names.push_back(name);
        continue;
      }
      const std::string base = name.substr(name.rfind('/') + 1);
      if (have_iterations || base.rfind("iter", 0) != 0) continue;  // a hyperparameter
      Tensor t;
      try {
        t = d.read(DType::int64);
        iterations = t.data<std::int64_t>()[0];
      } catch (const ValueError&) {
        t = d.read(DType::float32);
        iterations = static_cast<std::int64_t>(std::llround(t.data<float>()[0]));
      }
      have_iterations = true;
    }
    if (!have_iterations) {
      why = "no iteration count among its " + std::to_string(names.size()) + " weights";
      return false;
    }
    if (stored.empty()) {  // an optimizer Keras never built: its iteration count alone
      opt.impl().iterations().assign_scalar(static_cast<double>(iterations));
      opt.impl().update_learning_rate();
      return true;
    }
    std::vector<optimizers::SlotVariable> ours;
    if (!slots_in_keras2_order(opt, ours, why)) return false;
    if (stored.size() >= 2 && slots_interleaved(stored_names[0], stored_names[1]))
      ours = opt.impl().slot_variables();
    if (stored.size() < ours.size()) {
      why = "it holds " + std::to_string(stored.size()) + " slot tensors, the optimizer has " +
            std::to_string(ours.size());
      return false;
    }
    for (std::size_t i = 0; i < stored.size(); ++i) {
      const Shape shape = stored[i].shape();
      if (i >= ours.size()) {
        if (shape != Shape{1}) {
          why = "it holds " + std::to_string(stored.size()) +
                " slot tensors, the optimizer has " + std::to_string(ours.size());
          return false;
        }
        continue;
      }
      if (shape != ours[i].slot.shape()) {
        why = "'" + stored[i].path() + "' has shape " + shape.to_string() + ", the slot '" +
              ours[i].slot.path() + "' has shape " + ours[i].slot.shape().to_string();
        return false;
      }
    }
    std::vector<Tensor> values;
    for (std::size_t i = 0; i < ours.size(); ++i) values.push_back(stored[i].read(DType::float32));
    for (std::size_t i = 0; i < ours.size(); ++i) ours[i].slot.assign(values[i]);
    opt.impl().iterations().assign_scalar(static_cast<double>(iterations));
    opt.impl().update_learning_rate();
    return true;
  } catch (const Error& e) {
    why = e.what();
    return false;
  }
}

}  // namespace

Model load_model_h5(const std::string& path, bool compile) {
  h5::File file(path, h5::File::Mode::read);
  if (!file.has_attribute("model_config")) {
    if (file.has_attribute("layer_names") || file.has_group("layers")) {
      throw ValueError(
          "'" + path +
          "' holds weights only (no '/model_config' attribute): build the model in code and "
          "call load_weights");
    }
    if (!file.has_attribute("keras_version") && file.has_group("model_weights") == false) {
      throw ValueError("'" + path +
                       "' is an HDF5 file but not a Keras model: no attribute '/model_config'");
    }
    throw ValueError("'" + path +
                     "' has no attribute '/model_config': the model's architecture is missing");
  }
  std::string version =
      file.has_attribute("keras_version") ? file.read_string_attribute("keras_version") : "";
  if (version.empty() && file.has_group("model_weights")) {
    const h5::Group mw = file.open_group("model_weights");
    if (mw.has_attribute("keras_version")) version = mw.read_string_attribute("keras_version");
  }
  if (version.empty() || major_of(version) < 2) {
    throw ValueError(
        "'" + path + "' was written by Keras 1 (no '/keras_version' attribute" +
        (version.empty() ? std::string() : ", found '" + version + "'") +
        "); Strata reads files from Keras 2 and later: re-save the model with Keras 2 or 3");
  }
  ConfigContext ctx{major_of(version), path};
  const json config = parse_json(file.read_string_attribute("model_config"),
                                 "'" + path + "' attribute '/model_config'");
  Model model = model_from_config(config, ctx);
  if (!file.has_group("model_weights")) {
    throw ValueError("'" + path +
                     "' has no group '/model_weights': the model's weights are missing");
  }
  if (model.model().inputs.empty()) {
    throw ValueError(
        "'" + path +
        "': the model's input shape is not in its config, so its weights cannot be built");
  }
  try {
    load_weights_h5(path, model_layer_weights(model));
  } catch (const ShapeError& e) {
    throw ValueError(e.what());  // the file disagrees with its own config
  }
  if (backend_of(file) == "theano") {
    for (const Layer& layer : model.layers()) flip_theano_kernels(layer);
  }
  if (compile && file.has_attribute("training_config")) {
    const json tc = parse_json(file.read_string_attribute("training_config"),
                               "'" + path + "' attribute '/training_config'");
    std::string why;
    if (!compile_from_config(model, tc, "'" + path + "' training_config", why)) {
      std::cerr << "strata: '" << path << "' loads uncompiled: " << why << "\n";
    } else if (file.has_group("optimizer_weights")) {
      if (!restore_optimizer_weights(file, model, why)) {
        std::cerr << "strata: '" << path
                  << "': Error in loading the saved optimizer state; the optimizer starts "
                     "fresh: "
                  << why << "\n";
      }
    }
  }
  return model;
}

void save_model_h5(const Model& model, const std::string& path) {
  if (model.model().inputs.empty()) {
    throw ValueError("cannot save model '" + model.name() + "' to '" + path +
                     "': it is not built yet (no Input, no data seen)");
  }
  // An adapted lookup layer's vocabulary lives in a .keras file's assets; an .h5 file has
  // no place for it (Keras's own .h5 files lose it).
  for (const Layer& layer : keras_layer_order(model)) {
    const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(layer.class_name());
    if (k && k->save_assets && !k->save_assets(layer.impl()).empty()) {
      throw NotImplementedError("cannot save model '" + model.name() + "' to '" + path + "': " +
                                layer.class_name() + " '" + layer.name() +
                                "' has an adapted vocabulary, which .h5 files cannot hold (Keras's lose it); "
                                "save as .keras, or give the vocabulary when creating the layer");
    }
  }
  const json config = model_to_config(model, ConfigDialect::keras2);
  const json tc = training_config_of(model);
  SafeFile out(path);
  try {
    h5::File file(out.temp_path(), h5::File::Mode::truncate);
    file.write_string_attribute("keras_version", kKeras2LayoutVersion);
    file.write_string_attribute("backend", "tensorflow");
    // Non-ASCII text (vocabularies) as \u escapes, so the attribute stays ASCII.
    file.write_string_attribute("model_config", config.dump(-1, ' ', true), h5::StringEncoding::ascii);
    if (!tc.is_null())
      file.write_string_attribute("training_config", tc.dump(), h5::StringEncoding::ascii);
    h5::Group mw = file.create_group("model_weights");
    write_layer_groups(mw, model_layer_weights(model));
    if (!tc.is_null())
      write_optimizer_weights(file, model, tc.at("optimizer_config").at("class_name").get<std::string>());
    file.close();
    out.commit();
  } catch (const Error& e) {
    const std::string what = e.what();
    if (dynamic_cast<const ValueError*>(&e))
      throw ValueError("cannot save model to '" + path + "': " + what);
    throw IOError("cannot save model to '" + path + "': " + what);
  }
}

}  // namespace strata::io
