#include "core/ops/arctan2.h"

#include <numbers>

#include "core/ops.h"

namespace strata::ops {

Output arctan2(Output y, Output x) {
  constexpr float pi = std::numbers::pi_v<float>;
  const Output zero = zeros_like(x);
  const Output origin = mul(equal(x, zero), equal(y, zeros_like(y)));
  const Output base = atan(div(y, where(origin, ones_like(x), x)));
  const Output turn = mul(less(x, zero), sub(mul(greater_equal(y, zeros_like(y)), 2 * pi), pi));
  const Output angle = add(base, turn);
  return where(origin, zeros_like(angle), angle);
}

}  // namespace strata::ops
