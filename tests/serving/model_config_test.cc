// --model_config_file: TensorFlow Serving's ModelServerConfig text read by protobuf's parser
// into the models, policies and labels served; what it refuses, and where; the file read
// again while serving; labels over gRPC; and strata-serve serving two models from a file.
// Built when CMake found gRPC and protobuf (STRATA_WITH_GRPC).
#ifdef STRATA_WITH_GRPC

#include "serving/model_config_file.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "serving/grpc_service.h"
#include "serving/rest_handler.h"
#include "tests/serving/serving_test_util.h"

namespace strata::serving::model_config_test {
namespace {

using namespace strata::serving::testing;
namespace tfs = tensorflow::serving;

// TensorFlow Serving's documented example (its "Model Server Configuration" guide), with
// single quotes and an unusual layout, as people write them.
constexpr const char* kTwoModels = R"(model_config_list {
  config {
    name: 'mlp'
    base_path: 'MLP_PATH'
    model_platform: 'tensorflow'
    model_version_policy { specific { versions: 1 versions: 2 } }
    version_labels { key: 'stable' value: 1 }
    version_labels { key: 'canary' value: 2 }
  }
  config { name: "seq" base_path: "SEQ_PATH" model_version_policy: { latest: { num_versions: 2 } } }
  config { name: "every" base_path: "SEQ_PATH" model_version_policy { all {} } model_type: TENSORFLOW }
}
)";

std::string with_paths(std::string text, const std::string& mlp, const std::string& seq) {
  for (auto [key, value] : {std::pair{std::string("MLP_PATH"), mlp}, std::pair{std::string("SEQ_PATH"), seq}}) {
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key)) text.replace(at, key.size(), value);
  }
  return text;
}

TEST(ModelConfigFile, ParsesTensorFlowServingsFormatIntoModelsPoliciesAndLabels) {
  const auto models = parse_model_config(with_paths(kTwoModels, "/m", "/s"),
                                         {.file_system_poll_wait_seconds = 7, .batching = BatchingParameters{}});
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[0].name, "mlp");
  EXPECT_EQ(models[0].base_path, "/m");
  EXPECT_EQ(models[0].version_policy, VersionPolicy(SpecificVersions{.versions = {1, 2}}));
  EXPECT_EQ(models[0].version_labels, (std::map<std::string, std::int64_t>{{"stable", 1}, {"canary", 2}}));
  EXPECT_EQ(models[0].file_system_poll_wait_seconds, 7);  // from the flags
  EXPECT_TRUE(models[0].batching);
  EXPECT_EQ(models[1].version_policy, VersionPolicy(LatestVersions{.num_versions = 2}));
  EXPECT_TRUE(models[1].version_labels.empty());
  EXPECT_EQ(models[2].version_policy, VersionPolicy(AllVersions{}));
  const auto plain = parse_model_config("model_config_list { config { name: 'x' base_path: '/x' } }");
  EXPECT_EQ(plain[0].version_policy, VersionPolicy(LatestVersions{}));  // TensorFlow Serving's default
}

