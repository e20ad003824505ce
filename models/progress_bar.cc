#include "models/progress_bar.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace strata {

ProgressBar::ProgressBar(std::int64_t target_steps, int verbose, std::ostream& out)
    : target_(target_steps), verbose_(verbose), out_(out),
      interactive_(&out == &std::cout && isatty(STDOUT_FILENO)),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

double ProgressBar::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string ProgressBar::format_value(float value) {
  char buf[32];
  if (value != 0.f && std::fabs(value) < 1e-3f) {
    std::snprintf(buf, sizeof buf, "%.4e", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.4f", value);
  }
  return buf;
}

namespace {
std::string format_time(double seconds) {
  char buf[32];
  if (seconds >= 3600) {
    std::snprintf(buf, sizeof buf, "%d:%02d:%02d", static_cast<int>(seconds / 3600),
                  static_cast<int>(seconds / 60) % 60, static_cast<int>(seconds) % 60);
  } else if (seconds >= 60) {
    std::snprintf(buf, sizeof buf, "%d:%02d", static_cast<int>(seconds / 60), static_cast<int>(seconds) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ds", static_cast<int>(std::lround(seconds)));
  }
  return buf;
}

std::string format_per_step(double seconds_per_step) {
  char buf[32];
  if (seconds_per_step >= 1) {
    std::snprintf(buf, sizeof buf, "%ds/step", static_cast<int>(std::lround(seconds_per_step)));
  } else if (seconds_per_step >= 1e-3) {
    std::snprintf(buf, sizeof buf, "%dms/step", static_cast<int>(std::lround(seconds_per_step * 1e3)));
  } else {
    std::snprintf(buf, sizeof buf, "%dus/step", static_cast<int>(std::lround(seconds_per_step * 1e6)));
  }
  return buf;
}
}  // namespace

std::string ProgressBar::line(std::int64_t step, const std::map<std::string, float>& logs, bool final) const {
  const double elapsed = elapsed_seconds();
  const double per_step = step > 0 ? elapsed / static_cast<double>(step) : 0.0;
  std::string width = std::to_string(target_);
  std::string counter = std::to_string(step);
  std::string s = std::string(width.size() > counter.size() ? width.size() - counter.size() : 0, ' ') + counter +
                  "/" + width;
  if (verbose_ == 1) {
    constexpr int kBarWidth = 20;
    int filled = target_ > 0 ? static_cast<int>(kBarWidth * step / target_) : kBarWidth;
    s += " ";
    for (int i = 0; i < kBarWidth; ++i) s += i < filled ? "\u2501" : "\u2500";
    s += " ";
    s += final ? format_time(elapsed) : "ETA " + format_time(per_step * static_cast<double>(target_ - step));
    s += " " + format_per_step(per_step);
  } else {
    s += " - " + format_time(elapsed) + " - " + format_per_step(per_step);
  }
  for (const auto& [key, value] : logs) s += " - " + key + ": " + format_value(value);
  return s;
}

void ProgressBar::update(std::int64_t step, const std::map<std::string, float>& logs) {
  if (verbose_ != 1 || !interactive_) return;
  auto now = std::chrono::steady_clock::now();
  if (step < target_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  out_ << "\r" << line(step, logs, false) << "\033[K" << std::flush;
}

void ProgressBar::finish(const std::map<std::string, float>& logs) {
  if (verbose_ == 0) return;
  if (interactive_ && verbose_ == 1) out_ << "\r";
  out_ << line(target_, logs, true) << (interactive_ ? "\033[K" : "") << "\n" << std::flush;
}

}  // namespace strata
