// Versions on disk in TensorFlow Serving's layout: the highest is served, a new one is
// swapped in while requests run, and none of those requests fails.
#include "serving/model_manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "serving/rest_handler.h"
#include "serving_test_util.h"

namespace strata::serving::model_manager_test {
namespace {

using namespace testing;

TEST(ModelManager, ServesTheHighestVersion) {
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  dir.add_version(10, "functional_mlp", ".h5");
  dir.add_version(9, "functional_mlp", ".keras");
  std::filesystem::create_directories(dir.path() + "/not_a_version");
  ModelManager manager({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  ASSERT_TRUE(manager.latest());
  EXPECT_EQ(manager.latest()->version(), 10);
  EXPECT_TRUE(manager.latest()->path().ends_with("10/model.h5")) << manager.latest()->path();
  EXPECT_FALSE(manager.version(9));
  auto statuses = manager.statuses();
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_EQ(statuses[0].state, VersionState::kAvailable);
}

TEST(ModelManager, RemovingTheServedVersionRollsBackToTheNextHighest) {
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  dir.add_version(2, "functional_mlp", ".h5");
  ModelManager manager({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  ASSERT_EQ(manager.latest()->version(), 2);
  std::filesystem::remove_all(dir.path() + "/2");
  manager.poll();
  ASSERT_TRUE(manager.latest());
  EXPECT_EQ(manager.latest()->version(), 1);
  auto statuses = manager.statuses();
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_EQ(statuses[0].state, VersionState::kAvailable);
  EXPECT_EQ(statuses[1].state, VersionState::kEnd);
}

TEST(ModelManager, FindsTheModelFileInAVersionDirectory) {
  ModelDir dir;
  dir.write_file(1, "model.weights.h5", "x");
  EXPECT_EQ(find_model_file(dir.path() + "/1"), "");
  dir.write_file(1, "b.h5", "x");
  EXPECT_TRUE(find_model_file(dir.path() + "/1").ends_with("/b.h5"));
  dir.write_file(1, "a.keras", "x");
  EXPECT_TRUE(find_model_file(dir.path() + "/1").ends_with("/a.keras"));
}

TEST(ModelManager, AFailedVersionIsRetriedWhenItsFileChanges) {
  ModelDir dir;
  dir.write_file(1, "model.keras", "broken");
  ModelManager manager({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  EXPECT_FALSE(manager.latest());
  EXPECT_NE(manager.unavailable_reason().find("failed to load"), std::string::npos) << manager.unavailable_reason();
  manager.poll();  // unchanged: not retried, still failed
  EXPECT_FALSE(manager.latest());
  const auto file = dir.path() + "/1/model.keras";
  std::filesystem::copy_file(golden("functional_mlp") + ".keras", file, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::last_write_time(file, std::filesystem::last_write_time(file) + std::chrono::seconds(1));
  manager.poll();
  ASSERT_TRUE(manager.latest());
  EXPECT_EQ(manager.statuses()[0].state, VersionState::kAvailable);
  EXPECT_EQ(manager.statuses()[0].error, "");
}

TEST(ModelManager, ANewVersionIsSwappedInWhileRequestsRunAndNoneFails) {
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  ModelManager manager({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 1});
  manager.start_polling();
  RestHandler handler(manager);
  Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  Tensor y = load_numbered(golden("functional_mlp"), "output")[0];
  const std::string body = json{{"inputs", values_json(x)}}.dump();

  std::atomic<bool> done{false};
  std::atomic<int> requests{0}, failures{0}, wrong{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&] {
      while (!done) {
        RestResponse r = handler.handle("POST", "/v1/models/m:predict", body);
        ++requests;
        if (r.status != 200) {
          ++failures;
          continue;
        }
        Tensor got = tensor_from_json(json::parse(r.body)["outputs"], y.shape());
        auto a = got.to_vector<float>(), b = y.to_vector<float>();
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (std::fabs(a[i] - b[i]) > 1e-5f + 1e-4f * std::fabs(b[i])) {
            ++wrong;
            break;
          }
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  dir.add_version(2, "functional_mlp", ".h5");  // the same model, saved in the other format
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (manager.latest()->version() != 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // requests on version 2 too
  done = true;
  for (auto& c : clients) c.join();

  EXPECT_EQ(manager.latest()->version(), 2);
  EXPECT_GT(requests, 20);
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(wrong, 0);
  RestResponse status = handler.handle("GET", "/v1/models/m", "");
  EXPECT_EQ(json::parse(status.body)["model_version_status"],
            json::parse(R"([{"version": "1", "state": "END", "status": {"error_code": "OK", "error_message": ""}},
                            {"version": "2", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}])"));
  RestResponse metadata = handler.handle("GET", "/v1/models/m/metadata", "");
  EXPECT_EQ(json::parse(metadata.body)["model_spec"]["version"], "2");
}

}  // namespace
}  // namespace strata::serving::model_manager_test
