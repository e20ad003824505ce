// The cuDNN convolution kernels keep a plan per geometry in their run context
// (core/cuda/cudnn_conv_plan_cache.h). What decides whether a call reuses a plan — the
// key (core/cuda/conv_plan_key.h) — and which plans are dropped — the LRU policy
// (core/cuda/lru_cache.h) — are plain C++, checked here with a stand-in plan in every
// build, GPU or not. That the kernels use the cache (a second step builds no plan and
// gives the same bits) is CudaConvPlans.* in cuda_kernels_test.cc, on a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cuda/conv_plan_key.h"
#include "core/cuda/lru_cache.h"
#include "core/error.h"

using namespace strata;
using namespace strata::cuda;

namespace cuda_conv_plan_cache_test {

namespace {

using Dims = std::vector<std::int64_t>;

// A plan's stand-in: which build made it.
struct FakePlan {
  int serial = 0;
};

using FakePlanCache = LruCache<ConvPlanKey, FakePlan, ConvPlanKeyHash>;

// A conv2d's fields, each editable by a test before the key is made.
struct Conv2dCall {
  ConvPass pass = ConvPass::forward;
  DType dtype = DType::float32;
  Dims input{8, 10, 12, 3}, filter{3, 3, 3, 16}, output{8, 5, 6, 16};
  Dims strides{2, 2}, dilations{1, 1}, pads{0, 1, 0, 1};
  std::int64_t groups = 1;

  ConvPlanKey key() const {
    return conv_plan_key(pass, dtype, input, filter, output, strides, dilations, pads, groups);
  }
};

// Builds a FakePlan numbered by the cache's build count, counting the builds itself too.
struct Builder {
  int calls = 0;
  auto operator()() {
    return [this] { return std::make_unique<FakePlan>(FakePlan{++calls}); };
  }
};

}  // namespace

TEST(ConvPlanKey, EqualGeometriesHaveEqualKeysAndHashes) {
  const ConvPlanKey a = Conv2dCall{}.key(), b = Conv2dCall{}.key();
  EXPECT_EQ(a, b);
  EXPECT_EQ(ConvPlanKeyHash{}(a), ConvPlanKeyHash{}(b));
}

// Every field that changes what cuDNN is told, or which pass runs, changes the key: a
// plan is never reused for another geometry (the last, smaller batch above all).
TEST(ConvPlanKey, EveryFieldThatDeterminesAPlanChangesTheKey) {
  std::vector<std::pair<std::string, Conv2dCall>> variants;
  const auto vary = [&](std::string what, auto edit) {
    Conv2dCall call;
    edit(call);
    variants.emplace_back(std::move(what), call);
  };
  vary("the input-gradient pass", [](Conv2dCall& c) { c.pass = ConvPass::backward_data; });
  vary("the filter-gradient pass", [](Conv2dCall& c) { c.pass = ConvPass::backward_filter; });
  vary("the dtype", [](Conv2dCall& c) { c.dtype = DType::int32; });
  for (std::size_t i = 0; i < 4; ++i) {
    vary("input dim " + std::to_string(i), [i](Conv2dCall& c) { ++c.input[i]; });
    vary("filter dim " + std::to_string(i), [i](Conv2dCall& c) { ++c.filter[i]; });
    vary("output dim " + std::to_string(i), [i](Conv2dCall& c) { ++c.output[i]; });
    vary("pad " + std::to_string(i), [i](Conv2dCall& c) { ++c.pads[i]; });
  }
  for (std::size_t i = 0; i < 2; ++i) {
    vary("stride " + std::to_string(i), [i](Conv2dCall& c) { ++c.strides[i]; });
    vary("dilation " + std::to_string(i), [i](Conv2dCall& c) { ++c.dilations[i]; });
  }
  vary("groups", [](Conv2dCall& c) { c.groups = 3; });
  vary("a smaller last batch", [](Conv2dCall& c) { c.input[0] = c.output[0] = 3; });
  // conv3d's fields, with the same numbers where conv2d has them: another op.
  vary("conv3d", [](Conv2dCall& c) {
    c.input = {8, 1, 10, 12, 3}, c.filter = {1, 3, 3, 3, 16}, c.output = {8, 1, 5, 6, 16};
    c.strides = {1, 2, 2}, c.dilations = {1, 1, 1}, c.pads = {0, 0, 0, 1, 0, 1};
  });

  const ConvPlanKey base = Conv2dCall{}.key();
  FakePlanCache cache(1000);
  Builder build;
  cache.find_or_build(base, build());
  for (const auto& [what, call] : variants) {
    EXPECT_NE(call.key(), base) << what;
    EXPECT_FALSE(cache.contains(call.key())) << what << " gives the key of another variant";
    cache.find_or_build(call.key(), build());
  }
  EXPECT_EQ(cache.built(), static_cast<std::int64_t>(variants.size()) + 1);
  EXPECT_EQ(cache.hits(), 0);
}

TEST(ConvPlanKey, AListLongerThanConv3dsIsRefused) {
  Conv2dCall call;
  call.pads = {0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_THROW(call.key(), ValueError);
  call = Conv2dCall{};
  call.input = {1, 2, 3, 4, 5, 6};
  EXPECT_THROW(call.key(), ValueError);
}

TEST(ConvPlanCacheLru, AnEqualGeometryIsServedWithoutBuilding) {
  FakePlanCache cache(4);
  Builder build;
  FakePlan& first = cache.find_or_build(Conv2dCall{}.key(), build());
  FakePlan& again = cache.find_or_build(Conv2dCall{}.key(), build());
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(again.serial, 1);
  EXPECT_EQ(build.calls, 1);
  EXPECT_EQ(cache.built(), 1);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.size(), 1u);
}

// A training step's three passes, and the smaller last batch's: six plans, and a second
// epoch builds none of them again.
TEST(ConvPlanCacheLru, ALastSmallerBatchGetsItsOwnPlansAndBothStay) {
  FakePlanCache cache(16);
  Builder build;
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (std::int64_t batch : {8, 8, 8, 3}) {
      for (ConvPass pass : {ConvPass::forward, ConvPass::backward_data, ConvPass::backward_filter}) {
        Conv2dCall call;
        call.pass = pass;
        call.input[0] = call.output[0] = batch;
        cache.find_or_build(call.key(), build());
      }
    }
  }
  EXPECT_EQ(cache.built(), 6);
  EXPECT_EQ(cache.hits(), 24 - 6);
  EXPECT_EQ(cache.size(), 6u);
}

