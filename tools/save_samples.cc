// strata_save_samples OUTDIR: writes sample models from Strata for
// tests/reference/roundtrip_keras.py: for each model <name>.h5 and <name>.keras, its
// inputs <name>.input<i>.npy, Strata's predictions <name>.output<i>.npy and its
// to_json() in <name>.json.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/error.h"
#include "core/rng.h"
#include "io/npy.h"
#include "io/saving.h"
#include "layers/activations/activation.h"
#include "layers/activations/elu.h"
#include "layers/activations/leaky_relu.h"
#include "layers/activations/prelu.h"
#include "layers/activations/relu.h"
#include "layers/activations/softmax.h"
#include "layers/attention/additive_attention.h"
#include "layers/attention/attention.h"
#include "layers/attention/group_query_attention.h"
#include "layers/attention/multi_head_attention.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/convolutional/depthwise_conv2d.h"
#include "layers/convolutional/separable_conv2d.h"
#include "layers/core/dense.h"
#include "layers/core/einsum_dense.h"
#include "layers/core/embedding.h"
#include "layers/core/identity.h"
#include "layers/core/input_layer.h"
#include "layers/core/reversible_embedding.h"
#include "layers/core/op_layer.h"
#include "layers/merging/concatenate.h"
#include "layers/merging/merge.h"
#include "layers/normalization/batch_normalization.h"
#include "layers/normalization/group_normalization.h"
#include "layers/normalization/layer_normalization.h"
#include "layers/normalization/spectral_normalization.h"
#include "layers/normalization/unit_normalization.h"
#include "layers/pooling/global_pooling.h"
#include "layers/pooling/pooling.h"
#include "layers/preprocessing/aug_mix.h"
#include "layers/preprocessing/category_encoding.h"
#include "layers/preprocessing/clahe.h"
#include "layers/preprocessing/stft_spectrogram.h"
#include "layers/preprocessing/center_crop.h"
#include "layers/preprocessing/discretization.h"
#include "layers/preprocessing/hashed_crossing.h"
#include "layers/preprocessing/hashing.h"
#include "layers/preprocessing/integer_lookup.h"
#include "layers/preprocessing/normalization.h"
#include "layers/preprocessing/rand_augment.h"
#include "layers/preprocessing/rescaling.h"
#include "layers/preprocessing/resizing.h"
#include "layers/preprocessing/string_lookup.h"
#include "layers/preprocessing/text_vectorization.h"
#include "layers/recurrent/bidirectional.h"
#include "layers/recurrent/conv_lstm.h"
#include "layers/recurrent/gru.h"
#include "layers/recurrent/lstm.h"
#include "layers/regularization/dropout.h"
#include "layers/reshaping/flatten.h"
#include "layers/reshaping/permute.h"
#include "layers/reshaping/reshape.h"
#include "layers/reshaping/spatial_padding.h"
#include "layers/reshaping/upsampling.h"
#include "models/sequential.h"
#include "optimizers/optimizers.h"

namespace {

using namespace strata;

Tensor ramp(Shape shape, float phase) {
  Tensor t(shape);
  auto v = t.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37f * static_cast<float>(i) + phase);
  return t;
}

struct Sample {
  std::string name;
  Model model;
  std::vector<Shape> input_shapes;
  std::vector<bool> masks = {};     // per shaped input: 0/1 values (a mask) rather than a ramp
  std::vector<Tensor> inputs = {};  // given inputs (string data), before those of input_shapes
  bool keras_only = false;          // .h5 cannot hold it (an adapted vocabulary)
  std::vector<Shape> other_shapes = {};  // None dims: inputs of another size, predicted too
};

// 0/1 values, mostly 1, with position 0 of every row kept (each query sees some key).
Tensor mask_values(Shape shape) {
  Tensor t(shape);
  auto v = t.values<float>();
  const auto row = static_cast<std::size_t>(shape[-1]);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i % row == 0 || (i * 5 + i / row) % 3 != 0 ? 1.f : 0.f;
  return t;
}

