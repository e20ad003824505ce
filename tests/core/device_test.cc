#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/device.h"
#include "core/error.h"

using namespace strata;

namespace device_test {

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

// compile's default (TensorFlow's placement): the first GPU the process lists, else the
// CPU; STRATA_DEFAULT_DEVICE's text, when set, wins and must name a device.
TEST(Device, TheDefaultIsTheFirstGpuElseTheCpu) {
  const Device cpu{DeviceType::cpu, 0, "cpu"};
  const Device gpu0{DeviceType::cuda, 0, "NVIDIA H200"}, gpu1{DeviceType::cuda, 1, "NVIDIA H200"};
  EXPECT_EQ(default_device({cpu}, ""), cpu);
  EXPECT_EQ(default_device({cpu, gpu0, gpu1}, ""), gpu0);
  EXPECT_EQ(default_device({cpu, gpu1}, ""), gpu1);
  EXPECT_EQ(default_device({cpu, gpu0, gpu1}, "cpu"), cpu);
  EXPECT_EQ(default_device({cpu, gpu0, gpu1}, "/GPU:1"), gpu1);
  // Whether the named device exists is compile's check (require_available), not this one.
  EXPECT_EQ(default_device({cpu}, "cuda:3"), (Device{DeviceType::cuda, 3, ""}));
  try {
    default_device({cpu, gpu0}, "tpu:0");
    ADD_FAILURE() << "an override that names no device was accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("STRATA_DEFAULT_DEVICE"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tpu:0"), std::string::npos) << e.what();
  }
}

TEST(Device, TheProcessDefaultFollowsTheListedDevices) {
  const char* override_text = std::getenv("STRATA_DEFAULT_DEVICE");
  EXPECT_EQ(default_device(), default_device(available_devices(), override_text ? override_text : ""));
  if (!override_text && !has_cuda_device()) EXPECT_EQ(default_device().type, DeviceType::cpu);
}

}  // namespace device_test
