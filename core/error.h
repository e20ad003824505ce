// One error hierarchy for the whole library: every message says what was expected,
// what was found, and where (layer, op, file, path inside the file).
#pragma once

#include <stdexcept>
#include <string>

namespace strata {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A tensor's shape does not fit what an op or layer expects.
class ShapeError : public Error {
 public:
  using Error::Error;
};

// An argument or data value is invalid (bad option, NaN in data, label out of range).
class ValueError : public Error {
 public:
  using Error::Error;
};

// A file is missing, truncated, or not in the expected format.
class IOError : public Error {
 public:
  using Error::Error;
};

// The request is valid Keras but Strata does not support it (yet).
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

}  // namespace strata