// Structured data through the preprocessing layers: string, int and float inputs. The
// city vocabulary is given (saved in the config) or adapted (saved as a .keras asset).
Sample preprocessing_sample(bool adapted) {
  auto city = Input({1}, {.dtype = DType::string, .name = "city"});
  auto code = Input({1}, {.dtype = DType::int64, .name = "code"});
  auto tags = Input({3}, {.dtype = DType::string, .name = "tags"});
  auto amount = Input({1}, {.name = "amount"});
  layers::StringLookup lookup(adapted ? layers::StringLookupOptions{.name = "city_lookup"}
                                      : layers::StringLookupOptions{.mask_token = "",
                                                                    .vocabulary = std::vector<std::string>{"paris", "tokyo", "東京"},
                                                                    .name = "city_lookup"});
  if (adapted) lookup.adapt(Tensor::from_strings({6}, {"paris", "lima", "paris", "東京", "tokyo", "lima"}));
  auto e = layers::Flatten()(layers::Embedding(lookup.vocabulary_size(), 3)(lookup(city)));
  auto c = layers::IntegerLookup({.num_oov_indices = 2, .vocabulary = std::vector<std::int64_t>{7, 11, -5},
                                  .output_mode = "multi_hot"})(code);
  auto h = layers::Hashing(16, {.salt = std::vector<std::int64_t>{3, 4}, .output_mode = "count"})(tags);
  auto x = layers::HashedCrossing(5, {.output_mode = "one_hot"})({city, code})[0];
  auto d = layers::Discretization({.bin_boundaries = std::vector<double>{-0.5, 0.0, 0.5}, .output_mode = "one_hot"})(amount);
  auto ids = layers::CategoryEncoding(4, {.output_mode = "one_hot"})(
      layers::Discretization({.bin_boundaries = std::vector<double>{-0.25, 0.25, 0.75}})(amount));
  auto all = layers::Concatenate()({e, c, h, x, d, ids});
  Model m(std::vector<KerasTensor>{city, code, tags, amount},
          {layers::Dense(2)(layers::Dense(6, {.activation = "relu"})(all))},
          {.name = adapted ? "preprocessing_adapted" : "preprocessing"});
  std::vector<Tensor> inputs{
      Tensor::from_strings({5, 1}, {"paris", "lima", "", "東京", "nowhere"}),
      Tensor::from_vector<std::int64_t>({5, 1}, {7, 11, -5, 123456789012, 0}),
      Tensor::from_strings({5, 3}, {"a", "b", "a", "", "日本", "x", "q", "q", "q", "z", "", "y", "m", "n", "o"}),
      Tensor::from_vector<float>({5, 1}, {-1.f, 0.f, 0.3f, 0.6f, 2.f})};
  return {adapted ? "preprocessing_adapted" : "preprocessing", m, {}, {}, inputs, adapted};
}

// The lookups' tf_idf mode: an adapted StringLookup (vocabulary in the assets, weights in
// model.weights.h5) and an IntegerLookup with its weights given (in the config). No learned
// empty-string token: Keras's load_assets drops it (a trailing empty line), and in tf_idf
// mode then refuses the file for its vocabulary size.
Sample lookup_tf_idf_sample() {
  auto words = Input({4}, {.dtype = DType::string, .name = "words"});
  auto codes = Input({3}, {.dtype = DType::int64, .name = "codes"});
  layers::StringLookup lookup({.output_mode = "tf_idf"});
  lookup.adapt(Tensor::from_strings({3, 4}, {"red", "red", "blue", "teal", "pink", "blue", "blue", "red", "green", "teal",
                                             "teal", "日本"}));
  layers::IntegerLookup codes_lookup({.vocabulary = std::vector<std::int64_t>{3, 5, 8},
                                      .idf_weights = std::vector<double>{0.25, 0.75, 1.5}, .output_mode = "tf_idf"});
  auto all = layers::Concatenate()({lookup(words), codes_lookup(codes)});
  Model m(std::vector<KerasTensor>{words, codes}, {layers::Dense(2)(all)}, {.name = "lookup_tf_idf"});
  std::vector<Tensor> inputs{Tensor::from_strings({2, 4}, {"red", "red", "mauve", "", "日本", "teal", "blue", "blue"}),
                             Tensor::from_vector<std::int64_t>({2, 3}, {3, 3, 4, 8, 5, 5})};
  return {"lookup_tf_idf", m, {}, {}, inputs, true};
}

