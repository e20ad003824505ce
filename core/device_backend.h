// What the engine asks of a device beside the CPU: the devices of its kind, their
// allocators, copies to and from host memory, and a run context for each execution state
// (core/device_run.h). Each device folder implements it and
// registers it (core/cuda/cuda_backend.cc for CUDA), so tensors, allocators and the device
// list reach a device only through this interface, never through its headers; a build
// without the device simply has no backend for it.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "core/allocator.h"
#include "core/device.h"
#include "core/device_run.h"

namespace strata {

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // The devices of this kind the process can use, found when asked: empty when there are
  // none (no driver, no device). Never throws.
  virtual std::vector<Device> devices() const noexcept = 0;
  // The allocator of the device with this index.
  virtual DeviceAllocator& allocator(int index) = 0;
  // Copies `bytes` from src to dst, each in host memory or in this kind of device's
  // memory as the flags say; returns once the copy is done.
  virtual void copy(void* dst, const void* src, std::size_t bytes, bool dst_on_device, bool src_on_device) = 0;
  // What one execution state runs with on the device with this index: its own stream (so
  // states running one plan at once do not wait for each other), handles and recorded
  // runs. Throws ValueError when the process has no such device.
  virtual std::unique_ptr<DeviceRun> new_run(int index) = 0;
};

// Registers the backend of `type`, once, from a static initializer in the device's folder;
// the backend must live until the process exits. Returns true. A second backend for one
// type throws.
bool register_device_backend(DeviceType type, DeviceBackend& backend);
// The backend of `type`, or null when this build has none (the CPU never has one: it is
// the host).
DeviceBackend* device_backend(DeviceType type) noexcept;
// Every registered backend, in DeviceType order.
std::vector<DeviceBackend*> device_backends() noexcept;

}  // namespace strata
