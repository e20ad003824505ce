// HttpRequestStream: httplib's Stream over one client connection, with the limits that keep
// a client from holding a serving thread: a whole request (request line, headers and body)
// must arrive before a deadline, and so must its answer leave, whatever pace the bytes come
// at. cpp-httplib's own stream times out each read alone, so a client sending a byte a
// second would hold its thread for ever. The request line and headers together are limited
// in size (httplib limits one line, not how many), and so are the bytes a body may take:
// httplib bounds a body by --rest_api_max_body_bytes only when it has a Content-Length,
// not a chunked one or one read until the client closes.
//
// HttpServer (serving/http_server.cc) drives it, one request at a time: begin_request()
// when a request's first bytes are there, headers_read() when httplib has parsed the
// headers, answering() when the handler has its answer. After a failed read, timed_out(),
// head_too_large() and body_too_large() say why, so the answer can say it (408, 431, 413).
// Every wait also ends when the server is stopping (its stop descriptor is readable).
//
// Only serving's .cc files include this header: it brings in httplib.
#pragma once

#include <httplib.h>

#include <array>
#include <chrono>
#include <cstddef>

namespace strata::serving {

struct HttpConnectionLimits {
  std::chrono::milliseconds request_timeout{30000};  // to receive one request, and to send its answer
  std::size_t max_header_bytes = 64u << 10;          // request line and headers, CRLFs included
  // Bytes a body may take on the wire: the body limit twice over (a chunked body's framing
  // may take as many bytes as its data) and 64 KiB.
  std::size_t max_body_wire_bytes = (64u << 20) * 2 + (64u << 10);
  int stop_fd = -1;  // readable once the server is stopping
};

class HttpRequestStream final : public httplib::Stream {
 public:
  HttpRequestStream(int fd, const HttpConnectionLimits& limits) : fd_(fd), limits_(limits) {}

  void begin_request();
  void headers_read() { phase_ = Phase::kBody; }
  void answering();
  // The body will not be read (refused before it was sent): the connection closes after the answer.
  void refuse_body() { body_too_large_ = true; }

  // Bytes already received and not yet read: the start of a pipelined request.
  bool has_buffered_bytes() const { return begin_ < end_; }
  // Whether this request's answer has started: a failure before it can still be answered.
  bool wrote_anything() const { return wrote_anything_; }
  bool timed_out() const { return timed_out_; }
  bool head_too_large() const { return head_too_large_; }
  bool body_too_large() const { return body_too_large_; }
  bool failed() const { return timed_out_ || head_too_large_ || body_too_large_ || write_failed_; }
  // Failed on a limit while the client may still be sending: its bytes are drained before
  // closing, so that it reads the answer instead of a reset.
  bool client_may_be_sending() const { return (head_too_large_ || body_too_large_ || timed_out_) && !write_failed_; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return fd_; }

 private:
  enum class Phase { kHead, kBody, kAnswer };
  // Waits until the socket has `events`; false when the deadline passed or the server is
  // stopping first.
  bool wait_for(short events) const;

  int fd_;
  const HttpConnectionLimits& limits_;
  Phase phase_ = Phase::kHead;
  std::chrono::steady_clock::time_point deadline_{};
  std::size_t head_bytes_ = 0, body_bytes_ = 0;
  bool timed_out_ = false, head_too_large_ = false, body_too_large_ = false, write_failed_ = false;
  bool wrote_anything_ = false;
  std::array<char, 16384> buffer_{};
  std::size_t begin_ = 0, end_ = 0;
};

}  // namespace strata::serving
