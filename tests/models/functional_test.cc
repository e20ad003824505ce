// Functional models: several inputs and outputs, shared layers, nested models, summary.
#include <gtest/gtest.h>

#include "strata.h"
#include "test_data.h"

using namespace strata;

namespace functional_test {

TEST(Functional, TwoInputsTwoOutputsTrain) {
  set_random_seed(21);
  auto a = Input({4}, {.name = "a"});
  auto b = Input({4}, {.name = "b"});
  auto ha = layers::Dense(8, {.activation = "tanh"})(a);
  auto hb = layers::Dense(8, {.activation = "tanh"})(b);
  auto joined = layers::Dense(8, {.activation = "relu"})(ha);  // a branch of a
  auto out1 = layers::Dense(3, {.activation = "softmax", .name = "cls"})(joined);
  auto out2 = layers::Dense(1, {.name = "reg"})(hb);
  Model m({a, b}, {out1, out2});
  m.compile({.optimizer = "adam",
             .loss = {losses::get("sparse_categorical_crossentropy"), losses::get("mse")},
             .loss_weights = {1.0f, 0.5f}});
  auto [x, y] = test_data::blobs(60);
  Tensor target(Shape{60, 1});
  for (int i = 0; i < 60; ++i) target.data<float>()[i] = x.data<float>()[i * 4];
  History h = m.fit({x, x}, {y, target}, {.batch_size = 10, .epochs = 10, .verbose = 0});
  for (const char* key : {"loss", "cls_loss", "reg_loss"}) ASSERT_TRUE(h.history.count(key)) << key;
  EXPECT_LT(h.history["loss"].back(), h.history["loss"].front());
  // Total loss = cls_loss + 0.5 reg_loss (per epoch means are linear).
  EXPECT_NEAR(h.history["loss"].back(), h.history["cls_loss"].back() + 0.5f * h.history["reg_loss"].back(), 1e-4);
  auto preds = m.predict({x, x});
  ASSERT_EQ(preds.size(), 2u);
  EXPECT_EQ(preds[0].shape(), (Shape{60, 3}));
  EXPECT_EQ(preds[1].shape(), (Shape{60, 1}));
}

TEST(Functional, CallingOneLayerTwiceSharesItsWeights) {
  auto a = Input({4});
  auto b = Input({4});
  layers::Dense shared(2, {.name = "shared"});
  auto out = layers::Dense(1)(layers::Dense(2)(shared(a)));
  auto out_b = shared(b);
  Model m({a, b}, {out, out_b});
  EXPECT_EQ(shared.weights().size(), 2u);
  // The shared layer's weights appear once.
  int count = 0;
  for (const auto& w : m.weights()) count += w.path().rfind("shared/", 0) == 0;
  EXPECT_EQ(count, 2);
  // The second output is the shared layer applied to b: x·kernel + bias, by hand.
  Tensor x = test_data::blobs(5).first;
  auto p = m.predict({x, x});
  ASSERT_EQ(p[1].shape(), (Shape{5, 2}));
  const float* k = shared.weights()[0].value().data<float>();
  for (int j = 0; j < 2; ++j) {
    float expected = shared.weights()[1].value().data<float>()[j];
    for (int f = 0; f < 4; ++f) expected += x.data<float>()[f] * k[f * 2 + j];
    EXPECT_NEAR(p[1].data<float>()[j], expected, 1e-5);
  }
}

TEST(Functional, NestedModelActsAsALayer) {
  auto inner_in = Input({4});
  Model inner(inner_in, layers::Dense(3, {.activation = "relu", .name = "inner_dense"})(inner_in), {.name = "encoder"});
  auto in = Input({4});
  auto out = layers::Dense(2)(inner(in));
  Model outer(in, out);
  EXPECT_EQ(outer.weights().size(), 4u);
  EXPECT_EQ(outer.get_layer("encoder").class_name(), "Functional");
  outer.compile({.optimizer = "sgd", .loss = "mse"});
  auto [x, y] = test_data::blobs(10);
  Tensor t(Shape{10, 2});
  Tensor before = inner.get_weights()[0];
  outer.fit(x, t, {.epochs = 2, .verbose = 0});
  // Training the outer model trains the nested model's weights.
  EXPECT_NE(inner.get_weights()[0].to_vector<float>(), before.to_vector<float>());
  // And the nested model alone computes what it computes inside.
  EXPECT_EQ(inner.predict(x).shape(), (Shape{10, 3}));
}

TEST(Functional, GetAndSetWeightsRoundTrip) {
  auto in = Input({4});
  Model m(in, layers::Dense(2)(layers::Dense(3)(in)));
  auto w = m.get_weights();
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0].shape(), (Shape{4, 3}));
  EXPECT_EQ(w[3].shape(), (Shape{2}));
  for (auto& t : w) {
    for (auto& v : t.values<float>()) v = 0.25f;
  }
  m.set_weights(w);
  EXPECT_EQ(m.get_weights()[2].item(0), 0.25f);
  w.pop_back();
  EXPECT_THROW(m.set_weights(w), ValueError);
  w.push_back(Tensor(Shape{3}));
  EXPECT_THROW(m.set_weights(w), ShapeError);
}

