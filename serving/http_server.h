// HttpServer: the RestHandler on an HTTP socket, with cpp-httplib (Debian's
// libcpp-httplib-dev). Requests are answered by a pool of rest_api_num_threads threads;
// bodies over max_body_bytes are refused with 413 before they are read. Every answer is
// JSON, errors included ({"error": "..."}).
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "serving/rest_handler.h"

namespace strata::serving {

struct HttpServerOptions {
  std::string bind_address = "0.0.0.0";
  int port = 8501;              // 0: any free port (see bind())
  int num_threads = 0;          // 0: 4 per hardware thread, as TensorFlow Serving
  std::size_t max_body_bytes = 64u << 20;
};

class HttpServer {
 public:
  HttpServer(const RestHandler& handler, HttpServerOptions options);
  ~HttpServer();  // stops
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the socket and returns the port (the one picked when options.port is 0).
  // Throws IOError when the address can't be bound.
  int bind();
  // Serves until stop() (bind() first).
  void listen();
  // bind() and listen() on a background thread; returns the port.
  int start();
  void stop();
  int port() const { return port_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  HttpServerOptions options_;
  int port_ = -1;
  std::thread thread_;
};

}  // namespace strata::serving
