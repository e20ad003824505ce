// The CTC ops (core/ops/ctc_ops.h): ctc_loss, its logits' gradient, ctc_greedy_decode and
// ctc_beam_search_decode. The CPU registers their kernels (cpu/kernels/ctc.cc,
// ctc_beam_search.cc).
#include "core/ops/ctc_ops.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

void expect_whole_numbers(const InferContext& ctx, std::size_t i, const char* what) {
  const DType d = ctx.inputs[i].dtype;
  if (d != DType::int32 && d != DType::int64 && d != DType::float32)
    throw ValueError(ctx.op + ": " + what + " must be int32, int64 or float32, got " + to_string(d));
}

// One batch size for every input's first axis (unknown ones agree with anything).
std::int64_t common_batch(const InferContext& ctx, const std::vector<std::size_t>& inputs) {
  std::int64_t batch = kUnknownDim;
  for (std::size_t i : inputs) {
    const std::int64_t b = ctx.inputs[i].shape.dims()[0];
    if (b == kUnknownDim) continue;
    if (batch != kUnknownDim && b != batch) {
      std::string shapes;
      for (std::size_t j : inputs) shapes += (shapes.empty() ? "" : ", ") + ctx.inputs[j].shape.to_string();
      throw ShapeError(ctx.op + ": its inputs' batch sizes differ: " + shapes);
    }
    batch = b;
  }
  return batch;
}

void check_blank(const InferContext& ctx, std::int64_t classes) {
  const auto blank = ctx.attrs.get<std::int64_t>("blank");
  if (classes != kUnknownDim && (blank < -classes || blank >= classes))
    throw ValueError(ctx.op + ": blank (mask_index) " + std::to_string(blank) + " is not one of the " +
                     std::to_string(classes) + " classes");
}

// labels (batch, max_label), logits (batch, steps, classes), label_length, logit_length (batch,).
void check_loss_inputs(const InferContext& ctx) {
  expect_inputs(ctx, 4);
  const Shape &labels = ctx.inputs[0].shape, &logits = ctx.inputs[1].shape;
  if (labels.rank() != 2 || logits.rank() != 3 || ctx.inputs[2].shape.rank() != 1 || ctx.inputs[3].shape.rank() != 1)
    throw ShapeError(ctx.op + ": takes labels (batch, max_label), logits (batch, steps, classes) and lengths "
                     "(batch,), got " + labels.to_string() + ", " + logits.to_string() + ", " +
                     ctx.inputs[2].shape.to_string() + ", " + ctx.inputs[3].shape.to_string());
  expect_whole_numbers(ctx, 0, "labels");
  expect_float_input(ctx, 1, "logits");
  expect_whole_numbers(ctx, 2, "label_length");
  expect_whole_numbers(ctx, 3, "logit_length");
  common_batch(ctx, {0, 1, 2, 3});
  check_blank(ctx, logits.dims()[2]);
}

// A decoder's logits (batch, steps, classes) and sequence lengths (batch,), checked; returns
// the batch.
std::int64_t check_decoder_inputs(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  const Shape& logits = ctx.inputs[0].shape;
  if (logits.rank() != 3 || ctx.inputs[1].shape.rank() != 1)
    throw ShapeError(ctx.op + ": takes logits (batch, steps, classes) and sequence lengths (batch,), got " +
                     logits.to_string() + " and " + ctx.inputs[1].shape.to_string());
  expect_float_input(ctx, 0, "logits");
  expect_whole_numbers(ctx, 1, "sequence_length");
  check_blank(ctx, logits.dims()[2]);
  return common_batch(ctx, {0, 1});
}

}  // namespace

void register_ctc_ops(OpRegistry& r) {
  r.add({.name = "ctc_loss",
         .infer = [](const InferContext& ctx) {
           check_loss_inputs(ctx);
           return std::vector<TensorSpec>{{Shape({common_batch(ctx, {0, 1, 2, 3})}), DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const Output grad = ctc_loss_logits_gradient(n.inputs[0], n.inputs[1], n.inputs[2], n.inputs[3],
                                                        n.attrs.get<std::int64_t>("blank"));
           return std::vector<Output>{Output{}, mul(grad, reshape(g[0], {-1, 1, 1})), Output{}, Output{}};
         }});
  r.add({.name = "ctc_loss_logits_gradient",
         .infer = [](const InferContext& ctx) {
           check_loss_inputs(ctx);
           return std::vector<TensorSpec>{{ctx.inputs[1].shape, DType::float32}};
         },
         .differentiable = false});
  r.add({.name = "ctc_greedy_decode",
         .infer = [](const InferContext& ctx) {
           const std::int64_t batch = check_decoder_inputs(ctx);
           return std::vector<TensorSpec>{{Shape({batch, ctx.inputs[0].shape.dims()[1]}), DType::int32},
                                          {Shape({batch, 1}), DType::float32}};
         },
         .differentiable = false});
  r.add({.name = "ctc_beam_search_decode",
         .infer = [](const InferContext& ctx) {
           const std::int64_t batch = check_decoder_inputs(ctx);
           const auto beam_width = ctx.attrs.get<std::int64_t>("beam_width");
           const auto top_paths = ctx.attrs.get<std::int64_t>("top_paths");
           if (beam_width < 1 || beam_width > (1 << 20) || top_paths < 1 || top_paths > beam_width)
             throw ValueError(ctx.op + ": needs 1 <= top_paths <= beam_width (at most 2^20), got top_paths " +
                              std::to_string(top_paths) + " and beam_width " + std::to_string(beam_width));
           return std::vector<TensorSpec>{{Shape({top_paths, batch, ctx.inputs[0].shape.dims()[1]}), DType::int32},
                                          {Shape({batch, top_paths}), DType::float32}};
         },
         .differentiable = false});
}

Output ctc_loss(Output labels, Output logits, Output label_length, Output logit_length, std::int64_t blank) {
  return logits.graph->add("ctc_loss", {labels, logits, label_length, logit_length}, Attrs{{"blank", blank}});
}

Output ctc_loss_logits_gradient(Output labels, Output logits, Output label_length, Output logit_length,
                                std::int64_t blank) {
  return logits.graph->add("ctc_loss_logits_gradient", {labels, logits, label_length, logit_length},
                           Attrs{{"blank", blank}});
}

CtcDecoded ctc_greedy_decode(Output logits, Output sequence_length, bool merge_repeated, std::int64_t blank) {
  const auto out = logits.graph->add_node("ctc_greedy_decode", {logits, sequence_length},
                                          Attrs{{"merge_repeated", merge_repeated}, {"blank", blank}});
  return {out.at(0), out.at(1)};
}

CtcDecoded ctc_beam_search_decode(Output logits, Output sequence_length, std::int64_t beam_width,
                                  std::int64_t top_paths, std::int64_t blank) {
  const auto out = logits.graph->add_node(
      "ctc_beam_search_decode", {logits, sequence_length},
      Attrs{{"beam_width", beam_width}, {"top_paths", top_paths}, {"blank", blank}});
  return {out.at(0), out.at(1)};
}

}  // namespace strata::ops
