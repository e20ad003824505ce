#include "core/inference_rewrite.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/batch_norm_ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/layer_norm_ops.h"

namespace strata {
namespace {

// The part of the graph a pass sees: the nodes the roots need, and how many readers each
// output has among them (a root counts as a reader: its value must stay).
class Reach {
 public:
  Reach(const Graph& graph, const std::vector<Output>& roots)
      : graph_(graph), needed_(static_cast<std::size_t>(graph.num_nodes()), 0) {
    std::vector<int> stack;
    for (const Output& r : roots) {
      stack.push_back(r.node);
      ++readers_[r];
      reader_[r] = -1;  // a root: read by the program's caller
    }
    while (!stack.empty()) {
      const int id = stack.back();
      stack.pop_back();
      if (needed_[static_cast<std::size_t>(id)]) continue;
      needed_[static_cast<std::size_t>(id)] = 1;
      for (const Output& in : graph.node(id).inputs) {
        ++readers_[in];
        reader_[in] = id;
        stack.push_back(in.node);
      }
    }
    // Values computed from variables and constants alone, in node order (topological).
    invariant_.resize(needed_.size(), 0);
    for (int id = 0; id < graph.num_nodes(); ++id) {
      const Node& node = graph.node(id);
      const OpDef& def = *node.def;
      if (node.op == "variable") {
        invariant_[static_cast<std::size_t>(id)] = 1;
      } else if (!def.fed && !def.random && !def.stateful && !def.reads_mode) {
        bool all = true;
        for (const Output& in : node.inputs) all = all && invariant_[static_cast<std::size_t>(in.node)];
        invariant_[static_cast<std::size_t>(id)] = all ? 1 : 0;
      }
    }
  }

  bool needed(int id) const { return needed_[static_cast<std::size_t>(id)] != 0; }
  int readers(const Output& o) const {
    auto it = readers_.find(o);
    return it == readers_.end() ? 0 : it->second;
  }
  // The node that reads o, when o has one reader and it is a node (not a root); else null.
  const Node* sole_reader(const Output& o) const {
    auto it = reader_.find(o);
    if (readers(o) != 1 || it == reader_.end() || it->second < 0) return nullptr;
    return &graph_.node(it->second);
  }
  bool invariant(const Output& o) const { return invariant_[static_cast<std::size_t>(o.node)] != 0; }
  const Node& node(const Output& o) const { return graph_.node(o.node); }

