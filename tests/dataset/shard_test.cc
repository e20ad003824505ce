// Dataset::shard (tf.data's shard): which elements a shard keeps, its cardinality as
// tf.data computes it, determinism with shuffle and batch after it, resuming a sharded
// iteration mid-pass, and the errors for bad arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/error.h"
#include "data/dataset.h"

using namespace strata;

namespace shard_test {

namespace {

// Row i holds the value i.
Tensor rows(std::int64_t n) {
  Tensor t(Shape{n, 2});
  for (std::int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = static_cast<float>(i / 2);
  return t;
}

// The row values of every element, in order (a batch contributes each of its rows).
std::vector<float> values(std::unique_ptr<DatasetIterator> it) {
  std::vector<float> out;
  while (auto e = it->next()) {
    const Tensor& t = (*e)[0];
    for (std::int64_t i = 0; i < t.size(); i += 2) out.push_back(t.item(i));
  }
  return out;
}
std::vector<float> values(const Dataset& d, std::uint64_t iteration = 0) { return values(d.iterate(iteration)); }

std::int64_t count(const Dataset& d) {
  std::int64_t n = 0;
  auto it = d.iterate();
  while (it->next()) ++n;
  return n;
}

// A source whose size is unknown until iterated (as tf.data's filter).
class UnknownSize : public DatasetImpl {
 public:
  std::int64_t cardinality() const override { return kUnknown; }
  std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration) const override {
    return Dataset::from_tensors({rows(5)}).iterate(iteration);
  }
};

}  // namespace

TEST(DatasetShard, KeepsThePositionsCongruentToIndex) {
  const Dataset d = Dataset::from_tensors({rows(10)});
  EXPECT_EQ(values(d.shard(3, 0)), (std::vector<float>{0, 3, 6, 9}));
  EXPECT_EQ(values(d.shard(3, 1)), (std::vector<float>{1, 4, 7}));
  EXPECT_EQ(values(d.shard(3, 2)), (std::vector<float>{2, 5, 8}));
  EXPECT_EQ(values(d.shard(1, 0)), values(d));
  EXPECT_TRUE(values(d.shard(20, 15)).empty());
  // The shards together hold every element exactly once.
  std::vector<float> all;
  for (std::int64_t i = 0; i < 4; ++i) {
    const auto part = values(d.shard(4, i));
    all.insert(all.end(), part.begin(), part.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, values(d));
  // Targets are sharded with their inputs, and x_count carries over.
  const Dataset xy = Dataset::from_tensors(rows(6), Tensor::from_vector<std::int64_t>({6}, {10, 11, 12, 13, 14, 15}));
  auto it = xy.shard(2, 1).iterate();
  auto e = it->next();
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)[0].item(0), 1.f);
  EXPECT_EQ((*e)[1].item(), 11.f);
  EXPECT_EQ(xy.shard(2, 1).x_count(), 1u);
  // After the end, next() stays at the end.
  EXPECT_TRUE(it->next());
  EXPECT_TRUE(it->next());
  EXPECT_FALSE(it->next());
  EXPECT_FALSE(it->next());
}

TEST(DatasetShard, CardinalityIsTfDatas) {
  for (std::int64_t n = 0; n <= 9; ++n) {
    for (std::int64_t num = 1; num <= 4; ++num) {
      for (std::int64_t index = 0; index < num; ++index) {
        SCOPED_TRACE(std::to_string(n) + " elements, shard(" + std::to_string(num) + ", " +
                     std::to_string(index) + ")");
        const Dataset base = n == 0 ? Dataset::from_tensors({rows(1)}).shard(2, 1) : Dataset::from_tensors({rows(n)});
        const Dataset s = base.shard(num, index);
        EXPECT_EQ(s.cardinality(), n / num + (index < n % num ? 1 : 0));
        EXPECT_EQ(s.cardinality(), count(s));
      }
    }
  }
  const Dataset d = Dataset::from_tensors({rows(10)});
  EXPECT_EQ(d.shard(3, 0).batch(2).cardinality(), 2);  // 4 elements
  EXPECT_EQ(d.shard(3, 2).batch(2, true).cardinality(), 1);
  EXPECT_EQ(d.batch(3).shard(2, 1).cardinality(), 2);  // batches 1 and 3 of 4
  EXPECT_EQ(d.repeat().shard(3, 1).cardinality(), DatasetImpl::kInfinite);
  EXPECT_EQ(d.repeat(2).shard(3, 1).cardinality(), 7);
  EXPECT_EQ(values(d.repeat(2).shard(3, 1)), (std::vector<float>{1, 4, 7, 0, 3, 6, 9}));
  const Dataset unknown(std::make_shared<UnknownSize>());
  EXPECT_EQ(unknown.shard(2, 0).cardinality(), DatasetImpl::kUnknown);
  EXPECT_EQ(values(unknown.shard(2, 0)), (std::vector<float>{0, 2, 4}));
}

