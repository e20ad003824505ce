#include "serving/http_server.h"

#include <httplib.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sys/eventfd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/error.h"
#include "serving/http_request_stream.h"
#include "serving/idle_connections.h"
#include "serving/task_threads.h"

namespace strata::serving {

namespace {

// The answer written when a request failed before httplib could answer it (its first line
// never came whole): the same JSON error body every other answer carries.
void write_error_answer(httplib::Stream& stream, int status, const char* reason, const std::string& message) {
  const std::string body = error_json(message);
  stream.write_format("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                      "Connection: close\r\n\r\n",
                      status, reason, body.size());
  stream.write(body);
}

// Set while a serving thread answers a connection, so the error handler can tell why a
// read failed (deadline, head size) and say so.
thread_local HttpRequestStream* current_stream = nullptr;

// Set on httplib's listen thread while it hands accept() a connection past the limit.
thread_local bool refusing_connection = false;

// Drops what the client has sent and is still sending, for a moment after our FIN: closing
// a socket with unread bytes sends a reset, and a client still writing would then never
// read the answer.
// With `at_most` 0, it drops only what has already come.
void drain(int fd, std::chrono::milliseconds at_most) {
  ::shutdown(fd, SHUT_WR);
  const auto until = std::chrono::steady_clock::now() + at_most;
  std::array<char, 16384> sink{};
  std::size_t dropped = 0;
  while (dropped < (1u << 20)) {
    const ssize_t n = ::recv(fd, sink.data(), sink.size(), MSG_DONTWAIT);
    if (n > 0) {
      dropped += static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) break;  // closed, or failed
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 50))) <= 0) break;
  }
}

}  // namespace

struct HttpServer::Impl {
  // httplib's server with its per-connection loop replaced: a connection is answered on
  // TaskThreads with HttpRequestStream's deadlines, and parked in IdleConnections between
  // requests instead of holding its thread.
  class Server final : public httplib::Server {
   public:
    explicit Server(Impl& impl) : impl_(impl) {}
    bool answer_one(HttpRequestStream& stream, bool close_connection, bool& connection_closed) {
      return process_request(stream, close_connection, connection_closed,
                             [&stream](httplib::Request&) { stream.headers_read(); });
    }
    // Debian's cpp-httplib 0.11 listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG,
    // fixed when the shared library was compiled), so a burst of connections (64 from a
    // load generator) overflows the accept queue and clients wait out SYN-ACK
    // retransmits (1 s, then 3 s). listen() again on the socket sets a new backlog.
    void widen_listen_backlog() {
      const socket_t sock = svr_sock_;
      if (sock != INVALID_SOCKET) ::listen(sock, SOMAXCONN);
    }
    // httplib's stop() does nothing until its listen loop has started, so a stop that
    // comes first (a signal while models load) would leave the loop to run for ever.
    // Closing the socket ends the loop whenever it starts.
    void close_listening_socket() {
      stop();
      const socket_t sock = svr_sock_.exchange(INVALID_SOCKET);
      if (sock != INVALID_SOCKET) {
        ::shutdown(sock, SHUT_RDWR);
        ::close(sock);
      }
    }

   private:
    bool process_and_close_socket(socket_t sock) override {
      impl_.accept(sock);
      return true;
    }
    Impl& impl_;
  };

  // httplib's listen loop hands each accepted connection to its TaskQueue: this one counts
  // it there, on the listen thread (so connections waiting for a thread count too), and
  // forwards it to TaskThreads, which outlive the loop. One past the limit is refused at
  // once, on the listen thread: accept() answers it 503 without blocking.
  class Queue final : public httplib::TaskQueue {
   public:
    explicit Queue(Impl& impl) : impl_(impl) {}
    void enqueue(std::function<void()> fn) override {
      if (impl_.open_connections.fetch_add(1) + 1 > impl_.max_connections) {
        refusing_connection = true;
        fn();
        refusing_connection = false;
        return;
      }
      if (!impl_.threads.enqueue(fn)) fn();  // stopping: accept() closes it at once
    }
    void shutdown() override {}  // HttpServer::stop() stops the threads

