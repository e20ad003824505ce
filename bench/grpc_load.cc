// strata_grpc_load: a load generator for TensorFlow Serving's gRPC Predict (bench/serve_load.sh
// runs it against strata-serve beside wrk's REST run). It keeps --streams calls in flight on
// one channel (one HTTP/2 connection, as a gRPC client holds it) for --seconds after a
// --warmup, each a Predict of --instances examples of 0.5 shaped as the model's input (read
// from GetModelMetadata), and prints one line the script reads:
//   SUMMARY requests=N rps=R p50_ms=… p90_ms=… p99_ms=… max_ms=… errors=E
// Latency is from the call's start to its completion callback. Only loopback is ever
// targeted by the script; the program itself takes any --target.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "serving/proto/tensorflow_serving.grpc.pb.h"
#include "tools/cli/flags.h"

namespace {

namespace tfs = tensorflow::serving;
using Clock = std::chrono::steady_clock;

// Calls in flight, each started again from its completion until the run ends.
class Load {
 public:
  Load(tfs::PredictionService::Stub& stub, tfs::PredictRequest request) : stub_(stub), request_(std::move(request)) {}

  // Runs `streams` calls at once until `until`; latencies are kept when `record`.
  void run(int streams, Clock::time_point until, bool record) {
    {
      std::lock_guard lock(mu_);
      until_ = until;
      record_ = record;
      in_flight_ = streams;
    }
    for (int i = 0; i < streams; ++i) start();
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return in_flight_ == 0; });
  }

  std::vector<double> latencies_ms() const { return latencies_ms_; }
  std::map<int, long> errors() const { return errors_; }

 private:
  struct Call {
    grpc::ClientContext context;
    tfs::PredictResponse response;
    Clock::time_point start;
  };

  void start() {
    auto call = std::make_shared<Call>();
    call->start = Clock::now();
    call->context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    stub_.async()->Predict(&call->context, &request_, &call->response, [this, call](grpc::Status status) {
      const auto now = Clock::now();
      bool again = false;
      {
        std::lock_guard lock(mu_);
        if (record_) {
          latencies_ms_.push_back(std::chrono::duration<double, std::milli>(now - call->start).count());
          if (!status.ok()) ++errors_[status.error_code()];
        }
        again = now < until_;
        if (!again && --in_flight_ == 0) done_.notify_all();
      }
      if (again) start();
    });
  }

  tfs::PredictionService::Stub& stub_;
  const tfs::PredictRequest request_;
  std::mutex mu_;
  std::condition_variable done_;
  Clock::time_point until_;
  bool record_ = false;
  int in_flight_ = 0;
  std::vector<double> latencies_ms_;
  std::map<int, long> errors_;
};

double percentile(std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto i = static_cast<std::size_t>(p / 100.0 * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  std::string target = "127.0.0.1:8500", model = "m";
  int streams = 64, instances = 1;
  double seconds = 30, warmup = 3;
  strata::cli::Flags flags("Keeps gRPC Predict calls in flight against a TensorFlow Serving API and reports latency.");
  flags.add("target", &target, "host:port of the gRPC API")
      .add("model", &model, "the model's name")
      .add("streams", &streams, "calls in flight at once, on one channel")
      .add("instances", &instances, "examples per request")
      .add("seconds", &seconds, "length of the measured run")
      .add("warmup", &warmup, "seconds of load before it, not measured");
  try {
    if (!flags.parse(argc, argv)) return 0;
  } catch (const strata::Error& e) {
    std::cerr << "strata_grpc_load: " << e.what() << "\n" << flags.usage();
    return 2;
  }
  auto channel = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  auto stub = tfs::PredictionService::NewStub(channel);

  // The input's name and shape from the signature; the batch dimension is `instances`.
  tfs::GetModelMetadataRequest metadata_request;
  metadata_request.mutable_model_spec()->set_name(model);
  metadata_request.add_metadata_field("signature_def");
  tfs::GetModelMetadataResponse metadata;
  grpc::ClientContext metadata_context;
  metadata_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  const grpc::Status status = stub->GetModelMetadata(&metadata_context, metadata_request, &metadata);
  if (!status.ok()) {
    std::cerr << "strata_grpc_load: GetModelMetadata: " << status.error_message() << "\n";
    return 1;
  }
  tfs::SignatureDefMap signatures;
  metadata.metadata().at("signature_def").UnpackTo(&signatures);
  const auto& inputs = signatures.signature_def().at("serving_default").inputs();
  tfs::PredictRequest request;
  request.mutable_model_spec()->set_name(model);
  for (const auto& [name, info] : inputs) {
    if (info.dtype() != tensorflow::DT_FLOAT) {
      std::cerr << "strata_grpc_load: input '" << name << "' is not float; this load generator sends floats\n";
      return 2;
    }
    tensorflow::TensorProto& t = (*request.mutable_inputs())[name];
    t.set_dtype(info.dtype());
    std::int64_t n = 1;
    for (int d = 0; d < info.tensor_shape().dim_size(); ++d) {
      // The batch dimension is --instances; another unknown one (-1) is taken as 1.
      const std::int64_t size = d == 0 ? instances : std::max<std::int64_t>(1, info.tensor_shape().dim(d).size());
      t.mutable_tensor_shape()->add_dim()->set_size(size);
      n *= size;
    }
    for (std::int64_t i = 0; i < n; ++i) t.add_float_val(0.5f);
  }

  Load load(*stub, request);
  load.run(streams, Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(warmup)),
           false);
  const auto start = Clock::now();
  load.run(streams, start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)), true);
  const double took = std::chrono::duration<double>(Clock::now() - start).count();

  std::vector<double> latencies = load.latencies_ms();
  std::sort(latencies.begin(), latencies.end());
  long errors = 0;
  for (const auto& [code, n] : load.errors()) {
    errors += n;
    std::cout << "errors with status " << code << ": " << n << "\n";
  }
  std::printf("SUMMARY requests=%zu rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f errors=%ld\n",
              latencies.size(), static_cast<double>(latencies.size()) / took, percentile(latencies, 50),
              percentile(latencies, 90), percentile(latencies, 99), latencies.empty() ? 0.0 : latencies.back(),
              errors);
  return errors == 0 ? 0 : 1;
}
