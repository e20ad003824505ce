// Devices: where a Program can run. The CPU is always there; CUDA devices are listed
// when Strata was built with CUDA and a driver reports GPUs when the program runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strata {

enum class DeviceType { cpu, cuda };

struct Device {
  DeviceType type = DeviceType::cpu;
  int index = 0;      // 0 for the CPU; the CUDA ordinal for GPUs
  std::string name;   // "cpu", or the GPU's name as the driver reports it
  // The same device (type and index; the name is only a description).
  friend bool operator==(const Device& a, const Device& b) { return a.type == b.type && a.index == b.index; }
};

// "cpu" or "cuda".
std::string to_string(DeviceType type);
// Keras/TF style: "cpu:0", "cuda:1".
std::string to_string(const Device& device);

// Parses "cpu", "cpu:0", "cuda", "cuda:1" (and TensorFlow's "gpu", "/GPU:0",
// "/device:GPU:1"); throws ValueError naming the text otherwise. Says nothing about
// whether the device exists (see require_available).
Device parse_device(const std::string& text);
// Throws ValueError when `device` is not one this process can use, listing those it can.
void require_available(const Device& device);

// The device a model runs on when compile names none, as TensorFlow places a model: the
// first GPU when this process has one, else the CPU. The environment variable
// STRATA_DEFAULT_DEVICE ("cpu", "cuda:1", ...) overrides it for the process, as
// CUDA_VISIBLE_DEVICES="" keeps TensorFlow on the CPU; the test suite sets it to "cpu" so
// that its CPU tests stay CPU tests on a GPU machine. Throws ValueError naming the
// variable when its text is not a device (whether that device exists, compiling checks).
Device default_device();
// The same rule over a given list of devices and override text (empty: none).
Device default_device(const std::vector<Device>& available, std::string_view override_text);

// Every device this process can use, the CPU first. Never throws: a CUDA build on a
// machine without a GPU or driver simply lists the CPU alone.
std::vector<Device> available_devices() noexcept;

// As tf.debugging.set_log_device_placement: when on, compiling a Program prints each
// node it runs and its device to standard error ("dense/matmul (matmul): cpu:0").
void set_log_device_placement(bool enabled) noexcept;
bool log_device_placement() noexcept;

// True when this build of Strata includes the CUDA backend.
bool built_with_cuda() noexcept;
// True when its CUDA backend uses cuDNN (the convolutions' CUDA kernels): a CUDA build
// that found cuDNN.
bool built_with_cudnn() noexcept;
// True when this process can use a CUDA device: a CUDA build on a machine with a GPU and
// its driver (as tf.test.is_gpu_available). GPU tests skip, saying why, when it is false.
bool has_cuda_device() noexcept;

}  // namespace strata
