// GrpcServer: TensorFlow Serving's gRPC API (serving/grpc_service.h) on a socket, with
// Debian's gRPC and its callback API. It listens on construction and serves until stop().
// Predicts run on max_threads threads of their own; more calls wait in order for one (a
// call whose client gave up meanwhile is not run). gRPC's synchronous server would answer
// them RESOURCE_EXHAUSTED "Server Threadpool Exhausted" instead, under load, as soon as
// its thread quota is taken. gRPC reads every connection with its own event loop, so a
// silent or slow client holds no thread: the limits below bound how long and how much it
// may hold.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "serving/grpc_service.h"

namespace strata::serving {

struct GrpcServerOptions {
  std::string bind_address = "0.0.0.0";
  int port = 8500;       // 0: any free port (see port())
  int max_threads = 0;   // --grpc_max_threads: Predicts at once; 0: 4 per hardware thread, as TensorFlow Serving
  // Largest request message; larger ones are refused by gRPC with RESOURCE_EXHAUSTED
  // before they are parsed. TensorFlow Serving allows 2 GiB; here, the REST body limit.
  std::size_t max_receive_message_bytes = 64u << 20;
  // Limits that keep clients from holding the server (see the flags in docs/serving.md):
  // the largest request metadata (HTTP/2 headers) a call may carry, larger is refused
  // (RESOURCE_EXHAUSTED); how long a new connection has to complete HTTP/2's opening (a
  // silent or trickling TCP connection is closed then); how long a connection may go
  // without a call before the server closes it (GOAWAY: gRPC clients reconnect when they
  // next call).
  std::size_t max_metadata_bytes = 8u << 10;  // gRPC's own default
  double handshake_timeout_seconds = 30;
  double max_connection_idle_seconds = 300;
  // Predicts waiting for a thread at most (each holds its request); past it a call is
  // refused with RESOURCE_EXHAUSTED. Memory bound: this times max_receive_message_bytes.
  std::size_t max_queued_predicts = 1024;
  GrpcServiceOptions service;
};

class GrpcServer {
 public:
  // Binds and starts serving; throws IOError when the address can't be bound.
  GrpcServer(const ModelRegistry& models, GrpcServerOptions options);
  ~GrpcServer();  // stops
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  int port() const { return port_; }
  // Stops accepting calls and waits (up to a few seconds) for the running ones. Safe to
  // call more than once and from another thread than wait()'s.
  void stop();
  // Blocks until stop().
  void wait();

 private:
  struct Services;
  std::unique_ptr<Services> services_;  // the answers, the Predict threads and gRPC's callback services
  std::unique_ptr<grpc::Server> server_;
  int port_ = -1;
};

}  // namespace strata::serving
