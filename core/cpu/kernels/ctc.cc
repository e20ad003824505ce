// The CPU kernels of the CTC ops (core/ops/ctc_ops.h). The loss runs the forward (alpha) and,
// for its gradient, backward (beta) recursions over the labelling with blanks between and
// around its labels, in log space and double precision, one sample per task; the decoder
// takes each step's best class. Lengths and labels are checked before any work starts, so
// a bad one is an error naming the op, the sample and the value.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/cpu/kernels/ctc_inputs.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

using ctc_inputs::blank_of;
using ctc_inputs::where_of;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

// One sample's lengths and labels, checked.
struct CtcSample {
  std::int64_t steps = 0;
  std::vector<std::int64_t> labels;
};

std::vector<CtcSample> ctc_samples(const KernelContext& ctx) {
  const Tensor &labels = ctx.input(0), &logits = ctx.input(1), &label_length = ctx.input(2),
               &logit_length = ctx.input(3);
  const std::string where = where_of(ctx);
  const std::int64_t batch = logits.shape()[0], steps = logits.shape()[1], classes = logits.shape()[2];
  const std::int64_t max_label = labels.shape()[1];
  if (labels.shape()[0] != batch || label_length.shape()[0] != batch || logit_length.shape()[0] != batch)
    throw ShapeError(where + ": batch sizes differ: labels " + labels.shape().to_string() + ", logits " +
                     logits.shape().to_string() + ", lengths " + label_length.shape().to_string() + " and " +
                     logit_length.shape().to_string());
  const std::int64_t blank = blank_of(ctx, classes);
  std::vector<CtcSample> samples(static_cast<std::size_t>(batch));
  for (std::int64_t b = 0; b < batch; ++b) {
    CtcSample& s = samples[static_cast<std::size_t>(b)];
    const std::string sample = " of sample " + std::to_string(b);
    s.steps = whole_number(logit_length, b, where, "logit_length");
    if (s.steps < 0 || s.steps > steps)
      throw ValueError(where + ": logit_length" + sample + " is " + std::to_string(s.steps) + ", outside [0, " +
                       std::to_string(steps) + "]");
    const std::int64_t n = whole_number(label_length, b, where, "label_length");
    if (n < 0 || n > max_label)
      throw ValueError(where + ": label_length" + sample + " is " + std::to_string(n) + ", outside [0, " +
                       std::to_string(max_label) + "]");
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t l = whole_number(labels, b * max_label + k, where, "labels");
      if (l < 0 || l >= classes || l == blank)
        throw ValueError(where + ": label " + std::to_string(k) + sample + " is " + std::to_string(l) +
                         (l == blank ? ", the blank class (mask_index): a label_length longer than the labels?"
                                     : ", not one of the " + std::to_string(classes) + " classes"));
      s.labels.push_back(l);
    }
  }
  return samples;
}

// -log p(labels | logits) of one sample; with `grad` (steps × classes), its gradient.
double ctc_sample_loss(const float* logits, std::int64_t classes, std::int64_t blank, const CtcSample& sample,
                       float* grad) {
  const std::int64_t T = sample.steps, U = static_cast<std::int64_t>(sample.labels.size()), S = 2 * U + 1;
  if (T == 0) return U == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  std::vector<double> logp(static_cast<std::size_t>(T * classes));
  for (std::int64_t t = 0; t < T; ++t) {
    const float* row = logits + t * classes;
    const double hi = *std::max_element(row, row + classes);
    double sum = 0.0;
    for (std::int64_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(row[c]) - hi);
    const double norm = hi + std::log(sum);
    for (std::int64_t c = 0; c < classes; ++c) logp[static_cast<std::size_t>(t * classes + c)] = row[c] - norm;
  }
  const auto ext = [&](std::int64_t s) { return s % 2 == 0 ? blank : sample.labels[static_cast<std::size_t>(s / 2)]; };
  const auto lp = [&](std::int64_t t, std::int64_t s) { return logp[static_cast<std::size_t>(t * classes + ext(s))]; };
  // alpha[t][s]: log of the paths through step t ending at s of the extended labelling.
  std::vector<double> alpha(static_cast<std::size_t>(T * S), kNegInf);
  const auto A = [&](std::int64_t t, std::int64_t s) -> double& { return alpha[static_cast<std::size_t>(t * S + s)]; };
  A(0, 0) = lp(0, 0);
  if (S > 1) A(0, 1) = lp(0, 1);
  for (std::int64_t t = 1; t < T; ++t) {
    for (std::int64_t s = 0; s < S; ++s) {
      double v = A(t - 1, s);
      if (s >= 1) v = log_add(v, A(t - 1, s - 1));
      if (s >= 2 && ext(s) != blank && ext(s) != ext(s - 2)) v = log_add(v, A(t - 1, s - 2));
      A(t, s) = v == kNegInf ? kNegInf : v + lp(t, s);
    }
  }
  const double log_likelihood = S > 1 ? log_add(A(T - 1, S - 1), A(T - 1, S - 2)) : A(T - 1, S - 1);
  if (!grad) return -log_likelihood;
  if (log_likelihood == kNegInf) {  // no alignment: no direction to move
    std::fill(grad, grad + T * classes, 0.f);
    return std::numeric_limits<double>::infinity();
  }
  std::vector<double> beta(static_cast<std::size_t>(T * S), kNegInf);
  const auto B = [&](std::int64_t t, std::int64_t s) -> double& { return beta[static_cast<std::size_t>(t * S + s)]; };
  B(T - 1, S - 1) = lp(T - 1, S - 1);
  if (S > 1) B(T - 1, S - 2) = lp(T - 1, S - 2);
  for (std::int64_t t = T - 2; t >= 0; --t) {
    for (std::int64_t s = 0; s < S; ++s) {
      double v = B(t + 1, s);
      if (s + 1 < S) v = log_add(v, B(t + 1, s + 1));
      if (s + 2 < S && ext(s) != blank && ext(s) != ext(s + 2)) v = log_add(v, B(t + 1, s + 2));
      B(t, s) = v == kNegInf ? kNegInf : v + lp(t, s);
    }
  }
  // d(-log p)/d logit[t][c] = softmax[t][c] - Σ_{s: ext(s) = c} alpha·beta / (y[t][c] · p).
  std::vector<double> occupancy(static_cast<std::size_t>(classes));
  for (std::int64_t t = 0; t < T; ++t) {
    std::fill(occupancy.begin(), occupancy.end(), kNegInf);
    for (std::int64_t s = 0; s < S; ++s) {
      double& o = occupancy[static_cast<std::size_t>(ext(s))];
      o = log_add(o, A(t, s) + B(t, s));
    }
    for (std::int64_t c = 0; c < classes; ++c) {
      const double l = logp[static_cast<std::size_t>(t * classes + c)];
      const double o = occupancy[static_cast<std::size_t>(c)];
      const double taken = o == kNegInf ? 0.0 : std::exp(o - l - log_likelihood);
      grad[t * classes + c] = static_cast<float>(std::exp(l) - taken);
    }
  }
  return -log_likelihood;
}

