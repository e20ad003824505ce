#include "serving/http_request_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace strata::serving {

namespace {

void address_of(const sockaddr_storage& addr, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(addr);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    port = ntohs(v4.sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(addr);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    port = ntohs(v6.sin6_port);
  }
  ip = text;
}

}  // namespace

void HttpRequestStream::begin_request() {
  phase_ = Phase::kHead;
  deadline_ = std::chrono::steady_clock::now() + limits_.request_timeout;
  head_bytes_ = 0;
  body_bytes_ = 0;
  wrote_anything_ = false;
}

void HttpRequestStream::answering() {
  phase_ = Phase::kAnswer;
  deadline_ = std::chrono::steady_clock::now() + limits_.request_timeout;
}

bool HttpRequestStream::wait_for(short events) const {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
    if (left.count() < 0) return false;
    std::array<pollfd, 2> p{pollfd{.fd = fd_, .events = events, .revents = 0},
                            pollfd{.fd = limits_.stop_fd, .events = POLLIN, .revents = 0}};
    // +1: poll rounds down, and a wait must not end just before the deadline it is for.
    const int n = ::poll(p.data(), limits_.stop_fd >= 0 ? 2 : 1,
                         static_cast<int>(std::min<long long>(left.count() + 1, 1 << 30)));
    if (n > 0) return p[1].revents == 0;  // ready (or an error the next call reports), unless stopping
    if (n < 0 && errno != EINTR) return false;
  }
}

bool HttpRequestStream::is_readable() const { return has_buffered_bytes() || wait_for(POLLIN); }

bool HttpRequestStream::is_writable() const { return wait_for(POLLOUT); }

ssize_t HttpRequestStream::read(char* ptr, size_t size) {
  if (size == 0) return 0;
  while (begin_ == end_) {
    // Bytes already there are taken without a poll; a wait only when there are none.
    const ssize_t n = ::recv(fd_, buffer_.data(), buffer_.size(), MSG_DONTWAIT);
    if (n == 0) return 0;  // the client closed
    if (n > 0) {
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
      break;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
    if (errno != EINTR && !wait_for(POLLIN)) {
      timed_out_ = true;  // or stopping: either way the request is not read
      return -1;
    }
  }
  std::size_t count = std::min(size, end_ - begin_);
  // httplib reads the request line and headers a byte at a time, so the head is counted
  // exactly.
  if (phase_ == Phase::kHead) {
    count =
        std::min<std::size_t>(count, limits_.max_header_bytes + 1 - std::min(head_bytes_, limits_.max_header_bytes));
    head_bytes_ += count;
    if (head_bytes_ > limits_.max_header_bytes) {
      head_too_large_ = true;
      return -1;
    }
  } else if (phase_ == Phase::kBody) {
    body_bytes_ += count;
    if (body_bytes_ > limits_.max_body_wire_bytes) {
      body_too_large_ = true;
      return -1;
    }
  }
  std::memcpy(ptr, buffer_.data() + begin_, count);
  begin_ += count;
  return static_cast<ssize_t>(count);
}

ssize_t HttpRequestStream::write(const char* ptr, size_t size) {
  for (;;) {
    const ssize_t n = ::send(fd_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) {
      wrote_anything_ = wrote_anything_ || n > 0;
      return n;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;
    if (errno != EINTR && !wait_for(POLLOUT)) break;
  }
  write_failed_ = true;
  return -1;
}

void HttpRequestStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) address_of(addr, ip, port);
}

void HttpRequestStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) address_of(addr, ip, port);
}

}  // namespace strata::serving
