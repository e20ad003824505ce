// cuDNN's RNN takes Keras's recurrent weights packed into its weight space, in its own
// gate order (core/cuda/rnn_weight_layout.h, run by core/cuda/rnn_layout.cu for
// core/cuda/cudnn_rnn.cc). Here the same per-element functions run on the host, in every
// build: packing then unpacking gives Keras's weights back, and an RNN that follows
// cuDNN's documented cell equations (cudnnRNNMode_t), reading each matrix and bias by its
// linear layer id from a packed weight space, computes what the CPU kernel computes for
// Keras's LSTM and GRU (reset_after). What this leaves to a GPU run (CudnnRnn.* in
// cuda_kernels_test.cc): cuDNN's own addresses of each id (asked for, and their shapes
// checked, at the first call) and its arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/cuda/rnn_weight_layout.h"
#include "core/op_registry.h"
#include "core/ops/rnn_cell.h"
#include "core_test_util.h"
#include "rnn_configurations.h"

using namespace strata;
using namespace strata::testing;
using cuda::RnnWeightLayout;
using ops::Cell;

namespace cuda_rnn_weight_layout_test {

namespace {

// A weight space laid out by cuDNN's linear layer ids — ids in reverse order, each matrix
// and bias apart from the others by a few unused floats — as a stand-in for cuDNN's own
// (whose addresses the kernels ask cuDNN for), NaN where nothing is packed.
struct FakeWeightSpace {
  std::int64_t F, H;
  std::vector<std::int64_t> matrix, bias;  // by linear layer id
  std::vector<float> data;

  FakeWeightSpace(Cell cell, std::int64_t F_, std::int64_t H_) : F(F_), H(H_) {
    const int ids = 2 * ops::gates_of(cell);
    matrix.resize(ids);
    bias.resize(ids);
    std::int64_t at = 5;
    for (int id = ids - 1; id >= 0; --id) {
      matrix[id] = at;
      at += H * (id < ids / 2 ? F : H) + 3;
      bias[id] = at;
      at += H + 2;
    }
    data.assign(static_cast<std::size_t>(at + 7), std::numeric_limits<float>::quiet_NaN());
  }

  // The layout the kernels would learn from cuDNN: each Keras gate at its id's place.
  RnnWeightLayout layout(Cell cell, bool two_biases) const {
    RnnWeightLayout l;
    l.F = F;
    l.H = H;
    l.G = ops::gates_of(cell);
    l.two_biases = two_biases;
    for (int g = 0; g < l.G; ++g) {
      l.input_matrix[g] = matrix[cuda::cudnn_lin_layer_id(cell, g, false)];
      l.recurrent_matrix[g] = matrix[cuda::cudnn_lin_layer_id(cell, g, true)];
      l.input_bias[g] = bias[cuda::cudnn_lin_layer_id(cell, g, false)];
      l.recurrent_bias[g] = bias[cuda::cudnn_lin_layer_id(cell, g, true)];
    }
    return l;
  }

  // Linear layer `id`'s matrix times v (its row-major rows, H of them), plus its bias.
  float affine(int id, std::int64_t row, const float* v, std::int64_t width) const {
    float sum = data[static_cast<std::size_t>(bias[id] + row)];
    for (std::int64_t k = 0; k < width; ++k) sum += data[static_cast<std::size_t>(matrix[id] + row * width + k)] * v[k];
    return sum;
  }
};

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

// y (B,T,H), h (B,H), c (B,H) of cuDNN's documented equations, in cuDNN's id order:
//   LSTM ids 0-3 (input) and 4-7 (recurrent): input gate, forget gate, new memory, output
//   gate; c = f·c' + i·tanh(...), h = o·tanh(c).
//   GRU ids 0-2 and 3-5: reset gate, update gate, new memory;
//   h' = tanh(W2·x + b_W2 + r·(R5·h + b_R5)), h = (1 - i)·h' + i·h.
std::vector<Tensor> cudnn_equations(Cell cell, const FakeWeightSpace& w, const Tensor& x, const Tensor& h0,
                                    const Tensor& c0) {
  const std::int64_t B = x.shape()[0], T = x.shape()[1], F = x.shape()[2], H = w.H;
  Tensor y({B, T, H}), h = h0.clone(), c = cell == Cell::lstm ? c0.clone() : Tensor::filled({B, H}, 0.f);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t t = 0; t < T; ++t) {
      const float* xt = x.data<float>() + (b * T + t) * F;
      const std::vector<float> hp(h.data<float>() + b * H, h.data<float>() + (b + 1) * H);
      std::vector<float> cp(c.data<float>() + b * H, c.data<float>() + (b + 1) * H);
      for (std::int64_t j = 0; j < H; ++j) {
        float out = 0;
        if (cell == Cell::lstm) {
          const float i = sigmoid(w.affine(0, j, xt, F) + w.affine(4, j, hp.data(), H));
          const float f = sigmoid(w.affine(1, j, xt, F) + w.affine(5, j, hp.data(), H));
          const float n = std::tanh(w.affine(2, j, xt, F) + w.affine(6, j, hp.data(), H));
          const float o = sigmoid(w.affine(3, j, xt, F) + w.affine(7, j, hp.data(), H));
          const float cn = f * cp[j] + i * n;
          c.data<float>()[b * H + j] = cn;
          out = o * std::tanh(cn);
        } else {
          const float r = sigmoid(w.affine(0, j, xt, F) + w.affine(3, j, hp.data(), H));
          const float i = sigmoid(w.affine(1, j, xt, F) + w.affine(4, j, hp.data(), H));
          const float n = std::tanh(w.affine(2, j, xt, F) + r * w.affine(5, j, hp.data(), H));
          out = (1 - i) * n + i * hp[j];
        }
        h.data<float>()[b * H + j] = out;
        y.data<float>()[(b * T + t) * H + j] = out;
      }
    }
  }
  return {y, h, c};
}