// Text through TextVectorization: adapted int indices into an embedding, adapted tf_idf
// over ngrams (its idf weights in model.weights.h5), a given vocabulary's multi_hot.
Sample text_sample(const std::string& mode) {
  auto text = Input({1}, {.dtype = DType::string, .name = "text"});
  const Tensor corpus = Tensor::from_strings({6}, {"The cat sat on the mat.", "the DOG ate my homework!",
                                                   "a cat and a dog", "Straße café naïve", "cat cat dog",
                                                   "日本語 テキスト"});
  auto build = [&]() -> Model {
    if (mode == "int") {
      layers::TextVectorization tv({.max_tokens = 10, .output_sequence_length = 5});
      tv.adapt(corpus);
      auto x = layers::GlobalAveragePooling1D()(layers::Embedding(tv.vocabulary_size(), 3)(tv(text)));
      return Model(text, layers::Dense(2)(x), {.name = "text_int_adapted"});
    }
    if (mode == "tf_idf") {
      layers::TextVectorization tv({.ngrams = std::vector<std::int64_t>{1, 2}, .output_mode = "tf_idf"});
      tv.adapt(corpus);
      return Model(text, layers::Dense(2)(tv(text)), {.name = "text_tf_idf_adapted"});
    }
    layers::TextVectorization tv({.split = "character", .output_mode = "multi_hot",
                                  .vocabulary = std::vector<std::string>{"a", "b", "c", "t", "é", "日"}});
    return Model(text, layers::Dense(2)(tv(text)), {.name = "text_multi_hot"});
  };
  Model m = build();
  std::vector<Tensor> inputs{Tensor::from_strings({4, 1}, {"the cat sat", "A DOG, a cat!", "", "日本 café"})};
  return {m.name(), m, {}, {}, inputs, mode != "multi_hot"};
}

