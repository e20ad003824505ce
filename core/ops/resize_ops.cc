// The resize ops (core/ops/resize_ops.h): resize_weights. The devices register their
// kernels (the CPU's in cpu/kernels/resize.cc, CUDA's in cuda/resize_kernels.cc).
#include "core/ops/resize_ops.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// The output size resize_weights gives an axis of `in` (kUnknownDim while it is None).
std::int64_t resized_size(const Attrs& attrs, std::int64_t in) {
  if (const auto size = attrs.get<std::int64_t>("size"); size > 0) return size;
  return in == kUnknownDim ? kUnknownDim : in * attrs.get<std::int64_t>("scale");
}

int checked_axis(const std::string& op, const Shape& x, std::int64_t axis) {
  if (axis < 0 || axis >= x.rank()) {
    throw ShapeError(op + ": axis " + std::to_string(axis) + " is not an axis of " + x.to_string());
  }
  return static_cast<int>(axis);
}

}  // namespace

ResizeKind resize_kind_of(const std::string& where, const std::string& interpolation, bool antialias) {
  static const std::tuple<const char*, ResizeKind, ResizeKind> kKinds[] = {
      {"bilinear", ResizeKind::bilinear, ResizeKind::bilinear_antialias},
      {"nearest", ResizeKind::nearest, ResizeKind::nearest},
      {"bicubic", ResizeKind::bicubic, ResizeKind::bicubic_antialias},
      {"area", ResizeKind::area, ResizeKind::area},
      {"lanczos3", ResizeKind::lanczos3, ResizeKind::lanczos3_antialias},
      {"lanczos5", ResizeKind::lanczos5, ResizeKind::lanczos5_antialias}};
  for (const auto& [name, kind, antialiased] : kKinds) {
    if (interpolation == name) return antialias ? antialiased : kind;
  }
  throw ValueError(where + ": interpolation must be one of bilinear, nearest, bicubic, area, lanczos3, " +
                   "lanczos5; got '" + interpolation + "'");
}

void register_resize_ops(OpRegistry& r) {
  r.add({.name = "resize_weights",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& x = ctx.inputs[0].shape;
           const int axis = checked_axis(ctx.op, x, ctx.attrs.get<std::int64_t>("axis"));
           const auto kind = ctx.attrs.get<std::int64_t>("kind");
           if (kind < 0 || kind > static_cast<std::int64_t>(kLastResizeKind)) {
             throw ValueError(ctx.op + ": unknown kind " + std::to_string(kind));
           }
           const std::int64_t in = x.dims()[static_cast<std::size_t>(axis)];
           const std::int64_t out = resized_size(ctx.attrs, in);
           if (in == 0 || out == 0) {
             throw ShapeError(ctx.op + ": cannot resize axis " + std::to_string(axis) + " of " + x.to_string() +
                              " to " + std::to_string(out) + " (both sizes must be positive)");
           }
           if (in > 0 && out > 0 && out > (std::int64_t{1} << 28) / in) {
             throw ShapeError(ctx.op + ": resizing axis " + std::to_string(axis) + " of " + x.to_string() + " to " +
                              std::to_string(out) + " needs an interpolation matrix of more than 2^28 elements");
           }
           return std::vector<TensorSpec>{{Shape{in, out}, DType::float32}};
         },
         .differentiable = false});
}

Output resize_weights(Output x, const ResizeWeightsOptions& o) {
  if ((o.size > 0) == (o.scale > 0)) {
    throw ValueError("resize_weights: give one of a positive size or a positive scale, got size " +
                     std::to_string(o.size) + " and scale " + std::to_string(o.scale));
  }
  if (o.other_axis >= 0 && (o.size <= 0 || o.other_size <= 0)) {
    throw ValueError("resize_weights: an aspect-ratio crop or pad needs both output sizes");
  }
  if (o.pad_to_aspect_ratio && o.other_axis < 0) {
    throw ValueError("resize_weights: pad_to_aspect_ratio needs the other axis (other_axis)");
  }
  return x.graph->add("resize_weights", {x},
                      Attrs{{"axis", std::int64_t{o.axis}},
                            {"kind", static_cast<std::int64_t>(o.kind)},
                            {"size", o.size},
                            {"scale", o.scale},
                            {"other_axis", std::int64_t{o.other_axis}},
                            {"other_size", o.other_size},
                            {"pad_to_aspect_ratio", o.pad_to_aspect_ratio}});
}

ResizeWeightsPlan resize_weights_plan_of(const Node& node, const Shape& x) {
  const std::string op = "resize_weights ('" + node.name + "')";
  ResizeWeightsPlan p;
  p.in_size = x.dims()[static_cast<std::size_t>(checked_axis(op, x, node.attrs.get<std::int64_t>("axis")))];
  p.out_size = resized_size(node.attrs, p.in_size);
  p.kind = static_cast<ResizeKind>(node.attrs.get<std::int64_t>("kind"));
  p.start = 0;
  p.size = p.in_size;
  if (const auto other = node.attrs.get<std::int64_t>("other_axis"); other >= 0) {
    // Keras's crop_to_aspect_ratio: the largest centered window with the output's ratio.
    const std::int64_t other_in = x.dims()[static_cast<std::size_t>(checked_axis(op, x, other))];
    const auto other_out = node.attrs.get<std::int64_t>("other_size");
    const auto fitting = static_cast<std::int64_t>(static_cast<double>(other_in) * p.out_size / other_out);
    if (const bool* padded = node.attrs.find<bool>("pad_to_aspect_ratio"); padded && *padded) {
      // Keras's pad_to_aspect_ratio: int(difference / 2) on both sides.
      const std::int64_t pad = (std::max(p.in_size, fitting) - p.in_size) / 2;
      p.start = -pad;
      p.size = p.in_size + 2 * pad;
    } else {
      p.size = std::max<std::int64_t>(std::min(p.in_size, fitting), 1);
      p.start = (p.in_size - p.size) / 2;
    }
  }
  return p;
}

}  // namespace strata::ops
