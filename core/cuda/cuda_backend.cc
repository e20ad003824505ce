// The CUDA device's DeviceBackend: GPU discovery through the CUDA runtime, the caching
// allocator, host-device copies and execution states' run contexts, registered when
// libstrata is loaded.
#include "core/cuda/caching_allocator.h"
#include "core/cuda/cuda_devices.h"
#include "core/cuda/run_context.h"
#include "core/device_backend.h"

namespace strata::cuda {

namespace {

class CudaBackend final : public DeviceBackend {
 public:
  std::vector<Device> devices() const noexcept override { return cuda_devices(); }
  DeviceAllocator& allocator(int index) override { return caching_allocator(index); }
  void copy(void* dst, const void* src, std::size_t bytes, bool dst_on_device, bool src_on_device) override {
    cuda::copy(dst, src, bytes, dst_on_device, src_on_device);
  }
  std::unique_ptr<DeviceRun> new_run(int index) override { return std::make_unique<RunContext>(index); }
};

// Stateless: the allocators and the device list live in their own function statics.
CudaBackend backend;
const bool cuda_backend_registered = register_device_backend(DeviceType::cuda, backend);

}  // namespace

}  // namespace strata::cuda
