// Which layers pass a Keras mask on, against Keras 3.15 itself:
// tests/data/keras_api/keras_3_15_masking.json (tests/reference/list_keras_masking.py)
// records, for every keras.layers class it can call, a config, inputs with a bool mask
// attached to each, and the masks Keras attached to the outputs. Every class Strata
// registers is built from that config, called on such inputs and masks, and must attach a
// mask to the same outputs, of the same shape, or be one of the differences listed below
// with why (each of which must still differ: a fixed one leaves the list).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "golden_json.h"
#include "io/layer_config.h"
#include "layers/core/input_layer.h"

namespace strata::mask_propagation_keras_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& keras_masking() { return testing::golden_file("keras_api/keras_3_15_masking.json"); }

// Where Strata's masks differ from Keras's, and why.
const std::map<std::string, std::string>& known_differences() {
  static const std::map<std::string, std::string> differences = {
      // Keras's image augmentation layers return their input tensor itself in inference,
      // which keeps its mask (though supports_masking is False), and a new tensor without
      // one in training. Strata's one graph serves both modes; it passes none in either.
      {"AugMix", "inference-only identity"},
      {"CutMix", "inference-only identity"},
      {"Equalization", "inference-only identity"},
      {"MixUp", "inference-only identity"},
      {"RandAugment", "inference-only identity"},
      {"RandomBrightness", "inference-only identity"},
      {"RandomColorDegeneration", "inference-only identity"},
      {"RandomColorJitter", "inference-only identity"},
      {"RandomContrast", "inference-only identity"},
      {"RandomCrop", "inference-only identity"},
      {"RandomElasticTransform", "inference-only identity"},
      {"RandomErasing", "inference-only identity"},
      {"RandomFlip", "inference-only identity"},
      {"RandomGaussianBlur", "inference-only identity"},
      {"RandomGrayscale", "inference-only identity"},
      {"RandomHue", "inference-only identity"},
      {"RandomInvert", "inference-only identity"},
      {"RandomPerspective", "inference-only identity"},
      {"RandomPosterization", "inference-only identity"},
      {"RandomRotation", "inference-only identity"},
      {"RandomSaturation", "inference-only identity"},
      {"RandomSharpness", "inference-only identity"},
      {"RandomShear", "inference-only identity"},
      {"RandomTranslation", "inference-only identity"},
      {"RandomZoom", "inference-only identity"},
      {"Solarization", "inference-only identity"},
  };
  return differences;
}

DType dtype_named(const std::string& name) {
  if (name == "int32") return DType::int32;
  if (name == "string") return DType::string;
  return DType::float32;
}

Shape shape_of(const ordered_json& dims) { return Shape(dims.get<std::vector<std::int64_t>>()); }

// Strata's output masks for the Keras entry: per output, the mask's shape without the
// batch axis, or null. A layer that cannot be built or called so, or that refuses masks,
// gives its error's message instead.
ordered_json strata_output_masks(const ordered_json& entry, std::string& error) {
  ordered_json found = ordered_json::array();
  try {
    Layer layer =
        io::layer_from_config(ordered_json{{"class_name", entry.at("class_name")}, {"config", entry.at("config")}}, {});
    std::vector<KerasTensor> symbolic;
    Graph g;
    std::vector<Output> inputs, masks;
    for (std::size_t i = 0; i < entry.at("inputs").size(); ++i) {
      const auto& in = entry.at("inputs")[i];
      const Shape shape = shape_of(in.at("shape"));
      const DType dtype = dtype_named(in.at("dtype").get<std::string>());
      symbolic.push_back(Input(shape, {.dtype = dtype}));
      inputs.push_back(g.placeholder({shape.with_batch(kUnknownDim), dtype}));
      masks.push_back(g.placeholder({shape_of(entry.at("masks")[i]).with_batch(kUnknownDim), DType::float32}));
    }
    const std::size_t outputs = layer.call_with(symbolic, {}).size();
    LayerImpl& impl = layer.impl();
    impl.current_call = 0;
    impl.current_arguments = {};
    impl.call_masked(g, inputs, masks);  // a layer that refuses masks says so here
    const std::vector<Output> passed = impl.compute_mask(g, inputs, masks);
    for (std::size_t i = 0; i < outputs; ++i) {
      if (i < passed.size() && passed[i].valid()) {
        found.push_back(passed[i].shape().without_batch().dims());
      } else {
        found.push_back(nullptr);
      }
    }
  } catch (const Error& e) {
    error = e.what();
  }
  return found;
}

TEST(MaskPropagation, EveryRegisteredClassPassesMasksOnWhereKerasDoes) {
  const std::vector<std::string> registered = io::registered_layer_classes();
  int compared = 0;
  for (const auto& entry : keras_masking().at("layers")) {
    const std::string class_name = entry.at("class_name").get<std::string>();
    if (std::find(registered.begin(), registered.end(), class_name) == registered.end()) continue;
    SCOPED_TRACE(class_name);
    std::string error;
    const ordered_json strata = strata_output_masks(entry, error);
    const ordered_json& keras = entry.at("output_masks");
    const bool same = error.empty() && strata == keras;
    auto known = known_differences().find(class_name);
    if (known == known_differences().end()) {
      EXPECT_TRUE(same) << "Keras's output masks " << keras.dump() << ", Strata's " << strata.dump()
                        << (error.empty() ? "" : " (the call threw: " + error + ")");
    } else {
      EXPECT_FALSE(same) << "listed as a difference (" << known->second
                         << ") but Strata now passes Keras's masks: take it off the list";
    }
    ++compared;
  }
  // Every class Keras lists and Strata registers: more than a hundred.
  EXPECT_GT(compared, 100);
}

// The list of differences names classes of the Keras file only.
TEST(MaskPropagation, EveryListedDifferenceIsAKerasClass) {
  for (const auto& [class_name, why] : known_differences()) {
    bool listed = false;
    for (const auto& entry : keras_masking().at("layers")) listed = listed || entry.at("class_name") == class_name;
    EXPECT_TRUE(listed) << class_name;
  }
}

}  // namespace
}  // namespace strata::mask_propagation_keras_test
