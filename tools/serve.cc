// strata-serve: TensorFlow Serving's gRPC and REST APIs over Keras model files
// (docs/serving.md).
//
//   strata-serve --port=8500 --rest_api_port=8501 --model_name=NAME --model_base_path=DIR [--enable_batching]
//   strata-serve --model_config_file=FILE [--model_config_file_poll_wait_seconds=S]
//   ... --monitoring_config_file=MONITORING   (Prometheus metrics on the REST port)
//
// DIR/<version>/ holds a .keras or .h5 file; the highest version is served, and a new
// version appearing under DIR is loaded and swapped in while requests continue. FILE
// configures several models, their version policies and labels, in TensorFlow Serving's
// text format (serving/model_config_file.h; gRPC builds, which have protobuf). The flags
// are TensorFlow Serving's where it has them: --port is the gRPC port (PredictionService,
// ModelService), --rest_api_port the REST port. Built without gRPC (CMake found no gRPC),
// strata-serve serves REST only and refuses a --port other than -1.
#include <signal.h>
#include <sys/resource.h>

#include <condition_variable>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "core/error.h"
#include "tools/cli/flags.h"
#ifdef STRATA_WITH_GRPC
#include "serving/grpc_server.h"
#include "serving/model_config_file.h"
#include "serving/monitoring_config.h"
#endif
#include "serving/http_server.h"
#include "serving/model_registry.h"
#include "serving/rest_handler.h"

