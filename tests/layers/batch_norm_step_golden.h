// One training step of a BatchNormalization against Keras: the case format
// tests/reference/keras_layer_case.py's batch_norm_step_case writes (the layer's config and
// seeded weights, an input with its mask attached and/or passed with the call). Checks the
// training output, the gradients of sum(output · projection) with respect to the input and
// every trainable weight, every non-trainable weight after the step's update, and the
// inference output that follows, each within the goldens' tolerance.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/program.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layers/core/input_layer.h"
#include "layers/layer.h"

namespace strata::testing {

inline void expect_batch_norm_step_matches_keras(const nlohmann::ordered_json& c) {
  using nlohmann::ordered_json;
  Layer layer = io::layer_from_config(ordered_json{{"class_name", c.at("class_name")}, {"config", c.at("config")}}, {});
  const Tensor x = golden_tensor(c.at("inputs")[0]);
  CallArguments arguments;
  std::vector<KerasTensor> symbolic{Input(x.shape().without_batch())};
  std::optional<Tensor> mask_argument;
  if (c.contains("tensor_arguments")) {
    mask_argument = golden_tensor(c.at("tensor_arguments").at("mask"));
    arguments["mask"] = true;
    symbolic.push_back(Input(mask_argument->shape().without_batch()));
  }
  layer.call_with(symbolic, arguments);
  std::vector<Tensor> weights;
  for (const auto& w : c.at("weights")) weights.push_back(golden_tensor(w));
  layer.set_weights(weights);

  Graph g;
  std::vector<Output> feeds{g.placeholder({x.shape().with_dim(0, kUnknownDim), DType::float32})};
  std::vector<Tensor> run_feeds{x};
  std::vector<Output> call_inputs = feeds, masks;
  if (!c.at("masks").is_null()) {
    run_feeds.push_back(golden_tensor(c.at("masks")[0]));
    masks.push_back(g.placeholder({run_feeds.back().shape().with_dim(0, kUnknownDim), DType::float32}));
    feeds.push_back(masks.back());
  }
  if (mask_argument) {
    run_feeds.push_back(*mask_argument);
    call_inputs.push_back(g.placeholder({mask_argument->shape().with_dim(0, kUnknownDim), DType::float32}));
    feeds.push_back(call_inputs.back());
  }
  LayerImpl& impl = layer.impl();
  impl.current_call = 0;
  impl.current_arguments = arguments;
  const Output y = (masks.empty() ? impl.call(g, call_inputs) : impl.call_masked(g, call_inputs, masks))[0];
  run_feeds.push_back(golden_tensor(c.at("projections")[0]));
  const Output projection = g.placeholder({run_feeds.back().shape(), DType::float32});
  feeds.push_back(projection);
  std::vector<Output> wrt{feeds[0]};
  for (const auto& v : layer.trainable_weights()) wrt.push_back(g.variable(v));
  std::vector<Output> fetches{y};
  for (const Output& grad : gradients(ops::reduce_sum(ops::mul(y, projection)), wrt)) fetches.push_back(grad);

  Program step(g, feeds, fetches, g.updates(true));
  const auto out = step.run(run_feeds, {.training = true});
  EXPECT_TRUE(golden_near(out[0], c.at("outputs")[0], "training output"));
  EXPECT_TRUE(golden_near(out[1], c.at("input_grads")[0], "gradient of the input"));
  const auto& gw = c.at("weight_grads");
  ASSERT_EQ(gw.size(), layer.trainable_weights().size());
  for (std::size_t i = 0; i < gw.size(); ++i) {
    EXPECT_TRUE(golden_near(out[2 + i], gw[i], "gradient of " + layer.trainable_weights()[i].path()));
  }
  const auto moving = layer.non_trainable_weights();
  const auto& moved = c.at("moving_after");
  ASSERT_EQ(moving.size(), moved.size());
  for (std::size_t i = 0; i < moved.size(); ++i) {
    EXPECT_TRUE(golden_near(moving[i].value(), moved[i], moving[i].path() + " after the step"));
  }

  // Inference: the moving statistics as the step left them; a mask changes nothing.
  Program inference(g, feeds, {y});
  EXPECT_TRUE(golden_near(inference.run(run_feeds)[0], c.at("inference_outputs")[0], "inference output"));
}

}  // namespace strata::testing
