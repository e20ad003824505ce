// Op cases for the ops attention builds on: batch_matmul (one product per leading index,
// each transpose combination, rank 3 and 4, a batch large enough to be shared out over
// threads), expand_dims, split_axis, merge_axes and causal_mask; forward values against
// products, reshapes and masks written out here.
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_matmul.h"
#include "core/ops/causal_mask.h"
#include "op_cases.h"

namespace strata::testing::attention_op_cases {
namespace {

using V = const std::vector<Output>&;

// The product of each leading index, with ref_matmul on the slices.
Tensor ref_batch_matmul(const std::vector<Tensor>& in, bool ta, bool tb) {
  const Shape& sa = in[0].shape();
  const Shape& sb = in[1].shape();
  const int r = sa.rank();
  const std::int64_t batch = sa.product(0, r - 2);
  const std::int64_t a_size = sa[r - 2] * sa[r - 1], b_size = sb[r - 2] * sb[r - 1];
  std::vector<float> out;
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < batch; ++i) {
    std::vector<float> av(in[0].data<float>() + i * a_size, in[0].data<float>() + (i + 1) * a_size);
    std::vector<float> bv(in[1].data<float>() + i * b_size, in[1].data<float>() + (i + 1) * b_size);
    Tensor p = ref_matmul(Tensor::from_vector<float>(Shape{sa[r - 2], sa[r - 1]}, av),
                          Tensor::from_vector<float>(Shape{sb[r - 2], sb[r - 1]}, bv), ta, tb);
    out.insert(out.end(), p.data<float>(), p.data<float>() + p.size());
    dims = p.shape().dims();
  }
  std::vector<std::int64_t> shape(sa.dims().begin(), sa.dims().end() - 2);
  shape.insert(shape.end(), dims.begin(), dims.end());
  return Tensor::from_vector<float>(Shape(shape), out);
}

GradCase product(std::string label, Shape a, Shape b, bool ta, bool tb, std::uint64_t seed) {
  return {std::move(label),
          [ta, tb](Graph&, V in) { return ops::batch_matmul(in[0], in[1], ta, tb); },
          {uniform(std::move(a), -1, 1, seed), uniform(std::move(b), -1, 1, seed + 1)},
          [ta, tb](const std::vector<Tensor>& in) { return ref_batch_matmul(in, ta, tb); }};
}

const RegisterOpCases attention_cases({
    {"batch_matmul",
     OpCase{{product("(2, 3, 4) x (2, 4, 5)", {2, 3, 4}, {2, 4, 5}, false, false, 2001),
             product("(2, 3, 4) x (2, 5, 4)ᵀ", {2, 3, 4}, {2, 5, 4}, false, true, 2003),
             product("(2, 4, 3)ᵀ x (2, 4, 5)", {2, 4, 3}, {2, 4, 5}, true, false, 2005),
             product("(2, 4, 3)ᵀ x (2, 5, 4)ᵀ", {2, 4, 3}, {2, 5, 4}, true, true, 2007),
             product("(2, 2, 3, 4) x (2, 2, 4, 2)", {2, 2, 3, 4}, {2, 2, 4, 2}, false, false, 2009)},
            [] {
              // 64 products of 8x8x8, shared out over the threads: each equals its own slice.
              std::vector<Tensor> in{uniform({64, 8, 8}, -1, 1, 2011), uniform({64, 8, 8}, -1, 1, 2012)};
              EXPECT_TRUE(tensors_near(evaluate(binary([](Output a, Output b) { return ops::batch_matmul(a, b); }), in),
                                       ref_batch_matmul(in, false, false)));
              auto build = binary([](Output a, Output b) { return ops::batch_matmul(a, b); });
              // Inner sizes, leading dims and ranks that differ: refused at definition.
              EXPECT_THROW(evaluate(build, {uniform({2, 3, 4}, -1, 1, 1), uniform({2, 5, 6}, -1, 1, 2)}), ShapeError);
              EXPECT_THROW(evaluate(build, {uniform({2, 3, 4}, -1, 1, 1), uniform({3, 4, 6}, -1, 1, 2)}), ShapeError);
              EXPECT_THROW(evaluate(build, {uniform({2, 3, 4}, -1, 1, 1), uniform({4, 6}, -1, 1, 2)}), ShapeError);
            }}},
    {"expand_dims",
     OpCase{{{"(2, 3) at -2", [](Graph&, V in) { return ops::expand_dims(in[0], -2); },
              {uniform({2, 3}, -1, 1, 2021)},
              [](const std::vector<Tensor>& in) {
                std::vector<float> v(in[0].data<float>(), in[0].data<float>() + in[0].size());
                return Tensor::from_vector<float>(Shape{2, 1, 3}, v);
              }}},
            [] {
              EXPECT_EQ(evaluate(unary([](Output x) { return ops::expand_dims(x, 0); }), {uniform({2, 3}, -1, 1, 1)})
                            .shape(),
                        (Shape{1, 2, 3}));
              EXPECT_EQ(evaluate(unary([](Output x) { return ops::expand_dims(x, -1); }), {uniform({2, 3}, -1, 1, 1)})
                            .shape(),
                        (Shape{2, 3, 1}));
              EXPECT_THROW(evaluate(unary([](Output x) { return ops::expand_dims(x, 3); }), {uniform({2, 3}, -1, 1, 1)}),
                           ValueError);
            }}},
    {"split_axis",
     OpCase{{{"(2, 6, 3) axis 1 into (2, 3)", [](Graph&, V in) { return ops::split_axis(in[0], 1, {2, 3}); },
              {uniform({2, 6, 3}, -1, 1, 2031)},
              [](const std::vector<Tensor>& in) { return in[0].clone().reshaped(Shape{2, 2, 3, 3}); }}},
            [] {
              EXPECT_THROW(evaluate(unary([](Output x) { return ops::split_axis(x, 1, {4, 2}); }),
                                    {uniform({2, 6}, -1, 1, 1)}),
                           ShapeError);
            }}},
    {"merge_axes",
     OpCase{{{"(2, 2, 3, 2) axes 1..2", [](Graph&, V in) { return ops::merge_axes(in[0], 1, 2); },
              {uniform({2, 2, 3, 2}, -1, 1, 2041)},
              [](const std::vector<Tensor>& in) { return in[0].clone().reshaped(Shape{2, 6, 2}); }}},
            [] {
              EXPECT_THROW(evaluate(unary([](Output x) { return ops::merge_axes(x, 1, 3); }), {uniform({2, 6}, -1, 1, 1)}),
                           ValueError);
            }}},
    {"causal_mask",
     OpCase{{},
            [] {
              // Query i sees keys 0..i, from the scores' last two dims.
              Tensor mask = evaluate(unary([](Output s) { return ops::causal_mask(s); }), {uniform({2, 3, 4}, -1, 1, 1)});
              EXPECT_TRUE(tensors_near(mask, tensor<float>({3, 4}, {1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0})));
              EXPECT_THROW(evaluate(unary([](Output s) { return ops::causal_mask(s); }), {uniform({4}, -1, 1, 1)}),
                           ShapeError);
            },
            "a function of its input's shape only: no gradient"}},
});

}  // namespace
}  // namespace strata::testing::attention_op_cases
