// Op cases for qr, svd, singular_values, self_adjoint_eig, eig and lu
// (core/ops/matrix_decompositions.h).
// qr's values against Householder QR written out here in double with Eigen's (and LAPACK's)
// convention: each reflection makes the pivot −sign(x₀)·‖x‖, none where the column below it
// is already 0. The SVD's and eigh's against their definitions (a = u diag(s) v^T with
// orthonormal columns and descending s; a v = v diag(e) with ascending e, from a's lower
// triangle): their vectors' signs are Eigen's, checked against TensorFlow's in
// tests/io/keras_ops_test.cc, as eig's (checked here against a v = λ v, |v| = 1). lu's
// against its definition (a's rows in p's order are L U, |L| <= 1 below its unit diagonal:
// partial pivoting) and a 2×2 worked by hand. Gradients by finite differences, one result at
// a time; the cases TensorFlow has no gradient for, and eig's, throw.
#include <algorithm>
#include <cmath>
#include <complex>
#include <utility>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/ops/linalg_ops.h"
#include "core/ops/matrix_decompositions.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::decomposition_op_cases {
namespace {

using V = const std::vector<Output>&;
using Rows = std::vector<std::vector<double>>;

// The matrices of x (..., m, n), each as rows of doubles.
std::vector<Rows> matrices_of(const Tensor& x) {
  const std::int64_t m = x.shape()[x.shape().rank() - 2], n = x.shape()[x.shape().rank() - 1];
  std::vector<Rows> out;
  for (std::int64_t k = 0; k < x.size() / (m * n); ++k) {
    Rows a(static_cast<std::size_t>(m), std::vector<double>(static_cast<std::size_t>(n)));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) a[i][j] = x.data<float>()[(k * m + i) * n + j];
    out.push_back(std::move(a));
  }
  return out;
}

// Householder QR in double, as Eigen's HouseholderQR: {q (m×m), r (m×n)}.
std::pair<Rows, Rows> householder(Rows r) {
  const std::size_t m = r.size(), n = r[0].size();
  Rows q(m, std::vector<double>(m, 0.0));
  for (std::size_t i = 0; i < m; ++i) q[i][i] = 1.0;
  for (std::size_t k = 0; k < std::min(m, n); ++k) {
    double tail = 0.0;
    for (std::size_t i = k + 1; i < m; ++i) tail += r[i][k] * r[i][k];
    if (tail == 0.0) continue;  // nothing below the pivot: no reflection (Eigen's tau = 0)
    const double x0 = r[k][k], norm = std::sqrt(x0 * x0 + tail), beta = x0 >= 0 ? -norm : norm;
    std::vector<double> v(m, 0.0);  // the reflection I − 2 v v^T / v^T v, v = x − beta e_k
    v[k] = x0 - beta;
    for (std::size_t i = k + 1; i < m; ++i) v[i] = r[i][k];
    double vv = 0.0;
    for (double e : v) vv += e * e;
    for (std::size_t j = 0; j < n; ++j) {
      double d = 0.0;
      for (std::size_t i = k; i < m; ++i) d += v[i] * r[i][j];
      for (std::size_t i = k; i < m; ++i) r[i][j] -= 2.0 * v[i] * d / vv;
    }
    for (std::size_t i = 0; i < m; ++i) {  // q = q · H
      double d = 0.0;
      for (std::size_t j = k; j < m; ++j) d += q[i][j] * v[j];
      for (std::size_t j = k; j < m; ++j) q[i][j] -= 2.0 * d * v[j] / vv;
    }
    for (std::size_t i = k + 1; i < m; ++i) r[i][k] = 0.0;
  }
  return {q, r};
}

