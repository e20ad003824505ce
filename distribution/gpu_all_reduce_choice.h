// How the processes of a data-parallel job sum gradients that live on their GPUs: NCCL
// when every process has a GPU of its own (NCCL refuses two members on one GPU), else
// staged through host memory over MPI (core/cuda/collective_kernels.h). Every process
// must choose the same way, so each describes its GPU, the descriptions are gathered,
// and each process runs the same choice over the same list (MpiCommunicator, at its first
// GPU all-reduce). Plain C++, built and tested everywhere.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace strata::distribution {

// How many bytes one process's description takes in the gathered list.
inline constexpr std::size_t kGpuDescriptionBytes = 160;

// A process's GPU as "host/PCI bus id" ("node3/00000000:1B:00.0"); empty when this
// process cannot take part in NCCL (built without it, or CUDA could not name its GPU).
// Longer text is cut to fit.
std::vector<char> encode_gpu_description(const std::string& description);
// The descriptions of every process, in process order, from the concatenated records;
// throws strata::Error when the bytes are not a whole number of records.
std::vector<std::string> decode_gpu_descriptions(const std::vector<char>& gathered);

struct GpuAllReduceChoice {
  bool nccl = false;
  std::string reason;  // why not NCCL (empty when NCCL)
};

// NCCL when every process described a GPU and no two described the same one.
GpuAllReduceChoice choose_gpu_all_reduce(const std::vector<std::string>& descriptions);

}  // namespace strata::distribution
