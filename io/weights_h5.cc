#include "io/weights_h5.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <utility>

#include "core/error.h"
#include "io/cudnn_weights.h"
#include "io/hdf5.h"
#include "io/safe_file.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

bool is_keras3_path(const std::string& path) { return path.ends_with(".weights.h5"); }

std::string join_first(const std::vector<std::string>& items, std::size_t max_items = 20) {
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < max_items; ++i) {
    if (i) s += ", ";
    s += items[i];
  }
  if (items.size() > max_items) s += ", ... (" + std::to_string(items.size()) + " in all)";
  return s;
}

std::string weight_label(const LayerWeights& layer, std::size_t i) {
  return "layer '" + layer.layer_name + "' weight #" + std::to_string(i) + " '" +
         layer.weights[i].path() + "'";
}

// Everything that would make a file ambiguous is refused before anything is written.
void validate_for_save(const std::string& path, const std::vector<LayerWeights>& layers) {
  const std::string prefix = "cannot save weights to '" + path + "': ";
  std::set<std::string> layer_names;
  std::map<std::string, std::string> weight_owner;  // weight name -> its label
  for (const LayerWeights& layer : layers) {
    if (layer.layer_name.empty()) throw ValueError(prefix + "a layer has an empty name");
    if (layer.layer_name.find('/') != std::string::npos) {
      throw ValueError(prefix + "layer name '" + layer.layer_name + "' contains '/'");
    }
    if (!layer_names.insert(layer.layer_name).second) {
      throw ValueError(prefix + "two layers are named '" + layer.layer_name +
                       "'; layer names must be unique");
    }
    for (std::size_t i = 0; i < layer.weights.size(); ++i) {
      if (!layer.weights[i].defined()) {
        throw ValueError(prefix + "layer '" + layer.layer_name + "' weight #" + std::to_string(i) +
                         " is an undefined variable");
      }
      const std::string& name = layer.weights[i].path();
      if (name.empty()) {
        throw ValueError(prefix + "layer '" + layer.layer_name + "' weight #" + std::to_string(i) +
                         " has an empty name");
      }
      const std::string label = weight_label(layer, i);
      auto [it, inserted] = weight_owner.emplace(name, label);
      if (!inserted) {
        throw ValueError(prefix + label + " has the same name as " + it->second +
                         "; weight names must be unique (give the layers distinct names)");
      }
    }
  }
  if (is_keras3_path(path)) {
    std::set<std::string> keys;
    for (const std::string& key : keras3_layer_keys(layers)) {
      if (!keys.insert(key).second) {
        throw ValueError(prefix + "two layers would be stored at 'layers/" + key +
                         "'; give every layer a class_name or a unique name");
      }
    }
  }
}

void write_keras2(h5::File& file, const std::vector<LayerWeights>& layers) {
  std::vector<std::string> names;
  for (const LayerWeights& layer : layers) names.push_back(layer.layer_name);
  file.write_string_list_attribute("layer_names", names);
  file.write_string_attribute("backend", "tensorflow", h5::StringEncoding::ascii);
  file.write_string_attribute("keras_version", kKeras2LayoutVersion, h5::StringEncoding::ascii);
  for (const LayerWeights& layer : layers) {
    h5::Group group = file.create_group(layer.layer_name);
    std::vector<std::string> weight_names;
    for (const Variable& v : layer.weights) weight_names.push_back(v.path() + ":0");
    group.write_string_list_attribute("weight_names", weight_names);
    for (std::size_t i = 0; i < layer.weights.size(); ++i) {
      group.create_dataset(weight_names[i], layer.weights[i].value(), h5::stored_element(layer.weights[i]));
    }
  }
}

