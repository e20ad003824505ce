// Devices: where a Program can run. The CPU is always there; CUDA devices are listed
// when Strata was built with CUDA and a driver reports GPUs when the program runs.
#pragma once

#include <string>
#include <vector>

namespace strata {

enum class DeviceType { cpu, cuda };

struct Device {
  DeviceType type = DeviceType::cpu;
  int index = 0;      // 0 for the CPU; the CUDA ordinal for GPUs
  std::string name;   // "cpu", or the GPU's name as the driver reports it
};

// "cpu" or "cuda".
std::string to_string(DeviceType type);
// Keras/TF style: "cpu:0", "cuda:1".
std::string to_string(const Device& device);

// Every device this process can use, the CPU first. Never throws: a CUDA build on a
// machine without a GPU or driver simply lists the CPU alone.
std::vector<Device> available_devices() noexcept;

// True when this build of Strata includes the CUDA backend.
bool built_with_cuda() noexcept;

}  // namespace strata
