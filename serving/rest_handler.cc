#include "serving/rest_handler.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <nlohmann/json.hpp>

#include "serving/batcher.h"
#include "serving/errors.h"
#include "serving/metrics.h"
#include "serving/servable_lookup.h"
#include "serving/tensor_json.h"

namespace strata::serving {

using json = nlohmann::json;

std::string error_json(const std::string& message) {
  return json{{"error", message}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

RestResponse ok(const json& body) { return {200, body.dump(-1, ' ', false, json::error_handler_t::replace)}; }

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    auto i = s.find(sep);
    parts.push_back(s.substr(0, i));
    if (i == std::string_view::npos) return parts;
    s.remove_prefix(i + 1);
  }
}

std::optional<std::int64_t> parse_version(std::string_view s) {
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoll(std::string(s));
}

}  // namespace

RestHandler::RestHandler(const ModelRegistry& models, RestHandlerOptions options)
    : models_(models), options_(options) {}

RestResponse RestHandler::handle(std::string_view method, std::string_view path, std::string_view body) const {
  try {
    return route(method, path, body);
  } catch (...) {
    const ServingError e = as_serving_error(std::current_exception());
    return {e.http_status(), error_json(e.what())};
  }
}

RestResponse RestHandler::route(std::string_view method, std::string_view path, std::string_view body) const {
  path = path.substr(0, path.find('?'));
  const std::string malformed = "Malformed request: " + std::string(method) + " " + std::string(path);
  if (!options_.metrics_path.empty() && path == options_.metrics_path) {
    if (method != "GET") throw invalid_argument(malformed + "; the metrics page answers GET");
    return {200, serving_metrics().prometheus_page(), "text/plain; version=0.0.4"};
  }
  constexpr std::string_view kPrefix = "/v1/models/";
  // As TensorFlow Serving: a path outside /v1/ has no handler (404); one under /v1/ that
  // is not an endpoint, or an endpoint with the wrong method, is a malformed request (400).
  if (path != "/v1" && !path.starts_with("/v1/")) {
    const auto names = models_.names();
    throw not_found(malformed + "; the API is under " + std::string(kPrefix) + (names.size() == 1 ? names[0] : "NAME"));
  }
  if (!path.starts_with(kPrefix)) throw invalid_argument(malformed);
  std::string_view rest = path.substr(kPrefix.size());
  std::string_view verb;
  if (auto colon = rest.find(':'); colon != std::string_view::npos) {
    verb = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  auto parts = split(rest, '/');
  const std::string name(parts[0]);
  if (name.empty()) throw invalid_argument(malformed);
  std::optional<std::int64_t> version;
  std::size_t i = 1;
  if (i < parts.size() && (parts[i] == "versions" || parts[i] == "labels")) {
    if (i + 1 >= parts.size()) throw invalid_argument(malformed);
    if (parts[i] == "labels") {
      version = find_label(models_, name, std::string(parts[i + 1]));
    } else {
      version = parse_version(parts[i + 1]);
      if (!version) throw invalid_argument(malformed + "; a version is a number");
    }
    i += 2;
  }
  const bool is_metadata = i < parts.size() && parts[i] == "metadata";
  if (is_metadata) ++i;
  if (i != parts.size()) throw invalid_argument(malformed);

  const bool get = method == "GET", post = method == "POST";
  if (verb.empty() && get) return is_metadata ? metadata(name, version) : status(name, version);
  if (!is_metadata && post && verb == "predict") return predict(name, version, body);
  if (!is_metadata && post && (verb == "classify" || verb == "regress")) {
    throw unimplemented(std::string(verb) + " is not supported: strata-serve serves the predict API");
  }
  throw invalid_argument(malformed);
}

RestResponse RestHandler::status(const std::string& name, std::optional<std::int64_t> version) const {
  json list = json::array();
  for (const auto& s : find_statuses(models_, name, version)) {
    list.push_back({{"version", std::to_string(s.version)},
                    {"state", to_string(s.state)},
                    {"status", {{"error_code", s.error.empty() ? "OK" : "UNKNOWN"}, {"error_message", s.error}}}});
  }
  return ok({{"model_version_status", list}});
}

RestResponse RestHandler::metadata(const std::string& name, std::optional<std::int64_t> version) const {
  auto s = find_servable(models_, name, version);
  return ok({{"model_spec", {{"name", name}, {"signature_name", ""}, {"version", std::to_string(s->version())}}},
             {"metadata", {{"signature_def", {{"signature_def", {{"serving_default", s->signature().to_json()}}}}}}}});
}

// Counted as TensorFlow Serving counts a Predict: every request by its status, the
// answered ones' wall time in the latency histogram.
RestResponse RestHandler::predict(const std::string& name, std::optional<std::int64_t> version,
                                  std::string_view body) const {
  const auto start = std::chrono::steady_clock::now();
  try {
    RestResponse response = run_predict(name, version, body);
    serving_metrics().record_request(name, "Predict", "REST", 0, micros_since(start));
    return response;
  } catch (...) {
    const StatusCode code = as_serving_error(std::current_exception()).code();
    serving_metrics().record_request(name, "Predict", "REST", static_cast<int>(code), 0);
    throw;
  }
}

RestResponse RestHandler::run_predict(const std::string& name, std::optional<std::int64_t> version,
                                      std::string_view body) const {
  if (body.size() > options_.max_body_bytes) {
    throw payload_too_large("the request body has " + std::to_string(body.size()) + " bytes, more than the limit of " +
                            std::to_string(options_.max_body_bytes) + " (--rest_api_max_body_bytes)");
  }
  auto s = find_servable(models_, name, version);
  json request;
  try {
    request = json::parse(body);
  } catch (const json::exception& e) {
    throw invalid_argument(std::string("JSON Parse error: ") + e.what());
  }
  if (request.is_object() && request.contains("signature_name")) {
    const json& sig = request["signature_name"];
    if (!sig.is_string() || !is_default_signature(sig.get<std::string>())) {
      throw invalid_argument("Serving signature name: " + sig.dump(-1, ' ', false, json::error_handler_t::replace) +
                             " not found in signature def; the model has \"serving_default\"");
    }
  }
  PredictRequest parsed = parse_predict_request(request, s->signature());
  const std::int64_t rows = request_rows(parsed.inputs);
  if (rows > options_.max_rows_per_request) {
    throw too_many_rows(rows, options_.max_rows_per_request);
  }
  // ShapeError and ValueError from the predict are answered 400 by handle().
  std::vector<Tensor> outputs = s->predict(std::move(parsed.inputs));
  return {200, predict_response_json(parsed.format, outputs, s->signature())};
}

}  // namespace strata::serving
