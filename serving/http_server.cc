#include "serving/http_server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>

#include "core/error.h"

namespace strata::serving {

namespace {

// Debian's cpp-httplib 0.11 listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, fixed
// when the shared library was compiled), so a burst of connections (64 from a load
// generator) overflows the accept queue and clients wait out SYN-ACK retransmits (1 s,
// then 3 s). Calling listen() again on the listening socket sets a new backlog on Linux;
// httplib keeps that socket private, so it is found by its port among our descriptors.
void widen_listen_backlog(int port) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    int listening = 0;
    socklen_t len = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening) continue;
    sockaddr_storage addr{};
    socklen_t addr_len = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addr_len) != 0) continue;
    int bound = -1;
    if (addr.ss_family == AF_INET) bound = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    if (addr.ss_family == AF_INET6) bound = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
    if (bound == port) ::listen(fd, SOMAXCONN);
  }
}

}  // namespace

struct HttpServer::Impl {
  httplib::Server server;
};

HttpServer::HttpServer(const RestHandler& handler, HttpServerOptions options)
    : impl_(std::make_unique<Impl>()), options_(std::move(options)) {
  int threads = options_.num_threads;
  if (threads <= 0) threads = 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  httplib::Server& s = impl_->server;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<std::size_t>(threads)); };
  s.set_payload_max_length(options_.max_body_bytes);
  // A keep-alive connection keeps its thread; it is closed after this many requests.
  s.set_keep_alive_max_count(100000);
  s.set_tcp_nodelay(true);
  auto serve = [&handler](const httplib::Request& req, httplib::Response& res) {
    RestResponse r = handler.handle(req.method, req.path, req.body);
    res.status = r.status;
    res.set_content(std::move(r.body), r.content_type);
  };
  // Every method httplib dispatches goes to the handler, which answers a wrong one with
  // TF Serving's "Malformed request" (400) rather than httplib's bare 404.
  s.Get(".*", serve);
  s.Post(".*", serve);
  s.Put(".*", serve);
  s.Patch(".*", serve);
  s.Delete(".*", serve);
  s.Options(".*", serve);
  // Answers httplib makes itself (413 for a body over the limit, 414 for a long URI, 400
  // for a request it can't read or a method it does not know) get a JSON body too.
  s.set_error_handler(httplib::Server::HandlerWithResponse(
      [max = options_.max_body_bytes](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string message = "HTTP " + std::to_string(res.status) + " for " + req.method + " " + req.path;
    if (res.status == 413) {
      message = "the request body is larger than the limit of " + std::to_string(max) +
                " bytes (--rest_api_max_body_bytes)";
    }
    if (res.status == 414) {
      message = "the request URI is longer than the limit of " + std::to_string(CPPHTTPLIB_REQUEST_URI_MAX_LENGTH) +
                " bytes";
    }
    res.set_content(error_json(message), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::bind() {
  httplib::Server& s = impl_->server;
  if (options_.port == 0) {
    port_ = s.bind_to_any_port(options_.bind_address);
  } else {
    port_ = s.bind_to_port(options_.bind_address, options_.port) ? options_.port : -1;
  }
  if (port_ < 0) {
    throw IOError("can't bind " + options_.bind_address + ":" + std::to_string(options_.port) +
                  " (in use, or not an address of this machine)");
  }
  widen_listen_backlog(port_);
  return port_;
}

void HttpServer::listen() { impl_->server.listen_after_bind(); }

int HttpServer::start() {
  const int port = bind();
  // listen_after_bind() returns at once when it can't listen; then is_running() never
  // becomes true, so wait for either, and at most kStartTimeout.
  constexpr auto kStartTimeout = std::chrono::seconds(10);
  auto listen_returned = std::make_shared<std::atomic<bool>>(false);
  thread_ = std::thread([this, listen_returned] {
    listen();
    *listen_returned = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (!impl_->server.is_running()) {
    const bool returned = *listen_returned;
    if (returned || std::chrono::steady_clock::now() >= deadline) {
      impl_->server.stop();
      thread_.join();
      throw IOError("the HTTP server on " + options_.bind_address + ":" + std::to_string(port) +
                    (returned ? " stopped before it was listening"
                              : " was not listening after " + std::to_string(kStartTimeout.count()) + " s"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return port;
}

void HttpServer::stop() {
  impl_->server.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace strata::serving
