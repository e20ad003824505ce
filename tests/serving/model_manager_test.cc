// Versions on disk in TensorFlow Serving's layout: the highest is served, a new one is
// swapped in while requests run, and none of those requests fails; the version policies
// (latest N, all, specific) and labels; several models, added and dropped while serving.
#include "serving/model_manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "serving/model_registry.h"
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
  ModelRegistry models({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 1});
  models.start_polling();
  RestHandler handler(models);
  const ModelManager& manager = *models.find("m");
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

TEST(VersionPolicy, LatestAllAndSpecificServeTheVersionsTensorFlowServingDoes) {
  ModelDir dir;
  for (int v : {1, 2, 3}) dir.add_version(v, "functional_mlp", v == 2 ? ".h5" : ".keras");
  auto served = [&](VersionPolicy policy) {
    ModelManager manager({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0,
                          .version_policy = std::move(policy)});
    return manager.served_versions();
  };
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(served(LatestVersions{}), V({3}));
  EXPECT_EQ(served(LatestVersions{.num_versions = 2}), V({2, 3}));
  EXPECT_EQ(served(LatestVersions{.num_versions = 7}), V({1, 2, 3}));
  EXPECT_EQ(served(AllVersions{}), V({1, 2, 3}));
  EXPECT_EQ(served(SpecificVersions{.versions = {1, 3, 9}}), V({1, 3}));  // 9 is not on disk
  EXPECT_EQ(to_string(VersionPolicy(SpecificVersions{.versions = {1, 3}})), "specific 1, 3");
}

TEST(VersionPolicy, ASpecificVersionAppearingOnDiskIsLoadedAndAPolicyUpdateUnloadsTheRest) {
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  ModelManager manager({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0,
                        .version_policy = SpecificVersions{.versions = {1, 5}}});
  EXPECT_EQ(manager.served_versions(), std::vector<std::int64_t>({1}));
  dir.add_version(5, "functional_mlp", ".h5");
  dir.add_version(7, "functional_mlp", ".h5");
  manager.poll();
  EXPECT_EQ(manager.served_versions(), std::vector<std::int64_t>({1, 5}));
  std::shared_ptr<Servable> held = manager.version(1);  // a request in flight on version 1
  manager.update(LatestVersions{}, {{"stable", 7}});
  EXPECT_EQ(manager.served_versions(), std::vector<std::int64_t>({7}));
  EXPECT_FALSE(manager.version(1));
  EXPECT_EQ(held->version(), 1);  // still usable by the request holding it
  EXPECT_EQ(manager.label("stable"), 7);
  EXPECT_FALSE(manager.label("canary"));
  std::map<std::int64_t, VersionState> states;
  for (const auto& s : manager.statuses()) states[s.version] = s.state;
  EXPECT_EQ(states, (std::map<std::int64_t, VersionState>{
                        {1, VersionState::kEnd}, {5, VersionState::kEnd}, {7, VersionState::kAvailable}}));
  manager.update(SpecificVersions{.versions = {9}}, {});
  EXPECT_TRUE(manager.served_versions().empty());
  EXPECT_NE(manager.unavailable_reason().find("version policy (specific 9)"), std::string::npos)
      << manager.unavailable_reason();
}