namespace {

// Every connection is a descriptor, and the soft limit is often 1024: raised to the hard
// limit, as servers do, so --rest_api_max_connections is what limits connections.
void raise_descriptor_limit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  using namespace strata::serving;

#ifdef STRATA_WITH_GRPC
  int port = 8500;
#else
  int port = -1;
#endif
  int rest_api_port = 8501, rest_api_num_threads = 0, file_system_poll_wait_seconds = 1, grpc_max_threads = 0;
  int model_config_file_poll_wait_seconds = 0;
  std::string model_name = "default", model_base_path, rest_api_bind = "0.0.0.0", grpc_bind = "0.0.0.0";
  std::string model_config_file, monitoring_config_file;
  std::int64_t grpc_max_receive_message_bytes = 64 << 20;
#ifdef STRATA_WITH_GRPC
  const GrpcServerOptions grpc_defaults;
  std::int64_t grpc_max_metadata_bytes = static_cast<std::int64_t>(grpc_defaults.max_metadata_bytes);
  double grpc_handshake_timeout_seconds = grpc_defaults.handshake_timeout_seconds;
  double grpc_max_connection_idle_seconds = grpc_defaults.max_connection_idle_seconds;
  std::int64_t grpc_max_queued_predicts = static_cast<std::int64_t>(grpc_defaults.max_queued_predicts);
#endif
  bool enable_batching = false;
  BatchingParameters batching;
  int num_batch_threads = 0;
  std::int64_t max_body_bytes = 64 << 20;
  const HttpServerOptions rest_defaults;
  std::int64_t rest_api_max_header_bytes = static_cast<std::int64_t>(rest_defaults.max_header_bytes);
  std::int64_t rest_api_max_connections = static_cast<std::int64_t>(rest_defaults.max_connections);
  double rest_api_request_timeout_seconds = rest_defaults.request_timeout_seconds;
  double rest_api_idle_timeout_seconds = rest_defaults.idle_timeout_seconds;
  std::int64_t max_rows_per_request = RestHandlerOptions{}.max_rows_per_request;
  std::string batching_parameters_file;
  cli::Flags flags("Serves a Keras model with TensorFlow Serving's gRPC and REST APIs.");
  flags.add("port", &port, "the gRPC port (0: any free port; -1: no gRPC)")
      .add("grpc_bind", &grpc_bind, "the address gRPC listens on (127.0.0.1: this machine only)")
      .add("grpc_max_threads", &grpc_max_threads,
           "threads running gRPC Predicts; more calls wait for one (0: 4 per CPU)")
      .add("grpc_max_receive_message_bytes", &grpc_max_receive_message_bytes,
           "largest gRPC request accepted (larger: RESOURCE_EXHAUSTED)")
      .add("rest_api_port", &rest_api_port, "the REST port (0: any free port; -1: no REST)")
      .add("rest_api_bind", &rest_api_bind, "the address REST listens on (127.0.0.1: this machine only)")
      .add("model_name", &model_name, "the name in /v1/models/NAME")
      .add("model_base_path", &model_base_path, "directory of numbered versions, each holding a .keras or .h5 file")
      .add("model_config_file", &model_config_file,
           "TensorFlow Serving's model config (text proto): several models, version policies, labels; "
           "--model_name and --model_base_path are then ignored")
      .add("model_config_file_poll_wait_seconds", &model_config_file_poll_wait_seconds,
           "seconds between reads of --model_config_file, applying what changed; 0: read once at start")
      .add("monitoring_config_file", &monitoring_config_file,
           "TensorFlow Serving's monitoring config (text proto): prometheus_config serves metrics on the REST port")
      .add("file_system_poll_wait_seconds", &file_system_poll_wait_seconds,
           "seconds between polls for new versions; 0: load once at start")
      .add("enable_batching", &enable_batching, "batch requests from many connections server-side")
      .add("batching_parameters_file", &batching_parameters_file,
           "TensorFlow Serving's batching parameters (text proto); the flags below override it")
      .add("max_batch_size", &batching.max_batch_size, "batching: most examples in one predict")
      .add("batch_timeout_micros", &batching.batch_timeout_micros, "batching: longest wait for a batch to fill")
      .add("num_batch_threads", &num_batch_threads, "batching: threads running batches (0: one per CPU)")
      .add("max_enqueued_batches", &batching.max_enqueued_batches, "batching: queue limit, in full batches (then 503)")
      .add("rest_api_num_threads", &rest_api_num_threads, "HTTP threads (0: 4 per CPU)")
      .add("rest_api_max_body_bytes", &max_body_bytes, "largest request body accepted (larger: 413)")
      .add("rest_api_max_header_bytes", &rest_api_max_header_bytes,
           "largest request line and headers together (larger: 431)")
      .add("rest_api_request_timeout_seconds", &rest_api_request_timeout_seconds,
           "longest a client may take to send one request, and to take its answer (slower: 408, closed)")
      .add("rest_api_idle_timeout_seconds", &rest_api_idle_timeout_seconds,
           "longest a connection may stay open without a request (then closed)")
      .add("rest_api_max_connections", &rest_api_max_connections,
           "most REST connections open at once (past it: 503, closed)")
      .add("max_rows_per_request", &max_rows_per_request, "most examples in one predict request (more: 400)");
#ifdef STRATA_WITH_GRPC
  flags.add("grpc_max_metadata_bytes", &grpc_max_metadata_bytes,
            "largest metadata (headers) a gRPC call may carry (larger: RESOURCE_EXHAUSTED)")
      .add("grpc_handshake_timeout_seconds", &grpc_handshake_timeout_seconds,
           "longest a new gRPC connection may take to open HTTP/2 (then closed)")
      .add("grpc_max_connection_idle_seconds", &grpc_max_connection_idle_seconds,
           "longest a gRPC connection may stay without a call (then closed; clients reconnect)")
      .add("grpc_max_queued_predicts", &grpc_max_queued_predicts,
           "most gRPC Predicts waiting for a thread (past it: RESOURCE_EXHAUSTED)");
#endif
  try {
    if (!flags.parse(argc, argv)) return 0;  // --help
  } catch (const ValueError& e) {
    std::cerr << "strata-serve: " << e.what() << "\n" << flags.usage();
    return 2;
  }
  batching.num_batch_threads = num_batch_threads;
  if (!batching_parameters_file.empty()) {
    try {
      std::ifstream in(batching_parameters_file);
      if (!in) throw IOError("can't read '" + batching_parameters_file + "'");
      std::stringstream text;
      text << in.rdbuf();
      BatchingParameters from_file = parse_batching_parameters(text.str(), batching);
      if (flags.was_set("max_batch_size")) from_file.max_batch_size = batching.max_batch_size;
      if (flags.was_set("batch_timeout_micros")) from_file.batch_timeout_micros = batching.batch_timeout_micros;
      if (flags.was_set("num_batch_threads")) from_file.num_batch_threads = batching.num_batch_threads;
      if (flags.was_set("max_enqueued_batches")) from_file.max_enqueued_batches = batching.max_enqueued_batches;
      batching = from_file;
      num_batch_threads = batching.num_batch_threads;
    } catch (const Error& e) {
      std::cerr << "strata-serve: --batching_parameters_file: " << e.what() << "\n";
      return 2;
    }
  }
  std::cout << flags.summary() << std::endl;  // the values it runs with
  raise_descriptor_limit();
  if (model_base_path.empty() && model_config_file.empty()) {
    std::cerr << "strata-serve: --model_base_path (or --model_config_file) is required\n" << flags.usage();
    return 2;
  }
  std::string metrics_path;  // where REST serves the Prometheus page; "": nowhere
#ifndef STRATA_WITH_GRPC
  for (const auto& [flag, value] : {std::pair{"model_config_file", model_config_file},
                                    std::pair{"monitoring_config_file", monitoring_config_file}}) {
    if (value.empty()) continue;
    std::cerr << "strata-serve: --" << flag << " is read with protobuf, and this strata-serve was built without "
                 "gRPC and protobuf (Debian: libgrpc++-dev libprotobuf-dev protobuf-compiler-grpc)\n";
    return 2;
  }
#else
  if (!monitoring_config_file.empty()) {
    try {
      metrics_path = read_monitoring_config_file(monitoring_config_file);
    } catch (const Error& e) {
      std::cerr << "strata-serve: --monitoring_config_file: " << e.what() << "\n";
      return 2;
    }
    if (!metrics_path.empty() && rest_api_port < 0) {
      std::cerr << "strata-serve: --monitoring_config_file serves metrics on the REST port, and --rest_api_port=-1 "
                   "turns it off\n";
      return 2;
    }
  }
#endif
  if (batching.max_batch_size < 1 || batching.batch_timeout_micros < 0 || batching.max_enqueued_batches < 1) {
    std::cerr << "strata-serve: batching needs max_batch_size >= 1, batch_timeout_micros >= 0 and "
                 "max_enqueued_batches >= 1\n";
    return 2;
  }
  if (batching.max_enqueued_batches > std::numeric_limits<std::int64_t>::max() / batching.max_batch_size) {
    std::cerr << "strata-serve: max_enqueued_batches * max_batch_size overflows a 64-bit count of examples\n";
    return 2;
  }
  if (max_rows_per_request < 1) {
    std::cerr << "strata-serve: --max_rows_per_request must be at least 1\n";
    return 2;
  }
  if (max_body_bytes <= 0 || grpc_max_receive_message_bytes <= 0 || rest_api_max_header_bytes <= 0 ||
      rest_api_max_connections <= 0 || !(rest_api_request_timeout_seconds > 0) ||
      !(rest_api_idle_timeout_seconds > 0)) {
    std::cerr << "strata-serve: --rest_api_max_body_bytes, --rest_api_max_header_bytes, --rest_api_max_connections, "
                 "--rest_api_request_timeout_seconds, --rest_api_idle_timeout_seconds and "
                 "--grpc_max_receive_message_bytes must be positive\n";
    return 2;
  }
#ifdef STRATA_WITH_GRPC
  if (grpc_max_metadata_bytes <= 0 || !(grpc_handshake_timeout_seconds > 0) ||
      !(grpc_max_connection_idle_seconds > 0) || grpc_max_queued_predicts <= 0) {
    std::cerr << "strata-serve: --grpc_max_metadata_bytes, --grpc_handshake_timeout_seconds, "
                 "--grpc_max_connection_idle_seconds and --grpc_max_queued_predicts must be positive\n";
    return 2;
  }
#endif
  if (port < -1 || port > 65535 || rest_api_port < -1 || rest_api_port > 65535) {
    std::cerr << "strata-serve: --port and --rest_api_port are 0 to 65535, or -1 for none\n";
    return 2;
  }
#ifndef STRATA_WITH_GRPC
  if (port != -1) {
    std::cerr << "strata-serve: --port is the gRPC port, and this strata-serve was built without gRPC (CMake found no "
                 "gRPC, or STRATA_SERVING_GRPC=OFF; Debian: libgrpc++-dev protobuf-compiler-grpc). Serve REST with "
                 "--rest_api_port, and --port=-1\n";
    return 2;
  }
#endif
  if (port == -1 && rest_api_port == -1) {
    std::cerr << "strata-serve: --port=-1 and --rest_api_port=-1 leave nothing to serve\n";
    return 2;
  }