void write_keras3(h5::File& file, const std::vector<LayerWeights>& layers) {
  const std::vector<std::string> keys = keras3_layer_keys(layers);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    h5::Group vars = file.create_group("layers/" + keys[l] + "/vars");
    vars.write_string_attribute("name", layers[l].layer_name);
    for (std::size_t i = 0; i < layers[l].weights.size(); ++i) {
      vars.create_dataset(std::to_string(i), layers[l].weights[i].value(), h5::stored_element(layers[l].weights[i]));
    }
  }
}

// One checked (variable, value) pair; assigned only after every weight was read.
using Pending = std::vector<std::pair<Variable, Tensor>>;

Tensor read_checked(const h5::Dataset& ds, const LayerWeights& layer, std::size_t i,
                    const std::string& path) {
  const Variable& v = layer.weights[i];
  const Shape found = ds.shape();
  if (found != v.shape()) {
    throw ShapeError("cannot load weights from '" + path + "': " + weight_label(layer, i) +
                     " has shape " + v.shape().to_string() + ", the file's dataset '" + ds.path() +
                     "' has shape " + found.to_string());
  }
  return ds.read(v.dtype());
}

// Loads one layer from its group (weights by order, counts and shapes checked).
void load_keras2_layer(const h5::Group& group, const LayerWeights& layer, const std::string& path, Pending& pending) {
  const std::vector<std::string> names = group.read_string_list_attribute("weight_names");
  if (names.size() != layer.weights.size()) {
    throw ValueError("cannot load weights from '" + path + "': layer '" + layer.layer_name + "' has " +
                     std::to_string(layer.weights.size()) + " weights, the file's '" + group.path() + "' holds " +
                     std::to_string(names.size()) + " (" + join_first(names) + ")");
  }
  // tf.keras's CuDNNLSTM / CuDNNGRU weights come in cuDNN's layout: convert them first.
  std::vector<Tensor> values;
  std::vector<Shape> shapes;
  bool convertible = false;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const h5::Dataset ds = group.open_dataset(names[i]);
    shapes.push_back(layer.weights[i].shape());
    convertible |= ds.shape() != shapes.back() && layer.weights[i].dtype() == DType::float32;
    values.push_back(convertible ? ds.read(layer.weights[i].dtype()) : Tensor());
  }
  if (convertible) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!values[i].defined()) values[i] = group.open_dataset(names[i]).read(layer.weights[i].dtype());
    convert_cudnn_weights(values, shapes);
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!convertible) {
      pending.emplace_back(layer.weights[i], read_checked(group.open_dataset(names[i]), layer, i, path));
      continue;
    }
    if (values[i].shape() != shapes[i]) {
      throw ShapeError("cannot load weights from '" + path + "': " + weight_label(layer, i) + " has shape " +
                       shapes[i].to_string() + ", the file's dataset '" + group.path() + "/" + names[i] +
                       "' has shape " + values[i].shape().to_string());
    }
    pending.emplace_back(layer.weights[i], values[i]);
  }
}

// Runs `load` for one layer; with skip_mismatch a layer that doesn't fit (missing, other
// count, other shapes) is left as it is, with a warning, as Keras does.
template <typename Load>
void load_or_skip(const LayerWeights& layer, const LoadWeightsOptions& options, Pending& pending, Load&& load) {
  Pending local;
  try {
    load(local);
  } catch (const ShapeError& e) {
    if (!options.skip_mismatch) throw;
    std::cerr << "WARNING: skip_mismatch: not loading weights of layer '" << layer.layer_name << "': " << e.what()
              << "\n";
    return;
  } catch (const ValueError& e) {
    if (!options.skip_mismatch) throw;
    std::cerr << "WARNING: skip_mismatch: not loading weights of layer '" << layer.layer_name << "': " << e.what()
              << "\n";
    return;
  }
  pending.insert(pending.end(), local.begin(), local.end());
}

