// The machine and moment of a benchmark run (see machine_info.h).
#include "bench/machine_info.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "core/cpu/cpu_isa.h"

namespace strata::bench {

std::string shell_line(const char* command) {
  std::string out;
  if (std::FILE* p = ::popen(command, "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof(buf), p)) out += buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

RunStamp stamp_run(int argc, char** argv) {
  RunStamp stamp;
  const char* command = std::getenv("STRATA_BENCH_COMMAND");
  stamp.command = command ? command : argv[0];
  for (int i = 1; !command && i < argc; ++i) stamp.command += std::string(" ") + argv[i];
  stamp.date = shell_line("date -u '+%Y-%m-%d %H:%M UTC'");
  stamp.cpu = cpu_model() + " (" + shell_line("nproc") + " cores available)";
  stamp.strata_kernels = cpu::kernel_isa_description();
  stamp.load_before = shell_line("uptime");
  return stamp;
}

}  // namespace strata::bench
