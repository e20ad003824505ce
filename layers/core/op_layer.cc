#include "layers/core/op_layer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/activations.h"
#include "layers/core/op_call.h"

namespace strata::layers {

namespace op_detail {

std::int64_t normalize_axis(std::int64_t axis, std::size_t rank, const std::string& where) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    throw ValueError(where + ": axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + r : axis;
}

// The shape to pass to reshape: the batch (unknown) as -1, other dims known.
std::vector<std::int64_t> reshape_target(const Shape& s, const std::string& where) {
  std::vector<std::int64_t> dims = s.dims();
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != kUnknownDim) continue;
    if (i != 0) throw ShapeError(where + ": needs known dimensions after the batch, got " + s.to_string());
    dims[i] = -1;
  }
  return dims;
}

Output reduce(const OpCall& c, const std::function<Output(Output, std::vector<std::int64_t>, bool)>& fn) {
  const Output x = c.arg(0);
  std::vector<std::int64_t> axes;
  if (auto a = c.axes("axis")) {
    for (auto v : *a) axes.push_back(normalize_axis(v, x.shape().rank(), c.where));
  } else {
    for (int i = 0; i < x.shape().rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  return fn(x, axes, c.flag("keepdims"));
}

Output expand_dims(Output x, std::int64_t axis, const std::string& where) {
  std::vector<std::int64_t> dims = reshape_target(x.shape(), where);
  const auto rank = static_cast<std::int64_t>(dims.size()) + 1;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw ValueError(where + ": axis out of range");
  dims.insert(dims.begin() + axis, 1);
  return ops::reshape(x, dims);
}

DType dtype_of(const std::string& name, const std::string& where) {
  // Computed in float32: float16's and bfloat16's rounding is not emulated.
  if (name == "float16" || name == "bfloat16" || name == "float64") return DType::float32;
  try {
    return parse_dtype(name);
  } catch (const ValueError&) {
    throw NotImplementedError(where + ": dtype '" + name + "' is not supported");
  }
}

Output scalar(const OpCall& c, float v) { return ops::constant(c.graph, v); }

Output is_nan(Output x) { return ops::not_equal(x, x); }

// Argument i of a comparison. Strata's comparison kernels read float32; an integer operand
// is cast, which keeps every integer up to 2^24 exact (token ids: Keras records an
// Embedding's mask_zero as NotEqual(ids, 0), the mask its mask-taking layers get).
Output compared(const OpCall& c, std::size_t i) {
  const Output x = c.arg(i);
  return x.dtype() == DType::float32 ? x : ops::cast(x, DType::float32);
}

}  // namespace op_detail

// Every operation's function by its Keras class name.
namespace op_detail {
namespace {

const std::map<std::string, OpFn>& table() {
  using C = const OpCall&;
  static std::map<std::string, OpFn> t = {
      {"Add", [](C c) { return ops::add(c.arg(0), c.arg(1)); }},
      {"Subtract", [](C c) { return ops::sub(c.arg(0), c.arg(1)); }},
      {"Multiply", [](C c) { return ops::mul(c.arg(0), c.arg(1)); }},
      {"Divide", [](C c) { return ops::div(c.arg(0), c.arg(1)); }},
      {"TrueDivide", [](C c) { return ops::div(c.arg(0), c.arg(1)); }},
      {"Maximum", [](C c) { return ops::maximum(c.arg(0), c.arg(1)); }},
      {"Minimum", [](C c) { return ops::minimum(c.arg(0), c.arg(1)); }},
      {"Power",
       [](C c) {
         // A constant whole exponent as products (and a reciprocal when negative): exact,
         // and defined for x < 0 as NumPy's. Otherwise exp(y log x), NaN for x < 0 as
         // NumPy's is for a fractional exponent.
         const OpArgument& e = c.arguments.at(1);
         if (e.kind == OpArgument::Kind::number && e.number == std::floor(e.number) && std::fabs(e.number) <= 64) {
           const auto n = static_cast<int>(std::fabs(e.number));
           Output y = ops::ones_like(c.arg(0));
           for (int i = 0; i < n; ++i) y = ops::mul(y, c.arg(0));
           return e.number < 0 ? ops::div(ops::ones_like(c.arg(0)), y) : y;
         }
         if (e.kind == OpArgument::Kind::number && e.number == 0.5) return ops::sqrt(c.arg(0));
         return ops::exp(ops::mul(c.arg(1), ops::log(c.arg(0))));
       }},
      {"Equal", [](C c) { return ops::equal(compared(c, 0), compared(c, 1)); }},
      {"NotEqual", [](C c) { return ops::not_equal(compared(c, 0), compared(c, 1)); }},
      {"Greater", [](C c) { return ops::greater(compared(c, 0), compared(c, 1)); }},
      {"GreaterEqual", [](C c) { return ops::greater_equal(compared(c, 0), compared(c, 1)); }},
      {"Less", [](C c) { return ops::less(compared(c, 0), compared(c, 1)); }},
      {"LessEqual", [](C c) { return ops::less_equal(compared(c, 0), compared(c, 1)); }},
      {"LogicalAnd", [](C c) { return ops::mul(ops::not_equal(c.arg(0), ops::constant(c.graph, 0.0f)),
                                               ops::not_equal(c.arg(1), ops::constant(c.graph, 0.0f))); }},
      {"Where",
       [](C c) {  // only the chosen branch passes: where(x > 0, log(x), 0) has no NaN
         return ops::where(ops::not_equal(c.arg(0), ops::constant(c.graph, 0.0f)), c.arg(1), c.arg(2));
       }},
      {"Negative", [](C c) { return ops::neg(c.arg(0)); }},
      {"Absolute", [](C c) { return ops::abs(c.arg(0)); }},
      {"Abs", [](C c) { return ops::abs(c.arg(0)); }},
      {"Sqrt", [](C c) { return ops::sqrt(c.arg(0)); }},
      {"Square", [](C c) { return ops::square(c.arg(0)); }},
      {"Exp", [](C c) { return ops::exp(c.arg(0)); }},
      {"Log", [](C c) { return ops::log(c.arg(0)); }},
      {"Tanh", [](C c) { return ops::tanh(c.arg(0)); }},
      {"Sign", [](C c) { return ops::sign(c.arg(0)); }},
      {"Clip",
       [](C c) {
         return ops::clip(c.arg(0), static_cast<float>(c.number("x_min")), static_cast<float>(c.number("x_max")));
       }},
      {"OnesLike", [](C c) { return ops::ones_like(c.arg(0)); }},
      {"ZerosLike", [](C c) { return ops::zeros_like(c.arg(0)); }},
      {"FullLike", [](C c) { return ops::add(ops::zeros_like(c.arg(0)), c.arg(1)); }},
      {"Cast",
       [](C c) {
         // bool: 1 where x != 0, as NumPy's cast (Strata has no bool tensors: 0 / 1 floats).
         if (c.text("dtype") == "bool") return ops::not_equal(c.arg(0), ops::constant(c.graph, 0.0f));
         return ops::cast(c.arg(0), dtype_of(c.text("dtype"), c.where));
       }},
      {"Sum", [](C c) { return reduce(c, [](Output x, auto a, bool k) { return ops::reduce_sum(x, a, k); }); }},
      {"Mean", [](C c) { return reduce(c, [](Output x, auto a, bool k) { return ops::reduce_mean(x, a, k); }); }},
      {"Max",
       [](C c) {
         if (c.has("initial")) throw NotImplementedError(c.where + ": Max with 'initial' is not supported");
         return reduce(c, [](Output x, auto a, bool k) { return ops::reduce_max(x, a, k); });
       }},
      {"Min",
       [](C c) {
         if (c.has("initial")) throw NotImplementedError(c.where + ": Min with 'initial' is not supported");
         return reduce(c, [](Output x, auto a, bool k) { return ops::neg(ops::reduce_max(ops::neg(x), a, k)); });
       }},
      {"Reshape",
       [](C c) {
         const auto shape = c.axes("newshape");
         if (!shape) throw ValueError(c.where + ": Reshape needs 'newshape'");
         return ops::reshape(c.arg(0), *shape);
       }},
      {"ExpandDims",
       [](C c) {
         const auto axis = c.axes("axis");
         if (!axis || axis->size() != 1) throw NotImplementedError(c.where + ": ExpandDims needs one axis");
         return expand_dims(c.arg(0), (*axis)[0], c.where);
       }},
      {"Squeeze",
       [](C c) {
         const Output x = c.arg(0);
         std::vector<std::int64_t> dims = reshape_target(x.shape(), c.where), out;
         const auto axes = c.axes("axis");
         for (std::size_t i = 0; i < dims.size(); ++i) {
           bool drop = dims[i] == 1;
           if (axes) {
             drop = false;
             for (auto a : *axes) drop |= normalize_axis(a, dims.size(), c.where) == static_cast<std::int64_t>(i);
             if (drop && dims[i] != 1) throw ValueError(c.where + ": cannot squeeze an axis of size " + std::to_string(dims[i]));
           }
           if (!drop) out.push_back(dims[i]);
         }
         return ops::reshape(x, out);
       }},
      {"Transpose",
       [](C c) {
         const Output x = c.arg(0);
         std::vector<std::int64_t> perm;
         if (auto axes = c.axes("axes")) {
           perm = *axes;
         } else {
           for (std::size_t i = x.shape().rank(); i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
         }
         return ops::transpose(x, perm);
       }},
      {"Concatenate",
       [](C c) {
         const auto axis = c.axes("axis").value_or(std::vector<std::int64_t>{0});
         return ops::concat(c.args.at(0), static_cast<int>(normalize_axis(axis.at(0), c.args.at(0).at(0).shape().rank(), c.where)));
       }},
      {"Stack",
       [](C c) {
         const auto axis = c.axes("axis").value_or(std::vector<std::int64_t>{0});
         std::vector<Output> expanded;
         for (const Output& x : c.args.at(0)) expanded.push_back(expand_dims(x, axis.at(0), c.where));
         const auto rank = expanded.at(0).shape().rank();
         return ops::concat(expanded, static_cast<int>(normalize_axis(axis.at(0), rank, c.where)));
       }},
      {"Relu", [](C c) { return activations::apply("relu", c.arg(0)); }},
      {"Relu6", [](C c) { return activations::relu6(c.arg(0)); }},
      {"Sigmoid", [](C c) { return activations::apply("sigmoid", c.arg(0)); }},
      {"Silu", [](C c) { return activations::apply("silu", c.arg(0)); }},
      {"Gelu", [](C c) { return activations::gelu(c.arg(0), !c.has("approximate") || c.flag("approximate")); }},
      {"Softmax",
       [](C c) {
         return activations::softmax_over(c.arg(0), c.axes("axis").value_or(std::vector<std::int64_t>{-1}));
       }},
  };
  static const bool merged = [] {
    for (const auto* more : {&more_ops(), &math_ops(), &array_ops(), &product_ops(), &reduction_ops(), &nn_ops(),
                              &conv_ops(), &image_ops(), &attention_ops(), &special_ops(), &segment_ops(),
                               &linalg_ops(), &decomposition_ops(), &update_ops(), &signal_ops(),
                               &image_quality_ops(), &patch_ops(), &bin_ops(), &grid_ops(), &ctc_ops(),
                               &einops_ops()})
      for (const auto& entry : *more) t.emplace(entry.first, entry.second);
    return true;
  }();
  (void)merged;
  return t;
}

}  // namespace
}  // namespace op_detail

std::vector<std::string> supported_ops() {
  std::vector<std::string> out{"GetItem"};  // computed by OpLayerImpl::get_item
  for (const auto& [name, fn] : op_detail::table()) out.push_back(name);
  for (const auto& [name, fn] : op_detail::multi_output_ops()) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

std::string keras_module_of(const std::string& op) {
  static const std::set<std::string> nn = {
      "Celu",       "Elu",        "Gelu",    "Glu",        "HardShrink",    "HardSigmoid", "HardSilu", "HardTanh",
      "LeakyRelu",  "LogSigmoid", "LogSoftmax", "Relu",    "Relu6",         "Selu",        "Sigmoid",  "Silu",
      "Softmax",    "Softplus",   "Softsign",   "SoftShrink", "Sparsemax",   "SparsePlus",  "SparseSigmoid",
      "Squareplus", "TanhShrink", "OneHot",     "MultiHot",   "Threshold", "Moments",       "Normalize",
      "RMSNorm",    "LayerNorm",  "BatchNorm", "BinaryCrossentropy", "CategoricalCrossentropy",
      "SparseCategoricalCrossentropy", "DepthToSpace", "SpaceToDepth", "MaxPool", "AveragePool", "Conv",
      "DepthwiseConv", "SeparableConv", "AdaptiveAveragePool", "AdaptiveMaxPool", "DotProductAttention",
      "PSNR",       "Unfold",     "Fold",       "CTCLoss",    "CTCDecode", "Polar", "ConvTranspose"};
  static const std::set<std::string> core = {"Cast", "StopGradient", "Slice", "Unstack", "ConvertToTensor",
                                             "SaturateCast", "SliceUpdate", "Scatter", "ScatterUpdate"};
  static const std::set<std::string> math = {"Erf",  "Erfc",  "Erfinv", "Rsqrt",      "Logsumexp",  "TopK",
                                             "InTopK", "SegmentSum", "SegmentMax", "SegmentMin", "SegmentProd", "RFFT",
                                             "IRFFT", "FFT",   "FFT2",   "IFFT2",      "STFT",       "ISTFT",
                                             "ExtractSequences", "CDist", "ViewAsReal", "ViewAsComplex"};
  static const std::set<std::string> image = {"RGBToGrayscale", "RGBToHSV",   "HSVToRGB",
                                              "PadImages",      "CropImages", "Resize",
                                              "AffineTransform", "ExtractPatches", "GaussianBlur",
                                              "SobelEdges",     "SSIM",       "PerspectiveTransform",
                                              "ScaleAndTranslate", "MapCoordinates", "ElasticTransform"};
  if (nn.count(op)) return "keras.src.ops.nn";
  if (image.count(op)) return "keras.src.ops.image";
  static const std::set<std::string> linalg = {"Norm", "Inv", "Det", "Solve", "SolveTriangular", "Cholesky",
                                               "CholeskyInverse", "Qr", "SVD", "Eigh", "Pinv", "MatrixRank", "Lstsq",
                                               "LuFactor", "Eig"};
  if (linalg.count(op)) return "keras.src.ops.linalg";
  if (op == "Logdet") return "keras.src.ops.math";
  if (op == "Rearrange") return "keras.src.ops.einops";
  if (core.count(op)) return "keras.src.ops.core";
  if (math.count(op)) return "keras.src.ops.math";
  return "keras.src.ops.numpy";
}

bool is_supported_op(const std::string& op) {
  return op == "GetItem" || op_detail::table().count(op) > 0 || op_detail::multi_output_ops().count(op) > 0;
}

bool accepts_call_kwarg(const std::string& op, const std::string& key) {
  if (op == "Rearrange") return true;  // the lengths of its pattern's axes, each by the axis's name
  return (op == "Pad" && key == "constant_values") || (op == "RMSNorm" && key == "scale") ||
         (op == "Average" && key == "weights") ||
         (op == "DotProductAttention" && (key == "bias" || key == "mask" || key == "scale"));
}

std::string OpLayerImpl::data_parallel_refusal() const {
  const auto it = attributes.find("synchronized");
  if (it == attributes.end() || !std::holds_alternative<bool>(it->second) || !std::get<bool>(it->second)) return {};
  return "synchronized=True (the moments all-reduced over the processes) is not supported: each process would "
         "compute its own share's";
}

OpLayerImpl::OpLayerImpl(std::string op, std::string module_, std::vector<OpArgument> arguments_,
                         OpAttributes attributes_, std::string name, OpAttributes call_kwargs_,
                         OpNestedLists nested_attributes_)
    : LayerImpl(op, std::move(name)),
      module(std::move(module_)),
      arguments(std::move(arguments_)),
      attributes(std::move(attributes_)),
      call_kwargs(std::move(call_kwargs_)),
      nested_attributes(std::move(nested_attributes_)) {
  if (!is_supported_op(op)) {
    std::string known;
    for (const auto& n : supported_ops()) known += (known.empty() ? "" : ", ") + n;
    throw NotImplementedError("operation '" + op + "' (" + module + ") of layer '" + this->name +
                              "' is not supported; supported operations: " + known);
  }
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const OpArgument& a = arguments[i];
    if (a.kind != OpArgument::Kind::array) {
      constants_.emplace_back();
      continue;
    }
    std::vector<float> values(a.values.begin(), a.values.end());
    constants_.emplace_back(this->name + "/constant_" + std::to_string(i),
                            Tensor::from_vector(Shape(a.shape), values), /*trainable=*/false);
  }
}

void OpLayerImpl::build(const std::vector<TensorSpec>& inputs) {
  if (class_name() != "GetItem") return;
  const std::string where = "GetItem '" + name + "'";
  if (arguments.size() != 2 || arguments[1].kind != OpArgument::Kind::index || inputs.empty())
    throw ValueError(where + ": expects a tensor and an index");
  const Shape& in = inputs[0].shape;
  const auto rank = static_cast<std::size_t>(in.rank());
  // The key with its ellipsis (or the end) spelled out as ':' for every axis not indexed.
  using K = IndexEntry::Kind;
  std::size_t indexing = 0, ellipses = 0;
  for (const IndexEntry& e : arguments[1].key) {
    indexing += e.kind == K::integer || e.kind == K::slice;
    ellipses += e.kind == K::ellipsis;
  }
  if (ellipses > 1) throw ValueError(where + ": an index can only have a single ellipsis ('...')");
  if (indexing > rank)
    throw ValueError(where + ": " + std::to_string(indexing) + " indices for input " + in.to_string());
  std::vector<IndexEntry> key;
  for (const IndexEntry& e : arguments[1].key) {
    if (e.kind != K::ellipsis) key.push_back(e);
    else key.insert(key.end(), rank - indexing, IndexEntry{});
  }
  if (ellipses == 0) key.insert(key.end(), rank - indexing, IndexEntry{});
  selections_.clear();
  kept_shape_.clear();
  std::size_t a = 0;  // the input axis the next entry indexes
  for (const IndexEntry& e : key) {
    if (e.kind == K::new_axis) {
      kept_shape_.push_back(1);
      continue;
    }
    const std::int64_t size = in.dims()[a];
    const bool whole = e.kind == K::slice && !e.start && !e.stop && (!e.step || *e.step == 1);
    if (whole) {
      kept_shape_.push_back(a == 0 ? -1 : size);
      ++a;
      continue;
    }
    if (size == kUnknownDim) {
      throw NotImplementedError(where + ": indexing axis " + std::to_string(a) + " of " + in.to_string() +
                                " needs its size; only ':' is supported on the batch axis");
    }
    std::vector<std::int64_t> picked;
    if (e.kind == K::integer) {
      const std::int64_t i = e.index < 0 ? e.index + size : e.index;
      if (i < 0 || i >= size)
        throw ValueError(where + ": index " + std::to_string(e.index) + " is out of range for axis " +
                         std::to_string(a) + " of " + in.to_string());
      picked.push_back(i);
    } else {
      // Python's slice semantics (slice.indices).
      const std::int64_t step = e.step.value_or(1);
      if (step == 0) throw ValueError(where + ": slice step cannot be zero");
      auto clamp = [&](std::optional<std::int64_t> v, std::int64_t fallback) {
        if (!v) return fallback;
        std::int64_t x = *v < 0 ? *v + size : *v;
        return step > 0 ? std::clamp<std::int64_t>(x, 0, size) : std::clamp<std::int64_t>(x, -1, size - 1);
      };
      const std::int64_t start = clamp(e.start, step > 0 ? 0 : size - 1);
      const std::int64_t stop = clamp(e.stop, step > 0 ? size : -1);
      for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) picked.push_back(i);
      kept_shape_.push_back(static_cast<std::int64_t>(picked.size()));
    }
    AxisSelection sel;
    sel.axis = static_cast<std::int64_t>(a);
    bool contiguous = !picked.empty();
    for (std::size_t i = 1; i < picked.size(); ++i) contiguous &= picked[i] == picked[i - 1] + 1;
    if (contiguous) {
      sel.begin = picked.front();
      sel.end = picked.back() + 1;
    } else {
      std::vector<float> m(static_cast<std::size_t>(size) * picked.size(), 0.f);
      for (std::size_t j = 0; j < picked.size(); ++j) m[picked[j] * picked.size() + j] = 1.f;
      sel.matrix = Variable(name + "/select_" + std::to_string(a),
                            Tensor::from_vector(Shape{size, static_cast<std::int64_t>(picked.size())}, m),
                            /*trainable=*/false);
    }
    selections_.push_back(sel);
    ++a;
  }
}

Output OpLayerImpl::get_item(Graph& graph, Output x) const {
  const std::size_t rank = x.shape().rank();
  for (const AxisSelection& sel : selections_) {
    const auto a = static_cast<std::size_t>(sel.axis);
    if (!sel.matrix.defined()) {
      std::vector<std::int64_t> before(rank, 0), after(rank, 0);
      before[a] = sel.begin;
      after[a] = x.shape().dims()[a] - sel.end;
      x = ops::crop(x, before, after);
      continue;
    }
    // Move the axis last, pick with the 0/1 matrix, move it back.
    std::vector<std::int64_t> perm;
    for (std::size_t i = 0; i < rank; ++i)
      if (i != a) perm.push_back(static_cast<std::int64_t>(i));
    perm.push_back(sel.axis);
    std::vector<std::int64_t> back(rank);
    for (std::size_t i = 0; i < rank; ++i) back[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
    x = ops::transpose(ops::matmul(ops::transpose(x, perm), graph.variable(sel.matrix)), back);
  }
  return ops::reshape(x, kept_shape_);
}

std::size_t OpLayerImpl::num_inputs() const {
  std::size_t n = 0;
  for (const auto& a : arguments) {
    if (a.kind == OpArgument::Kind::tensor) n += 1;
    if (a.kind == OpArgument::Kind::tensor_list) n += static_cast<std::size_t>(a.count);
  }
  return n;
}

std::vector<Output> OpLayerImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  op_detail::OpCall c{graph, {}, arguments, attributes, call_kwargs, nested_attributes,
                      class_name() + " '" + name + "'"};
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const OpArgument& a = arguments[i];
    switch (a.kind) {
      case OpArgument::Kind::tensor:
        c.args.push_back({inputs.at(static_cast<std::size_t>(a.first_input))});
        break;
      case OpArgument::Kind::tensor_list:
        c.args.emplace_back(inputs.begin() + a.first_input, inputs.begin() + a.first_input + a.count);
        break;
      case OpArgument::Kind::number:
        c.args.push_back({ops::constant(graph, static_cast<float>(a.number))});
        break;
      case OpArgument::Kind::array:
        c.args.push_back({graph.variable(constants_[i])});
        break;
      case OpArgument::Kind::index:
      case OpArgument::Kind::integers:
      case OpArgument::Kind::none:
      case OpArgument::Kind::text:
        c.args.emplace_back();  // read from `arguments` (GetItem's key, Slice's starts, a pattern); None: no tensor
        break;
    }
  }
  if (class_name() == "GetItem") return {get_item(graph, c.arg(0))};
  const auto& multi = op_detail::multi_output_ops();
  if (auto it = multi.find(class_name()); it != multi.end()) return it->second(c);
  return {op_detail::table().at(class_name())(c)};
}

OpLayer::OpLayer(std::string op, std::string module, std::vector<OpArgument> arguments,
                 OpAttributes attributes, std::string name, OpAttributes call_kwargs, OpNestedLists nested_attributes)
    : Layer(std::make_shared<OpLayerImpl>(std::move(op), std::move(module), std::move(arguments),
                                          std::move(attributes), std::move(name), std::move(call_kwargs),
                                          std::move(nested_attributes))) {}

}  // namespace strata::layers
