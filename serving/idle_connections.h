// IdleConnections: the HTTP connections waiting for their next request, held by one epoll
// thread instead of a serving thread each, so thousands of idle keep-alive clients leave
// the serving threads to the clients that are sending. When a parked connection has bytes
// to read it is handed back (`resume`); one idle for longer than the idle timeout is closed
// (`close`). Each connection is owned by exactly one side at a time: whoever parks it gives
// it up, and it comes back through exactly one of the two callbacks, or is closed by stop().
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace strata::serving {

class IdleConnections {
 public:
  // `resume(fd)` takes a connection with bytes to read (or a hang-up to notice); `close(fd)`
  // closes one that stayed idle too long or was parked when stopping. Both run on this
  // object's thread and must not throw.
  IdleConnections(std::chrono::milliseconds idle_timeout, std::function<void(int)> resume,
                  std::function<void(int)> close);
  ~IdleConnections();  // stop()
  IdleConnections(const IdleConnections&) = delete;
  IdleConnections& operator=(const IdleConnections&) = delete;

  // Parks `fd` until it has bytes or its idle timeout passes. False once stopped (the
  // caller keeps the connection).
  bool park(int fd);
  // Closes every parked connection and joins the thread; park() refuses from then on.
  void stop();
  std::size_t size() const;

 private:
  void run();
  void close_expired(std::chrono::steady_clock::time_point now);

  std::chrono::milliseconds idle_timeout_;
  std::function<void(int)> resume_, close_;
  int epoll_fd_ = -1, wake_fd_ = -1;
  mutable std::mutex mu_;
  std::unordered_map<int, std::chrono::steady_clock::time_point> deadlines_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace strata::serving
