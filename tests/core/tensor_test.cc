// Tensor: a handle to aligned storage. Copies share it, clone() does not, and reset()
// reuses it when it is large enough (how the executor avoids allocating per step).
#include <gtest/gtest.h>

#include <cstdint>

#include "core/allocator.h"
#include "core/dtype.h"
#include "core/tensor.h"
#include "core/variable.h"
#include "core_test_util.h"

using namespace strata;
using strata::testing::message_of;

namespace tensor_test {

TEST(Tensor, StartsZeroed) {
  Tensor t({2, 3});
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.dtype(), DType::float32);
  EXPECT_EQ(t.size(), 6);
  EXPECT_EQ(t.nbytes(), 24u);
  for (float v : t.values<float>()) EXPECT_EQ(v, 0.f);
  EXPECT_FALSE(Tensor().defined());
  EXPECT_THROW(Tensor({kUnknownDim, 3}), ShapeError);
}

TEST(Tensor, CopiesShareStorage) {
  Tensor a = Tensor::filled({3}, 1.f);
  Tensor b = a;
  b.data<float>()[1] = 5.f;
  EXPECT_EQ(a.item(1), 5.f);
  EXPECT_TRUE(a.shares_storage_with(b));
}

TEST(Tensor, CloneDoesNotShare) {
  Tensor a = Tensor::filled({3}, 1.f);
  Tensor c = a.clone();
  c.data<float>()[1] = 5.f;
  EXPECT_EQ(a.item(1), 1.f);
  EXPECT_FALSE(a.shares_storage_with(c));
  EXPECT_EQ(c.shape(), a.shape());
  EXPECT_FALSE(Tensor().clone().defined());
}

// A tensor's version changes with every access that may write it and with nothing
// else: what lets a kernel keep something derived from its inputs between runs.
TEST(Tensor, TheVersionCountsAccessesThatMayWrite) {
  Tensor a = Tensor::filled({3}, 1.f);
  const Tensor& read_only = a;
  const Tensor::Version start = a.version();
  EXPECT_EQ(read_only.data<float>()[0], 1.f);
  EXPECT_EQ(read_only.item(2), 1.f);
  EXPECT_EQ(a.version(), start) << "reads leave the version alone";

  a.data<float>()[0] = 2.f;
  const Tensor::Version written = a.version();
  EXPECT_NE(written, start);
  EXPECT_EQ(written.storage, start.storage) << "the same storage, written";
  Tensor shared = a.reshaped({3, 1});
  EXPECT_EQ(shared.version(), written) << "handles sharing storage share the version";
  shared.values<float>()[1] = 3.f;
  EXPECT_NE(a.version(), written) << "a write through another handle counts";

  Tensor::Version before = a.version();
  a.copy_from(Tensor::filled({3}, 4.f));
  EXPECT_NE(a.version(), before);
  before = a.version();
  a.raw_data();
  EXPECT_NE(a.version(), before);

  const Tensor copy = a.clone();
  EXPECT_NE(copy.version().storage, a.version().storage) << "another storage is another tensor";
  EXPECT_NE(Tensor({3}).version().storage, Tensor({3}).version().storage);
  EXPECT_EQ(Tensor().version(), Tensor::Version{});
}

TEST(Tensor, ReshapedSharesStorageAndChecksTheSize) {
  Tensor a = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor r = a.reshaped({3, 2});
  EXPECT_TRUE(r.shares_storage_with(a));
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  EXPECT_EQ(r.item(5), 6.f);
  EXPECT_THROW(a.reshaped({4, 2}), ShapeError);
}

