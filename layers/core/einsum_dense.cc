#include "layers/core/einsum_dense.h"

#include <algorithm>
#include <regex>
#include <set>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_matmul.h"
#include "core/ops/scan_ops.h"
#include "layers/activations.h"
#include "layers/core/int8_quantization.h"
#include "layers/core/low_precision_product.h"

namespace strata::layers {

namespace {

bool has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

// The permutation that orders `from`'s letters as `to` (same letters).
std::vector<std::int64_t> permutation(const std::string& from, const std::string& to) {
  std::vector<std::int64_t> perm;
  for (char c : to) perm.push_back(static_cast<std::int64_t>(from.find(c)));
  return perm;
}

bool is_identity(const std::vector<std::int64_t>& perm) {
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<std::int64_t>(i)) return false;
  }
  return true;
}

Output permuted(Output x, const std::string& from, const std::string& to) {
  const auto perm = permutation(from, to);
  return is_identity(perm) ? x : ops::transpose(x, perm);
}

// Keras's three forms of an EinsumDense equation: "X,Y->Z"; "...X,Y->...Z", where the
// ellipsis leads the input and the output and stands for the batch axis and any axes
// before X's; and "X...,Y->Z...", where it trails them and stands for the axes after X's
// (X then names the batch and at least one more axis).
enum class Ellipsis { none, leading, trailing };
struct EquationForm {
  Ellipsis ellipsis;
  std::string input, kernel, output;
};

EquationForm equation_form(const std::string& equation) {
  static const std::regex plain("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)");
  static const std::regex leading(R"(\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+))");
  static const std::regex trailing(R"(([a-zA-Z]{2,})\.\.\.,([a-zA-Z]+)->([a-zA-Z]+)\.\.\.)");
  std::smatch m;
  if (std::regex_match(equation, m, plain)) return {Ellipsis::none, m[1], m[2], m[3]};
  if (std::regex_match(equation, m, leading)) return {Ellipsis::leading, m[1], m[2], m[3]};
  if (std::regex_match(equation, m, trailing)) return {Ellipsis::trailing, m[1], m[2], m[3]};
  throw ValueError("Invalid einsum equation '" + equation +
                   "'. Equations must be in the form [X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...");
}

// The equation with its ellipsis spelled out in letters the equation does not use, for an
// input of `rank` axes, and output_shape (the dims after the batch axis) widened to match:
// the axes the ellipsis stands for keep the input's dims, as in Keras.
// The smallest input rank the equation takes (its ellipsis standing for the fewest axes).
int least_rank(const std::string& equation) {
  const EquationForm form = equation_form(equation);
  return static_cast<int>(form.input.size()) + (form.ellipsis == Ellipsis::leading ? 1 : 0);
}

std::pair<std::string, Shape> spelled_out(const std::string& equation, const Shape& output_shape, int rank) {
  const EquationForm form = equation_form(equation);
  if (form.ellipsis == Ellipsis::none) return {equation, output_shape};
  const int elided = rank - static_cast<int>(form.input.size());
  const int least = form.ellipsis == Ellipsis::leading ? 1 : 0;  // a leading one holds the batch axis
  if (elided < least) {
    throw ShapeError("EinsumDense equation '" + equation + "' expects an input of rank at least " +
                     std::to_string(form.input.size() + static_cast<std::size_t>(least)) + ", got rank " +
                     std::to_string(rank));
  }
  std::string fresh;
  for (char c : std::string("zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA")) {
    if (static_cast<int>(fresh.size()) == elided) break;
    if (!has(equation, c)) fresh += c;
  }
  if (static_cast<int>(fresh.size()) < elided) {
    throw ShapeError("EinsumDense equation '" + equation + "': an input of rank " + std::to_string(rank) +
                     " leaves too few unused letters to spell out its ellipsis");
  }
  std::vector<std::int64_t> dims(output_shape.dims().begin(), output_shape.dims().end());
  if (form.ellipsis == Ellipsis::leading) {
    dims.insert(dims.begin(), static_cast<std::size_t>(elided - 1), kUnknownDim);  // the first is the batch
    return {fresh + form.input + "," + form.kernel + "->" + fresh + form.output, Shape(dims)};
  }
  dims.insert(dims.end(), static_cast<std::size_t>(elided), kUnknownDim);
  return {form.input + fresh + "," + form.kernel + "->" + form.output + fresh, Shape(dims)};
}