void load_keras2(const h5::File& file, const std::vector<LayerWeights>& layers, const std::string& path,
                 const LoadWeightsOptions& options, Pending& pending) {
  const h5::Location* root = &file;
  h5::Group model_weights;
  if (!file.has_attribute("layer_names")) {
    if (file.has_group("model_weights")) {
      model_weights = file.open_group("model_weights");
      root = &model_weights;
    }
    if (!root->has_attribute("layer_names") && !root->has_attribute("layer_names0")) {
      throw IOError("cannot load weights from '" + path +
                    "': not a Keras weights file (no "
                    "attribute 'layer_names' at '/' or '/model_weights')");
    }
  }
  const std::vector<std::string> saved = root->read_string_list_attribute("layer_names");
  if (!options.by_name) {
    // Keras's default: the layers that have weights, file and model in the same order.
    std::vector<std::string> stored;
    for (const auto& name : saved) {
      if (!root->has_group(name)) {
        throw IOError("cannot load weights from '" + path + "': layer_names lists '" + name + "' but '" +
                      root->child_path(name) + "' is missing");
      }
      if (!root->open_group(name).read_string_list_attribute("weight_names").empty()) stored.push_back(name);
    }
    std::vector<const LayerWeights*> with_weights;
    std::vector<std::string> model_names;
    for (const LayerWeights& layer : layers) {
      if (layer.weights.empty()) continue;
      with_weights.push_back(&layer);
      model_names.push_back(layer.layer_name);
    }
    if (stored.size() != with_weights.size()) {
      throw ValueError("cannot load weights from '" + path + "': the file holds " + std::to_string(stored.size()) +
                       " layers with weights (" + join_first(stored) + "), the model has " +
                       std::to_string(with_weights.size()) + " (" + join_first(model_names) +
                       "); to match layers by name, pass by_name = true");
    }
    for (std::size_t l = 0; l < stored.size(); ++l) {
      load_keras2_layer(root->open_group(stored[l]), *with_weights[l], path, pending);
    }
    return;
  }
  for (const LayerWeights& layer : layers) {
    if (layer.weights.empty()) continue;
    load_or_skip(layer, options, pending, [&](Pending& out) {
      const bool listed = std::find(saved.begin(), saved.end(), layer.layer_name) != saved.end();
      if (!listed || !root->has_group(layer.layer_name)) {
        throw ValueError("cannot load weights from '" + path + "': layer '" + layer.layer_name + "' has " +
                         std::to_string(layer.weights.size()) + " weights but the file has no layer group '" +
                         root->child_path(layer.layer_name) + "' (its layers: " + join_first(saved) + ")");
      }
      load_keras2_layer(root->open_group(layer.layer_name), layer, path, out);
    });
  }
}

// Keras 3's H5IOStore.get: `<path>/vars`, with tf.keras 2.13's `_layer_checkpoint_dependencies`
// fallback; we add a lookup by the `name` attr for files keyed differently than we key.
bool find_keras3_vars(const h5::File& file, const std::string& key, const std::string& layer_name,
                      std::string& vars_path) {
  for (const std::string container : {"layers", "_layer_checkpoint_dependencies"}) {
    const std::string candidate = container + "/" + key + "/vars";
    if (file.has_group(candidate)) {
      vars_path = candidate;
      return true;
    }
  }
  for (const std::string container : {"layers", "_layer_checkpoint_dependencies"}) {
    if (!file.has_group(container)) continue;
    const h5::Group group = file.open_group(container);
    for (const std::string& child : group.children()) {
      const std::string candidate = container + "/" + child + "/vars";
      if (!file.has_group(candidate)) continue;
      const h5::Group vars = file.open_group(candidate);
      if (vars.has_attribute("name") && vars.read_string_attribute("name") == layer_name) {
        vars_path = candidate;
        return true;
      }
    }
  }
  return false;
}

