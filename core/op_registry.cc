#include "core/op_registry.h"

#include <mutex>
#include <vector>

#include "core/cpu/kernels/register.h"
#include "core/ops/register.h"

namespace strata {

namespace {

// The device backends' registrars, kept until the registry is built (a backend registers
// from a static initializer, before anything may use the registry), then run at once. A
// registrar is for load time: one that arrived while programs run would change the
// kernel tables they read.
struct DeviceRegistrars {
  std::mutex mutex;
  std::vector<KernelRegistrar> pending;
  OpRegistry* built = nullptr;
};

DeviceRegistrars& device_registrars() {
  static DeviceRegistrars registrars;
  return registrars;
}

}  // namespace

OpRegistry& OpRegistry::global() {
  // The op families and the CPU's kernels are registered explicitly (not by static
  // initializers), so that no family can be left out by the linker; every op must have a
  // CPU kernel before anything runs. Other devices add theirs through
  // register_device_kernels when their backend is loaded.
  static OpRegistry registry = [] {
    OpRegistry r;
    ops::register_all(r);
    cpu::register_kernels(r);
    {
      const std::lock_guard<std::mutex> lock(device_registrars().mutex);
      for (KernelRegistrar registrar : device_registrars().pending) registrar(r);
      device_registrars().pending.clear();
    }
    for (const auto& [name, def] : r.ops_) {
      if (!def.kernel(DeviceType::cpu)) throw Error("op '" + name + "' has no CPU kernel");
    }
    return r;
  }();
  // From here on registrars run on the built registry; one that came while it was being
  // built, after its pending ones ran, runs now.
  static const bool marked_built = [] {
    DeviceRegistrars& registrars = device_registrars();
    const std::lock_guard<std::mutex> lock(registrars.mutex);
    for (KernelRegistrar registrar : registrars.pending) registrar(registry);
    registrars.pending.clear();
    registrars.built = &registry;
    return true;
  }();
  (void)marked_built;
  return registry;
}

void OpRegistry::add(OpDef def) {
  if (!def.infer) throw Error("op '" + def.name + "' must declare shape inference");
  if (def.differentiable && !def.gradient) {
    throw Error("op '" + def.name + "' is differentiable but declares no gradient");
  }
  if (!def.kernels.empty()) {
    throw Error("op '" + def.name + "' is declared with kernels: devices register them (add_kernel)");
  }
  if (ops_.count(def.name)) throw Error("op '" + def.name + "' registered twice");
  std::string name = def.name;
  ops_.emplace(std::move(name), std::move(def));
}

void OpRegistry::add_kernel(const std::string& op, DeviceType device, DeviceKernel kernel) {
  auto it = ops_.find(op);
  if (it == ops_.end()) {
    throw Error("a " + to_string(device) + " kernel was registered for op '" + op + "', which no op family declares");
  }
  if (!kernel.run) throw Error("op '" + op + "': an empty " + to_string(device) + " kernel was registered");
  if (!it->second.kernels.emplace(device, std::move(kernel)).second) {
    throw Error("op '" + op + "' has two " + to_string(device) + " kernels");
  }
}

const OpDef& OpRegistry::get(const std::string& name) const {
  auto it = ops_.find(name);
  if (it == ops_.end()) throw NotImplementedError("no op named '" + name + "' is registered");
  return it->second;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, def] : ops_) out.push_back(name);
  return out;
}

bool register_device_kernels(KernelRegistrar registrar) {
  DeviceRegistrars& registrars = device_registrars();
  const std::lock_guard<std::mutex> lock(registrars.mutex);
  if (registrars.built) {
    registrar(*registrars.built);
  } else {
    registrars.pending.push_back(registrar);
  }
  return true;
}

}  // namespace strata
