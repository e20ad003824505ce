// Every op's CUDA kernel against its CPU kernel: the same inputs (random values; shapes
// that broadcast, empty tensors, sizes that are no multiple of a block) through both,
// outputs equal within the op's tolerance. The table below must hold a case for every op
// that has a CUDA kernel: that is checked in every build, GPU or not, and so are the
// cases themselves (they run on the CPU everywhere). Running the CUDA kernels needs a
// GPU: without one those tests skip, saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/clahe_rule.h"
#include "core/collective.h"
#include "core/device.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/collective_ops.h"
#include "core/ops/conv_ops.h"
#include "core/resize_weights.h"
#include "core_test_util.h"
#include "rnn_configurations.h"

#ifdef STRATA_WITH_CUDA
#include <cuda_runtime_api.h>

#include "core/cuda/check.h"
#include "core/cuda/dense_epilogue.h"
#include "core/cuda/run_context.h"
#endif
#ifdef STRATA_WITH_CUDNN
#include "core/cuda/cudnn_check.h"
#include "core/cuda/cudnn_conv_plan_cache.h"
#include "core/cuda/cudnn_rnn.h"
#endif

using namespace strata;
using namespace strata::testing;

namespace cuda_kernels_test {

namespace {

// What an integer output holds before a kernel writes it: no case's value.
constexpr std::int32_t kUnwritten = -999999;

constexpr const char* kNoGpu = "no CUDA device on this machine: the CUDA kernels are compiled, not run";

// --- the table ------------------------------------------------------------------------

struct KernelCase {
  std::string label;
  std::vector<Tensor> inputs;
  Attrs attrs = {};
  // The run's mode, for the ops that read it (dropout).
  bool training = false;
  std::int64_t step = 0;
  std::int64_t sample_offset = 0;
  // The run's communicator, for the all-reduce ops.
  Collective* collective = nullptr;
};

struct OpCases {
  // |cuda - cpu| <= tolerance * (1 + |cpu|) elementwise; 0 asks for equal values (IEEE
  // arithmetic and comparisons give the same bits on both devices).
  float tolerance = 0.f;
  std::vector<KernelCase> cases;
  // The op's CUDA kernel is written on cuDNN: a CUDA build without cuDNN has none.
  bool cudnn = false;
};

// Multiples of 0.5 in [-2, 2]: ties and zeros, for comparisons, maximum and relu.
Tensor coarse(Shape shape, std::uint64_t seed) {
  Tensor t = uniform(std::move(shape), -2.f, 2.f, seed);
  for (float& v : t.values<float>()) v = std::round(v * 2.f) / 2.f;
  return t;
}

struct ShapePair {
  std::string label;
  Shape a, b;
};

// Operand shapes for the binary ops: every path of the CPU and CUDA kernels.
std::vector<ShapePair> binary_shapes() {
  return {{"same shape 37x19", {37, 19}, {37, 19}},
          {"same shape over many blocks 1000x33", {1000, 33}, {1000, 33}},
          {"scalar b", {13, 7}, {}},
          {"scalar a", {}, {5, 3}},
          {"one-element b (1,1)", {4, 6}, {1, 1}},
          {"both scalars", {}, {}},
          {"bias row", {6, 10}, {10}},
          {"bias row over many blocks", {300, 257}, {257}},
          {"column", {6, 1}, {6, 10}},
          {"outer", {5, 1}, {1, 7}},
          {"3-D, both broadcast", {2, 1, 4}, {3, 1}},
          {"4-D, ranks differ", {4, 1, 3, 1}, {2, 1, 5}},
          {"empty", {0, 5}, {5}},
          {"both empty", {0}, {0}},
          {"empty, broadcast", {3, 0}, {1, 0}}};
}

using Generator = std::function<Tensor(Shape, std::uint64_t)>;

Tensor in_range(Shape shape, float lo, float hi, std::uint64_t seed) { return uniform(std::move(shape), lo, hi, seed); }

// Multiples of 1/8 in [-2, 2]: products of two are multiples of 1/64 and their sums (a few
// hundred terms) exact in float32 on both devices when each multiplies and adds them
// directly (not cuDNN's Winograd or FFT: the conv case below has stride 2), so an output
// rounded to bfloat16 (a node's output_rounding) rounds the same value on both: equal bits.
Tensor eighths(Shape shape, std::uint64_t seed) {
  Tensor t = uniform(std::move(shape), -2.f, 2.f, seed);
  float* v = t.data<float>();
  for (std::int64_t i = 0; i < t.size(); ++i) v[i] = std::round(v[i] * 8.f) / 8.f;
  return t;
}

// The attrs of a product whose kernel rounds its output to bfloat16 (core/graph.h).
Attrs rounding_to_bfloat16(Attrs attrs) {
  attrs.set("output_rounding", std::string("bfloat16"));
  return attrs;
}

OpCases binary_cases(float tolerance, const Generator& a, const Generator& b) {
  OpCases op{tolerance, {}};
  std::uint64_t seed = 1;
  for (const ShapePair& s : binary_shapes()) {
    op.cases.push_back({s.label, {a(s.a, seed), b(s.b, seed + 1)}});
    seed += 2;
  }
  return op;
}

// Integers of `dtype`: for kind "bits" every bit pattern (the type's extremes, -1 and 0
// first), for "shifts" shifts in [-3, bits + 5] (0, bits - 1 and bits first), for "small"
// values in [-60, 60] (0 and the type's lowest first: gcd's and lcm's edges).
Tensor integers(Shape shape, DType dtype, const std::string& kind, std::uint64_t seed) {
  Tensor t(std::move(shape), dtype);
  if (NamesOnly::active()) return t;
  const Philox rng(seed, 7);
  const bool wide = dtype == DType::int64;
  const std::int64_t bits = wide ? 64 : 32;
  const std::int64_t lowest = wide ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int32_t>::min();
  const std::int64_t highest = wide ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int32_t>::max();
  std::vector<std::int64_t> first;
  if (kind == "bits") first = {lowest, highest, -1, 0};
  if (kind == "shifts") first = {0, bits - 1, bits, -1};
  if (kind == "small") first = {0, lowest, 12, -18};
  for (std::int64_t i = 0; i < t.size(); ++i) {
    const auto w = rng.bits(static_cast<std::uint64_t>(i));
    std::int64_t v = static_cast<std::int64_t>((std::uint64_t{w[0]} << 32) | w[1]);
    if (kind == "shifts") v = -3 + static_cast<std::int64_t>(w[0] % static_cast<std::uint32_t>(bits + 9));
    if (kind == "small") v = -60 + static_cast<std::int64_t>(w[0] % 121u);
    if (i < static_cast<std::int64_t>(first.size())) v = first[static_cast<std::size_t>(i)];
    if (v == kUnwritten) v = 1;
    if (wide) t.data<std::int64_t>()[i] = v;
    else t.data<std::int32_t>()[i] = static_cast<std::int32_t>(v);
  }
  return t;
}

// The integer ops over binary_shapes() in int32 and int64: x of `kind_a`, y of `kind_b`.
OpCases integer_cases(const std::string& kind_a, const std::string& kind_b) {
  OpCases op{0.f, {}};
  std::uint64_t seed = 4100;
  for (DType dtype : {DType::int32, DType::int64}) {
    for (const ShapePair& s : binary_shapes()) {
      op.cases.push_back({to_string(dtype) + ", " + s.label,
                          {integers(s.a, dtype, kind_a, seed), integers(s.b, dtype, kind_b, seed + 1)}});
      seed += 2;
    }
  }
  return op;
}

OpCases bitwise_not_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 4200;
  for (DType dtype : {DType::int32, DType::int64}) {
    for (const Shape& s : std::vector<Shape>{{257}, {1000, 33}, {}, {0}}) {
      op.cases.push_back({to_string(dtype) + ", shape " + s.to_string(), {integers(s, dtype, "bits", seed++)}});
    }
  }
  return op;
}

OpCases unary_cases(float tolerance, const Generator& x) {
  OpCases op{tolerance, {}};
  std::uint64_t seed = 100;
  for (const Shape& s : std::vector<Shape>{{257}, {1000, 33}, {3, 4, 5}, {}, {1}, {0}, {4, 0}}) {
    op.cases.push_back({"shape " + s.to_string(), {x(s, seed++)}});
  }
  return op;
}

Attrs transposes(bool a, bool b) { return Attrs{{"transpose_a", a}, {"transpose_b", b}}; }

OpCases matmul_cases() {
  struct M {
    std::string label;
    Shape a, b;
    bool ta, tb;
  };
  const std::vector<M> ms = {{"7x5 . 5x3", {7, 5}, {5, 3}, false, false},
                             {"transposed a", {5, 7}, {5, 3}, true, false},
                             {"transposed b", {7, 5}, {3, 5}, false, true},
                             {"both transposed", {5, 7}, {3, 5}, true, true},
                             {"130x300 . 300x67", {130, 300}, {300, 67}, false, false},
                             {"1x1 . 1x1", {1, 1}, {1, 1}, false, false},
                             {"3-D a, rows flattened", {2, 3, 40}, {40, 9}, false, false},
                             {"3-D a transposed", {2, 3, 4}, {6, 5}, true, false},
                             {"3-D b transposed", {6, 4}, {2, 3, 4}, false, true},
                             {"empty sum k=0 gives zeros", {3, 0}, {0, 4}, false, false},
                             {"no rows", {0, 5}, {5, 3}, false, false},
                             {"no columns", {4, 5}, {5, 0}, false, false}};
  OpCases op{1e-4f, {}};
  std::uint64_t seed = 200;
  for (const M& m : ms) {
    op.cases.push_back({m.label, {in_range(m.a, -1, 1, seed), in_range(m.b, -1, 1, seed + 1)}, transposes(m.ta, m.tb)});
    seed += 2;
  }
  op.cases.push_back({"output rounded to bfloat16, both transposed",
                      {eighths({60, 40}, seed), eighths({30, 60}, seed + 1)},
                      rounding_to_bfloat16(transposes(true, true))});
  return op;
}

// dense_int8: kernels of int8 values (integers in [-127, 127] as floats), bias and relu, a
// depth past float32's exact sums; equal values on both devices (integer sums, the same
// float operations after). Rows of NaN or infinities (NaN outputs, DenseInt8.* on the CPU)
// are left out: NaN is what marks an element no kernel wrote here.
OpCases dense_int8_cases() {
  struct D {
    std::string label;
    Shape x;
    std::int64_t units;
    bool bias, relu;
  };
  const std::vector<D> ds = {{"plain", {5, 7}, 3, false, false},
                             {"bias", {5, 7}, 3, true, false},
                             {"bias and relu", {300, 40}, 33, true, true},
                             {"3-D input, relu", {2, 3, 9}, 4, false, true},
                             {"deeper than float32's exact sums", {3, 2000}, 5, true, false},
                             {"no rows", {0, 7}, 3, true, true},
                             {"no inputs", {4, 0}, 3, true, false}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 900;
  for (const D& d : ds) {
    Tensor x = in_range(d.x, -3, 3, seed);
    Tensor kernel = in_range({d.x.dims().back(), d.units}, -127, 127, seed + 1);
    for (std::int64_t i = 0; i < kernel.size(); ++i) kernel.data<float>()[i] = std::nearbyint(kernel.data<float>()[i]);
    KernelCase c{d.label, {x, kernel, in_range({d.units}, 0.01f, 2, seed + 2)}};
    if (d.bias) c.inputs.push_back(in_range({d.units}, -1, 1, seed + 3));
    if (d.relu) c.attrs.set("activation", std::string("relu"));
    op.cases.push_back(std::move(c));
    seed += 4;
  }
  return op;
}

OpCases dense_cases() {
  struct D {
    std::string label;
    Shape x;
    std::int64_t units;
    bool bias, relu;
  };
  const std::vector<D> ds = {{"bias", {5, 7}, 3, true, false},
                             {"bias and relu", {5, 7}, 3, true, true},
                             {"no bias", {4, 6}, 2, false, false},
                             {"relu, no bias", {4, 6}, 2, false, true},
                             {"3-D input, bias and relu", {2, 3, 7}, 4, true, true},
                             {"256x300 . 300x129, bias and relu", {256, 300}, 129, true, true},
                             {"no rows", {0, 7}, 3, true, true},
                             {"no inputs: bias alone", {4, 0}, 3, true, true}};
  OpCases op{1e-4f, {}};
  std::uint64_t seed = 300;
  for (const D& d : ds) {
    KernelCase c{d.label, {in_range(d.x, -1, 1, seed), in_range({d.x.dims().back(), d.units}, -1, 1, seed + 1)}};
    if (d.bias) c.inputs.push_back(in_range({d.units}, -1, 1, seed + 2));
    if (d.relu) c.attrs.set("activation", std::string("relu"));
    op.cases.push_back(std::move(c));
    seed += 3;
  }
  for (const Shape& x : {Shape{40, 70}, Shape{1, 70}}) {  // the product, and the matrix-vector one
    KernelCase c{"output rounded to bfloat16, bias and relu, " + x.to_string(),
                 {eighths(x, seed), eighths({70, 33}, seed + 1), eighths({33}, seed + 2)}};
    c.attrs = rounding_to_bfloat16(Attrs{{"activation", std::string("relu")}});
    op.cases.push_back(std::move(c));
    seed += 3;
  }
  // Neither bias nor relu: the product then the rounding pass, without cuBLASLt's epilogue.
  op.cases.push_back({"output rounded to bfloat16, no bias", {eighths({40, 70}, seed), eighths({70, 33}, seed + 1)},
                      rounding_to_bfloat16({})});
  return op;
}

OpCases reduce_cases(float tolerance) {
  struct R {
    Shape shape;
    std::vector<std::int64_t> axes;
    bool keepdims;
  };
  const std::vector<R> rs = {{{37, 19}, {}, false},      {{37, 19}, {0}, false},     {{37, 19}, {1}, true},
                             {{37, 19}, {-1}, false},    {{4, 5, 6}, {0, 2}, false}, {{4, 5, 6}, {1}, true},
                             {{2, 3, 4, 5}, {1, 2}, true}, {{300, 70}, {}, false},    {{3, 1000}, {1}, false},
                             {{1000, 3}, {0}, true},     {{}, {}, false},            {{0, 5}, {0}, false},
                             {{3, 0}, {1}, true},        {{0, 5}, {1}, false}};
  OpCases op{tolerance, {}};
  std::uint64_t seed = 400;
  for (const R& r : rs) {
    std::string axes;
    for (std::int64_t a : r.axes) axes += (axes.empty() ? "" : ",") + std::to_string(a);
    op.cases.push_back({r.shape.to_string() + " over axes [" + axes + "]" + (r.keepdims ? " keepdims" : ""),
                        {in_range(r.shape, -1, 1, seed++)},
                        Attrs{{"axes", r.axes}, {"keepdims", r.keepdims}}});
  }
  return op;
}

OpCases select_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 500;
  for (const Shape& s : std::vector<Shape>{{37, 19}, {1000, 33}, {}, {0, 3}}) {
    op.cases.push_back(
        {"shape " + s.to_string(), {coarse(s, seed), in_range(s, -1, 1, seed + 1), in_range(s, -1, 1, seed + 2)}});
    seed += 3;
  }
  return op;
}

Tensor int_scalar(DType dtype, std::int64_t value) {
  return dtype == DType::int64 ? Tensor::from_vector<std::int64_t>(Shape{}, {value})
                               : Tensor::from_vector<std::int32_t>(Shape{}, {static_cast<std::int32_t>(value)});
}

// assign and assign_add: every dtype a variable has, a whole value or a scalar one.
OpCases assign_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 600;
  for (const Shape& s : std::vector<Shape>{{37, 19}, {1000, 33}, {}, {0}}) {
    op.cases.push_back({"float32 " + s.to_string(), {in_range(s, -1, 1, seed), in_range(s, -1, 1, seed + 1)}});
    op.cases.push_back({"float32 " + s.to_string() + ", scalar value",
                        {in_range(s, -1, 1, seed + 2), in_range({}, -1, 1, seed + 3)}});
    seed += 4;
  }
  for (DType dtype : {DType::int64, DType::int32}) {
    op.cases.push_back({"step count " + to_string(dtype), {int_scalar(dtype, 41), int_scalar(dtype, 1)}});
  }
  return op;
}