void pack(const RnnWeightLayout& l, const Tensor& kernel, const Tensor& recurrent_kernel, const Tensor& bias,
          std::vector<float>& space) {
  for (std::int64_t i = 0; i < cuda::rnn_weight_elements(l); ++i) {
    cuda::pack_rnn_weight(l, i, kernel.data<float>(), recurrent_kernel.data<float>(), bias.data<float>(),
                          space.data());
  }
}

::testing::AssertionResult close(const Tensor& actual, const Tensor& expected, float tolerance) {
  if (actual.shape() != expected.shape()) return ::testing::AssertionFailure() << "shapes differ";
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    if (!(std::fabs(actual.item(i) - expected.item(i)) <= tolerance)) {
      return ::testing::AssertionFailure() << "element " << i << ": " << actual.item(i) << ", expected "
                                           << expected.item(i);
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

TEST(CudnnRnnWeightLayout, GatesTakeCudnnsIds) {
  for (int g = 0; g < 4; ++g) {
    EXPECT_EQ(cuda::cudnn_lin_layer_id(Cell::lstm, g, false), g);
    EXPECT_EQ(cuda::cudnn_lin_layer_id(Cell::lstm, g, true), 4 + g);
  }
  // Keras's GRU gates are z, r, h; cuDNN's reset, update, new memory.
  EXPECT_EQ(cuda::cudnn_lin_layer_id(Cell::gru, 0, false), 1);
  EXPECT_EQ(cuda::cudnn_lin_layer_id(Cell::gru, 1, false), 0);
  EXPECT_EQ(cuda::cudnn_lin_layer_id(Cell::gru, 2, false), 2);
  EXPECT_EQ(cuda::cudnn_lin_layer_id(Cell::gru, 0, true), 4);
  EXPECT_EQ(cuda::cudnn_lin_layer_id(Cell::gru, 1, true), 3);
  EXPECT_EQ(cuda::cudnn_lin_layer_id(Cell::gru, 2, true), 5);
}

// Packing fills every matrix and bias (and nothing else); unpacking gradients laid out
// as the weights were gives Keras's arrays back.
TEST(CudnnRnnWeightLayout, UnpackingUndoesPacking) {
  for (Cell cell : {Cell::lstm, Cell::gru}) {
    const bool two_biases = cell == Cell::gru;
    const std::int64_t F = 5, H = 3, GH = ops::gates_of(cell) * H;
    FakeWeightSpace w(cell, F, H);
    const RnnWeightLayout l = w.layout(cell, two_biases);
    const Tensor kernel = uniform({F, GH}, -1, 1, 11), recurrent = uniform({H, GH}, -1, 1, 12),
                 bias = uniform(two_biases ? Shape{2, GH} : Shape{GH}, -1, 1, 13);
    pack(l, kernel, recurrent, bias, w.data);
    std::int64_t written = 0;
    for (float v : w.data) written += std::isnan(v) ? 0 : 1;
    EXPECT_EQ(written, cuda::rnn_weight_elements(l)) << "every element once, in its own place";
    Tensor dkernel = Tensor::filled({F, GH}, -7.f), drecurrent = Tensor::filled({H, GH}, -7.f),
           dbias = Tensor::filled(bias.shape(), -7.f);
    for (std::int64_t i = 0; i < cuda::rnn_weight_elements(l); ++i) {
      cuda::unpack_rnn_weight_grad(l, i, w.data.data(), dkernel.data<float>(), drecurrent.data<float>(),
                                   dbias.data<float>());
    }
    EXPECT_TRUE(close(dkernel, kernel, 0.f));
    EXPECT_TRUE(close(drecurrent, recurrent, 0.f));
    EXPECT_TRUE(close(dbias, bias, 0.f));
    if (!two_biases) {
      // Keras's one bias is cuDNN's input bias; the recurrent biases are zeros.
      for (int g = 0; g < l.G; ++g) {
        for (std::int64_t j = 0; j < H; ++j) EXPECT_EQ(w.data[static_cast<std::size_t>(l.recurrent_bias[g] + j)], 0.f);
      }
    }
  }
}

// cuDNN's cell equations on the packed weights are Keras's cells, as the CPU kernel runs them.
TEST(CudnnRnnWeightLayout, CudnnsEquationsOnPackedWeightsAreTheCpuKernels) {
  for (const char* cell_name : {"lstm", "gru"}) {
    RnnCase r{.label = cell_name, .cell = cell_name, .batch = 3, .steps = 5, .features = 4, .units = 6};
    const Cell cell = std::string(cell_name) == "lstm" ? Cell::lstm : Cell::gru;
    const std::vector<Tensor> inputs = rnn_inputs(r, 3100);
    const std::vector<Tensor> cpu = rnn_cpu_forward(r, 3100, inputs);
    FakeWeightSpace w(cell, r.features, r.units);
    pack(w.layout(cell, cell == Cell::gru), inputs[3], inputs[4], inputs[5], w.data);
    const std::vector<Tensor> got = cudnn_equations(cell, w, inputs[0], inputs[1], inputs[2]);
    EXPECT_TRUE(close(got[0], cpu[0], 1e-5f)) << cell_name << ": y";
    EXPECT_TRUE(close(got[1], cpu[1], 1e-5f)) << cell_name << ": last h";
    EXPECT_TRUE(close(got[2], cpu[2], 1e-5f)) << cell_name << ": last c";
  }
}

}  // namespace cuda_rnn_weight_layout_test
