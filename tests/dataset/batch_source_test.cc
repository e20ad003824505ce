// BatchSource, the one adapter fit / evaluate / predict read batches through
// (data/batch_source.h): passes of arrays or of a Dataset, and data-parallel sharding
// plugged in with shard_with, applied to every batch as it is taken.
#include <gtest/gtest.h>

#include <vector>

#include "data/batch_source.h"
#include "data/dataset.h"

using namespace strata;

namespace batch_source_test {

namespace {

// Row i holds the value i.
Tensor rows(std::int64_t n) {
  Tensor t(Shape{n, 1});
  for (std::int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

std::vector<float> column(const Tensor& t) {
  std::vector<float> out;
  for (std::int64_t i = 0; i < t.shape()[0]; ++i) out.push_back(t.item(i));
  return out;
}

// Two processes' auto-shard, as process `rank` sees it: contiguous halves of each batch.
Sharder halves(std::int64_t rank) {
  return [rank](std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w) {
    const std::int64_t n = x.front().shape()[0], begin = n * rank / 2, end = n * (rank + 1) / 2;
    for (auto& t : x) t = t.slice_rows(begin, end);
    for (auto& t : y) t = t.slice_rows(begin, end);
    if (w.defined()) w = w.slice_rows(begin, end);
    return BatchShard{begin, n};
  };
}

}  // namespace

TEST(BatchSource, WholeBatchesWithoutASharder) {
  ArraySource source({rows(6)}, {rows(6)}, Tensor(), 4, false, 0);
  std::vector<Tensor> x, y;
  Tensor w;
  source.start(0, 0);
  ASSERT_TRUE(source.next(x, y, w));
  EXPECT_EQ(column(x[0]), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(source.shard().offset, 0);
  EXPECT_EQ(source.shard().global, 0);
  ASSERT_TRUE(source.next(x, y, w));
  EXPECT_EQ(column(y[0]), (std::vector<float>{4, 5}));
  EXPECT_FALSE(source.next(x, y, w));
}

TEST(BatchSource, TheShardersCutIsAppliedToEveryBatchAndSaysWhereItSits) {
  Tensor weights = rows(6);
  ArraySource arrays({rows(6)}, {rows(6)}, weights.reshaped(Shape{6}), 4, false, 0);
  arrays.shard_with(halves(1));
  std::vector<Tensor> x, y;
  Tensor w;
  arrays.start(0, 0);
  ASSERT_TRUE(arrays.next(x, y, w));
  EXPECT_EQ(column(x[0]), (std::vector<float>{2, 3}));
  EXPECT_EQ(column(y[0]), (std::vector<float>{2, 3}));
  EXPECT_EQ(column(w), (std::vector<float>{2, 3}));
  EXPECT_EQ(arrays.shard().offset, 2);
  EXPECT_EQ(arrays.shard().global, 4);
  ASSERT_TRUE(arrays.next(x, y, w));  // the last, smaller batch
  EXPECT_EQ(column(x[0]), (std::vector<float>{5}));
  EXPECT_EQ(arrays.shard().offset, 1);
  EXPECT_EQ(arrays.shard().global, 2);

  // A Dataset's batches go through the same cut; an empty sharder makes them whole again.
  DatasetSource dataset(Dataset::from_tensors(rows(6), rows(6)).batch(4), nullptr);
  dataset.shard_with(halves(0));
  dataset.start(0, 0);
  ASSERT_TRUE(dataset.next(x, y, w));
  EXPECT_EQ(column(x[0]), (std::vector<float>{0, 1}));
  EXPECT_EQ(dataset.shard().global, 4);
  dataset.shard_with({});
  ASSERT_TRUE(dataset.next(x, y, w));
  EXPECT_EQ(column(x[0]), (std::vector<float>{4, 5}));
  EXPECT_EQ(dataset.shard().global, 0);
}

}  // namespace batch_source_test