// An operand's letters once its diagonals are taken (diagonal() below): each letter
// repeated has its first two axes replaced by one axis at the end, until none repeats.
std::string without_diagonals(std::string spec) {
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const std::size_t j = spec.find(spec[i], i + 1);
    if (j == std::string::npos) continue;
    const char c = spec[i];
    spec.erase(j, 1);
    spec.erase(i, 1);
    spec += c;
    i = static_cast<std::size_t>(-1);  // from the start again
  }
  return spec;
}

// x (its axes named by `spec`) along the diagonals of its repeated letters, its axes then
// named by without_diagonals(spec): as tf.einsum reads "abb" (x[:, i, i]).
Output diagonal(Output x, std::string spec) {
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const std::size_t j = spec.find(spec[i], i + 1);
    if (j == std::string::npos) continue;
    const int rank = static_cast<int>(spec.size());
    std::vector<std::int64_t> perm;
    for (int a = 0; a < rank; ++a) {
      if (a != static_cast<int>(i) && a != static_cast<int>(j)) perm.push_back(a);
    }
    perm.push_back(static_cast<std::int64_t>(i));
    perm.push_back(static_cast<std::int64_t>(j));
    x = ops::transpose(x, perm);
    // Keep the elements whose two last indices agree, then sum the last axis away.
    const Output on_diagonal = ops::equal(ops::column_minus_row(x), ops::constant(*x.graph, 0.f));
    x = ops::reduce_sum(ops::where(on_diagonal, x, ops::zeros_like(x)), {rank - 1}, false);
    const char c = spec[i];
    spec.erase(j, 1);
    spec.erase(i, 1);
    spec += c;
    i = static_cast<std::size_t>(-1);
  }
  return x;
}

}  // namespace

EinsumEquation EinsumEquation::parse(const std::string& equation) {
  static const std::regex form("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)");
  std::smatch m;
  if (!std::regex_match(equation, m, form)) {
    throw ValueError("Invalid einsum equation '" + equation + "'. Equations must be in the form [X],[Y]->[Z]");
  }
  EinsumEquation e;
  e.raw_input = m[1];
  e.raw_kernel = m[2];
  e.output = m[3];
  e.input = without_diagonals(e.raw_input);
  e.kernel = without_diagonals(e.raw_kernel);
  if (without_diagonals(e.output) != e.output) {  // Keras's call fails on it
    throw ValueError("EinsumDense equation '" + equation + "': a letter repeated in the output '" + e.output + "'");
  }
  for (char c : e.output) {
    if (!has(e.input, c) && !has(e.kernel, c)) {
      throw ValueError("Dimension '" + std::string(1, c) + "' was specified in the output '" + e.output +
                       "' but has no corresponding dim in the input spec '" + e.input + "' or weight spec '" +
                       e.kernel + "'");
    }
  }
  for (char c : e.kernel) {
    if (!has(e.input, c) && !has(e.output, c)) {
      throw ValueError("Weight dimension '" + std::string(1, c) + "' did not have a match in either the input spec '" +
                       e.input + "' or the output spec '" + e.output + "'. For this layer, the weight must be fully specified.");
    }
  }
  for (char c : e.input) {
    const bool in_kernel = has(e.kernel, c), in_output = has(e.output, c);
    (in_kernel && in_output ? e.batched : in_kernel ? e.summed : in_output ? e.input_kept : e.alone) += c;
  }
  for (char c : e.kernel) {
    if (has(e.output, c) && !has(e.input, c)) e.kernel_kept += c;
  }
  return e;
}

std::string EinsumEquation::product_input() const {
  std::string out;
  for (char c : input) {
    if (!has(alone, c)) out += c;
  }
  return out;
}

