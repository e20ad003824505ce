// Keras-style progress bar: "120/1875 ━━━━━━━━━━━━━━━━━━━━ ETA 2s 1ms/step - accuracy: 0.8123 - loss: 0.5321".
// On a terminal it redraws in place; otherwise (logs, CI) it prints the final line only.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>

namespace strata {

class ProgressBar {
 public:
  ProgressBar(std::int64_t target_steps, int verbose, std::ostream& out);
  // After step `step` (1-based) with the running logs of the epoch.
  void update(std::int64_t step, const std::map<std::string, float>& logs);
  // Prints the epoch's final line with its total time and every log (val_ included).
  void finish(const std::map<std::string, float>& logs);

  // Keras's number format: %.4f, or %.4e when 0 < |v| < 1e-3.
  static std::string format_value(float value);

 private:
  std::string line(std::int64_t step, const std::map<std::string, float>& logs, bool final) const;
  double elapsed_seconds() const;

  std::int64_t target_;
  int verbose_;
  std::ostream& out_;
  bool interactive_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace strata
