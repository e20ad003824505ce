// strata_bench's device choice (see device.h).
#include "bench/device.h"

#include <stdexcept>

namespace strata::bench {

BenchDevice parse_bench_device(const std::string& text) {
  if (text == "cpu") return BenchDevice::cpu;
  if (text == "cuda" || text == "cuda:0") return BenchDevice::cuda;
  throw std::invalid_argument("--device='" + text + "': expected cpu or cuda (cuda:0)");
}

std::string device_name(BenchDevice device) { return device == BenchDevice::cuda ? "cuda:0" : "cpu"; }

std::string cuda_unavailable_reason(const CudaSupport& s) {
  if (!s.strata_built) {
    return "--device=cuda: this build of Strata has no CUDA backend (configure with the CUDA toolkit and "
           "-DSTRATA_CUDA=ON)";
  }
  if (!s.strata_device) return "--device=cuda: no CUDA device on this machine (Strata sees no GPU or no driver)";
  if (!s.torch_built) {
    return "--device=cuda: the libtorch this suite was built against (" + s.torch_version +
           ") has no CUDA; build it against a CUDA libtorch (Torch_DIR, e.g. pip torch's "
           "torch.utils.cmake_prefix_path)";
  }
  if (!s.torch_device) return "--device=cuda: libtorch " + s.torch_version + " sees no CUDA device";
  return "";
}

std::string first_line(const std::string& message) { return message.substr(0, message.find('\n')); }

}  // namespace strata::bench
