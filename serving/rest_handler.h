// RestHandler: TensorFlow Serving's REST API over a ModelRegistry, as a function of
// (method, path, body) -> (HTTP status, JSON body), with no sockets: the HTTP server, the
// tests and the fuzzer all call it.
//
//   GET  /v1/models/NAME[/versions/N]                  model version status
//   GET  /v1/models/NAME[/versions/N]/metadata         the serving_default signature
//   POST /v1/models/NAME[/versions/N]:predict          row or columnar predict
//   GET  options.metrics_path                          Prometheus metrics (when set)
//
// Every error is {"error": "..."} with TensorFlow Serving's status code (serving/errors.h);
// nothing a request holds can make it throw.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "serving/model_registry.h"

namespace strata::serving {

struct RestResponse {
  int status = 200;
  std::string body;  // JSON, or the metrics page's text
  std::string content_type = "application/json";
};

struct RestHandlerOptions {
  std::size_t max_body_bytes = 64u << 20;  // --rest_api_max_body_bytes
  // --max_rows_per_request: a predict with more examples is refused with 400. The body
  // limit alone allows millions of tiny rows, whose output tensors would all be held at
  // once.
  std::int64_t max_rows_per_request = 65536;
  // Where GET answers with the Prometheus page of serving_metrics() (serving/metrics.h),
  // as --monitoring_config_file's prometheus_config asks; empty: no such page.
  std::string metrics_path;
};

class RestHandler {
 public:
  explicit RestHandler(const ModelRegistry& models, RestHandlerOptions options = {});

  RestResponse handle(std::string_view method, std::string_view path, std::string_view body) const;

  const RestHandlerOptions& options() const { return options_; }

 private:
  RestResponse route(std::string_view method, std::string_view path, std::string_view body) const;
  RestResponse status(const std::string& name, std::optional<std::int64_t> version) const;
  RestResponse metadata(const std::string& name, std::optional<std::int64_t> version) const;
  RestResponse predict(const std::string& name, std::optional<std::int64_t> version, std::string_view body) const;
  RestResponse run_predict(const std::string& name, std::optional<std::int64_t> version, std::string_view body) const;

  const ModelRegistry& models_;
  RestHandlerOptions options_;
};

// {"error": message}
std::string error_json(const std::string& message);

}  // namespace strata::serving