TEST(VersionLabels, RestRequestsByLabelGetTheVersionTheLabelNames) {
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  dir.add_version(2, "functional_mlp", ".h5");
  ModelRegistry models({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0,
                        .version_policy = AllVersions{}, .version_labels = {{"stable", 1}, {"canary", 2}, {"old", 0}}});
  RestHandler handler(models);
  const Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  const Tensor y = load_numbered(golden("functional_mlp"), "output")[0];
  for (const auto& [label, version] : {std::pair{"stable", "1"}, std::pair{"canary", "2"}}) {
    const std::string base = std::string("/v1/models/m/labels/") + label;
    RestResponse status = handler.handle("GET", base, "");
    ASSERT_EQ(status.status, 200) << status.body;
    EXPECT_EQ(json::parse(status.body)["model_version_status"][0]["version"], version) << label;
    RestResponse metadata = handler.handle("GET", base + "/metadata", "");
    EXPECT_EQ(json::parse(metadata.body)["model_spec"]["version"], version) << label;
    RestResponse predicted = handler.handle("POST", base + ":predict", json{{"inputs", values_json(x)}}.dump());
    ASSERT_EQ(predicted.status, 200) << predicted.body;
    expect_close(tensor_from_json(json::parse(predicted.body)["outputs"], y.shape()), y, label);
  }
  RestResponse unknown = handler.handle("GET", "/v1/models/m/labels/beta", "");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(unknown.body.find("Unrecognized servable version label: beta"), std::string::npos) << unknown.body;
  // A label naming a version that is not served: the version's NOT_FOUND.
  RestResponse gone =
      handler.handle("POST", "/v1/models/m/labels/old:predict", json{{"inputs", values_json(x)}}.dump());
  EXPECT_EQ(gone.status, 404);
  EXPECT_NE(gone.body.find("Specific(m, 0)"), std::string::npos) << gone.body;
  EXPECT_NE(gone.body.find("the served versions are 1, 2"), std::string::npos) << gone.body;
}

TEST(ModelRegistry, ConfigureAddsUpdatesAndDropsModelsWhileRequestsHoldThem) {
  ModelDir mlp, sequential;
  mlp.add_version(1, "functional_mlp", ".keras");
  mlp.add_version(2, "functional_mlp", ".h5");
  sequential.add_version(4, "sequential_mlp", ".keras");
  const ModelManagerOptions a{.name = "a", .base_path = mlp.path(), .file_system_poll_wait_seconds = 0};
  const ModelManagerOptions b{.name = "b", .base_path = sequential.path(), .file_system_poll_wait_seconds = 0};
  ModelRegistry models;
  RestHandler handler(models);
  EXPECT_EQ(handler.handle("GET", "/v1/models/a", "").status, 404);
  models.configure({a});
  const std::shared_ptr<ModelManager> first = models.find("a");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->served_versions(), std::vector<std::int64_t>({2}));

  ModelManagerOptions a_all = a;
  a_all.version_policy = AllVersions{};
  models.configure({a_all, b});
  EXPECT_EQ(models.names(), std::vector<std::string>({"a", "b"}));
  EXPECT_EQ(models.find("a"), first) << "a policy change updates the model in place";
  EXPECT_EQ(first->served_versions(), std::vector<std::int64_t>({1, 2}));
  const Tensor xs = load_numbered(golden("sequential_mlp"), "input")[0];
  const Tensor ys = load_numbered(golden("sequential_mlp"), "output")[0];
  RestResponse r = handler.handle("POST", "/v1/models/b:predict", json{{"inputs", values_json(xs)}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  expect_close(tensor_from_json(json::parse(r.body)["outputs"], ys.shape()), ys, "model b");
  EXPECT_EQ(handler.handle("GET", "/v1/models/a/versions/1", "").status, 200);

  std::shared_ptr<Servable> held = models.find("b")->latest();  // a request in flight on b
  models.configure({a_all});
  EXPECT_FALSE(models.find("b"));
  r = handler.handle("POST", "/v1/models/b:predict", json{{"inputs", values_json(xs)}}.dump());
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("Servable not found for request: Latest(b)"), std::string::npos) << r.body;
  expect_close(held->predict({xs})[0], ys, "model b, held by a request after it was dropped");

  ModelManagerOptions moved = a_all;
  moved.base_path = sequential.path();
  models.configure({moved});
  EXPECT_NE(models.find("a"), first) << "a new base path is a new model";
  EXPECT_EQ(models.find("a")->served_versions(), std::vector<std::int64_t>({4}));
  EXPECT_THROW(models.configure({a, a}), ValueError);
  EXPECT_EQ(models.find("a")->served_versions(), std::vector<std::int64_t>({4})) << "a refused config changes nothing";
}

}  // namespace
}  // namespace strata::serving::model_manager_test
