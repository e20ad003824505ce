// EinsumDense equations beyond one matrix product of the input and the kernel, against
// real Keras 3.15.1: tests/data/einsum_dense_forms_golden.json
// (tests/reference/make_einsum_dense_forms_goldens.py) holds batched kernels, input
// letters summed alone and diagonals of the input or the kernel, each made from Keras's
// config and matched within 1e-5 in outputs and in the gradients of
// sum(output · projection) w.r.t. the input and every weight (layer_golden_case.h), also
// over a None time axis where the equation keeps it. Beyond the goldens: such a model saves
// and loads, and the computations Strata does only for one product (a bfloat16 policy,
// quantization) refuse these forms by name.
#include <gtest/gtest.h>

#include "core/error.h"
#include "golden_json.h"
#include "io/saving.h"
#include "layer_golden_case.h"
#include "layers/core/einsum_dense.h"
#include "layers/core/input_layer.h"
#include "layers/dtype_policy.h"
#include "models/model.h"

using namespace strata;

namespace einsum_dense_forms_test {

namespace {

constexpr const char* kGoldens = "einsum_dense_forms_golden.json";

class EinsumDenseForms : public ::testing::TestWithParam<std::string> {};

TEST_P(EinsumDenseForms, MatchesKeras) { strata::testing::expect_matches_keras_case(strata::testing::golden_case(kGoldens, GetParam())); }

INSTANTIATE_TEST_SUITE_P(Keras3, EinsumDenseForms, ::testing::ValuesIn(strata::testing::golden_case_names(kGoldens)),
                         [](const auto& info) { return strata::testing::test_name_of(info.param); });

// Axis 1 of these inputs is kept in the output and in no kernel: it may be None.
TEST(EinsumDenseForms, MatchKerasOverANoneAxis) {
  for (const std::string name : {"summed_alone_middle", "batched_kernel_r4"}) {
    SCOPED_TRACE(name);
    strata::testing::expect_matches_keras_case(strata::testing::golden_case(kGoldens, name), {.unknown_time = true});
  }
}

Tensor ramp(Shape shape) {
  Tensor t(std::move(shape));
  for (std::int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = 0.05f * static_cast<float>(i % 17) - 0.4f;
  return t;
}

TEST(EinsumDenseForms, SaveAndLoad) {
  const std::string dir = ::testing::TempDir();
  auto x = Input({3, 3, 4});
  Model m(x, layers::EinsumDense("abbc,bcd->abd", Shape{3, 5}, {.activation = "tanh", .bias_axes = "d"})(x));
  const Tensor in = ramp({2, 3, 3, 4});
  const Tensor want = m.predict(in);
  for (const std::string ext : {".keras", ".h5"}) {
    const std::string path = dir + "/einsum_dense_forms" + ext;
    m.save(path);
    Model again = models::load_model(path);
    const Tensor got = again.predict(in);
    ASSERT_EQ(got.shape(), want.shape()) << ext;
    for (std::int64_t i = 0; i < got.size(); ++i) ASSERT_EQ(got.item(i), want.item(i)) << ext << " at " << i;
  }
}

TEST(EinsumDenseForms, OnlyFloat32ComputesThem) {
  auto expect_refused = [](const std::function<void()>& f, const std::string& says) {
    try {
      f();
      FAIL() << "expected NotImplementedError saying " << says;
    } catch (const NotImplementedError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("abc,bcd->abd"), std::string::npos) << m;
      EXPECT_NE(m.find(says), std::string::npos) << m;
    }
  };
  auto x = Input({3, 4});
  {
    struct GlobalPolicy {  // back to float32 however the block ends
      GlobalPolicy() { set_dtype_policy("mixed_bfloat16"); }
      ~GlobalPolicy() { set_dtype_policy("float32"); }
    } bfloat16_layers;
    expect_refused([&] { layers::EinsumDense("abc,bcd->abd", Shape{3, 5})(x); }, "bfloat16");
  }
  auto y = layers::EinsumDense("abc,bcd->abd", Shape{3, 5})(x);
  Model m(x, y);
  expect_refused([&] { m.quantize("int8"); }, "int8");
}

TEST(EinsumDenseForms, ARepeatedOutputLetterOrBatchIsRefusedAsKeras) {
  EXPECT_THROW(layers::EinsumDense("abc,cd->abdd", Shape{3, 5, 5}), ValueError);  // Keras's call fails
  EXPECT_THROW(layers::EinsumDense("aab,bc->ac", Shape{5}), NotImplementedError);  // the batch axis's diagonal
  // A diagonal's two axes must agree.
  EXPECT_THROW(layers::EinsumDense("abb,bc->ac", Shape{5})(Input({3, 4})), ShapeError);
}

}  // namespace

}  // namespace einsum_dense_forms_test
