// CUDA device discovery (built only with STRATA_WITH_CUDA). Internal to core.
#pragma once

#include <vector>

#include "core/device.h"

namespace strata::cuda {

// The GPUs the CUDA runtime reports. Any runtime error (no driver, no device, driver
// too old for the toolkit) means none: returns an empty list, never throws.
std::vector<Device> cuda_devices() noexcept;

}  // namespace strata::cuda
