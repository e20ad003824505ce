#include "core/op_registry.h"

#include "core/ops/register.h"

namespace strata {

OpRegistry& OpRegistry::global() {
  // Registration is explicit (not static initializers) so that linking the static
  // library never drops an op family.
  static OpRegistry registry = [] {
    OpRegistry r;
    ops::register_all(r);
    return r;
  }();
  return registry;
}

void OpRegistry::add(OpDef def) {
  if (!def.infer || !def.cpu_kernel) {
    throw Error("op '" + def.name + "' must declare shape inference and a CPU kernel");
  }
  if (def.differentiable && !def.gradient) {
    throw Error("op '" + def.name + "' is differentiable but declares no gradient");
  }
  if (ops_.count(def.name)) throw Error("op '" + def.name + "' registered twice");
  std::string name = def.name;
  ops_.emplace(std::move(name), std::move(def));
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

}  // namespace strata