   private:
    Impl& impl_;
  };

  explicit Impl(const HttpServerOptions& options)
      : stop_fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
        limits{.request_timeout = to_millis(options.request_timeout_seconds),
               .max_header_bytes = options.max_header_bytes,
               .max_body_wire_bytes = options.max_body_bytes * 2 + (64u << 10),
               .stop_fd = stop_fd},
        max_connections(std::max<std::size_t>(1, options.max_connections)),
        threads(static_cast<std::size_t>(options.num_threads)),
        idle(
            to_millis(options.idle_timeout_seconds),
            [this](int fd) {
              if (!threads.enqueue([this, fd] { serve(fd); })) close_connection(fd);
            },
            [this](int fd) { close_connection(fd); }),
        server(*this) {
    if (stop_fd < 0) throw IOError(std::string("can't create the HTTP server's stop event: ") + std::strerror(errno));
  }
  ~Impl() { ::close(stop_fd); }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  static std::chrono::milliseconds to_millis(double seconds) {
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::clamp(seconds, 0.001, 1e9) * 1000));
  }

  // A connection httplib accepted, counted by Queue: refused past max_connections, else served.
  void accept(int fd) {
    if (refusing_connection || stopping) {
      if (refusing_connection) {
        // Best effort, never blocking the listen thread: a client that has not sent its
        // request yet reads the 503.
        const std::string body = error_json("the server has " + std::to_string(max_connections) +
                                            " connections open, its limit (--rest_api_max_connections)");
        const std::string answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                                   "Content-Length: " +
                                   std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
        [[maybe_unused]] const ssize_t sent = ::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        drain(fd, std::chrono::milliseconds(0));  // what already came, without waiting
      }
      close_connection(fd);
      return;
    }
    serve(fd);
  }

  // Answers requests while the connection has them, then parks it (or closes it).
  void serve(int fd) {
    HttpRequestStream stream(fd, limits);
    current_stream = &stream;
    struct Reset {
      ~Reset() { current_stream = nullptr; }
    } reset;
    for (;;) {
      if (stopping) break;
      // A keep-alive client usually sends its next request within a few milliseconds: while
      // other threads are free to take new work, wait for it here, which saves parking the
      // connection and waking it again; when none is free, give the thread up at once.
      const auto wait = threads.idle_threads() > 0 ? kWaitBeforeParking : std::chrono::milliseconds(0);
      if (!stream.has_buffered_bytes() && !readable_within(fd, wait)) {
        if (idle.park(fd)) return;
        break;
      }
      stream.begin_request();
      bool connection_closed = false;
      const bool answered = server.answer_one(stream, stopping, connection_closed);
      if (stream.failed() && !stream.wrote_anything() && !stopping) {
        // httplib gave up before the request line was whole, without an answer.
        stream.answering();
        if (stream.head_too_large()) write_error_answer(stream, 431, "Request Header Fields Too Large", head_message());
        else if (stream.timed_out()) write_error_answer(stream, 408, "Request Timeout", timeout_message());
      }
      if (!answered || connection_closed || stream.failed()) {
        if (stream.client_may_be_sending() && !stopping) drain(fd, std::chrono::milliseconds(500));
        close_connection(fd);
        return;
      }
    }
    close_connection(fd);
  }

  // Whether the connection has bytes (or a hang-up) within `wait`; false when stopping.
  bool readable_within(int fd, std::chrono::milliseconds wait) const {
    std::array<pollfd, 2> p{pollfd{.fd = fd, .events = POLLIN, .revents = 0},
                            pollfd{.fd = stop_fd, .events = POLLIN, .revents = 0}};
    return ::poll(p.data(), p.size(), static_cast<int>(wait.count())) > 0 && p[1].revents == 0;
  }

  void close_connection(int fd) {
    ::close(fd);
    open_connections.fetch_sub(1);
  }

  std::string head_message() const {
    return "the request line and headers are larger than the limit of " + std::to_string(limits.max_header_bytes) +
           " bytes (--rest_api_max_header_bytes)";
  }
  std::string timeout_message() const {
    return "the request did not arrive whole within " + std::to_string(limits.request_timeout.count()) +
           " ms (--rest_api_request_timeout_seconds)";
  }

  // Wakes every wait of every connection (HttpRequestStream's, readable_within's).
  void signal_stop() {
    stopping = true;
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = ::write(stop_fd, &one, sizeof one);
  }

  static constexpr std::chrono::milliseconds kWaitBeforeParking{20};

  const int stop_fd;  // an eventfd, readable once stopping
  HttpConnectionLimits limits;
  std::size_t max_connections;
  std::atomic<std::size_t> open_connections{0};
  std::atomic<bool> stopping{false};
  TaskThreads threads;
  IdleConnections idle;
  // Declared last, so destroyed first: httplib's server refers to the members above.
  Server server;
};