// qr's result `which` (0: q, 1: r) of the reference, reduced or complete.
Reference ref_qr(int which, bool full) {
  return [which, full](const std::vector<Tensor>& in) {
    const Shape& s = in[0].shape();
    const std::int64_t m = s[s.rank() - 2], n = s[s.rank() - 1], k = full ? m : std::min(m, n);
    std::vector<std::int64_t> dims(s.dims().begin(), s.dims().end() - 2);
    dims.push_back(which == 0 ? m : k);
    dims.push_back(which == 0 ? k : n);
    Tensor out{Shape(dims)};
    std::size_t at = 0;
    for (const Rows& a : matrices_of(in[0])) {
      const auto [q, r] = householder(a);
      const Rows& y = which == 0 ? q : r;
      for (std::int64_t i = 0; i < dims[dims.size() - 2]; ++i)
        for (std::int64_t j = 0; j < dims.back(); ++j) out.data<float>()[at++] = static_cast<float>(y[i][j]);
    }
    return out;
  };
}

GradCase qr_case(std::string label, Shape shape, bool full, int which, std::uint64_t seed) {
  return {std::move(label), [full, which](Graph&, V in) { return ops::qr(in[0], full)[which]; },
          {uniform(std::move(shape), -1, 1, seed)}, ref_qr(which, full)};
}

GradCase svd_case(std::string label, Shape shape, bool full, int which, std::uint64_t seed) {
  return {std::move(label), [full, which](Graph&, V in) { return ops::svd(in[0], full)[which]; },
          {uniform(std::move(shape), -1, 1, seed)}, nullptr};
}

// Symmetric matrices (m + m^T) / 2 with their upper triangle then set to `above`.
Tensor symmetric(Shape shape, std::uint64_t seed, float above) {
  const Tensor m = uniform(shape, -1, 1, seed);
  Tensor x{shape};
  const std::int64_t n = shape[shape.rank() - 1];
  for (std::int64_t k = 0; k < x.size() / (n * n); ++k)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const float* a = m.data<float>() + k * n * n;
        x.data<float>()[(k * n + i) * n + j] = j > i ? above : (a[i * n + j] + a[j * n + i]) / 2;
      }
  return x;
}

GradCase eigh_case(std::string label, Shape shape, int which, std::uint64_t seed) {
  return {std::move(label), [which](Graph&, V in) { return ops::self_adjoint_eig(in[0])[which]; },
          {symmetric(std::move(shape), seed, 0.f)}, nullptr};
}

std::vector<Tensor> run_all(const std::vector<Output>& outs, Graph& g, Output x, const Tensor& value) {
  Program p(g, {x}, outs);
  return p.run({value});
}

double entry(const Tensor& t, std::int64_t k, std::int64_t i, std::int64_t j) {
  const Shape& s = t.shape();
  const std::int64_t rows = s[s.rank() - 2], cols = s[s.rank() - 1];
  return t.data<float>()[(k * rows + i) * cols + j];
}

// a = u diag(s) v^T (only the first min(m, n) columns of u and v count), u and v with
// orthonormal columns, s descending and not negative.
void expect_svd(const Tensor& a, bool full) {
  Graph g;
  const Output x = g.placeholder({a.shape()}, "a");
  const std::vector<Tensor> r = run_all(ops::svd(x, full), g, x, a);
  const Tensor& s = r[0];
  const std::int64_t m = a.shape()[a.shape().rank() - 2], n = a.shape()[a.shape().rank() - 1], k = std::min(m, n);
  const std::int64_t uc = full ? m : k, vc = full ? n : k;
  ASSERT_EQ(r[1].shape()[r[1].shape().rank() - 1], uc);
  ASSERT_EQ(r[2].shape()[r[2].shape().rank() - 1], vc);
  for (std::int64_t b = 0; b < a.size() / (m * n); ++b) {
    for (std::int64_t t = 0; t < k; ++t) {
      EXPECT_GE(s.data<float>()[b * k + t], 0.f);
      if (t > 0) EXPECT_GE(s.data<float>()[b * k + t - 1], s.data<float>()[b * k + t]);
    }
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double y = 0.0;
        for (std::int64_t t = 0; t < k; ++t)
          y += entry(r[1], b, i, t) * s.data<float>()[b * k + t] * entry(r[2], b, j, t);
        EXPECT_NEAR(y, entry(a, b, i, j), 1e-5) << "matrix " << b << " (" << i << ", " << j << ")";
      }
    for (int which : {1, 2}) {
      const std::int64_t rows = which == 1 ? m : n, cols = which == 1 ? uc : vc;
      for (std::int64_t p = 0; p < cols; ++p)
        for (std::int64_t q = 0; q < cols; ++q) {
          double d = 0.0;
          for (std::int64_t i = 0; i < rows; ++i) d += entry(r[which], b, i, p) * entry(r[which], b, i, q);
          EXPECT_NEAR(d, p == q ? 1.0 : 0.0, 1e-5) << (which == 1 ? "u" : "v") << " columns " << p << ", " << q;
        }
    }
  }
  Graph values;
  const Output y = values.placeholder({a.shape()}, "a");
  EXPECT_TRUE(tensors_near(run_all({ops::singular_values(y)}, values, y, a)[0], s, 1e-6f)) << "singular_values";
}

