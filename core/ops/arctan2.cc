#include "core/ops/arctan2.h"

#include <numbers>

#include "core/ops.h"

namespace strata::ops {

Output arctan2(Output y, Output x) {
  constexpr float pi = std::numbers::pi_v<float>;
  const Output zero_x = zeros_like(x), zero_y = zeros_like(y);
  const Output origin = mul(equal(x, zero_x), equal(y, zero_y));
  // Where |x| >= |y|: atan(y / x), moved by ±π for x < 0; elsewhere (x = 0 among them):
  // sign(y)·π/2 − atan(x / y). Each branch divides by the larger of the two, so its value
  // and gradient stay finite everywhere but the origin.
  const Output by_x = greater_equal(abs(x), abs(y));
  const Output safe_x = where(equal(x, zero_x), ones_like(x), x), safe_y = where(equal(y, zero_y), ones_like(y), y);
  const Output turn = mul(less(x, zero_x), sub(mul(greater_equal(y, zero_y), 2 * pi), pi));
  const Output near_x = add(atan(div(y, safe_x)), turn);
  const Output near_y = sub(mul(sign(y), pi / 2), atan(div(x, safe_y)));
  const Output angle = where(by_x, near_x, near_y);
  return where(origin, zeros_like(angle), angle);
}

}  // namespace strata::ops
