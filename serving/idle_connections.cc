#include "serving/idle_connections.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"

namespace strata::serving {

namespace {
// How often idle deadlines are checked: an idle connection is closed at most this late.
constexpr std::chrono::milliseconds kExpiryTick{100};
}  // namespace

IdleConnections::IdleConnections(std::chrono::milliseconds idle_timeout, std::function<void(int)> resume,
                                 std::function<void(int)> close)
    : idle_timeout_(idle_timeout), resume_(std::move(resume)), close_(std::move(close)) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0) {
    const std::string why = std::strerror(errno);
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    throw IOError("can't create the idle connections' epoll set: " + why);
  }
  epoll_event wake{.events = EPOLLIN, .data = {.fd = wake_fd_}};
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &wake);
  thread_ = std::thread([this] { run(); });
}

IdleConnections::~IdleConnections() {
  stop();
  ::close(epoll_fd_);
  ::close(wake_fd_);
}

bool IdleConnections::park(int fd) {
  std::lock_guard lock(mu_);
  if (stopping_) return false;
  deadlines_[fd] = std::chrono::steady_clock::now() + idle_timeout_;
  // Readable, or the client hung up: either way a serving thread takes it back to find out.
  epoll_event event{.events = EPOLLIN | EPOLLRDHUP, .data = {.fd = fd}};
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
    deadlines_.erase(fd);
    return false;
  }
  return true;
}

void IdleConnections::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  for (const auto& [fd, deadline] : deadlines_) {
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    close_(fd);
  }
  deadlines_.clear();
}

std::size_t IdleConnections::size() const {
  std::lock_guard lock(mu_);
  return deadlines_.size();
}

void IdleConnections::close_expired(std::chrono::steady_clock::time_point now) {
  std::vector<int> expired;
  {
    std::lock_guard lock(mu_);
    for (auto it = deadlines_.begin(); it != deadlines_.end();) {
      if (it->second > now) {
        ++it;
        continue;
      }
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->first, nullptr);
      expired.push_back(it->first);
      it = deadlines_.erase(it);
    }
  }
  for (int fd : expired) close_(fd);
}

void IdleConnections::run() {
  std::array<epoll_event, 256> events{};
  auto next_expiry_check = std::chrono::steady_clock::now() + kExpiryTick;
  std::vector<int> ready;  // reused: this loop wakes once per parked request under load
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                               static_cast<int>(kExpiryTick.count()));
    ready.clear();
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      for (int i = 0; i < n; ++i) {
        const int fd = events[static_cast<std::size_t>(i)].data.fd;
        if (fd == wake_fd_ || deadlines_.erase(fd) == 0) continue;
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
        ready.push_back(fd);
      }
    }
    for (int fd : ready) resume_(fd);
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_expiry_check) {
      close_expired(now);
      next_expiry_check = now + kExpiryTick;
    }
  }
}

}  // namespace strata::serving
