// Which kernels each library of a benchmark run takes on this CPU: Strata's path
// (core/cpu/cpu_isa.h), OpenBLAS's core and oneDNN's instruction set. `bench/run
// --isa=avx2` forces all three to AVX2, so that an AVX-512 machine measures what an
// AVX2-only one would; the line says what each actually took.
#pragma once

#include <string>

namespace strata::bench {

// "Strata avx2 (forced by STRATA_CPU_ISA; this CPU has avx512); OpenBLAS Haswell; oneDNN avx2"
std::string kernel_paths_line();

}  // namespace strata::bench
