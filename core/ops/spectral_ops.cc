#include "core/ops/spectral_ops.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

using Dims = std::vector<std::int64_t>;

void expect_even(const std::string& op, std::int64_t n) {
  if (n == kUnknownDim) throw ShapeError(op + ": the transform's length must be known");
  if (n < 2 || n % 2 != 0) {
    throw NotImplementedError(op + ": a transform of odd length " + std::to_string(n) + " is not supported (even n)");
  }
}

// The spectrum's inner bins (0 < k < n/2, axis -2) times `scale`, the first and last as
// they are: the weights that make rfft and irfft each other's adjoints.
Output scale_inner_bins(Output spectrum, float scale) {
  const Shape& s = spectrum.shape();
  const int rank = s.rank();
  const std::int64_t bins = s[rank - 2];
  std::vector<std::int64_t> none(static_cast<std::size_t>(rank), 0), first = none, last = none, inner = none;
  first[static_cast<std::size_t>(rank - 2)] = bins - 1;  // crop after: keeps bin 0
  last[static_cast<std::size_t>(rank - 2)] = bins - 1;   // crop before: keeps bin n/2
  inner[static_cast<std::size_t>(rank - 2)] = 1;
  if (bins <= 2) return spectrum;
  return concat({crop(spectrum, none, first), mul(crop(spectrum, inner, inner), scale), crop(spectrum, last, none)},
                rank - 2);
}

}  // namespace

void register_spectral_ops(OpRegistry& r) {
  r.add({.name = "rfft",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() < 1) throw ShapeError("rfft: a signal of rank 0");
           expect_even("rfft", x[x.rank() - 1]);
           Dims d = x.dims();
           d.back() = d.back() / 2 + 1;
           d.push_back(2);
           return std::vector<TensorSpec>{{Shape(d), DType::float32}};
         },
         // The adjoint of rfft: irfft with the inner bins halved.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const Shape& x = n.inputs[0].shape();
           return std::vector<Output>{irfft(scale_inner_bins(g[0], 0.5f), x[x.rank() - 1])};
         }});
  r.add({.name = "irfft",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& s = ctx.inputs[0].shape;
           const std::int64_t n = ctx.attrs.get<std::int64_t>("n");
           expect_even("irfft", n);
           const bool bins_ok = s.rank() >= 2 && (s[s.rank() - 2] == kUnknownDim || s[s.rank() - 2] == n / 2 + 1);
           if (!bins_ok || s[s.rank() - 1] != 2) {
             throw ShapeError("irfft: a spectrum of length " + std::to_string(n) + " is (..., " +
                              std::to_string(n / 2 + 1) + ", 2), got " + s.to_string());
           }
           Dims d(s.dims().begin(), s.dims().end() - 2);
           d.push_back(n);
           return std::vector<TensorSpec>{{Shape(d), DType::float32}};
         },
         // The adjoint of irfft: rfft with the inner bins doubled.
         .gradient = [](const Node&, const std::vector<Output>& g) {
           return std::vector<Output>{scale_inner_bins(rfft(g[0]), 2.0f)};
         }});
}

Output rfft(Output x) { return x.graph->add("rfft", {x}); }
Output irfft(Output spectrum, std::int64_t n) { return spectrum.graph->add("irfft", {spectrum}, Attrs{{"n", n}}); }

}  // namespace strata::ops
