// Model::quantize: Keras 3's Model.quantize(mode) (keras/src/models/model.py), int8 only.
// Keras walks model._flatten_layers() (every layer of the model and of its nested models),
// calls quantize(mode) on each layer that has no sublayers, warns for those that have none,
// then drops its compiled functions, keeping the optimizer.
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "layers/core/einsum_dense.h"
#include "layers/core/float8_quantization.h"
#include "models/compiled_model.h"
#include "models/custom_model.h"
#include "models/model.h"

namespace strata {

namespace {

// Keras's QUANTIZATION_MODES, in its order (its messages print the tuple).
const std::vector<std::string> kKerasQuantizationModes{"int8", "float8", "int4", "gptq", "awq"};

// The classes whose quantize Keras implements (Layer.quantize raises NotImplementedError).
const std::set<std::string> kKerasQuantizableClasses{"Dense", "EinsumDense", "Embedding", "ReversibleEmbedding"};

// The layers Keras's quantize visits that have no sublayers: the model's, then, in place of a
// nested model, the nested model's, each once (a shared layer is quantized once).
void quantize_leaves(const ModelImpl& model, std::vector<Layer>& leaves, std::set<const LayerImpl*>& seen) {
  for (const Layer& layer : model.layers) {
    if (!seen.insert(&layer.impl()).second) continue;
    if (const auto* nested = dynamic_cast<const ModelImpl*>(&layer.impl())) {
      quantize_leaves(*nested, leaves, seen);
    } else {
      leaves.push_back(layer);
    }
  }
}

// Whether a layer holds, at any depth, a layer that has the mode (Keras would quantize it).
bool holds_quantizable_sublayer(const LayerImpl& layer, const std::string& mode) {
  for (const Layer& sub : layer.sublayers()) {
    if (sub.impl().supports_quantization_mode(mode) || holds_quantizable_sublayer(sub.impl(), mode)) return true;
  }
  return false;
}

// The layers whose EinsumDense projections Keras's quantize reaches inside them (its
// _flatten_layers walk), as Strata's does (checked against Keras's predictions:
// tests/io/quantize_api_test.cc). Keras 3.15 then saves them with float32 policies and
// cannot load its own file of them ("expected 2 variables, but received 0"): saving one
// is refused (io/layer_config.cc).
const std::set<std::string> kQuantizedThroughProjections{"MultiHeadAttention", "GroupQueryAttention"};

// The layers with no sublayers inside `layer`, depth first in tracking order (Keras's
// order: query, key, value, then the output projection).
void sublayer_leaves(const LayerImpl& layer, std::vector<Layer>& leaves) {
  for (const Layer& sub : layer.sublayers()) {
    if (sub.impl().sublayers().empty()) {
      leaves.push_back(sub);
    } else {
      sublayer_leaves(sub.impl(), leaves);
    }
  }
}

// Keras sets the model's train/test/predict functions to None; its optimizer, and the
// state it has for the weights that remain (the biases' moments), carry on. Strata
// compiles the programs again with the optimizer compile() resolved, and keeps the step
// count (it keys dropout masks). A CustomModel's steps are dropped too: they hold the
// variables they were built on.
void rebuild_compiled_functions(ModelImpl& model) {
  model.inference.reset();
  for (const Layer& layer : model.sublayers()) {
    if (auto* nested = dynamic_cast<ModelImpl*>(&layer.impl()); nested && nested != &model) {
      rebuild_compiled_functions(*nested);
    }
  }
  if (auto* custom = dynamic_cast<CustomModel*>(&model)) custom->rebuild_steps();
  if (!model.compiled) return;
  model.compile_options->optimizer = model.compiled->optimizer();
  const std::int64_t steps = model.compiled->train_steps();
  model.compiled.reset();
  model.compiled = std::make_unique<CompiledModel>(model, &*model.compile_options);
  model.compiled->set_train_steps(steps);
}

}  // namespace

void Model::quantize(const std::string& mode) {
  ModelImpl& m = model();
  bool known = false;
  std::string modes;
  for (const std::string& k : kKerasQuantizationModes) {
    known = known || k == mode;
    modes += (modes.empty() ? "'" : ", '") + k + "'";
  }
  if (!known) throw ValueError("Invalid quantization mode. Expected one of (" + modes + "). Received: mode=" + mode);
  // Keras needs a GPTQConfig / AWQConfig for these; Strata's quantize takes a mode only.
  if (mode == "gptq") throw ValueError("For GPTQ, you must pass a `GPTQConfig` object in the `config` argument.");
  if (mode == "awq") throw ValueError("For AWQ, you must pass an `AWQConfig` object in the `config` argument.");
  auto hold = m.usage.exclusive("quantize", m.name);
  if (m.inputs.empty()) {
    throw ValueError("Cannot quantize a layer that isn't yet built. Layer '" + m.name + "' (of type '" +
                     m.class_name() + "') is not built yet.");
  }
  // Keras's defaults: Int4QuantizationConfig's sub-channel groups of 128, float8's amax
  // history of 1024.
  const std::string layer_mode = mode == "int4" ? "int4/128" : mode == "float8" ? layers::float8_mode(1024) : mode;
  std::vector<Layer> leaves;
  std::set<const LayerImpl*> seen{&m};
  quantize_leaves(m, leaves, seen);
  // An attention layer stands for its projections, as in Keras's walk.
  std::vector<Layer> walked;
  for (const Layer& layer : leaves) {
    if (kQuantizedThroughProjections.count(layer.class_name()) && !layer.impl().sublayers().empty()) {
      sublayer_leaves(layer.impl(), walked);
    } else {
      walked.push_back(layer);
    }
  }
  leaves = std::move(walked);
  // Every check before any layer changes: a refusal leaves the model as it was.
  for (const Layer& layer : leaves) {
    if (const auto* einsum = dynamic_cast<const layers::EinsumDenseImpl*>(&layer.impl()); einsum && mode == "int8") {
      einsum->check_int8_equation();
    }
  }
  for (const Layer& layer : leaves) {
    const LayerImpl& l = layer.impl();
    if (!l.quantization_mode.empty()) {
      throw ValueError("Layer '" + l.name + "' is already quantized with dtype_policy='" + l.quantization_mode +
                       "_from_float32'. Received: mode=" + mode);
    }
    if (!l.supports_quantization_mode(layer_mode) && kKerasQuantizableClasses.count(l.class_name())) {
      throw NotImplementedError(l.class_name() + " '" + l.name + "': Keras's quantize(\"" + mode +
                                "\") quantizes it; Strata does not yet");
    }
    if (!l.supports_quantization_mode(layer_mode) && holds_quantizable_sublayer(l, layer_mode)) {
      throw NotImplementedError(l.class_name() + " '" + l.name + "': Keras's quantize(\"" + mode +
                                "\") quantizes the Dense or EinsumDense layers inside it; Strata does not yet");
    }
  }
  std::set<std::string> skipped;  // Keras warns once per class (its warnings filter)
  for (const Layer& layer : leaves) {
    if (layer.impl().supports_quantization_mode(layer_mode)) {
      layer.impl().quantize(layer_mode);
    } else {
      skipped.insert(layer.class_name());
    }
  }
  for (const std::string& c : skipped) {
    std::cerr << "strata: quantize(\"" << mode << "\"): Layer " << c
              << " does not have a `quantize` method implemented.\n";
  }
  rebuild_compiled_functions(m);
}

}  // namespace strata