void load_keras3(const h5::File& file, const std::vector<LayerWeights>& layers, const std::string& path,
                 const LoadWeightsOptions& options, Pending& all_pending) {
  const std::vector<std::string> keys = keras3_layer_keys(layers);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const LayerWeights& layer = layers[l];
    load_or_skip(layer, options, all_pending, [&](Pending& pending) {
    std::string vars_path;
    if (!find_keras3_vars(file, keys[l], layer.layer_name, vars_path)) {
      if (layer.weights.empty()) return;
      throw ValueError("cannot load weights from '" + path + "': layer '" + layer.layer_name +
                       "' has " + std::to_string(layer.weights.size()) +
                       " weights but the file has no "
                       "group '/layers/" +
                       keys[l] + "/vars' (nor a vars group named '" + layer.layer_name + "')");
    }
    const h5::Group vars = file.open_group(vars_path);
    const std::vector<std::string> stored = vars.children();
    if (stored.size() != layer.weights.size()) {
      throw ValueError("cannot load weights from '" + path + "': layer '" + layer.layer_name +
                       "' has " + std::to_string(layer.weights.size()) + " weights, the file's '" +
                       vars.path() + "' holds " + std::to_string(stored.size()));
    }
    for (std::size_t i = 0; i < layer.weights.size(); ++i) {
      pending.emplace_back(layer.weights[i],
                           read_checked(vars.open_dataset(std::to_string(i)), layer, i, path));
    }
    });
  }
}

}  // namespace

std::string to_snake_case(const std::string& class_name) {
  std::string name;
  for (char c : class_name) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') name += c;
  }
  static const std::regex word_start("(.)([A-Z][a-z]+)");
  static const std::regex lower_upper("([a-z])([A-Z])");
  name = std::regex_replace(name, word_start, "$1_$2");
  name = std::regex_replace(name, lower_upper, "$1_$2");
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

namespace {

// Keras 3 keys a layer's weights by its Python class, which for one class differs from the
// name its config is saved under.
const std::string& python_class_of(const std::string& class_name) {
  static const std::string grouped = "GroupedQueryAttention";
  return class_name == "GroupQueryAttention" ? grouped : class_name;
}

}  // namespace

std::vector<std::string> keras3_layer_keys(const std::vector<LayerWeights>& layers) {
  std::vector<std::string> keys;
  std::map<std::string, int> used;
  for (const LayerWeights& layer : layers) {
    if (layer.class_name.empty()) {
      keys.push_back(layer.layer_name);
      continue;
    }
    std::string key = to_snake_case(python_class_of(layer.class_name));
    auto it = used.find(key);
    if (it == used.end()) {
      used.emplace(key, 0);
    } else {
      key += "_" + std::to_string(++it->second);
    }
    keys.push_back(key);
  }
  return keys;
}

void save_weights_h5(const std::string& path, const std::vector<LayerWeights>& layers) {
  validate_for_save(path, layers);
  SafeFile temp(path);
  try {
    h5::File file(temp.temp_path(), h5::File::Mode::create);
    if (is_keras3_path(path)) {
      write_keras3(file, layers);
    } else {
      write_keras2(file, layers);
    }
    file.close();
  } catch (const IOError& e) {
    throw IOError("cannot save weights to '" + path + "': " + e.what());
  }
  temp.commit();
}

void load_weights_h5(const std::string& path, const std::vector<LayerWeights>& layers,
                     const LoadWeightsOptions& options) {
  const bool keras3 = is_keras3_path(path);
  if (options.skip_mismatch && !options.by_name && !keras3) {
    throw ValueError("load_weights('" + path + "'): skip_mismatch needs by_name = true for .h5 files (as in Keras)");
  }
  const h5::File file(path, h5::File::Mode::read);
  Pending pending;
  try {
    if (keras3) {
      load_keras3(file, layers, path, options, pending);
    } else {
      load_keras2(file, layers, path, options, pending);
    }
  } catch (const IOError& e) {
    const std::string what = e.what();
    if (what.starts_with("cannot load weights")) throw;
    throw IOError("cannot load weights from '" + path + "': " + what);
  }
  for (auto& [variable, value] : pending) variable.assign(value);
}

}  // namespace strata::io
