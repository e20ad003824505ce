// One golden case of a layer against Keras, as tests/reference/make_attention_goldens.py
// and make_multi_head_attention_goldens.py write them: config, inputs, masks, call
// arguments, weights, outputs, projections and gradients.
#pragma once

#include <gtest/gtest.h>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/program.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layers/core/input_layer.h"

namespace strata::testing {

// Builds the case's layer from Keras's config, calls it with the case's call arguments
// (masks attached to the inputs, where given, and tensors passed with the call:
// "tensor_arguments", in the layer's order, call_tensors.h) on its inputs, sets its
// weights, and expects its outputs and the gradients of Σ sum(output_i · projection_i)
// with respect to every input and trainable weight to be Keras's within 1e-5
// (golden_near).
struct KerasCaseOptions {
  // The first input's axis 1 (a sequence's time steps) and a mask's given as None, when
  // the model is defined and when it is run: the layer takes the steps from the fed shape.
  bool unknown_time = false;
};

inline void expect_matches_keras_case(const nlohmann::ordered_json& c, const KerasCaseOptions& options = {}) {
  using nlohmann::ordered_json;
  Layer layer = io::layer_from_config(ordered_json{{"class_name", c.at("class_name")}, {"config", c.at("config")}}, {});
  CallArguments arguments;
  for (const auto& [name, value] : c.at("call_arguments").items()) arguments[name] = value.get<bool>();

  std::vector<Tensor> xs;
  std::vector<KerasTensor> symbolic;
  // The shape a tensor's placeholder (with its batch) or symbolic input (without) has.
  const auto defined = [&](const Shape& s, bool has_time) {
    return options.unknown_time && has_time && s.rank() >= 2 ? s.with_dim(1, kUnknownDim) : s;
  };
  for (const auto& in : c.at("inputs")) {
    xs.push_back(golden_tensor(in));
    symbolic.push_back(Input(defined(xs.back().shape(), xs.size() == 1).without_batch()));
  }
  std::vector<Tensor> tensor_arguments;
  std::vector<std::string> tensor_argument_names;
  if (c.contains("tensor_arguments")) {
    for (const auto& [name, value] : c.at("tensor_arguments").items()) {
      if (value.is_null()) {  // a None given: Attention's mask=[None, v] (call_tensors.h)
        arguments[name] = false;
        continue;
      }
      arguments[name] = true;
      tensor_arguments.push_back(golden_tensor(value));
      tensor_argument_names.push_back(name);
      symbolic.push_back(Input(defined(tensor_arguments.back().shape(), name == "mask").without_batch()));
    }
  }
  const auto outputs = layer.call_with(symbolic, arguments);
  ASSERT_EQ(outputs.size(), c.at("outputs").size());
  std::vector<Tensor> weights;
  for (const auto& w : c.at("weights")) weights.push_back(golden_tensor(w));
  layer.set_weights(weights);
  ASSERT_EQ(layer.weights().size(), c.at("weight_names").size());
  for (std::size_t i = 0; i < weights.size(); ++i) {
    EXPECT_EQ(layer.weights()[i].path(), c.at("weight_names")[i].get<std::string>());
  }

  Graph g;
  std::vector<Output> feeds, masks;
  std::vector<Tensor> run_feeds = xs;
  for (const auto& x : xs) {
    feeds.push_back(g.placeholder({defined(x.shape(), feeds.empty()).with_dim(0, kUnknownDim), DType::float32}));
  }
  std::vector<Output> all_feeds = feeds;
  if (!c.at("masks").is_null()) {
    for (const auto& m : c.at("masks")) {
      if (m.is_null()) {
        masks.emplace_back();
        continue;
      }
      run_feeds.push_back(golden_tensor(m));
      masks.push_back(g.placeholder({defined(run_feeds.back().shape(), true), DType::float32}));
      all_feeds.push_back(masks.back());
    }
  }
  std::vector<Output> call_inputs = feeds;
  for (std::size_t a = 0; a < tensor_arguments.size(); ++a) {
    const Tensor& t = tensor_arguments[a];
    run_feeds.push_back(t);
    call_inputs.push_back(g.placeholder({defined(t.shape(), tensor_argument_names[a] == "mask"), DType::float32}));
    all_feeds.push_back(call_inputs.back());
  }
  LayerImpl& impl = layer.impl();
  impl.current_call = 0;
  impl.current_arguments = arguments;
  const std::vector<Output> ys = masks.empty() ? impl.call(g, call_inputs) : impl.call_masked(g, call_inputs, masks);
  ASSERT_EQ(ys.size(), c.at("outputs").size());
  Output loss;
  for (std::size_t i = 0; i < ys.size(); ++i) {
    run_feeds.push_back(golden_tensor(c.at("projections")[i]));
    Output projection = g.placeholder({run_feeds.back().shape(), DType::float32});
    all_feeds.push_back(projection);
    Output term = ops::reduce_sum(ops::mul(ys[i], projection));
    loss = loss.valid() ? ops::add(loss, term) : term;
  }
  std::vector<Output> wrt = feeds;
  for (const auto& v : layer.trainable_weights()) wrt.push_back(g.variable(v));
  std::vector<Output> fetches = ys;
  for (const Output& grad : gradients(loss, wrt)) {
    fetches.push_back(grad.valid() ? grad : ops::zeros_like(wrt[fetches.size() - ys.size()]));
  }
  Program program(g, all_feeds, fetches);
  const auto out = program.run(run_feeds);

  for (std::size_t i = 0; i < ys.size(); ++i) {
    EXPECT_TRUE(golden_near(out[i], c.at("outputs")[i], "output " + std::to_string(i)));
  }
  const auto& gx = c.at("input_grads");
  for (std::size_t i = 0; i < xs.size(); ++i) {
    EXPECT_TRUE(golden_near(out[ys.size() + i], gx[i], "gradient of input " + std::to_string(i)));
  }
  const auto& gw = c.at("weight_grads");
  ASSERT_EQ(gw.size(), layer.trainable_weights().size());
  for (std::size_t i = 0; i < gw.size(); ++i) {
    EXPECT_TRUE(golden_near(out[ys.size() + xs.size() + i], gw[i],
                                     "gradient of " + layer.trainable_weights()[i].path()));
  }
}

}  // namespace strata::testing
