// The gRPC server's limits against clients that would hold it: TCP connections that never
// open HTTP/2 (silent, or trickling a byte at a time), thousands of them, channels left
// open without calls, and metadata past the limit. Each bad client is cut off, and a
// well-behaved client is answered meanwhile. Built when CMake found gRPC.
#ifdef STRATA_WITH_GRPC

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "serving/grpc_server.h"
#include "tests/serving/raw_connection.h"
#include "tests/serving/serving_test_util.h"

namespace strata::serving::grpc_limits_test {
namespace {

using namespace strata::serving::testing;
namespace tfs = tensorflow::serving;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// functional_mlp served over gRPC as "m" on a loopback port.
struct Served {
  explicit Served(GrpcServerOptions options) {
    dir.add_version(1, "functional_mlp", ".keras");
    registry = std::make_unique<ModelRegistry>(
        ModelManagerOptions{.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
    options.bind_address = "127.0.0.1";
    options.port = 0;
    server = std::make_unique<GrpcServer>(*registry, options);
  }
  std::string target() const { return "127.0.0.1:" + std::to_string(server->port()); }

  // A status call on a new channel, timed; -1 when it failed.
  double timed_status_call(const std::string& pad_metadata = "") const {
    const auto start = Clock::now();
    auto stub = tfs::ModelService::NewStub(grpc::CreateChannel(target(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!pad_metadata.empty()) context.AddMetadata("x-padding", pad_metadata);
    tfs::GetModelStatusRequest request;
    request.mutable_model_spec()->set_name("m");
    tfs::GetModelStatusResponse response;
    last_status = stub->GetModelStatus(&context, request, &response);
    return last_status.ok() ? seconds_since(start) : -1;
  }

  ModelDir dir;
  std::unique_ptr<ModelRegistry> registry;
  std::unique_ptr<GrpcServer> server;
  mutable grpc::Status last_status;
};

// `count` Predicts of `request` sent at once on `stub`'s channel, as each call ended.
struct Answered {
  grpc::Status status;
  tfs::PredictResponse response;
};
std::vector<Answered> predict_all_at_once(tfs::PredictionService::Stub& stub, const tfs::PredictRequest& request,
                                          int count) {
  struct Call {
    grpc::ClientContext context;
    Answered answered;
  };
  std::vector<Call> calls(static_cast<std::size_t>(count));
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  for (auto& c : calls) {
    stub.async()->Predict(&c.context, &request, &c.answered.response, [&, call = &c](grpc::Status status) {
      std::lock_guard lock(mu);
      call->answered.status = status;
      ++done;
      cv.notify_all();
    });
  }
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return done == count; });
  std::vector<Answered> answers;
  for (auto& c : calls) answers.push_back(std::move(c.answered));
  return answers;
}

TEST(GrpcLimits, ConnectionsThatNeverOpenHttp2AreClosedAfterTheHandshakeTimeout) {
  const std::size_t descriptors = raise_descriptor_limit();
  const std::size_t silent_count = std::min<std::size_t>(1000, (std::max<std::size_t>(descriptors, 200) - 200) / 2);
  if (silent_count < 300) GTEST_SKIP() << "the descriptor limit (" << descriptors << ") is too low for this test";
  Served served({.handshake_timeout_seconds = 4});
  // Hundreds of connections that send nothing, and three that send the HTTP/2 preface a
  // byte every 250 ms (it would take 6 s, past the 4 s timeout).
  std::vector<RawConnection> silent, trickling;
  for (std::size_t i = 0; i < silent_count; ++i) {
    silent.emplace_back(served.server->port());
    ASSERT_TRUE(silent.back().connected()) << i;
  }
  for (int i = 0; i < 3; ++i) trickling.emplace_back(served.server->port());
  const auto start = Clock::now();
  std::atomic<bool> trickle_on{true};
  std::thread trickle([&] {
    const std::string preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    for (std::size_t i = 0; i < preface.size() && trickle_on; ++i) {
      for (const auto& c : trickling) c.send(std::string(1, preface[i]));
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  });
  // Answered at once meanwhile.
  for (int i = 0; i < 5; ++i) {
    const double took = served.timed_status_call();
    EXPECT_GE(took, 0) << served.last_status.error_message();
    EXPECT_LT(took, 2.0);  // well under the handshake timeout: not kept waiting for the silent ones
  }
  for (const auto* group : {&trickling, &silent}) {
    for (std::size_t i = 0; i < group->size(); i += group->size() > 10 ? 97 : 1) {
      bool closed = false;
      (*group)[i].read_until_closed(
          std::chrono::milliseconds(8000) - std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start),
          &closed);
      EXPECT_TRUE(closed) << "connection " << i << " still open after " << seconds_since(start) << " s";
    }
  }
  EXPECT_GE(seconds_since(start), 3.9) << "closed before the handshake timeout";
  trickle_on = false;
  trickle.join();
  EXPECT_GE(served.timed_status_call(), 0);
}

TEST(GrpcLimits, AChannelWithoutCallsIsClosedAfterTheIdleLimitAndReconnectsWhenItCalls) {
  Served served({.max_connection_idle_seconds = 1});
  auto channel = grpc::CreateChannel(served.target(), grpc::InsecureChannelCredentials());
  auto stub = tfs::ModelService::NewStub(channel);
  auto call = [&] {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    tfs::GetModelStatusRequest request;
    request.mutable_model_spec()->set_name("m");
    tfs::GetModelStatusResponse response;
    return stub->GetModelStatus(&context, request, &response);
  };
  ASSERT_TRUE(call().ok());
  EXPECT_EQ(channel->GetState(false), GRPC_CHANNEL_READY);
  // The server's GOAWAY after a second without calls takes the channel back to IDLE.
  const auto start = Clock::now();
  while (channel->GetState(false) == GRPC_CHANNEL_READY && seconds_since(start) < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(channel->GetState(false), GRPC_CHANNEL_READY) << "the idle connection was not closed";
  EXPECT_GE(seconds_since(start), 0.5);
  EXPECT_TRUE(call().ok()) << "the channel did not reconnect";
}

TEST(GrpcLimits, MoreCallsThanThreadsWaitForOneAndAllSucceed) {
  // Two Predict threads, 64 calls in flight at once: they queue. (gRPC's synchronous server
  // answered those past its thread quota RESOURCE_EXHAUSTED "Server Threadpool Exhausted".)
  Served served({.max_threads = 2});
  auto stub = tfs::PredictionService::NewStub(grpc::CreateChannel(served.target(), grpc::InsecureChannelCredentials()));
  const Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  tfs::PredictRequest request;
  request.mutable_model_spec()->set_name("m");
  tensorflow::TensorProto& input = (*request.mutable_inputs())["x"];
  input.set_dtype(tensorflow::DT_FLOAT);
  for (std::int64_t d : x.shape().dims()) input.mutable_tensor_shape()->add_dim()->set_size(d);
  for (std::int64_t i = 0; i < x.size(); ++i) input.add_float_val(x.data<float>()[i]);
  for (int round = 0; round < 5; ++round) {
    for (const Answered& a : predict_all_at_once(*stub, request, 64)) {
      ASSERT_TRUE(a.status.ok()) << "round " << round << ": " << a.status.error_code() << " "
                                 << a.status.error_message();
      EXPECT_EQ(a.response.outputs().begin()->second.float_val_size(), x.shape()[0] * 3);
    }
  }
}

TEST(GrpcLimits, PredictsPastTheQueueLimitAreRefusedAndTheOthersAnswered) {
  // One Predict thread, at most two calls waiting: of 64 sent at once, those past the queue
  // get RESOURCE_EXHAUSTED naming the flag, at once, and every other is answered.
  Served served({.max_threads = 1, .max_queued_predicts = 2});
  auto stub = tfs::PredictionService::NewStub(grpc::CreateChannel(served.target(), grpc::InsecureChannelCredentials()));
  tfs::PredictRequest request;
  request.mutable_model_spec()->set_name("m");
  tensorflow::TensorProto& input = (*request.mutable_inputs())["x"];
  input.set_dtype(tensorflow::DT_FLOAT);
  input.mutable_tensor_shape()->add_dim()->set_size(512);
  input.mutable_tensor_shape()->add_dim()->set_size(4);
  input.add_float_val(0.5f);
  const std::vector<Answered> answers = predict_all_at_once(*stub, request, 64);
  int refused = 0;
  for (const Answered& a : answers) {
    if (a.status.ok()) continue;
    ++refused;
    EXPECT_EQ(a.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(a.status.error_message().find("--grpc_max_queued_predicts"), std::string::npos)
        << a.status.error_message();
  }
  EXPECT_GT(refused, 0);
  EXPECT_LT(refused, 64);
}

TEST(GrpcLimits, MetadataPastTheLimitIsRefusedAndTheServerGoesOn) {
  Served served({.max_metadata_bytes = 4096});
  EXPECT_LT(served.timed_status_call(std::string(6000, 'a')), 0);  // gRPC's own default would take it
  EXPECT_EQ(served.last_status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << served.last_status.error_code() << ": " << served.last_status.error_message();
  EXPECT_GE(served.timed_status_call(std::string(1000, 'a')), 0) << served.last_status.error_message();
}

}  // namespace
}  // namespace strata::serving::grpc_limits_test

#endif  // STRATA_WITH_GRPC