TEST(Tensor, ResetReusesStorageWhenLargeEnough) {
  Tensor t({4, 8});
  const void* storage = t.raw_data();
  const std::size_t capacity = t.capacity_bytes();
  t.reset({2, 8}, DType::float32);
  EXPECT_EQ(t.raw_data(), storage);
  EXPECT_EQ(t.shape(), (Shape{2, 8}));
  EXPECT_EQ(t.size(), 16);
  t.reset({4, 4}, DType::int64);
  EXPECT_EQ(t.raw_data(), storage) << "16 int64 fit in 32 floats' bytes";
  EXPECT_EQ(t.dtype(), DType::int64);
  t.reset({4, 8}, DType::float32);
  EXPECT_EQ(t.raw_data(), storage) << "shrinking never gave the storage away";
  EXPECT_EQ(t.capacity_bytes(), capacity);
  t.reset({100}, DType::float32);
  EXPECT_GE(t.capacity_bytes(), 400u) << "grows when too small";
}

TEST(Tensor, ResetNeverWritesIntoStorageAnotherHandleSees) {
  Tensor a = Tensor::filled({4}, 3.f);
  Tensor b = a;
  b.reset({2}, DType::float32);
  b.data<float>()[0] = -1.f;
  EXPECT_EQ(a.item(0), 3.f);
  EXPECT_EQ(a.shape(), (Shape{4}));
}

// Both of the CPU allocator's paths: blocks up to 64 KB from malloc, aligned by hand,
// larger ones from aligned_alloc; each counted while it lives and given back after.
TEST(Tensor, StorageIs64ByteAlignedAndCountedOnBothAllocatorPaths) {
  for (std::int64_t n : {1, 3, 17, 1000, 16384, 16385, 100000}) {
    SCOPED_TRACE(::testing::Message() << n << " floats");
    const std::int64_t before = memory_info(Device{}).current_bytes;
    {
      Tensor t({n});
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.raw_data()) % 64, 0u);
      EXPECT_GE(memory_info(Device{}).current_bytes - before, n * 4);
      t.data<float>()[n - 1] = 1.f;  // the whole block is usable
    }
    EXPECT_EQ(memory_info(Device{}).current_bytes, before);
  }
}

TEST(Tensor, FromVectorChecksTheSize) {
  Tensor t = Tensor::from_vector<std::int64_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(t.dtype(), DType::int64);
  EXPECT_EQ(t.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4}));
  try {
    Tensor::from_vector<float>({2, 3}, {1, 2, 3});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("(2, 3)"), std::string::npos) << message;
    EXPECT_NE(message.find("3 values"), std::string::npos) << message;
  }
}

TEST(Tensor, TypedAccessChecksTheDtype) {
  Tensor t({3}, DType::int32);
  EXPECT_THROW(t.data<float>(), ValueError);
  EXPECT_THROW(t.data<std::int64_t>(), ValueError);
  EXPECT_NO_THROW(t.data<std::int32_t>());
  EXPECT_THROW(Tensor().data<float>(), ValueError);
}

TEST(Tensor, ItemReadsAnyDtypeAsFloatAndChecksTheIndex) {
  EXPECT_EQ(Tensor::from_vector<std::int32_t>({2}, {7, -3}).item(1), -3.f);
  EXPECT_EQ(Tensor::scalar(2.5f).item(), 2.5f);
  EXPECT_EQ(Tensor::scalar(2.5f).shape(), Shape{});
  EXPECT_THROW(Tensor({2}).item(2), ValueError);
  EXPECT_THROW(Tensor({2}).item(-1), ValueError);
}

