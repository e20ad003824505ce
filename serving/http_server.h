// HttpServer: the RestHandler on an HTTP socket, with cpp-httplib (Debian's
// libcpp-httplib-dev) parsing requests. Requests are answered by a pool of
// rest_api_num_threads threads; a connection holds a thread only while it sends a request
// and gets its answer: between requests it waits in one epoll set with every other idle
// connection. Every answer is JSON, errors included ({"error": "..."}).
//
// Limits, each a flag of strata-serve, keep clients from starving the others: a request's
// line and headers over max_header_bytes get 431; a body over max_body_bytes gets 413; a
// request not received whole within request_timeout_seconds gets 408 (a client sending a
// byte a second), and an answer not taken within it is dropped; a connection idle longer
// than idle_timeout_seconds is closed; past max_connections open at once, a new one gets
// 503 and is closed.
#pragma once

#include <cstddef>
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
  std::size_t max_header_bytes = 64u << 10;
  double request_timeout_seconds = 30;
  double idle_timeout_seconds = 60;
  std::size_t max_connections = 10000;
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
  // Connections open now, and how many of them are idle between requests.
  std::size_t open_connections() const;
  std::size_t idle_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  HttpServerOptions options_;
  int port_ = -1;
  std::thread thread_;
};

}  // namespace strata::serving
