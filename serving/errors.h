// ServingError: a request that fails with one of TensorFlow Serving's status codes, carried
// as the HTTP status its REST API answers with (tensorflow_serving's ToHTTPStatusCode):
// INVALID_ARGUMENT and FAILED_PRECONDITION 400, NOT_FOUND 404, RESOURCE_EXHAUSTED 429,
// UNIMPLEMENTED 501, UNAVAILABLE 503, INTERNAL and UNKNOWN 500. A body over the size limit
// is answered 413 (Payload Too Large), which TensorFlow Serving has no flag for. Running
// out of memory (std::bad_alloc) is RESOURCE_EXHAUSTED, 429, as TensorFlow Serving
// reports an allocation failure.
#pragma once

#include <string>

#include "core/error.h"

namespace strata::serving {

class ServingError : public Error {
 public:
  ServingError(int http_status, const std::string& message)
      : Error(message), http_status_(http_status) {}
  int http_status() const { return http_status_; }

 private:
  int http_status_;
};

inline ServingError invalid_argument(const std::string& m) { return ServingError(400, m); }
inline ServingError not_found(const std::string& m) { return ServingError(404, m); }
inline ServingError payload_too_large(const std::string& m) { return ServingError(413, m); }
inline ServingError resource_exhausted(const std::string& m) { return ServingError(429, m); }
inline ServingError unimplemented(const std::string& m) { return ServingError(501, m); }
inline ServingError unavailable(const std::string& m) { return ServingError(503, m); }

}  // namespace strata::serving
