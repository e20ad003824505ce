// What the benchmarks record about the machine and the moment of a run.
#pragma once

#include <string>

namespace strata::bench {

// The output of a shell command, trailing newlines and spaces removed ("" on failure).
std::string shell_line(const char* command);
// /proc/cpuinfo's model name.
std::string cpu_model();

}  // namespace strata::bench
