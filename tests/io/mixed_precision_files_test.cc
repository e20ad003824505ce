// Keras 3 files of models under the bfloat16 and float16 dtype policies (issue #39):
// tests/data/mixed_precision/ (tests/reference/make_mixed_precision_goldens.py: Dense with
// four activations, Conv2D -> DepthwiseConv2D -> BatchNormalization -> pooling,
// LayerNormalization with merges, Embedding, a float32 output layer; each under
// mixed_bfloat16, bfloat16, mixed_float16 and float16) and tests/data/quantized/<policy>_mlp.
// They load with their policies, and Strata's emulation of the compute dtype
// (layers/dtype_policy.h: every op's inputs and outputs rounded, TensorFlow's oneDNN fusion
// rounding a bfloat16 product, bias and activation once, float32 islands where Keras makes
// them) predicts what Keras predicted on every CPU path, where float32 arithmetic on the
// same weights does not. What Keras's backend computes in steps Strata does not emulate
// yet is refused naming the layer. Strata saves them back with their policies and their
// variables in the policy's dtype (float16, or h5py's bfloat16), and reads its own files.
//
// With STRATA_MIXED_PRECISION_RESAVE_DIR set, the resave test leaves Strata's files there
// for tests/reference/check_mixed_precision_resaved.py to load in Keras.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/cpu/cpu_isa.h"
#include "core/error.h"
#include "core/precision_rounding.h"
#include "io/layer_config.h"
#include "io/npy.h"
#include "io/saving.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "strata.h"