  // SIGINT and SIGTERM stop the server; they are waited for on one thread (blocked in
  // every thread started from here on).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    const ModelManagerOptions model{.name = model_name,
                                    .base_path = model_base_path,
                                    .file_system_poll_wait_seconds = file_system_poll_wait_seconds,
                                    .batching = enable_batching ? std::optional(batching) : std::nullopt};
    ModelRegistry models;
#ifdef STRATA_WITH_GRPC
    std::unique_ptr<ModelConfigFilePoller> config_poller;
    if (!model_config_file.empty()) {
      if (flags.was_set("model_name") || flags.was_set("model_base_path")) {
        std::cout << "strata-serve: --model_config_file is given: --model_name and --model_base_path are ignored"
                  << std::endl;
      }
      try {
        config_poller = std::make_unique<ModelConfigFilePoller>(models, model_config_file,
                                                                model_config_file_poll_wait_seconds, model);
      } catch (const Error& e) {
        std::cerr << "strata-serve: --model_config_file: " << e.what() << "\n";
        return 2;
      }
    }
#endif
    if (model_config_file.empty()) models.configure({model});
    models.start_polling();
#ifdef STRATA_WITH_GRPC
    std::unique_ptr<GrpcServer> grpc;
    if (port >= 0) {
      grpc = std::make_unique<GrpcServer>(
          models,
          GrpcServerOptions{.bind_address = grpc_bind,
                            .port = port,
                            .max_threads = grpc_max_threads,
                            .max_receive_message_bytes = static_cast<std::size_t>(grpc_max_receive_message_bytes),
                            .max_metadata_bytes = static_cast<std::size_t>(grpc_max_metadata_bytes),
                            .handshake_timeout_seconds = grpc_handshake_timeout_seconds,
                            .max_connection_idle_seconds = grpc_max_connection_idle_seconds,
                            .max_queued_predicts = static_cast<std::size_t>(grpc_max_queued_predicts),
                            .service = {.max_rows_per_request = max_rows_per_request}});
    }