// a v = v diag(e) for a's lower triangle mirrored, v orthonormal, e ascending.
void expect_eigh(const Tensor& a) {
  Graph g;
  const Output x = g.placeholder({a.shape()}, "a");
  const std::vector<Tensor> r = run_all(ops::self_adjoint_eig(x), g, x, a);
  const std::int64_t n = a.shape()[a.shape().rank() - 1];
  for (std::int64_t b = 0; b < a.size() / (n * n); ++b) {
    for (std::int64_t t = 1; t < n; ++t) EXPECT_LE(r[0].data<float>()[b * n + t - 1], r[0].data<float>()[b * n + t]);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t t = 0; t < n; ++t) {
        double av = 0.0, dot = 0.0;
        for (std::int64_t j = 0; j < n; ++j) {
          av += (j <= i ? entry(a, b, i, j) : entry(a, b, j, i)) * entry(r[1], b, j, t);
          dot += entry(r[1], b, j, i) * entry(r[1], b, j, t);
        }
        EXPECT_NEAR(av, entry(r[1], b, i, t) * r[0].data<float>()[b * n + t], 1e-5) << "a v, " << i << ", " << t;
        EXPECT_NEAR(dot, i == t ? 1.0 : 0.0, 1e-5) << "v^T v, " << i << ", " << t;
      }
  }
}

// a[p[i]] = (L U)[i] for each matrix, L unit lower triangular with entries of at most 1 in
// magnitude (the pivot is its column's largest), p a permutation.
void expect_lu(const Tensor& a) {
  Graph g;
  const Output x = g.placeholder({a.shape()}, "a");
  const std::vector<Tensor> r = run_all(ops::lu(x), g, x, a);
  const std::int64_t n = a.shape()[a.shape().rank() - 1];
  ASSERT_EQ(r[1].dtype(), DType::int32);
  for (std::int64_t b = 0; b < a.size() / (n * n); ++b) {
    const std::int32_t* p = r[1].data<std::int32_t>() + b * n;
    std::vector<std::int32_t> sorted(p, p + n);
    std::sort(sorted.begin(), sorted.end());
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i) << "p of matrix " << b << " is not a permutation";
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        if (j < i) EXPECT_LE(std::fabs(entry(r[0], b, i, j)), 1.0 + 1e-6) << "L (" << i << ", " << j << ")";
        double lu = 0.0;
        for (std::int64_t k = 0; k <= std::min(i, j); ++k)
          lu += (k == i ? 1.0 : entry(r[0], b, i, k)) * entry(r[0], b, k, j);
        EXPECT_NEAR(lu, entry(a, b, p[i], j), 1e-5) << "matrix " << b << " (" << i << ", " << j << ")";
      }
  }
}