std::vector<Sample> samples() {
  std::vector<Sample> out;
  {
    Sequential m({Input({6}), layers::Dense(16, {.activation = "relu"}), layers::Dropout(0.25),
                  layers::Dense(3, {.activation = "softmax"})},
                 {.name = "sequential_mlp"});
    m.compile({.optimizer = optimizers::Adam({.learning_rate = 0.01}),
               .loss = "categorical_crossentropy",
               .metrics = {"accuracy"}});
    out.push_back({"sequential_mlp", m, {{5, 6}}});
  }
  {
    auto a = Input({2, 3}, {.name = "a"});
    auto b = Input({5}, {.name = "b"});
    auto shared = layers::Dense(4, {.activation = "tanh", .name = "shared"});
    auto ya = shared(layers::Flatten()(a));
    auto yb = shared(layers::Dense(6, {.activation = "elu"})(b));
    auto r = layers::Reshape({2, 2})(ya);
    out.push_back({"multi_io_shared",
                   Model({a, b}, {r, layers::Activation("sigmoid")(yb)}, {.name = "multi_io"}),
                   {{4, 2, 3}, {4, 5}}});
  }
  {
    Sequential inner({Input({4}), layers::Dense(8, {.activation = "gelu"})}, {.name = "inner_seq"});
    auto x = Input({4});
    auto sub_in = Input({8});
    Model sub(sub_in, layers::Dense(3, {.activation = "swish"})(sub_in),
              {.name = "inner_functional"});
    Model m(x, layers::Dense(1)(sub(inner(x))), {.name = "nested"});
    m.compile({.optimizer = "sgd", .loss = "mse"});
    out.push_back({"nested", m, {{3, 4}}});
  }
  {
    // A nested two-input model whose layer order (Keras's: by depth) differs from first-call
    // order, with a frozen layer: its weights go last in the nested .h5 group, as in Keras.
    auto a = Input({2, 3});
    auto b = Input({5});
    auto ya = layers::Dense(4, {.activation = "relu"})(layers::Flatten()(a));
    auto frozen = layers::Dense(6);
    frozen.set_trainable(false);
    auto yb = layers::Dense(7)(frozen(b));
    Model inner({a, b}, {ya, yb}, {.name = "branches"});
    auto x1 = Input({2, 3});
    auto x2 = Input({5});
    auto outs = inner({x1, x2});
    Model m({x1, x2}, {layers::Dense(1)(outs[0]), outs[1]}, {.name = "nested_branches"});
    m.compile({.optimizer = "rmsprop", .loss = "mse"});
    out.push_back({"nested_branches", m, {{3, 2, 3}, {3, 5}}});
  }
  {
    // The convolution family: BatchNormalization (moving statistics set away from their
    // initial values), SeparableConv2D, DepthwiseConv2D, merges, padding, transposed conv.
    auto x = Input({9, 9, 2});
    auto h = layers::Conv2D(4, 3, {.padding = "same", .activation = "relu"})(x);
    auto bn = layers::BatchNormalization({.momentum = 0.9});
    h = bn(h);
    auto a = layers::SeparableConv2D(4, 3, {.padding = "same", .depth_multiplier = 2})(h);
    auto b = layers::DepthwiseConv2D(3, {.padding = "same"})(h);
    h = layers::Add()(std::vector<KerasTensor>{a, b})[0];
    h = layers::MaxPooling2D(2, {.padding = "same"})(h);
    h = layers::ZeroPadding2D(layers::Padding2D({1, 0}, {0, 1}))(h);
    h = layers::Cropping2D(layers::Padding2D({0, 1}, {1, 0}))(h);
    h = layers::UpSampling2D(2)(h);
    h = layers::Conv2DTranspose(3, 3, {.strides = 2, .padding = "same"})(h);
    auto g = layers::Concatenate()(std::vector<KerasTensor>{layers::GlobalAveragePooling2D()(h),
                                                            layers::GlobalMaxPooling2D()(h)})[0];
    Model m(x, layers::Dense(2, {.activation = "softmax"})(g), {.name = "cnn_bn_merge"});
    auto stats = bn.get_weights();
    for (std::size_t i = 0; i < stats.size(); ++i) {
      auto v = stats[i].values<float>();
      for (std::size_t j = 0; j < v.size(); ++j)
        v[j] = 0.6f + 0.1f * static_cast<float>((i + j) % 5);
    }
    bn.set_weights(stats);
    out.push_back({"cnn_bn_merge", m, {{3, 9, 9, 2}}});
  }
  {
    auto x = Input({12, 3});
    auto h =
        layers::Conv1D(5, 3, {.padding = "causal", .dilation_rate = 2, .activation = "tanh"})(x);
    h = layers::LayerNormalization()(h);
    auto p = layers::MaxPooling1D(2)(h);
    auto q = layers::AveragePooling1D(2)(h);
    h = layers::Subtract()(std::vector<KerasTensor>{p, q})[0];
    Model m(x, layers::GlobalMaxPooling1D()(h), {.name = "conv1d_ln"});
    out.push_back({"conv1d_ln", m, {{2, 12, 3}}});
  }
  {
    // The 3-D family and the transposed convolutions with output_padding.
    auto x = Input({6, 6, 6, 2});
    auto h = layers::Conv3D(4, 3, {.padding = "same", .activation = "relu"})(x);
    h = layers::MaxPooling3D(2)(h);
    h = layers::ZeroPadding3D({{1, 0}, {0, 1}, {1, 1}})(h);
    h = layers::Conv3DTranspose(3, 3, {.strides = {2, 1, 2}, .padding = "same",
                                       .output_padding = layers::IntTriple{1, 0, 1}})(h);
    h = layers::Cropping3D({1, 0, 2})(h);
    h = layers::AveragePooling3D(2, {.strides = layers::IntTriple{2, 1, 1}, .padding = "same"})(h);
    h = layers::UpSampling3D({1, 2, 1})(h);
    h = layers::Conv3D(3, 2, {.data_format = "channels_first", .groups = 1})(h);
    auto g = layers::Concatenate()(std::vector<KerasTensor>{layers::GlobalAveragePooling3D()(h),
                                                            layers::GlobalMaxPooling3D()(h)})[0];
    Model m(x, layers::Dense(2)(g), {.name = "conv3d_family"});
    out.push_back({"conv3d_family", m, {{2, 6, 6, 6, 2}}});
  }
  {
    auto x = Input({7, 3});
    auto h = layers::Conv1DTranspose(4, 3, {.strides = 2, .padding = "same", .output_padding = 1,
                                            .activation = "relu"})(x);
    h = layers::Conv1DTranspose(2, 2, {.data_format = "channels_first", .dilation_rate = 2})(h);
    Model m(x, layers::Dense(2)(layers::Flatten()(h)), {.name = "conv1d_transpose"});
    out.push_back({"conv1d_transpose", m, {{3, 7, 3}}});
  }
  {
    // The activation and preprocessing classes, Normalization adapted.
    auto x = Input({6, 8, 3});
    auto norm = layers::Normalization();
    norm.adapt(ramp({4, 6, 8, 3}, 0.5f));
    auto h = layers::Rescaling({0.5, 1.0, 2.0}, {.offset = 0.1})(norm(x));
    h = layers::Resizing(4, 6, {.crop_to_aspect_ratio = true})(h);
    h = layers::CenterCrop(3, 4)(h);
    h = layers::PReLU({.alpha_initializer = initializers::Constant(0.2), .shared_axes = std::vector<std::int64_t>{1, 2}})(h);
    h = layers::ReLU({.max_value = 6.0, .negative_slope = 0.1, .threshold = 0.2})(h);
    auto a = layers::LeakyReLU({.negative_slope = 0.05})(h);
    auto b = layers::ELU({.alpha = 0.5})(layers::Identity()(h));
    h = layers::Concatenate()(std::vector<KerasTensor>{a, b})[0];
    // One softmax axis: Keras 3's .h5 loader drops an axis list (its own files' too).
    Model m(x, layers::Softmax({.axis = 2})(h), {.name = "new_classes"});
    out.push_back({"new_classes", m, {{2, 6, 8, 3}}});
  }
  {
    // None spatial dims (a fully convolutional model): Keras reads the None back and runs
    // the file on images of another size too.
    auto x = Input({kUnknownDim, kUnknownDim, 3});
    auto h = layers::Conv2D(4, 3, {.strides = 2, .padding = "same", .activation = "relu"})(x);
    h = layers::MaxPooling2D(2, {.padding = "same"})(h);
    h = layers::BatchNormalization()(h);
    h = layers::UpSampling2D(2)(h);
    auto map = layers::Conv2D(2, 1)(h);
    Model m(x, std::vector<KerasTensor>{map, layers::GlobalAveragePooling2D()(h)}, {.name = "fcn_none_size"});
    out.push_back({.name = "fcn_none_size", .model = m, .input_shapes = {{2, 11, 9, 3}},
                   .other_shapes = {{3, 6, 14, 3}}});
  }
  {
    // None time steps: recurrent layers (one Bidirectional, which Keras 3 reads from the
    // .h5 since its inner layer keeps its module there) and a Reshape with -1 after the
    // None dim.
    auto x = Input({kUnknownDim, 4});
    auto h = layers::Reshape({-1, 2})(x);
    h = layers::LSTM(3, {.return_sequences = true})(h);
    h = layers::Bidirectional(layers::GRU(2))(h);
    Model m(x, layers::Dense(2)(h), {.name = "rnn_none_steps"});
    out.push_back({.name = "rnn_none_steps", .model = m, .input_shapes = {{3, 5, 4}}, .other_shapes = {{2, 8, 4}}});
  }
  {
    // keras.ops calls as saved layers: MobileNetV3's hard swish and a reduction.
    using layers::OpArgument;
    const std::string numpy = "keras.src.ops.numpy";
    auto x = Input({5, 4});
    auto shifted = layers::OpLayer("Add", numpy, {OpArgument::tensor(0), OpArgument::constant(3.0)})(x);
    auto gate = layers::OpLayer("Multiply", numpy, {OpArgument::tensor(0), OpArgument::constant(1.0 / 6)})(
        layers::ReLU({.max_value = 6.0})(shifted));
    auto swish = layers::OpLayer("Multiply", numpy, {OpArgument::tensor(0), OpArgument::tensor(1)})(
        std::vector<KerasTensor>{x, gate})[0];
    Model m(x, layers::OpLayer("Mean", numpy, {OpArgument::tensor(0)}, {{"axis", std::int64_t{-1}}, {"keepdims", false}})(swish),
            {.name = "op_layers"});
    out.push_back({"op_layers", m, {{3, 5, 4}}});
  }
  {
    // Attention with call arguments (causal; scores as a second output), the additive
    // kind, and the newer normalizations.
    auto x = Input({5, 8});
    auto q = layers::Dense(8)(x);
    auto a = layers::Attention({.use_scale = true}).call_with({q, x}, {{"use_causal_mask", true}})[0];
    auto attended = layers::Attention()({a, x}, {.return_attention_scores = true});
    auto h = layers::AdditiveAttention()({attended[0], x})[0];
    h = layers::GroupNormalization({.groups = 2})(h);
    h = layers::UnitNormalization()(h);
    auto y = layers::Dense(3)(layers::Flatten()(h));
    Model m(std::vector<KerasTensor>{x}, {y, attended[1]}, {.name = "attention"});
    out.push_back({"attention", m, {{3, 5, 8}}});
  }
  {
    // A Transformer encoder block: causal multi-head self-attention, residuals, layer
    // normalization, a feed-forward of EinsumDense layers.
    auto x = Input({6, 8});
    auto a = layers::MultiHeadAttention(2, 4, {.value_dim = 3})({x, x}, {.use_causal_mask = true})[0];
    auto h = layers::LayerNormalization({.epsilon = 1e-6})(layers::Add()({x, a})[0]);
    auto f = layers::EinsumDense("abc,cd->abd", Shape{kUnknownDim, 16}, {.activation = "relu", .bias_axes = "d"})(h);
    f = layers::EinsumDense("abc,cd->abd", Shape{kUnknownDim, 8}, {.bias_axes = "d"})(f);
    h = layers::LayerNormalization({.epsilon = 1e-6})(layers::Add()({h, f})[0]);
    Model m(x, layers::Dense(2)(layers::Flatten()(h)), {.name = "transformer"});
    out.push_back({"transformer", m, {{3, 6, 8}}});
  }
  {
    // Masks passed as tensors from the model's inputs: MultiHeadAttention's
    // attention_mask (with the causal mask) and value_mask; Attention's
    // mask=[q_mask, v_mask]; AdditiveAttention's mask=[None, v_mask].
    auto x = Input({5, 8}), v = Input({6, 8}), am = Input({5, 5}), qm = Input({5}), vm = Input({6});
    auto a = layers::MultiHeadAttention(2, 4)({x, x}, {.attention_mask = am, .use_causal_mask = true})[0];
    auto b = layers::MultiHeadAttention(2, 4)({a, v}, {.value_mask = vm})[0];
    auto c = layers::Attention({.use_scale = true})({b, v}, {.mask = {qm, vm}})[0];
    auto d = layers::AdditiveAttention()({c, v}, {.mask = {KerasTensor(), vm}})[0];
    Model m({x, v, am, qm, vm}, {layers::Dense(2)(layers::Flatten()(d))}, {.name = "attention_masks"});
    out.push_back({"attention_masks", m, {{3, 5, 8}, {3, 6, 8}, {3, 5, 5}, {3, 5}, {3, 6}},
                   {false, false, true, true, true}});
  }
  {
    // The convolutional LSTMs: every rank, channels first, strides, dilation, go_backwards,
    // the states returned, no bias.
    auto x = Input({3, 6, 6, 2});
    auto h = layers::ConvLSTM2D(3, 3, {.padding = "same", .return_sequences = true})(x);
    auto cf = layers::Permute({1, 4, 2, 3})(h);
    auto last = layers::ConvLSTM2D(2, {2, 3}, {.strides = {2, 1}, .data_format = "channels_first",
                                               .go_backwards = true})(cf);
    auto x1 = Input({4, 8, 2});
    auto seq = layers::ConvLSTM1D(3, 3, {.dilation_rate = 2, .use_bias = false, .return_sequences = true})(x1);
    auto states = layers::ConvLSTM1D(2, 2, {.padding = "same", .return_state = true})(std::vector<KerasTensor>{seq});
    auto x3 = Input({2, 3, 4, 4, 1});
    auto v = layers::ConvLSTM3D(2, 2, {.padding = "same", .recurrent_activation = "hard_sigmoid"})(x3);
    Model m({x, x1, x3}, {last, layers::Add()(std::vector<KerasTensor>{states[1], states[2]})[0], v},
            {.name = "conv_lstm"});
    out.push_back({"conv_lstm", m, {{2, 3, 6, 6, 2}, {2, 4, 8, 2}, {2, 2, 3, 4, 4, 1}}});
  }
  out.push_back(preprocessing_sample(false));
  out.push_back(preprocessing_sample(true));
  {
    // Grouped-query attention (a gate, causal), reading its query_mask from an input.
    auto x = Input({5, 8}), qm = Input({5});
    auto a = layers::GroupQueryAttention(4, 4, 2, {.use_gate = true})({x, x}, {.query_mask = qm,
                                                                            .use_causal_mask = true})[0];
    Model m({x, qm}, {layers::Dense(2)(layers::Flatten()(a))}, {.name = "group_query_attention"});
    out.push_back({"group_query_attention", m, {{3, 5, 8}, {3, 5}}, {false, true}});
  }
  {
    // A language model's tied embedding scoring its vocabulary (the reverse call), untied
    // with a soft cap; ids 0/1.
    auto ids = Input({6});
    layers::ReversibleEmbedding emb(11, 4, {.tie_weights = false, .logit_soft_cap = 2.0});
    auto h = layers::Dense(4, {.activation = "tanh"})(emb(ids));
    Model m(ids, emb.reverse(h), {.name = "reversible_embedding"});
    out.push_back({"reversible_embedding", m, {{3, 6}}, {true}});
  }
  {
    // Spectral normalization of a convolution and a Dense (two power iterations).
    auto x = Input({6, 6, 2});
    auto h = layers::SpectralNormalization(layers::Conv2D(4, 3, {.activation = "relu"}))(x);
    auto y = layers::SpectralNormalization(layers::Dense(3), {.power_iterations = 2})(layers::Flatten()(h));
    Model m(x, y, {.name = "spectral_normalization"});
    out.push_back({"spectral_normalization", m, {{3, 6, 6, 2}}});
  }
  {
    // A log spectrogram (hann, same padding, two channels) feeding a Dense.
    auto x = Input({48, 2});
    auto h = layers::STFTSpectrogram({.frame_length = 12, .frame_step = 5, .padding = "same"})(x);
    Model m(x, layers::Dense(2)(layers::Flatten()(h)), {.name = "stft_spectrogram"});
    out.push_back({"stft_spectrogram", m, {{3, 48, 2}}});
  }
  {
    // Image augmentation: AugMix and RandAugment (the identity in inference) before CLAHE,
    // on the ramp's values in [-1, 1].
    auto x = Input({8, 8, 3});
    auto h = layers::AugMix({.value_range = {-1, 1}, .num_chains = 2, .chain_depth = 2, .all_ops = false,
                             .seed = 3})(x);
    h = layers::RandAugment({.value_range = {-1, 1}, .num_ops = 1, .seed = 4})(h);
    auto y = layers::ContrastLimitedAdaptiveHistogramEqualization(
        {.value_range = {-1, 1}, .clip_limit = 3.0, .tile_grid_size = {2, 2}})(h);
    Model m(x, y, {.name = "image_augmentation"});
    out.push_back({"image_augmentation", m, {{2, 8, 8, 3}}});
  }
  {
    // Recurrent layers given initial states, in both of Strata's forms: an encoder LSTM's
    // states as the decoder LSTM's inputs after x (written as Keras 3's initial_state=[h, c])
    // and a GRU's state as its initial_state argument.
    auto enc_in = Input({5, 3}, {.name = "encoder_in"});
    auto dec_in = Input({4, 2}, {.name = "decoder_in"});
    auto enc = layers::LSTM(4, {.return_state = true, .name = "encoder"})(std::vector<KerasTensor>{enc_in});
    auto dec = layers::LSTM(4, {.return_sequences = true, .name = "decoder"})(
        std::vector<KerasTensor>{dec_in, enc[1], enc[2]})[0];
    auto gru = layers::GRU(4, {.return_sequences = true, .name = "gru"})
                   .call_with({dec, enc[1]}, {{"initial_state_0", true}})[0];
    // And a Bidirectional GRU given both directions' states as inputs after x.
    auto both = layers::Bidirectional(layers::GRU(4, {.return_sequences = true}), {.merge_mode = "sum"})(
        std::vector<KerasTensor>{gru, enc[1], enc[2]})[0];
    Model m(std::vector<KerasTensor>{enc_in, dec_in}, {layers::Dense(3)(both)}, {.name = "recurrent_initial_state"});
    out.push_back({"recurrent_initial_state", m, {{3, 5, 3}, {3, 4, 2}}});
  }
  {
    // Batch renormalization, trained a few steps here so that its five statistics have
    // moved (moving_variance derived from moving_stddev): Keras must read all seven weights.
    auto x = Input({5});
    auto h = layers::Dense(6)(x);
    h = layers::BatchNormalization({.momentum = 0.5,
                                    .renorm = true,
                                    .renorm_clipping = layers::NumberMap{{"rmax", 2.0}, {"dmax", 1.0}},
                                    .renorm_momentum = 0.6})(h);
    Model m(x, layers::Dense(2)(h), {.name = "batch_norm_renorm"});
    m.compile({.optimizer = "sgd", .loss = "mse"});
    std::vector<float> xs(40), ys(16);
    for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>((i * 7) % 11) * 0.4f - 1.f;
    for (std::size_t i = 0; i < ys.size(); ++i) ys[i] = static_cast<float>((i * 5) % 7) * 0.3f - 0.9f;
    m.fit(Tensor::from_vector<float>({8, 5}, xs), Tensor::from_vector<float>({8, 2}, ys),
          {.batch_size = 4, .epochs = 3, .verbose = 0});
    out.push_back({"batch_norm_renorm", m, {{3, 5}}});
  }
  for (const char* mode : {"int", "tf_idf", "multi_hot"}) out.push_back(text_sample(mode));
  out.push_back(lookup_tf_idf_sample());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: strata_save_samples OUTDIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  std::filesystem::create_directories(dir);
  try {
    set_random_seed(1234);
    for (auto& s : samples()) {
      std::vector<Tensor> x = s.inputs;
      for (std::size_t i = 0; i < s.input_shapes.size(); ++i) {
        const bool mask = i < s.masks.size() && s.masks[i];
        x.push_back(mask ? mask_values(s.input_shapes[i]) : ramp(s.input_shapes[i], static_cast<float>(i)));
      }
      if (s.name == "sequential_mlp") {  // one step: the files then hold optimizer state
        s.model.train_on_batch(x, {Tensor::filled({5, 3}, 1.0f / 3)});
      }
      auto y = s.model.predict(x);
      const std::string base = dir + "/" + s.name;
      if (!s.keras_only) s.model.save(base + ".h5");
      s.model.save(base + ".keras");
      std::ofstream(base + ".json") << s.model.to_json();
      for (std::size_t i = 0; i < x.size(); ++i)
        io::save_npy(base + ".input" + std::to_string(i) + ".npy", x[i]);
      for (std::size_t i = 0; i < y.size(); ++i)
        io::save_npy(base + ".output" + std::to_string(i) + ".npy", y[i]);
      if (!s.other_shapes.empty()) {
        std::vector<Tensor> other;
        for (std::size_t i = 0; i < s.other_shapes.size(); ++i) other.push_back(ramp(s.other_shapes[i], 0.3f));
        const auto other_y = s.model.predict(other);
        for (std::size_t i = 0; i < other.size(); ++i)
          io::save_npy(base + ".other.input" + std::to_string(i) + ".npy", other[i]);
        for (std::size_t i = 0; i < other_y.size(); ++i)
          io::save_npy(base + ".other.output" + std::to_string(i) + ".npy", other_y[i]);
      }
      std::cout << "wrote " << base << (s.keras_only ? ".keras\n" : ".{h5,keras}\n");
    }
  } catch (const Error& e) {
    std::cerr << "strata_save_samples: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
