// Where strata_bench runs its frameworks: --device=cpu (the default, issue #7's suite) or
// --device=cuda (issue #12: Strata on cuda:0, libtorch on torch::kCUDA, no Keras). Plain
// values and text here, no framework, so tests/bench/ checks them on their own.
#pragma once

#include <string>

namespace strata::bench {

enum class BenchDevice { cpu, cuda };

// "cpu" or "cuda" (also "cuda:0", the one GPU the suite uses); std::invalid_argument
// naming the text otherwise.
BenchDevice parse_bench_device(const std::string& text);
// "cpu", "cuda:0": the device as Strata's compile and the reports name it.
std::string device_name(BenchDevice device);

// What this process can do on a GPU, asked of each framework.
struct CudaSupport {
  bool strata_built = false;  // this build of Strata has its CUDA backend
  bool strata_device = false; // and Strata sees a GPU
  bool torch_built = false;   // the libtorch linked in was built with CUDA
  bool torch_device = false;  // and libtorch sees a GPU
  std::string torch_version;  // "2.11.0", for the message
};

// Empty when both frameworks can run on the GPU; else one line saying which cannot and
// why, the first reason that applies (Strata's build, then the machine, then libtorch).
std::string cuda_unavailable_reason(const CudaSupport& support);

// The first line of an error message (a refused compile lists every op on one line).
std::string first_line(const std::string& message);

}  // namespace strata::bench