TEST(ConvPlanCacheLru, TheLeastRecentlyUsedPlanIsDroppedFirst) {
  const auto key_for_batch = [](std::int64_t n) {
    Conv2dCall call;
    call.input[0] = call.output[0] = n;
    return call.key();
  };
  FakePlanCache cache(3);
  Builder build;
  for (std::int64_t n : {1, 2, 3}) cache.find_or_build(key_for_batch(n), build());
  cache.find_or_build(key_for_batch(1), build());  // 1 is now the most recently used
  cache.find_or_build(key_for_batch(4), build());  // drops 2, the least recently used
  EXPECT_EQ(cache.keys_by_recency(), (std::vector<ConvPlanKey>{key_for_batch(4), key_for_batch(1), key_for_batch(3)}));
  EXPECT_FALSE(cache.contains(key_for_batch(2)));
  EXPECT_EQ(cache.evicted(), 1);
  // A dropped geometry is built again, as a new plan.
  EXPECT_EQ(cache.find_or_build(key_for_batch(2), build()).serial, 5);
  EXPECT_FALSE(cache.contains(key_for_batch(3)));
  // contains() does not count as a use: 1 is still older than 4 and goes next.
  EXPECT_TRUE(cache.contains(key_for_batch(1)));
  cache.find_or_build(key_for_batch(5), build());
  EXPECT_FALSE(cache.contains(key_for_batch(1)));
  EXPECT_TRUE(cache.contains(key_for_batch(4)));
}

// A model fed ever-changing shapes: the cache stays at its bound, holding the newest.
TEST(ConvPlanCacheLru, NeverHoldsMoreThanItsCapacity) {
  constexpr std::size_t kCapacity = 256;  // ConvPlanCache's bound
  FakePlanCache cache(kCapacity);
  Builder build;
  for (std::int64_t n = 1; n <= 1000; ++n) {
    Conv2dCall call;
    call.input[0] = call.output[0] = n;
    cache.find_or_build(call.key(), build());
    ASSERT_LE(cache.size(), kCapacity);
  }
  EXPECT_EQ(cache.size(), kCapacity);
  EXPECT_EQ(cache.built(), 1000);
  EXPECT_EQ(cache.evicted(), 1000 - static_cast<std::int64_t>(kCapacity));
  Conv2dCall newest, dropped;
  newest.input[0] = newest.output[0] = 1000;
  dropped.input[0] = dropped.output[0] = 1000 - static_cast<std::int64_t>(kCapacity);
  EXPECT_TRUE(cache.contains(newest.key()));
  EXPECT_FALSE(cache.contains(dropped.key()));
}

// cuDNN offering no algorithm throws from the build: nothing is kept, and the next call
// tries (and throws) again rather than finding half a plan.
TEST(ConvPlanCacheLru, ABuildThatThrowsKeepsNothing) {
  FakePlanCache cache(2);
  const ConvPlanKey key = Conv2dCall{}.key();
  EXPECT_THROW(cache.find_or_build(key, []() -> std::unique_ptr<FakePlan> { throw Error("no algorithm"); }), Error);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.built(), 0);
  EXPECT_FALSE(cache.contains(key));
}

TEST(ConvPlanCacheLru, ACapacityOfZeroIsRefused) {
  EXPECT_THROW(FakePlanCache(0), std::invalid_argument);
}

}  // namespace cuda_conv_plan_cache_test
