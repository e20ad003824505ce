// Op cases for matrix_inverse, matrix_determinant and cholesky (core/ops/linalg_ops.h):
// forward values against Gauss-Jordan, LU and Cholesky written out here in double, gradients
// by finite differences (cholesky's of its input symmetrized first: its gradient, as
// TensorFlow's, is that of a symmetric change of the matrix); a matrix that is not positive
// definite gives a factor of NaN.
#include <cmath>
#include <utility>

#include "core/ops.h"
#include "core/ops/linalg_ops.h"
#include "op_cases.h"

namespace strata::testing::linalg_op_cases {
namespace {

using V = const std::vector<Output>&;
using LinalgRows = std::vector<std::vector<double>>;

// The matrices of x (..., n, n): each as rows of doubles.
std::vector<LinalgRows> linalg_matrices_of(const Tensor& x) {
  const std::int64_t n = x.shape()[x.shape().rank() - 1];
  std::vector<LinalgRows> out;
  for (std::int64_t k = 0; k < x.size() / (n * n); ++k) {
    LinalgRows m(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n)));
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) m[i][j] = x.data<float>()[(k * n + i) * n + j];
    out.push_back(std::move(m));
  }
  return out;
}

// Gauss-Jordan with partial pivoting; det as the pivots' product with the exchanges' sign.
std::pair<LinalgRows, double> linalg_eliminate(LinalgRows a) {
  const std::size_t n = a.size();
  LinalgRows inv(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) inv[i][i] = 1.0;
  double det = 1.0;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t r = k + 1; r < n; ++r)
      if (std::fabs(a[r][k]) > std::fabs(a[p][k])) p = r;
    if (p != k) {
      std::swap(a[p], a[k]);
      std::swap(inv[p], inv[k]);
      det = -det;
    }
    const double pivot = a[k][k];
    det *= pivot;
    for (std::size_t c = 0; c < n; ++c) {
      a[k][c] /= pivot;
      inv[k][c] /= pivot;
    }
    for (std::size_t r = 0; r < n; ++r) {
      if (r == k) continue;
      const double f = a[r][k];
      for (std::size_t c = 0; c < n; ++c) {
        a[r][c] -= f * a[k][c];
        inv[r][c] -= f * inv[k][c];
      }
    }
  }
  return {inv, det};
}

Tensor ref_inverse(const std::vector<Tensor>& in) {
  Tensor out{in[0].shape()};
  std::size_t at = 0;
  for (const LinalgRows& m : linalg_matrices_of(in[0]))
    for (const auto& row : linalg_eliminate(m).first)
      for (double v : row) out.data<float>()[at++] = static_cast<float>(v);
  return out;
}

Tensor ref_determinant(const std::vector<Tensor>& in) {
  const auto& d = in[0].shape().dims();
  Tensor out{Shape(std::vector<std::int64_t>(d.begin(), d.end() - 2))};
  std::size_t at = 0;
  for (const LinalgRows& m : linalg_matrices_of(in[0]))
    out.data<float>()[at++] = static_cast<float>(linalg_eliminate(m).second);
  return out;
}

// The lower factor of each matrix's lower triangle (its upper one unread).
Tensor ref_cholesky(const std::vector<Tensor>& in) {
  Tensor out{in[0].shape()};
  std::size_t at = 0;
  for (const LinalgRows& a : linalg_matrices_of(in[0])) {
    const std::size_t n = a.size();
    LinalgRows l(n, std::vector<double>(n, 0.0));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j <= i; ++j) {
        double s = a[i][j];
        for (std::size_t k = 0; k < j; ++k) s -= l[i][k] * l[j][k];
        l[i][j] = i == j ? std::sqrt(s) : s / l[j][j];
      }
    }
    for (const auto& row : l)
      for (double v : row) out.data<float>()[at++] = static_cast<float>(v);
  }
  return out;
}

