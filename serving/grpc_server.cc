#include "serving/grpc_server.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>

#include "core/error.h"

namespace strata::serving {

GrpcServer::GrpcServer(const ModelRegistry& models, GrpcServerOptions options)
    : prediction_(models, options.service), model_(models) {
  int threads = options.max_threads;
  if (threads <= 0) threads = 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  grpc::ResourceQuota quota("strata-serve");
  quota.SetMaxThreads(threads);
  const int max_receive = static_cast<int>(std::min<std::size_t>(options.max_receive_message_bytes, INT_MAX));
  // IPv6 addresses go in brackets in a gRPC target ("[::1]:8500").
  const std::string host = options.bind_address.find(':') != std::string::npos && options.bind_address[0] != '['
                               ? "[" + options.bind_address + "]"
                               : options.bind_address;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(host + ":" + std::to_string(options.port), grpc::InsecureServerCredentials(), &port_);
  builder.RegisterService(&prediction_);
  builder.RegisterService(&model_);
  builder.SetResourceQuota(quota);
  builder.SetMaxReceiveMessageSize(max_receive);
  builder.SetMaxSendMessageSize(INT_MAX);
  auto millis = [](double seconds) { return static_cast<int>(std::clamp(seconds, 0.001, 2e6) * 1000); };
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE,
                             static_cast<int>(std::min<std::size_t>(options.max_metadata_bytes, INT_MAX)));
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, millis(options.handshake_timeout_seconds));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, millis(options.max_connection_idle_seconds));
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
  // Calls still running after the deadline are cancelled.
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

void GrpcServer::wait() { server_->Wait(); }

}  // namespace strata::serving
