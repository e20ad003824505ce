#include <gtest/gtest.h>

#include <algorithm>

#include "core/device.h"

using namespace strata;

TEST(Device, CpuIsAlwaysListedFirst) {
  std::vector<Device> devices = available_devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices.front().type, DeviceType::cpu);
  EXPECT_EQ(devices.front().index, 0);
  EXPECT_EQ(to_string(devices.front()), "cpu:0");
}

TEST(Device, ListingNeverThrowsAndIsStable) {
  // On a CUDA build without a GPU or driver this lists the CPU alone.
  std::vector<Device> first, second;
  EXPECT_NO_THROW(first = available_devices());
  EXPECT_NO_THROW(second = available_devices());
  EXPECT_EQ(first.size(), second.size());
  auto cpus = std::count_if(first.begin(), first.end(),
                            [](const Device& d) { return d.type == DeviceType::cpu; });
  EXPECT_EQ(cpus, 1);
}

TEST(Device, CudaDevicesOnlyInCudaBuilds) {
  std::vector<Device> devices = available_devices();
  for (std::size_t i = 1; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].type, DeviceType::cuda);
    EXPECT_EQ(devices[i].index, static_cast<int>(i - 1));
    EXPECT_FALSE(devices[i].name.empty());
  }
  if (!built_with_cuda()) EXPECT_EQ(devices.size(), 1u);
}
