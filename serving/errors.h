// ServingError: a request that fails with one of TensorFlow Serving's status codes (the
// canonical codes gRPC answers with), and the HTTP status its REST API answers with
// (tensorflow_serving's ToHTTPStatusCode): INVALID_ARGUMENT and FAILED_PRECONDITION 400,
// NOT_FOUND 404, RESOURCE_EXHAUSTED 429, UNIMPLEMENTED 501, UNAVAILABLE 503, INTERNAL and
// UNKNOWN 500. A REST body over the size limit is answered 413 (Payload Too Large), which
// TensorFlow Serving has no flag for; over gRPC it is RESOURCE_EXHAUSTED, as gRPC reports
// a message over its size limit. Running out of memory (std::bad_alloc) is
// RESOURCE_EXHAUSTED, as TensorFlow Serving reports an allocation failure.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <string>

#include "core/error.h"

namespace strata::serving {

// TensorFlow's error codes (tensorflow.error.Code), the same numbers as gRPC's.
enum class StatusCode {
  kUnknown = 2,
  kInvalidArgument = 3,
  kNotFound = 5,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
};

class ServingError : public Error {
 public:
  ServingError(StatusCode code, int http_status, const std::string& message)
      : Error(message), code_(code), http_status_(http_status) {}
  StatusCode code() const { return code_; }
  int http_status() const { return http_status_; }

 private:
  StatusCode code_;
  int http_status_;
};

inline ServingError invalid_argument(const std::string& m) { return {StatusCode::kInvalidArgument, 400, m}; }
inline ServingError failed_precondition(const std::string& m) { return {StatusCode::kFailedPrecondition, 400, m}; }
inline ServingError not_found(const std::string& m) { return {StatusCode::kNotFound, 404, m}; }
inline ServingError payload_too_large(const std::string& m) { return {StatusCode::kResourceExhausted, 413, m}; }
inline ServingError resource_exhausted(const std::string& m) { return {StatusCode::kResourceExhausted, 429, m}; }
inline ServingError unimplemented(const std::string& m) { return {StatusCode::kUnimplemented, 501, m}; }
inline ServingError unavailable(const std::string& m) { return {StatusCode::kUnavailable, 503, m}; }
inline ServingError internal_error(const std::string& m) { return {StatusCode::kInternal, 500, m}; }
// A request of more examples than --max_rows_per_request, in REST and gRPC alike.
inline ServingError too_many_rows(std::int64_t rows, std::int64_t limit) {
  return invalid_argument("the request has " + std::to_string(rows) + " examples, more than the limit of " +
                          std::to_string(limit) + " (--max_rows_per_request)");
}

// What a request that threw `thrown` is answered with, as both APIs answer it: a
// ServingError as it is; a wrong shape or value INVALID_ARGUMENT with its message; running
// out of memory RESOURCE_EXHAUSTED; anything else INTERNAL. Call it with
// std::current_exception() inside a catch (...).
inline ServingError as_serving_error(const std::exception_ptr& thrown) {
  try {
    std::rethrow_exception(thrown);
  } catch (const ServingError& e) {
    return e;
  } catch (const ShapeError& e) {
    return invalid_argument(e.what());
  } catch (const ValueError& e) {
    return invalid_argument(e.what());
  } catch (const std::bad_alloc&) {
    return resource_exhausted("out of memory while handling the request");
  } catch (const std::exception& e) {
    return internal_error(std::string("internal error: ") + e.what());
  } catch (...) {
    return internal_error("internal error");
  }
}

}  // namespace strata::serving
