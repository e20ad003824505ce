// Op cases for dense (core/ops/matmul.cc): act(x · kernel + bias) in one op, which the
// Dense layer builds. Gradient checks with and without bias, linear and relu, 2-D and
// N-D input; forward values against matmul + bias + relu written out here.
#include "core/ops.h"
#include "op_cases.h"

namespace strata::testing::dense_op_cases {
namespace {

using V = const std::vector<Output>&;

Tensor ref_dense(const std::vector<Tensor>& in, bool relu) {
  Tensor y = ref_matmul(in[0], in[1], false, false);
  const std::int64_t units = in[1].shape()[1];
  float* v = y.data<float>();
  for (std::int64_t i = 0; i < y.size(); ++i) {
    if (in.size() == 3) v[i] += in[2].data<float>()[i % units];
    if (relu) v[i] = v[i] > 0.f ? v[i] : 0.f;
  }
  return y;
}

// x in [0.2, 1] and kernel columns all >= 0.5 or all <= -0.5: every pre-activation is at
// least 0.3 from relu's kink (the bias is 0.05 at most), so finite differences are exact.
Tensor kink_free_kernel(std::int64_t in, std::int64_t units, std::uint64_t seed) {
  Tensor k = uniform({in, units}, 0.5f, 1.f, seed);
  for (std::int64_t i = 0; i < in; ++i) {
    for (std::int64_t j = 0; j < units; j += 2) k.data<float>()[i * units + j] *= -1.f;
  }
  return k;
}

const RegisterOpCases dense_cases({
    {"dense",
     OpCase{{{"(3, 4) x (4, 5) + bias",
              [](Graph&, V in) { return ops::dense(in[0], in[1], in[2]); },
              {uniform({3, 4}, -1, 1, 1001), uniform({4, 5}, -1, 1, 1002), uniform({5}, -1, 1, 1003)},
              [](const std::vector<Tensor>& in) { return ref_dense(in, false); }},
             {"(2, 3, 4) x (4, 5), no bias",
              [](Graph&, V in) { return ops::dense(in[0], in[1]); },
              {uniform({2, 3, 4}, -1, 1, 1004), uniform({4, 5}, -1, 1, 1005)},
              [](const std::vector<Tensor>& in) { return ref_dense(in, false); }},
             {"(3, 4) x (4, 6) + bias, relu",
              [](Graph&, V in) { return ops::dense(in[0], in[1], in[2], "relu"); },
              {uniform({3, 4}, 0.2f, 1.f, 1006), kink_free_kernel(4, 6, 1007), uniform({6}, 0.f, 0.05f, 1008)},
              [](const std::vector<Tensor>& in) { return ref_dense(in, true); }},
             {"(2, 2, 3) x (3, 4), relu, no bias",
              [](Graph&, V in) { return ops::dense(in[0], in[1], Output{}, "relu"); },
              {uniform({2, 2, 3}, 0.2f, 1.f, 1009), kink_free_kernel(3, 4, 1010)},
              [](const std::vector<Tensor>& in) { return ref_dense(in, true); }},
             // One row: the matrix-vector kernel with the bias and relu on its registers.
             {"(1, 4) x (4, 6) + bias, relu",
              [](Graph&, V in) { return ops::dense(in[0], in[1], in[2], "relu"); },
              {uniform({1, 4}, 0.2f, 1.f, 1011), kink_free_kernel(4, 6, 1012), uniform({6}, 0.f, 0.05f, 1013)},
              [](const std::vector<Tensor>& in) { return ref_dense(in, true); }},
             {"(1, 20) x (20, 33) + bias",
              [](Graph&, V in) { return ops::dense(in[0], in[1], in[2]); },
              {uniform({1, 20}, -1, 1, 1014), uniform({20, 33}, -1, 1, 1015), uniform({33}, -1, 1, 1016)},
              [](const std::vector<Tensor>& in) { return ref_dense(in, false); }}},
            [] {
              auto build = [](Graph&, V in) { return ops::dense(in[0], in[1], in[2]); };
              // Wrong inner size, wrong bias size, unknown activation: refused at definition.
              EXPECT_THROW(evaluate(build, {uniform({2, 3}, -1, 1, 1), uniform({4, 5}, -1, 1, 2), uniform({5}, -1, 1, 3)}),
                           ShapeError);
              EXPECT_THROW(evaluate(build, {uniform({2, 4}, -1, 1, 1), uniform({4, 5}, -1, 1, 2), uniform({4}, -1, 1, 3)}),
                           ShapeError);
              auto tanh_dense = [](Graph&, V in) { return ops::dense(in[0], in[1], Output{}, "tanh"); };
              EXPECT_THROW(evaluate(tanh_dense, {uniform({2, 4}, -1, 1, 1), uniform({4, 5}, -1, 1, 2)}), ValueError);
            }}},
});

}  // namespace
}  // namespace strata::testing::dense_op_cases