// a v = λ v in complex arithmetic for each eigenpair (the (real, imag) pairs eig gives), and
// |v| = 1.
void expect_eig(const Tensor& a) {
  Graph g;
  const Output x = g.placeholder({a.shape()}, "a");
  const std::vector<Tensor> r = run_all(ops::eig(x), g, x, a);
  const std::int64_t n = a.shape()[a.shape().rank() - 1];
  const float* e = r[0].data<float>();
  const float* v = r[1].data<float>();
  for (std::int64_t b = 0; b < a.size() / (n * n); ++b)
    for (std::int64_t k = 0; k < n; ++k) {
      const std::complex<double> lambda(e[(b * n + k) * 2], e[(b * n + k) * 2 + 1]);
      const auto vec = [&](std::int64_t i) {
        const float* p = v + ((b * n + i) * n + k) * 2;
        return std::complex<double>(p[0], p[1]);
      };
      double norm = 0.0;
      for (std::int64_t i = 0; i < n; ++i) {
        std::complex<double> av = 0.0;
        for (std::int64_t j = 0; j < n; ++j) av += entry(a, b, i, j) * vec(j);
        EXPECT_NEAR(std::abs(av - lambda * vec(i)), 0.0, 1e-5) << "matrix " << b << ", pair " << k << ", row " << i;
        norm += std::norm(vec(i));
      }
      EXPECT_NEAR(norm, 1.0, 1e-5) << "matrix " << b << ", vector " << k;
    }
}

// Differentiating y (a function of a's decomposition) throws naming TensorFlow's limit.
void expect_no_gradient(Output (*y)(Output), Shape shape, const std::string& says) {
  Graph g;
  const Output x = g.placeholder({shape}, "a");
  const std::string message = message_of([&] { gradients(ops::reduce_sum(y(x)), {x}); });
  EXPECT_NE(message.find(says), std::string::npos) << message;
}