 private:
  const Graph& graph_;
  std::vector<char> needed_, invariant_;
  std::map<Output, int> readers_;
  std::map<Output, int> reader_;  // the last reader found (the only one where readers_ is 1)
};

// One pass: visits the needed nodes in order; `rule` may give a node's replacement
// outputs (built from the pass's mapped inputs, `mapped`), and a node whose inputs were
// replaced is copied onto them. Returns the roots' replacements.
using Mapped = std::function<Output(const Output&)>;
using Rule = std::function<std::optional<std::vector<Output>>(const Node& node, const Reach& reach, const Mapped& mapped)>;

std::vector<Output> run_pass(Graph& graph, const std::vector<Output>& roots, const Rule& rule) {
  const Reach reach(graph, roots);
  const int n = graph.num_nodes();  // nodes the pass adds come after these
  std::vector<std::vector<Output>> replaced(static_cast<std::size_t>(n));
  const Mapped mapped = [&](const Output& o) {
    const auto& r = replaced[static_cast<std::size_t>(o.node)];
    return r.empty() ? o : r[static_cast<std::size_t>(o.index)];
  };
  for (int id = 0; id < n; ++id) {
    if (!reach.needed(id)) continue;
    const Node& node = graph.node(id);  // a deque's element: stays put while nodes are added
    if (std::optional<std::vector<Output>> out = rule(node, reach, mapped)) {
      replaced[static_cast<std::size_t>(id)] = std::move(*out);
      continue;
    }
    std::vector<Output> inputs;
    bool changed = false;
    for (const Output& in : node.inputs) {
      inputs.push_back(mapped(in));
      changed = changed || !(inputs.back() == in);
    }
    if (!changed) continue;
    std::vector<Output> copy = graph.add_node(node.op, inputs, node.attrs, node.name);
    // An update (assign) has no outputs: its handle is the node itself, as ops::assign
    // gives it. Without it a root update would stay the old node, and the next pass would
    // find the old graph's foldable patterns again, and again (a stateful ConvLSTM's).
    if (copy.empty()) copy.push_back(Output{&graph, graph.num_nodes() - 1, 0});
    replaced[static_cast<std::size_t>(id)] = std::move(copy);
  }
  std::vector<Output> out;
  for (const Output& r : roots) out.push_back(mapped(r));
  return out;
}

// 1. The mode resolved, and copies dropped.
std::vector<Output> resolve_modes(Graph& graph, const std::vector<Output>& roots, InferenceRewrites& report) {
  return run_pass(graph, roots, [&](const Node& node, const Reach&, const Mapped& mapped)
                                    -> std::optional<std::vector<Output>> {
    if (node.op == "training_select") {
      ++report.modes_resolved;
      return std::vector<Output>{mapped(node.inputs[1])};
    }
    if (node.op == "batch_normalization") {  // the moving statistics' normalization (batch_norm_ops.h)
      ++report.modes_resolved;
      const Output moving_mean = mapped(node.inputs[3]), moving_variance = mapped(node.inputs[4]);
      const Output y = ops::batch_normalization_inference(
          mapped(node.inputs[0]), mapped(node.inputs[1]), mapped(node.inputs[2]), moving_mean, moving_variance,
          static_cast<int>(node.attrs.get<std::int64_t>("axis")), static_cast<float>(node.attrs.get<double>("epsilon")));
      return std::vector<Output>{y, moving_mean, moving_variance};
    }
    if (node.op == "dropout") {  // identity outside training (nn_ops.cc)
      ++report.modes_resolved;
      return std::vector<Output>{mapped(node.inputs[0])};
    }
    // A copy, except of a fed value or a variable: a fetch must stay a computed value.
    if ((node.op == "identity" || node.op == "stop_gradient") && !graph.node(mapped(node.inputs[0]).node).def->fed) {
      ++report.identities_dropped;
      return std::vector<Output>{mapped(node.inputs[0])};
    }
    // x times ones made from x's own shape (fill_like of x, with axes collapsed or not): a
    // noise-shaped Dropout's mask (of ones, resolved above) in inference, which left a
    // pass over x and kept a residual add from fusing into the product before it
    // (EfficientNet's blocks). Ones made from another tensor may broadcast x to that
    // tensor's run-time shape: they stay.
    if (node.op == "mul" && node.inputs.size() == 2) {
      for (int side = 0; side < 2; ++side) {
        const Output x = mapped(node.inputs[static_cast<std::size_t>(side)]);
        const Node& ones = graph.node(mapped(node.inputs[static_cast<std::size_t>(1 - side)]).node);
        if (ones.op != "fill_like" || ones.attrs.get<double>("value") != 1.0 || !(ones.inputs[0] == x)) continue;
        if (!(x.shape() == node.outputs[0].shape) || x.dtype() != node.outputs[0].dtype ||
            graph.node(x.node).def->fed) {
          continue;
        }
        ++report.identities_dropped;
        return std::vector<Output>{x};
      }
    }
    return std::nullopt;
  });
}

// A per-channel operand of x: invariant, and shaped (1, ..., 1, C) for x's last dim C.
bool per_channel(const Reach& reach, const Output& operand, const Output& x) {
  const Shape& s = operand.shape();
  const Shape& xs = x.shape();
  if (!reach.invariant(operand) || s.rank() < 1 || s.rank() > xs.rank() || xs.rank() < 2) return false;
  const std::int64_t channels = xs.dims().back();
  if (channels < 0 || s.dims().back() != channels) return false;
  for (int i = 0; i + 1 < s.rank(); ++i) {
    if (s.dims()[static_cast<std::size_t>(i)] != 1) return false;
  }
  return true;
}

// The other operand of a commutative binary node, when `one` is one of its inputs.
std::optional<Output> other_operand(const Node& node, const Output& one) {
  if (node.inputs.size() != 2) return std::nullopt;
  if (node.inputs[0] == one) return node.inputs[1];
  if (node.inputs[1] == one) return node.inputs[0];
  return std::nullopt;
}

// A conv2d or dense with no activation yet that only x's reader reads; an affine map
// folds into it only if no residual is fused into it yet (the sum would be scaled too),
// an activation either way.
bool foldable_product(const Reach& reach, const Output& x, bool residual_allowed = false) {
  const Node& p = reach.node(x);
  if (p.op != "conv2d" && p.op != "dense") return false;
  if (!residual_allowed && p.attrs.get_or<bool>("residual", false)) return false;
  // An input scale is an operand fold_into_product would take for the bias.
  if (p.attrs.get_or<bool>("input_scale", false)) return false;
  // A product that rounds its output (an emulated bfloat16 layer's) rounds it last: a
  // map, activation or residual folded into it would be rounded too.
  if (output_rounding_of(p) != ComputePrecision::float32) return false;
  const std::string* activation = p.attrs.find<std::string>("activation");
  return (!activation || activation->empty()) && reach.readers(x) == 1;
}

Output channels_of(const Output& v, std::int64_t channels) { return ops::reshape(v, {channels}); }

// A dense_int8 with neither bias nor activation yet that only x's reader reads: a bias
// added after it becomes its own (its kernel holds int8 values, so no scale folds in).
bool int8_product_takes_bias(const Reach& reach, const Output& x) {
  const Node& p = reach.node(x);
  const std::string* activation = p.attrs.find<std::string>("activation");
  return p.op == "dense_int8" && p.inputs.size() == 3 && (!activation || activation->empty()) &&
         reach.readers(x) == 1;
}

// The product p (conv2d or dense, mapped inputs) with y = p·scale + shift folded in:
// kernel·scale (the kernel's last axis is the output channels) and bias·scale + shift.
// `scale` or `shift` may be absent.
Output fold_into_product(Graph& graph, const Node& p, const Mapped& mapped, std::optional<Output> scale,
                         std::optional<Output> shift) {
  const std::int64_t channels = p.outputs[0].shape.dims().back();
  Output kernel = mapped(p.inputs[1]);
  std::optional<Output> bias;
  if (p.inputs.size() == 3) bias = mapped(p.inputs[2]);
  if (scale) {
    const Output s = channels_of(*scale, channels);
    kernel = ops::mul(kernel, s);
    if (bias) bias = ops::mul(*bias, s);
  }
  if (shift) {
    const Output t = channels_of(*shift, channels);
    bias = bias ? ops::add(*bias, t) : t;
  }
  std::vector<Output> inputs{mapped(p.inputs[0]), kernel};
  if (bias) inputs.push_back(*bias);
  return graph.add_node(p.op, inputs, p.attrs, p.name)[0];
}

// 1b. A zero padding of the rows and columns only (ZeroPadding2D) read by a conv2d becomes
// the conv2d's own padding: the convolution reads zeros outside the image anyway, and the
// pad copied and zero-filled the whole activation first (MobileNetV2 pads before each
// stride-2 depthwise layer: 9% of its batch-32 time). Not into pooling, whose padding is
// not zeros. Every device's conv2d takes explicit, uneven pads.
std::vector<Output> fold_pads(Graph& graph, const std::vector<Output>& roots, InferenceRewrites& report) {
  return run_pass(graph, roots, [&](const Node& node, const Reach& reach, const Mapped& mapped)
                                    -> std::optional<std::vector<Output>> {
    if (node.op != "conv2d" || node.inputs.empty()) return std::nullopt;
    const Node& pad = reach.node(node.inputs[0]);
    if (pad.op != "pad") return std::nullopt;
    const auto& before = pad.attrs.get<std::vector<std::int64_t>>("before");
    const auto& after = pad.attrs.get<std::vector<std::int64_t>>("after");
    if (before.size() != 4 || after.size() != 4 || before[0] != 0 || after[0] != 0 || before[3] != 0 ||
        after[3] != 0) {
      return std::nullopt;
    }
    std::vector<std::int64_t> pads = node.attrs.get<std::vector<std::int64_t>>("pads");  // top, bottom, left, right
    // "same" pads over a size known only at run time (kSamePad) take no explicit ones.
    if (std::find(pads.begin(), pads.end(), ops::kSamePad) != pads.end()) return std::nullopt;
    pads[0] += before[1];
    pads[1] += after[1];
    pads[2] += before[2];
    pads[3] += after[2];
    std::vector<Output> inputs{mapped(pad.inputs[0])};
    for (std::size_t i = 1; i < node.inputs.size(); ++i) inputs.push_back(mapped(node.inputs[i]));
    Attrs attrs = node.attrs;
    attrs.set("pads", pads);
    ++report.pads_folded;
    return graph.add_node(node.op, inputs, attrs, node.name);
  });
}

// 2. Per-channel affine maps folded. Matched at the map's last node:
//      add(mul(sub(x, m), s), b)   BatchNormalization (center and scale)
//      mul(sub(x, m), s)           without center
//      add(x, b)                   a bias after a product that has none (DepthwiseConv2D)
// with m, s and b per-channel and invariant, each inner node read only by the next.
std::vector<Output> fold_affines(Graph& graph, const std::vector<Output>& roots, InferenceRewrites& report) {
  return run_pass(graph, roots, [&](const Node& node, const Reach& reach, const Mapped& mapped)
                                    -> std::optional<std::vector<Output>> {
    const Output self{&graph, node.id, 0};
    // The normalization's mul(sub(x, m), s) read by `mul_out`: x, m and s.
    struct Normalized {
      Output x, mean, scale;
    };
    auto normalized = [&](const Output& mul_out) -> std::optional<Normalized> {
      const Node& mul = reach.node(mul_out);
      if (mul.op != "mul" || mul.inputs.size() != 2) return std::nullopt;
      for (int side = 0; side < 2; ++side) {
        const Output d = mul.inputs[static_cast<std::size_t>(side)];
        const Output s = mul.inputs[static_cast<std::size_t>(1 - side)];
        const Node& sub = reach.node(d);
        if (sub.op != "sub" || sub.inputs.size() != 2 || reach.readers(d) != 1) continue;
        const Output x = sub.inputs[0], m = sub.inputs[1];
        if (!(x.shape() == d.shape()) || !(d.shape() == mul_out.shape())) continue;
        if (per_channel(reach, m, x) && per_channel(reach, s, x)) return Normalized{x, m, s};
      }
      return std::nullopt;
    };
    // shift = b − m·s (either absent).
    auto shift_of = [&](const Normalized& n, std::optional<Output> b) {
      const Output ms = ops::mul(mapped(n.mean), mapped(n.scale));
      return b ? ops::sub(mapped(*b), ms) : ops::sub(0.f, ms);
    };
    auto replace = [&](const Normalized& n, std::optional<Output> b) -> std::vector<Output> {
      if (foldable_product(reach, n.x)) {
        ++report.affines_folded;
        return {fold_into_product(graph, reach.node(n.x), mapped, mapped(n.scale), shift_of(n, b))};
      }
      ++report.affines_collapsed;
      return {ops::add(ops::mul(mapped(n.x), mapped(n.scale)), shift_of(n, b))};
    };

    // A product scaled per channel: mul(p, s) with p a foldable product; p and s.
    auto scaled_product = [&](const Output& mul_out) -> std::optional<std::pair<Output, Output>> {
      const Node& mul = reach.node(mul_out);
      if (mul.op != "mul" || mul.inputs.size() != 2) return std::nullopt;
      for (int side = 0; side < 2; ++side) {
        const Output p = mul.inputs[static_cast<std::size_t>(side)];
        const Output s = mul.inputs[static_cast<std::size_t>(1 - side)];
        if (p.shape() == mul_out.shape() && foldable_product(reach, p) && per_channel(reach, s, p)) {
          return std::make_pair(p, s);
        }
      }
      return std::nullopt;
    };

    if (node.op == "add" && node.inputs.size() == 2) {
      for (int side = 0; side < 2; ++side) {
        const Output a = node.inputs[static_cast<std::size_t>(side)];
        const Output b = node.inputs[static_cast<std::size_t>(1 - side)];
        if (!(a.shape() == self.shape()) || !per_channel(reach, b, a)) continue;
        if (reach.readers(a) == 1) {
          if (std::optional<Normalized> n = normalized(a)) return replace(*n, b);
          if (auto ps = scaled_product(a)) {
            ++report.affines_folded;
            return std::vector<Output>{
                fold_into_product(graph, reach.node(ps->first), mapped, mapped(ps->second), mapped(b))};
          }
        }
        if (foldable_product(reach, a)) {
          ++report.affines_folded;
          return std::vector<Output>{fold_into_product(graph, reach.node(a), mapped, std::nullopt, mapped(b))};
        }
        if (int8_product_takes_bias(reach, a)) {
          const Node& p = reach.node(a);
          ++report.affines_folded;
          return graph.add_node("dense_int8",
                                {mapped(p.inputs[0]), mapped(p.inputs[1]), mapped(p.inputs[2]),
                                 channels_of(mapped(b), a.shape().dims().back())},
                                p.attrs, p.name);
        }
      }
      return std::nullopt;
    }
    if (node.op == "mul") {
      std::optional<Normalized> n = normalized(self);
      std::optional<std::pair<Output, Output>> ps = n ? std::nullopt : scaled_product(self);
      if (!n && !ps) return std::nullopt;
      // Left to the add that reads it when that add adds a per-channel b (matched above).
      if (const Node* reader = reach.sole_reader(self); reader && reader->op == "add") {
        if (std::optional<Output> b = other_operand(*reader, self);
            b && per_channel(reach, *b, self) && reader->outputs[0].shape == self.shape()) {
          return std::nullopt;
        }
      }
      if (n) return replace(*n, std::nullopt);
      ++report.affines_folded;
      return std::vector<Output>{fold_into_product(graph, reach.node(ps->first), mapped, mapped(ps->second), std::nullopt)};
    }
    return std::nullopt;
  });
}

// 4. A relu fused into the epilogue of the conv2d, dense or dense_int8 it alone reads; a relu6 or silu
// into a conv2d's when the options allow (their kernels are the CPU's only).
std::vector<Output> fuse_activations(Graph& graph, const std::vector<Output>& roots, const InferenceRewriteOptions& options,
                                     InferenceRewrites& report) {
  return run_pass(graph, roots, [&](const Node& node, const Reach& reach, const Mapped& mapped)
                                    -> std::optional<std::vector<Output>> {
    const bool cpu_only = (node.op == "relu6" || node.op == "silu") && options.cpu_program;
    if (node.op != "relu" && !cpu_only) return std::nullopt;
    const Output& x = node.inputs[0];
    const Node& product = reach.node(x);
    const std::string* fused = product.attrs.find<std::string>("activation");
    const bool int8_product = node.op == "relu" && product.op == "dense_int8" && (!fused || fused->empty()) &&
                              reach.readers(x) == 1;
    if (!int8_product && !foldable_product(reach, x, /*residual_allowed=*/true)) return std::nullopt;
    const Node& p = product;
    if (cpu_only && p.op != "conv2d") return std::nullopt;
    std::vector<Output> inputs;
    for (const Output& in : p.inputs) inputs.push_back(mapped(in));
    Attrs attrs = p.attrs;
    attrs.set("activation", node.op);
    ++report.activations_fused;
    return graph.add_node(p.op, inputs, attrs, p.name);
  });
}

// A copy of conv2d `p` (its inputs mapped) given a fused operand more, in the order
// conv2d's shape inference and CPU kernel read them (x, kernel[, bias][, input scale]
// [, residual]: core/ops/conv_ops.cc), with its attribute set; `x` replaces the input.
struct FusedOperands {
  std::optional<Output> x, input_scale, residual;
};
Output conv2d_with(Graph& graph, const Node& p, const Mapped& mapped, const FusedOperands& fused) {
  const bool had_scale = p.attrs.get_or<bool>("input_scale", false);
  const bool had_residual = p.attrs.get_or<bool>("residual", false);
  const std::size_t operands = p.inputs.size() - (had_scale ? 1 : 0) - (had_residual ? 1 : 0);
  std::vector<Output> inputs{fused.x ? *fused.x : mapped(p.inputs[0])};
  for (std::size_t i = 1; i < operands; ++i) inputs.push_back(mapped(p.inputs[i]));
  Attrs attrs = p.attrs;
  if (fused.input_scale || had_scale) {
    inputs.push_back(fused.input_scale ? *fused.input_scale : mapped(p.inputs[operands]));
    attrs.set("input_scale", true);
  }
  if (fused.residual || had_residual) {
    inputs.push_back(fused.residual ? *fused.residual : mapped(p.inputs.back()));
    attrs.set("residual", true);
  }
  return graph.add_node(p.op, inputs, attrs, p.name)[0];
}

// 3. A residual: add(conv2d, r) with r of the conv2d's shape, the conv2d alone read by the
// add and not depthwise, becomes the conv2d with r as its last input, added in the GEMM's
// epilogue before the activation that step 4 may fuse after it (a ResNet block's
// shortcut, a MobileNetV2 or EfficientNet block's skip connection). The CPU's kernel only.
std::vector<Output> fuse_residuals(Graph& graph, const std::vector<Output>& roots, InferenceRewrites& report) {
  return run_pass(graph, roots, [&](const Node& node, const Reach& reach, const Mapped& mapped)
                                    -> std::optional<std::vector<Output>> {
    if (node.op != "add" || node.inputs.size() != 2) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      const Output& product = node.inputs[side];
      const Output& residual = node.inputs[1 - side];
      if (!foldable_product(reach, product) || reach.node(product).op != "conv2d") continue;
      const Node& p = reach.node(product);
      if (p.attrs.get_or<std::int64_t>("groups", 1) != 1) continue;  // depthwise: its own kernel
      if (residual.shape() != product.shape() || residual.shape() != node.outputs[0].shape ||
          residual.dtype() != DType::float32) {
        continue;
      }
      ++report.residuals_fused;
      return std::vector<Output>{conv2d_with(graph, p, mapped, {.residual = mapped(residual)})};
    }
    return std::nullopt;
  });
}

// 3b. A squeeze-and-excitation block's scale: conv2d(mul(x, s), k) with s (N or 1, 1, 1, C)
// per image and channel and the conv2d pointwise becomes the conv2d with s as an input
// (input_scale): its CPU kernel scales the kernel by s for each image, C·O products where
// the multiplication read and wrote H·W·C values; so only where O < H·W (EfficientNet's
// blocks down to 14×14). The CPU's kernel only.
std::vector<Output> fuse_input_scales(Graph& graph, const std::vector<Output>& roots, InferenceRewrites& report) {
  return run_pass(graph, roots, [&](const Node& node, const Reach& reach, const Mapped& mapped)
                                    -> std::optional<std::vector<Output>> {
    if (node.op != "conv2d" || node.inputs.size() < 2 || node.attrs.get_or<bool>("input_scale", false)) {
      return std::nullopt;
    }
    if (output_rounding_of(node) != ComputePrecision::float32) return std::nullopt;
    const Output& scaled = node.inputs[0];
    const Node& mul = reach.node(scaled);
    if (mul.op != "mul" || mul.inputs.size() != 2 || reach.readers(scaled) != 1) return std::nullopt;
    const Shape& xs = scaled.shape();
    const Shape& k = node.inputs[1].shape();
    if (xs.rank() != 4 || k.rank() != 4 || k.dims()[0] != 1 || k.dims()[1] != 1) return std::nullopt;
    const ops::Conv2DGeometry g = ops::conv2d_geometry(xs, 1, 1, k.dims()[3], node.attrs, "conv2d");
    if (!g.pointwise() || g.h == kUnknownDim || g.w == kUnknownDim || g.o >= g.h * g.w) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      const Output x = mul.inputs[static_cast<std::size_t>(side)];
      const Output s = mul.inputs[static_cast<std::size_t>(1 - side)];
      const Shape& ss = s.shape();
      if (!(x.shape() == xs) || x.dtype() != DType::float32 || s.dtype() != DType::float32 || ss.rank() != 4 ||
          ss.dims()[1] != 1 || ss.dims()[2] != 1 || ss.dims()[3] != xs.dims()[3] ||
          (ss.dims()[0] != 1 && ss.dims()[0] != xs.dims()[0])) {
        continue;
      }
      ++report.input_scales_fused;
      return std::vector<Output>{conv2d_with(graph, node, mapped, {.x = mapped(x), .input_scale = mapped(s)})};
    }
    return std::nullopt;
  });
}

