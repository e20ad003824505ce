// The REST API on the Keras goldens: every endpoint and both predict formats, compared with
// real Keras's predictions; status and metadata bodies; every bad request and its status.
#include "serving/rest_handler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <cmath>
#include <thread>

#include "serving/errors.h"
#include "serving/tensor_json.h"
#include "serving_test_util.h"

namespace strata::serving::rest_handler_test {
namespace {

using namespace testing;

// A served model directory with the golden `name` + `ext` as version 1.
struct Served {
  Served(const std::string& name, const std::string& ext, RestHandlerOptions options = {}) {
    dir.add_version(1, name, ext);
    models = std::make_unique<ModelRegistry>(ModelManagerOptions{.name = "m", .base_path = dir.path(),
                                                                 .file_system_poll_wait_seconds = 0});
    handler = std::make_unique<RestHandler>(*models, options);
  }
  RestResponse post(const std::string& path, const std::string& body) const { return handler->handle("POST", path, body); }
  RestResponse get(const std::string& path) const { return handler->handle("GET", path, ""); }
  ModelDir dir;
  std::unique_ptr<ModelRegistry> models;
  std::unique_ptr<RestHandler> handler;
};

json body_of(const RestResponse& r) { return json::parse(r.body); }

class OneInputModel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(OneInputModel, RowFormatMatchesKeras) {
  auto [name, ext] = GetParam();
  Served s(name, ext);
  Tensor x = load_numbered(golden(name), "input")[0];
  Tensor y = load_numbered(golden(name), "output")[0];
  json instances = json::array();
  for (std::int64_t i = 0; i < x.shape()[0]; ++i) instances.push_back(row_json(x, i));
  RestResponse r = s.post("/v1/models/m:predict", json{{"instances", instances}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  json out = body_of(r);
  ASSERT_TRUE(out.contains("predictions")) << r.body;
  ASSERT_EQ(out["predictions"].size(), static_cast<std::size_t>(y.shape()[0]));
  expect_close(stack_rows(out["predictions"], y.shape()), y, name + ext + " rows");
}

TEST_P(OneInputModel, ColumnarFormatMatchesKeras) {
  auto [name, ext] = GetParam();
  Served s(name, ext);
  Tensor x = load_numbered(golden(name), "input")[0];
  Tensor y = load_numbered(golden(name), "output")[0];
  RestResponse r = s.post("/v1/models/m/versions/1:predict", json{{"inputs", values_json(x)}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  expect_close(tensor_from_json(body_of(r)["outputs"], y.shape()), y, name + ext + " columns");
}

INSTANTIATE_TEST_SUITE_P(Goldens, OneInputModel,
                         ::testing::Combine(::testing::Values("functional_mlp", "sequential_mlp", "nested", "cnn_bn_merge"),
                                            ::testing::Values(".keras", ".h5")));

TEST(RestHandler, SingleInputRowsMayNameTheInput) {
  Served s("functional_mlp", ".keras");
  Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  Tensor y = load_numbered(golden("functional_mlp"), "output")[0];
  json instances = json::array();
  for (std::int64_t i = 0; i < 5; ++i) instances.push_back({{"x", row_json(x, i)}});
  RestResponse r = s.post("/v1/models/m:predict", json{{"instances", instances}, {"signature_name", "serving_default"}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  expect_close(stack_rows(body_of(r)["predictions"], y.shape()), y, "named rows");
  r = s.post("/v1/models/m:predict", json{{"inputs", {{"x", values_json(x)}}}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  expect_close(tensor_from_json(body_of(r)["outputs"], y.shape()), y, "named columns");
}

TEST(RestHandler, MultiInputModelTakesNamedInputsInBothFormats) {
  for (const std::string ext : {".keras", ".h5"}) {
    Served s("multi_io_shared", ext);
    auto xs = load_numbered(golden("multi_io_shared"), "input");
    auto ys = load_numbered(golden("multi_io_shared"), "output");
    json instances = json::array();
    for (std::int64_t i = 0; i < 3; ++i) instances.push_back({{"a", row_json(xs[0], i)}, {"b", row_json(xs[1], i)}});
    RestResponse r = s.post("/v1/models/m:predict", json{{"instances", instances}}.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    json preds = body_of(r)["predictions"];
    ASSERT_EQ(preds.size(), 3u);
    json reshape = json::array(), shared = json::array();
    for (const auto& p : preds) {
      ASSERT_TRUE(p.is_object()) << p;
      reshape.push_back(p["reshape"]);
      shared.push_back(p["shared"]);
    }
    expect_close(stack_rows(reshape, ys[0].shape()), ys[0], "rows: reshape" + ext);
    expect_close(stack_rows(shared, ys[1].shape()), ys[1], "rows: shared" + ext);

    r = s.post("/v1/models/m:predict", json{{"inputs", {{"b", values_json(xs[1])}, {"a", values_json(xs[0])}}}}.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    json outs = body_of(r)["outputs"];
    expect_close(tensor_from_json(outs["reshape"], ys[0].shape()), ys[0], "columns: reshape" + ext);
    expect_close(tensor_from_json(outs["shared"], ys[1].shape()), ys[1], "columns: shared" + ext);
  }
}

TEST(RestHandler, StringInputsAreJsonStringsAndPredictLikeKeras) {
  // Keras's model with string, int and float inputs through the preprocessing layers
  // (tests/data/preprocessing/model_vocabulary.*); DT_STRING inputs are JSON strings.
  const std::string dir = std::string(STRATA_TEST_DATA) + "/preprocessing/";
  const json g = json::parse(std::ifstream(dir + "model_vocabulary.json"));
  ModelDir models;
  models.add_file(1, dir + "model_vocabulary.keras", "model.keras");
  ModelRegistry registry(
      ModelManagerOptions{.name = "m", .base_path = models.path(), .file_system_poll_wait_seconds = 0});
  RestHandler handler(registry);
  json inputs = json::object();
  for (const char* name : {"city", "code", "tags", "amount"}) {
    const json& t = g["inputs"][name];
    const auto rows = t["shape"][0].get<std::size_t>(), cols = t["shape"][1].get<std::size_t>();
    json m = json::array();
    for (std::size_t r = 0; r < rows; ++r) {
      json row = json::array();
      for (std::size_t c = 0; c < cols; ++c) row.push_back(t["values"][r * cols + c]);
      m.push_back(row);
    }
    inputs[name] = m;
  }
  RestResponse r = handler.handle("POST", "/v1/models/m:predict", json{{"inputs", inputs}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json out = body_of(r)["outputs"];
  const auto want = g["prediction"]["values"].get<std::vector<float>>();
  ASSERT_EQ(out.size(), want.size()) << out;
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(out[i][0].get<float>(), want[i], 1e-5f + 1e-4f * std::fabs(want[i]));
  const json meta = body_of(handler.handle("GET", "/v1/models/m/metadata", ""));
  EXPECT_NE(meta.dump().find("DT_STRING"), std::string::npos) << meta;
  inputs["city"][0][0] = 3;
  EXPECT_EQ(handler.handle("POST", "/v1/models/m:predict", json{{"inputs", inputs}}.dump()).status, 400);
}

TEST(RestHandler, TextGoesThroughTextVectorizationAsJsonStrings) {
  // Keras's Input(string) -> TextVectorization (tf_idf, ngrams, adapted) -> Dense
  // (tests/data/text_vectorization/model_tf_idf.keras); each instance is a row of one
  // plain JSON string, as TensorFlow Serving takes DT_STRING.
  const std::string dir = std::string(STRATA_TEST_DATA) + "/text_vectorization/";
  const json g = json::parse(std::ifstream(dir + "models.json"))["tf_idf"];
  ModelDir models;
  models.add_file(1, dir + "model_tf_idf.keras", "model.keras");
  ModelRegistry registry(
      ModelManagerOptions{.name = "m", .base_path = models.path(), .file_system_poll_wait_seconds = 0});
  RestHandler handler(registry);
  json instances = json::array();
  for (const auto& text : g["input"]["values"]) instances.push_back(json::array({text}));
  RestResponse r = handler.handle("POST", "/v1/models/m:predict", json{{"instances", instances}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json out = body_of(r)["predictions"];
  const auto want = g["prediction"]["values"].get<std::vector<float>>();
  const std::size_t cols = g["prediction"]["shape"][1].get<std::size_t>();
  ASSERT_EQ(out.size() * cols, want.size()) << out;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(out[i / cols][i % cols].get<float>(), want[i], 1e-5f + 1e-4f * std::fabs(want[i])) << i;
  }
}

TEST(RestHandler, ConcurrentRequestsWithoutBatchingEachGetTheirOwnAnswer) {
  Served s("cnn_bn_merge", ".keras");
  Tensor x = load_numbered(golden("cnn_bn_merge"), "input")[0];
  Tensor y = load_numbered(golden("cnn_bn_merge"), "output")[0];
  std::atomic<int> failed{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 25; ++k) {
        const std::int64_t begin = (t + k) % 4, end = begin + 1 + (t * k) % (4 - begin);  // 1 to 4 rows
        RestResponse r = s.post("/v1/models/m:predict", json{{"inputs", values_json(x.slice_rows(begin, end))}}.dump());
        if (r.status != 200) {
          ++failed;
          continue;
        }
        Tensor got = tensor_from_json(body_of(r)["outputs"], Shape{end - begin, 3});
        auto a = got.to_vector<float>(), b = y.slice_rows(begin, end).to_vector<float>();
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (std::fabs(a[i] - b[i]) > 1e-5f + 1e-4f * std::fabs(b[i])) {
            ++wrong;
            break;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(wrong, 0);
}

TEST(RestHandler, IntegersAreAcceptedForFloatInputs) {
  Served s("functional_mlp", ".keras");
  RestResponse ints = s.post("/v1/models/m:predict", R"({"instances": [[1, 2, 3, 4]]})");
  RestResponse floats = s.post("/v1/models/m:predict", R"({"instances": [[1.0, 2.0, 3.0, 4.0]]})");
  ASSERT_EQ(ints.status, 200) << ints.body;
  EXPECT_EQ(ints.body, floats.body);
}

TEST(RestHandler, StatusBodyIsTensorFlowServings) {
  Served s("functional_mlp", ".keras");
  const json want = json::parse(R"({"model_version_status": [{"version": "1", "state": "AVAILABLE",
                                    "status": {"error_code": "OK", "error_message": ""}}]})");
  RestResponse r = s.get("/v1/models/m");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_of(r), want);
  r = s.get("/v1/models/m/versions/1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_of(r), want);
}

TEST(RestHandler, MetadataDescribesInputsAndOutputs) {
  Served s("multi_io_shared", ".keras");
  RestResponse r = s.get("/v1/models/m/metadata");
  ASSERT_EQ(r.status, 200) << r.body;
  json m = body_of(r);
  EXPECT_EQ(m["model_spec"], json::parse(R"({"name": "m", "signature_name": "", "version": "1"})"));
  json sig = m["metadata"]["signature_def"]["signature_def"]["serving_default"];
  EXPECT_EQ(sig["method_name"], "tensorflow/serving/predict");
  EXPECT_EQ(sig["inputs"]["a"], json::parse(R"({"dtype": "DT_FLOAT", "name": "serving_default_a:0",
      "tensor_shape": {"dim": [{"size": "-1", "name": ""}, {"size": "2", "name": ""}, {"size": "3", "name": ""}],
                       "unknown_rank": false}})"));
  EXPECT_EQ(sig["inputs"]["b"]["tensor_shape"]["dim"].size(), 2u);
  EXPECT_EQ(sig["outputs"]["reshape"]["tensor_shape"]["dim"][2]["size"], "2");
  EXPECT_EQ(sig["outputs"]["shared"]["dtype"], "DT_FLOAT");
  EXPECT_EQ(s.get("/v1/models/m/versions/1/metadata").status, 200);
}

// The status code and a piece of the message for a bad request.
void expect_error(const RestResponse& r, int status, const std::string& contains) {
  EXPECT_EQ(r.status, status) << r.body;
  json body;
  ASSERT_NO_THROW(body = json::parse(r.body)) << r.body;
  ASSERT_TRUE(body.is_object() && body.contains("error") && body["error"].is_string()) << r.body;
  EXPECT_NE(body["error"].get<std::string>().find(contains), std::string::npos)
      << "expected '" << contains << "' in: " << body["error"];
}

TEST(RestHandler, BadRequestsGetTensorFlowServingsStatusAndSayWhat) {
  Served s("multi_io_shared", ".keras", {.max_body_bytes = 4096});
  const std::string p = "/v1/models/m:predict";
  const std::string a = "[[1,2,3],[4,5,6]]";
  expect_error(s.post(p, "{\"instances\": [ {\"a\": "), 400, "JSON Parse error");
  expect_error(s.post(p, "[1, 2]"), 400, "must be a JSON object");
  expect_error(s.post(p, "{}"), 400, "neither 'instances'");
  expect_error(s.post(p, R"({"instances": [], "inputs": {}})"), 400, "both");
  expect_error(s.post(p, R"({"instances": []})"), 400, "empty");
  expect_error(s.post(p, R"({"instances": [[1,2,3]]})"), 400, "keyed by input name");
  expect_error(s.post(p, "{\"instances\": [{\"a\": " + a + "}]}"), 400, "instance 0 has no value for input 'b'");
  expect_error(s.post(p, "{\"instances\": [{\"a\": " + a + ", \"b\": [1,2,3,4,5], \"c\": 1}]}"), 400,
               "instance 0 names input 'c'");
  // Wrong shape: 'b' takes 5 values.
  expect_error(s.post(p, "{\"instances\": [{\"a\": " + a + ", \"b\": [1,2,3]}]}"), 400,
               "input 'b' expects shape (None, 5), got (1, 3)");
  // Wrong dtype: a string where numbers go, at instance 1.
  expect_error(s.post(p, "{\"instances\": [{\"a\": " + a + ", \"b\": [1,2,3,4,5]}, {\"a\": " + a +
                             ", \"b\": [1,2,\"x\",4,5]}]}"),
               400, "input 'b' has dtype float32: expected a number, got a string at instance 1[2]");
  // Ragged: instance 1 has a different shape from instance 0.
  expect_error(s.post(p, "{\"instances\": [{\"a\": " + a + ", \"b\": [1,2,3,4,5]}, {\"a\": " + a +
                             ", \"b\": [1,2,3,4]}]}"),
               400, "input 'b': instance 1 has shape (4,) but instance 0 has (5,)");
  // Ragged inside one instance.
  expect_error(s.post(p, R"({"instances": [{"a": [[1,2,3],[4,5]], "b": [1,2,3,4,5]}]})"), 400,
               "input 'a', instance 0: ragged: [1] is a list of 2 where [0] is a list of 3");
  expect_error(s.post(p, R"({"inputs": {"a": [[[1,2,3],[4,5,6]]], "b": [[1,2,3,4,5],[1,2,3,4,5]]}})"), 400,
               "input 'b' has 2 rows but input 'a' has 1");
  expect_error(s.post(p, R"({"inputs": [[1,2,3]]})"), 400, "'inputs' must be an object keyed by input name");
  expect_error(s.post(p, R"({"instances": [{"a": 1}], "signature_name": "other"})"), 400,
               "Serving signature name: \"other\" not found");
  // Unknown model or version, and paths that are not the API.
  expect_error(s.post("/v1/models/other:predict", R"({"instances": [1]})"), 404, "Servable not found for request: Latest(other)");
  expect_error(s.post("/v1/models/m/versions/7:predict", R"({"instances": [1]})"), 404,
               "Servable not found for request: Specific(m, 7)");
  expect_error(s.get("/v1/models/other"), 404, "Could not find any versions of model other");
  expect_error(s.get("/v1/models/other/metadata"), 404, "Servable not found for request: Latest(other)");
  expect_error(s.get("/v1/models/m/versions/7"), 404, "Could not find version 7 of model m");
  expect_error(s.get("/v1/models/m/versions/7/metadata"), 404, "Specific(m, 7)");
  expect_error(s.get("/v1/models/m:predict"), 400, "Malformed request: GET /v1/models/m:predict");
  expect_error(s.post("/v1/models/m/versions/x:predict", "{}"), 400, "Malformed request");
  expect_error(s.post("/v1/models/m/labels/stable:predict", "{}"), 400, "Unrecognized servable version label: stable");
  expect_error(s.post("/v1/models/m:classify", "{}"), 501, "classify is not supported");
  expect_error(s.get("/index.html"), 404, "Malformed request: GET /index.html");
  expect_error(s.get("/v2/models/m"), 404, "Malformed request: GET /v2/models/m");
  // Under /v1/, anything that is not an endpoint, or an endpoint with the wrong method, is
  // TF Serving's "Malformed request" (400).
  expect_error(s.get("/v1/other"), 400, "Malformed request: GET /v1/other");
  expect_error(s.get("/v1/models"), 400, "Malformed request: GET /v1/models");
  expect_error(s.get("/v1"), 400, "Malformed request: GET /v1");
  expect_error(s.handler->handle("PUT", p, "{}"), 400, "Malformed request: PUT /v1/models/m:predict");
  expect_error(s.handler->handle("DELETE", "/v1/models/m", ""), 400, "Malformed request: DELETE /v1/models/m");
  expect_error(s.handler->handle("PATCH", "/v1/models/m/metadata", ""), 400, "Malformed request");
  // A body over the limit.
  expect_error(s.post(p, "{\"instances\": [" + std::string(5000, ' ') + "]}"), 413, "more than the limit of 4096");
}

TEST(RestHandler, DtypeErrorsForIntegerInputs) {
  // Integer inputs (an Embedding's ids): floats, bools and out-of-range values are refused.
  const Signature sig{{{"ids", DType::int32, Shape{kUnknownDim, 2}}}, {{"y", DType::float32, Shape{kUnknownDim, 2}}}};
  EXPECT_NO_THROW(parse_predict_request(json::parse(R"({"instances": [[1, 2], [3, -4]]})"), sig));
  auto message = [&](const std::string& body) {
    try {
      parse_predict_request(json::parse(body), sig);
    } catch (const ServingError& e) {
      EXPECT_EQ(e.http_status(), 400);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(R"({"instances": [[1, 2.5]]})").find("input 'ids' has dtype int32: expected an integer, got 2.5 at instance 0[1]"),
            std::string::npos);
  EXPECT_NE(message(R"({"inputs": [[1, 2], [3, true]]})").find("got a bool at 'inputs'[1][1]"), std::string::npos);
  EXPECT_NE(message(R"({"inputs": [[1, 2], [3, 4294967296]]})").find("out of range for int32"), std::string::npos);
}

TEST(RestHandler, AVersionThatFailsToLoadIsReportedAndTheOldOneServes) {
  Served s("functional_mlp", ".keras");
  s.dir.write_file(2, "model.keras", "this is not a zip file");
  s.models->find("m")->poll();
  RestResponse r = s.get("/v1/models/m");
  ASSERT_EQ(r.status, 200) << r.body;
  json status = body_of(r)["model_version_status"];
  ASSERT_EQ(status.size(), 2u) << r.body;
  EXPECT_EQ(status[0]["state"], "AVAILABLE");
  EXPECT_EQ(status[1]["version"], "2");
  EXPECT_EQ(status[1]["state"], "END");
  EXPECT_EQ(status[1]["status"]["error_code"], "UNKNOWN");
  EXPECT_NE(status[1]["status"]["error_message"].get<std::string>().find("version 2 failed to load"), std::string::npos)
      << r.body;
  EXPECT_EQ(s.post("/v1/models/m:predict", R"({"instances": [[1, 2, 3, 4]]})").status, 200);
  expect_error(s.post("/v1/models/m/versions/2:predict", R"({"instances": [[1, 2, 3, 4]]})"), 404,
               "the served version is 1");
}

TEST(RestHandler, NothingLoadableIsNotFoundWithTheReason) {
  ModelDir dir;
  dir.write_file(1, "model.h5", "not HDF5");
  ModelRegistry models({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  RestHandler handler(models);
  expect_error(handler.handle("POST", "/v1/models/m:predict", R"({"instances": [[1]]})"), 404, "version 1 failed to load");
  RestResponse r = handler.handle("GET", "/v1/models/m", "");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_of(r)["model_version_status"][0]["state"], "END");

  ModelRegistry missing({.name = "m", .base_path = dir.path() + "/nope", .file_system_poll_wait_seconds = 0});
  RestHandler h2(missing);
  expect_error(h2.handle("GET", "/v1/models/m", ""), 404, "is not a directory");
  expect_error(h2.handle("GET", "/v1/models/m/metadata", ""), 404, "is not a directory");
}

TEST(RestHandler, ARequestOverMaxRowsPerRequestIsRefusedNamingTheFlag) {
  Served s("functional_mlp", ".keras", {.max_rows_per_request = 4});
  Tensor x = load_numbered(golden("functional_mlp"), "input")[0];  // 5 rows
  json instances = json::array();
  for (std::int64_t i = 0; i < 5; ++i) instances.push_back(row_json(x, i));
  expect_error(s.post("/v1/models/m:predict", json{{"instances", instances}}.dump()), 400,
               "the request has 5 examples, more than the limit of 4 (--max_rows_per_request)");
  expect_error(s.post("/v1/models/m:predict", json{{"inputs", values_json(x)}}.dump()), 400, "--max_rows_per_request");
  instances.erase(instances.end() - 1);
  EXPECT_EQ(s.post("/v1/models/m:predict", json{{"instances", instances}}.dump()).status, 200);
  EXPECT_EQ(RestHandlerOptions{}.max_rows_per_request, 65536);
}

TEST(RestHandler, ARequestLargerThanThePredictChunkIsPredictedInChunksAndMatchesKeras) {
  Served s("functional_mlp", ".keras");
  ASSERT_EQ(s.models->find("m")->latest()->predict_chunk_rows(), Servable::kDefaultPredictChunkRows);
  Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  Tensor y = load_numbered(golden("functional_mlp"), "output")[0];
  // 600 rows: the 5 golden rows over and over, in chunks of 256, 256 and 88.
  constexpr std::int64_t kRows = 600;
  json instances = json::array();
  for (std::int64_t i = 0; i < kRows; ++i) instances.push_back(row_json(x, i % 5));
  RestResponse r = s.post("/v1/models/m:predict", json{{"instances", instances}}.dump());
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 300);
  json predictions = body_of(r)["predictions"];
  ASSERT_EQ(predictions.size(), static_cast<std::size_t>(kRows));
  for (std::int64_t i : {0, 4, 255, 256, 257, 511, 512, 599}) {
    expect_close(tensor_from_json(json::array({predictions[i]}), Shape{1, 3}), y.slice_rows(i % 5, i % 5 + 1),
                 "row " + std::to_string(i));
  }
}

}  // namespace
}  // namespace strata::serving::rest_handler_test
