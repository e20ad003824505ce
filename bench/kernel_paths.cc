#include "bench/kernel_paths.h"

#include <dlfcn.h>

#include "core/cpu/cpu_isa.h"

#if defined(STRATA_BENCH_WITH_ONEDNN)
#include <dnnl.h>
#endif

namespace strata::bench {

namespace {

// OpenBLAS (libtorch's BLAS on Debian) says which core's kernels it chose (OPENBLAS_CORETYPE
// forces one); looked up at run time, since nothing here links OpenBLAS directly.
std::string openblas_core() {
  using Fn = char* (*)();
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return fn ? std::string(fn()) : std::string("not loaded");
}

std::string onednn_isa() {
#if defined(STRATA_BENCH_WITH_ONEDNN)
  // The widest instruction set oneDNN's kernels use (ONEDNN_MAX_CPU_ISA caps it).
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    default:
      return "isa " + std::to_string(static_cast<int>(dnnl_get_effective_cpu_isa()));
  }
#else
  return "not built in";
#endif
}

}  // namespace

std::string kernel_paths_line() {
  return "Strata " + cpu::kernel_isa_description() + "; OpenBLAS " + openblas_core() + "; oneDNN " + onednn_isa();
}

}  // namespace strata::bench
