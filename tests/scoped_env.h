// Sets (or, given null, unsets) an environment variable for one test's scope, and puts
// back what was there when the scope ends, however the test ends: a test that reads
// STRATA_DEFAULT_DEVICE or STRATA_DATA_DIR leaves the next test the process it found.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace strata::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace strata::testing