// The optimizer steps: each variant of each (momentum, nesterov, amsgrad, centered), on
// sizes over many blocks and none. Slots and gradients in ranges their updates keep sane
// (second moments positive). A step's arithmetic is the CPU's, but CUDA's powf and the
// compiler's fused multiply-adds round differently.
OpCases optimizer_cases(const std::string& op_name) {
  OpCases op{1e-5f, {}};
  std::uint64_t seed = 700;
  const auto lr = [&] { return Tensor::scalar(0.01f); };
  for (const Shape& s : std::vector<Shape>{{257}, {1000, 33}, {0}}) {
    const auto w = [&] { return in_range(s, -1, 1, seed++); };
    const auto g = [&] { return in_range(s, -1, 1, seed++); };
    const auto moment = [&] { return in_range(s, 0.01f, 1, seed++); };
    const auto centered = [&] { return in_range(s, -0.1f, 0.1f, seed++); };
    const std::string shape = " " + s.to_string();
    if (op_name == "apply_sgd") {
      op.cases.push_back({"plain" + shape, {w(), g(), lr()}, Attrs{{"momentum", 0.0}, {"nesterov", false}}});
      op.cases.push_back({"momentum" + shape, {w(), g(), g(), lr()}, Attrs{{"momentum", 0.9}, {"nesterov", false}}});
      op.cases.push_back({"nesterov" + shape, {w(), g(), g(), lr()}, Attrs{{"momentum", 0.9}, {"nesterov", true}}});
    } else if (op_name == "apply_adam") {
      for (bool amsgrad : {false, true}) {
        KernelCase c{(amsgrad ? "amsgrad" : "adam") + shape, {w(), g(), moment()},
                     Attrs{{"beta_1", 0.9}, {"beta_2", 0.999}, {"epsilon", 1e-7}, {"amsgrad", amsgrad}}};
        if (amsgrad) c.inputs.push_back(moment());
        c.inputs.insert(c.inputs.end(), {g(), lr(), int_scalar(amsgrad ? DType::int32 : DType::int64, 9)});
        op.cases.push_back(std::move(c));
      }
    } else if (op_name == "apply_rmsprop") {
      for (double momentum : {0.0, 0.9}) {
        for (bool is_centered : {false, true}) {
          KernelCase c{std::string(momentum > 0 ? "momentum" : "plain") + (is_centered ? ", centered" : "") + shape,
                       {w(), moment()},
                       Attrs{{"rho", 0.9}, {"momentum", momentum}, {"centered", is_centered}, {"epsilon", 1e-7}}};
          if (momentum > 0) c.inputs.push_back(g());
          if (is_centered) c.inputs.push_back(centered());
          c.inputs.insert(c.inputs.end(), {g(), lr()});
          op.cases.push_back(std::move(c));
        }
      }
    } else {  // apply_adagrad
      op.cases.push_back({"adagrad" + shape, {w(), moment(), g(), lr()}, Attrs{{"epsilon", 1e-7}}});
    }
  }
  return op;
}

// Whole numbers in [-50, 50] as `dtype`, or floats in [-7.9, 7.9] (casts truncate them).
Tensor numbers(Shape shape, DType dtype, std::uint64_t seed) {
  const float bound = dtype == DType::float32 ? 7.9f : 50.f;
  const Tensor values = in_range(std::move(shape), -bound, bound, seed);
  if (dtype == DType::float32) return values;
  Tensor out(values.shape(), dtype);
  for (std::int64_t i = 0; i < values.size(); ++i) {
    const auto whole = static_cast<std::int64_t>(std::lround(values.item(i)));
    if (dtype == DType::int64) out.data<std::int64_t>()[i] = whole;
    else out.data<std::int32_t>()[i] = static_cast<std::int32_t>(whole);
  }
  return out;
}

OpCases constant_cases() {
  return {0.f, {{"value 2.5", {}, Attrs{{"value", 2.5}}}, {"value -1e-3", {}, Attrs{{"value", -1e-3}}}}};
}

OpCases fill_like_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 800;
  for (const Shape& s : std::vector<Shape>{{257}, {1000, 33}, {}, {0}, {4, 0}}) {
    op.cases.push_back({"ones like " + s.to_string(), {in_range(s, -1, 1, seed++)}, Attrs{{"value", 1.0}}});
  }
  return op;
}

OpCases cast_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 900;
  for (DType from : {DType::float32, DType::int32, DType::int64}) {
    for (DType to : {DType::float32, DType::int32, DType::int64}) {
      if (from == to) continue;
      for (const Shape& s : std::vector<Shape>{{1000, 33}, {}, {0}}) {
        op.cases.push_back({to_string(from) + " to " + to_string(to) + " " + s.to_string(), {numbers(s, from, seed++)},
                            Attrs{{"dtype", to_string(to)}}});
      }
    }
  }
  return op;
}

// expand_to: a reduction's gradient (keepdims or not) spread back; sum and mean.
OpCases expand_to_cases() {
  struct E {
    Shape like;
    std::vector<std::int64_t> axes;
    Shape g;
  };
  const std::vector<E> es = {{{37, 19}, {1}, {37}},        {{37, 19}, {1}, {37, 1}},   {{37, 19}, {}, {}},
                             {{4, 5, 6}, {0, 2}, {5}},     {{4, 5, 6}, {1}, {4, 1, 6}}, {{300, 257}, {0}, {257}},
                             {{0, 5}, {0}, {5}},            {{3, 0}, {1}, {3}}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 1000;
  for (const E& e : es) {
    for (bool mean : {false, true}) {
      std::string axes;
      for (std::int64_t a : e.axes) axes += (axes.empty() ? "" : ",") + std::to_string(a);
      op.cases.push_back({e.g.to_string() + " to " + e.like.to_string() + " over [" + axes + "]" + (mean ? ", mean" : ""),
                          {in_range(e.g, -1, 1, seed), in_range(e.like, -1, 1, seed + 1)},
                          Attrs{{"axes", e.axes}, {"mean", mean}}});
      seed += 2;
    }
  }
  return op;
}

// sum_to_like: a broadcast's gradient summed back to the operand's shape.
OpCases sum_to_like_cases() {
  const std::vector<ShapePair> ps = {{"bias row", {32, 10}, {10}},        {"kept row", {32, 10}, {1, 10}},
                                     {"column", {3, 5}, {3, 1}},           {"3-D", {2, 3, 4}, {3, 1}},
                                     {"nothing to sum", {4, 5}, {4, 5}},   {"to a scalar", {6, 7}, {}},
                                     {"over many blocks", {300, 257}, {257}}, {"sum over nothing", {0, 5}, {5}}};
  OpCases op{1e-4f, {}};
  std::uint64_t seed = 1100;
  for (const ShapePair& p : ps) {
    op.cases.push_back({p.label, {in_range(p.a, -1, 1, seed), in_range(p.b, -1, 1, seed + 1)}});
    seed += 2;
  }
  return op;
}

Attrs axis_attr(std::int64_t axis) { return Attrs{{"axis", axis}}; }

struct LaneCase {
  std::string label;
  Shape shape;
  std::int64_t axis;
};

// Lanes along every kind of axis: a classifier's short rows, rows of a warp and one,
// long rows, strided lanes (first and middle axes), more lanes than one grid holds
// (65536 blocks of 8 warps), and empty tensors.
std::vector<LaneCase> lane_cases() {
  return {{"rows of 3 classes", {8, 3}, -1},
          {"rows of 10", {37, 10}, 1},
          {"rows of 33, a warp and one", {1000, 33}, -1},
          {"rows of 1000", {5, 1000}, -1},
          {"one class", {6, 1}, -1},
          {"rank 1", {257}, 0},
          {"first axis: strided lanes", {37, 19}, 0},
          {"middle axis", {3, 40, 5}, 1},
          {"more lanes than one grid", {530000, 2}, -1},
          {"no rows", {0, 10}, -1},
          {"empty axis", {4, 0}, -1}};
}

// softmax and log_softmax: logits in [-30, 30], and near 1000, where exp overflows unless
// the lane's max is subtracted first.
OpCases softmax_cases(float tolerance) {
  OpCases op{tolerance, {}};
  std::uint64_t seed = 1200;
  for (const LaneCase& l : lane_cases()) {
    op.cases.push_back({l.label, {in_range(l.shape, -30, 30, seed++)}, axis_attr(l.axis)});
  }
  op.cases.push_back({"logits near 1000", {in_range({16, 10}, 990, 1010, seed++)}, axis_attr(-1)});
  return op;
}

std::vector<Tensor> run_on_cpu(const OpDef& def, const KernelCase& c);  // below

// softmax_grad(g, y): y a softmax (the CPU kernel's) of random logits along the axis.
OpCases softmax_grad_cases(float tolerance) {
  const OpDef& softmax = OpRegistry::global().get("softmax");
  OpCases op{tolerance, {}};
  std::uint64_t seed = 1300;
  for (const LaneCase& l : lane_cases()) {
    if (l.shape.num_elements() > 100000) continue;  // the lane-stride loop is softmax's, checked there
    const Tensor y = run_on_cpu(softmax, {"", {in_range(l.shape, -5, 5, seed)}, axis_attr(l.axis)})[0];
    op.cases.push_back({l.label, {in_range(l.shape, -1, 1, seed + 1), y}, axis_attr(l.axis)});
    seed += 2;
  }
  return op;
}

// sparsemax and sparsemax_grad(g, x) along every kind of axis: logits in [-3, 3] (a
// support of a few elements in a long row), and multiples of 0.5, where tied elements
// take their place in the CPU's stable order (the gradient's rank rule tells them apart)
// and sums are exact. The threshold's double sums add in another order on the GPU, its
// float rounding may differ by an ulp: 1e-6 relative.
OpCases sparsemax_cases(bool grad) {
  OpCases op{1e-6f, {}};
  std::uint64_t seed = grad ? 1450 : 1400;
  auto add = [&](const std::string& label, Tensor x, std::int64_t axis) {
    KernelCase c{label, {}, axis_attr(axis)};
    if (grad) c.inputs.push_back(in_range(x.shape(), -1, 1, seed++));
    c.inputs.push_back(std::move(x));
    op.cases.push_back(std::move(c));
  };
  for (const LaneCase& l : lane_cases()) add(l.label, in_range(l.shape, -3, 3, seed++), l.axis);
  add("ties: multiples of 0.5, rows of 12", coarse({40, 12}, seed++), -1);
  add("ties along a middle axis", coarse({3, 9, 4}, seed++), 1);
  add("narrow logits: a support of every element", in_range({16, 7}, -0.05f, 0.05f, seed++), -1);
  return op;
}

// Class labels in [0, classes) as `dtype` (float labels are whole numbers).
Tensor class_labels(Shape shape, std::int64_t classes, DType dtype, std::uint64_t seed) {
  const Tensor u = in_range(std::move(shape), 0, 1, seed);
  Tensor out(u.shape(), dtype);
  for (std::int64_t i = 0; i < u.size(); ++i) {
    const auto c = std::min(classes - 1, static_cast<std::int64_t>(u.item(i) * static_cast<float>(classes)));
    if (dtype == DType::int64) out.data<std::int64_t>()[i] = c;
    else if (dtype == DType::int32) out.data<std::int32_t>()[i] = static_cast<std::int32_t>(c);
    else out.data<float>()[i] = static_cast<float>(c);
  }
  return out;
}

// pick(x, labels) and unpick(g, labels, like): one label per row of every dtype a label
// has; rows over many blocks, a rank-3 x, one row (scalar labels), no rows.
OpCases pick_cases(bool unpick) {
  struct P {
    std::string label;
    Shape x;
    DType dtype;
  };
  const std::vector<P> ps = {{"3 classes, int64 labels", {8, 3}, DType::int64},
                             {"33 classes, 1000 rows, int64", {1000, 33}, DType::int64},
                             {"int32 labels", {37, 10}, DType::int32},
                             {"float labels", {37, 10}, DType::float32},
                             {"rank 3", {2, 3, 5}, DType::int64},
                             {"one row, scalar label", {7}, DType::int64},
                             {"one class", {9, 1}, DType::int32},
                             {"no rows", {0, 4}, DType::int64}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 1400;
  for (const P& p : ps) {
    const std::vector<std::int64_t> rows(p.x.dims().begin(), p.x.dims().end() - 1);
    const Tensor labels = class_labels(Shape(rows), p.x.dims().back(), p.dtype, seed);
    const Tensor x = in_range(p.x, -1, 1, seed + 1);
    if (unpick) {
      op.cases.push_back({p.label, {in_range(Shape(rows), -1, 1, seed + 2), labels, x}});
    } else {
      op.cases.push_back({p.label, {x, labels}});
    }
    seed += 3;
  }
  return op;
}

// argmax: values with ties (the first largest wins), along every kind of axis; an empty
// axis gives 0 for each lane.
OpCases argmax_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 1500;
  for (const LaneCase& l : lane_cases()) {
    op.cases.push_back({l.label + ", ties", {coarse(l.shape, seed++)}, axis_attr(l.axis)});
  }
  op.cases.push_back({"rows of 1000 distinct values", {in_range({5, 1000}, -1, 1, seed++)}, axis_attr(-1)});
  return op;
}

// The scan ops along every kind of axis: one thread per lane walks it in the CPU's order,
// so sums and products are the same bits. Products of factors near 1, so that rows of
// 1000 neither overflow nor vanish. cumprod_grad's g + x·R may contract to a fused
// multiply-add on the device: a tolerance of a few ulps.
OpCases scan_cases(const std::string& op) {
  OpCases cases{op == "cumprod_grad" ? 1e-6f : 0.f, {}};
  std::uint64_t seed = 1600;
  const bool product = op == "cumprod" || op == "cumprod_grad";
  for (const LaneCase& l : lane_cases()) {
    Tensor x = product ? in_range(l.shape, 0.98f, 1.02f, seed++) : in_range(l.shape, -2, 2, seed++);
    std::vector<Tensor> inputs{x};
    if (op == "cumprod_grad") inputs.push_back(in_range(l.shape, -1, 1, seed++));
    Attrs attrs = axis_attr(l.axis);
    if (op == "cumsum") attrs.set("reverse", false);
    cases.cases.push_back({l.label, inputs, attrs});
    if (op == "cumsum") {
      Attrs reversed = axis_attr(l.axis);
      reversed.set("reverse", true);
      cases.cases.push_back({l.label + ", reverse", inputs, reversed});
    }
  }
  return cases;
}

// argsort: values with ties (a stable order on both devices), ascending and descending,
// along every kind of axis; positions, so exactly the CPU's.
OpCases argsort_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 1700;
  for (const LaneCase& l : lane_cases()) {
    const Tensor x = coarse(l.shape, seed++);
    for (bool descending : {false, true}) {
      Attrs attrs = axis_attr(l.axis);
      attrs.set("descending", descending);
      op.cases.push_back({l.label + (descending ? ", ties, descending" : ", ties"), {x}, attrs});
    }
  }
  op.cases.push_back({"rows of 1000 distinct values", {in_range({5, 1000}, -1, 1, seed++)},
                      Attrs{{"axis", std::int64_t{-1}}, {"descending", false}}});
  return op;
}

Attrs dropout_attrs(double rate, std::int64_t seed, std::int64_t stream) {
  return Attrs{{"rate", rate}, {"seed", seed}, {"stream", stream}};
}