// 5. LayerNormalization over the last axis, as the layer composes it
// (layers/normalization/layer_normalization.cc):
//      c = sub(x, reduce_mean(x, [last], keepdims))
//      inv = div(1, sqrt(add(reduce_mean(square(c), [last], keepdims), ε)))
//      y = [add(] mul(c, [mul(]inv[, γ)]) [, β)]
// with γ and β invariant and per channel, each inner value read only inside the pattern
// (c by the square and the product), becomes one layer_normalization_inference (two
// passes over each row where the composite made about ten). The CPU's kernel only.
std::vector<Output> fuse_layer_norms(Graph& graph, const std::vector<Output>& roots, InferenceRewrites& report) {
  return run_pass(graph, roots, [&](const Node& node, const Reach& reach, const Mapped& mapped)
                                    -> std::optional<std::vector<Output>> {
    if ((node.op != "add" && node.op != "mul") || node.inputs.size() != 2) return std::nullopt;
    const Output self{&graph, node.id, 0};
    const Shape& shape = self.shape();
    if (shape.rank() < 1 || shape.dims().back() == kUnknownDim || node.outputs[0].dtype != DType::float32) {
      return std::nullopt;
    }
    const std::int64_t last = shape.rank() - 1, channels = shape.dims().back();
    auto op_of = [&](const Output& o, const char* op) { return reach.node(o).op == op; };
    auto sole = [&](const Output& o) { return reach.readers(o) == 1; };
    auto constant_value = [&](const Output& o) -> std::optional<double> {
      if (!op_of(o, "constant")) return std::nullopt;
      return reach.node(o).attrs.get<double>("value");
    };
    // A reduce_mean over the last axis alone, keeping it.
    auto row_mean_of = [&](const Output& o) -> std::optional<Output> {
      const Node& n = reach.node(o);
      if (n.op != "reduce_mean" || !n.attrs.get_or<bool>("keepdims", false)) return std::nullopt;
      const auto& axes = n.attrs.get<std::vector<std::int64_t>>("axes");
      if (axes.size() != 1 || (axes[0] != last && axes[0] != -1)) return std::nullopt;
      return n.inputs[0];
    };
    auto per_channel_operand = [&](const Output& o) {
      const Shape& s = o.shape();
      if (!reach.invariant(o) || s.rank() < 1 || s.dims().back() != channels) return false;
      for (int i = 0; i + 1 < s.rank(); ++i) {
        if (s.dims()[static_cast<std::size_t>(i)] != 1) return false;
      }
      return true;
    };
    // The product mul(c, s), and β when the node adds one.
    Output product = self;
    std::optional<Output> beta;
    if (node.op == "add") {
      bool found = false;
      for (int side = 0; side < 2 && !found; ++side) {
        const Output p = node.inputs[static_cast<std::size_t>(side)], b = node.inputs[static_cast<std::size_t>(1 - side)];
        if (op_of(p, "mul") && sole(p) && p.shape() == shape && per_channel_operand(b)) {
          product = p, beta = b, found = true;
        }
      }
      if (!found) return std::nullopt;
    } else if (const Node* reader = reach.sole_reader(self); reader && reader->op == "add") {
      // Left to the add that reads it when that add is the pattern's last node.
      if (std::optional<Output> b = other_operand(*reader, self);
          b && per_channel_operand(*b) && reader->outputs[0].shape == shape) {
        return std::nullopt;
      }
    }
    const Node& mul = reach.node(product);
    for (int side = 0; side < 2; ++side) {
      const Output c = mul.inputs[static_cast<std::size_t>(side)];
      Output s = mul.inputs[static_cast<std::size_t>(1 - side)];
      if (!op_of(c, "sub") || reach.readers(c) != 2 || !(c.shape() == shape)) continue;
      const Node& centered = reach.node(c);
      const Output x = centered.inputs[0], mean = centered.inputs[1];
      if (!(x.shape() == shape) || !sole(mean) || row_mean_of(mean) != std::optional<Output>(x)) continue;
      std::optional<Output> gamma;
      if (op_of(s, "mul") && sole(s)) {  // inv times γ
        const Node& scaled = reach.node(s);
        bool found = false;
        for (int g = 0; g < 2 && !found; ++g) {
          const Output inv = scaled.inputs[static_cast<std::size_t>(g)], gv = scaled.inputs[static_cast<std::size_t>(1 - g)];
          if (op_of(inv, "div") && per_channel_operand(gv)) s = inv, gamma = gv, found = true;
        }
        if (!found) continue;
      }
      // inv = div(1, sqrt(add(variance, ε))), variance = reduce_mean(square(c)).
      const Node& div = reach.node(s);
      if (div.op != "div" || !sole(s) || constant_value(div.inputs[0]) != std::optional<double>(1.0)) continue;
      const Output root = div.inputs[1];
      if (!op_of(root, "sqrt") || !sole(root)) continue;
      const Output shifted = reach.node(root).inputs[0];
      if (!op_of(shifted, "add") || !sole(shifted)) continue;
      const Node& add = reach.node(shifted);
      std::optional<double> epsilon;
      Output variance;
      for (int e = 0; e < 2 && !epsilon; ++e) {
        if ((epsilon = constant_value(add.inputs[static_cast<std::size_t>(e)]))) variance = add.inputs[static_cast<std::size_t>(1 - e)];
      }
      if (!epsilon || !sole(variance)) continue;
      const std::optional<Output> squared = row_mean_of(variance);
      if (!squared || !op_of(*squared, "square") || !sole(*squared) || !(reach.node(*squared).inputs[0] == c)) continue;
      ++report.layer_norms_fused;
      return std::vector<Output>{ops::layer_normalization_inference(
          mapped(x), gamma ? channels_of(mapped(*gamma), channels) : Output{},
          beta ? channels_of(mapped(*beta), channels) : Output{}, static_cast<float>(*epsilon))};
    }
    return std::nullopt;
  });
}

}  // namespace

std::vector<Output> rewrite_for_inference(Graph& graph, const std::vector<Output>& roots, InferenceRewrites* report,
                                          const InferenceRewriteOptions& options) {
  if (graph.finalized()) {
    throw Error("rewrite_for_inference: the graph is finalized (a Program was compiled from it)");
  }
  InferenceRewrites counts;
  std::vector<Output> out = resolve_modes(graph, roots, counts);
  out = fold_pads(graph, out, counts);
  // Folding a bias into a product makes a product the next map may fold into (a
  // DepthwiseConv2D's bias, then its BatchNormalization): again until nothing folds.
  for (int folded = -1; folded != counts.affines_folded;) {
    folded = counts.affines_folded;
    out = fold_affines(graph, out, counts);
  }
  if (options.cpu_program) out = fuse_residuals(graph, out, counts);
  if (options.cpu_program) out = fuse_input_scales(graph, out, counts);
  if (options.cpu_program) out = fuse_layer_norms(graph, out, counts);
  out = fuse_activations(graph, out, options, counts);
  if (report) *report = counts;
  return out;
}

}  // namespace strata
