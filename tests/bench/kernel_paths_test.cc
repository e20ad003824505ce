// The bench's line of which kernels each library took (issue #37 point 5: "the path
// taken printed by the bench"): Strata's path as forced, and why.
#include <gtest/gtest.h>

#include <string>

#include "bench/kernel_paths.h"
#include "core/cpu/cpu_isa.h"

using namespace strata;

namespace kernel_paths_test {

TEST(KernelPaths, TheLineSaysStratasPathAndWhy) {
  for (cpu::Isa isa : cpu::supported_isas()) {
    cpu::ScopedKernelIsa scope(isa);
    const std::string line = bench::kernel_paths_line();
    const std::string want = std::string("Strata ") + cpu::isa_name(isa) + " (set by the program; this CPU has " +
                             cpu::isa_name(cpu::best_isa()) + ")";
    EXPECT_EQ(line.rfind(want, 0), 0u) << line;
    EXPECT_NE(line.find("; OpenBLAS "), std::string::npos) << line;
    EXPECT_NE(line.find("; oneDNN "), std::string::npos) << line;
  }
}

}  // namespace kernel_paths_test