// dropout: the CPU's mask bit for bit in training (steps, rates, sizes no multiple of a
// Philox block or of 64, a shard whose first element is not a block's first), and a copy
// outside training or at rate 0.
OpCases dropout_cases() {
  struct D {
    std::string label;
    Shape shape;
    double rate;
    bool training;
    std::int64_t step, sample_offset;
  };
  const std::vector<D> ds = {{"rate 0.5, step 0", {1000, 33}, 0.5, true, 0, 0},
                             {"rate 0.5, step 7, 257 elements", {257}, 0.5, true, 7, 0},
                             {"rate 0.2, rank 3", {3, 5, 7}, 0.2, true, 3, 0},
                             {"rate 0.9", {64, 64}, 0.9, true, 12, 0},
                             {"shard from sample 3 (element 21)", {5, 7}, 0.5, true, 2, 3},
                             {"shard from sample 2 of rows of 10", {6, 10}, 0.3, true, 5, 2},
                             {"scalar", {}, 0.5, true, 1, 0},
                             {"rate 0: a copy", {37, 19}, 0.0, true, 4, 0},
                             {"inference: a copy", {37, 19}, 0.5, false, 4, 0},
                             {"no rows", {0, 5}, 0.5, true, 0, 0}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 1600;
  for (const D& d : ds) {
    KernelCase c{d.label, {in_range(d.shape, -2, 2, seed)}, dropout_attrs(d.rate, 1234 + static_cast<std::int64_t>(seed), 77)};
    c.training = d.training;
    c.step = d.step;
    c.sample_offset = d.sample_offset;
    op.cases.push_back(std::move(c));
    ++seed;
  }
  return op;
}

// random_normal_like: the CPU's draws (steps, sizes no multiple of the CPU's 16 blocks at
// a time, a shard whose first element is not a multiple of 16, a scalar, an empty batch),
// in either mode. Both devices compute Box-Muller in double and round once to float;
// CUDA's double log and cos are within two ulps of glibc's, which can move a draw by one
// float rounding (|z| < 5.8: at most 4.8e-7).
OpCases random_normal_cases() {
  struct D {
    std::string label;
    Shape shape;
    bool training;
    std::int64_t step, sample_offset;
  };
  const std::vector<D> ds = {{"step 0 over many blocks", {1000, 33}, true, 0, 0},
                             {"step 7, 257 elements", {257}, true, 7, 0},
                             {"rank 3", {3, 5, 7}, true, 3, 0},
                             {"shard from sample 3 (element 21)", {5, 7}, true, 2, 3},
                             {"scalar", {}, true, 1, 0},
                             {"inference draws as well", {37, 19}, false, 4, 0},
                             {"no rows", {0, 5}, true, 0, 0}};
  OpCases op{1e-6f, {}};
  std::uint64_t seed = 1700;
  for (const D& d : ds) {
    KernelCase c{d.label, {in_range(d.shape, -2, 2, seed)},
                 Attrs{{"seed", 4321 + static_cast<std::int64_t>(seed)}, {"stream", std::int64_t{78}}}};
    c.training = d.training;
    c.step = d.step;
    c.sample_offset = d.sample_offset;
    op.cases.push_back(std::move(c));
    ++seed;
  }
  return op;
}

// random_uniform_rows: the CPU's draws bit for bit (a uniform is exact in float): rows
// per sample and the batch's one row, steps, a shard from a sample offset, an empty batch.
OpCases random_uniform_cases() {
  struct D {
    std::string label;
    Shape like;
    std::int64_t columns;
    bool per_sample;
    std::int64_t step, sample_offset;
  };
  const std::vector<D> ds = {{"per sample, 2 columns", {300, 4, 4, 3}, 2, true, 0, 0},
                             {"per sample, step 7, 1 column", {257, 3}, 1, true, 7, 0},
                             {"shard from sample 3", {5, 7}, 3, true, 2, 3},
                             {"one row for the batch, a shard", {6, 2}, 2, false, 4, 5},
                             {"no rows", {0, 5}, 2, true, 0, 0}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 2900;
  for (const D& d : ds) {
    KernelCase c{d.label, {in_range(d.like, -2, 2, seed)},
                 Attrs{{"seed", 4321 + static_cast<std::int64_t>(seed)}, {"stream", std::int64_t{79}},
                       {"columns", d.columns}, {"per_sample", d.per_sample}}};
    c.training = true;
    c.step = d.step;
    c.sample_offset = d.sample_offset;
    op.cases.push_back(std::move(c));
    ++seed;
  }
  return op;
}

// image_affine_transform: every fill mode and interpolation over turned, zoomed and
// projective rows (points far outside the image, on its edges, between pixels), one row
// for the batch, an output of its own size, an empty batch. The same float arithmetic on
// both devices (core/affine_sample.h), but CUDA may contract a multiply and an add into
// one FMA where GCC does not, which moves a sample point by an ulp.
OpCases affine_transform_cases() {
  OpCases op{1e-5f, {}};
  const Tensor rows = Tensor::from_vector<float>(
      {3, 8}, {0.8f, -0.6f, 1.9f, 0.6f, 0.8f, -1.2f, 0.f, 0.f, 1.9f, 0.3f, -4.1f, -0.2f, 2.3f, -3.3f, 0.f, 0.f,
               1.1f, 0.2f, -0.7f, -0.1f, 0.9f, 0.4f, 0.05f, -0.03f});
  std::uint64_t seed = 3000;
  std::int64_t fill = 0;
  for (const char* mode : {"reflect", "wrap", "constant", "nearest"}) {
    for (bool bilinear : {true, false}) {
      const Attrs attrs{{"bilinear", bilinear}, {"fill_mode", fill}, {"fill_value", 0.5},
                        {"out_height", std::int64_t{0}}, {"out_width", std::int64_t{0}}};
      op.cases.push_back({std::string(mode) + (bilinear ? " bilinear" : " nearest") + ", (3, 9, 11, 3)",
                          {in_range({3, 9, 11, 3}, -2, 2, seed++), rows}, attrs});
    }
    ++fill;
  }
  const Tensor one_row = Tensor::from_vector<float>({1, 8}, {1.f, 0.f, 2.f, 0.f, 1.f, 1.f, 0.f, 0.f});
  op.cases.push_back({"one row for two images, a (4, 5) window",
                      {in_range({2, 20, 33, 2}, -2, 2, seed++), one_row},
                      Attrs{{"bilinear", false}, {"fill_mode", std::int64_t{2}}, {"fill_value", 0.0},
                            {"out_height", std::int64_t{4}}, {"out_width", std::int64_t{5}}}});
  op.cases.push_back({"no images", {in_range({0, 4, 4, 1}, -2, 2, seed++), one_row},
                      Attrs{{"bilinear", true}, {"fill_mode", std::int64_t{0}}, {"fill_value", 0.0},
                            {"out_height", std::int64_t{0}}, {"out_width", std::int64_t{0}}}});
  return op;
}

// clahe_tables and clahe_interpolate: whole tiles and padded ones, clipping on and off,
// pixels outside [0, 255], an empty batch. The same float arithmetic in the same order on
// both devices (core/clahe_rule.h), but CUDA may contract a multiply and an add into one
// FMA where GCC does not: a table entry or a blend may move by an ulp.
OpCases clahe_cases(bool tables) {
  OpCases op{1e-5f, {}};
  struct Geometry {
    const char* label;
    Shape images;
    std::int64_t grid_h, grid_w;
    double clip_limit;
  };
  const Geometry shapes[] = {{"(2, 16, 16, 3), 8 x 8 tiles, clip 4", Shape({2, 16, 16, 3}), 8, 8, 4.0},
                             {"(1, 10, 7, 2), 3 x 2 padded tiles, clip 2.5", Shape({1, 10, 7, 2}), 3, 2, 2.5},
                             {"(2, 9, 11, 1), 2 x 3 padded tiles, no clipping", Shape({2, 9, 11, 1}), 2, 3, 0.0},
                             {"no images", Shape({0, 4, 4, 1}), 2, 2, 4.0}};
  std::uint64_t seed = 3100;
  for (const Geometry& s : shapes) {
    const Tensor images = in_range(s.images, -20, 280, seed++);
    const Attrs attrs{{"grid_h", s.grid_h}, {"grid_w", s.grid_w}, {"clip_limit", s.clip_limit}};
    if (tables) {
      op.cases.push_back({s.label, {images}, attrs});
    } else {
      Shape table_shape({s.images[0], s.grid_h, s.grid_w, s.images[3], kClaheBins});
      op.cases.push_back({s.label, {images, in_range(table_shape, 0, 255, seed++)}});
    }
  }
  return op;
}

// --- convolutions and pooling ---------------------------------------------------------

// Keras's "same" padding of one axis: (before, after), the odd one out after.
std::pair<std::int64_t, std::int64_t> same_pads(std::int64_t size, std::int64_t k, std::int64_t stride,
                                                std::int64_t dilation) {
  const std::int64_t out = (size + stride - 1) / stride;
  const std::int64_t total = std::max<std::int64_t>((out - 1) * stride + (k - 1) * dilation + 1 - size, 0);
  return {total / 2, total - total / 2};
}

struct ConvCase {
  std::string label;
  Shape x;                   // (N, H, W, C)
  std::int64_t kh, kw, o;    // kernel window and output channels
  std::int64_t sh, sw, dh, dw;
  std::string padding;       // "valid", "same", "run_time_same" (ops::kSamePad) or "explicit" (then pads)
  std::vector<std::int64_t> pads;
  std::int64_t groups;
  bool bias, relu;           // conv2d's fused parts (forward cases only)
};

// Strides, dilations, both paddings (Keras's "same" asymmetric where its total is odd),
// groups, odd sizes, a pointwise kernel, and a batch of none.
std::vector<ConvCase> conv_geometries() {
  return {{"3x3 valid", {2, 7, 6, 3}, 3, 3, 4, 1, 1, 1, 1, "valid", {}, 1, false, false},
          {"3x3 same, stride 1 (symmetric pads)", {2, 7, 6, 3}, 3, 3, 4, 1, 1, 1, 1, "same", {}, 1, true, false},
          {"3x3 same, stride 2 on 8x10 (pads 0 top, 1 bottom)", {2, 8, 10, 3}, 3, 3, 5, 2, 2, 1, 1, "same", {}, 1,
           true, true},
          {"2x2 same, stride 1 (the extra row and column after)", {3, 5, 7, 2}, 2, 2, 3, 1, 1, 1, 1, "same", {}, 1,
           false, true},
          {"5x5 same, stride 2 on 9x11", {2, 9, 11, 4}, 5, 5, 6, 2, 2, 1, 1, "same", {}, 1, true, true},
          {"4x3 kernel, strides (2, 1), valid", {2, 9, 8, 3}, 4, 3, 4, 2, 1, 1, 1, "valid", {}, 1, false, false},
          {"3x3 dilation 2, same", {2, 9, 10, 3}, 3, 3, 4, 1, 1, 2, 2, "same", {}, 1, true, false},
          {"dilation (2, 1), stride 2, same", {1, 11, 9, 2}, 3, 3, 3, 2, 2, 2, 1, "same", {}, 1, false, false},
          {"1x1 pointwise", {2, 5, 6, 8}, 1, 1, 7, 1, 1, 1, 1, "valid", {}, 1, true, true},
          {"groups 2", {2, 6, 7, 4}, 3, 3, 6, 1, 1, 1, 1, "same", {}, 2, true, false},
          {"depthwise: groups = channels", {2, 6, 6, 3}, 3, 3, 3, 2, 2, 1, 1, "same", {}, 3, false, false},
          {"explicit pads (2, 0, 1, 3)", {2, 6, 5, 3}, 3, 3, 4, 1, 1, 1, 1, "explicit", {2, 0, 1, 3}, 1, true, false},
          {"explicit pads (0, 2, 3, 1), stride 2", {1, 7, 7, 2}, 3, 2, 3, 2, 2, 1, 1, "explicit", {0, 2, 3, 1}, 1,
           false, true},
          {"one image 28x28x8 to 16, same", {1, 28, 28, 8}, 3, 3, 16, 1, 1, 1, 1, "same", {}, 1, true, true},
          {"no images", {0, 5, 5, 3}, 3, 3, 2, 1, 1, 1, 1, "same", {}, 1, true, false},
          {"3x3 same worked out when run (ops::kSamePad), stride 2 on 9x10", {2, 9, 10, 3}, 3, 3, 4, 2, 2, 1, 1,
           "run_time_same", {}, 1, true, false}};
}

Attrs conv_attrs(const ConvCase& c) {
  std::vector<std::int64_t> pads = c.pads;
  if (c.padding == "valid") pads = {0, 0, 0, 0};
  if (c.padding == "same") {
    auto [t, b] = same_pads(c.x.dims()[1], c.kh, c.sh, c.dh);
    auto [l, r] = same_pads(c.x.dims()[2], c.kw, c.sw, c.dw);
    pads = {t, b, l, r};
  }
  if (c.padding == "run_time_same") pads = std::vector<std::int64_t>(4, ops::kSamePad);  // a spatial dim None
  return Attrs{{"strides", std::vector<std::int64_t>{c.sh, c.sw}},
               {"dilations", std::vector<std::int64_t>{c.dh, c.dw}},
               {"pads", pads},
               {"groups", c.groups}};
}

// conv2d's output shape for a case (the op's own shape inference).
Shape conv_output(const ConvCase& c, const Attrs& attrs) {
  const OpDef& def = OpRegistry::global().get("conv2d");
  const Shape k{c.kh, c.kw, c.x.dims()[3] / c.groups, c.o};
  return def.infer(InferContext{"conv2d", {{c.x, DType::float32}, {k, DType::float32}}, attrs})[0].shape;
}

// One geometry's case of conv2d (with its fused bias and relu where the case asks),
// conv2d_backprop_input or conv2d_backprop_filter, its inputs drawn from `seed` on.
KernelCase conv_case(const std::string& op_name, const ConvCase& c, std::uint64_t seed) {
  Attrs attrs = conv_attrs(c);
  const Shape k{c.kh, c.kw, c.x.dims()[3] / c.groups, c.o};
  const Shape y = conv_output(c, attrs);
  KernelCase kc{c.label, {}, attrs};
  if (op_name == "conv2d") {
    kc.inputs = {in_range(c.x, -1, 1, seed), in_range(k, -1, 1, seed + 1)};
    if (c.bias) kc.inputs.push_back(in_range({c.o}, -1, 1, seed + 2));
    if (c.relu) kc.attrs.set("activation", std::string("relu"));
    kc.label += std::string(c.bias ? ", bias" : "") + (c.relu ? ", relu" : "");
  } else if (op_name == "conv2d_backprop_input") {
    kc.inputs = {in_range(y, -1, 1, seed), in_range(k, -1, 1, seed + 1)};
    kc.attrs.set("input_size", std::vector<std::int64_t>{c.x.dims()[1], c.x.dims()[2]});
  } else {  // conv2d_backprop_filter
    kc.inputs = {in_range(c.x, -1, 1, seed), in_range(y, -1, 1, seed + 1)};
    kc.attrs.set("kernel_size", std::vector<std::int64_t>{c.kh, c.kw});
  }
  return kc;
}

// Every geometry's case of conv2d, conv2d_backprop_input or conv2d_backprop_filter.
// cuDNN sums in its own order (and may use Winograd or FFT algorithms): 1e-4 relative.
OpCases conv_cases(const std::string& op_name) {
  OpCases op{1e-4f, {}, true};
  std::uint64_t seed = 1700;
  for (const ConvCase& c : conv_geometries()) {
    op.cases.push_back(conv_case(op_name, c, seed));
    seed += 3;
  }
  if (op_name == "conv2d") {  // an emulated bfloat16 Conv2D: its output rounded by the kernel
    KernelCase c{"3x3, stride 2, bias and relu, output rounded to bfloat16",
                 {eighths({2, 7, 6, 5}, seed), eighths({3, 3, 5, 8}, seed + 1), eighths({8}, seed + 2)},
                 rounding_to_bfloat16(Attrs{{"strides", std::vector<std::int64_t>{2, 2}},
                                            {"dilations", std::vector<std::int64_t>{1, 1}},
                                            {"pads", std::vector<std::int64_t>{1, 1, 1, 1}},
                                            {"groups", std::int64_t{1}},
                                            {"activation", std::string("relu")}})};
    op.cases.push_back(std::move(c));
  }
  return op;
}

struct Conv3dCase {
  std::string label;
  Shape x;                             // (N, D, H, W, C)
  std::vector<std::int64_t> k;         // (kd, kh, kw)
  std::int64_t o;                      // output channels
  std::vector<std::int64_t> strides, dilations;
  std::string padding;                 // "valid", "same", or "explicit" (then pads)
  std::vector<std::int64_t> pads;      // (front, back, top, bottom, left, right)
  std::int64_t groups;
};

// The paddings of conv2d's table in three dimensions: "same" asymmetric on some axes and
// not others, strides, dilations, groups, explicit pads, a pointwise kernel, no volumes.
std::vector<Conv3dCase> conv3d_geometries() {
  return {{"2x2x2 valid", {2, 4, 5, 6, 3}, {2, 2, 2}, 4, {1, 1, 1}, {1, 1, 1}, "valid", {}, 1},
          {"3x3x3 same, stride 1 (symmetric pads)", {2, 5, 4, 6, 2}, {3, 3, 3}, 3, {1, 1, 1}, {1, 1, 1}, "same", {}, 1},
          {"3x3x3 same, stride 2 on 6x7x8 (pads after on depth and width)", {1, 6, 7, 8, 3}, {3, 3, 3}, 4, {2, 2, 2},
           {1, 1, 1}, "same", {}, 1},
          {"2x2x2 same, stride 1 (the extra plane, row and column after)", {2, 3, 4, 5, 2}, {2, 2, 2}, 3, {1, 1, 1},
           {1, 1, 1}, "same", {}, 1},
          {"kernel (1, 3, 2), strides (1, 2, 1), valid", {2, 3, 7, 5, 4}, {1, 3, 2}, 5, {1, 2, 1}, {1, 1, 1}, "valid",
           {}, 1},
          {"dilations (2, 1, 2), same", {1, 6, 5, 7, 2}, {3, 3, 3}, 2, {1, 1, 1}, {2, 1, 2}, "same", {}, 1},
          {"1x1x1 pointwise", {2, 3, 3, 4, 8}, {1, 1, 1}, 6, {1, 1, 1}, {1, 1, 1}, "valid", {}, 1},
          {"groups 2", {2, 4, 4, 4, 4}, {3, 3, 3}, 6, {1, 1, 1}, {1, 1, 1}, "same", {}, 2},
          {"explicit pads (2, 0, 1, 1, 0, 3)", {1, 4, 5, 4, 3}, {3, 3, 2}, 4, {1, 1, 1}, {1, 1, 1}, "explicit",
           {2, 0, 1, 1, 0, 3}, 1},
          {"one volume 8x8x8x4 to 8, same", {1, 8, 8, 8, 4}, {3, 3, 3}, 8, {1, 1, 1}, {1, 1, 1}, "same", {}, 1},
          {"no volumes", {0, 3, 3, 3, 2}, {2, 2, 2}, 2, {1, 1, 1}, {1, 1, 1}, "valid", {}, 1}};
}

Attrs conv3d_attrs(const Conv3dCase& c) {
  std::vector<std::int64_t> pads = c.pads;
  if (c.padding == "valid") pads.assign(6, 0);
  if (c.padding == "same") {
    pads.clear();
    for (std::size_t a = 0; a < 3; ++a) {
      auto [before, after] = same_pads(c.x.dims()[a + 1], c.k[a], c.strides[a], c.dilations[a]);
      pads.push_back(before);
      pads.push_back(after);
    }
  }
  return Attrs{{"strides", c.strides}, {"dilations", c.dilations}, {"pads", pads}, {"groups", c.groups}};
}

// conv3d, conv3d_backprop_input or conv3d_backprop_filter over every geometry: cuDNN's
// summation order (and algorithms), as conv2d's: 1e-4 relative.
OpCases conv3d_cases(const std::string& op_name) {
  OpCases op{1e-4f, {}, true};
  const OpDef& conv3d = OpRegistry::global().get("conv3d");
  std::uint64_t seed = 1750;
  for (const Conv3dCase& c : conv3d_geometries()) {
    const Attrs attrs = conv3d_attrs(c);
    const Shape k{c.k[0], c.k[1], c.k[2], c.x.dims()[4] / c.groups, c.o};
    const Shape y = conv3d.infer(InferContext{"conv3d", {{c.x, DType::float32}, {k, DType::float32}}, attrs})[0].shape;
    KernelCase kc{c.label, {}, attrs};
    if (op_name == "conv3d") {
      kc.inputs = {in_range(c.x, -1, 1, seed), in_range(k, -1, 1, seed + 1)};
    } else if (op_name == "conv3d_backprop_input") {
      kc.inputs = {in_range(y, -1, 1, seed), in_range(k, -1, 1, seed + 1)};
      kc.attrs.set("input_size", std::vector<std::int64_t>{c.x.dims()[1], c.x.dims()[2], c.x.dims()[3]});
    } else {  // conv3d_backprop_filter
      kc.inputs = {in_range(c.x, -1, 1, seed), in_range(y, -1, 1, seed + 1)};
      kc.attrs.set("kernel_size", c.k);
    }
    op.cases.push_back(std::move(kc));
    seed += 2;
  }
  return op;
}

struct PoolCase {
  std::string label;
  Shape x;  // (N, H, W, C)
  std::int64_t kh, kw, sh, sw;
  std::string padding;  // "valid", "same", "run_time_same" (ops::kSamePad) or "explicit"
  std::vector<std::int64_t> pads;
};

// Windows that tile the input (the CPU's fast path), leave rows and columns uncovered,
// overlap, are clipped by "same" padding (asymmetric, as Keras pads), or by explicit
// pads; many channels; a batch of none.
std::vector<PoolCase> pool_geometries() {
  return {{"2x2 stride 2, tiling 8x8", {2, 8, 8, 3}, 2, 2, 2, 2, "valid", {}},
          {"2x2 stride 2 on 7x9: a row and a column uncovered", {2, 7, 9, 3}, 2, 2, 2, 2, "valid", {}},
          {"2x2 stride 2 same on 7x9 (pads after)", {2, 7, 9, 3}, 2, 2, 2, 2, "same", {}},
          {"3x3 stride 2 same on 8x10 (pads 0, 1)", {2, 8, 10, 4}, 3, 3, 2, 2, "same", {}},
          {"3x3 stride 1 same: overlapping", {2, 6, 7, 3}, 3, 3, 1, 1, "same", {}},
          {"3x2 strides (2, 1), valid", {1, 9, 6, 2}, 3, 2, 2, 1, "valid", {}},
          {"explicit pads (1, 0, 2, 1)", {2, 5, 6, 3}, 3, 3, 2, 2, "explicit", {1, 0, 2, 1}},
          {"2x2 stride 2, 70 channels", {2, 6, 6, 70}, 2, 2, 2, 2, "valid", {}},
          {"no images", {0, 4, 4, 3}, 2, 2, 2, 2, "valid", {}},
          {"3x3 stride 2 same worked out when run (ops::kSamePad) on 8x9", {2, 8, 9, 3}, 3, 3, 2, 2,
           "run_time_same", {}}};
}

Attrs pool_attrs(const PoolCase& c) {
  std::vector<std::int64_t> pads = c.pads;
  if (c.padding == "valid") pads = {0, 0, 0, 0};
  if (c.padding == "same") {
    auto [t, b] = same_pads(c.x.dims()[1], c.kh, c.sh, 1);
    auto [l, r] = same_pads(c.x.dims()[2], c.kw, c.sw, 1);
    pads = {t, b, l, r};
  }
  if (c.padding == "run_time_same") pads = std::vector<std::int64_t>(4, ops::kSamePad);  // a spatial dim None
  return Attrs{{"pool_size", std::vector<std::int64_t>{c.kh, c.kw}},
               {"strides", std::vector<std::int64_t>{c.sh, c.sw}},
               {"pads", pads}};
}

// The max ops get multiples of 0.5 (ties in a window: the first largest wins) and, for
// max_pool2d_relu_grad, a relu's output (zeros: windows whose maximum is not positive).
// max_pool2d_relu_grad's channel sums add in another order on the GPU: 1e-4 relative;
// the rest is the CPU's arithmetic in the CPU's order: 0.
OpCases pool_cases(const std::string& op_name) {
  OpCases op{op_name == "max_pool2d_relu_grad" ? 1e-4f : 0.f, {}};
  const OpDef& max_pool = OpRegistry::global().get("max_pool2d");
  std::uint64_t seed = 1800;
  for (const PoolCase& c : pool_geometries()) {
    const Attrs attrs = pool_attrs(c);
    const Shape y = max_pool.infer(InferContext{"max_pool2d", {{c.x, DType::float32}}, attrs})[0].shape;
    KernelCase kc{c.label, {}, attrs};
    if (op_name == "max_pool2d") {
      kc.inputs = {coarse(c.x, seed)};
    } else if (op_name == "avg_pool2d") {
      kc.inputs = {in_range(c.x, -1, 1, seed)};
    } else if (op_name == "max_pool2d_grad") {
      kc.inputs = {coarse(c.x, seed), in_range(y, -1, 1, seed + 1)};
    } else if (op_name == "max_pool2d_relu_grad") {
      Tensor relu_output = coarse(c.x, seed);
      for (float& v : relu_output.values<float>()) v = std::max(v, 0.f);
      kc.inputs = {relu_output, in_range(y, -1, 1, seed + 1)};
    } else {  // avg_pool2d_grad
      kc.inputs = {in_range(y, -1, 1, seed)};
      kc.attrs.set("input_size", std::vector<std::int64_t>{c.x.dims()[1], c.x.dims()[2]});
    }
    op.cases.push_back(std::move(kc));
    seed += 2;
  }
  return op;
}

// --- shapes and arrays ----------------------------------------------------------------

using Dims = std::vector<std::int64_t>;
Attrs dims_attr(const char* key, Dims dims) { return Attrs{{key, std::move(dims)}}; }

// Every dtype that flows through the byte-moving ops: activations and both kinds of
// labels (numbers(): whole numbers for the integer dtypes).
const std::vector<DType>& numeric_dtypes() {
  static const std::vector<DType> dtypes{DType::float32, DType::int32, DType::int64};
  return dtypes;
}

// reshape, reshape_like, expand_dims, split_axis, merge_axes: the input's elements in the
// same order, of every numeric dtype; sizes over many blocks, a scalar, none.
OpCases copy_input_cases(const std::string& op_name) {
  struct C {
    std::string label;
    Shape x;
    Attrs attrs;  // reshape_like: none (its second input is the shape)
    Shape like;
  };
  std::vector<C> cs;
  if (op_name == "reshape") {
    cs = {{"(1000, 33) to (33, -1)", {1000, 33}, dims_attr("shape", {33, -1}), {}},
          {"flatten (2, 4, 4, 3)", {2, 4, 4, 3}, dims_attr("shape", {-1, 48}), {}},
          {"scalar to (1, 1)", {}, dims_attr("shape", {1, 1}), {}},
          {"(0, 5) to (0, 1, 5)", {0, 5}, dims_attr("shape", {0, 1, 5}), {}}};
  } else if (op_name == "reshape_like") {
    cs = {{"(1000, 33) like (33, 1000)", {1000, 33}, {}, {33, 1000}},
          {"(2, 48) like (2, 4, 4, 3)", {2, 48}, {}, {2, 4, 4, 3}},
          {"(1,) like a scalar", {1}, {}, {}},
          {"(0, 5) like (5, 0)", {0, 5}, {}, {5, 0}}};
  } else if (op_name == "expand_dims") {
    cs = {{"(1000, 33) at axis 1", {1000, 33}, axis_attr(1), {}},
          {"(37, 19) at axis -1", {37, 19}, axis_attr(-1), {}},
          {"scalar at axis 0", {}, axis_attr(0), {}},
          {"(0, 5) at axis 0", {0, 5}, axis_attr(0), {}}};
  } else if (op_name == "split_axis") {
    const auto split = [](std::int64_t axis, Dims parts) { return Attrs{{"axis", axis}, {"parts", std::move(parts)}}; };
    cs = {{"(1000, 33): axis 0 into (10, 100)", {1000, 33}, split(0, {10, 100}), {}},
          {"(4, 12): axis -1 into (2, 3, 2)", {4, 12}, split(-1, {2, 3, 2}), {}},
          {"(0, 6): axis 1 into (2, 3)", {0, 6}, split(1, {2, 3}), {}}};
  } else {  // merge_axes
    const auto merge = [](std::int64_t first, std::int64_t count) {
      return Attrs{{"first", first}, {"count", count}};
    };
    cs = {{"(10, 100, 33): axes 0..1", {10, 100, 33}, merge(0, 2), {}},
          {"(2, 3, 4, 5): axes 1..3", {2, 3, 4, 5}, merge(1, 3), {}},
          {"(7,): axis 0 alone", {7}, merge(0, 1), {}},
          {"(0, 2, 3): axes 1..2", {0, 2, 3}, merge(1, 2), {}}};
  }
  OpCases op{0.f, {}};
  std::uint64_t seed = 1900;
  for (const C& c : cs) {
    for (DType dtype : numeric_dtypes()) {
      KernelCase kc{c.label + ", " + to_string(dtype), {numbers(c.x, dtype, seed++)}, c.attrs};
      if (op_name == "reshape_like") kc.inputs.push_back(in_range(c.like, -1, 1, seed++));
      op.cases.push_back(std::move(kc));
    }
  }
  return op;
}

// batch_normalization(x, gamma, beta, moving_mean, moving_variance) and its gradient
// (dy, x, gamma, mean, variance, dmean, dvariance), in both modes: channels last with
// more elements a channel than a block has threads, channels on a middle axis, one
// channel, an empty batch. The sums run in another order (a tree per block).
OpCases batch_norm_cases(bool gradient) {
  OpCases op{1e-4f, {}};
  struct Layout {
    std::string label;
    Shape x;
    std::int64_t axis;
  };
  const std::vector<Layout> layouts = {{"channels last (257, 19)", {257, 19}, 1},
                                       {"(4, 7, 3, 5) on axis 1", {4, 7, 3, 5}, 1},
                                       {"one channel (6, 9, 1)", {6, 9, 1}, 2},
                                       {"an empty batch (0, 4)", {0, 4}, 1}};
  std::uint64_t seed = 2600;
  for (const Layout& l : layouts) {
    const std::int64_t c = l.x[static_cast<int>(l.axis)];
    for (const bool training : {true, false}) {
      std::vector<Tensor> inputs;
      if (gradient) {
        inputs = {in_range(l.x, -1, 1, seed), in_range(l.x, -1, 1, seed + 1), in_range({c}, 0.5f, 1.5f, seed + 2),
                  in_range({c}, -0.3f, 0.3f, seed + 3), in_range({c}, 0.5f, 2.f, seed + 4),
                  in_range({c}, -1, 1, seed + 5), in_range({c}, -1, 1, seed + 6)};
      } else {
        inputs = {in_range(l.x, -1, 1, seed), in_range({c}, 0.5f, 1.5f, seed + 1), in_range({c}, -0.5f, 0.5f, seed + 2),
                  in_range({c}, -0.3f, 0.3f, seed + 3), in_range({c}, 0.5f, 2.f, seed + 4)};
      }
      KernelCase k{std::string(training ? "training, " : "inference, ") + l.label, std::move(inputs),
                   Attrs{{"axis", l.axis}, {"epsilon", 1e-3}}};
      k.training = training;
      op.cases.push_back(std::move(k));
      seed += 10;
    }
  }
  return op;
}

// training_select(in_training, in_inference): each branch by the run's mode.
OpCases training_select_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 2000;
  for (const Shape& s : std::vector<Shape>{{1000, 33}, {37, 19}, {}, {0, 4}}) {
    for (bool training : {true, false}) {
      KernelCase c{std::string(training ? "training, " : "inference, ") + s.to_string(),
                   {in_range(s, -1, 1, seed), in_range(s, -1, 1, seed + 1)}};
      c.training = training;
      op.cases.push_back(std::move(c));
      seed += 2;
    }
  }
  return op;
}

// broadcast_like(x, like): a bias row, a column, a scalar, a middle dim, leading dims x
// lacks, nothing to broadcast, and no rows.
OpCases broadcast_like_cases() {
  const std::vector<ShapePair> ps = {{"bias row", {10}, {32, 10}},
                                     {"bias row over many blocks", {257}, {300, 257}},
                                     {"kept row", {1, 10}, {32, 10}},
                                     {"column", {3, 1}, {3, 5}},
                                     {"scalar", {}, {4, 5}},
                                     {"one element (1, 1)", {1, 1}, {6, 7}},
                                     {"middle dim", {4, 1, 6}, {4, 5, 6}},
                                     {"3-D from 2-D, two dims broadcast", {3, 1}, {2, 3, 4}},
                                     {"nothing to broadcast", {4, 5}, {4, 5}},
                                     {"no rows", {5}, {0, 5}}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 2100;
  for (const ShapePair& p : ps) {
    op.cases.push_back({p.label, {in_range(p.a, -1, 1, seed), in_range(p.b, -1, 1, seed + 1)}});
    seed += 2;
  }
  return op;
}

// transpose: matrices, attention's head split (the last axis stays: whole rows move), an
// image layout change, dims of 1 between others, the identity (one contiguous copy),
// eight dims none of which merge (all the launcher walks), nine of which two merge, a
// scalar, and none.
OpCases transpose_cases() {
  struct T {
    std::string label;
    Shape x;
    Dims perm;
  };
  const std::vector<T> ts = {{"37x19", {37, 19}, {1, 0}},
                             {"1000x33", {1000, 33}, {1, 0}},
                             {"heads first (2, 5, 4, 8)", {2, 5, 4, 8}, {0, 2, 1, 3}},
                             {"NHWC to NCHW", {2, 6, 7, 3}, {0, 3, 1, 2}},
                             {"(4, 1, 6) reversed", {4, 1, 6}, {2, 1, 0}},
                             {"identity (3, 4, 5)", {3, 4, 5}, {0, 1, 2}},
                             {"last two of (6, 2, 3) swapped", {6, 2, 3}, {0, 2, 1}},
                             {"8 dims of 2 reversed", {2, 2, 2, 2, 2, 2, 2, 3}, {7, 6, 5, 4, 3, 2, 1, 0}},
                             {"9 dims, the last two kept: 8 after merging",
                              {2, 2, 2, 2, 2, 2, 2, 3, 5},
                              {6, 5, 4, 3, 2, 1, 0, 7, 8}},
                             {"scalar", {}, {}},
                             {"no rows", {0, 3}, {1, 0}}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 2200;
  for (const T& t : ts) op.cases.push_back({t.label, {in_range(t.x, -1, 1, seed++)}, dims_attr("perm", t.perm)});
  return op;
}

struct BoxCase {
  std::string label;
  Shape x;
  Dims before, after;
};

// Amounts removed (crop) or added (pad) per axis: rows only (one contiguous run), every
// axis, an image's spatial axes (ZeroPadding2D, Cropping2D), rows over many blocks, none
// at all, a scalar, and boxes with no elements.
std::vector<BoxCase> box_cases(bool crop) {
  std::vector<BoxCase> bs = {{"rows only", {10, 7}, {2, 0}, {3, 0}},
                             {"every axis", {9, 8}, {1, 2}, {3, 1}},
                             {"an image's height and width", {2, 9, 10, 3}, {0, 1, 2, 0}, {0, 2, 1, 0}},
                             {"columns over many blocks", {300, 260}, {0, 1}, {0, 2}},
                             {"nothing", {5, 6}, {0, 0}, {0, 0}},
                             {"scalar", {}, {}, {}}};
  if (crop) {
    bs.push_back({"everything: no elements left", {4, 5}, {2, 0}, {2, 0}});
  } else {
    bs.push_back({"an empty input: zeros only", {0, 5}, {1, 0}, {2, 1}});
  }
  bs.push_back({"no rows", {0, 6}, {0, 1}, {0, 2}});
  return bs;
}

Attrs box_attrs(const BoxCase& b) { return Attrs{{"before", b.before}, {"after", b.after}}; }

// pad (float32 only, as the CPU's) and crop (every numeric dtype: labels are cropped too).
OpCases box_op_cases(bool crop) {
  OpCases op{0.f, {}};
  std::uint64_t seed = crop ? 2300 : 2400;
  for (const BoxCase& b : box_cases(crop)) {
    if (!crop) {
      op.cases.push_back({b.label, {in_range(b.x, -1, 1, seed++)}, box_attrs(b)});
      continue;
    }
    for (DType dtype : numeric_dtypes()) {
      op.cases.push_back({b.label + ", " + to_string(dtype), {numbers(b.x, dtype, seed++)}, box_attrs(b)});
    }
  }
  return op;
}

// concat: along the first axis (contiguous slabs), the last, a middle one and a negative
// one; three inputs, an input with nothing along the axis, every numeric dtype.
OpCases concat_cases() {
  struct C {
    std::string label;
    std::vector<Shape> xs;
    std::int64_t axis;
  };
  const std::vector<C> cs = {{"rows", {{3, 5}, {4, 5}}, 0},
                             {"last axis, three inputs", {{6, 2}, {6, 3}, {6, 1}}, 1},
                             {"last axis over many blocks", {{300, 129}, {300, 128}}, -1},
                             {"middle axis", {{2, 3, 4}, {2, 5, 4}}, 1},
                             {"an input with nothing along the axis", {{4, 0}, {4, 3}, {4, 2}}, 1},
                             {"one input", {{7, 3}}, 0},
                             {"no rows", {{0, 2}, {0, 3}}, 1}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 2500;
  for (const C& c : cs) {
    for (DType dtype : numeric_dtypes()) {
      KernelCase kc{c.label + ", " + to_string(dtype), {}, axis_attr(c.axis)};
      for (const Shape& x : c.xs) kc.inputs.push_back(numbers(x, dtype, seed++));
      op.cases.push_back(std::move(kc));
    }
  }
  return op;
}

// --- embeddings, attention and sequence ops ---------------------------------------------

// Token ids in [0, vocab) as `dtype`; float ids carry a fraction (2.7 reads row 2: the
// CPU kernel truncates them).
Tensor token_ids(Shape shape, std::int64_t vocab, DType dtype, std::uint64_t seed) {
  Tensor ids = class_labels(std::move(shape), vocab, dtype, seed);
  if (dtype == DType::float32) {
    for (float& v : ids.values<float>()) v += 0.7f;
  }
  return ids;
}

struct EmbeddingCase {
  std::string label;
  Shape ids;
  std::int64_t vocab, dim;
  DType dtype;
};

// Every id type, ids of rank 0 to 2, a vocabulary of one, rows named many times (the
// gradient's long sums), rows never named (zero gradient rows), no ids.
std::vector<EmbeddingCase> embedding_geometries() {
  return {{"int64 ids (4, 7) into 10 x 3", {4, 7}, 10, 3, DType::int64},
          {"int32 ids (64, 50) into 1000 x 33", {64, 50}, 1000, 33, DType::int32},
          {"float ids, truncated", {5, 6}, 12, 4, DType::float32},
          {"one id (a scalar)", {}, 5, 8, DType::int64},
          {"a vocabulary of one", {3, 4}, 1, 5, DType::int32},
          {"600 ids into 2 rows: long sums", {600}, 2, 17, DType::int64},
          {"8 ids into 5000 rows: most rows never named", {8}, 5000, 3, DType::int64},
          {"no ids", {0, 5}, 7, 3, DType::int64}};
}

// embedding_lookup(table, ids), or embedding_lookup_grad(g, ids, table). The gradient
// sums in the CPU's order on the GPU (sorted ids, no atomics): 0 for both.
OpCases embedding_cases(bool grad) {
  OpCases op{0.f, {}};
  std::uint64_t seed = 1900;
  for (const EmbeddingCase& e : embedding_geometries()) {
    const Tensor table = in_range({e.vocab, e.dim}, -1, 1, seed);
    const Tensor ids = token_ids(e.ids, e.vocab, e.dtype, seed + 1);
    std::vector<std::int64_t> rows = e.ids.dims();
    rows.push_back(e.dim);
    const Attrs layer{{"layer", std::string("Embedding 'embedding'")}};
    if (grad) {
      op.cases.push_back({e.label, {in_range(Shape(rows), -1, 1, seed + 2), ids, table}, layer});
    } else {
      op.cases.push_back({e.label, {table, ids}, layer});
    }
    seed += 3;
  }
  return op;
}

// batch_matmul over rank 2 to 4, every transpose, attention's shapes, more products than
// one block, empty sums (zeros), no batch entries, no rows. cuBLAS sums in its own order.
OpCases batch_matmul_cases() {
  struct B {
    std::string label;
    Shape a, b;
    bool ta, tb;
  };
  const std::vector<B> bs = {{"(2, 7, 5) . (2, 5, 3)", {2, 7, 5}, {2, 5, 3}, false, false},
                             {"transposed a", {2, 5, 7}, {2, 5, 3}, true, false},
                             {"transposed b", {2, 7, 5}, {2, 3, 5}, false, true},
                             {"both transposed", {2, 5, 7}, {2, 3, 5}, true, true},
                             {"rank 4: heads", {3, 4, 9, 16}, {3, 4, 16, 9}, false, false},
                             {"attention scores: q . k transposed", {2, 4, 10, 8}, {2, 4, 10, 8}, false, true},
                             {"attention output: weights . v", {2, 4, 10, 10}, {2, 4, 10, 8}, false, false},
                             {"rank 2: one product", {6, 4}, {4, 5}, false, false},
                             {"40 products of 64x130 . 130x33", {40, 64, 130}, {40, 130, 33}, false, false},
                             {"empty sums k=0 give zeros", {3, 4, 0}, {3, 0, 5}, false, false},
                             {"no batch entries", {0, 4, 5}, {0, 5, 3}, false, false},
                             {"no rows", {2, 0, 5}, {2, 5, 3}, false, false}};
  OpCases op{1e-4f, {}};
  std::uint64_t seed = 2000;
  for (const B& b : bs) {
    op.cases.push_back({b.label, {in_range(b.a, -1, 1, seed), in_range(b.b, -1, 1, seed + 1)}, transposes(b.ta, b.tb)});
    seed += 2;
  }
  return op;
}

// causal_mask(scores): square and not, over many blocks, no query rows.
OpCases causal_mask_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 2100;
  for (const Shape& s : std::vector<Shape>{{2, 3, 5, 5}, {4, 7}, {2, 6, 3}, {1, 300, 257}, {3, 0, 4}}) {
    op.cases.push_back({"scores " + s.to_string(), {in_range(s, -1, 1, seed++)}});
  }
  return op;
}

// rfft(x) and irfft(spectrum, n): cuFFT against KISS FFT, both unnormalized; short and
// long frames (400 samples, 25 ms at 16 kHz; 2048, MelSpectrogram's default), many rows
// (one batched plan), rank 3, and no rows. The two libraries sum in other orders:
// agreement within 1e-5 of the magnitude.
OpCases rfft_cases(bool inverse) {
  // Each bin sums n products in float in another order on each device (KISS FFT, cuFFT):
  // their rounding grows with log2(n) and the row's norm. At n = 2048 they differed by
  // 1.3e-5 on an H200, a bin near 0.1 (2026-11-30), past 1e-5.
  OpCases op{1e-4f, {}};
  std::uint64_t seed = 3800;
  for (const auto& [rows, n] : std::vector<std::pair<Shape, std::int64_t>>{
           {{3}, 8}, {{64}, 400}, {{5}, 2048}, {{2, 3}, 16}, {{0}, 16}}) {
    std::vector<std::int64_t> dims = rows.dims();
    if (inverse) {
      dims.push_back(n / 2 + 1);
      dims.push_back(2);
    } else {
      dims.push_back(n);
    }
    KernelCase c{"rows " + rows.to_string() + ", n " + std::to_string(n), {in_range(Shape(dims), -1, 1, seed++)}};
    if (inverse) c.attrs = Attrs{{"n", n}};
    op.cases.push_back(std::move(c));
  }
  return op;
}

// matrix_inverse and matrix_determinant on well-conditioned matrices whose large entries sit
// off the diagonal in some (so that both devices exchange rows), cholesky on symmetric
// positive definite ones (M M^T + n I); one matrix, batches of one and two axes, many, none.
OpCases linalg_cases(const std::string& op) {
  OpCases cases{1e-4f, {}};
  std::uint64_t seed = 3900;
  for (const auto& [batch, n] : std::vector<std::pair<Shape, std::int64_t>>{
           {Shape{}, 1}, {Shape{}, 3}, {Shape{5}, 4}, {Shape{2, 3}, 6}, {Shape{200}, 8}, {Shape{0}, 3}}) {
    std::vector<std::int64_t> dims = batch.dims();
    dims.insert(dims.end(), {n, n});
    const Tensor m = in_range(Shape(dims), -1, 1, seed++);
    std::vector<float> a(static_cast<std::size_t>(m.size()));
    const float* v = m.data<float>();
    const std::int64_t count = n == 0 ? 0 : m.size() / (n * n);
    for (std::int64_t k = 0; k < count; ++k) {
      const float* x = v + k * n * n;
      float* y = a.data() + k * n * n;
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          if (op == "cholesky") {
            float s = i == j ? static_cast<float>(n) : 0.f;
            for (std::int64_t t = 0; t < n; ++t) s += x[i * n + t] * x[j * n + t];
            y[i * n + j] = s;
          } else {
            const std::int64_t boosted = k % 2 == 0 ? i : (i + 1) % n;  // odd matrices: a row exchange per column
            y[i * n + j] = x[i * n + j] + (j == boosted ? 3.f : 0.f);
          }
        }
      }
    }
    cases.cases.push_back({"batch " + batch.to_string() + " of " + std::to_string(n) + "x" + std::to_string(n),
                           {Tensor::from_vector(Shape(dims), a)}});
  }
  return cases;
}

// qr reduced and complete on deep, square and wide matrices (columns already reduced below
// the pivot in some: no reflection there), one, batches of one and two axes, many, none.
OpCases qr_cases() {
  OpCases cases{1e-4f, {}};
  std::uint64_t seed = 4100;
  for (const bool full : {false, true}) {
    for (const auto& [batch, m, n] : std::vector<std::tuple<Shape, std::int64_t, std::int64_t>>{
             {Shape{}, 1, 1}, {Shape{}, 4, 3}, {Shape{5}, 3, 5}, {Shape{2, 3}, 6, 6}, {Shape{200}, 8, 4},
             {Shape{0}, 3, 3}}) {
      std::vector<std::int64_t> dims = batch.dims();
      dims.insert(dims.end(), {m, n});
      Tensor a = in_range(Shape(dims), -1, 1, seed++);
      if (m == 6)  // the first column's entries below the pivot 0: no reflection for it
        for (std::int64_t k = 0; k < a.size() / (m * n); ++k)
          for (std::int64_t i = 1; i < m; ++i) a.data<float>()[(k * m + i) * n] = 0.f;
      KernelCase c{(full ? "complete, batch " : "reduced, batch ") + batch.to_string() + " of " + std::to_string(m) +
                       "x" + std::to_string(n),
                   {a}};
      c.attrs = Attrs{{"full_matrices", full}};
      cases.cases.push_back(std::move(c));
    }
  }
  return cases;
}

// concat_last(a, b), or split_last(g, like_a, like_b) of the same shapes: ranks 1 to 3,
// over many blocks, either part of width 0, no rows.
OpCases concat_last_cases(bool split) {
  const std::vector<ShapePair> ps = {{"(4, 3) and (4, 5)", {4, 3}, {4, 5}},
                                     {"rank 3, a column added", {2, 3, 7}, {2, 3, 1}},
                                     {"1000 rows of 33 and 31", {1000, 33}, {1000, 31}},
                                     {"rank 1", {5}, {3}},
                                     {"a of width 0", {3, 0}, {3, 4}},
                                     {"b of width 0", {3, 4}, {3, 0}},
                                     {"no rows", {0, 3}, {0, 5}}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 2200;
  for (const ShapePair& p : ps) {
    const Tensor a = in_range(p.a, -1, 1, seed), b = in_range(p.b, -1, 1, seed + 1);
    if (split) {
      const Shape g = p.a.with_dim(-1, p.a.dims().back() + p.b.dims().back());
      op.cases.push_back({p.label, {in_range(g, -1, 1, seed + 2), a, b}});
    } else {
      op.cases.push_back({p.label, {a, b}});
    }
    seed += 3;
  }
  return op;
}

// Element i of a float32, int32 or int64 tensor set to `value`.
void set_number(Tensor& t, std::int64_t i, double value) {
  if (t.dtype() == DType::float32) t.data<float>()[i] = static_cast<float>(value);
  else if (t.dtype() == DType::int32) t.data<std::int32_t>()[i] = static_cast<std::int32_t>(value);
  else t.data<std::int64_t>()[i] = static_cast<std::int64_t>(value);
}

// one_hot: every label type, labels that name no class (negative, num_classes and past
// it, a float with a fraction: rows of zeros), scalar labels, no labels.
OpCases one_hot_cases() {
  struct O {
    std::string label;
    Shape labels;
    std::int64_t classes;
    DType dtype;
  };
  const std::vector<O> os = {{"int64 labels into 3", {8}, 3, DType::int64},
                             {"int32 labels (37, 10) into 10", {37, 10}, 10, DType::int32},
                             {"float labels", {37}, 10, DType::float32},
                             {"1000 labels into 33", {1000}, 33, DType::int32},
                             {"one class", {9}, 1, DType::int64},
                             {"a scalar label", {}, 7, DType::int64},
                             {"no labels", {0}, 4, DType::int64}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 2300;
  for (const O& o : os) {
    Tensor labels = class_labels(o.labels, o.classes, o.dtype, seed++);
    // The first labels name no class: -1, num_classes, num_classes + 5 (and a float 1.5).
    std::vector<double> invalid = {-1.0, static_cast<double>(o.classes), static_cast<double>(o.classes + 5)};
    if (o.dtype == DType::float32) invalid.push_back(1.5);
    for (std::size_t i = 0; o.labels.rank() > 0 && i < invalid.size() && static_cast<std::int64_t>(i) < labels.size();
         ++i) {
      set_number(labels, static_cast<std::int64_t>(i), invalid[i]);
    }
    op.cases.push_back({o.label, {labels}, Attrs{{"num_classes", o.classes}}});
  }
  return op;
}

OpCases repeat_vector_cases() {
  struct R {
    Shape x;
    std::int64_t n;
  };
  const std::vector<R> rs = {{{4, 3}, 5}, {{64, 33}, 20}, {{2, 5}, 1}, {{0, 3}, 4}, {{3, 0}, 2}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 2400;
  for (const R& r : rs) {
    op.cases.push_back({r.x.to_string() + " repeated " + std::to_string(r.n) + " times", {in_range(r.x, -1, 1, seed++)},
                        Attrs{{"n", r.n}}});
  }
  return op;
}

// identity and stop_gradient: a copy of every numeric dtype, scalars and empty tensors.
OpCases copy_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 2500;
  for (DType dtype : {DType::float32, DType::int32, DType::int64}) {
    for (const Shape& s : std::vector<Shape>{{1000, 33}, {3, 4, 5}, {}, {0}}) {
      op.cases.push_back({to_string(dtype) + " " + s.to_string(), {numbers(s, dtype, seed++)}});
    }
  }
  return op;
}

// checked_indices: scatter's index rows inside the shape, of each index dtype (the CUDA kernel
// copies them unchecked; rows outside are the CPU kernel's error, tests/core/scatter_update_test.cc).
OpCases checked_indices_cases() {
  OpCases op{0.f, {}};
  const Attrs shape{{"shape", std::vector<std::int64_t>{3, 4, 5}}};
  op.cases.push_back(
      {"int32 (5, 2)", {Tensor::from_vector<std::int32_t>({5, 2}, {0, 0, 2, 3, 1, 1, 2, 0, 0, 3})}, shape});
  op.cases.push_back({"int64 (2, 3)", {Tensor::from_vector<std::int64_t>({2, 3}, {2, 3, 4, 0, 0, 0})}, shape});
  op.cases.push_back({"float32 (2, 2, 1)", {Tensor::from_vector<float>({2, 2, 1}, {0, 1, 2, 1})}, shape});
  op.cases.push_back({"no rows (0, 2)", {Tensor::from_vector<std::int32_t>({0, 2}, {})}, shape});
  return op;
}

// unfold_time(y (B*T, ...), like (B, T, ...)): TimeDistributed's regrouping, a copy of
// every numeric dtype; many blocks, rank 2 and 4, a batch of none.
OpCases unfold_time_cases() {
  struct U {
    Shape y, like;
  };
  const std::vector<U> us = {{{1000, 33}, {100, 10, 7}}, {{6, 4, 5, 3}, {2, 3, 1}}, {{5, 1}, {1, 5}}, {{0, 4}, {0, 3}}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 2550;
  for (const U& u : us) {
    for (DType dtype : numeric_dtypes()) {
      op.cases.push_back({u.y.to_string() + " like " + u.like.to_string() + ", " + to_string(dtype),
                          {numbers(u.y, dtype, seed), in_range(u.like, -1, 1, seed + 1)}});
      seed += 2;
    }
  }
  return op;
}

// upsample_nearest2d: square and unequal factors, many channels, a single pixel, no images.
OpCases upsample_cases() {
  struct U {
    Shape x;
    std::int64_t sh, sw;
  };
  const std::vector<U> us = {{{2, 3, 4, 5}, 2, 2}, {{1, 5, 3, 2}, 3, 1}, {{2, 7, 9, 70}, 2, 3},
                             {{1, 1, 1, 1}, 4, 4}, {{0, 3, 3, 2}, 2, 2}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 2600;
  for (const U& u : us) {
    op.cases.push_back({u.x.to_string() + " by (" + std::to_string(u.sh) + ", " + std::to_string(u.sw) + ")",
                        {in_range(u.x, -1, 1, seed++)},
                        Attrs{{"size", std::vector<std::int64_t>{u.sh, u.sw}}}});
  }
  return op;
}

// resize_weights: every kind (the antialiased ones too), growing and shrinking (lanczos5 wider than the image), an
// upsampling factor, crop_to_aspect_ratio's window and pad_to_aspect_ratio's padded axis on either
// axis, one input cell. The
// same arithmetic on both devices (core/resize_weights.h), but CUDA may contract a
// multiply and an add into one FMA where GCC does not.
OpCases resize_weights_cases() {
  struct R {
    std::string label;
    Shape x;
    std::int64_t axis, size, scale, other_axis, other_size;
    bool pad = false;
  };
  const std::vector<R> rs = {{"rows 9 -> 5", {2, 9, 6, 1}, 1, 5, 0, -1, 0},
                             {"cols 4 -> 11", {1, 3, 4, 2}, 2, 11, 0, -1, 0},
                             {"rows 3 -> 3 x 2", {1, 3, 5, 1}, 1, 0, 2, -1, 0},
                             {"cols 7 -> 7 x 3", {1, 2, 7, 1}, 2, 0, 3, -1, 0},
                             {"rows 9 -> 5, cropped to 5 : 7 on 6 cols", {1, 9, 6, 1}, 1, 5, 0, 2, 7},
                             {"cols 11 -> 7, cropped to 5 : 7 on 4 rows", {1, 4, 11, 1}, 2, 7, 0, 1, 5},
                             {"rows 3 -> 5, padded to 5 : 7 on 9 cols", {1, 3, 9, 1}, 1, 5, 0, 2, 7, true},
                             {"cols 2 -> 7, padded to 5 : 7 on 6 rows", {1, 6, 2, 1}, 2, 7, 0, 1, 5, true},
                             {"one cell -> 4", {1, 1, 1, 1}, 1, 4, 0, -1, 0}};
  OpCases op{1e-6f, {}};
  std::uint64_t seed = 3800;
  for (std::int64_t kind = 0; kind <= static_cast<std::int64_t>(kLastResizeKind); ++kind) {
    for (const R& r : rs) {
      op.cases.push_back({"kind " + std::to_string(kind) + ", " + r.label, {in_range(r.x, -1, 1, seed++)},
                          Attrs{{"axis", r.axis}, {"kind", kind}, {"size", r.size}, {"scale", r.scale},
                                {"other_axis", r.other_axis}, {"other_size", r.other_size},
                                {"pad_to_aspect_ratio", r.pad}}});
    }
  }
  return op;
}

// --- the gradient all-reduce ----------------------------------------------------------

// The communicator of a job of one process, which says it sums device memory: each
// all-reduce op runs alone here, so the sum is left out (the buffer is its own sum) and
// what is compared is the packing and unpacking around it. CudaAllReduce.* (below) runs
// the pair with other processes' contributions, on the device and through host memory.
class AloneOnTheDevice : public Collective {
 public:
  void start_all_reduce(float*, std::int64_t) override {}
  void wait_all_reduce(float*) override {}
  bool reduces_cuda_memory(int) override { return true; }
  void start_cuda_all_reduce(float*, std::int64_t, void*) override {}
  void wait_cuda_all_reduce(float*, void*) override {}
};

AloneOnTheDevice& alone_on_the_device() {
  static AloneOnTheDevice collective;
  return collective;
}

// all_reduce_start(batch, values...): a bucket of several gradients (one spanning many
// blocks, a scalar), a batch of one sample, and a process without samples (zeros).
OpCases all_reduce_start_cases() {
  OpCases op{0.f, {}};
  auto bucket = [](std::int64_t samples, const std::vector<Shape>& values, std::uint64_t seed) {
    KernelCase c{std::to_string(samples) + " samples, " + std::to_string(values.size()) + " values",
                 {in_range(Shape{samples, 2}, -1, 1, seed)}};
    for (const Shape& v : values) c.inputs.push_back(in_range(v, -2, 2, ++seed));
    c.collective = &alone_on_the_device();
    return c;
  };
  op.cases.push_back(bucket(3, {{37, 19}, {257}, {}}, 2700));
  op.cases.push_back(bucket(1, {{1000, 33}}, 2710));
  op.cases.push_back(bucket(0, {{5}, {2, 3}}, 2720));
  return op;
}

// all_reduce_wait(flat): the summed buffer split into values and divided by the summed
// count (its last element): several samples, one, and none (zeros times the sum).
OpCases all_reduce_wait_cases() {
  OpCases op{0.f, {}};
  auto summed = [](float samples, std::vector<std::int64_t> ranks, std::vector<std::int64_t> dims,
                   std::int64_t total, std::uint64_t seed) {
    Tensor flat = in_range(Shape{total}, -20, 20, seed);
    flat.data<float>()[total - 1] = samples;
    KernelCase c{"summed count " + std::to_string(samples), {flat}, Attrs{{"ranks", ranks}, {"dims", dims}}};
    c.collective = &alone_on_the_device();
    return c;
  };
  op.cases.push_back(summed(8.f, {2, 1, 0}, {37, 19, 257}, 37 * 19 + 257 + 1 + 1, 2730));
  op.cases.push_back(summed(1.f, {2}, {1000, 33}, 33001, 2731));
  op.cases.push_back(summed(0.f, {1, 2}, {5, 2, 3}, 12, 2732));
  op.cases.push_back(summed(3.f, {1}, {0}, 1, 2733));
  return op;
}

// --- recurrent ops ---------------------------------------------------------------------

// rnn_sequence(x, h0, c0, kernel, recurrent_kernel, bias[, mask]), or its gradient op
// fed the CPU forward pass's workspace and random output gradients. Both devices draw
// the same dropout masks; cuBLAS sums the products in its own order, and CUDA's tanh and
// exp are not glibc's or Eigen's, which the time loop carries from step to step.
OpCases rnn_cases(bool grad) {
  OpCases op{1e-4f, {}};
  std::uint64_t seed = 2700;
  for (const RnnCase& r : rnn_configurations()) {
    KernelCase c{r.label, grad ? rnn_grad_inputs(r, seed) : rnn_inputs(r, seed), rnn_attrs(r, seed)};
    c.training = r.training;
    c.step = r.step;
    c.sample_offset = r.sample_offset;
    op.cases.push_back(std::move(c));
    seed += 10;
  }
  return op;
}

// rnn_zero_state(x): zeros of (x's batch, units).
OpCases rnn_zero_state_cases() {
  OpCases op{0.f, {}};
  std::uint64_t seed = 2900;
  for (const Shape& x : std::vector<Shape>{{4, 6, 5}, {300, 3, 2}, {0, 4, 3}}) {
    for (std::int64_t units : {7, 64}) {
      op.cases.push_back({x.to_string() + " into " + std::to_string(units) + " units", {in_range(x, -1, 1, seed++)},
                          Attrs{{"units", units}}});
    }
  }
  return op;
}

// Op name -> its cases. Transcendental functions are CUDA's (within 2 ulp) against
// glibc's; sums and products add in another order on the GPU.
// bitcast between the dtypes of one size and to and from int64 (the last axis doubled or
// halved): non-negative integers below 2^23, whose bits as floats are no NaN.
OpCases bitcast_cases() {
  struct B {
    Shape x;
    DType from, to;
  };
  const std::vector<B> bs = {{{37, 19}, DType::float32, DType::int32}, {{1000, 33}, DType::int32, DType::float32},
                             {{5, 6}, DType::int64, DType::int32},     {{5, 6}, DType::int64, DType::float32},
                             {{4, 8}, DType::float32, DType::int64},   {{3, 2}, DType::int32, DType::int64},
                             {{0, 4}, DType::int32, DType::int64}};
  OpCases op{0.f, {}};
  std::uint64_t seed = 4300;
  for (const B& b : bs) {
    Tensor x = b.from == DType::float32 ? in_range(b.x, -2, 2, seed) : class_labels(b.x, 1 << 23, b.from, seed);
    op.cases.push_back({to_string(b.from) + " " + b.x.to_string() + " as " + to_string(b.to), {x},
                        Attrs{{"dtype", to_string(b.to)}}});
    ++seed;
  }
  return op;
}

std::map<std::string, OpCases> build_table() {
  const Generator any = [](Shape s, std::uint64_t seed) { return in_range(std::move(s), -2, 2, seed); };
  const Generator ties = coarse;
  const Generator divisor = [](Shape s, std::uint64_t seed) {
    return away_from_zero(std::move(s), 0.25f, 2.f, seed);
  };
  const Generator positive = [](Shape s, std::uint64_t seed) { return in_range(std::move(s), 0.01f, 5, seed); };
  const Generator wide = [](Shape s, std::uint64_t seed) { return in_range(std::move(s), -30, 30, seed); };
  const Generator exponent = [](Shape s, std::uint64_t seed) { return in_range(std::move(s), -10, 10, seed); };
  constexpr float kUlps = 2e-6f;
  std::map<std::string, OpCases> m;
  m["add"] = binary_cases(0, any, any);
  m["sub"] = binary_cases(0, any, any);
  m["mul"] = binary_cases(0, any, any);
  m["div"] = binary_cases(0, any, divisor);
  m["maximum"] = binary_cases(0, ties, ties);
  m["minimum"] = binary_cases(0, ties, ties);
  for (const char* op : {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal"}) {
    m[op] = binary_cases(0, ties, ties);
  }
  m["relu_grad"] = binary_cases(0, any, ties);
  m["select"] = select_cases();
  m["neg"] = unary_cases(0, any);
  m["square"] = unary_cases(0, any);
  m["abs"] = unary_cases(0, ties);
  m["sign"] = unary_cases(0, ties);
  m["relu"] = unary_cases(0, ties);
  m["relu6"] = unary_cases(0, ties);
  m["sqrt"] = unary_cases(0, positive);
  m["log"] = unary_cases(kUlps, positive);
  m["exp"] = unary_cases(kUlps, exponent);
  m["tanh"] = unary_cases(kUlps, wide);
  m["sigmoid"] = unary_cases(kUlps, wide);
  m["silu"] = unary_cases(kUlps, wide);
  m["gelu"] = unary_cases(kUlps, wide);
  m["softplus"] = unary_cases(kUlps, wide);
  m["erf"] = unary_cases(kUlps, any);
  // CUDA's trigonometric and hyperbolic functions against glibc's, each in its domain.
  const Generator unit = [](Shape s, std::uint64_t seed) { return in_range(std::move(s), -0.95f, 0.95f, seed); };
  const Generator above_one = [](Shape s, std::uint64_t seed) { return in_range(std::move(s), 1.f, 30, seed); };
  for (const char* name : {"sin", "cos", "atan", "asinh"}) m[name] = unary_cases(kUlps, exponent);
  for (const char* name : {"tan", "asin", "acos", "atanh"}) m[name] = unary_cases(kUlps, unit);
  for (const char* name : {"sinh", "cosh", "expm1"}) m[name] = unary_cases(kUlps, exponent);
  m["acosh"] = unary_cases(kUlps, above_one);
  m["log1p"] = unary_cases(kUlps, [](Shape s, std::uint64_t seed) { return in_range(std::move(s), -0.9f, 30, seed); });
  // Rounding is exact on both; wide values hold halves rarely, ties() holds them often.
  for (const char* name : {"floor", "ceil", "round", "trunc"}) {
    m[name] = unary_cases(0, wide);
    for (auto& c : unary_cases(0, ties).cases) m[name].cases.push_back({c.label + ", halves", c.inputs});
  }
  // Rounded to bfloat16 / float16 bit for bit; wide() reaches float16's overflow when scaled.
  for (const char* name : {"round_to_bfloat16", "round_to_float16", "round_to_float8_e4m3fn"}) {
    m[name] = unary_cases(0, wide);
    // Past float16's range (float8's would be NaN there, which the table's outputs may not be).
    if (std::string(name) != "round_to_float8_e4m3fn") {
      m[name].cases.push_back({"past float16's range", {in_range(Shape{5, 7}, -1e5f, 1e5f, 7)}});
    }
    for (auto& c : unary_cases(0, ties).cases) m[name].cases.push_back({c.label + ", halves", c.inputs});
  }
  m["matmul"] = matmul_cases();
  m["dense"] = dense_cases();
  m["dense_int8"] = dense_int8_cases();
  m["reduce_sum"] = reduce_cases(1e-4f);
  m["reduce_mean"] = reduce_cases(1e-4f);
  m["reduce_max"] = reduce_cases(0);
  m["assign"] = assign_cases();
  m["assign_add"] = assign_cases();
  for (const char* name : {"apply_sgd", "apply_adam", "apply_rmsprop", "apply_adagrad"}) {
    m[name] = optimizer_cases(name);
  }
  m["constant"] = constant_cases();
  m["fill_like"] = fill_like_cases();
  m["cast"] = cast_cases();
  m["expand_to"] = expand_to_cases();
  m["sum_to_like"] = sum_to_like_cases();
  // CUDA's exp and log against Eigen's and glibc's, and the lane's sum in another order.
  m["softmax"] = softmax_cases(1e-5f);
  m["log_softmax"] = softmax_cases(1e-5f);
  m["softmax_grad"] = softmax_grad_cases(1e-5f);
  m["sparsemax"] = sparsemax_cases(false);
  m["sparsemax_grad"] = sparsemax_cases(true);
  m["pick"] = pick_cases(false);
  m["unpick"] = pick_cases(true);
  m["argmax"] = argmax_cases();
  for (const char* name : {"cumsum", "cumprod", "cumprod_grad", "reverse"}) m[name] = scan_cases(name);
  m["argsort"] = argsort_cases();
  m["dropout"] = dropout_cases();
  m["random_normal_like"] = random_normal_cases();
  m["random_uniform_rows"] = random_uniform_cases();
  m["image_affine_transform"] = affine_transform_cases();
  m["clahe_tables"] = clahe_cases(true);
  m["clahe_interpolate"] = clahe_cases(false);
  for (const char* name : {"conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"}) {
    m[name] = conv_cases(name);
  }
  for (const char* name : {"conv3d", "conv3d_backprop_input", "conv3d_backprop_filter"}) {
    m[name] = conv3d_cases(name);
  }
  for (const char* name : {"max_pool2d", "max_pool2d_grad", "max_pool2d_relu_grad", "avg_pool2d",
                           "avg_pool2d_grad"}) {
    m[name] = pool_cases(name);
  }
  for (const char* name : {"reshape", "reshape_like", "expand_dims", "split_axis", "merge_axes"}) {
    m[name] = copy_input_cases(name);
  }
  m["training_select"] = training_select_cases();
  m["batch_normalization"] = batch_norm_cases(false);
  m["batch_normalization_grad"] = batch_norm_cases(true);
  m["broadcast_like"] = broadcast_like_cases();
  m["transpose"] = transpose_cases();
  m["pad"] = box_op_cases(false);
  m["crop"] = box_op_cases(true);
  m["concat"] = concat_cases();
  m["embedding_lookup"] = embedding_cases(false);
  m["embedding_lookup_grad"] = embedding_cases(true);
  m["batch_matmul"] = batch_matmul_cases();
  m["causal_mask"] = causal_mask_cases();
  for (const char* name : {"matrix_inverse", "matrix_determinant", "cholesky"}) m[name] = linalg_cases(name);
  m["qr"] = qr_cases();
  m["rfft"] = rfft_cases(false);
  m["irfft"] = rfft_cases(true);
  m["concat_last"] = concat_last_cases(false);
  m["split_last"] = concat_last_cases(true);
  m["one_hot"] = one_hot_cases();
  m["repeat_vector"] = repeat_vector_cases();
  m["identity"] = copy_cases();
  m["stop_gradient"] = copy_cases();
  m["checked_indices"] = checked_indices_cases();
  m["upsample_nearest2d"] = upsample_cases();
  m["resize_weights"] = resize_weights_cases();
  m["unfold_time"] = unfold_time_cases();
  m["rnn_sequence"] = rnn_cases(false);
  m["rnn_sequence_grad"] = rnn_cases(true);
  m["rnn_zero_state"] = rnn_zero_state_cases();
  m["all_reduce_start"] = all_reduce_start_cases();
  m["all_reduce_wait"] = all_reduce_wait_cases();
  for (const char* name : {"bitwise_and", "bitwise_or", "bitwise_xor"}) m[name] = integer_cases("bits", "bits");
  for (const char* name : {"left_shift", "right_shift"}) m[name] = integer_cases("bits", "shifts");
  for (const char* name : {"gcd", "lcm"}) m[name] = integer_cases("small", "small");
  m["bitwise_not"] = bitwise_not_cases();
  m["bitcast"] = bitcast_cases();
  return m;
}

const std::map<std::string, OpCases>& table() {
  static const std::map<std::string, OpCases> cases = build_table();
  return cases;
}

// The ops' names without their inputs' values: gtest asks for them in every process of
// the suite, CTest starts one per test, and drawing every op's inputs took a third of a
// second each time.
std::vector<std::string> op_names() {
  const NamesOnly names_only;
  std::vector<std::string> names;
  for (const auto& [name, cases] : build_table()) names.push_back(name);
  return names;
}

// --- running one kernel ---------------------------------------------------------------

std::string describe(const std::string& op, const KernelCase& c) {
  std::string text = op + " (" + c.label + ") on";
  for (const Tensor& t : c.inputs) text += " " + t.shape().to_string();
  return text;
}

Node node_for(const OpDef& def, const KernelCase& c) {
  std::vector<TensorSpec> specs;
  for (const Tensor& t : c.inputs) specs.push_back({t.shape(), t.dtype()});
  Node node;
  node.id = 0;
  node.op = def.name;
  node.name = "cuda_kernels_test/" + def.name;
  node.attrs = c.attrs;
  node.outputs = def.infer(InferContext{def.name, specs, c.attrs});
  node.def = &def;
  return node;
}

// Outputs on `device`, filled with NaN so that an element a kernel leaves unwritten shows
// (integer outputs with a value no case produces).
std::vector<Tensor> nan_outputs(const Node& node, const Device& device) {
  std::vector<Tensor> outputs;
  for (const TensorSpec& spec : node.outputs) {
    Tensor out = Tensor::filled(spec.shape, std::numeric_limits<float>::quiet_NaN());
    if (spec.dtype != DType::float32) {
      out = Tensor(spec.shape, spec.dtype);
      for (std::int64_t i = 0; i < out.size(); ++i) {
        if (spec.dtype == DType::int64) out.data<std::int64_t>()[i] = kUnwritten;
        else out.data<std::int32_t>()[i] = kUnwritten;
      }
    }
    outputs.push_back(out.to(device));
  }
  return outputs;
}

KernelContext context_for(const Node& node, std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  KernelContext ctx{node, {}, {}};
  for (Tensor& t : inputs) ctx.inputs.push_back(&t);
  for (Tensor& t : outputs) ctx.outputs.push_back(&t);
  return ctx;
}

// The run's mode as a Program's run sets it.
KernelContext context_for(const Node& node, const KernelCase& c, std::vector<Tensor>& inputs,
                          std::vector<Tensor>& outputs) {
  KernelContext ctx = context_for(node, inputs, outputs);
  ctx.training = c.training;
  ctx.step = c.step;
  ctx.sample_offset = c.sample_offset;
  ctx.collective = c.collective;
  return ctx;
}

std::vector<Tensor> run_on_cpu(const OpDef& def, const KernelCase& c) {
  const Node node = node_for(def, c);
  std::vector<Tensor> inputs;  // copies: a variable update writes its inputs
  for (const Tensor& t : c.inputs) inputs.push_back(t.clone());
  std::vector<Tensor> outputs = nan_outputs(node, Device{});
  KernelContext ctx = context_for(node, c, inputs, outputs);
  def.on(DeviceType::cpu)->run(ctx);
  // A variable update has no outputs: what it computes is its inputs' new values.
  if (def.stateful) outputs.insert(outputs.end(), inputs.begin(), inputs.end());
  return outputs;
}

// Equal values (infinities included) or both NaN, else within the tolerance.
::testing::AssertionResult agree(const Tensor& actual, const Tensor& expected, float tolerance) {
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << "shape " << actual.shape().to_string() << ", expected "
                                         << expected.shape().to_string();
  }
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << to_string(actual.dtype()) << ", expected "
                                         << to_string(expected.dtype());
  }
  // Integers compare exactly, as integers: as floats, large ones would round together.
  if (actual.dtype() == DType::int32 || actual.dtype() == DType::int64) {
    auto at = [](const Tensor& t, std::int64_t i) {
      return t.dtype() == DType::int32 ? std::int64_t{t.data<std::int32_t>()[i]} : t.data<std::int64_t>()[i];
    };
    for (std::int64_t i = 0; i < actual.size(); ++i) {
      if (at(actual, i) != at(expected, i)) {
        return ::testing::AssertionFailure() << "element " << i << " is " << at(actual, i) << ", the CPU gives "
                                             << at(expected, i);
      }
    }
    return ::testing::AssertionSuccess();
  }
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    const float a = actual.item(i), e = expected.item(i);
    const bool ok = a == e || (std::isnan(a) && std::isnan(e)) || std::fabs(a - e) <= tolerance * (1.f + std::fabs(e));
    if (!ok && wrong++ == 0) first = i;
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << wrong << " of " << actual.size() << " elements differ; first: element "
                                       << first << " is " << actual.item(first) << ", the CPU gives "
                                       << expected.item(first) << " (tolerance " << tolerance << ")";
}

#ifdef STRATA_WITH_CUDA
std::vector<Tensor> run_on_cuda(const OpDef& def, const KernelCase& c, cuda::RunContext& run) {
  const Device gpu{DeviceType::cuda, run.device(), ""};
  const Node node = node_for(def, c);
  std::vector<Tensor> inputs;
  for (const Tensor& t : c.inputs) inputs.push_back(t.to(gpu));
  std::vector<Tensor> outputs = nan_outputs(node, gpu);
  KernelContext ctx = context_for(node, c, inputs, outputs);
  ctx.device_run = &run;
  def.on(DeviceType::cuda)->run(ctx);
  run.synchronize();
  std::vector<Tensor> back;
  for (const Tensor& t : outputs) back.push_back(t.to(Device{}));
  if (def.stateful) {
    for (const Tensor& t : inputs) back.push_back(t.to(Device{}));
  }
  return back;
}
#endif

class CudaKernel : public ::testing::TestWithParam<std::string> {};

}  // namespace

// An op that gains a CUDA kernel gains a case here, or this fails; and without CUDA no
// op has one (the registrations drop their CUDA kernels in such a build).
TEST(CudaKernels, EveryOpWithACudaKernelHasACase) {
  const OpRegistry& registry = OpRegistry::global();
  int with_cuda = 0;
  for (const std::string& name : registry.names()) {
    if (!registry.get(name).kernel(DeviceType::cuda)) continue;
    ++with_cuda;
    EXPECT_TRUE(table().count(name)) << "op '" << name
                                     << "' has a CUDA kernel but no case in tests/core/cuda_kernels_test.cc";
  }
  int expected = 0;
  for (const auto& [name, cases] : table()) {
    ASSERT_TRUE(registry.contains(name)) << "the table names op '" << name << "', which is not registered";
    // A kernel on cuDNN exists in a CUDA build that found cuDNN, every other in any CUDA build.
    const bool has_kernel = built_with_cuda() && (!cases.cudnn || built_with_cudnn());
    expected += has_kernel ? 1 : 0;
    EXPECT_EQ((registry.get(name).kernel(DeviceType::cuda) != nullptr), has_kernel)
        << "op '" << name << "': the table says it " << (has_kernel ? "has" : "has no") << " CUDA kernel in this build";
  }
  EXPECT_EQ(with_cuda, expected);
}

// The cases are sound where they are written, GPU or not: each op infers its outputs
// and its CPU kernel writes every element of them.
TEST_P(CudaKernel, CasesRunOnTheCpu) {
  const OpDef& def = OpRegistry::global().get(GetParam());
  for (const KernelCase& c : table().at(GetParam()).cases) {
    for (const Tensor& out : run_on_cpu(def, c)) {
      for (std::int64_t i = 0; i < out.size(); ++i) {
        // A max over nothing is -inf; only NaN means an unwritten element (no case feeds NaN).
        ASSERT_FALSE(std::isnan(out.item(i)) || out.item(i) == kUnwritten)
            << describe(GetParam(), c) << ": element " << i << " not written";
      }
    }
  }
}

TEST_P(CudaKernel, MatchesTheCpuKernelOnRandomInputs) {
#ifndef STRATA_WITH_CUDA
  GTEST_SKIP() << "Strata was built without CUDA";
#else
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  const OpDef& def = OpRegistry::global().get(GetParam());
  const OpCases& op = table().at(GetParam());
  if (!def.kernel(DeviceType::cuda)) GTEST_SKIP() << "Strata was built without cuDNN, on which this op's CUDA kernel is written";
#ifdef STRATA_WITH_CUDNN
  // The recurrent ops' own kernels, whose workspace output is the CPU's: where cuDNN
  // takes a run (CudnnRnn.* below) the workspace output holds something else.
  const bool cudnn_rnn = cuda::cudnn_rnn_enabled();
  cuda::set_cudnn_rnn_enabled(false);
  struct Restore {
    bool enabled;
    ~Restore() { cuda::set_cudnn_rnn_enabled(enabled); }
  } restore{cudnn_rnn};
#endif
  cuda::RunContext run(0);
  for (const KernelCase& c : op.cases) {
    const std::vector<Tensor> expected = run_on_cpu(def, c);
    std::vector<Tensor> actual;
    ASSERT_NO_THROW(actual = run_on_cuda(def, c, run)) << describe(GetParam(), c);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
      EXPECT_TRUE(agree(actual[i], expected[i], op.tolerance)) << describe(GetParam(), c) << ", output " << i;
    }
  }
#endif
}

INSTANTIATE_TEST_SUITE_P(Ops, CudaKernel, ::testing::ValuesIn(op_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

#ifdef STRATA_WITH_CUDA

// A CUDA kernel run without its run context is an error naming the op, not a crash
// (checked before anything touches a GPU, so on any machine).
TEST(CudaKernels, AKernelWithoutARunContextIsAnErrorNamingTheOp) {
  const OpDef& def = OpRegistry::global().get("add");
  const KernelCase c{"", {Tensor::scalar(1.f), Tensor::scalar(2.f)}};
  const Node node = node_for(def, c);
  std::vector<Tensor> inputs;  // copies: a variable update writes its inputs
  for (const Tensor& t : c.inputs) inputs.push_back(t.clone());
  std::vector<Tensor> outputs = nan_outputs(node, Device{});
  KernelContext ctx = context_for(node, inputs, outputs);
  const std::string msg = message_of([&] { def.on(DeviceType::cuda)->run(ctx); });
  EXPECT_NE(msg.find("op 'add'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("without a CUDA run context"), std::string::npos) << msg;
}

// CUDA and cuBLAS failures become strata::Error naming the op, the node, the call and
// CUDA's own name and description of the error.
TEST(CudaKernels, CudaErrorsNameTheOpTheCallAndCudasMessage) {
  Node node;
  node.op = "matmul";
  node.name = "dense_3/matmul";
  const KernelContext ctx{node, {}, {}};
  std::string msg = message_of([&] { cuda::check(cudaErrorInvalidValue, ctx, "cudaMemsetAsync"); });
  EXPECT_NE(msg.find("op 'matmul' (node 'dense_3/matmul')"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cudaMemsetAsync failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cudaErrorInvalidValue"), std::string::npos) << msg;
  msg = message_of([&] { cuda::check(CUBLAS_STATUS_INVALID_VALUE, ctx, "cublasSgemm"); });
  EXPECT_NE(msg.find("cublasSgemm failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos) << msg;
  EXPECT_NO_THROW(cuda::check(cudaSuccess, ctx, "cudaMemsetAsync"));
}

#ifdef STRATA_WITH_CUDNN
// cuDNN failures too: the op, the node, the call and cuDNN's name of the status.
TEST(CudaKernels, CudnnErrorsNameTheOpTheCallAndCudnnsStatus) {
  Node node;
  node.op = "conv2d";
  node.name = "conv2d_1/conv2d";
  const KernelContext ctx{node, {}, {}};
  const std::string msg = message_of([&] { cuda::check(CUDNN_STATUS_NOT_SUPPORTED, ctx, "cudnnConvolutionForward"); });
  EXPECT_NE(msg.find("op 'conv2d' (node 'conv2d_1/conv2d')"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cudnnConvolutionForward failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("CUDNN_STATUS_NOT_SUPPORTED"), std::string::npos) << msg;
  EXPECT_NO_THROW(cuda::check(CUDNN_STATUS_SUCCESS, ctx, "cudnnConvolutionForward"));
}
#endif

TEST(CudaRunContext, AMissingDeviceIsAClearError) {
  const int missing = has_cuda_device() ? 1000 : 0;
  const std::string msg = message_of([&] { cuda::RunContext run(missing); });
  EXPECT_NE(msg.find("cuda:" + std::to_string(missing)), std::string::npos) << msg;
  EXPECT_NE(msg.find("not available"), std::string::npos) << msg;
}

// A kernel handed a tensor on the host refuses it, naming the op and both devices,
// instead of reading host memory on the GPU.
TEST(CudaRunContext, AKernelRefusesAnInputOnTheCpu) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  const Device gpu = parse_device("cuda:0");
  cuda::RunContext run(0);
  const OpDef& def = OpRegistry::global().get("mul");
  const KernelCase c{"", {uniform({4, 3}, -1, 1, 1), uniform({4, 3}, -1, 1, 2)}};
  const Node node = node_for(def, c);
  std::vector<Tensor> inputs{c.inputs[0].to(gpu), c.inputs[1]};
  std::vector<Tensor> outputs = nan_outputs(node, gpu);
  KernelContext ctx = context_for(node, inputs, outputs);
  ctx.device_run = &run;
  const std::string msg = message_of([&] { def.on(DeviceType::cuda)->run(ctx); });
  EXPECT_NE(msg.find("op 'mul'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("input 1 is on cpu:0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cuda:0"), std::string::npos) << msg;
}

// Kernels only enqueue: many launches on one run context, then one synchronize, and
// the results are those of launches run one at a time.
TEST(CudaRunContext, KernelsEnqueuedBackToBackRunInOrder) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  const Device gpu = parse_device("cuda:0");
  cuda::RunContext run(0);
  const OpDef& add = OpRegistry::global().get("add");
  const KernelCase c{"", {uniform({512, 129}, -1, 1, 3), Tensor::filled({129}, 1.f)}};
  const Node node = node_for(add, c);
  Tensor acc = c.inputs[0].to(gpu), one = c.inputs[1].to(gpu);
  Tensor next(acc.shape(), DType::float32, gpu);
  for (int step = 0; step < 50; ++step) {  // acc = acc + 1, fifty times, ping-ponging buffers
    std::vector<Tensor> inputs{acc, one}, outputs{next};
    KernelContext ctx = context_for(node, inputs, outputs);
    ctx.device_run = &run;
    add.on(DeviceType::cuda)->run(ctx);
    std::swap(acc, next);
  }
  run.synchronize();
  Tensor expected = c.inputs[0].clone();
  for (float& v : expected.values<float>())
    for (int step = 0; step < 50; ++step) v += 1.f;
  EXPECT_TRUE(agree(acc.to(Device{}), expected, 0.f));
}

// A token id outside [0, input_dim): the CPU kernels throw at once; the CUDA kernels
// only enqueue, report it through the run context, and its synchronize throws the CPU's
// ValueError with the CPU's message. The report is cleared with it: the next run on the
// same context synchronizes cleanly and gives the CPU's values.
TEST(CudaEmbedding, AnOutOfRangeIdIsTheCpusErrorWhenTheRunSynchronizes) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  const Device gpu = parse_device("cuda:0");
  cuda::RunContext run(0);
  const Attrs layer{{"layer", std::string("Embedding 'embedding'")}};
  const Tensor table = uniform({10, 3}, -1, 1, 5);
  const Tensor g = uniform({2, 2, 3}, -1, 1, 6);
  const Tensor bad_ids = Tensor::from_vector<std::int64_t>(Shape{2, 2}, {1, 4, 12, 3});
  const Tensor good_ids = Tensor::from_vector<std::int64_t>(Shape{2, 2}, {1, 4, 9, 4});
  for (const std::string op : {"embedding_lookup", "embedding_lookup_grad"}) {
    const OpDef& def = OpRegistry::global().get(op);
    const auto case_for = [&](const Tensor& ids) {
      return op == "embedding_lookup" ? KernelCase{"", {table, ids}, layer} : KernelCase{"", {g, ids, table}, layer};
    };
    const std::string expected = message_of([&] { run_on_cpu(def, case_for(bad_ids)); });
    ASSERT_NE(expected.find("Embedding 'embedding': token id 12 at index 2 is out of range [0, 10)"),
              std::string::npos)
        << expected;

    const KernelCase bad = case_for(bad_ids);
    const Node node = node_for(def, bad);
    std::vector<Tensor> inputs;
    for (const Tensor& t : bad.inputs) inputs.push_back(t.to(gpu));
    std::vector<Tensor> outputs = nan_outputs(node, gpu);
    KernelContext ctx = context_for(node, inputs, outputs);
    ctx.device_run = &run;
    ASSERT_NO_THROW(def.on(DeviceType::cuda)->run(ctx)) << op << ": the kernel only enqueues";
    try {
      run.synchronize();
      ADD_FAILURE() << op << ": synchronize did not report the bad id";
    } catch (const ValueError& e) {
      EXPECT_EQ(std::string(e.what()), expected) << op;
    }

    std::vector<Tensor> good;
    ASSERT_NO_THROW(good = run_on_cuda(def, case_for(good_ids), run)) << op << ": the report was not cleared";
    EXPECT_TRUE(agree(good[0], run_on_cpu(def, case_for(good_ids))[0], 0.f)) << op;
  }
}

// Dense with a bias or a relu runs as one cuBLASLt product with both in its epilogue
// (core/cuda/dense_epilogue.h), planned once per geometry: the results match the CPU's,
// the products went through the epilogue (not the classic fallback), and a second step on
// the same run context plans nothing and gives the same bits.
TEST(CudaDenseEpilogue, BiasAndReluRunInOneCublasLtProductPlannedOncePerGeometry) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  cuda::RunContext run(0);
  const OpDef& def = OpRegistry::global().get("dense");
  std::vector<KernelCase> cases;
  for (const KernelCase& c : dense_cases().cases) {
    const bool empty = c.inputs[0].size() == 0;
    const bool fused = c.inputs.size() == 3 || c.attrs.has("activation");
    if (fused && !empty) cases.push_back(c);
  }
  ASSERT_EQ(cases.size(), 5u) << "bias; bias and relu; relu alone; 3-D; 256x300 . 300x129";
  const auto step = [&] {
    std::vector<Tensor> outputs;
    for (const KernelCase& c : cases) {
      outputs.push_back(run_on_cuda(def, c, run).at(0));
      EXPECT_TRUE(agree(outputs.back(), run_on_cpu(def, c)[0], 1e-4f)) << describe("dense", c);
    }
    return outputs;
  };
  const std::vector<Tensor> first = step();
  const cuda::DenseEpilogue& epilogue = run.dense_epilogue();
  EXPECT_EQ(epilogue.plans().built(), 5);
  EXPECT_EQ(epilogue.products(), 5) << "cuBLASLt offered no algorithm for some dense shapes";
  const std::vector<Tensor> second = step();
  EXPECT_EQ(epilogue.plans().built(), 5) << "the second step planned again";
  EXPECT_EQ(epilogue.products(), 10);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(std::memcmp(first[i].raw_data(), second[i].raw_data(), sizeof(float) * first[i].size()), 0)
        << cases[i].label << ": the second step's bits differ from the first's";
  }
}

// The other processes of a job, as tests/core/collective_op_cases.cc plays them:
// `others` samples whose gradients were all `value`, added to the sum when it completes.
// Either a communicator that sums host memory only (the CUDA kernels stage each bucket
// through pinned host memory) or one that sums device memory on the run's stream (as NCCL).
class OtherProcesses : public Collective {
 public:
  OtherProcesses(float others, float value, bool on_device) : others_(others), value_(value), on_device_(on_device) {}
  void start_all_reduce(float* data, std::int64_t count) override { started(data, count); }
  void wait_all_reduce(float* data) override {
    EXPECT_EQ(data, pending_) << "waited for another buffer than was started";
    add_others(data);
  }
  bool reduces_cuda_memory(int device) override {
    EXPECT_EQ(device, 0);
    return on_device_;
  }
  void start_cuda_all_reduce(float* data, std::int64_t count, void*) override { started(data, count); }
  void wait_cuda_all_reduce(float* data, void* stream) override {
    EXPECT_EQ(data, pending_) << "waited for another buffer than was started";
    auto* s = static_cast<cudaStream_t>(stream);
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(count_);
    std::vector<float> host(static_cast<std::size_t>(count_));
    cuda::check(cudaMemcpyAsync(host.data(), data, bytes, cudaMemcpyDeviceToHost, s), "test: reading the bucket");
    cuda::check(cudaStreamSynchronize(s), "test: reading the bucket");
    add_others(host.data());
    cuda::check(cudaMemcpyAsync(data, host.data(), bytes, cudaMemcpyHostToDevice, s), "test: writing the sum");
    cuda::check(cudaStreamSynchronize(s), "test: writing the sum");
  }
  int starts = 0, waits = 0;

 private:
  void started(float* data, std::int64_t count) {
    pending_ = data;
    count_ = count;
    ++starts;
  }
  void add_others(float* data) {
    for (std::int64_t i = 0; i + 1 < count_; ++i) data[i] += others_ * value_;
    data[count_ - 1] += others_;
    ++waits;
  }
  float others_, value_;
  bool on_device_;
  float* pending_ = nullptr;
  std::int64_t count_ = 0;
};

// A step's all-reduce on cuda:0 against the same on the CPU, with the same other
// processes: column sums of the batch and their total, each scaled by this process's
// sample count, summed with the others' and divided by the summed count — exactly the
// CPU's numbers (whole numbers and powers of two: no rounding differs). Twice, so the
// second step reuses the staging buffer; and a process without samples adds zeros.
void expect_all_reduce_on_the_gpu_as_on_the_cpu(bool on_device) {
  Graph g;
  Output batch = g.placeholder({Shape{kUnknownDim, 2}, DType::float32}, "x");
  Output grad = ops::reduce_sum(batch, {0});
  Output scalar = ops::reduce_sum(grad);
  auto reduced = ops::all_reduce_wait(ops::all_reduce_start(batch, {grad, scalar}), {grad, scalar});
  const Device gpu{DeviceType::cuda, 0, ""};
  Program on_cpu(g, {batch}, {reduced[0], reduced[1]});
  Program on_gpu(g, {batch}, {reduced[0], reduced[1]}, {}, gpu);
  Tensor x(Shape{3, 2});
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i % 2 + 1);
  for (const Tensor& fed : {x, x, Tensor(Shape{0, 2})}) {
    OtherProcesses cpu_peers(5, 1.f, false), gpu_peers(5, 1.f, on_device);
    const auto expected = on_cpu.run({fed}, {.collective = &cpu_peers});
    std::vector<Tensor> actual;
    ASSERT_NO_THROW(actual = on_gpu.run({fed}, {.collective = &gpu_peers}));
    EXPECT_EQ(gpu_peers.starts, 1);
    EXPECT_EQ(gpu_peers.waits, 1);
    ASSERT_EQ(actual.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      ASSERT_EQ(actual[i].shape(), expected[i].shape());
      for (std::int64_t j = 0; j < expected[i].size(); ++j) {
        EXPECT_EQ(actual[i].item(j), expected[i].item(j)) << "fetch " << i << ", element " << j << ", "
                                                          << fed.shape()[0] << " samples";
      }
    }
  }
  EXPECT_THROW(on_gpu.run({x}), Error);  // a run without a communicator, as on the CPU
}

TEST(CudaAllReduce, ThroughHostMemoryMatchesTheCpu) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  expect_all_reduce_on_the_gpu_as_on_the_cpu(false);
}

TEST(CudaAllReduce, OnTheDeviceMatchesTheCpu) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  expect_all_reduce_on_the_gpu_as_on_the_cpu(true);
}

#ifdef STRATA_WITH_CUDNN

// The cuDNN convolutions keep their descriptors and algorithm per geometry in the run
// context, which one execution state owns (core/cuda/cudnn_conv_plan_cache.h). A
// training step's conv2d (bias, relu), input gradient and filter gradient build three
// plans; the same step again on that run context builds none and gives the same bits; a
// smaller last batch builds three of its own, and the first three stay.
TEST(CudaConvPlans, ASecondStepBuildsNoPlanAndGivesTheSameBits) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  cuda::RunContext run(0);
  ConvCase geometry = conv_geometries()[2];  // Keras's asymmetric "same": the padded path too
  ASSERT_NE(geometry.label.find("pads 0 top, 1 bottom"), std::string::npos) << geometry.label;
  const std::vector<std::string> ops{"conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"};
  // Each op's outputs on the GPU, checked against the CPU kernel's.
  const auto step = [&](const ConvCase& c) {
    std::vector<Tensor> outputs;
    std::uint64_t seed = 4200;
    for (const std::string& op : ops) {
      const OpDef& def = OpRegistry::global().get(op);
      const KernelCase kc = conv_case(op, c, seed);
      outputs.push_back(run_on_cuda(def, kc, run).at(0));
      EXPECT_TRUE(agree(outputs.back(), run_on_cpu(def, kc)[0], 1e-4f)) << describe(op, kc);
      seed += 3;
    }
    return outputs;
  };

  const std::vector<Tensor> first = step(geometry);
  const cuda::ConvPlanCache& plans = run.conv_plans();
  EXPECT_EQ(plans.built(), 3);
  const std::vector<Tensor> second = step(geometry);
  EXPECT_EQ(plans.built(), 3) << "the second step made a plan";
  EXPECT_EQ(plans.hits(), 3);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    ASSERT_EQ(first[i].shape(), second[i].shape()) << ops[i];
    EXPECT_EQ(std::memcmp(first[i].raw_data(), second[i].raw_data(), size_of(DType::float32) * first[i].size()), 0)
        << ops[i] << ": the second step's bits differ from the first's";
  }

  geometry.x = Shape{1, 8, 10, 3};  // the last, smaller batch
  step(geometry);
  EXPECT_EQ(plans.built(), 6);
  EXPECT_EQ(plans.size(), 6u);
  EXPECT_EQ(plans.evicted(), 0);
}

namespace {

// Sets cuDNN's RNN switch for a scope, and back to what it was after, whatever happens.
class CudnnRnnSwitch {
 public:
  explicit CudnnRnnSwitch(bool enabled) : before_(cuda::cudnn_rnn_enabled()) { cuda::set_cudnn_rnn_enabled(enabled); }
  ~CudnnRnnSwitch() { cuda::set_cudnn_rnn_enabled(before_); }
  CudnnRnnSwitch(const CudnnRnnSwitch&) = delete;
  CudnnRnnSwitch& operator=(const CudnnRnnSwitch&) = delete;

 private:
  bool before_;
};

// Tensors on `device`, and pointers to them for a KernelContext.
struct OnDevice {
  std::vector<Tensor> tensors;
  std::vector<const Tensor*> in() const {
    std::vector<const Tensor*> out;
    for (const Tensor& t : tensors) out.push_back(&t);
    return out;
  }
  std::vector<Tensor*> out() {
    std::vector<Tensor*> pointers;
    for (Tensor& t : tensors) pointers.push_back(&t);
    return pointers;
  }
};

OnDevice on_device(const Device& device, const std::vector<Tensor>& tensors) {
  OnDevice on;
  for (const Tensor& t : tensors) on.tensors.push_back(t.to(device));
  return on;
}

// Runs `node`'s CUDA kernel in `r`'s mode on `run`, and brings its outputs to the host.
std::vector<Tensor> run_rnn_on_cuda(const RnnCase& r, const Node& node, const OnDevice& inputs, OnDevice& outputs,
                                    cuda::RunContext& run) {
  KernelContext ctx = rnn_context(r, node, inputs.in(), outputs.out());
  ctx.device_run = &run;
  node.def->on(DeviceType::cuda)->run(ctx);
  run.synchronize();
  std::vector<Tensor> back;
  for (const Tensor& t : outputs.tensors) back.push_back(t.to(Device{}));
  return back;
}

// The gradient node of forward node `forward_id`: `grad_inputs`' shapes, and that node's
// workspace output as its input 6, as autodiff wires it.
Node rnn_grad_node_of(const RnnCase& r, std::uint64_t seed, const std::vector<Tensor>& grad_inputs, int forward_id) {
  Node grad = rnn_node("rnn_sequence_grad", r, seed, grad_inputs);
  grad.inputs.resize(grad_inputs.size());
  grad.inputs[6].node = forward_id;
  grad.inputs[6].index = 3;
  return grad;
}

// `grad_inputs` on `device`, with `workspace` (a forward pass's output there) as input 6.
OnDevice rnn_grad_inputs_on(const Device& device, const std::vector<Tensor>& grad_inputs, const Tensor& workspace) {
  OnDevice on;
  for (std::size_t i = 0; i < grad_inputs.size(); ++i) {
    on.tensors.push_back(i == 6 ? workspace : grad_inputs[i].to(device));
  }
  return on;
}

}  // namespace

// cuDNN's RNN takes a subset of the runs Keras gives it (core/cuda/cudnn_rnn.h). For each
// such configuration — LSTM and GRU, each direction and output order, input dropout, in
// training and in inference — the forward pass runs on cuDNN and gives the CPU kernel's
// y, h and c. The gradient op whose workspace input is that forward node's output in the
// same step runs on cuDNN too and gives the CPU gradient's six outputs; so does a second
// gradient of the same pass (cuDNN's backward pass wrote into the reserve the first one
// used, so the forward pass runs again), and a gradient of an inference pass (which kept
// no reserve). Fed the CPU's workspace instead, the gradient runs the own kernels. A
// masked run, recurrent dropout and the switch off stay on the own kernels.
TEST(CudnnRnn, QualifyingRunsTakeCudnnAndMatchTheCpu) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  if (!cuda::cudnn_rnn_enabled()) GTEST_SKIP() << "STRATA_CUDNN_RNN=0 turns cuDNN's RNN off";
  const Device gpu{DeviceType::cuda, 0, ""};
  cuda::RunContext run(0);
  std::vector<RnnCase> cases{
      {.label = "lstm", .cell = "lstm", .batch = 4, .steps = 6, .features = 5, .units = 7},
      {.label = "gru reset_after", .cell = "gru", .batch = 4, .steps = 6, .features = 5, .units = 7},
      {.label = "lstm go_backwards", .cell = "lstm", .batch = 3, .steps = 5, .features = 4, .units = 6,
       .go_backwards = true},
      {.label = "lstm go_backwards on input in processing order, reverse_output", .cell = "lstm", .batch = 3,
       .steps = 5, .features = 4, .units = 6, .go_backwards = true, .input_in_processing_order = true,
       .reverse_output = true},
      {.label = "gru go_backwards, reverse_output", .cell = "gru", .batch = 5, .steps = 7, .features = 3,
       .units = 8, .go_backwards = true, .reverse_output = true},
      {.label = "lstm dropout 0.3, go_backwards", .cell = "lstm", .batch = 6, .steps = 5, .features = 4, .units = 6,
       .go_backwards = true, .dropout = 0.3, .sample_offset = 2},
      {.label = "gru dropout 0.4, input in processing order", .cell = "gru", .batch = 5, .steps = 4, .features = 6,
       .units = 5, .go_backwards = true, .input_in_processing_order = true, .dropout = 0.4, .step = 3},
      {.label = "gru dropout 0.25 and recurrent_dropout 0.4 (outside training only)", .cell = "gru", .batch = 4,
       .steps = 5, .features = 6, .units = 5, .dropout = 0.25, .recurrent_dropout = 0.4},
      {.label = "lstm 33x20x40 into 64 units", .cell = "lstm", .batch = 33, .steps = 20, .features = 40,
       .units = 64},
      {.label = "gru, one unit", .cell = "gru", .batch = 2, .steps = 3, .features = 4, .units = 1},
  };
  std::uint64_t seed = 3300;
  for (bool training : {true, false}) {
    for (RnnCase r : cases) {
      // Recurrent dropout in training is not cuDNN's: that case runs outside training only.
      if (training && r.recurrent_dropout > 0) continue;
      r.training = training;
      r.step = training ? 7 : 8;
      SCOPED_TRACE(r.label + (training ? ", in training" : ", in inference"));
      const std::vector<Tensor> inputs = rnn_inputs(r, seed);
      const std::vector<Tensor> expected = rnn_cpu_forward(r, seed, inputs);
      Node forward = rnn_node("rnn_sequence", r, seed, inputs);
      forward.id = 3;
      const OnDevice gpu_inputs = on_device(gpu, inputs);
      OnDevice outputs{nan_outputs(forward, gpu)};
      const std::int64_t calls = cuda::cudnn_rnn_calls();
      std::vector<Tensor> got;
      ASSERT_NO_THROW(got = run_rnn_on_cuda(r, forward, gpu_inputs, outputs, run));
      EXPECT_EQ(cuda::cudnn_rnn_calls(), calls + 1) << "the forward pass ran on cuDNN";
      for (int i = 0; i < 3; ++i) EXPECT_TRUE(agree(got[i], expected[i], 1e-4f)) << "output " << i;

      // Its gradient: the CPU's fed the CPU's workspace, the GPU's fed the GPU pass's,
      // with the same output gradients; twice, as two gradient nodes of one pass.
      const std::vector<Tensor> grad_inputs = rnn_grad_inputs(r, seed);
      Node grad = rnn_grad_node_of(r, seed, grad_inputs, forward.id);
      const std::vector<Tensor> cpu_grads = rnn_run_on_cpu(r, grad, grad_inputs);
      OnDevice gpu_grad_inputs = rnn_grad_inputs_on(gpu, grad_inputs, outputs.tensors[3]);
      for (int id : {4, 5}) {
        grad.id = id;
        OnDevice grads{nan_outputs(grad, gpu)};
        std::vector<Tensor> gpu_grads;
        ASSERT_NO_THROW(gpu_grads = run_rnn_on_cuda(r, grad, gpu_grad_inputs, grads, run)) << "gradient node " << id;
        EXPECT_EQ(cuda::cudnn_rnn_calls(), calls + 1 + (id - 3)) << "gradient node " << id << " ran on cuDNN";
        for (std::size_t i = 0; i < gpu_grads.size(); ++i) {
          EXPECT_TRUE(agree(gpu_grads[i], cpu_grads[i], 1e-4f)) << "gradient node " << id << ", output " << i;
        }
      }

      // The same gradient with its workspace from elsewhere (the CPU's): the own kernels.
      gpu_grad_inputs.tensors[6] = grad_inputs[6].to(gpu);
      OnDevice own{nan_outputs(grad, gpu)};
      std::vector<Tensor> own_grads;
      ASSERT_NO_THROW(own_grads = run_rnn_on_cuda(r, grad, gpu_grad_inputs, own, run));
      EXPECT_EQ(cuda::cudnn_rnn_calls(), calls + 3) << "a workspace no cuDNN forward pass wrote";
      for (std::size_t i = 0; i < own_grads.size(); ++i) {
        EXPECT_TRUE(agree(own_grads[i], cpu_grads[i], 1e-4f)) << "own kernels' gradient output " << i;
      }
      seed += 10;
    }
  }

  // A node whose cuDNN pass is followed by a pass that declines (the switch off) with the
  // same step and the same outputs, as runs that repeat a step can: the gradient must
  // not take the earlier pass's record for this one's.
  {
    RnnCase r{.label = "lstm", .cell = "lstm", .batch = 4, .steps = 6, .features = 5, .units = 7,
              .training = true, .step = 20};
    SCOPED_TRACE("a cuDNN pass, then a declined one");
    const std::vector<Tensor> inputs = rnn_inputs(r, seed);
    Node forward = rnn_node("rnn_sequence", r, seed, inputs);
    forward.id = 3;
    const OnDevice gpu_inputs = on_device(gpu, inputs);
    OnDevice outputs{nan_outputs(forward, gpu)};
    const std::int64_t calls = cuda::cudnn_rnn_calls();
    ASSERT_NO_THROW(run_rnn_on_cuda(r, forward, gpu_inputs, outputs, run));
    ASSERT_EQ(cuda::cudnn_rnn_calls(), calls + 1);
    {
      CudnnRnnSwitch off(false);
      ASSERT_NO_THROW(run_rnn_on_cuda(r, forward, gpu_inputs, outputs, run));  // the same outputs, so the same address
    }
    const std::vector<Tensor> grad_inputs = rnn_grad_inputs(r, seed);
    Node grad = rnn_grad_node_of(r, seed, grad_inputs, forward.id);
    grad.id = 4;
    const std::vector<Tensor> cpu_grads = rnn_run_on_cpu(r, grad, grad_inputs);
    const OnDevice gpu_grad_inputs = rnn_grad_inputs_on(gpu, grad_inputs, outputs.tensors[3]);
    OnDevice grads{nan_outputs(grad, gpu)};
    std::vector<Tensor> got;
    ASSERT_NO_THROW(got = run_rnn_on_cuda(r, grad, gpu_grad_inputs, grads, run));
    EXPECT_EQ(cuda::cudnn_rnn_calls(), calls + 1) << "the own kernels, on the declined pass's workspace";
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(agree(got[i], cpu_grads[i], 1e-4f)) << "output " << i;
    seed += 10;
  }

  // Runs cuDNN does not take: a mask, recurrent dropout in training; any run with the
  // switch off. The own kernels write the CPU's workspace too.
  const std::vector<RnnCase> declined{
      {.label = "lstm masked", .cell = "lstm", .batch = 4, .steps = 6, .features = 5, .units = 7, .masked = true},
      {.label = "gru recurrent_dropout 0.4 in training", .cell = "gru", .batch = 4, .steps = 5, .features = 6,
       .units = 5, .recurrent_dropout = 0.4, .training = true, .step = 9},
      {.label = "lstm, switch off", .cell = "lstm", .batch = 4, .steps = 6, .features = 5, .units = 7},
  };
  for (const RnnCase& r : declined) {
    SCOPED_TRACE(r.label);
    const std::vector<Tensor> inputs = rnn_inputs(r, seed);
    const std::vector<Tensor> expected = rnn_cpu_forward(r, seed, inputs);
    const Node node = rnn_node("rnn_sequence", r, seed, inputs);
    const OnDevice gpu_inputs = on_device(gpu, inputs);
    OnDevice outputs{nan_outputs(node, gpu)};
    const std::int64_t calls = cuda::cudnn_rnn_calls();
    std::vector<Tensor> got;
    {
      CudnnRnnSwitch as_asked(r.label.find("switch off") == std::string::npos);
      ASSERT_NO_THROW(got = run_rnn_on_cuda(r, node, gpu_inputs, outputs, run));
    }
    EXPECT_EQ(cuda::cudnn_rnn_calls(), calls);
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(agree(got[i], expected[i], 1e-4f)) << "output " << i;
    seed += 10;
  }
}

#endif  // STRATA_WITH_CUDNN

#endif  // STRATA_WITH_CUDA

}  // namespace cuda_kernels_test
