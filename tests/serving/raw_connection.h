// A raw TCP client for the serving tests: bytes exactly as given, as slowly as wanted, or
// none at all, to see what the servers do with clients no library would be.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

namespace strata::serving::testing {

using Clock = std::chrono::steady_clock;

// A raw TCP connection to 127.0.0.1, closed when it goes.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(RawConnection&& other) noexcept : fd_(std::exchange(other.fd_, -1)), connected_(other.connected_) {}
  RawConnection& operator=(RawConnection&& other) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    connected_ = other.connected_;
    return *this;
  }

  bool connected() const { return connected_; }
  bool send(const std::string& bytes) const {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  // Everything the server sends until it closes the connection, or until `wait` passes;
  // `closed` says which.
  std::string read_until_closed(std::chrono::milliseconds wait, bool* closed) const {
    std::string got;
    *closed = false;
    const auto until = Clock::now() + wait;
    while (Clock::now() < until) {
      pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        *closed = true;
        break;
      }
      got.append(buffer, static_cast<std::size_t>(n));
    }
    return got;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// Raises this process's descriptor limit to the hard limit and returns it: each
// connection a test holds open is a descriptor here and one in the server.
inline std::size_t raise_descriptor_limit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0) return 0;
  files.rlim_cur = files.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &files);
  ::getrlimit(RLIMIT_NOFILE, &files);
  return static_cast<std::size_t>(files.rlim_cur);
}

}  // namespace strata::serving::testing
