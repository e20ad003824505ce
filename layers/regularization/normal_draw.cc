#include "layers/regularization/normal_draw.h"

#include <cmath>
#include <initializer_list>
#include <iterator>

#include "core/ops.h"
#include "core/rng.h"

namespace strata::layers {

namespace {

// Σ c[i]·r^i (c from the constant term up) by Horner's rule.
Output polynomial(Output r, std::initializer_list<float> c) {
  auto it = std::rbegin(c);
  Output p = ops::add(ops::mul(r, *it), *(it + 1));
  for (it += 2; it != std::rend(c); ++it) p = ops::add(ops::mul(p, r), *it);
  return p;
}

// Φ⁻¹(m) for m in (0, 1/2] by Wichura's algorithm AS 241 (PPND7), the form made for single
// precision: within 1.3e-6 of the true quantile over the grid drawn here in float32.
// (Acklam's rational form loses 3e-4 to cancellation in float32 near its breakpoint.)
Output lower_half_quantile(Output m) {
  const Output q = ops::sub(m, 0.5f);
  const Output r_central = ops::sub(0.180625f, ops::square(q));
  const Output central = ops::div(ops::mul(q, polynomial(r_central, {3.3871327179f, 50.434271938f, 159.29113202f,
                                                                      59.109374720f})),
                                  polynomial(r_central, {1.f, 17.895169469f, 78.757757664f, 67.187563600f}));
  // Below 0.075 (|q| > 0.425): r = sqrt(-log m) - 1.6, at most 2.8 here (m ≥ 2^-25), so
  // AS 241's third branch (r > 5, m < 1.4e-11) is never needed.
  const Output r_tail = ops::sub(ops::sqrt(ops::neg(ops::log(m))), 1.6f);
  const Output tail = ops::neg(ops::div(polynomial(r_tail, {1.4234372777f, 2.7568153900f, 1.3067284816f,
                                                            0.17023821103f}),
                                        polynomial(r_tail, {1.f, 0.73700164250f, 0.12021132975f})));
  return ops::select(ops::less_equal(ops::abs(q), ops::fill_like(q, 0.425f)), central, tail);
}

constexpr int kBits = 24;  // a float32 uniform's resolution

}  // namespace

Output standard_normal_like(Output x, std::uint64_t seed, std::uint64_t stream) {
  // A dropout of rate 0.5 keeps an element (and doubles it) exactly half the time: of
  // fill_like(x, w / 2) it gives w or 0, one fair bit per element and stream.
  auto bit = [&](int k, float weight) {
    return ops::dropout(ops::fill_like(x, weight / 2), 0.5f, seed, mix_seed(stream, static_cast<std::uint64_t>(k)));
  };
  // The first bit is the sign; the other 23 place m = Φ(-|z|) on the midpoints of a grid
  // of 2^24 in (0, 1/2): m = Σ b_k 2^-(k+1) + 2^-25, exact in float32 and never 0.
  Output m = ops::fill_like(x, std::ldexp(1.f, -kBits - 1));
  for (int k = 1; k < kBits; ++k) m = ops::add(m, bit(k, std::ldexp(1.f, -k - 1)));
  const Output sign = ops::sub(bit(0, 2.f), 1.f);  // ±1
  return ops::mul(sign, lower_half_quantile(m));
}

}  // namespace strata::layers