const RegisterOpCases decomposition_cases({
    {"qr",
     OpCase{{qr_case("q of deep (4, 3)", {4, 3}, false, 0, 4101), qr_case("r of deep (4, 3)", {4, 3}, false, 1, 4102),
             qr_case("q of wide (3, 5), batch 2", {2, 3, 5}, false, 0, 4103),
             qr_case("r of wide (3, 5), batch 2", {2, 3, 5}, false, 1, 4104),
             qr_case("complete q of square (3, 3)", {3, 3}, true, 0, 4105),
             qr_case("complete r of wide (2, 4)", {2, 4}, true, 1, 4106)},
            [] {
              // complete q of a deep matrix: its last columns complete the basis (values only:
              // TensorFlow has no gradient there), and r's rows below n are 0.
              const Tensor a = uniform({2, 5, 3}, -1, 1, 4107);
              for (int which : {0, 1})
                EXPECT_TRUE(tensors_near(evaluate(unary([which](Output v) { return ops::qr(v, true)[which]; }), {a}),
                                         ref_qr(which, true)({a}), 1e-5f));
              expect_no_gradient([](Output v) { return ops::qr(v, true)[0]; }, {4, 3}, "more rows than columns");
              // A column already reduced below its pivot is left as it is (no reflection).
              const Tensor t = tensor<float>({3, 3}, {2, 1, 0, 0, -3, 1, 0, 0, -1});
              EXPECT_TRUE(tensors_near(evaluate(unary([](Output v) { return ops::qr(v, false)[1]; }), {t}), t));
            },
            ""}},
    {"svd",
     OpCase{{svd_case("s of square (3, 3)", {3, 3}, false, 0, 4201),
             svd_case("u of square (3, 3), batch 2", {2, 3, 3}, false, 1, 4202),
             svd_case("v of square (3, 3)", {3, 3}, false, 2, 4203),
             svd_case("thin u of deep (4, 3)", {4, 3}, false, 1, 4204),
             svd_case("thin v of wide (3, 5)", {3, 5}, false, 2, 4205),
             svd_case("full u of deep (4, 3)", {4, 3}, true, 1, 4206),
             svd_case("full v of wide (2, 3)", {2, 3}, true, 2, 4207)},
            [] {
              expect_svd(uniform({2, 4, 3}, -1, 1, 4208), true);
              expect_svd(uniform({3, 5}, -1, 1, 4209), false);
              expect_svd(uniform({2, 3, 6}, -1, 1, 4210), true);
              expect_no_gradient([](Output v) { return ops::svd(v, true)[1]; }, {5, 3}, "differ by more than one");
            },
            ""}},
    {"singular_values",
     OpCase{{{"wide (3, 4), batch 2", unary([](Output v) { return ops::singular_values(v); }),
              {uniform({2, 3, 4}, -1, 1, 4301)}, nullptr}},
            nullptr,
            ""}},
    {"self_adjoint_eig",
     OpCase{{eigh_case("e of (4, 4)", {4, 4}, 0, 4401), eigh_case("v of (3, 3), batch 2", {2, 3, 3}, 1, 4402)},
            [] {
              expect_eigh(symmetric({2, 4, 4}, 4403, 0.f));
              // The upper triangle is not read.
              const Tensor a = symmetric({3, 3}, 4404, 0.f), garbage = symmetric({3, 3}, 4404, 9.f);
              for (int which : {0, 1}) {
                const GraphBuilder f = unary([which](Output v) { return ops::self_adjoint_eig(v)[which]; });
                EXPECT_TRUE(tensors_near(evaluate(f, {garbage}), evaluate(f, {a}), 0.f));
              }
            },
            ""}},
    {"eig",
     OpCase{{},
            [] {
              expect_eig(uniform({2, 4, 4}, -1, 1, 4601));
              expect_eig(symmetric({3, 3}, 4602, 0.f));
              // A quarter turn: eigenvalues ±i, complex pairs with no real part.
              Graph g;
              const Output x = g.placeholder({Shape{2, 2}}, "a");
              const std::vector<Tensor> r = run_all(ops::eig(x), g, x, tensor<float>({2, 2}, {0, -1, 1, 0}));
              const std::vector<float> e = r[0].to_vector<float>();
              EXPECT_NEAR(std::fabs(e[0]) + std::fabs(e[2]), 0.f, 1e-6f);
              EXPECT_NEAR(e[1] * e[3], -1.f, 1e-6f);
              Graph again;
              const Output y = again.placeholder({Shape{2, 2}}, "a");
              const std::string said =
                  message_of([&] { run_all(ops::eig(y), again, y, tensor<float>({2, 2}, {1, std::nanf(""), 3, 4})); });
              EXPECT_NE(said.find("eig"), std::string::npos) << said;
              EXPECT_NE(said.find("not successful"), std::string::npos) << said;
              expect_no_gradient([](Output v) { return ops::eig(v)[0]; }, {3, 3}, "no gradient in Strata");
            },
            "Strata has no gradient for eig (TensorFlow's EigGrad is complex arithmetic): differentiating throws"}},
    {"lu",
     OpCase{{},
            [] {
              expect_lu(uniform({2, 4, 4}, -1, 1, 4501));
              expect_lu(uniform({5, 5}, -1, 1, 4502));
              // [[1, 2], [3, 4]]: row 1 pivots (3 > 1), l = 1/3, u = [[3, 4], [0, 2 − 4/3]].
              Graph g;
              const Output x = g.placeholder({Shape{2, 2}}, "a");
              const Tensor a = tensor<float>({2, 2}, {1, 2, 3, 4});
              const std::vector<Tensor> r = run_all(ops::lu(x), g, x, a);
              EXPECT_TRUE(tensors_near(r[0], tensor<float>({2, 2}, {3, 4, 1.f / 3, 2.f - 4.f / 3}), 1e-6f));
              EXPECT_EQ(r[1].data<std::int32_t>()[0], 1);
              EXPECT_EQ(r[1].data<std::int32_t>()[1], 0);
              // A singular matrix (a pivot of 0) is refused, as TensorFlow's Lu refuses it.
              const Tensor singular = tensor<float>({2, 2}, {1, 2, 2, 4});
              Graph again;
              const Output y = again.placeholder({Shape{2, 2}}, "a");
              const std::string said = message_of([&] { run_all(ops::lu(y), again, y, singular); });
              EXPECT_NE(said.find("not invertible"), std::string::npos) << said;
              expect_no_gradient([](Output v) { return ops::lu(v)[0]; }, {3, 3}, "no gradient");
            },
            "TensorFlow registers no gradient for Lu: differentiating throws"}},
});

}  // namespace
}  // namespace strata::testing::decomposition_op_cases
