// Op cases for clahe_tables and clahe_interpolate (core/ops/image_ops.h), beyond the CLAHE
// layer's Keras goldens (tests/layers/augmentation_mix_test.cc): tables worked by hand (a
// plain equalization, a clipped one with its excess spread, a tile of padded rows) and the
// blend of two tiles' tables along the rows between their centres. Neither op is
// differentiable (Keras reads the pixels through an integer cast).
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/image_ops.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::clahe_op_cases {
namespace {

Tensor clahe_tables_of(const Tensor& images, std::int64_t grid_h, std::int64_t grid_w, double clip_limit) {
  Graph g;
  Output x = g.placeholder({images.shape()}, "images");
  Program p(g, {x}, {ops::clahe_tables(x, grid_h, grid_w, clip_limit)});
  return p.run({images})[0];
}

void check_clahe_tables() {
  // Pixels 0, 0, 10, 255 (one 2 x 2 tile), no clipping: cdf 2 below bin 10, 3 below 255,
  // 4 at 255; cdf_min 2: (cdf - 2) · 255 / 2.
  const Tensor image = Tensor::from_vector<float>({1, 2, 2, 1}, {0.f, 0.4f, 10.9f, 300.f});
  const Tensor plain = clahe_tables_of(image, 1, 1, 0.0);
  ASSERT_EQ(plain.shape(), Shape({1, 1, 1, 1, 256}));
  for (std::int64_t k = 0; k < 256; ++k) {
    const float want = k < 10 ? 0.f : (k < 255 ? 127.5f : 255.f);
    ASSERT_FLOAT_EQ(plain.item(k), want) << k;
  }
  // clip_limit 64: limit 64 · 4 / 256 = 1, bin 0's excess 1 spread as 1/256 per bin:
  // cdf(k) = (k + 1) / 256 + (k >= 0) + (k >= 10) + (k >= 255), cdf_min = 1 + 1/256.
  const Tensor clipped = clahe_tables_of(image, 1, 1, 64.0);
  const double cdf_min = 1.0 + 1.0 / 256;
  for (std::int64_t k = 0; k < 256; ++k) {
    const double cdf = (k + 1) / 256.0 + 1 + (k >= 10) + (k >= 255);
    ASSERT_NEAR(clipped.item(k), (cdf - cdf_min) * 255 / (4 - cdf_min), 1e-4) << k;
  }
  // A 3 x 1 image on 2 x 1 tiles of 2 rows: tile 0 holds 50 and 60, tile 1 row 2 and its
  // mirror, row 2 again (70 twice). Bin 0 is empty in both, so cdf_min is 0 and each table
  // is cdf · 255 / 2.
  const Tensor rows = Tensor::from_vector<float>({1, 3, 1, 1}, {50.f, 60.f, 70.f});
  const Tensor padded = clahe_tables_of(rows, 2, 1, 0.0);
  ASSERT_EQ(padded.shape(), Shape({1, 2, 1, 1, 256}));
  EXPECT_FLOAT_EQ(padded.item(49), 0.f);
  EXPECT_FLOAT_EQ(padded.item(55), 127.5f);
  EXPECT_FLOAT_EQ(padded.item(60), 255.f);
  EXPECT_FLOAT_EQ(padded.item(256 + 69), 0.f);
  EXPECT_FLOAT_EQ(padded.item(256 + 70), 255.f);
  EXPECT_FLOAT_EQ(padded.item(256 + 255), 255.f);
  // A NaN pixel counts in bin 0 (as 0 does), never as an index out of the table: pixels
  // NaN, 0, 10, 255 give the plain table above.
  const Tensor with_nan =
      clahe_tables_of(Tensor::from_vector<float>({1, 2, 2, 1}, {std::nanf(""), 0.4f, 10.9f, 300.f}), 1, 1, 0.0);
  for (std::int64_t k = 0; k < 256; ++k) ASSERT_FLOAT_EQ(with_nan.item(k), plain.item(k)) << k;
  // More tiles than symmetric padding can fill, by name.
  Graph g;
  EXPECT_THROW(ops::clahe_tables(g.placeholder({Shape({1, 3, 3, 1})}), 8, 8, 4.0), ShapeError);
  EXPECT_THROW(ops::clahe_tables(g.placeholder({Shape({1, 3, 3, 1})}), 0, 1, 4.0), ShapeError);
}

void check_clahe_interpolate() {
  // A (4, 1) image on 2 x 1 tiles of 2 rows, tables k (tile 0) and 2k (tile 1): rows 0 and
  // 1 read tile 0, row 2 half of each, row 3 tile 1 (Keras's (y - tile / 2) / tile + 1).
  const Tensor images = Tensor::from_vector<float>({1, 4, 1, 1}, {10.f, 20.7f, 30.f, 40.f});
  Tensor tables({1, 2, 1, 1, 256});
  for (std::int64_t k = 0; k < 256; ++k) {
    tables.values<float>()[static_cast<std::size_t>(k)] = static_cast<float>(k);
    tables.values<float>()[static_cast<std::size_t>(256 + k)] = static_cast<float>(2 * k);
  }
  Graph g;
  Output x = g.placeholder({images.shape()}, "images");
  Output t = g.placeholder({tables.shape()}, "tables");
  Program p(g, {x, t}, {ops::clahe_interpolate(x, t)});
  const Tensor y = p.run({images, tables})[0];
  EXPECT_FLOAT_EQ(y.item(0), 10.f);
  EXPECT_FLOAT_EQ(y.item(1), 20.f);
  EXPECT_FLOAT_EQ(y.item(2), 45.f);
  EXPECT_FLOAT_EQ(y.item(3), 80.f);
  Graph bad;
  Output xb = bad.placeholder({images.shape()}, "images");
  EXPECT_THROW(ops::clahe_interpolate(xb, bad.placeholder({Shape({1, 2, 1, 1, 255})})), ShapeError);
  EXPECT_THROW(ops::clahe_interpolate(xb, bad.placeholder({Shape({1, 2, 1, 2, 256})})), ShapeError);  // channels
  // Tables of another batch: refused when run.
  Graph other;
  Output xo = other.placeholder({Shape({kUnknownDim, 4, 1, 1})}, "images");
  Output to = other.placeholder({Shape({kUnknownDim, 2, 1, 1, 256})}, "tables");
  Program run_other(other, {xo, to}, {ops::clahe_interpolate(xo, to)});
  Tensor two_tables({2, 2, 1, 1, 256});
  EXPECT_THROW(run_other.run({images, two_tables}), ShapeError);
}

const RegisterOpCases clahe_cases({{"clahe_tables", OpCase{{}, check_clahe_tables, ""}},
                                   {"clahe_interpolate", OpCase{{}, check_clahe_interpolate, ""}}});

}  // namespace
}  // namespace strata::testing::clahe_op_cases
