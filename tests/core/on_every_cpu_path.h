// A test fixture that runs each test once per path of the CPU kernels (core/cpu/cpu_isa.h:
// AVX-512, AVX2, portable), the path forced for the test and put back after; a path this
// CPU lacks is skipped, saying so. Instantiate with the paths a suite covers:
//
//   class Gemm : public OnEveryCpuPath {};
//   INSTANTIATE_TEST_SUITE_P(CpuPaths, Gemm, ::testing::Values(cpu::Isa::kAvx2, cpu::Isa::kAvx512),
//                            cpu_path_name);
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "core/cpu/cpu_isa.h"

namespace strata::testing {

class OnEveryCpuPath : public ::testing::TestWithParam<cpu::Isa> {
 protected:
  void SetUp() override {
    const auto supported = cpu::supported_isas();
    if (std::find(supported.begin(), supported.end(), GetParam()) == supported.end()) {
      GTEST_SKIP() << "this CPU cannot run the " << cpu::isa_name(GetParam()) << " path (it has "
                   << cpu::isa_name(cpu::best_isa()) << ")";
    }
    path_ = std::make_unique<cpu::ScopedKernelIsa>(GetParam());
  }
  void TearDown() override { path_.reset(); }

 private:
  std::unique_ptr<cpu::ScopedKernelIsa> path_;
};

inline std::string cpu_path_name(const ::testing::TestParamInfo<cpu::Isa>& info) { return cpu::isa_name(info.param); }

}  // namespace strata::testing