TEST(Functional, GetLayerByNameAndIndex) {
  auto in = Input({4}, {.name = "pixels"});
  Model m(in, layers::Dense(2, {.name = "logits"})(in));
  EXPECT_EQ(m.get_layer(0).name(), "pixels");  // functional models list their InputLayer
  EXPECT_EQ(m.get_layer(1).name(), "logits");
  EXPECT_EQ(m.get_layer("logits").class_name(), "Dense");
  EXPECT_THROW(m.get_layer(5), ValueError);
}

TEST(Sequential, BuildsFromListByAddAndFromData) {
  Sequential s({Input({28, 28}), layers::Flatten(), layers::Dense(16, {.activation = "relu"})});
  s.add(layers::Dense(10));
  EXPECT_EQ(s.layers().size(), 3u);  // the InputLayer is not listed
  EXPECT_EQ(s.outputs()[0].shape(), (Shape{kUnknownDim, 10}));
  s.pop();
  EXPECT_EQ(s.outputs()[0].shape(), (Shape{kUnknownDim, 16}));

  Sequential lazy({layers::Dense(4), layers::Dense(2)});
  lazy.compile({.optimizer = "sgd", .loss = "mse"});
  auto [x, y] = test_data::blobs(8, 6);
  Tensor t(Shape{8, 2});
  lazy.fit(x, t, {.verbose = 0});
  EXPECT_EQ(lazy.get_layer(0).weights()[0].shape(), (Shape{6, 4}));
}

TEST(Summary, ListsLayersShapesAndParamsLikeKeras) {
  clear_session();
  Sequential s({Input({28, 28}), layers::Flatten(), layers::Dense(128, {.activation = "relu"}), layers::Dropout(0.2),
                layers::Dense(10)});
  std::string text = s.summary_string();
  EXPECT_NE(text.find("Model: \"sequential\""), std::string::npos) << text;
  EXPECT_NE(text.find("flatten (Flatten)"), std::string::npos) << text;
  EXPECT_NE(text.find("(None, 784)"), std::string::npos) << text;
  EXPECT_NE(text.find("dense (Dense)"), std::string::npos) << text;
  EXPECT_NE(text.find("100,480"), std::string::npos) << text;
  EXPECT_NE(text.find("1,290"), std::string::npos) << text;
  EXPECT_NE(text.find("Total params: 101,770 (397.54 KB)"), std::string::npos) << text;
  EXPECT_NE(text.find("Trainable params: 101,770"), std::string::npos) << text;
  EXPECT_NE(text.find("Non-trainable params: 0 (0.00 B)"), std::string::npos) << text;

  auto a = Input({4}, {.name = "a"});
  Model f(a, layers::Dense(2, {.name = "out"})(a));
  std::string ft = f.summary_string();
  EXPECT_NE(ft.find("Connected to"), std::string::npos) << ft;
  EXPECT_NE(ft.find("a[0][0]"), std::string::npos) << ft;
}

TEST(Layers, FrozenLayersAreNotTrained) {
  auto in = Input({4});
  layers::Dense frozen(3);
  Model m(in, layers::Dense(2)(frozen(in)));
  frozen.set_trainable(false);
  m.compile({.optimizer = "sgd", .loss = "mse"});
  EXPECT_EQ(m.trainable_weights().size(), 2u);
  EXPECT_EQ(m.non_trainable_weights().size(), 2u);
  Tensor before = frozen.get_weights()[0];
  auto [x, y] = test_data::blobs(10);
  m.fit(x, Tensor(Shape{10, 2}), {.epochs = 2, .verbose = 0});
  EXPECT_EQ(frozen.get_weights()[0].to_vector<float>(), before.to_vector<float>());
}

}  // namespace functional_test