HttpServer::HttpServer(const RestHandler& handler, HttpServerOptions options) {
  if (options.num_threads <= 0) {
    options.num_threads = 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  options_ = std::move(options);
  impl_ = std::make_unique<Impl>(options_);
  httplib::Server& s = impl_->server;
  // httplib's API: it takes ownership of the raw pointer, and deletes it when listen() ends.
  s.new_task_queue = [impl = impl_.get()] { return new Impl::Queue(*impl); };
  s.set_payload_max_length(options_.max_body_bytes);
  s.set_tcp_nodelay(true);
  // Only SO_REUSEADDR: Debian's httplib also sets SO_REUSEPORT, with which a second server
  // binds a port in use and silently shares its connections.
  s.set_socket_options([](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // What the Keep-Alive header tells clients: the idle timeout, and no request count limit.
  s.set_keep_alive_timeout(static_cast<time_t>(std::ceil(std::max(1.0, options_.idle_timeout_seconds))));
  s.set_keep_alive_max_count(100000);
  // A body announced over the limit is refused before the client sends it.
  s.set_expect_100_continue_handler(
      [max = options_.max_body_bytes](const httplib::Request& req, httplib::Response& res) {
        const std::string length = req.get_header_value("Content-Length");
        if (length.empty() || std::strtoull(length.c_str(), nullptr, 10) <= max) return 100;
        if (current_stream) current_stream->refuse_body();  // then closed: the body is never read
        res.status = 413;  // what httplib answers with (it does not use the value returned)
        return 413;
      });
  auto serve = [&handler, max = options_.max_body_bytes](const httplib::Request& req, httplib::Response& res) {
    // httplib limits a body with a Content-Length; a chunked one is limited here, once read
    // (HttpRequestStream bounds what that reading may take).
    if (req.body.size() > max) {
      res.status = 413;
      return;
    }
    RestResponse r = handler.handle(req.method, req.path, req.body);
    res.status = r.status;
    res.set_content(std::move(r.body), r.content_type);
    // The answer has a deadline of its own from here: the handler's time is not the client's.
    if (current_stream) current_stream->answering();
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
      [max = options_.max_body_bytes, impl = impl_.get()](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string message = "HTTP " + std::to_string(res.status) + " for " + req.method + " " + req.path;
    // The answer gets a deadline of its own: the request's may be what ran out.
    if (current_stream) current_stream->answering();
    // A read that failed on a limit of ours reaches here as httplib's 400: say which.
    if (current_stream && current_stream->head_too_large()) {
      res.status = 431;
      message = impl->head_message();
    } else if (current_stream && current_stream->body_too_large()) {
      res.status = 413;
    } else if (current_stream && current_stream->timed_out()) {
      res.status = 408;
      message = impl->timeout_message();
    }
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
  impl_->server.widen_listen_backlog();
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
      impl_->server.close_listening_socket();
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
  impl_->signal_stop();
  impl_->server.close_listening_socket();
  if (thread_.joinable()) thread_.join();
  // Parked connections are closed; those being answered close after their request, and
  // any wait for a slow client ends at once.
  impl_->idle.stop();
  impl_->threads.stop();
}

std::size_t HttpServer::open_connections() const { return impl_->open_connections; }

std::size_t HttpServer::idle_connections() const { return impl_->idle.size(); }

}  // namespace strata::serving
