// keras.ops operations saved by Keras 3.15.1 (tests/reference/make_keras_ops_goldens.py):
// issue #38's two models (a causal Transformer block whose positions and mask come from
// Cumsum and OnesLike, a masked mean whose mask comes from Any and NotEqual) load from
// Keras's .keras and .h5 files and predict what Keras predicted, as do Strata's .keras
// files of them; and one small model per operation case (tests/data/keras_ops_golden.json)
// predicts Keras's output within 1e-5, loads back the same from Strata's file, and its
// operation gives Keras's gradients of sum(output · projection) with respect to its inputs.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <tuple>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/program.h"
#include "io/model_config.h"
#include "io/op_layer_config.h"
#include "io/zip.h"
#include "layers/core/input_layer.h"
#include "tests/io/keras_test_util.h"
#include "tests/layers/golden_json.h"

namespace strata::keras_ops_test {
namespace {

using nlohmann::ordered_json;
using testing::golden_file;
using testing::golden_near;
using testing::golden_tensor;

const std::string kDir = std::string(STRATA_TEST_DATA) + "/keras_ops/";

// The cases of make_keras_ops_goldens.py, then make_keras_ops_more_goldens.py's,
// make_keras_signal_ops_goldens.py's, make_keras_ops_misc_goldens.py's,
// make_keras_ops_linalg_goldens.py's, make_keras_ops_grids_goldens.py's,
// make_keras_ops_integer_goldens.py's, make_keras_ops_resampling_goldens.py's,
// make_keras_ops_ctc_goldens.py's, make_keras_odd_fft_goldens.py's and
// make_keras_ops_fixed_batch_goldens.py's (whose inputs have a fixed batch size) and
// make_keras_ops_eager_only_goldens.py's (models Keras saves but cannot call: their outputs
// and gradients are the keras.ops functions' called eagerly), and make_keras_ops_eig_goldens.py's.
const ordered_json& cases() {
  static const ordered_json all = [] {
    ordered_json joined = ordered_json::array();
    for (const char* file : {"keras_ops_golden.json", "keras_ops_more_golden.json", "keras_signal_ops_golden.json",
                              "keras_ops_misc_golden.json", "keras_ops_linalg_golden.json",
                              "keras_ops_grids_golden.json", "keras_ops_integer_golden.json",
                              "keras_ops_resampling_golden.json", "keras_ops_ctc_golden.json", "keras_ops_ctc_beam_golden.json", "keras_ops_data_sized_golden.json", "keras_ops_scatter_update_golden.json", "keras_ops_batch_axis_golden.json", "keras_ops_map_coordinates_golden.json",
                              "keras_ops_odd_fft_golden.json", "keras_ops_fixed_batch_golden.json",
                              "keras_ops_eager_only_golden.json", "keras_ops_eig_golden.json"})
      for (const auto& c : golden_file(file).at("cases")) joined.push_back(c);
    return joined;
  }();
  return all;
}

const ordered_json& case_named(const std::string& name) {
  for (const auto& c : cases())
    if (c.at("name") == name) return c;
  throw std::runtime_error("no keras_ops case " + name);
}

class IssueModel : public ::testing::TestWithParam<std::string> {};

TEST_P(IssueModel, LoadsFromKerasFilesAndPredictsAsKeras) {
  testing::expect_keras_files_predict_golden(kDir, GetParam());
}

TEST_P(IssueModel, SavedAsKerasByStrataLoadsBackTheSame) {
  testing::ScratchDir scratch;
  for (const std::string from : {".keras", ".h5"}) {
    Model model = models::load_model(kDir + GetParam() + from);
    model.save(scratch.file("again.keras"));
    Model again = models::load_model(scratch.file("again.keras"));
    testing::expect_predicts_golden(again, kDir + GetParam(), "Strata's " + GetParam() + ".keras (from " + from + ")");
  }
}

TEST_P(IssueModel, SavingAsH5NamesTheOperationWithoutATfKerasForm) {
  // tf.keras has no TFOpLambda for cumsum or any here; Keras 3's own .h5 of these models
  // does not load back in Keras 3.15.1 either ("Unknown layer: 'OnesLike'").
  testing::ScratchDir scratch;
  Model model = models::load_model(kDir + GetParam() + ".keras");
  try {
    model.save(scratch.file("again.h5"));
    FAIL() << GetParam() << " saved as .h5";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("save the model as .keras"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Issue38, IssueModel, ::testing::Values("causal_transformer", "masked_mean"));

std::vector<Tensor> inputs_of(const ordered_json& c) {
  std::vector<Tensor> xs;
  for (const auto& in : c.at("inputs")) {
    if (in.value("dtype", "") != "int32") {
      xs.push_back(golden_tensor(in));
      continue;
    }
    const Shape shape(in.at("shape").get<std::vector<std::int64_t>>());
    xs.push_back(Tensor::from_vector<std::int32_t>(shape, in.at("values").get<std::vector<std::int32_t>>()));
  }
  return xs;
}

// An integer output element by element against Keras's (golden_near reads values as floats,
// which round integers above 2^24 together).
::testing::AssertionResult integers_equal(const Tensor& y, const ordered_json& expected, const std::string& what) {
  if (y.dtype() != DType::int32 && y.dtype() != DType::int64)
    return ::testing::AssertionFailure() << what << ": dtype " << to_string(y.dtype()) << ", Keras's is an integer";
  const auto values = expected.at("values").get<std::vector<std::int64_t>>();
  if (static_cast<std::int64_t>(values.size()) != y.size())
    return ::testing::AssertionFailure() << what << ": " << y.size() << " elements, Keras " << values.size();
  for (std::int64_t i = 0; i < y.size(); ++i) {
    const std::int64_t v = y.dtype() == DType::int32 ? y.data<std::int32_t>()[i] : y.data<std::int64_t>()[i];
    if (v != values[static_cast<std::size_t>(i)])
      return ::testing::AssertionFailure() << what << ": element " << i << " is " << v << ", Keras "
                                           << values[static_cast<std::size_t>(i)];
  }
  return ::testing::AssertionSuccess();
}

// One batch (the case's two samples), as Keras's model(x): outer, ravel and vstack mix the
// samples, which predict's batches cannot.
Tensor predict(Model& model, const std::vector<Tensor>& xs) {
  return xs.size() == 1 ? model.predict_on_batch(xs[0]) : model.predict_on_batch(xs)[0];
}

// An operation entry as Keras 3.15 saves it: `op` of module keras.src.ops.numpy called on
// one (None, 3, 4) tensor named "x", with `config` and the call's `kwargs`.
using nlohmann::json;

json op_entry(const std::string& op, json config, json kwargs = json::object()) {
  config["name"] = "op";
  const json history = {"x", 0, 0};
  const json x = {{"class_name", "__keras_tensor__"},
                  {"config", {{"shape", {nullptr, 3, 4}}, {"dtype", "float32"}, {"keras_history", history}}}};
  return {{"module", "keras.src.ops.numpy"},
          {"class_name", op},
          {"config", config},
          {"inbound_nodes", {{{"args", {x}}, {"kwargs", kwargs}}}}};
}

// Builds the entry's operation on a (None, 3, 4) input; the error it throws, or "".
std::string refusal_of(const json& entry) {
  try {
    Layer op = io::op_layer_from_entry(entry, {});
    op(Input({3, 4}));
  } catch (const NotImplementedError& e) {
    return e.what();
  }
  return "";
}

// The complex results Strata holds as (real, imag) pairs (Polar's, ViewAsComplex's and Eig's)
// are for view_as_real only: Keras's model with any other reader of one (Real here), or with
// one as its output, is refused naming both.
TEST(OperationCases, ComplexResultsAreReadOnlyByViewAsReal) {
  const std::vector<std::tuple<std::string, std::string, std::string>> files = {
      {"misc/polar_view_as_real.keras", "polar", "Polar 'polar'"},
      {"eager_only/view_as_complex_as_real.keras", "view_as_complex", "ViewAsComplex 'view_as_complex'"},
      {"eig/eig_values.keras", "eig", "Eig 'eig'"}};
  for (const auto& [file, producer, named] : files) {
    const json config = json::parse(io::ZipReader(kDir + file).read("config.json"));
    EXPECT_NO_THROW(io::model_from_config(config)) << file;
    json read_by_real = config;
    for (auto& layer : read_by_real["config"]["layers"]) {
      if (layer["class_name"] == "ViewAsReal") layer["class_name"] = "Real";
    }
    EXPECT_THROW_WITH(io::model_from_config(read_by_real), NotImplementedError, "Real 'view_as_real'", named,
                      "no complex dtype");
    json as_output = config;
    auto& layers = as_output["config"]["layers"];
    for (std::size_t i = 0; i < layers.size(); ++i) {
      if (layers[i]["class_name"] == "ViewAsReal") layers.erase(i);
    }
    as_output["config"]["output_layers"] = json::array({json::array({producer, 0, 0})});
    EXPECT_THROW_WITH(io::model_from_config(as_output), NotImplementedError, "the model's output", named);
  }
}

// A Rearrange entry as Keras 3.15 saves it: the pattern a string argument after the tensor,
// the axes' lengths the call's keyword arguments.
json rearrange_entry(const std::string& pattern, json lengths = json::object()) {
  const json history = {"x", 0, 0};
  const json x = {{"class_name", "__keras_tensor__"},
                  {"config", {{"shape", {2, 6, 4}}, {"dtype", "float32"}, {"keras_history", history}}}};
  return {{"module", "keras.src.ops.einops"},
          {"class_name", "Rearrange"},
          {"config", {{"name", "op"}}},
          {"inbound_nodes", {{{"args", {x, pattern}}, {"kwargs", lengths}}}}};
}

// What Keras's rearrange skips or fails on later is refused when the model is defined, naming
// the pattern and why.
TEST(OperationCases, RearrangePatternsKerasCannotComputeAreRefusedNamingThem) {
  const std::vector<std::tuple<std::string, json, std::string>> refused = {
      {"b h w", json::object(), "needs one '->'"},
      {"b h -> h b", json::object(), "names 2 axes for an input (2, 6, 4)"},
      {"b h w -> b w", json::object(), "each of the input's axes"},
      {"b h w -> b w h h", json::object(), "named twice in the output"},
      {"b h h -> b h h", json::object(), "named twice in the input"},
      {"b ... -> b ...", json::object(), "'.' is not read"},
      {"b (h w -> b h w", json::object(), "not closed"},
      {"b () w -> b w", json::object(), "empty group"},
      {"b (h w) c -> b h w c", json::object(), "'h' and 'w' of one group have no length"},
      {"b (h w) c -> b h w c", {{"h", 4}}, "does not divide by 4"},
      {"b (h w) c -> b h w c", {{"h", 2}, {"w", 2}}, "multiply to 4, not axis 1's 6"},
      {"b (h w) c -> b h w c", {{"h", 0}}, "the length of 'h' must be a positive integer, got 0"},
      {"b (h w) c -> b h w c", {{"h", std::int64_t{1} << 40}, {"w", std::int64_t{1} << 40}}, "overflow"},
  };
  for (const auto& [pattern, lengths, says] : refused) {
    EXPECT_THROW_WITH(
        {
          Layer op = io::op_layer_from_entry(rearrange_entry(pattern, lengths), {});
          op(Input({6, 4}, {.batch_size = 2}));
        },
        ValueError, "Rearrange 'op'", "pattern '" + pattern + "'", says);
  }
}

// Keras 3.15 computes rearrange only with a fixed batch size (its shape computation multiplies
// the sizes); Strata also reads a pattern over a batch of any size, the batch axis being the
// one of unknown size.
TEST(OperationCases, RearrangeTakesABatchOfAnySize) {
  Layer op = io::op_layer_from_entry(rearrange_entry("b (h w) c -> b c h w", {{"w", 3}}), {});
  const KerasTensor x = Input({6, 4});
  Model model(x, op(x));
  EXPECT_EQ(model.outputs()[0].shape(), Shape({kUnknownDim, 4, 2, 3}));
  for (std::int64_t batch : {1, 3}) {
    std::vector<float> values(static_cast<std::size_t>(batch * 24));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
    const Tensor y = model.predict_on_batch(Tensor::from_vector(Shape{batch, 6, 4}, values));
    ASSERT_EQ(y.shape(), Shape({batch, 4, 2, 3}));
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t ch = 0; ch < 4; ++ch)
        for (std::int64_t h = 0; h < 2; ++h)
          for (std::int64_t w = 0; w < 3; ++w)
            EXPECT_EQ(y.data<float>()[((b * 4 + ch) * 2 + h) * 3 + w], values[(b * 6 + h * 3 + w) * 4 + ch]);
  }
}

// correlate and lu_factor need what Keras's TensorFlow backend needs: known lengths, one matrix.
TEST(OperationCases, CorrelateAndLuFactorNeedWhatKerasNeeds) {
  const json history = {"x", 0, 0};
  const json vector = {{"class_name", "__keras_tensor__"},
                       {"config", {{"shape", {nullptr}}, {"dtype", "float32"}, {"keras_history", history}}}};
  const json correlate = {{"module", "keras.src.ops.numpy"},
                          {"class_name", "Correlate"},
                          {"config", {{"name", "op"}, {"mode", "full"}}},
                          {"inbound_nodes", {{{"args", {vector, vector}}, {"kwargs", json::object()}}}}};
  EXPECT_THROW_WITH(
      {
        Layer op = io::op_layer_from_entry(correlate, {});
        const KerasTensor x = Input(Shape{});
        op({x, x});
      },
      ValueError, "Correlate 'op'", "needs the vectors' lengths", "fixed batch");
  json lu = op_entry("LuFactor", json::object());
  lu["module"] = "keras.src.ops.linalg";
  EXPECT_THROW_WITH(
      {
        Layer op = io::op_layer_from_entry(lu, {});
        op(Input({3, 3}, {.batch_size = 2}));
      },
      ValueError, "LuFactor 'op'", "expects one matrix (n, n)");
}

// scatter's index outside its shape is an error when the model runs on the CPU, naming the
// row, as TensorFlow's CPU kernel raises (its GPU kernel drops the row, as Strata's CUDA path).
TEST(OperationCases, ScatterRefusesAnIndexOutsideItsShapeWhenItRuns) {
  Model model = models::load_model(kDir + "misc/scatter.keras", {.compile = false});
  const Tensor values = Tensor::from_vector<float>({2}, {1.f, 2.f});
  const Tensor inside = Tensor::from_vector<std::int32_t>({2, 2}, {2, 3, 0, 0});
  const Tensor y = model.predict_on_batch(std::vector<Tensor>{inside, values})[0];
  EXPECT_EQ(y.data<float>()[11], 1.f);
  EXPECT_EQ(y.data<float>()[0], 2.f);
  const Tensor outside = Tensor::from_vector<std::int32_t>({2, 2}, {2, 3, 3, 0});
  EXPECT_THROW_WITH(model.predict_on_batch(std::vector<Tensor>{outside, values}), ValueError, "index row 1 [3, 0]",
                    "does not index into (3, 4)");
}

TEST(OperationCases, PlannedOperationsAreRefusedByName) {
  for (const std::string op : {"Argpartition"}) {
    EXPECT_NE(refusal_of(op_entry(op, {{"axis", -1}})).find("operation '" + op + "'"), std::string::npos) << op;
  }
}

TEST(OperationCases, ArgumentsNotComputedAreRefusedNamingThem) {
  const std::vector<std::pair<json, std::string>> refused = {
      {op_entry("Pad", {{"pad_width", {{1, 0}, {0, 0}, {0, 0}}}, {"mode", "constant"}}), "pad_width"},
      {op_entry("Pad", {{"pad_width", {{0, 0}, {3, 0}, {0, 0}}}, {"mode", "reflect"}}), "reflect pads at most 2"},
      {op_entry("Pad", {{"pad_width", {{0, 0}, {1, 0}, {0, 0}}}, {"mode", "reflect"}}, {{"constant_values", 1.0}}),
       "mode"},
      {op_entry("Pad", {{"pad_width", {{0, 0}, {1, 0}, {0, 0}}}, {"mode", "edge"}}), "mode='edge'"},
      {op_entry("Einsum", {{"subscripts", "...ij->...ji"}}), "ellipsis"},
      {op_entry("Split", {{"indices_or_sections", 3}, {"axis", -1}}), "divides"},
      {op_entry("Split", {{"indices_or_sections", {1}}, {"axis", 0}}), "only a count of equal parts"},
      {op_entry("Split", {{"indices_or_sections", {3, 1}}, {"axis", -1}}), "increasing order"},
      {op_entry("Normalize", {{"axis", -1}, {"order", 3}, {"epsilon", nullptr}}), "order"},
      {op_entry("ConvertToTensor", {{"dtype", nullptr}, {"sparse", nullptr}, {"ragged", true}}), "ragged"},
      {op_entry("ElasticTransform", {{"alpha", 20.0}, {"sigma", 5.0}, {"seed", nullptr}}), "seed=None"},
      {op_entry("Copy", {}, {{"order", "C"}}), "keyword argument order"},
      {op_entry("Rot90", {{"k", 1}, {"axes", {0, 1}}}), "axes"},
      {op_entry("TopK", {{"k", 2}, {"sorted", false}}), "sorted=False"},
      {op_entry("TopK", {{"k", 5}, {"sorted", true}}), "k=5"},
      {op_entry("Sort", {{"axis", nullptr}}), "axis=None"},
      {op_entry("Rot90", {{"k", 2}, {"axes", {1, 2}}}), "k=2"},
      {op_entry("Quantile", {{"axis", -1}, {"method", "lower"}, {"keepdims", false}}), "method='lower'"},
      {op_entry("Median", {{"axis", nullptr}, {"keepdims", false}}), "axis=None"},
      {op_entry("Norm", {{"ord", 3}, {"axis", {1, 2}}, {"keepdims", false}}), "ord=3"},
      {op_entry("Norm", {{"ord", 2}, {"axis", nullptr}, {"keepdims", false}}), "axis=None"},
      {op_entry("Nanargmax", {{"axis", nullptr}, {"keepdims", false}}), "axis=None"},
      {op_entry("Trapezoid", {{"x", 1.0}, {"dx", 1.0}, {"axis", -1}}), "x=1"},
      {op_entry("Append", {{"axis", nullptr}}), "axis=None"},
      {op_entry("Nanmedian", {{"axis", nullptr}, {"keepdims", false}}), "axis=None"},
      {op_entry("Cross", {{"axisa", 1}, {"axisb", -1}, {"axisc", -1}, {"axis", nullptr}}), "axisa=1"},
      {op_entry("MaxPool", {{"pool_size", 2}, {"strides", nullptr}, {"padding", "causal"}, {"data_format", nullptr}}),
       "padding='causal'"},
      {op_entry("AveragePool", {{"pool_size", 2}, {"padding", "valid"}, {"data_format", "channels_middle"}}),
       "data_format='channels_middle'"},
      {op_entry("RGBToHSV", {{"data_format", nullptr}}), "a batch of images, rank 4"},
      {op_entry("SaturateCast", {{"dtype", "uint8"}}), "dtype='uint8'"},
      {op_entry("Corrcoef", json::object()), "corrcoef of (None, 3, 4)"},
      {op_entry("DotProductAttention", {{"is_causal", false}, {"flash_attention", true}}), "flash_attention=True"},
      {op_entry("DotProductAttention", {{"is_causal", false}, {"attn_logits_soft_cap", 50.0}}),
       "attn_logits_soft_cap=50"},
      {op_entry("STFT", {{"sequence_length", 2}, {"sequence_stride", 1}, {"fft_length", 2}, {"window", "kaiser"},
                         {"center", false}}),
       "window='kaiser'"},
      {op_entry("DotProductAttention", {{"is_causal", false}},
                json{{"mask", json{{"class_name", "__keras_tensor__"},
                                   {"config", json{{"keras_history", json::array({"m", 0, 0})}}}}}}),
       "keyword argument mask given a tensor"},
  };
  for (const auto& [entry, key] : refused) {
    const std::string message = refusal_of(entry);
    EXPECT_NE(message.find(key), std::string::npos) << entry.dump() << "\n  " << message;
    EXPECT_NE(message.find("'op'"), std::string::npos) << message;
  }
}

// An entry whose call takes the tensors `args` (JSON, Keras tensors named by op_entry's "x"), built
// on inputs of the given shapes (after the batch axis); the NotImplementedError it throws, or "".
// `args` is spelled json::array(...): a braced {x} is an array under GCC and a copy of x under Clang.
std::string refusal_on(const std::string& op, json config, json args, const std::vector<Shape>& shapes) {
  config["name"] = "op";
  const json entry = {{"module", "keras.src.ops.numpy"},
                      {"class_name", op},
                      {"config", config},
                      {"inbound_nodes", {{{"args", args}, {"kwargs", json::object()}}}}};
  try {
    Layer layer = io::op_layer_from_entry(entry, {});
    std::vector<KerasTensor> inputs;
    for (const Shape& s : shapes) inputs.push_back(Input(s));
    layer(inputs);
  } catch (const NotImplementedError& e) {
    return e.what();
  }
  return "";
}

json keras_tensor(const std::string& layer) {
  return {{"class_name", "__keras_tensor__"}, {"config", {{"keras_history", {layer, 0, 0}}}}};
}

TEST(OperationCases, ImageSignalAndIndexOperationsRefuseWhatTheyDoNotCompute) {
  const json x = keras_tensor("x"), y = keras_tensor("y");
  const std::string vander = refusal_on("Vander", {{"N", nullptr}, {"increasing", false}}, json::array({x}), {Shape{}});
  EXPECT_NE(vander.find("N=None"), std::string::npos) << vander;
  const std::string ssim = refusal_on("SSIM", {{"max_val", 1.0}}, json::array({x, y}), {Shape{8, 8}, Shape{8, 8}});
  EXPECT_NE(ssim.find("rank 4"), std::string::npos) << ssim;
  const json istft = {{"sequence_length", 7}, {"sequence_stride", 2}, {"fft_length", 8}, {"window", "hann"},
                      {"center", true}, {"length", nullptr}};
  json valued = istft;
  valued["window"] = json::array({0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5});
  const std::string window =
      refusal_on("ISTFT", valued, json::array({json::array({x, y})}), {Shape{5, 5}, Shape{5, 5}});
  EXPECT_NE(window.find("window"), std::string::npos) << window;
  const json corners = {{"class_name", "__numpy__"},
                        {"config", {{"value", {{0.0, 0.0}, {7.0, 0.0}, {0.0, 7.0}, {7.0, 7.0}}}, {"dtype", "float32"}}}};
  const std::string bicubic = refusal_on("PerspectiveTransform", {{"interpolation", "bicubic"}, {"fill_value", 0}},
                                         json::array({x, corners, corners}), {Shape{8, 8, 3}});
  EXPECT_NE(bicubic.find("interpolation='bicubic'"), std::string::npos) << bicubic;
  const std::string one_image = refusal_on("PerspectiveTransform", {{"interpolation", "bilinear"}},
                                           json::array({x, corners, corners}), {Shape{8, 3}});
  EXPECT_NE(one_image.find("rank 4"), std::string::npos) << one_image;
  const auto numpy = [](std::vector<double> v) {
    return json{{"class_name", "__numpy__"}, {"config", {{"value", v}, {"dtype", "float32"}}}};
  };
  const json resample = {{"spatial_dims", {1, 2}}, {"method", "bilinear"}, {"antialias", true}};
  const json shape = json::array({nullptr, 4, 4, 3});
  const std::string from_tensor = refusal_on("ScaleAndTranslate", resample, json::array({x, shape, y, numpy({0, 0})}),
                                             {Shape{8, 8, 3}, Shape{2}});
  EXPECT_NE(from_tensor.find("scale from a tensor"), std::string::npos) << from_tensor;
  json gaussian = resample;
  gaussian["method"] = "gaussian";
  const std::string method = refusal_on("ScaleAndTranslate", gaussian,
                                        json::array({x, shape, numpy({0.5, 0.5}), numpy({0, 0})}), {Shape{8, 8, 3}});
  EXPECT_NE(method.find("method='gaussian'"), std::string::npos) << method;
  // Keras's beam search slices an empty column for mask_index -1 and decodes twice the classes.
  const json beam = {{"strategy", "beam_search"}, {"beam_width", 100}, {"top_paths", 1}, {"merge_repeated", true},
                    {"mask_index", -1}};
  const std::string last_blank = refusal_on("CTCDecode", beam, json::array({x, y}), {Shape{8, 5}, Shape{}});
  EXPECT_NE(last_blank.find("mask_index=-1"), std::string::npos) << last_blank;
  json prefix = beam;
  prefix["strategy"] = "prefix_search";
  const std::string strategy = refusal_on("CTCDecode", prefix, json::array({x, y}), {Shape{8, 5}, Shape{}});
  EXPECT_NE(strategy.find("strategy='prefix_search'"), std::string::npos) << strategy;
  const std::string segments =
      refusal_on("SegmentProd", {{"num_segments", nullptr}, {"sorted", false}}, json::array({x, y}), {Shape{3}, {}});
  EXPECT_NE(segments.find("num_segments=None"), std::string::npos) << segments;
}

TEST(OperationCases, SpacesAndGridsRefuseWhatTheyDoNotCompute) {
  const json x = keras_tensor("x"), y = keras_tensor("y");
  const json both = json::array({x, y});
  const std::vector<Shape> shapes{Shape{3}, Shape{3}};
  const json linspace = {{"num", 5}, {"endpoint", true}, {"retstep", false}, {"dtype", nullptr}, {"axis", 0}};
  auto with = [](json config, const std::string& key, json value) {
    config[key] = std::move(value);
    return config;
  };
  const std::vector<std::tuple<std::string, json, json, std::vector<Shape>, std::string>> refused = {
      {"Linspace", with(linspace, "retstep", true), both, shapes, "retstep=True"},
      {"Linspace", with(linspace, "dtype", "int32"), both, shapes, "dtype='int32'"},
      {"Linspace", with(linspace, "num", 0), both, shapes, "num=0"},
      {"Logspace", {{"num", 5}, {"endpoint", true}, {"base", -2.0}, {"dtype", nullptr}, {"axis", 0}}, both, shapes,
       "base=-2"},
      // start's signs line up with the samples only when their axis comes before start's axes
      {"Geomspace", with(linspace, "axis", -1), both, shapes, "axis=-1"},
      {"Geomspace", with(linspace, "axis", 1), both, shapes, "axis=1"},
      {"Meshgrid", {{"indexing", "yx"}}, both, {Shape{}, Shape{}}, "indexing='yx'"},
      {"Meshgrid", {{"indexing", "xy"}}, both, {Shape{}, Shape{}}, ""},
  };
  for (const auto& [op, config, args, in, key] : refused) {
    const std::string message = refusal_on(op, config, args, in);
    if (key.empty()) {
      EXPECT_EQ(message, "") << op << " " << config.dump();
      continue;
    }
    EXPECT_NE(message.find(key), std::string::npos) << op << " " << config.dump() << "\n  " << message;
    EXPECT_NE(message.find(op + " 'op'"), std::string::npos) << message;
  }
  // a scalar start's sign lines up on any axis
  EXPECT_EQ(refusal_on("Geomspace", with(linspace, "axis", -1), json::array({2.0, x}), {Shape{3}}), "");
}

// Meshgrid's inputs are broadcast in float32: integer inputs are refused, naming the input.
TEST(OperationCases, MeshgridRefusesIntegerInputs) {
  json config = {{"indexing", "ij"}, {"name", "op"}};
  const json entry = {{"module", "keras.src.ops.numpy"},
                      {"class_name", "Meshgrid"},
                      {"config", config},
                      {"inbound_nodes", {{{"args", json::array({keras_tensor("x"), keras_tensor("y")})},
                                          {"kwargs", json::object()}}}}};
  Layer layer = io::op_layer_from_entry(entry, {});
  try {
    layer(std::vector<KerasTensor>{Input(Shape{}), Input(Shape{}, {.dtype = DType::int32})});
    FAIL() << "an int32 input was broadcast";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("input 1 of dtype int32"), std::string::npos) << e.what();
  }
}

// The integer operations take integers: a float operand, which Keras's TensorFlow backend
// fails on when the model runs, is refused when it is built, naming the operation, the
// argument and its dtype or value; so is a Python int shift that x's dtype does not hold.
TEST(OperationCases, IntegerOperationsRefuseFloatOperands) {
  const json x = keras_tensor("x"), y = keras_tensor("y");
  auto numpy = [](json values, const std::string& dtype) {
    return json{{"class_name", "__numpy__"}, {"config", {{"value", std::move(values)}, {"dtype", dtype}}}};
  };
  const std::vector<std::tuple<std::string, json, std::vector<DType>, std::string>> refused = {
      {"BitwiseAnd", json::array({x, y}), {DType::float32, DType::int32}, "input 0 has dtype float32"},
      {"Gcd", json::array({x, y}), {DType::int64, DType::float32}, "input 1 has dtype float32"},
      {"BitwiseNot", json::array({x}), {DType::float32}, "input 0 has dtype float32"},
      {"Lcm", json::array({x, numpy({1.5, 2.0, 3.0}, "float32")}), {DType::int32}, "dtype float32"},
      {"BitwiseOr", json::array({x, numpy({1, 2, 3}, "uint8")}), {DType::int32}, "dtype uint8"},
      {"Lcm", json::array({x, 2.5}), {DType::int32}, "holds 2.5"},
      {"LeftShift", json::array({x, 1099511627776LL}), {DType::int32}, "which int32 does not hold"},
  };
  for (const auto& [op, args, dtypes, key] : refused) {
    const json entry = {{"module", "keras.src.ops.numpy"},
                        {"class_name", op},
                        {"config", {{"name", "op"}}},
                        {"inbound_nodes", {{{"args", args}, {"kwargs", json::object()}}}}};
    std::vector<KerasTensor> inputs;
    for (DType dtype : dtypes) inputs.push_back(Input(Shape{3}, {.dtype = dtype}));
    try {
      Layer layer = io::op_layer_from_entry(entry, {});
      layer(inputs);
      ADD_FAILURE() << op << " " << args.dump() << " was built";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << op << "\n  " << e.what();
      EXPECT_NE(std::string(e.what()).find(op + " 'op'"), std::string::npos) << e.what();
    }
  }
  // a Python int shift that int64 holds is x's dtype
  const json entry = {{"module", "keras.src.ops.numpy"},
                      {"class_name", "LeftShift"},
                      {"config", {{"name", "op"}}},
                      {"inbound_nodes", {{{"args", json::array({x, 40})}, {"kwargs", json::object()}}}}};
  Layer layer = io::op_layer_from_entry(entry, {});
  EXPECT_EQ(layer(Input(Shape{3}, {.dtype = DType::int64})).dtype(), DType::int64);
}

// view of a float input has no gradient: TensorFlow registers none for Bitcast (Keras's
// gradient raises LookupError), so differentiating through it throws naming the op; dtypes
// Strata does not have, and a change of size along the batch axis, are refused by name.
TEST(OperationCases, ViewIsNotDifferentiatedAndRefusesOtherDtypes) {
  const ordered_json& c = case_named("view_float32_default_dtype");
  ASSERT_TRUE(c.at("input_grads").is_null());
  Graph g;
  const Output x = g.placeholder({Shape{kUnknownDim, 3, 4}});
  Layer op = io::op_layer_from_entry(c.at("layers")[0], {});
  op(Input({3, 4}));
  const Output y = op.impl().call(g, {x})[0];
  try {
    gradients(ops::reduce_sum(y), {x});
    FAIL() << "view's gradient was built";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("bitcast (keras.ops.view)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("has no gradient"), std::string::npos) << e.what();
  }
  const json x_ref = keras_tensor("x");
  const std::string half = refusal_on("View", {{"dtype", "float16"}}, json::array({x_ref}), {Shape{4}});
  EXPECT_NE(half.find("dtype='float16'"), std::string::npos) << half;
  EXPECT_NE(half.find("View 'op'"), std::string::npos) << half;
  const std::string batch = refusal_on("View", {{"dtype", "int64"}}, json::array({x_ref}), {Shape{}});
  EXPECT_NE(batch.find("batch axis"), std::string::npos) << batch;
}

// lstsq's rows are the batch axis, unknown when the graph is built, and TensorFlow's SvdGrad
// needs them: differentiating lstsq throws saying so (its goldens hold no gradient).
TEST(OperationCases, LstsqIsNotDifferentiatedThroughRowsUnknownWhenBuilt) {
  const ordered_json& c = case_named("lstsq");
  ASSERT_TRUE(c.at("input_grads").is_null());
  Graph g;
  const Output a = g.placeholder({Shape{kUnknownDim, 3}}), b = g.placeholder({Shape{kUnknownDim, 2}});
  Layer op = io::op_layer_from_entry(c.at("layers")[0], {});
  op(std::vector<KerasTensor>{Input({3}), Input({2})});
  const Output x = op.impl().call(g, {a, b})[0];
  EXPECT_EQ(x.shape(), (Shape{3, 2}));
  try {
    gradients(ops::reduce_sum(x), {a, b});
    FAIL() << "lstsq's gradient was built";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("rows or columns are unknown"), std::string::npos) << e.what();
  }
}

class OperationCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OperationCase, PredictsAsKerasAndLoadsBackFromStrata) {
  const ordered_json& c = case_named(GetParam());
  const std::vector<Tensor> xs = inputs_of(c);
  Model model = models::load_model(std::string(STRATA_TEST_DATA) + "/../../" + c.at("file").get<std::string>(),
                                   {.compile = false});
  const Tensor y = predict(model, xs);
  EXPECT_TRUE(golden_near(y, c.at("output"), GetParam()));
  const std::string dtype = c.at("output").value("dtype", "float32");
  if (dtype == "int32" || dtype == "int64") {  // Keras's integers, exactly
    EXPECT_EQ(to_string(y.dtype()), dtype) << GetParam();
    EXPECT_TRUE(integers_equal(y, c.at("output"), GetParam()));
  }
  testing::ScratchDir scratch;
  model.save(scratch.file("again.keras"));
  Model again = models::load_model(scratch.file("again.keras"), {.compile = false});
  const Tensor y_again = predict(again, xs);
  EXPECT_TRUE(golden_near(y_again, c.at("output"), GetParam() + " saved by Strata"));
  if (dtype == "int32" || dtype == "int64") EXPECT_TRUE(integers_equal(y_again, c.at("output"), GetParam() + " saved by Strata"));
}

// The tensors an entry's call takes, in order: ["layer", node, index] of each Keras tensor.
void tensor_refs(const ordered_json& v, std::vector<std::pair<std::string, std::size_t>>& out) {
  if (v.is_object() && v.value("class_name", "") == "__keras_tensor__") {
    const auto& h = v.at("config").at("keras_history");
    out.emplace_back(h[0].get<std::string>(), h[2].get<std::size_t>());
  } else if (v.is_array()) {
    for (const auto& e : v) tensor_refs(e, out);
  }
}

TEST_P(OperationCase, GradientsAreKeras) {
  const ordered_json& c = case_named(GetParam());
  if (c.at("input_grads").is_null())
    GTEST_SKIP() << "no gradient golden: Keras's output is not float, its gradient not finite, or TensorFlow has none";
  const std::vector<Tensor> xs = inputs_of(c);
  // The case's entries called in order on the inputs x0, x1, ... (symbolically, which builds
  // them, and on a graph), the last one's result `output_index` the model's output.
  Graph g;
  std::vector<Output> feeds;
  std::map<std::string, std::vector<Output>> outputs;
  std::map<std::string, std::vector<KerasTensor>> symbolic;
  // A case whose model takes a fixed batch size ("batch_size") is built with it.
  const std::optional<std::int64_t> batch =
      c.contains("batch_size") ? std::optional<std::int64_t>(c.at("batch_size").get<std::int64_t>()) : std::nullopt;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    feeds.push_back(g.placeholder({xs[i].shape().with_dim(0, batch.value_or(kUnknownDim)), xs[i].dtype()}));
    outputs[name] = {feeds.back()};
    symbolic[name] = {Input(xs[i].shape().without_batch(), {.batch_size = batch, .dtype = xs[i].dtype()})};
  }
  std::string last;
  for (const auto& entry : c.at("layers")) {
    Layer op = io::op_layer_from_entry(entry, {});
    std::vector<std::pair<std::string, std::size_t>> refs;
    tensor_refs(entry.at("inbound_nodes")[0].at("args"), refs);
    std::vector<KerasTensor> symbolic_in;
    std::vector<Output> in;
    for (const auto& [layer, index] : refs) {
      symbolic_in.push_back(symbolic.at(layer).at(index));
      in.push_back(outputs.at(layer).at(index));
    }
    last = entry.at("name").get<std::string>();
    symbolic[last] = op(symbolic_in);  // builds it
    outputs[last] = op.impl().call(g, in);
  }
  const Output y = outputs.at(last).at(c.at("output_index").get<std::size_t>());
  const Tensor projection = golden_tensor(c.at("projection"));
  const Output p = g.placeholder({projection.shape(), DType::float32});
  const Output loss = ops::reduce_sum(ops::mul(y, p));
  if (GetParam() == "vstack") {  // joined along the batch axis: splitting the gradient back needs its sizes
    try {
      gradients(loss, feeds);
      FAIL() << "vstack's gradient was built";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("needs known sizes along the concatenation axis"), std::string::npos)
          << e.what();
    }
    return;
  }
  // the image_affine_transform op (affine_transform's, perspective_transform's) has no gradient to the images
  if (GetParam().rfind("affine_transform", 0) == 0 || GetParam().rfind("perspective_transform", 0) == 0) {
    try {
      gradients(loss, feeds);
      FAIL() << GetParam() << "'s gradient was built";
    } catch (const NotImplementedError& e) {
      EXPECT_NE(std::string(e.what()).find("image_affine_transform"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("no gradient to the images"), std::string::npos) << e.what();
    }
    return;
  }
  // eig has no gradient in Strata (TensorFlow's EigGrad works in complex arithmetic): it says so
  if (c.at("operation") == "Eig") {
    EXPECT_THROW_WITH(gradients(loss, feeds), NotImplementedError, "eig: no gradient in Strata");
    return;
  }
  std::vector<Output> fetches;
  for (const Output& grad : gradients(loss, feeds)) {
    fetches.push_back(grad.valid() ? grad : ops::zeros_like(ops::cast(feeds[fetches.size()], DType::float32)));
  }
  std::vector<Output> all_feeds = feeds;
  all_feeds.push_back(p);
  std::vector<Tensor> run_feeds = xs;
  run_feeds.push_back(projection);
  const auto out = Program(g, all_feeds, fetches).run(run_feeds);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    EXPECT_TRUE(golden_near(out[i], c.at("input_grads")[i], GetParam() + ": gradient of input " + std::to_string(i)));
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : cases()) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, OperationCase, ::testing::ValuesIn(case_names()), [](const auto& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

}  // namespace
}  // namespace strata::keras_ops_test
