#include "io/cudnn_weights.h"

namespace strata::io {
namespace {

// Per gate block g of a (rows, gates * units) matrix, out = f(block), blocks side by side.
template <typename Fn>
Tensor per_gate(const Tensor& m, int gates, Fn&& f) {
  const std::int64_t rows = m.shape().dims()[0], cols = m.shape().dims()[1], units = cols / gates;
  const float* src = m.data<float>();
  std::vector<float> out(static_cast<std::size_t>(rows * cols));
  std::vector<float> block(static_cast<std::size_t>(rows * units));
  for (int g = 0; g < gates; ++g) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < units; ++c) block[r * units + c] = src[r * cols + g * units + c];
    const std::vector<float> t = f(block, rows, units);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < units; ++c) out[r * cols + g * units + c] = t[r * units + c];
  }
  return Tensor::from_vector(m.shape(), out);
}

// cuDNN's input kernel block holds the (rows, units) block's elements in the order of its
// transpose: Keras's k.T.reshape(k.shape, order="F"), i.e. out[i][j] = flat[i + j * rows].
std::vector<float> input_block(const std::vector<float>& k, std::int64_t rows, std::int64_t units) {
  std::vector<float> out(k.size());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < units; ++j) out[i * units + j] = k[i + j * rows];
  return out;
}

// The recurrent block is transposed.
std::vector<float> recurrent_block(const std::vector<float>& k, std::int64_t rows, std::int64_t units) {
  std::vector<float> out(k.size());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < units; ++j) out[i * units + j] = k[j * units + i];
  return out;
}

bool is_matrix(const Shape& s, std::int64_t cols) { return s.rank() == 2 && s.dims()[1] == cols; }

}  // namespace

int convert_cudnn_weights(std::vector<Tensor>& values, const std::vector<Shape>& shapes) {
  int converted = 0;
  for (std::size_t i = 0; i + 2 < values.size() && i + 2 < shapes.size(); ++i) {
    const Shape& rk = shapes[i + 1];
    if (rk.rank() != 2 || values[i].dtype() != DType::float32) continue;
    const std::int64_t units = rk.dims()[0];
    const Shape& file_bias = values[i + 2].shape();
    const bool lstm = is_matrix(shapes[i], 4 * units) && is_matrix(rk, 4 * units) &&
                      shapes[i + 2] == Shape{4 * units} && file_bias == Shape{8 * units};
    const bool gru = is_matrix(shapes[i], 3 * units) && is_matrix(rk, 3 * units) &&
                     shapes[i + 2] == Shape{2, 3 * units} && file_bias == Shape{6 * units};
    if (!lstm && !gru) continue;
    const int gates = lstm ? 4 : 3;
    if (values[i].shape() != shapes[i] || values[i + 1].shape() != rk) continue;
    values[i] = per_gate(values[i], gates, input_block);
    values[i + 1] = per_gate(values[i + 1], gates, recurrent_block);
    const std::vector<float> b = values[i + 2].to_vector<float>();
    if (lstm) {  // the input and recurrent biases add up
      std::vector<float> sum(static_cast<std::size_t>(4 * units));
      for (std::size_t k = 0; k < sum.size(); ++k) sum[k] = b[k] + b[k + sum.size()];
      values[i + 2] = Tensor::from_vector(Shape{4 * units}, sum);
    } else {  // GRU(reset_after) keeps both: (2, 3 * units)
      values[i + 2] = Tensor::from_vector(Shape{2, 3 * units}, b);
    }
    ++converted;
    i += 2;
  }
  return converted;
}

}  // namespace strata::io