TEST(ModelConfigFile, RefusesWhatItCannotServeSayingWhatAndWhere) {
  auto refusal = [](const std::string& text) {
    try {
      parse_model_config(text);
    } catch (const ValueError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  auto expect_says = [&](const std::string& text, const std::string& says) {
    const std::string message = refusal(text);
    EXPECT_NE(message.find(says), std::string::npos) << text << "\n  " << message;
  };
  expect_says("model_config_list {\n  config {\n    name: 'x'\n    base_pth: '/x' } }", "line 4:");
  expect_says("model_config_list { config { name: 'x' base_path: '/x' } ", "line 1:");
  expect_says("model_config_list { config { name: 'x' base_path: '/x' logging_config { } } }", "logging_config");
  expect_says("custom_model_config { }", "custom_model_config");
  expect_says("", "no model_config_list");
  expect_says("model_config_list { }", "configures no model");
  expect_says("model_config_list { config { base_path: '/x' } }", "has no name");
  expect_says("model_config_list { config { name: 'x' } }", "model 'x' has no base_path");
  expect_says("model_config_list { config { name: 'x' base_path: '/x' } config { name: 'x' base_path: '/y' } }",
              "'x' is configured twice");
  expect_says("model_config_list { config { name: 'x' base_path: '/x' model_platform: 'pytorch' } }",
              "model_platform 'pytorch'");
  expect_says("model_config_list { config { name: 'x' base_path: '/x' model_version_policy { specific { } } } }",
              "specific names no versions");
  expect_says(
      "model_config_list { config { name: 'x' base_path: '/x' model_version_policy { specific { versions: -3 } } } }",
      "version -3");
  EXPECT_THROW(read_model_config_file("/nonexistent/models.config"), IOError);
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(ModelConfigFile, ThePollerAppliesAChangedFileAndKeepsServingThroughABrokenOne) {
  ModelDir mlp, seq, files;
  mlp.add_version(1, "functional_mlp", ".keras");
  mlp.add_version(2, "functional_mlp", ".h5");
  seq.add_version(3, "sequential_mlp", ".keras");
  const std::string config = files.path() + "/models.config";
  write(config, "model_config_list { config { name: 'mlp' base_path: '" + mlp.path() + "' } }");
  ModelRegistry models;
  ModelConfigFilePoller poller(models, config, 0, {.file_system_poll_wait_seconds = 0});
  EXPECT_EQ(models.names(), std::vector<std::string>({"mlp"}));
  EXPECT_FALSE(poller.poll()) << "unchanged";

  write(config, with_paths(kTwoModels, mlp.path(), seq.path()));
  EXPECT_TRUE(poller.poll());
  EXPECT_EQ(models.names(), std::vector<std::string>({"every", "mlp", "seq"}));
  EXPECT_EQ(models.find("mlp")->served_versions(), std::vector<std::int64_t>({1, 2}));
  EXPECT_EQ(models.find("mlp")->label("canary"), 2);

  write(config, "model_config_list { config { name: 'mlp' base_path: ");  // half written
  EXPECT_THROW(poller.poll(), ValueError);
  EXPECT_EQ(models.names(), std::vector<std::string>({"every", "mlp", "seq"})) << "a broken file changes nothing";
  EXPECT_FALSE(poller.poll()) << "a broken file is reported once";

  write(config, "model_config_list { config { name: 'seq' base_path: '" + seq.path() + "' } }");
  EXPECT_TRUE(poller.poll());
  EXPECT_EQ(models.names(), std::vector<std::string>({"seq"}));
}

TEST(ModelConfigFile, GrpcRequestsByVersionLabelGetTheVersionTheLabelNames) {
  ModelDir mlp, files;
  mlp.add_version(1, "functional_mlp", ".keras");
  mlp.add_version(2, "functional_mlp", ".h5");
  ModelRegistry models;
  models.configure(
      parse_model_config(with_paths(kTwoModels, mlp.path(), mlp.path()), {.file_system_poll_wait_seconds = 0}));
  PredictionServiceImpl prediction(models);
  ModelServiceImpl status(models);
  const Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  for (const auto& [label, version] : {std::pair{"stable", 1}, std::pair{"canary", 2}}) {
    tfs::PredictRequest request;
    request.mutable_model_spec()->set_name("mlp");
    request.mutable_model_spec()->set_version_label(label);
    tensorflow::TensorProto& input = (*request.mutable_inputs())["x"];
    input.set_dtype(tensorflow::DT_FLOAT);
    for (std::int64_t d : x.shape().dims()) input.mutable_tensor_shape()->add_dim()->set_size(d);
    for (std::int64_t i = 0; i < x.size(); ++i) input.add_float_val(x.data<float>()[i]);
    tfs::PredictResponse response;
    const grpc::Status s = prediction.predict(request, &response);
    ASSERT_TRUE(s.ok()) << label << ": " << s.error_message();
    EXPECT_EQ(response.model_spec().name(), "mlp");
    EXPECT_EQ(response.model_spec().version().value(), version) << label;

    tfs::GetModelStatusRequest status_request;
    *status_request.mutable_model_spec() = request.model_spec();
    tfs::GetModelStatusResponse status_response;
    ASSERT_TRUE(status.model_status(status_request, &status_response).ok());
    ASSERT_EQ(status_response.model_version_status_size(), 1);
    EXPECT_EQ(status_response.model_version_status(0).version(), version);
  }
  tfs::PredictRequest unknown;
  unknown.mutable_model_spec()->set_name("mlp");
  unknown.mutable_model_spec()->set_version_label("beta");
  tfs::PredictResponse response;
  const grpc::Status s = prediction.predict(unknown, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "Unrecognized servable version label: beta");
}

TEST(StrataServe, TheProgramServesTheModelsOfAConfigFile) {
#ifndef STRATA_TOOLS_DIR
  GTEST_SKIP() << "strata-serve is not built (STRATA_BUILD_TOOLS=OFF)";
#else
  ModelDir mlp, seq, files;
  mlp.add_version(1, "functional_mlp", ".keras");
  mlp.add_version(2, "functional_mlp", ".h5");
  seq.add_version(3, "sequential_mlp", ".keras");
  const std::string config = files.path() + "/models.config";
  write(config, with_paths(kTwoModels, mlp.path(), seq.path()));
  ServeProgram serve(std::string(STRATA_TOOLS_DIR) + "/strata-serve",
                     {"--port=-1", "--rest_api_port=0", "--rest_api_bind=127.0.0.1", "--model_config_file=" + config,
                      "--model_config_file_poll_wait_seconds=1"});
  std::vector<std::string> printed;
  for (int i = 0; i < 4; ++i) printed.push_back(serve.line());
  EXPECT_NE(printed[0].find("model_config_file=" + config), std::string::npos) << printed[0];
  // "strata-serve: serving model 'every' version 3 at http://127.0.0.1:PORT/v1/models/every", then mlp, seq
  EXPECT_NE(printed[2].find("serving model 'mlp' version 2"), std::string::npos) << printed[2];
  const int port = port_after(printed[3], "127.0.0.1:");
  ASSERT_GT(port, 0) << printed[3];
  {
    httplib::Client client("127.0.0.1", port);
    const Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
    const Tensor y = load_numbered(golden("functional_mlp"), "output")[0];
    auto res = client.Post("/v1/models/mlp/labels/stable:predict", json{{"inputs", values_json(x)}}.dump(),
                           "application/json");
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    ASSERT_EQ(res->status, 200) << res->body;
    expect_close(tensor_from_json(json::parse(res->body)["outputs"], y.shape()), y, "mlp by label, from the program");
    res = client.Get("/v1/models/seq");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << res->body;
    // The file changes while serving: seq is dropped within a poll or two.
    write(config, "model_config_list { config { name: 'mlp' base_path: '" + mlp.path() + "' } }");
    int gone = 0;
    for (int i = 0; i < 100 && gone != 404; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      res = client.Get("/v1/models/seq");
      gone = res ? res->status : 0;
    }
    EXPECT_EQ(gone, 404);
  }
  const int status = serve.stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
#endif
}

}  // namespace
}  // namespace strata::serving::model_config_test

#endif  // STRATA_WITH_GRPC
