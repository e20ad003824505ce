#include "core/cpu/cpu_isa.h"

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "core/error.h"

namespace strata::cpu {

namespace {

bool cpu_has(Isa isa) {
  switch (isa) {
    case Isa::kPortable:
      return true;
#if defined(STRATA_X86_KERNELS)
    case Isa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::kAvx512:
      // The AVX-512 path uses F (the arithmetic and masks), DQ/BW/VL (compiled in with
      // them); __builtin_cpu_supports also checks that the OS saves the registers.
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") && cpu_has(Isa::kAvx2);
#else
    default:
      return false;
#endif
  }
  return false;
}

// Where the choice came from, for kernel_isa_description().
enum class Source { kCpu, kEnvironment, kProgram };

struct Choice {
  Isa isa;
  Source source;
};

Choice from_environment() {
  const char* text = std::getenv("STRATA_CPU_ISA");
  if (text == nullptr || *text == '\0') return {best_isa(), Source::kCpu};
  const Isa asked = parse_isa(text);
  if (!cpu_has(asked)) {
    throw ValueError(std::string("STRATA_CPU_ISA=") + text + " asks for a path this CPU cannot run (it has " +
                     isa_name(best_isa()) + ")");
  }
  return {asked, Source::kEnvironment};
}

// Read on every product: -1 until set_kernel_isa, which replaces the environment's choice
// (read once, on first use).
std::atomic<int> forced{-1};

Choice initial() {
  static const Choice choice = from_environment();
  return choice;
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kPortable:
      return "portable";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
  }
  return "?";
}

Isa parse_isa(std::string_view name) {
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512}) {
    if (name == isa_name(isa)) return isa;
  }
  throw ValueError("STRATA_CPU_ISA='" + std::string(name) +
                   "' is not a path of the CPU kernels: expected avx512, avx2 or portable");
}

Isa best_isa() {
  static const Isa best = [] {
    if (cpu_has(Isa::kAvx512)) return Isa::kAvx512;
    if (cpu_has(Isa::kAvx2)) return Isa::kAvx2;
    return Isa::kPortable;
  }();
  return best;
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512}) {
    if (cpu_has(isa)) out.push_back(isa);
  }
  return out;
}

Isa kernel_isa() {
  // One load on every product once known: set_kernel_isa's choice, else the
  // environment's, read once and kept here.
  const int set = forced.load(std::memory_order_relaxed);
  if (set >= 0) return static_cast<Isa>(set);
  static std::atomic<int> resolved{-1};
  int known = resolved.load(std::memory_order_relaxed);
  if (known < 0) {
    known = static_cast<int>(initial().isa);
    resolved.store(known, std::memory_order_relaxed);
  }
  return static_cast<Isa>(known);
}

void set_kernel_isa(Isa isa) {
  if (!cpu_has(isa)) {
    throw ValueError(std::string("set_kernel_isa: this CPU cannot run the ") + isa_name(isa) + " path (it has " +
                     isa_name(best_isa()) + ")");
  }
  forced.store(static_cast<int>(isa), std::memory_order_relaxed);
}

std::optional<Isa> kernel_isa_set_by_program() {
  const int set = forced.load(std::memory_order_relaxed);
  if (set < 0) return std::nullopt;
  return static_cast<Isa>(set);
}

void clear_kernel_isa() { forced.store(-1, std::memory_order_relaxed); }

std::string kernel_isa_description() {
  const Isa isa = kernel_isa();
  std::string out = isa_name(isa);
  const bool set_by_program = forced.load(std::memory_order_relaxed) >= 0;
  const Source source = set_by_program ? Source::kProgram : initial().source;
  if (source == Source::kCpu) return out + " (this CPU's best)";
  out += source == Source::kEnvironment ? " (forced by STRATA_CPU_ISA" : " (set by the program";
  return out + "; this CPU has " + isa_name(best_isa()) + ")";
}

}  // namespace strata::cpu
