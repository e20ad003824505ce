// Over HTTP: an httplib client against the server on 127.0.0.1 (an ephemeral port), in
// process and as the strata-serve program.
#include "serving/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "serving_test_util.h"

namespace strata::serving::http_server_test {
namespace {

using namespace testing;

void expect_predictions_match(httplib::Client& client, const std::string& path) {
  Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  Tensor y = load_numbered(golden("functional_mlp"), "output")[0];
  json instances = json::array();
  for (std::int64_t i = 0; i < 5; ++i) instances.push_back(row_json(x, i));
  auto res = client.Post(path.c_str(), json{{"instances", instances}}.dump(), "application/json");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  expect_close(stack_rows(json::parse(res->body)["predictions"], y.shape()), y, "over HTTP");
}

TEST(HttpServer, AnHttpClientGetsKerasPredictionsStatusAndErrors) {
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  ModelRegistry models({.name = "mlp", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  RestHandler handler(models, {.max_body_bytes = 1000});
  HttpServer server(handler, {.bind_address = "127.0.0.1", .port = 0, .num_threads = 4, .max_body_bytes = 1000});
  const int port = server.start();
  ASSERT_GT(port, 0);
  httplib::Client client("127.0.0.1", port);

  expect_predictions_match(client, "/v1/models/mlp:predict");
  expect_predictions_match(client, "/v1/models/mlp/versions/1:predict");
  auto status = client.Get("/v1/models/mlp");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
  EXPECT_EQ(json::parse(status->body)["model_version_status"][0]["state"], "AVAILABLE");
  auto metadata = client.Get("/v1/models/mlp/metadata");
  ASSERT_TRUE(metadata);
  EXPECT_EQ(json::parse(metadata->body)["metadata"]["signature_def"]["signature_def"]["serving_default"]["inputs"]["x"]
                ["dtype"],
            "DT_FLOAT");

  // Errors over HTTP carry JSON bodies too, those httplib makes itself included.
  auto bad = client.Post("/v1/models/mlp:predict", "{\"instances\": [[1, 2]]}", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(json::parse(bad->body)["error"].get<std::string>().find("input 'x' expects shape (None, 4)"), std::string::npos);
  auto unknown = client.Post("/v1/models/other:predict", "{}", "application/json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto big = client.Post("/v1/models/mlp:predict", std::string(5000, ' '), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_NE(json::parse(big->body)["error"].get<std::string>().find("--rest_api_max_body_bytes"), std::string::npos);
  // A wrong method reaches the handler: TF Serving's "Malformed request" (400), not
  // httplib's bare 404.
  auto put = client.Put("/v1/models/mlp:predict", "{}", "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 400) << put->body;
  EXPECT_NE(json::parse(put->body)["error"].get<std::string>().find("Malformed request: PUT /v1/models/mlp:predict"),
            std::string::npos)
      << put->body;
  auto del = client.Delete("/v1/models/mlp");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 400) << del->body;
  EXPECT_TRUE(json::parse(del->body).contains("error"));
  auto v1_other = client.Get("/v1/other");
  ASSERT_TRUE(v1_other);
  EXPECT_EQ(v1_other->status, 400) << v1_other->body;
  auto outside = client.Get("/index.html");
  ASSERT_TRUE(outside);
  EXPECT_EQ(outside->status, 404) << outside->body;
  // A body over --rest_api_max_body_bytes on another endpoint is refused before it is read.
  auto big_put = client.Put("/v1/models/mlp", std::string(5000, 'x'), "application/json");
  ASSERT_TRUE(big_put);
  EXPECT_EQ(big_put->status, 413);
  EXPECT_NE(json::parse(big_put->body)["error"].get<std::string>().find("--rest_api_max_body_bytes"), std::string::npos);
  // A URI over httplib's limit (8192 bytes): 414, with a JSON body.
  auto long_uri = client.Get(("/v1/models/" + std::string(10000, 'a')).c_str());
  ASSERT_TRUE(long_uri) << httplib::to_string(long_uri.error());
  EXPECT_EQ(long_uri->status, 414) << long_uri->body;
  EXPECT_NE(json::parse(long_uri->body)["error"].get<std::string>().find("URI"), std::string::npos) << long_uri->body;
  // And it still serves.
  expect_predictions_match(client, "/v1/models/mlp:predict");
  server.stop();
}

TEST(HttpServer, APortInUseIsAnIOError) {
  // Debian's httplib sets SO_REUSEPORT, with which a second server bound the same port and
  // took half its connections; the server sets SO_REUSEADDR alone.
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  ModelRegistry models({.name = "mlp", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  RestHandler handler(models);
  HttpServer first(handler, {.bind_address = "127.0.0.1", .port = 0, .num_threads = 2});
  const int port = first.start();
  HttpServer second(handler, {.bind_address = "127.0.0.1", .port = port, .num_threads = 2});
  EXPECT_THROW(second.bind(), IOError);
}

TEST(HttpServer, ABurstOfConnectionsIsAcceptedAtOnce) {
  // 64 clients connecting at the same moment: none waits for a SYN retransmit (1 s), as
  // they would with httplib's compiled-in listen backlog of 5.
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  ModelRegistry models({.name = "mlp", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  RestHandler handler(models);
  HttpServer server(handler, {.bind_address = "127.0.0.1", .port = 0, .num_threads = 80});
  const int port = server.start();
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  std::atomic<long> slowest_ms{0};
  for (int c = 0; c < 64; ++c) {
    clients.emplace_back([&] {
      const auto start = std::chrono::steady_clock::now();
      httplib::Client client("127.0.0.1", port);
      auto res = client.Get("/v1/models/mlp");
      const long ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
      long seen = slowest_ms;
      while (ms > seen && !slowest_ms.compare_exchange_weak(seen, ms)) {
      }
      if (res && res->status == 200) ++ok;
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok, 64);
  EXPECT_LT(slowest_ms, 900) << "a connection waited for a SYN retransmit";
}

TEST(StrataServe, TheProgramServesAndStopsOnSigterm) {
#ifndef STRATA_TOOLS_DIR
  GTEST_SKIP() << "strata-serve is not built (STRATA_BUILD_TOOLS=OFF)";
#else
  ModelDir dir;
  dir.add_version(3, "functional_mlp", ".h5");
  // REST only: --port is the gRPC port, and -1 turns it off (with or without gRPC built).
  ServeProgram serve(std::string(STRATA_TOOLS_DIR) + "/strata-serve",
                     {"--port=-1", "--rest_api_port=0", "--rest_api_bind=127.0.0.1", "--model_name=mlp",
                      "--model_base_path=" + dir.path(), "--enable_batching"});
  const std::string flags_line = serve.line(), serving_line = serve.line();
  EXPECT_TRUE(flags_line.starts_with("flags: port=-1")) << flags_line;
  EXPECT_NE(flags_line.find("enable_batching=true"), std::string::npos) << flags_line;
  // "strata-serve: serving model 'mlp' version 3 at http://127.0.0.1:PORT/v1/models/mlp"
  const int port = port_after(serving_line, "127.0.0.1:");
  ASSERT_GT(port, 0) << serving_line;
  EXPECT_NE(serving_line.find("version 3"), std::string::npos) << serving_line;
  {
    httplib::Client client("127.0.0.1", port);
    expect_predictions_match(client, "/v1/models/mlp:predict");
  }
  const int status = serve.stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
#endif
}

}  // namespace
}  // namespace strata::serving::http_server_test
