// Dataset (data/dataset.h): slicing tensors, transformations, determinism, resuming an
// iteration. The sources that read files are tested in tests/io/dataset_files_test.cc.
#include <gtest/gtest.h>

#include <set>

#include "data/dataset.h"

using namespace strata;

namespace dataset_test {

namespace {

Tensor range_rows(std::int64_t n, std::int64_t width = 2) {
  Tensor t(Shape{n, width});
  for (std::int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = static_cast<float>(i / width);
  return t;
}

// The first value of every element (rows carry their index).
std::vector<float> firsts(const Dataset& d, std::uint64_t iteration = 0) {
  std::vector<float> out;
  auto it = d.iterate(iteration);
  while (auto e = it->next()) {
    const Tensor& t = (*e)[0];
    std::int64_t per = t.rank() >= 2 ? t.size() / t.shape()[0] : t.size();
    for (std::int64_t i = 0; i < t.size(); i += per) out.push_back(t.item(i));
  }
  return out;
}

}  // namespace

TEST(Dataset, FromTensorsBatchesInOrder) {
  Dataset d = Dataset::from_tensors(range_rows(5), Tensor::from_vector<std::int64_t>({5}, {0, 1, 2, 3, 4})).batch(2);
  EXPECT_EQ(d.cardinality(), 3);
  auto it = d.iterate();
  auto b0 = it->next();
  ASSERT_TRUE(b0);
  EXPECT_EQ((*b0)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ((*b0)[1].shape(), (Shape{2}));
  EXPECT_EQ((*b0)[1].dtype(), DType::int64);
  it->next();
  auto last = it->next();
  EXPECT_EQ((*last)[0].shape(), (Shape{1, 2}));
  EXPECT_FALSE(it->next());
  EXPECT_EQ(Dataset::from_tensors(range_rows(5), Tensor()).batch(2, true).cardinality(), 2);
  EXPECT_THROW(Dataset::from_tensors({range_rows(5)}, {range_rows(4)}), ValueError);
}

TEST(Dataset, ShuffleIsAPermutationPerIterationAndDeterministic) {
  Dataset d = Dataset::from_tensors({range_rows(20)}).shuffle(20, 7);
  auto a = firsts(d, 0), b = firsts(d, 0), c = firsts(d, 1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<float>(a.begin(), a.end()).size(), 20u);
  EXPECT_NE(firsts(Dataset::from_tensors({range_rows(20)}).shuffle(20, 8)), a);
  // With a buffer of 3, output position p draws from elements 0..p+2: element k can't
  // come out before position k − 2.
  auto local = firsts(Dataset::from_tensors({range_rows(20)}).shuffle(3, 1));
  for (std::size_t p = 0; p < local.size(); ++p) EXPECT_LE(local[p], static_cast<float>(p + 2));
}

TEST(Dataset, MapRepeatCachePrefetch) {
  Dataset d = Dataset::from_tensors({range_rows(3)}).map([](Element e) {
    Tensor t = e[0].clone();
    for (std::int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] *= 10;
    return Element{t};
  });
  EXPECT_EQ(firsts(d), (std::vector<float>{0, 10, 20}));
  EXPECT_EQ(firsts(d.repeat(2)), (std::vector<float>{0, 10, 20, 0, 10, 20}));
  EXPECT_EQ(d.repeat().cardinality(), DatasetImpl::kInfinite);
  // cache() freezes the first iteration's shuffle.
  Dataset cached = Dataset::from_tensors({range_rows(10)}).shuffle(10, 3).cache();
  EXPECT_EQ(firsts(cached, 0), firsts(cached, 5));
  // prefetch on a background thread yields the same elements, and iterators can be
  // dropped half-way.
  Dataset pipeline = Dataset::from_tensors({range_rows(50)}).shuffle(50, 2).batch(4);
  EXPECT_EQ(firsts(pipeline.prefetch(3), 4), firsts(pipeline, 4));
  auto it = pipeline.prefetch(2).iterate();
  it->next();
  it.reset();
  // An error inside the pipeline reaches the consumer.
  Dataset failing = Dataset::from_tensors({range_rows(4)}).map([](Element e) -> Element {
    if (e[0].item(0) == 2.f) throw ValueError("bad element");
    return e;
  });
  auto fit = failing.prefetch(1).iterate();
  EXPECT_THROW({ while (fit->next()) {} }, ValueError);
}

TEST(Dataset, ResumeReplaysTheIterationExactly) {
  Dataset d = Dataset::from_tensors({range_rows(30)}).shuffle(8, 11).batch(4).prefetch(2);
  auto full = firsts(d, 3);
  auto it = resume(d, {.iteration = 3, .consumed = 2});
  std::vector<float> rest;
  while (auto e = it->next()) {
    for (std::int64_t i = 0; i < (*e)[0].size(); i += 2) rest.push_back((*e)[0].item(i));
  }
  EXPECT_EQ(rest, std::vector<float>(full.begin() + 8, full.end()));
  EXPECT_THROW(resume(d, {.iteration = 0, .consumed = 100}), ValueError);
}

}  // namespace dataset_test