namespace {

// The error for a form beyond one matrix product (EinsumEquation::beyond_matrix_product)
// in a computation Strata does only for that product.
NotImplementedError beyond_matrix_product(const std::string& equation, const std::string& what) {
  return NotImplementedError("EinsumDense equation '" + equation + "' (a batched kernel, a letter summed alone or a "
                             "diagonal) in " + what + ": only float32 computes it");
}

// The forms beyond one matrix product: the operands' diagonals taken, the letters summed
// alone summed over, then one matrix product per index of the batched letters (one
// product where there are none), laid out as the output.
Output general_product(const EinsumEquation& e, const std::string& equation, Output x, Output kernel) {
  x = diagonal(x, e.raw_input);  // axes: e.input
  if (!e.alone.empty()) {
    std::vector<std::int64_t> axes;
    for (char c : e.alone) axes.push_back(static_cast<std::int64_t>(e.input.find(c)));
    x = ops::reduce_sum(x, axes, false);
  }
  const std::string operand = e.product_input();
  const Output k = diagonal(kernel, e.raw_kernel);  // axes: e.kernel
  const Shape& ks = k.shape();
  auto kernel_dim = [&](char c) { return ks[static_cast<int>(e.kernel.find(c))]; };
  std::int64_t batches = 1, summed = 1, kept = 1;
  std::vector<std::int64_t> dims;  // the product's: batched, kept input, kept kernel letters
  for (char c : e.batched) {
    batches *= kernel_dim(c);
    dims.push_back(kernel_dim(c));
  }
  for (char c : e.summed) summed *= kernel_dim(c);
  int unknown = 0;
  for (char c : e.input_kept) {
    const std::int64_t d = x.shape()[static_cast<int>(operand.find(c))];
    unknown += d == kUnknownDim;
    dims.push_back(d == kUnknownDim ? -1 : d);
  }
  if (unknown > 1) {
    throw NotImplementedError("EinsumDense equation '" + equation + "': input " + x.shape().to_string() +
                              " has more than one unknown axis kept in the output");
  }
  for (char c : e.kernel_kept) {
    kept *= kernel_dim(c);
    dims.push_back(kernel_dim(c));
  }
  const Output a = ops::reshape(permuted(x, operand, e.batched + e.input_kept + e.summed), {batches, -1, summed});
  const Output b = ops::reshape(permuted(k, e.kernel, e.batched + e.summed + e.kernel_kept), {batches, summed, kept});
  const Output y = ops::reshape(ops::batch_matmul(a, b), dims);
  return permuted(y, e.batched + e.input_kept + e.kernel_kept, e.output);
}

}  // namespace

EinsumDenseImpl::EinsumDenseImpl(std::string equation_, Shape output_shape_, EinsumDenseOptions o)
    : LayerImpl("EinsumDense", o.name),
      equation(std::move(equation_)),
      output_shape(std::move(output_shape_)),
      options(std::move(o)),
      // Checked as written; spelled out again for the input's rank when built.
      letters(EinsumEquation::parse(spelled_out(equation, output_shape, least_rank(equation)).first)) {
  activity_regularizer = options.activity_regularizer;
  activations::validate(options.activation);
  if (letters.output[0] != letters.raw_input[0] || letters.raw_input.find(letters.raw_input[0], 1) != std::string::npos) {
    throw NotImplementedError("EinsumDense equation '" + equation + "': the output's first letter must be the input's (the batch)");
  }
  if (options.bias_axes && options.bias_axes->empty()) throw ValueError("bias_axes is empty: name the output letters the bias spans, or pass none");
  if (options.bias_axes) {
    for (char c : *options.bias_axes) {
      if (!has(letters.output, c)) {
        throw ValueError("Bias dimension '" + std::string(1, c) + "' was requested, but is not part of the output spec '" +
                         letters.output + "'");
      }
    }
  }
}

void EinsumDenseImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& x = inputs[0].shape;
  const auto spelled = spelled_out(equation, output_shape, x.rank());
  letters = EinsumEquation::parse(spelled.first);
  const Shape& wanted = spelled.second;  // the output's dims after the batch axis, the ellipsis's included
  if (x.rank() != static_cast<int>(letters.raw_input.size())) {
    throw ShapeError("equation '" + equation + "' expects an input of rank " +
                     std::to_string(letters.raw_input.size()) + ", got " + x.to_string());
  }
  // A letter's size in the input (Keras reads a repeated letter's last axis; a diagonal's
  // axes must agree).
  auto input_dim = [&](char c) { return x[static_cast<int>(letters.raw_input.rfind(c))]; };
  for (std::size_t i = 0; i < letters.raw_input.size(); ++i) {
    const char c = letters.raw_input[i];
    const std::int64_t d = x[static_cast<int>(i)];
    if (d != kUnknownDim && input_dim(c) != kUnknownDim && d != input_dim(c)) {
      throw ShapeError("EinsumDense equation '" + equation + "': the input's axes '" + std::string(1, c) +
                       "' (a diagonal) differ in size, got " + x.to_string());
    }
  }
  if (letters.beyond_matrix_product() && !quantization_mode.empty()) {
    throw beyond_matrix_product(equation, "quantization mode " + quantization_mode);
  }
  std::vector<std::int64_t> out{x[0]};
  // As Keras reads it: output_shape's dims follow the batch axis, one per output letter.
  auto wrong_count = [&] {
    return ValueError("EinsumDense equation '" + equation + "' has " + std::to_string(letters.output.size() - 1) +
                      " output axes after the batch axis, but output_shape " + wanted.to_string() + " gives " +
                      std::to_string(wanted.rank()));
  };
  for (int i = 1; i < static_cast<int>(letters.output.size()); ++i) {
    const char c = letters.output[static_cast<std::size_t>(i)];
    if (i - 1 >= wanted.rank()) throw wrong_count();
    const std::int64_t given = wanted[i - 1];
    if (has(letters.input, c)) {
      if (given != kUnknownDim && input_dim(c) != kUnknownDim && given != input_dim(c)) {
        throw ValueError("Input shape and output shape do not match at shared dimension '" + std::string(1, c) +
                         "'. Input shape is " + std::to_string(input_dim(c)) + ", and output shape is " +
                         std::to_string(given) + ".");
      }
      out.push_back(given != kUnknownDim ? given : input_dim(c));
    } else {
      if (given == kUnknownDim) {
        throw ValueError("output_shape " + wanted.to_string() + " leaves dimension '" + std::string(1, c) +
                         "' (a kernel dimension) unknown");
      }
      out.push_back(given);
    }
  }
  if (wanted.rank() + 1 != static_cast<int>(letters.output.size())) throw wrong_count();
  if (has(letters.kernel, letters.output[0])) {
    throw NotImplementedError("EinsumDense equation '" + equation + "': the kernel cannot span the batch axis");
  }
  full_output_shape = Shape(out);
  // Kernel dims: kept letters from the output, summed ones from the input (known).
  std::vector<std::int64_t> kernel_dims;
  std::int64_t fan_in = 1, fan_out = 1;
  for (char c : letters.raw_kernel) {
    const bool kept = has(letters.output, c);
    const std::int64_t d = kept ? out[letters.output.find(c)] : input_dim(c);
    if (d == kUnknownDim) {
      throw ShapeError("the input's dimension '" + std::string(1, c) + "' must be known, got " + x.to_string());
    }
    kernel_dims.push_back(d);
    (kept ? fan_out : fan_in) *= d;
  }
  // Keras gives a variance-scaling initializer (Glorot, He, LeCun) the kernel's fans from
  // its input (summed) and output (kept) axes, as for a (fan_in, fan_out) Dense kernel:
  // drawn in that shape, the values are laid out as the kernel's (each draw independent).
  // Other initializers draw in the kernel's own shape.
  static const std::set<std::string> kVarianceScaling{"VarianceScaling", "GlorotUniform", "GlorotNormal",
                                                       "HeUniform",       "HeNormal",      "LecunUniform",
                                                       "LecunNormal"};
  const WeightOptions kernel_rules{.regularizer = options.kernel_regularizer, .constraint = options.kernel_constraint};
  const std::optional<std::int64_t> int4_block = int4_block_of(quantization_mode);
  if (int4_block) {  // Keras's int4 build: the kernel as (summed axes) × (the others), packed
    std::int64_t rows = 1, columns = 1;
    for (std::size_t i = 0; i < letters.kernel.size(); ++i) (has(letters.summed, letters.kernel[i]) ? rows : columns) *= kernel_dims[i];
    int4_kernel_dims = kernel_dims;
    add_int4_kernel([this](const std::string& n, const Shape& s, const std::string& init) { return add_weight(n, s, init, false); },
                    int4, "kernel", rows, columns);
  } else if (quantization_mode == "int8") {
    check_int8_equation();
    kernel = add_weight("kernel", Shape(kernel_dims), "zeros", false);
    kernel.set_stored_as(Variable::Stored::int8);
  } else if (kVarianceScaling.count(options.kernel_initializer.class_name())) {
    kernel = add_weight("kernel", Shape(kernel_dims), "zeros", kernel_rules);
    kernel.assign(options.kernel_initializer(Shape{fan_in, fan_out}).reshaped(Shape(kernel_dims)));
  } else {
    kernel = add_weight("kernel", Shape(kernel_dims), options.kernel_initializer, kernel_rules);
  }
  if (options.bias_axes) {
    std::size_t first = letters.output.size();
    for (char c : *options.bias_axes) first = std::min(first, letters.output.find(c));
    std::vector<std::int64_t> bias_dims;
    for (std::size_t i = first; i < letters.output.size(); ++i) {
      bias_dims.push_back(has(*options.bias_axes, letters.output[i]) ? out[i] : 1);
    }
    bias = add_weight("bias", Shape(bias_dims), options.bias_initializer,
                      {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
  }
  if (quantization_mode == "int8") kernel_scale = add_weight("kernel_scale", int8_scale_shape(), "ones", false);
  if (const auto history = float8_history_of(quantization_mode)) {
    add_float8_weights([this](const std::string& n, const Shape& s, const std::string& init) { return add_weight(n, s, init, false); },
                       float8, *history);
  }
  if (int4_block) {
    add_int4_groups([this](const std::string& n, const Shape& s, const std::string& init) { return add_weight(n, s, init, false); },
                    int4, "kernel", *int4_block);
  }
}

// Keras lays kernel_scale out as the kernel's scale (1 on the summed axes) moved into the
// output's layout, each summed axis taking the place of an output letter the kernel lacks
// (_analyze_quantization_info): the output's layout with 1 on the input's letters, as
// Strata keeps it, while the input has as many kept letters as there are summed ones.
// With more, Keras squeezes axes out of it. (The input's scale never takes a layout here:
// dense_int8 keeps one per row of the product, whatever Keras squeezes.)
void EinsumDenseImpl::check_int8_equation() const {
  if (letters.beyond_matrix_product()) throw beyond_matrix_product(equation, "int8");
  if (letters.summed.size() > letters.input_kept.size()) {
    throw NotImplementedError("EinsumDense equation '" + equation + "' in int8: " +
                              std::to_string(letters.summed.size()) + " summed letters, more than the output's " +
                              "letters from the input (Keras squeezes its kernel_scale into another layout)");
  }
}

Shape EinsumDenseImpl::int8_scale_shape() const {
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < letters.output.size(); ++i) {
    dims.push_back(has(letters.kernel, letters.output[i]) ? full_output_shape[static_cast<int>(i)] : 1);
  }
  return Shape(dims);
}