// Random matrices with `boost` added where each row's goes: the diagonal, or the next column
// (so that elimination exchanges rows).
Tensor well_conditioned(Shape shape, bool shifted, std::uint64_t seed, float boost = 3.f) {
  Tensor x = uniform(std::move(shape), -1, 1, seed);
  const std::int64_t n = x.shape()[x.shape().rank() - 1];
  for (std::int64_t k = 0; k < x.size() / (n * n); ++k)
    for (std::int64_t i = 0; i < n; ++i) x.data<float>()[(k * n + i) * n + (shifted ? (i + 1) % n : i)] += boost;
  return x;
}

// M M^T + n I: symmetric positive definite; the upper triangle set to garbage when asked
// (cholesky reads the lower one only).
Tensor positive_definite(Shape shape, bool garbage_above, std::uint64_t seed) {
  const Tensor m = uniform(shape, -1, 1, seed);
  Tensor x{shape};
  const std::int64_t n = shape[shape.rank() - 1];
  for (std::int64_t k = 0; k < x.size() / (n * n); ++k) {
    const float* a = m.data<float>() + k * n * n;
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double s = i == j ? static_cast<double>(n) : 0.0;
        for (std::int64_t t = 0; t < n; ++t) s += a[i * n + t] * a[j * n + t];
        x.data<float>()[(k * n + i) * n + j] = garbage_above && j > i ? 7.f : static_cast<float>(s);
      }
    }
  }
  return x;
}

GradCase linalg_case(std::string label, Output (*op)(Output), Tensor x, Reference reference) {
  return {std::move(label), [op](Graph&, V in) { return op(in[0]); }, {std::move(x)}, std::move(reference)};
}

// cholesky of (x + x^T) / 2: its value is cholesky(x)'s for a symmetric x.
GradCase symmetric_cholesky_case(std::string label, Shape shape, std::uint64_t seed) {
  return {std::move(label),
          [](Graph&, V in) { return ops::cholesky(ops::mul(ops::add(in[0], ops::swap_last_axes(in[0])), 0.5f)); },
          {positive_definite(std::move(shape), false, seed)}, ref_cholesky};
}

const RegisterOpCases linalg_cases({
    {"matrix_inverse",
     OpCase{{linalg_case("3x3", ops::matrix_inverse, well_conditioned({3, 3}, false, 3901), ref_inverse),
             linalg_case("rows exchanged, batch (2, 2)", ops::matrix_inverse,
                         well_conditioned({2, 2, 4, 4}, true, 3902), ref_inverse)},
            {},
            ""}},
    // Determinants of a few units (a boost of 1.5): float32's finite differences stay sharp.
    {"matrix_determinant",
     OpCase{{linalg_case("3x3", ops::matrix_determinant, well_conditioned({3, 3}, false, 3903, 1.5f), ref_determinant),
             linalg_case("rows exchanged, batch 3", ops::matrix_determinant,
                         well_conditioned({3, 4, 4}, true, 3904, 1.5f), ref_determinant),
             linalg_case("random 2x2", ops::matrix_determinant, uniform({2, 2, 2}, -1, 1, 3905), ref_determinant)},
            {},
            ""}},
    {"cholesky",
     OpCase{{symmetric_cholesky_case("symmetric input, 3x3", {3, 3}, 3907),
             symmetric_cholesky_case("symmetric input, batch 2 of 5x5", {2, 5, 5}, 3908)},
            [] {
              // The upper triangle unread (a gradient check would see it unused there, where the
              // symmetrized gradient is not 0): forward values only.
              const Tensor a = positive_definite({2, 4, 4}, true, 3906);
              EXPECT_TRUE(tensors_near(evaluate(unary([](Output v) { return ops::cholesky(v); }), {a}),
                                       ref_cholesky({a}), 1e-5f));
              // Not positive definite: NaN throughout, as tf.linalg.cholesky.
              const Tensor x = Tensor::from_vector(Shape{2, 2}, std::vector<float>{1.f, 2.f, 2.f, 1.f});
              const Tensor l = evaluate(unary([](Output v) { return ops::cholesky(v); }), {x});
              for (std::int64_t i = 0; i < l.size(); ++i) EXPECT_TRUE(std::isnan(l.data<float>()[i])) << i;
            },
            ""}},
});

}  // namespace
}  // namespace strata::testing::linalg_op_cases
