// What the benchmarks record about the machine and the moment of a run.
#pragma once

#include <string>

namespace strata::bench {

// The output of a shell command, trailing newlines and spaces removed ("" on failure).
std::string shell_line(const char* command);
// /proc/cpuinfo's model name.
std::string cpu_model();

// How and where a run started: the command (STRATA_BENCH_COMMAND, as bench/run sets it,
// else argv), the date (UTC), the CPU with the cores available, the path Strata's GEMM
// kernels take on it (cpu::kernel_isa_description()), and `uptime` before it.
struct RunStamp {
  std::string command, date, cpu, strata_kernels, load_before;
};
RunStamp stamp_run(int argc, char** argv);

}  // namespace strata::bench
