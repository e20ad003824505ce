// Shape: Keras's notation, unknown dimensions, axes, and shape errors that name shapes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/shape_util.h"
#include "core/shape.h"

using namespace strata;

namespace shape_test {

namespace {

template <typename F>
std::string shape_error_of(F&& f) {
  try {
    f();
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "no ShapeError";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(Shape, PrintsInKerasNotation) {
  EXPECT_EQ((Shape{kUnknownDim, 28, 28}).to_string(), "(None, 28, 28)");
  EXPECT_EQ((Shape{10}).to_string(), "(10,)");
  EXPECT_EQ(Shape{}.to_string(), "()");
  EXPECT_EQ((Shape{kUnknownDim}).to_string(), "(None,)");
  EXPECT_EQ((Shape{3, 0}).to_string(), "(3, 0)");
}

TEST(Shape, CountsElementsOnlyWhenFullyDefined) {
  EXPECT_EQ((Shape{2, 3, 4}).num_elements(), 24);
  EXPECT_EQ(Shape{}.num_elements(), 1) << "a scalar holds one element";
  EXPECT_EQ((Shape{5, 0}).num_elements(), 0);
  EXPECT_TRUE((Shape{2, 3}).is_fully_defined());
  EXPECT_FALSE((Shape{kUnknownDim, 3}).is_fully_defined());
  std::string message = shape_error_of([] { (Shape{kUnknownDim, 3}).num_elements(); });
  EXPECT_TRUE(contains(message, "(None, 3)")) << message;
}

// Shapes from damaged files or configs: a count past int64 (or past any tensor) is a
// ShapeError, never a wrapped number that would size an allocation.
TEST(Shape, CountsThatWouldOverflowAreShapeErrors) {
  const std::int64_t big = std::int64_t{1} << 40;
  std::string message = shape_error_of([&] { (Shape{big, big}).num_elements(); });
  EXPECT_TRUE(contains(message, "more elements than any tensor can hold")) << message;
  message = shape_error_of([&] { (Shape{std::int64_t{1} << 31, std::int64_t{1} << 30}).num_elements(); });
  EXPECT_TRUE(contains(message, "more elements")) << message;
  EXPECT_EQ((Shape{std::int64_t{1} << 30, std::int64_t{1} << 30}).num_elements(), std::int64_t{1} << 60);
  EXPECT_EQ((Shape{0, big, big}).num_elements(), 0);
}

TEST(Shape, ProductOfARangeIsUnknownWhenADimIs) {
  Shape s{kUnknownDim, 3, 4};
  EXPECT_EQ(s.product(1, 3), 12);
  EXPECT_EQ(s.product(0, 2), kUnknownDim);
  EXPECT_EQ(s.product(1, 1), 1);
}

TEST(Shape, IndexesWithNegativeAxes) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s[0], 2);
  EXPECT_EQ(s[-1], 4);
  EXPECT_EQ(s[-3], 2);
  EXPECT_EQ(s.normalize_axis(-2), 1);
  std::string message = shape_error_of([&] { s[3]; });
  EXPECT_TRUE(contains(message, "axis 3") && contains(message, "(2, 3, 4)")) << message;
  EXPECT_THROW(s[-4], ShapeError);
  EXPECT_THROW(Shape{}[0], ShapeError);
}

TEST(Shape, TreatsUnknownDimsAsCompatible) {
  EXPECT_TRUE((Shape{kUnknownDim, 3}).is_compatible_with(Shape{7, 3}));
  EXPECT_TRUE((Shape{7, 3}).is_compatible_with(Shape{kUnknownDim, 3}));
  EXPECT_FALSE((Shape{kUnknownDim, 3}).is_compatible_with(Shape{7, 4}));
  EXPECT_FALSE((Shape{kUnknownDim, 3}).is_compatible_with(Shape{3}));
  EXPECT_TRUE(Shape{}.is_compatible_with(Shape{}));
}

TEST(Shape, AddsAndDropsTheBatchDimension) {
  Shape s{28, 28};
  EXPECT_EQ(s.with_batch(kUnknownDim), (Shape{kUnknownDim, 28, 28}));
  EXPECT_EQ(s.with_batch(kUnknownDim).without_batch(), s);
  EXPECT_EQ(s.with_dim(-1, 5), (Shape{28, 5}));
  EXPECT_EQ(s, (Shape{28, 28})) << "with_dim returns a copy";
  EXPECT_THROW(Shape{}.without_batch(), ShapeError);
}

TEST(Shape, BroadcastingErrorsNameBothShapes) {
  Graph g;
  Output a = g.placeholder({Shape{kUnknownDim, 4}}, "a");
  Output b = g.placeholder({Shape{5}}, "b");
  std::string message = shape_error_of([&] { ops::add(a, b); });
  EXPECT_TRUE(contains(message, "(None, 4)") && contains(message, "(5,)")) << message;
  EXPECT_TRUE(contains(message, "add")) << message;
  message = shape_error_of([&] { ops::maximum(g.placeholder({Shape{2, 3}}, "c"), g.placeholder({Shape{3, 2}}, "d")); });
  EXPECT_TRUE(contains(message, "(2, 3)") && contains(message, "(3, 2)")) << message;
}

TEST(Shape, BroadcastingKeepsUnknownDims) {
  Graph g;
  Output a = g.placeholder({Shape{kUnknownDim, 1, 4}}, "a");
  Output b = g.placeholder({Shape{3, 1}}, "b");
  EXPECT_EQ(ops::add(a, b).shape(), (Shape{kUnknownDim, 3, 4}));
  EXPECT_EQ(ops::mul(a, ops::constant(g, 2.f)).shape(), (Shape{kUnknownDim, 1, 4}));
}

// The kernels' strided walks merge what they can: size-1 dims go, and a dim joins the one
// inside it where every operand's memory steps alike.
TEST(Shape, CollapseDimsDropsOnesAndJoinsDimsEveryOperandWalksAlike) {
  {  // a mask against per-sample weights: n rows of h * w
    const Shape out{8, 30, 40, 1};
    ops::Strides a = ops::broadcast_strides(out, out), b = ops::broadcast_strides(Shape{8, 1, 1, 1}, out);
    const ops::Strides dims = ops::collapse_dims(out, a, b);
    EXPECT_EQ(std::vector<std::int64_t>(dims.begin(), dims.end()), (std::vector<std::int64_t>{8, 1200}));
    EXPECT_EQ(std::vector<std::int64_t>(a.begin(), a.end()), (std::vector<std::int64_t>{1200, 1}));
    EXPECT_EQ(std::vector<std::int64_t>(b.begin(), b.end()), (std::vector<std::int64_t>{1, 0}));
  }
  {  // broadcasts interleaved: nothing joins, only the 1s go
    const Shape out{4, 6, 50, 2, 3};
    ops::Strides a = ops::broadcast_strides(Shape{4, 1, 50, 1, 3}, out);
    ops::Strides b = ops::broadcast_strides(Shape{6, 50, 2, 1}, out);
    const ops::Strides dims = ops::collapse_dims(out, a, b);
    EXPECT_EQ(std::vector<std::int64_t>(dims.begin(), dims.end()), (std::vector<std::int64_t>{4, 6, 50, 2, 3}));
  }
  {  // a per-channel vector over an image: one row of channels, repeated
    const Shape out{2, 5, 7, 16};
    ops::Strides v = ops::broadcast_strides(Shape{16}, out);
    const ops::Strides dims = ops::collapse_dims(out, v);
    EXPECT_EQ(std::vector<std::int64_t>(dims.begin(), dims.end()), (std::vector<std::int64_t>{70, 16}));
    EXPECT_EQ(std::vector<std::int64_t>(v.begin(), v.end()), (std::vector<std::int64_t>{0, 1}));
  }
  {  // all ones, and a scalar: one dim of one element
    const Shape out{1, 1};
    ops::Strides a = ops::broadcast_strides(Shape{}, out);
    const ops::Strides dims = ops::collapse_dims(out, a);
    EXPECT_EQ(std::vector<std::int64_t>(dims.begin(), dims.end()), (std::vector<std::int64_t>{1}));
    EXPECT_EQ(std::vector<std::int64_t>(a.begin(), a.end()), (std::vector<std::int64_t>{0}));
  }
}

TEST(Shape, MatmulErrorsNameBothShapes) {
  Graph g;
  Output a = g.placeholder({Shape{kUnknownDim, 3}}, "a");
  Output b = g.placeholder({Shape{4, 5}}, "b");
  std::string message = shape_error_of([&] { ops::matmul(a, b); });
  EXPECT_TRUE(contains(message, "(None, 3)") && contains(message, "(4, 5)")) << message;
  EXPECT_EQ(ops::matmul(a, g.placeholder({Shape{3, 5}}, "c")).shape(), (Shape{kUnknownDim, 5}));
}

TEST(Shape, ReductionAndReshapeErrorsNameTheShape) {
  Graph g;
  Output x = g.placeholder({Shape{2, 3}}, "x");
  EXPECT_THROW(ops::reduce_sum(x, {2}), ShapeError);
  std::string message = shape_error_of([&] { ops::reshape(x, {4, 2}); });
  EXPECT_TRUE(contains(message, "(2, 3)") && contains(message, "(4, 2)")) << message;
  EXPECT_EQ(ops::reshape(x, {-1}).shape(), (Shape{6}));
  EXPECT_EQ(ops::reduce_mean(x, {-1}, true).shape(), (Shape{2, 1}));
}

}  // namespace shape_test
