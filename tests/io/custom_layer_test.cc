// CustomLayer (io/custom_layer.h) beyond the guide's happy path: gradients through nested
// layers pass the finite-difference check every op passes, and each misuse is an error
// that names the layer and says what to do.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/check_gradients.h"
#include "core/ops.h"
#include "io/custom_layer.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "layers/keras_class.h"
#include "models/model.h"
#include "test_util.h"

namespace custom_layer_cases {
using namespace strata;

// tanh(x W1) W2 through a Dense and a user's layer, both tracked.
class Inner : public CustomLayer {
 public:
  explicit Inner(std::string name = "") : CustomLayer("CustomLayerCasesInner", name) {}
  void build(const std::vector<TensorSpec>& inputs) override {
    w = add_weight("w", {inputs[0].shape.dims().back(), 3}, initializers::RandomNormal({.stddev = 0.5}));
  }
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {ops::matmul(inputs[0], graph.variable(w))};
  }
  Variable w;
};

class Outer : public CustomLayer {
 public:
  explicit Outer(std::string name = "") : CustomLayer("CustomLayerCasesOuter", name) {
    dense = track("dense", layers::Dense(4, {.activation = "tanh"}));
    inner = track("inner", make_layer<Inner>());
  }
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {call_layer(inner, graph, call_layer(dense, graph, inputs[0]))};
  }
  Layer dense, inner;
  Layer untracked = make_layer<Inner>();
};

// Calls a layer it never tracked.
class Forgetful : public Outer {
 public:
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {call_layer(untracked, graph, inputs[0])};
  }
};

// Registered as one class, makes another.
class Impostor : public CustomLayer {
 public:
  explicit Impostor(std::string name = "") : CustomLayer("CustomLayerCasesImpostor", name) {}
  std::vector<Output> call(Graph&, const std::vector<Output>& inputs) override { return {inputs[0]}; }
  static Layer from_config(const io::json& config) { return make_layer<Inner>(config.at("name").get<std::string>()); }
};

// get_config gives no object.
class BadConfig : public CustomLayer {
 public:
  explicit BadConfig(std::string name = "") : CustomLayer("CustomLayerCasesBadConfig", name) {}
  std::vector<Output> call(Graph&, const std::vector<Output>& inputs) override { return {inputs[0]}; }
  io::json get_config() const override { return io::json::array({1, 2}); }
  static Layer from_config(const io::json& config) {
    return make_layer<BadConfig>(config.at("name").get<std::string>());
  }
};

// Named as a Keras class Strata has.
class ShadowsDense : public CustomLayer {
 public:
  explicit ShadowsDense(std::string name = "") : CustomLayer("Dense", name) {}
  std::vector<Output> call(Graph&, const std::vector<Output>& inputs) override { return {inputs[0]}; }
  static Layer from_config(const io::json& config) {
    return make_layer<ShadowsDense>(config.at("name").get<std::string>());
  }
};

// Their class names are not their C++ names: the registration says them.
const bool impostor_registered = saving::register_keras_serializable<Impostor>("cases", "CustomLayerCasesImpostor");
const bool bad_config_registered = saving::register_keras_serializable<BadConfig>("cases", "CustomLayerCasesBadConfig");

}  // namespace custom_layer_cases

// In namespace strata, not under a using-directive: a unity build shares anonymous namespaces.
namespace strata::custom_layer_tests {
namespace {

Tensor custom_layer_cases_input() {
  std::vector<float> v(2 * 5);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.3f * static_cast<float>(i % 5) - 0.6f;
  return Tensor::from_vector<float>({2, 5}, v);
}

TEST(CustomLayer, GradientsThroughNestedLayersPassTheGradientCheck) {
  Layer outer = make_layer<custom_layer_cases::Outer>();
  KerasTensor x = Input({5});
  Model model(x, outer(x));
  EXPECT_EQ(outer.weights().size(), 3u);  // dense's kernel and bias, inner's w
  const GradientCheckResult r = check_gradients(
      [&](Graph& graph, const std::vector<Output>& in) { return outer.impl().call(graph, in)[0]; },
      {custom_layer_cases_input()});
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(CustomLayer, MisuseIsAValueErrorSayingWhatToDo) {
  KerasTensor x = Input({5});
  EXPECT_THROW_WITH(make_layer<custom_layer_cases::Forgetful>()(x), ValueError, "CustomLayerCasesOuter",
                    "which it does not track", "track(\"attribute\", layer)");
  struct TwiceByAttribute : custom_layer_cases::Outer {
    TwiceByAttribute() { track("dense", layers::Dense(2)); }
  };
  EXPECT_THROW_WITH(TwiceByAttribute(), ValueError, "already tracks a layer as 'dense'");
  struct TwiceByLayer : custom_layer_cases::Outer {
    TwiceByLayer() { track("again", dense); }
  };
  EXPECT_THROW_WITH(TwiceByLayer(), ValueError, "already tracks Dense");
  struct BadAttribute : custom_layer_cases::Outer {
    BadAttribute() { track("a/b", layers::Dense(2)); }
  };
  EXPECT_THROW_WITH(BadAttribute(), ValueError, "'a/b' cannot name a tracked layer");
  EXPECT_THROW_WITH(layer_cast<custom_layer_cases::Inner>(layers::Dense(2, {.name = "d"})), ValueError, "Dense 'd'");
  // A package's "Dense" would stand in for Keras's Dense in every file.
  EXPECT_THROW_WITH(saving::register_keras_serializable<custom_layer_cases::ShadowsDense>("cases", "Dense"),
                    ValueError, "cannot register 'cases>Dense'", "a Keras class Strata has");
  EXPECT_EQ(layers::find_keras_class("Dense")->module.rfind("keras", 0), 0u);  // still Keras's
}

TEST(CustomLayer, ARegisteredClassMustLoadAsItselfAndGiveAnObjectConfig) {
  ASSERT_TRUE(custom_layer_cases::impostor_registered && custom_layer_cases::bad_config_registered);
  strata::testing::ScratchDir dir;
  KerasTensor x = Input({5});
  Model impostor(x, make_layer<custom_layer_cases::Impostor>()(x));
  impostor.save(dir.file("impostor.keras"));
  EXPECT_THROW_WITH(models::load_model(dir.file("impostor.keras")), ValueError, "CustomLayerCasesImpostor",
                    "made a layer of class 'CustomLayerCasesInner'");
  Model bad(x, make_layer<custom_layer_cases::BadConfig>()(x));
  EXPECT_THROW_WITH(bad.save(dir.file("bad.keras")), ValueError, "get_config() must give a JSON object");
  EXPECT_FALSE(std::filesystem::exists(dir.file("bad.keras")));
  // A class registered by nobody (or under another name than its class name) says so.
  Model unregistered(x, make_layer<custom_layer_cases::Inner>()(x));
  EXPECT_THROW_WITH(unregistered.save(dir.file("inner.h5")), NotImplementedError,
                    "CustomLayer whose class 'CustomLayerCasesInner' nobody registered",
                    "register_keras_serializable<T>(\"package\", \"CustomLayerCasesInner\")");
}

}  // namespace
}  // namespace strata::custom_layer_tests