TEST(DatasetShard, ShuffleAndBatchAfterAShardAreDeterministic) {
  const Dataset d = Dataset::from_tensors({rows(40)}).shard(4, 2).shuffle(10, 5).batch(3);
  EXPECT_EQ(d.cardinality(), 4);
  EXPECT_TRUE(d.batched());
  const auto a = values(d, 0);
  EXPECT_EQ(a, values(d, 0));
  EXPECT_EQ(a, values(d.prefetch(2), 0));
  EXPECT_NE(a, values(d, 1));  // reshuffled every iteration, within the shard
  std::vector<float> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, values(Dataset::from_tensors({rows(40)}).shard(4, 2)));
  auto it = d.iterate(0);
  std::vector<std::int64_t> sizes;
  while (auto e = it->next()) sizes.push_back((*e)[0].shape()[0]);
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{3, 3, 3, 1}));
}

TEST(DatasetShard, ResumedMidPassYieldsWhatTheUninterruptedPassDoes) {
  // Sharded first (the usual place), and sharded after a repeat: the shard counts
  // positions over the repeated stream.
  for (const Dataset& d : {Dataset::from_tensors({rows(50)}).shard(3, 1).shuffle(8, 11).batch(4).prefetch(2),
                           Dataset::from_tensors({rows(7)}).repeat(3).shard(2, 1).batch(2)}) {
    const std::uint64_t iteration = 2;
    std::vector<float> full;
    std::vector<std::size_t> rows_before;  // rows yielded before batch k
    auto it = d.iterate(iteration);
    while (auto e = it->next()) {
      rows_before.push_back(full.size());
      for (std::int64_t i = 0; i < (*e)[0].size(); i += 2) full.push_back((*e)[0].item(i));
    }
    ASSERT_GE(rows_before.size(), 3u);
    for (std::int64_t consumed : {1, 2}) {
      SCOPED_TRACE("resumed after " + std::to_string(consumed) + " batches");
      const auto rest = values(resume(d, {.iteration = iteration, .consumed = consumed}));
      const auto skipped = static_cast<std::ptrdiff_t>(rows_before[consumed]);
      EXPECT_EQ(rest, std::vector<float>(full.begin() + skipped, full.end()));
    }
  }
}

TEST(DatasetShard, BadArgumentsAreValueErrorsThatSayWhy) {
  const Dataset d = Dataset::from_tensors({rows(4)});
  const auto message = [&](std::int64_t num, std::int64_t index) -> std::string {
    try {
      d.shard(num, index);
    } catch (const ValueError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message(0, 0).find("num_shards must be at least 1, got 0"), std::string::npos) << message(0, 0);
  EXPECT_NE(message(-2, 0).find("num_shards must be at least 1, got -2"), std::string::npos) << message(-2, 0);
  EXPECT_NE(message(3, 3).find("index must be in [0, num_shards) = [0, 3), got 3"), std::string::npos) << message(3, 3);
  EXPECT_NE(message(3, -1).find("got -1"), std::string::npos) << message(3, -1);
  EXPECT_EQ(message(3, 2), "no error");
}

}  // namespace shard_test
