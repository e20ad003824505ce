// The op table by device: core/ops declares each op once, and every device registers its
// kernels for it (core/cpu/kernels/, core/cuda/). Lists, for every op, the devices with a
// kernel, and holds the rules the registry keeps.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "core/error.h"
#include "core/op_registry.h"

using namespace strata;

namespace op_kernels_test {

TEST(OpKernels, EveryOpHasACpuKernelAndTheTableListsEachOpsDevices) {
  const OpRegistry& registry = OpRegistry::global();
  std::string table;
  int without_cpu = 0;
  for (const std::string& name : registry.names()) {
    const OpDef& def = registry.get(name);
    std::string devices;
    for (const auto& [device, kernel] : def.kernels) devices += (devices.empty() ? "" : ", ") + to_string(device);
    table += "  " + name + ": " + (devices.empty() ? "(none)" : devices) + "\n";
    if (!def.kernel(DeviceType::cpu)) {
      ++without_cpu;
      ADD_FAILURE() << "op '" << name << "' has no CPU kernel (register one in core/cpu/kernels/)";
    }
  }
  std::cout << "ops and the devices with a kernel for them (" << registry.names().size() << " ops):\n" << table;
  EXPECT_EQ(without_cpu, 0);
}

// A device registers kernels only for declared ops, one per device: a typo in an op name
// or a second registration fails when the registry is built, not when a program runs.
TEST(OpKernels, AKernelForAnUndeclaredOpOrASecondKernelIsRefused) {
  OpRegistry& registry = OpRegistry::global();
  const KernelFn nothing = [](KernelContext&) {};
  try {
    registry.add_kernel("no_such_op", DeviceType::cpu, {.run = nothing});
    FAIL() << "registered a kernel for an op nobody declared";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_op"), std::string::npos) << e.what();
  }
  try {
    registry.add_kernel("add", DeviceType::cpu, {.run = nothing});
    FAIL() << "registered a second CPU kernel for 'add'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("two cpu kernels"), std::string::npos) << e.what();
  }
  EXPECT_THROW(registry.add_kernel("add", DeviceType::cuda, {}), Error) << "an empty kernel";
}

// Kernels belong to devices: an op declared with one is refused.
TEST(OpKernels, AnOpDeclaredWithAKernelIsRefused) {
  OpDef def{.name = "declared_with_a_kernel",
            .infer = [](const InferContext& ctx) { return ctx.inputs; },
            .differentiable = false};
  def.kernels[DeviceType::cpu] = DeviceKernel{.run = [](KernelContext&) {}};
  EXPECT_THROW(OpRegistry::global().add(def), Error);
  EXPECT_FALSE(OpRegistry::global().contains("declared_with_a_kernel"));
}

}  // namespace op_kernels_test
