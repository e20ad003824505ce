#include "serving/grpc_server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <thread>

#include "core/error.h"
#include "serving/errors.h"
#include "serving/task_threads.h"

namespace strata::serving {

namespace {

namespace tfs = tensorflow::serving;

// Answers a unary call on its raw bytes: parsed into Request, answered by `answer`, the
// Response serialized into `out`. Parsed here rather than by the generated callback handler
// because gRPC 1.51's callback API answers bytes that are not the message UNIMPLEMENTED
// with no message; this is what its synchronous server (and so TensorFlow Serving) answers:
// INTERNAL.
// Never throws: it runs on gRPC's threads and ours (out of memory is RESOURCE_EXHAUSTED).
template <typename Request, typename Response, typename Answer>
grpc::Status answer_raw(const grpc::ByteBuffer& in, grpc::ByteBuffer* out, Answer&& answer) noexcept {
  try {
    Request request;
    grpc::ByteBuffer bytes(in);  // Deserialize consumes it; the copy shares the slices
    grpc::Status status = grpc::SerializationTraits<Request>::Deserialize(&bytes, &request);
    if (!status.ok()) return status;
    Response response;
    status = answer(request, &response);
    if (!status.ok()) return status;
    bool own_buffer = false;
    return grpc::SerializationTraits<Response>::Serialize(response, out, &own_buffer);
  } catch (...) {
    const ServingError e = as_serving_error(std::current_exception());
    return {static_cast<grpc::StatusCode>(e.code()), e.what()};
  }
}

using PredictionRawService = tfs::PredictionService::WithRawCallbackMethod_Predict<
    tfs::PredictionService::WithRawCallbackMethod_GetModelMetadata<tfs::PredictionService::Service>>;

// PredictionService on gRPC's callback API: a Predict waits for one of the Predict threads;
// metadata is answered at once, on gRPC's thread.
class PredictionCallbacks final : public PredictionRawService {
 public:
  PredictionCallbacks(const PredictionServiceImpl& answers, TaskThreads& threads, std::size_t max_waiting)
      : answers_(answers), threads_(threads), max_waiting_(max_waiting) {}

  grpc::ServerUnaryReactor* Predict(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                    grpc::ByteBuffer* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    // A waiting call holds its request's bytes: their number is bounded, and past it a call
    // is refused at once, as TF Serving's synchronous server refuses one past its threads.
    if (waiting_.fetch_add(1) >= max_waiting_) {
      waiting_.fetch_sub(1);
      reactor->Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                   std::to_string(max_waiting_) +
                                       " Predicts are already waiting for a thread (--grpc_max_queued_predicts)"));
      return reactor;
    }
    // The call and its buffers live until Finish, which every path calls once.
    const bool queued = threads_.enqueue([this, context, reactor, request, response] {
      waiting_.fetch_sub(1);
      if (context->IsCancelled()) {
        reactor->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client cancelled the call before it ran"));
        return;
      }
      reactor->Finish(answer_raw<tfs::PredictRequest, tfs::PredictResponse>(
          *request, response, [this](const auto& in, auto* out) { return answers_.predict(in, out); }));
    });
    if (!queued) {
      waiting_.fetch_sub(1);
      reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is stopping"));
    }
    return reactor;
  }

  grpc::ServerUnaryReactor* GetModelMetadata(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                             grpc::ByteBuffer* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(answer_raw<tfs::GetModelMetadataRequest, tfs::GetModelMetadataResponse>(
        *request, response, [this](const auto& in, auto* out) { return answers_.model_metadata(in, out); }));
    return reactor;
  }

 private:
  const PredictionServiceImpl& answers_;
  TaskThreads& threads_;
  const std::size_t max_waiting_;
  std::atomic<std::size_t> waiting_{0};
};

class ModelCallbacks final
    : public tfs::ModelService::WithRawCallbackMethod_GetModelStatus<tfs::ModelService::Service> {
 public:
  explicit ModelCallbacks(const ModelServiceImpl& answers) : answers_(answers) {}

  grpc::ServerUnaryReactor* GetModelStatus(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(answer_raw<tfs::GetModelStatusRequest, tfs::GetModelStatusResponse>(
        *request, response, [this](const auto& in, auto* out) { return answers_.model_status(in, out); }));
    return reactor;
  }

 private:
  const ModelServiceImpl& answers_;
};

// Calls one connection may have open at once (HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS; Go's
// gRPC server has 250 too); a client with more waits for one to finish.
constexpr int kMaxStreamsPerConnection = 250;

// A decoded input may take what the largest request could carry as tensor_content.
GrpcServerOptions with_input_limit(GrpcServerOptions options) {
  options.service.max_input_bytes = options.max_receive_message_bytes;
  return options;
}

std::size_t thread_count(int max_threads) {
  return static_cast<std::size_t>(
      max_threads > 0 ? max_threads : 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace

struct GrpcServer::Services {
  Services(const ModelRegistry& models, const GrpcServerOptions& options)
      : prediction(models, options.service), model(models), threads(thread_count(options.max_threads)),
        prediction_callbacks(prediction, threads, std::max<std::size_t>(1, options.max_queued_predicts)),
        model_callbacks(model) {}

  PredictionServiceImpl prediction;
  ModelServiceImpl model;
  TaskThreads threads;
  PredictionCallbacks prediction_callbacks;
  ModelCallbacks model_callbacks;
};

GrpcServer::GrpcServer(const ModelRegistry& models, GrpcServerOptions options)
    : services_(std::make_unique<Services>(models, with_input_limit(options))) {
  const int max_receive = static_cast<int>(std::min<std::size_t>(options.max_receive_message_bytes, INT_MAX));
  // IPv6 addresses go in brackets in a gRPC target ("[::1]:8500").
  const std::string host = options.bind_address.find(':') != std::string::npos && options.bind_address[0] != '['
                               ? "[" + options.bind_address + "]"
                               : options.bind_address;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(host + ":" + std::to_string(options.port), grpc::InsecureServerCredentials(), &port_);
  builder.RegisterService(&services_->prediction_callbacks);
  builder.RegisterService(&services_->model_callbacks);
  builder.SetMaxReceiveMessageSize(max_receive);
  builder.SetMaxSendMessageSize(INT_MAX);
  auto millis = [](double seconds) { return static_cast<int>(std::clamp(seconds, 0.001, 2e6) * 1000); };
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE,
                             static_cast<int>(std::min<std::size_t>(options.max_metadata_bytes, INT_MAX)));
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, millis(options.handshake_timeout_seconds));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, millis(options.max_connection_idle_seconds));
  // gRPC's default is no limit on the calls one connection may have open at once.
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, kMaxStreamsPerConnection);
  // gRPC sets SO_REUSEPORT by default, so a second server on a port in use would bind
  // too and share the connections: a port in use is an error instead, as for REST.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  server_ = builder.BuildAndStart();
  if (!server_ || port_ <= 0) {
    if (server_) server_->Shutdown();
    throw IOError("can't listen for gRPC on " + host + ":" + std::to_string(options.port) +
                  " (is the port in use, or the address not this machine's?)");
  }
}

GrpcServer::~GrpcServer() { stop(); }

void GrpcServer::stop() {
  // Calls still running after the deadline are cancelled; Shutdown returns when every call
  // has finished, those waiting for a Predict thread too (they run, or see the cancel).
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  services_->threads.stop();
}

void GrpcServer::wait() { server_->Wait(); }

}  // namespace strata::serving