#endif
    std::unique_ptr<RestHandler> handler;
    std::unique_ptr<HttpServer> server;
    int bound = -1;
    if (rest_api_port >= 0) {
      handler = std::make_unique<RestHandler>(
          models, RestHandlerOptions{.max_body_bytes = static_cast<std::size_t>(max_body_bytes),
                                      .max_rows_per_request = max_rows_per_request,
                                      .metrics_path = metrics_path});
      server = std::make_unique<HttpServer>(*handler, HttpServerOptions{.bind_address = rest_api_bind,
                                                                        .port = rest_api_port,
                                                                        .num_threads = rest_api_num_threads,
                                                                        .max_body_bytes =
                                                                            static_cast<std::size_t>(max_body_bytes),
                                                                        .max_header_bytes = static_cast<std::size_t>(
                                                                            rest_api_max_header_bytes),
                                                                        .request_timeout_seconds =
                                                                            rest_api_request_timeout_seconds,
                                                                        .idle_timeout_seconds =
                                                                            rest_api_idle_timeout_seconds,
                                                                        .max_connections = static_cast<std::size_t>(
                                                                            rest_api_max_connections)});
      bound = server->bind();
    }
    for (const std::string& name : models.names()) {
      const auto manager = models.find(name);
      if (!manager) continue;  // dropped by a config poll meanwhile
      auto served = manager->latest();
      const std::string rest_at = " at http://" + rest_api_bind + ":" + std::to_string(bound) + "/v1/models/" + name;
      if (served) {
        std::cout << "strata-serve: serving model '" << name << "' version " << served->version()
                  << (server ? rest_at : "") << std::endl;
      } else {
        std::cout << "strata-serve: "
                  << (server ? "listening on " + rest_api_bind + ":" + std::to_string(bound) + "; " : "") << "model '"
                  << name << "' has no version to serve yet: " << manager->unavailable_reason() << std::endl;
      }
    }
    if (server && !metrics_path.empty()) {
      std::cout << "strata-serve: Prometheus metrics at http://" << rest_api_bind << ":" << bound << metrics_path
                << std::endl;
    }
#ifdef STRATA_WITH_GRPC
    if (grpc) std::cout << "strata-serve: gRPC API at " << grpc_bind << ":" << grpc->port() << std::endl;
#endif
    // The signal thread stops the servers, and listen() (or wait()) returns while stop()
    // may still be running on it: main waits for stop() to finish before the servers go
    // out of scope. When listen() returns on its own, the thread, still waiting for a
    // signal, must no longer touch them: the shared state says which happened first.
    struct StopState {
      std::mutex mutex;
      std::condition_variable changed;
      bool stopping = false, stopped = false, finished = false;
    };
    auto state = std::make_shared<StopState>();
    auto stop_servers = [&] {
      if (server) server->stop();
#ifdef STRATA_WITH_GRPC
      if (grpc) grpc->stop();
#endif
    };
    std::thread([&stop_servers, stop_signals, state] {
      int sig = 0;
      sigwait(&stop_signals, &sig);
      {
        std::lock_guard lock(state->mutex);
        if (state->finished) return;
        state->stopping = true;
      }
      std::cout << "strata-serve: signal " << sig << ", stopping" << std::endl;
      stop_servers();
      std::lock_guard lock(state->mutex);
      state->stopped = true;
      state->changed.notify_all();
    }).detach();
    if (server) {
      server->listen();
    } else {
#ifdef STRATA_WITH_GRPC
      grpc->wait();
#endif
    }
    std::unique_lock lock(state->mutex);
    state->changed.wait(lock, [&] { return !state->stopping || state->stopped; });
    state->finished = true;
  } catch (const std::exception& e) {  // Strata's errors, and anything else (filesystem, bad_alloc)
    std::cerr << "strata-serve: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
