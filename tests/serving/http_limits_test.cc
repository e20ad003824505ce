// The HTTP server's limits against clients that would starve the others: one sending a
// byte at a time, thousands connected and silent, headers past the limit, more connections
// than allowed. Each test checks the bad clients are cut off with the answer that says why,
// and that a well-behaved client is answered meanwhile.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "serving/http_server.h"
#include "tests/serving/raw_connection.h"
#include "tests/serving/serving_test_util.h"

namespace strata::serving::http_limits_test {
namespace {

using namespace testing;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// functional_mlp served as "mlp".
struct ServedModel {
  struct WithVersion : ModelDir {
    WithVersion() { add_version(1, "functional_mlp", ".keras"); }
  };
  WithVersion dir;
  ModelRegistry models{{.name = "mlp", .base_path = dir.path(), .file_system_poll_wait_seconds = 0}};
  RestHandler handler{models};
};

// A status request, timed; the time is -1 when it failed.
double timed_status_request(int port) {
  const auto start = Clock::now();
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(10, 0);
  auto res = client.Get("/v1/models/mlp");
  if (!res || res->status != 200) return -1;
  return seconds_since(start);
}

TEST(HttpLimits, AClientSendingAByteAtATimeIsCutOffWith408WhileOthersAreAnswered) {
  ServedModel served;
  HttpServer server(served.handler,
                    {.bind_address = "127.0.0.1", .port = 0, .num_threads = 4, .request_timeout_seconds = 4});
  const int port = server.start();
  const std::string request = "POST /v1/models/mlp:predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              "Content-Length: 29\r\n\r\n{\"instances\": [[1, 2, 3, 4]]}";
  // Three clients trickling their requests, a byte every 100 ms: each read is quick, so a
  // per-read timeout never fires; the whole request would take over 10 s.
  std::vector<RawConnection> slow;
  for (int i = 0; i < 3; ++i) {
    slow.emplace_back(port);
    ASSERT_TRUE(slow.back().connected());
  }
  std::atomic<bool> trickling{true};
  std::thread trickle([&] {
    for (std::size_t i = 0; i < request.size() && trickling; ++i) {
      for (const auto& c : slow) c.send(std::string(1, request[i]));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  // Meanwhile a well-behaved client is answered at once, every time.
  const auto start = Clock::now();
  for (int i = 0; i < 10; ++i) {
    const double took = timed_status_request(port);
    EXPECT_GE(took, 0) << "request " << i << " failed";
    // Well under the request timeout: not kept waiting until the slow clients are cut off
    // (the bound leaves room for a loaded machine under a sanitizer).
    EXPECT_LT(took, 2.0) << "request " << i << " waited for the slow clients";
  }
  for (const auto& c : slow) {
    bool closed = false;
    const std::string answer = c.read_until_closed(std::chrono::milliseconds(5000), &closed);
    EXPECT_TRUE(closed) << "a slow client was not cut off";
    EXPECT_EQ(answer.rfind("HTTP/1.1 408", 0), 0u) << answer;
    EXPECT_NE(answer.find("--rest_api_request_timeout_seconds"), std::string::npos) << answer;
  }
  const double cut_after = seconds_since(start);
  EXPECT_GE(cut_after, 3.9);
  EXPECT_LT(cut_after, 7.0);
  trickling = false;
  trickle.join();
  EXPECT_GE(timed_status_request(port), 0);
}

TEST(HttpLimits, ThousandsOfIdleConnectionsHoldNoThreadAndAreClosedWhenIdleTooLong) {
  // Each connection takes a descriptor here and one in the server.
  const std::size_t descriptors = raise_descriptor_limit();
  const std::size_t connections = std::min<std::size_t>(2000, (std::max<std::size_t>(descriptors, 200) - 200) / 2);
  if (connections < 400) GTEST_SKIP() << "the descriptor limit (" << descriptors << ") is too low for this test";

  ServedModel served;
  HttpServer server(served.handler,
                    {.bind_address = "127.0.0.1", .port = 0, .num_threads = 2, .idle_timeout_seconds = 5});
  const int port = server.start();
  std::vector<RawConnection> idle;
  idle.reserve(connections);
  for (std::size_t i = 0; i < connections; ++i) {
    idle.emplace_back(port);
    ASSERT_TRUE(idle.back().connected()) << "connection " << i;
  }
  const auto opened = Clock::now();
  while (server.idle_connections() < connections && seconds_since(opened) < 4) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server.idle_connections(), connections) << "not every connection was accepted and parked";
  // Two serving threads, thousands of silent connections: a client is still answered at once.
  for (int i = 0; i < 10; ++i) {
    const double took = timed_status_request(port);
    EXPECT_GE(took, 0) << "request " << i << " failed";
    EXPECT_LT(took, 2.0) << "request " << i;  // well under the idle timeout
  }
  // After the idle timeout the server has closed them all.
  while (server.open_connections() > 0 && seconds_since(opened) < 8) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(server.open_connections(), 0u);
  EXPECT_GE(seconds_since(opened), 4.5) << "closed before the idle timeout";
  bool closed = false;
  idle.front().read_until_closed(std::chrono::milliseconds(1000), &closed);
  EXPECT_TRUE(closed);
  EXPECT_GE(timed_status_request(port), 0);
}

TEST(HttpLimits, HeadersPastTheLimitGet431) {
  ServedModel served;
  HttpServer server(served.handler, {.bind_address = "127.0.0.1", .port = 0, .num_threads = 2,
                                     .max_header_bytes = 4096});
  const int port = server.start();
  httplib::Client client("127.0.0.1", port);
  // One long header, then many short ones (each line under httplib's own per-line limit).
  auto one_long = client.Get("/v1/models/mlp", {{"X-Padding", std::string(6000, 'a')}});
  ASSERT_TRUE(one_long) << httplib::to_string(one_long.error());
  EXPECT_EQ(one_long->status, 431) << one_long->body;
  EXPECT_NE(one_long->body.find("--rest_api_max_header_bytes"), std::string::npos) << one_long->body;
  httplib::Headers many;
  for (int i = 0; i < 200; ++i) many.emplace("X-Header-" + std::to_string(i), std::string(40, 'b'));
  auto many_short = client.Get("/v1/models/mlp", many);
  ASSERT_TRUE(many_short) << httplib::to_string(many_short.error());
  EXPECT_EQ(many_short->status, 431) << many_short->body;
  // A request line alone past the limit: answered 431 too, by strata (httplib never saw it whole).
  RawConnection raw(port);
  ASSERT_TRUE(raw.connected());
  raw.send("GET /" + std::string(8000, 'p') + " HTTP/1.1\r\n\r\n");
  bool closed = false;
  const std::string answer = raw.read_until_closed(std::chrono::milliseconds(3000), &closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 431", 0), 0u) << answer;
  EXPECT_TRUE(closed);
  // Within the limit, all is as before.
  auto fine = client.Get("/v1/models/mlp", {{"X-Padding", std::string(1000, 'a')}});
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->status, 200);
}

TEST(HttpLimits, ConnectionsPastTheLimitGet503AndTheOthersKeepBeingServed) {
  ServedModel served;
  HttpServer server(served.handler,
                    {.bind_address = "127.0.0.1", .port = 0, .num_threads = 4, .max_connections = 3});
  const int port = server.start();
  std::vector<RawConnection> held;
  for (int i = 0; i < 3; ++i) held.emplace_back(port);
  const auto start = Clock::now();
  while (server.open_connections() < 3 && seconds_since(start) < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(server.open_connections(), 3u);
  RawConnection over(port);
  ASSERT_TRUE(over.connected());
  bool closed = false;
  const std::string answer = over.read_until_closed(std::chrono::milliseconds(2000), &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 503", 0), 0u) << answer;
  EXPECT_NE(answer.find("--rest_api_max_connections"), std::string::npos) << answer;
  // The connections within the limit are served.
  EXPECT_TRUE(held[0].send("GET /v1/models/mlp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const std::string served_answer = held[0].read_until_closed(std::chrono::milliseconds(2000), &closed);
  EXPECT_EQ(served_answer.rfind("HTTP/1.1 200", 0), 0u) << served_answer;
  // held[0] was closed after its answer (Connection: close); once another closes too, there
  // is room for a new client.
  held.pop_back();
  while (server.open_connections() > 1 && seconds_since(start) < 4) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(timed_status_request(port), 0);
}

TEST(HttpLimits, ALimitIsAnsweredOnTheSecondRequestOfAConnectionToo) {
  ServedModel served;
  HttpServer server(served.handler,
                    {.bind_address = "127.0.0.1", .port = 0, .num_threads = 2, .max_header_bytes = 2048});
  RawConnection raw(server.start());
  ASSERT_TRUE(raw.connected());
  ASSERT_TRUE(raw.send("GET /v1/models/mlp HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(raw.send("GET /" + std::string(4000, 'p') + " HTTP/1.1\r\n\r\n"));
  bool closed = false;
  const std::string answers = raw.read_until_closed(std::chrono::milliseconds(3000), &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(answers.rfind("HTTP/1.1 200", 0), 0u) << answers;
  EXPECT_NE(answers.find("HTTP/1.1 431"), std::string::npos) << answers;
}

TEST(HttpLimits, BodiesPastTheLimitGet413HoweverTheyAreSent) {
  ServedModel served;
  HttpServer server(served.handler,
                    {.bind_address = "127.0.0.1", .port = 0, .num_threads = 2, .max_body_bytes = 1000});
  const int port = server.start();
  // Chunked: httplib reads such a body with no limit of its own. 4,000 bytes are read and
  // refused; 200,000 are cut off while they come, and the connection closed.
  for (const int chunks : {40, 2000}) {
    RawConnection raw(port);
    std::string chunked = "POST /v1/models/mlp:predict HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (int i = 0; i < chunks; ++i) chunked += "64\r\n" + std::string(100, ' ') + "\r\n";
    chunked += "0\r\n\r\nGET /v1/models/mlp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    ASSERT_TRUE(raw.send(chunked));
    bool closed = false;
    const std::string answer = raw.read_until_closed(std::chrono::milliseconds(3000), &closed);
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
    EXPECT_NE(answer.find("--rest_api_max_body_bytes"), std::string::npos) << answer;
    EXPECT_TRUE(closed);
    // The small body was read whole, so the request after it is answered on the same connection.
    EXPECT_EQ(answer.find("HTTP/1.1 200") != std::string::npos, chunks == 40) << answer;
  }
  // Announced over the limit with Expect: 100-continue: refused before the body is sent.
  {
    RawConnection raw(port);
    ASSERT_TRUE(raw.send("POST /v1/models/mlp:predict HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n"
                         "Expect: 100-continue\r\n\r\n"));
    bool closed = false;
    const std::string answer = raw.read_until_closed(std::chrono::milliseconds(3000), &closed);
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
    EXPECT_NE(answer.find("--rest_api_max_body_bytes"), std::string::npos) << answer;
    EXPECT_TRUE(closed);
  }
  EXPECT_GE(timed_status_request(port), 0);
}

TEST(HttpLimits, ABodyTricklingInIsCutOffWith408) {
  ServedModel served;
  HttpServer server(served.handler,
                    {.bind_address = "127.0.0.1", .port = 0, .num_threads = 2, .request_timeout_seconds = 1});
  RawConnection raw(server.start());
  ASSERT_TRUE(raw.send("POST /v1/models/mlp:predict HTTP/1.1\r\nHost: x\r\nContent-Length: 29\r\n\r\n{"));
  const auto start = Clock::now();
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    raw.send(" ");
  }
  bool closed = false;
  const std::string answer = raw.read_until_closed(std::chrono::milliseconds(3000), &closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 408", 0), 0u) << answer;
  EXPECT_TRUE(closed);
  EXPECT_LT(seconds_since(start), 4.0);
}

TEST(HttpLimits, StopDoesNotWaitForSlowClients) {
  ServedModel served;
  auto server = std::make_unique<HttpServer>(
      served.handler, HttpServerOptions{.bind_address = "127.0.0.1", .port = 0, .num_threads = 2});
  const int port = server->start();
  RawConnection trickling(port), idle(port);
  ASSERT_TRUE(trickling.send("GET /v1/mod"));  // and nothing more: a 30 s request timeout to wait out
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto start = Clock::now();
  server->stop();
  EXPECT_LT(seconds_since(start), 2.0) << "stop() waited for a slow client";
  bool closed = false;
  trickling.read_until_closed(std::chrono::milliseconds(1000), &closed);
  EXPECT_TRUE(closed);
}

TEST(HttpLimits, PipelinedAndKeptAliveRequestsAreAllAnswered) {
  // Several requests in one write, and a keep-alive client between idle spells: the
  // bytes read ahead and the parking between requests lose nothing.
  ServedModel served;
  HttpServer server(served.handler, {.bind_address = "127.0.0.1", .port = 0, .num_threads = 2});
  const int port = server.start();
  RawConnection raw(port);
  ASSERT_TRUE(raw.connected());
  std::string three;
  for (int i = 0; i < 3; ++i) three += "GET /v1/models/mlp HTTP/1.1\r\nHost: x\r\n\r\n";
  three += "GET /v1/models/mlp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_TRUE(raw.send(three));
  bool closed = false;
  const std::string answers = raw.read_until_closed(std::chrono::milliseconds(3000), &closed);
  EXPECT_TRUE(closed);
  std::size_t count = 0;
  for (std::size_t at = answers.find("HTTP/1.1 200"); at != std::string::npos;
       at = answers.find("HTTP/1.1 200", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 4u) << answers;

  httplib::Client client("127.0.0.1", port);
  client.set_keep_alive(true);
  for (int i = 0; i < 3; ++i) {
    auto res = client.Get("/v1/models/mlp");
    ASSERT_TRUE(res) << i;
    EXPECT_EQ(res->status, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));  // parked in between
  }
  EXPECT_EQ(server.open_connections(), 1u);
}

}  // namespace
}  // namespace strata::serving::http_limits_test
