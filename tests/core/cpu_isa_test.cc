// The run-time choice of the CPU kernels' path (core/cpu/cpu_isa.h): what the CPU can
// run, forcing a path and putting it back, the names the switch takes, and a weight
// matrix packed on one path read by that path's kernel after the path changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cpu/cpu_isa.h"
#include "core/cpu/packed_gemm.h"
#include "core/error.h"

using namespace strata;

namespace cpu_isa_test {

TEST(CpuIsa, TheBestPathIsTheWidestTheCpuRunsAndPortableIsAlwaysThere) {
  const std::vector<cpu::Isa> supported = cpu::supported_isas();
  ASSERT_FALSE(supported.empty());
  EXPECT_EQ(supported.front(), cpu::Isa::kPortable);
  EXPECT_EQ(supported.back(), cpu::best_isa());
  EXPECT_TRUE(std::is_sorted(supported.begin(), supported.end()));
  // Without the switch, the kernels take the best path.
  const char* forced = std::getenv("STRATA_CPU_ISA");
  if (forced == nullptr || *forced == '\0') {
    EXPECT_EQ(cpu::kernel_isa(), cpu::best_isa());
    EXPECT_EQ(cpu::kernel_isa_description(), std::string(cpu::isa_name(cpu::best_isa())) + " (this CPU's best)");
  }
}

TEST(CpuIsa, AScopeForcesAPathAndPutsTheOneBeforeBack) {
  const cpu::Isa before = cpu::kernel_isa();
  const std::string described = cpu::kernel_isa_description();
  for (cpu::Isa isa : cpu::supported_isas()) {
    {
      cpu::ScopedKernelIsa scope(isa);
      EXPECT_EQ(cpu::kernel_isa(), isa);
      EXPECT_EQ(cpu::packed_gemm_available(), isa != cpu::Isa::kPortable);
      const std::string description = cpu::kernel_isa_description();
      EXPECT_EQ(description.rfind(cpu::isa_name(isa), 0), 0u) << description;
      EXPECT_NE(description.find("set by the program"), std::string::npos) << description;
    }
    EXPECT_EQ(cpu::kernel_isa(), before);
  }
  // Not only the path: why it is taken too (the CPU's choice or the environment's stays so,
  // and a test after this one sees what it would have seen alone).
  EXPECT_EQ(cpu::kernel_isa_description(), described);
}

TEST(CpuIsa, APathTheCpuLacksIsRefusedNamingWhatItHas) {
  const std::vector<cpu::Isa> supported = cpu::supported_isas();
  if (supported.size() == 3) GTEST_SKIP() << "this CPU runs every path (" << cpu::isa_name(cpu::best_isa()) << ")";
  const cpu::Isa missing = cpu::Isa::kAvx512;
  try {
    cpu::set_kernel_isa(missing);
    FAIL() << "set_kernel_isa accepted a path this CPU lacks";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("avx512"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(cpu::isa_name(cpu::best_isa())), std::string::npos) << e.what();
  }
}

TEST(CpuIsa, TheSwitchTakesThePathsNamesAndRefusesOthers) {
  EXPECT_EQ(cpu::parse_isa("avx2"), cpu::Isa::kAvx2);
  EXPECT_EQ(cpu::parse_isa("avx512"), cpu::Isa::kAvx512);
  EXPECT_EQ(cpu::parse_isa("portable"), cpu::Isa::kPortable);
  for (const char* bad : {"AVX2", "sse", "", "avx-512"}) {
    try {
      cpu::parse_isa(bad);
      FAIL() << "parse_isa accepted '" << bad << "'";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("expected avx512, avx2 or portable"), std::string::npos) << e.what();
    }
  }
}

// Packed on one path, a weight matrix keeps that path's layout: the product reads it with
// the kernel that packed it, so it equals that path's product on the unpacked matrix even
// after the kernels' path changed.
TEST(CpuIsa, APackedMatrixIsReadByThePathThatPackedIt) {
  const std::vector<cpu::Isa> supported = cpu::supported_isas();
  if (std::count_if(supported.begin(), supported.end(), [](cpu::Isa i) { return i != cpu::Isa::kPortable; }) < 2) {
    GTEST_SKIP() << "this CPU has one packed path at most (" << cpu::isa_name(cpu::best_isa()) << ")";
  }
  const int m = 37, n = 70, k = 53;
  std::vector<float> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<float>((i * 37) % 101) / 101.f - 0.5f;
  for (int i = 0; i < k * n; ++i) b[i] = static_cast<float>((i * 53) % 97) / 97.f - 0.5f;
  for (cpu::Isa packer : {cpu::Isa::kAvx2, cpu::Isa::kAvx512}) {
    const cpu::Isa reader = packer == cpu::Isa::kAvx2 ? cpu::Isa::kAvx512 : cpu::Isa::kAvx2;
    std::vector<float> want(m * n), got(m * n);
    cpu::PackedB packed;
    {
      cpu::ScopedKernelIsa scope(packer);
      cpu::packed_gemm(false, false, m, n, k, a.data(), k, b.data(), n, want.data(), n, false);
      packed.pack(false, k, n, b.data(), n);
    }
    EXPECT_EQ(packed.isa(), packer);
    cpu::ScopedKernelIsa scope(reader);
    cpu::packed_gemm_prepacked(m, a.data(), k, packed, got.data(), n, false);
    EXPECT_EQ(got, want) << "packed by " << cpu::isa_name(packer) << ", read while the path is "
                         << cpu::isa_name(reader);
  }
}

}  // namespace cpu_isa_test