TEST(Tensor, SlicesAndGathersRows) {
  Tensor t = Tensor::from_vector<float>({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  Tensor s = t.slice_rows(1, 3);
  EXPECT_EQ(s.shape(), (Shape{2, 2}));
  EXPECT_EQ(s.to_vector<float>(), (std::vector<float>{10, 11, 20, 21}));
  EXPECT_FALSE(s.shares_storage_with(t));
  EXPECT_THROW(t.slice_rows(3, 5), ValueError);
  std::vector<std::int64_t> rows{3, 0, 3};
  Tensor gathered = t.gather_rows(rows);
  EXPECT_EQ(gathered.to_vector<float>(), (std::vector<float>{30, 31, 0, 1, 30, 31}));
  std::vector<std::int64_t> bad{4};
  EXPECT_THROW(t.gather_rows(bad), ValueError);
}

TEST(Tensor, PrintsShapeDtypeAndLeadingValues) {
  Tensor t = Tensor::from_vector<float>({2}, {1.5f, -2.f});
  EXPECT_EQ(t.to_string(), "Tensor(shape=(2,), dtype=float32, values=[1.5, -2])");
  EXPECT_NE(Tensor({20}).to_string(4).find("..."), std::string::npos);
}

TEST(DType, ParsesKerasNames) {
  EXPECT_EQ(parse_dtype("float32"), DType::float32);
  EXPECT_EQ(parse_dtype("int64"), DType::int64);
  EXPECT_EQ(to_string(DType::int32), "int32");
  EXPECT_EQ(size_of(DType::int64), 8u);
  EXPECT_THROW(parse_dtype("float64"), ValueError);
}

TEST(Variable, CopiesAreTheSameVariable) {
  Variable v("dense/kernel", Tensor::filled({2}, 1.f));
  Variable w = v;
  w.value().data<float>()[0] = 9.f;
  EXPECT_EQ(v.value().item(0), 9.f);
  EXPECT_TRUE(v == w);
  EXPECT_FALSE(v == Variable("dense/kernel", Tensor::filled({2}, 1.f)));
  EXPECT_EQ(v.name(), "kernel");
  EXPECT_EQ(v.path(), "dense/kernel");
}

TEST(Variable, AssignChecksTheShapeAndNamesTheVariable) {
  Variable v("dense/bias", Tensor({3}));
  v.assign(Tensor::filled({3}, 2.f));
  EXPECT_EQ(v.value().item(2), 2.f);
  try {
    v.assign(Tensor({4}));
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("dense/bias"), std::string::npos) << message;
    EXPECT_NE(message.find("(4,)"), std::string::npos) << message;
  }
  EXPECT_THROW(Variable().value(), ValueError);
}

TEST(Variable, AScalarIsReadAndWrittenInPlaceOnTheCpu) {
  Variable steps("adam/iteration", Tensor(Shape{}, DType::int64));
  const Tensor storage = steps.value();
  steps.assign_scalar(41);
  EXPECT_EQ(steps.scalar(), 41.0);
  EXPECT_EQ(storage.data<std::int64_t>()[0], 41);  // written in place, not replaced
  Variable rate("adam/learning_rate", Tensor::scalar(0.f));
  rate.assign_scalar(1e-3);
  EXPECT_FLOAT_EQ(static_cast<float>(rate.scalar()), 1e-3f);
  Variable kernel("dense/kernel", Tensor({2, 2}));
  const std::string msg = message_of([&] { kernel.scalar(); });
  EXPECT_NE(msg.find("'dense/kernel' of shape (2, 2)"), std::string::npos) << msg;
  EXPECT_NE(message_of([&] { kernel.assign_scalar(1); }), "");
}

TEST(Variable, PlacingOnTheDeviceItIsOnKeepsTheStorage) {
  Variable v("dense/bias", Tensor::filled({3}, 1.f));
  const Tensor before = v.value();
  v.place_on(Device{});
  EXPECT_TRUE(v.value().shares_storage_with(before));
}

TEST(Tensor, CopyFromChecksShapeAndDtype) {
  Tensor a = Tensor::filled({2, 3}, 0.f);
  a.copy_from(Tensor::filled({2, 3}, 4.f));
  EXPECT_EQ(a.item(5), 4.f);
  const std::string msg = message_of([&] { a.copy_from(Tensor::filled({3, 2}, 1.f)); });
  EXPECT_NE(msg.find("shape (3, 2)"), std::string::npos) << msg;
  EXPECT_THROW(a.copy_from(Tensor({2, 3}, DType::int32)), ShapeError);
}

}  // namespace tensor_test
