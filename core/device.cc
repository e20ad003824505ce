#include "core/device.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>

#include "core/device_backend.h"
#include "core/error.h"

namespace strata {

std::string to_string(DeviceType type) {
  switch (type) {
    case DeviceType::cpu: return "cpu";
    case DeviceType::cuda: return "cuda";
  }
  return "unknown";
}

std::string to_string(const Device& device) {
  return to_string(device.type) + ":" + std::to_string(device.index);
}

Device parse_device(const std::string& text) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.starts_with("/device:")) t = t.substr(8);
  else if (t.starts_with("/")) t = t.substr(1);
  std::string kind = t, index = "0";
  if (auto colon = t.find(':'); colon != std::string::npos) {
    kind = t.substr(0, colon);
    index = t.substr(colon + 1);
  }
  const bool digits = !index.empty() && index.size() <= 4 &&
                      std::all_of(index.begin(), index.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (digits && kind == "cpu" && index == "0") return {DeviceType::cpu, 0, "cpu"};
  if (digits && (kind == "cuda" || kind == "gpu")) return {DeviceType::cuda, std::stoi(index), ""};
  throw ValueError("unknown device '" + text + "': expected \"cpu\", \"cuda\" or \"cuda:N\" (TensorFlow's \"/GPU:N\" works too)");
}

void require_available(const Device& device) {
  if (device == Device{DeviceType::cpu, 0, "cpu"}) return;  // without asking CUDA, which would start its runtime
  const auto devices = available_devices();
  for (const Device& d : devices) {
    if (d == device) return;
  }
  std::string have;
  for (const Device& d : devices) have += (have.empty() ? "" : ", ") + to_string(d);
  throw ValueError("device " + to_string(device) + " is not available" +
                   (device.type == DeviceType::cuda && !built_with_cuda() ? " (Strata was built without CUDA)" : "") +
                   "; this process can use: " + have);
}

Device default_device(const std::vector<Device>& available, std::string_view override_text) {
  if (!override_text.empty()) {
    try {
      return parse_device(std::string(override_text));
    } catch (const ValueError& e) {
      throw ValueError(std::string("STRATA_DEFAULT_DEVICE: ") + e.what());
    }
  }
  for (const Device& d : available) {
    if (d.type == DeviceType::cuda) return d;
  }
  return {DeviceType::cpu, 0, "cpu"};
}

Device default_device() {
  // Named, the device is not looked for: a process told to stay on the CPU never starts
  // CUDA's runtime (its threads, its memory) on a GPU machine.
  const char* override_text = std::getenv("STRATA_DEFAULT_DEVICE");
  if (override_text && *override_text) return default_device({}, override_text);
  return default_device(available_devices(), "");
}

namespace {
std::atomic<bool> log_placement{false};
}  // namespace

void set_log_device_placement(bool enabled) noexcept { log_placement.store(enabled); }
bool log_device_placement() noexcept { return log_placement.load(); }

bool built_with_cuda() noexcept {
#ifdef STRATA_WITH_CUDA
  return true;
#else
  return false;
#endif
}

bool built_with_cudnn() noexcept {
#if defined(STRATA_WITH_CUDA) && defined(STRATA_WITH_CUDNN)
  return true;
#else
  return false;
#endif
}

bool has_cuda_device() noexcept {
  for (const Device& d : available_devices()) {
    if (d.type == DeviceType::cuda) return true;
  }
  return false;
}

std::vector<Device> available_devices() noexcept {
  std::vector<Device> devices;
  try {
    devices.push_back({DeviceType::cpu, 0, "cpu"});
    for (DeviceBackend* backend : device_backends()) {
      for (Device& device : backend->devices()) devices.push_back(std::move(device));
    }
  } catch (...) {
    // Only allocation can fail here; the CPU entry is what matters.
  }
  return devices;
}

}  // namespace strata
