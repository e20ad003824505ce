#include "core/device_backend.h"

#include <map>

#include "core/error.h"

namespace strata {

namespace {

// Filled by static initializers before main; read-only afterwards.
std::map<DeviceType, DeviceBackend*>& backends() {
  static std::map<DeviceType, DeviceBackend*> registered;
  return registered;
}

}  // namespace

bool register_device_backend(DeviceType type, DeviceBackend& backend) {
  if (type == DeviceType::cpu) throw Error("the CPU is the host: it has no device backend");
  if (!backends().emplace(type, &backend).second) {
    throw Error("two device backends were registered for " + to_string(type));
  }
  return true;
}

DeviceBackend* device_backend(DeviceType type) noexcept {
  const auto it = backends().find(type);
  return it == backends().end() ? nullptr : it->second;
}

std::vector<DeviceBackend*> device_backends() noexcept {
  std::vector<DeviceBackend*> out;
  try {
    for (const auto& [type, backend] : backends()) out.push_back(backend);
  } catch (...) {
    // Only allocation can fail here: no backend listed.
  }
  return out;
}

}  // namespace strata