void EinsumDenseImpl::quantize(const std::string& mode) {
  check_quantizable(*this, mode);
  if (letters.beyond_matrix_product()) throw beyond_matrix_product(equation, "quantize(\"" + mode + "\")");
  if (const auto history = float8_history_of(mode)) {  // Keras's quantize("float8"): scales added, the kernel kept
    add_float8_weights([this](const std::string& n, const Shape& s, const std::string& init) { return add_weight(n, s, init, false); },
                       float8, *history);
    quantization_mode = mode;
    return;
  }
  if (const auto block = int4_block_of(mode)) {  // Keras's quantize("int4"): the kernel as rows × columns
    std::int64_t rows = 1, columns = 1;
    const Shape& ks = kernel.shape();
    for (std::size_t i = 0; i < letters.kernel.size(); ++i) (has(letters.summed, letters.kernel[i]) ? rows : columns) *= ks[static_cast<int>(i)];
    const Int4Quantized q = quantize_grouped_int4(kernel.value().to(Device{}).to_vector<float>(), rows, columns, *block,
                                                  "EinsumDense '" + name + "' kernel");
    int4_kernel_dims = ks.dims();
    drop_weight_rules(*this, kernel);
    assign_int4([this](const std::string& n, const Shape& s, const std::string& init) { return add_weight(n, s, init, false); },
                weights, int4, "kernel", "kernel", rows, columns, *block, q,
                options.bias_axes ? std::vector<Variable>{bias} : std::vector<Variable>{});
    kernel = Variable();
    quantization_mode = mode;
    return;
  }
  check_int8_equation();
  std::vector<int> summed_axes;
  for (char c : letters.summed) summed_axes.push_back(static_cast<int>(letters.kernel.find(c)));
  const Int8Weight q = quantize_weight_int8(kernel.value(), summed_axes, "EinsumDense '" + name + "' kernel");
  // The scale from the kernel's layout (kept letters in kernel order, 1 on the summed axes)
  // to kernel_scale's (the output's, 1 on the axes the kernel lacks), element by element.
  const Shape scale_shape = int8_scale_shape();
  const Shape& from_shape = q.scale.shape();
  Tensor scale(scale_shape);
  const auto from = q.scale.values<float>();
  auto to = scale.values<float>();
  std::vector<std::int64_t> index(letters.output.size(), 0);
  for (float& value : to) {
    std::int64_t p = 0;
    for (std::size_t j = 0; j < letters.kernel.size(); ++j) {
      const std::size_t o = letters.output.find(letters.kernel[j]);
      p = p * from_shape[static_cast<int>(j)] + (o == std::string::npos ? 0 : index[o]);
    }
    value = from[static_cast<std::size_t>(p)];
    for (int d = scale_shape.rank() - 1; d >= 0; --d) {  // the next index, row-major
      if (++index[static_cast<std::size_t>(d)] < scale_shape[d]) break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
  // Keras's int8 build's variables, in the order a loaded int8 EinsumDense has them.
  drop_weight_rules(*this, kernel);  // the float kernel's, which the quantized one replaces
  weights.clear();
  kernel = add_weight("kernel", q.values.shape(), "zeros", false);
  kernel.assign(q.values);
  kernel.set_stored_as(Variable::Stored::int8);
  if (options.bias_axes) weights.push_back(bias);
  kernel_scale = add_weight("kernel_scale", scale_shape, "ones", false);
  kernel_scale.assign(scale);
  quantization_mode = mode;
}

std::vector<Output> EinsumDenseImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  Output x = inputs[0];
  if (x.shape().rank() != static_cast<int>(letters.raw_input.size())) {
    throw ShapeError("equation '" + equation + "' expects an input of rank " +
                     std::to_string(letters.raw_input.size()) + ", got " + x.shape().to_string());
  }
  if (letters.beyond_matrix_product()) {
    if (graph.precision() != ComputePrecision::float32) {
      throw beyond_matrix_product(equation, "a bfloat16 or float16 dtype policy");
    }
    Output y = general_product(letters, equation, x, graph.variable(kernel));
    if (options.bias_axes) y = ops::add(y, graph.variable(bias));
    return {activations::apply(options.activation, y)};
  }
  const Shape ks = int4.packed.defined() ? Shape(int4_kernel_dims) : kernel.shape();
  auto kernel_dim = [&](char c) { return ks[static_cast<int>(letters.kernel.find(c))]; };
  std::int64_t summed_size = 1, kept_size = 1;
  std::vector<std::int64_t> kept_dims;
  for (char c : letters.summed) summed_size *= kernel_dim(c);
  for (char c : letters.kernel_kept) {
    kept_size *= kernel_dim(c);
    kept_dims.push_back(kernel_dim(c));
  }
  // One matrix product: x as (kept input letters..., summed), the kernel as
  // (summed, kept kernel letters).
  x = permuted(x, letters.input, letters.input_kept + letters.summed);
  const int kept_axes = static_cast<int>(letters.input_kept.size());
  if (letters.summed.empty()) {
    x = ops::expand_dims(x, -1);
  } else if (letters.summed.size() > 1) {
    x = ops::merge_axes(x, kept_axes, static_cast<int>(letters.summed.size()));
  }
  // Keras's int4 kernel: dequantized (rows × columns), reshaped to the kernel's shape as
  // Keras's call reshapes it.
  const bool float8_mode = float8.inputs_scale.defined();  // Keras's float8 predict: x and the kernel quantized-dequantized
  if (float8_mode) x = quantize_dequantize_float8(graph, x, float8.inputs_scale);
  const Output kernel_value =
      int4.packed.defined() ? ops::reshape(dequantized_int4(graph, int4), int4_kernel_dims)
      : float8_mode         ? quantize_dequantize_float8(graph, graph.variable(kernel), float8.kernel_scale)
                            : graph.variable(kernel);
  Output k = ops::reshape(permuted(kernel_value, letters.kernel, letters.summed + letters.kernel_kept),
                          {summed_size, kept_size});
  // From (kept input letters..., kept kernel letters merged) to the output's layout.
  auto to_output = [&](Output t) {
    if (letters.kernel_kept.empty()) {
      t = ops::reduce_sum(t, {-1});
    } else if (letters.kernel_kept.size() > 1) {
      t = ops::split_axis(t, -1, kept_dims);
    }
    return permuted(t, letters.input_kept + letters.kernel_kept, letters.output);
  };
  Output y;
  if (quantization_mode == "int8") {
    // Keras: the input quantized over the summed axes (the matrix's rows), the product in
    // int32, then / (input scale * kernel_scale): dense_int8 on the matrices, with
    // kernel_scale (the output's layout, 1 on the axes the kernel lacks) as one scale per
    // column, its kernel letters in the product's order.
    const Output k_scale = graph.variable(kernel_scale);
    std::string scale_letters;
    std::vector<std::int64_t> scale_dims;
    for (char c : letters.output) {
      if (!has(letters.kernel, c)) continue;
      scale_letters += c;
      scale_dims.push_back(kernel_dim(c));
    }
    Output column_scale = ops::reshape(k_scale, scale_dims.empty() ? std::vector<std::int64_t>{1} : scale_dims);
    if (!scale_dims.empty()) column_scale = permuted(column_scale, scale_letters, letters.kernel_kept);
    column_scale = ops::reshape(column_scale, {kept_size});
    y = to_output(ops::dense_int8(x, k, column_scale));
    y = with_dequantized_gradient(y, ops::div(to_output(ops::matmul(x, k)), k_scale));
  } else if (graph.precision() != ComputePrecision::float32) {  // a bfloat16 or float16 policy
    // A product of matrices (rank-2 input and output) is a MatMul to TensorFlow, fused as
    // Dense's; any other a batched product, each op rounded.
    const bool fused = fused_like_onednn(graph, inputs[0].shape().rank()) && letters.output.size() == 2;
    check_low_precision_activation(graph, options.activation, fused);
    return {low_precision_product(graph, fused, x, k, options.bias_axes ? graph.variable(bias) : Output{},
                                  options.activation,
                                  [&](Output a, Output kr) { return to_output(ops::matmul(a, kr)); })};
  } else {
    y = to_output(ops::matmul(x, k));
  }
  // float8: the bias rounded to bfloat16 first, as Keras's float8 call does in float32.
  if (options.bias_axes) y = ops::add(y, float8_mode ? ops::round_to_bfloat16(graph.variable(bias)) : graph.variable(bias));
  return {activations::apply(options.activation, y)};
}

EinsumDense::EinsumDense(std::string equation, Shape output_shape, EinsumDenseOptions options)
    : Layer(std::make_shared<EinsumDenseImpl>(std::move(equation), std::move(output_shape), std::move(options))) {}

namespace {
const bool einsum_dense_registered = register_keras_class(
    describe_layer<EinsumDense>("EinsumDense", &EinsumDenseImpl::options,
                                keras_field("equation", &EinsumDenseImpl::equation),
                                keras_field("output_shape", &EinsumDenseImpl::output_shape, Spelling::bare_single)));
}  // namespace

}  // namespace strata::layers
