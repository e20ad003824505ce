// Which instruction set the CPU kernels that have one path per instruction set (the
// packed GEMM, the matrix-vector kernel) run: chosen at run time from the CPU's
// features, so that one build runs its best kernels on an AVX-512 machine and on an
// AVX2-only one. The switch STRATA_CPU_ISA=avx2 (or set_kernel_isa) forces a narrower
// path, so that an AVX-512 machine can measure and test the AVX2 one.
//
// The rest of the library is compiled once, for the build's target (-march=native by
// default): a build for an AVX-512 machine keeps AVX-512 in Eigen and the other kernels
// under STRATA_CPU_ISA=avx2 (docs/performance.md says what that measures).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::cpu {

enum class Isa {
  kPortable,  // neither path below: Eigen's kernels
  kAvx2,      // AVX2 + FMA, 8 floats a register (core/cpu/avx2/)
  kAvx512,    // AVX-512 F/DQ/BW/VL, 16 floats a register (core/cpu/avx512/)
};

// "portable", "avx2", "avx512".
const char* isa_name(Isa isa);

// The path a name says (isa_name's names, as STRATA_CPU_ISA takes them); ValueError for
// any other, naming it and the three.
Isa parse_isa(std::string_view name);

// The widest path this CPU can run (and this build has: the compiler must know the
// instruction set).
Isa best_isa();

// Every path this CPU can run, narrowest first (kPortable always).
std::vector<Isa> supported_isas();

// The path the kernels take: best_isa(), or what STRATA_CPU_ISA asked for ("avx2",
// "avx512", "portable") when the CPU has it. An unknown value, or one the CPU lacks,
// throws ValueError on first use, naming it and what the CPU has.
Isa kernel_isa();

// Makes the kernels take `isa` from now on (tests, benchmarks); ValueError if the CPU
// lacks it. Not for use while other threads run products.
void set_kernel_isa(Isa isa);

// The path set_kernel_isa set, if any; clear_kernel_isa forgets it, so the kernels take
// the environment's or the CPU's choice again (and describe it so).
std::optional<Isa> kernel_isa_set_by_program();
void clear_kernel_isa();

// One line for benchmarks and logs: the path taken, why, and what the CPU has, e.g.
// "avx2 (forced by STRATA_CPU_ISA; this CPU has avx512)".
std::string kernel_isa_description();

// Sets the path for a scope and puts back what was before: the path the program had set,
// or none (the environment's or the CPU's choice, described as such) (tests of each path).
class ScopedKernelIsa {
 public:
  explicit ScopedKernelIsa(Isa isa) : before_(kernel_isa_set_by_program()) { set_kernel_isa(isa); }
  ~ScopedKernelIsa() {
    if (before_) {
      set_kernel_isa(*before_);
    } else {
      clear_kernel_isa();
    }
  }
  ScopedKernelIsa(const ScopedKernelIsa&) = delete;
  ScopedKernelIsa& operator=(const ScopedKernelIsa&) = delete;

 private:
  std::optional<Isa> before_;  // none: the environment's or the CPU's choice
};

}  // namespace strata::cpu
