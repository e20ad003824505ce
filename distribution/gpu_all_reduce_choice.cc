#include "distribution/gpu_all_reduce_choice.h"

#include <algorithm>
#include <map>

#include "core/error.h"

namespace strata::distribution {

std::vector<char> encode_gpu_description(const std::string& description) {
  std::vector<char> record(kGpuDescriptionBytes, '\0');
  std::copy_n(description.begin(), std::min(description.size(), kGpuDescriptionBytes - 1), record.begin());
  return record;
}

std::vector<std::string> decode_gpu_descriptions(const std::vector<char>& gathered) {
  if (gathered.size() % kGpuDescriptionBytes != 0) {
    throw Error("distribution: the gathered GPU descriptions are " + std::to_string(gathered.size()) +
                " bytes, not a whole number of " + std::to_string(kGpuDescriptionBytes) + "-byte records");
  }
  std::vector<std::string> descriptions;
  for (std::size_t at = 0; at < gathered.size(); at += kGpuDescriptionBytes) {
    const char* record = gathered.data() + at;
    descriptions.emplace_back(record, std::find(record, record + kGpuDescriptionBytes, '\0'));
  }
  return descriptions;
}

GpuAllReduceChoice choose_gpu_all_reduce(const std::vector<std::string>& descriptions) {
  std::map<std::string, std::size_t> first_process_of;
  for (std::size_t p = 0; p < descriptions.size(); ++p) {
    if (descriptions[p].empty()) {
      return {false, "process " + std::to_string(p) +
                         " cannot use NCCL (built without it, or CUDA could not identify its GPU)"};
    }
    auto [it, fresh] = first_process_of.emplace(descriptions[p], p);
    if (!fresh) {
      return {false, "processes " + std::to_string(it->second) + " and " + std::to_string(p) + " share GPU " +
                         descriptions[p] + ", and NCCL takes one process per GPU"};
    }
  }
  return {true, ""};
}

}  // namespace strata::distribution