void ctc_loss_kernel(KernelContext& ctx) {
  const std::vector<CtcSample> samples = ctc_samples(ctx);
  const Tensor& logits = ctx.input(1);
  const std::int64_t steps = logits.shape()[1], classes = logits.shape()[2];
  const std::int64_t blank = blank_of(ctx, classes);
  const float* x = logits.data<float>();
  float* loss = ctx.output(0).data<float>();
  parallel_for(static_cast<std::int64_t>(samples.size()), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t b = begin; b < end; ++b)
      loss[b] = static_cast<float>(
          ctc_sample_loss(x + b * steps * classes, classes, blank, samples[static_cast<std::size_t>(b)], nullptr));
  }, 1);
}

void ctc_loss_logits_gradient_kernel(KernelContext& ctx) {
  const std::vector<CtcSample> samples = ctc_samples(ctx);
  const Tensor& logits = ctx.input(1);
  const std::int64_t steps = logits.shape()[1], classes = logits.shape()[2];
  const std::int64_t blank = blank_of(ctx, classes);
  const float* x = logits.data<float>();
  float* grad = ctx.output(0).data<float>();
  std::fill(grad, grad + ctx.output(0).size(), 0.f);  // past each sample's logit_length
  parallel_for(static_cast<std::int64_t>(samples.size()), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t b = begin; b < end; ++b)
      ctc_sample_loss(x + b * steps * classes, classes, blank, samples[static_cast<std::size_t>(b)],
                      grad + b * steps * classes);
  }, 1);
}

void ctc_greedy_decode_kernel(KernelContext& ctx) {
  const Tensor &logits = ctx.input(0), &lengths = ctx.input(1);
  const std::string where = where_of(ctx);
  const std::int64_t batch = logits.shape()[0], steps = logits.shape()[1], classes = logits.shape()[2];
  if (lengths.shape()[0] != batch)
    throw ShapeError(where + ": " + std::to_string(lengths.shape()[0]) + " sequence lengths for " +
                     std::to_string(batch) + " samples");
  const std::int64_t blank = blank_of(ctx, classes);
  const bool merge_repeated = ctx.node.attrs.get<bool>("merge_repeated");
  std::int32_t* decoded = ctx.output(0).data<std::int32_t>();
  float* scores = ctx.output(1).data<float>();
  std::fill(decoded, decoded + batch * steps, -1);
  const float* x = logits.data<float>();
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t n = ctc_inputs::sequence_length_of(lengths, b, steps, where);
    std::int64_t previous = -1, emitted = 0;
    double score = 0.0;
    for (std::int64_t t = 0; t < n; ++t) {
      const float* row = x + (b * steps + t) * classes;
      std::int64_t best = 0;  // the first of the largest, as TensorFlow's decoder takes it
      for (std::int64_t c = 1; c < classes; ++c)
        if (row[c] > row[best]) best = c;
      score -= row[best];
      if (best != blank && !(merge_repeated && best == previous))
        decoded[b * steps + emitted++] = static_cast<std::int32_t>(best);
      previous = best;
    }
    scores[b] = static_cast<float>(score);
  }
}

}  // namespace

void register_ctc_kernels(OpRegistry& r) {
  r.add_kernel("ctc_loss", DeviceType::cpu, {.run = ctc_loss_kernel});
  r.add_kernel("ctc_loss_logits_gradient", DeviceType::cpu, {.run = ctc_loss_logits_gradient_kernel});
  r.add_kernel("ctc_greedy_decode", DeviceType::cpu, {.run = ctc_greedy_decode_kernel});
}

}  // namespace strata::cpu