namespace strata::mixed_precision_files_test {
namespace {

const std::string kData = std::string(STRATA_TEST_DATA) + "/";

std::string base_of(const std::string& file) { return kData + file.substr(0, file.rfind('.')); }

// The policy each layer's config names in a .keras file (the .h5 beside it has the same).
std::map<std::string, std::string> policies_in(const std::string& keras_file) {
  const auto config = nlohmann::json::parse(io::ZipReader(keras_file).read("config.json"));
  std::map<std::string, std::string> out;
  for (const auto& layer : config["config"]["layers"]) {
    if (layer["class_name"] == "InputLayer") continue;
    const auto& dtype = layer["config"]["dtype"];
    out[layer["config"]["name"]] = dtype.is_string() ? dtype.get<std::string>() : dtype["config"]["name"].get<std::string>();
  }
  return out;
}

// How many elements differ from Keras's beyond float32 rounding (4 float32 units of the
// largest output: the float32 layers of the files sum in another order), and the largest
// difference over the largest output.
struct Agreement {
  int differ = 0;
  double relative = 0;
};
Agreement compare(const Tensor& got, const Tensor& want) {
  const auto a = got.to_vector<float>(), b = want.to_vector<float>();
  double largest = 0;
  for (float v : b) largest = std::max(largest, std::fabs(double(v)));
  Agreement out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(double(a[i]) - double(b[i]));
    out.relative = std::max(out.relative, d / largest);
    if (d > 4 * 0x1p-24 * largest) ++out.differ;
  }
  return out;
}

// One unit in the last place of the policy's compute dtype, relative.
double unit_of(const std::string& policy) {
  return policy.find("bfloat16") != std::string::npos ? 0x1p-8 : 0x1p-11;
}

struct PolicyFile {
  std::string file;    // under tests/data/
  std::string policy;  // its low-precision layers'
};

std::string test_name(const ::testing::TestParamInfo<PolicyFile>& info) {
  std::string n = info.param.file.substr(info.param.file.find('/') + 1);
  for (char& ch : n) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

class MixedPrecisionFiles : public ::testing::TestWithParam<PolicyFile> {};

TEST_P(MixedPrecisionFiles, LoadWithTheirPoliciesAndPredictWhatKerasPredictsOnEveryCpuPath) {
  const PolicyFile& c = GetParam();
  const std::string keras_file = kData + c.file.substr(0, c.file.rfind('.')) + ".keras";
  Model model = models::load_model(kData + c.file);
  for (const auto& [name, policy] : policies_in(keras_file)) {
    EXPECT_EQ(model.get_layer(name).impl().dtype_policy, policy) << name;
  }
  const Tensor x = io::load_npy(base_of(c.file) + ".input0.npy");
  const Tensor want = io::load_npy(base_of(c.file) + ".output0.npy");
  // The same weights in float32 arithmetic: what the emulation must beat.
  Model in_float32 = models::load_model(kData + c.file);
  for (const Layer& layer : in_float32.layers()) layer.impl().dtype_policy = "float32";
  const Agreement plain = compare(in_float32.predict(x), want);
  std::printf("%s in float32: %d elements differ from Keras, %.3g of the largest output\n", c.file.c_str(),
              plain.differ, plain.relative);
  ASSERT_GT(plain.differ, 0) << "float32 arithmetic agrees with Keras's " << c.policy << " outputs: no test";
  for (cpu::Isa isa : cpu::supported_isas()) {
    cpu::ScopedKernelIsa path(isa);
    Model fresh = models::load_model(kData + c.file);  // programs compiled on this path
    const Agreement emulated = compare(fresh.predict(x), want);
    std::printf("%s on %s: %d elements differ from Keras, %.3g of the largest output\n", c.file.c_str(),
                cpu::isa_name(isa), emulated.differ, emulated.relative);
    // Most files bit for bit. Within one unit of the format everywhere: a float32 sum in
    // another order than TensorFlow's, or Strata's own float32 sigmoid or tanh inside a
    // fused bfloat16 product, may round the other way.
    EXPECT_LE(emulated.relative, unit_of(c.policy)) << cpu::isa_name(isa);
    EXPECT_LT(emulated.differ, plain.differ) << cpu::isa_name(isa);
    EXPECT_LT(emulated.relative, plain.relative) << cpu::isa_name(isa);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Keras3, MixedPrecisionFiles,
    ::testing::Values(PolicyFile{"quantized/mixed_bfloat16_mlp.keras", "mixed_bfloat16"},
                      PolicyFile{"quantized/mixed_bfloat16_mlp.h5", "mixed_bfloat16"},
                      PolicyFile{"quantized/bfloat16_mlp.keras", "bfloat16"},
                      PolicyFile{"quantized/float16_mlp.keras", "float16"},
                      PolicyFile{"quantized/float16_mlp.h5", "float16"},
                      PolicyFile{"mixed_precision/mixed_bfloat16_dense.keras", "mixed_bfloat16"},
                      PolicyFile{"mixed_precision/mixed_bfloat16_dense.h5", "mixed_bfloat16"},
                      PolicyFile{"mixed_precision/bfloat16_dense.keras", "bfloat16"},
                      PolicyFile{"mixed_precision/mixed_bfloat16_float32_output.keras", "mixed_bfloat16"},
                      PolicyFile{"mixed_precision/bfloat16_float32_output.keras", "bfloat16"},
                      PolicyFile{"mixed_precision/mixed_bfloat16_conv.keras", "mixed_bfloat16"},
                      PolicyFile{"mixed_precision/mixed_bfloat16_conv.h5", "mixed_bfloat16"},
                      PolicyFile{"mixed_precision/bfloat16_conv.keras", "bfloat16"},
                      PolicyFile{"mixed_precision/mixed_bfloat16_norm.keras", "mixed_bfloat16"},
                      PolicyFile{"mixed_precision/bfloat16_norm.keras", "bfloat16"},
                      PolicyFile{"mixed_precision/mixed_float16_norm.keras", "mixed_float16"},
                      PolicyFile{"mixed_precision/float16_norm.keras", "float16"},
                      PolicyFile{"mixed_precision/mixed_bfloat16_embed.keras", "mixed_bfloat16"},
                      PolicyFile{"mixed_precision/bfloat16_embed.keras", "bfloat16"},
                      PolicyFile{"mixed_precision/mixed_float16_embed.keras", "mixed_float16"},
                      PolicyFile{"mixed_precision/float16_embed.keras", "float16"}),
    test_name);

// What Keras's backend computes in steps Strata does not emulate yet: refused when the file
// loads, naming the layer (and its class or activation).
struct RefusedFile {
  std::string file, layer, what;
};

class RefusedMixedPrecisionFiles : public ::testing::TestWithParam<RefusedFile> {};

TEST_P(RefusedMixedPrecisionFiles, AreRefusedNamingTheLayer) {
  const RefusedFile& c = GetParam();
  try {
    Model model = models::load_model(kData + c.file);
    model.predict(io::load_npy(base_of(c.file) + ".input0.npy"));
    FAIL() << c.file << " loaded and predicted";
  } catch (const NotImplementedError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'" + c.layer + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.what), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Keras3, RefusedMixedPrecisionFiles,
    ::testing::Values(RefusedFile{"mixed_precision/mixed_float16_dense.keras", "dense_sigmoid", "sigmoid"},
                      RefusedFile{"mixed_precision/float16_dense.h5", "dense_sigmoid", "sigmoid"},
                      RefusedFile{"mixed_precision/float16_float32_output.keras", "dense_sigmoid", "sigmoid"},
                      RefusedFile{"mixed_precision/mixed_float16_conv.keras", "depthwise", "float16"},
                      RefusedFile{"mixed_precision/mixed_bfloat16_einsum.keras", "gelu", "Activation"},
                      RefusedFile{"mixed_precision/float16_attention.keras", "mha", "MultiHeadAttention"}),
    [](const ::testing::TestParamInfo<RefusedFile>& info) {
      std::string n = info.param.file.substr(info.param.file.find('/') + 1);
      for (char& ch : n) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// Strata -> Strata (and, with STRATA_MIXED_PRECISION_RESAVE_DIR, Strata -> Keras): the
// loaded model saved as .keras and .h5 reads back with the same policies and predictions.
TEST_P(MixedPrecisionFiles, SavedByStrataReadBackWithTheirPoliciesAndPredictions) {
  const PolicyFile& c = GetParam();
  if (c.file.find(".h5") != std::string::npos) GTEST_SKIP() << "the .keras file of the same model covers it";
  Model model = models::load_model(kData + c.file);
  const Tensor x = io::load_npy(base_of(c.file) + ".input0.npy");
  const Tensor before = model.predict(x);
  const char* keep = std::getenv("STRATA_MIXED_PRECISION_RESAVE_DIR");
  const std::filesystem::path dir =
      keep ? std::filesystem::path(keep) : std::filesystem::temp_directory_path() / "strata_mixed_precision_resave";
  std::filesystem::create_directories(dir);
  const std::string stem = (dir / std::filesystem::path(c.file).stem()).string();
  for (const std::string ext : {".keras", ".h5"}) {
    const std::string path = stem + ext;
    std::filesystem::remove(path);
    model.save(path);
    Model again = models::load_model(path);
    for (const Layer& layer : model.layers()) {
      EXPECT_EQ(again.get_layer(layer.name()).impl().dtype_policy, layer.impl().dtype_policy) << path << " " << layer.name();
    }
    const auto a = before.to_vector<float>(), b = again.predict(x).to_vector<float>();
    EXPECT_EQ(a, b) << path;
  }
}

// Keras's per-layer dtype= argument, as the options' `dtype`: the layer's policy, whatever
// the global one; the recurrent layers and AdditiveAttention, whose options become another
// struct's, keep it; a name Strata does not compute in is a ValueError; the config says it.
TEST(MixedPrecisionApi, DtypeInTheOptionsIsTheLayersPolicy) {
  struct Restore {
    ~Restore() { set_dtype_policy("float32"); }
  } restore;
  set_dtype_policy("mixed_bfloat16");
  const KerasTensor in = Input({6});
  const layers::Dense hidden(4);  // linear: its outputs are not all zeros, whatever its weights
  const layers::Dense head(3, {.name = "head", .dtype = "float32"});
  EXPECT_EQ(hidden.dtype_policy(), "mixed_bfloat16");
  EXPECT_EQ(head.dtype_policy(), "float32");
  EXPECT_EQ(layers::LSTM(2, {.dtype = "mixed_float16"}).dtype_policy(), "mixed_float16");
  EXPECT_EQ(layers::GRU(2, {.dtype = "float32"}).dtype_policy(), "float32");
  EXPECT_EQ(layers::SimpleRNN(2, {.dtype = "bfloat16"}).dtype_policy(), "bfloat16");
  EXPECT_EQ(layers::AdditiveAttention({.dtype = "float32"}).dtype_policy(), "float32");
  EXPECT_EQ(layers::Conv2D(2, 3, {.dtype = "float16"}).dtype_policy(), "float16");
  EXPECT_EQ(layers::BatchNormalization({.dtype = "float32"}).dtype_policy(), "float32");
  EXPECT_EQ(layers::Dropout(0.5).dtype_policy(), "mixed_bfloat16");  // none given: the global one
  // Every family: handles made from templated, wrapping and derived implementations alike.
  const DTypePolicyName f16 = "float16";
  for (const Layer& layer : std::vector<Layer>{
           layers::MaxPooling2D(2, {.dtype = f16}), layers::GlobalAveragePooling2D({.dtype = f16}),
           layers::MultiHeadAttention(2, 4, {.dtype = f16}), layers::Embedding(5, 3, {.dtype = f16}),
           layers::LayerNormalization({.dtype = f16}), layers::Conv2DTranspose(2, 3, {.dtype = f16}),
           layers::DepthwiseConv2D(3, {.dtype = f16}), layers::SeparableConv2D(2, 3, {.dtype = f16}),
           layers::ConvLSTM2D(2, 3, {.dtype = f16}), layers::Reshape({2, 3}, {.dtype = f16}),
           layers::TimeDistributed(layers::Dense(2), {.dtype = f16}),
           layers::Bidirectional(layers::LSTM(2), {.dtype = f16}), layers::Add({.dtype = f16}),
           layers::Concatenate(-1, {.dtype = f16}), layers::Activation("relu", {.dtype = f16}),
           layers::GroupNormalization({.dtype = f16}), layers::UpSampling2D(2, {.dtype = f16}),
           layers::Rescaling(1.0, {.dtype = f16}), layers::RandomFlip({.dtype = f16}),
           layers::GroupQueryAttention(4, 2, 2, {.dtype = f16}), layers::EinsumDense("ab,bc->ac", {4}, {.dtype = f16}),
           layers::Attention({.dtype = f16}), layers::Softmax({.dtype = f16})}) {
    EXPECT_EQ(layer.dtype_policy(), "float16") << layer.class_name();
  }
  // Hashing's and HashedCrossing's own dtype is their output's, not a policy.
  EXPECT_EQ(layers::Hashing(10).dtype_policy(), "mixed_bfloat16");
  EXPECT_EQ(layers::HashedCrossing(10, {.output_mode = "one_hot"}).dtype_policy(), "mixed_bfloat16");
  // Wrapping an implementation again (a Bidirectional's sublayers) leaves its policy alone,
  // and both directions compute as the layer given.
  const layers::Bidirectional both(layers::LSTM(2, {.dtype = "float32"}));
  for (int round = 0; round < 2; ++round) {
    for (const Layer& direction : both.impl().sublayers()) EXPECT_EQ(direction.dtype_policy(), "float32");
  }
  EXPECT_THROW_WITH(layers::Dense(2, {.name = "d64", .dtype = "float64"}), ValueError, "d64", "float64");
  set_dtype_policy("float32");
  // Keras's guide: a float32 output layer under a mixed policy; its outputs are not rounded.
  const KerasTensor h = hidden(in);
  Model model(in, head(h));
  Tensor x(Shape{2, 6});
  for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = 0.37f * float(i) - 1.1f;
  for (float v : Model(in, h).predict(x).to_vector<float>()) EXPECT_EQ(v, round_to_bfloat16(v)) << v;
  bool any_unrounded = false;
  for (float v : model.predict(x).to_vector<float>()) any_unrounded = any_unrounded || v != round_to_bfloat16(v);
  EXPECT_TRUE(any_unrounded) << "the float32 head's outputs are all bfloat16 values";
  EXPECT_NE(io::layer_config(head).dump().find("float32"), std::string::npos) << io::layer_config(head).dump();
  EXPECT_NE(io::layer_config(hidden).dump().find("mixed_bfloat16"), std::string::npos);
  // Keras passes a layer's policy on to the layers it makes: under a global "bfloat16"
  // (which stores weights in bfloat16), attention layers given "float32" keep their
  // projections' weights in float32 (they were made under the global policy before).
  set_dtype_policy("bfloat16");
  const KerasTensor seq = Input({3, 8});
  const layers::MultiHeadAttention mha(2, 4, {.dtype = "float32"});
  const layers::GroupQueryAttention gqa(4, 2, 1, {.dtype = "float32"});
  mha({seq, seq});
  gqa({seq, seq});
  set_dtype_policy("float32");
  for (const Layer* layer : {static_cast<const Layer*>(&mha), static_cast<const Layer*>(&gqa)}) {
    ASSERT_FALSE(layer->weights().empty());
    for (const Variable& w : layer->weights()) EXPECT_EQ(w.stored_as(), Variable::Stored::own) << w.path();
  }
}

TEST(MixedPrecisionApi, SetDtypePolicyMakesLayersComputeInItAndOtherClassesAreRefused) {
  struct Restore {
    ~Restore() { set_dtype_policy("float32"); }
  } restore;
  set_dtype_policy("mixed_bfloat16");
  EXPECT_EQ(global_dtype_policy(), "mixed_bfloat16");
  const KerasTensor in = Input({6});
  const layers::Dense dense(4, {.activation = "relu"});
  const KerasTensor h = dense(in);
  set_dtype_policy("float32");
  Model model(in, layers::Dense(3)(h));
  EXPECT_EQ(dense.impl().dtype_policy, "mixed_bfloat16");
  // Its weights stay float32 (a mixed policy); its outputs are bfloat16 values.
  EXPECT_EQ(dense.impl().weights[0].stored_as(), Variable::Stored::own);
  Tensor x(Shape{2, 6});
  for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = 0.37f * float(i) - 1.1f;
  Model hidden(in, h);
  for (float v : hidden.predict(x).to_vector<float>()) EXPECT_EQ(v, round_to_bfloat16(v)) << v;
  EXPECT_THROW(set_dtype_policy("float64"), ValueError);
  // Keras's guide: a float32 output layer under a mixed global policy, by the layer's setter.
  set_dtype_policy("mixed_float16");
  const layers::Dense head(3);
  head.set_dtype_policy("float32");
  set_dtype_policy("float32");
  EXPECT_EQ(head.dtype_policy(), "float32");
  EXPECT_THROW(head.set_dtype_policy("int8"), ValueError);
  Model with_head(in, head(h));
  bool any_unrounded = false;
  for (float v : with_head.predict(x).to_vector<float>()) any_unrounded = any_unrounded || v != round_to_bfloat16(v);
  EXPECT_TRUE(any_unrounded) << "the float32 head's outputs are all bfloat16 values";
  set_dtype_policy("float16");
  const layers::Dense pure(2);
  EXPECT_EQ(pure.impl().weights.size(), 0u);
  const KerasTensor y = pure(in);  // built: its weights are float16 values, stored so
  for (const Variable& v : pure.impl().weights) {
    EXPECT_EQ(v.stored_as(), Variable::Stored::float16);
    for (float w : v.value().to_vector<float>()) EXPECT_EQ(w, round_to_float16(w));
  }
  // A mixed policy trains (tests/io/mixed_precision_training_test.cc checks how).
  Model mixed = models::load_model(kData + "quantized/mixed_bfloat16_mlp.keras");
  mixed.compile({.optimizer = optimizers::SGD(), .loss = losses::MeanSquaredError()});
  const Tensor features = io::load_npy(kData + "quantized/mixed_bfloat16_mlp.input0.npy");
  const Tensor targets = mixed.predict(features);
  EXPECT_NO_THROW(mixed.fit(features, targets, {.epochs = 1, .verbose = 0}));
  try {
    layers::LSTM(4)(Input({3, 2}));
    ADD_FAILURE() << "an LSTM under float16 was built";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("float16"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::mixed_precision_files_test
