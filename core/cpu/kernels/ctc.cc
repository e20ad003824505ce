// The CPU kernels of the CTC ops (core/ops/ctc_ops.h). The loss runs the backward (beta) and,
// for its gradient, forward (alpha) recursions over TensorFlow's states for the label row
// (CtcStates below), in log space and double precision, one sample per task; the decoder
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

// One sample's lengths and its row of labels: the first `length` checked, the rest (the
// row's padding) as Keras reads them (padding_label), since TensorFlow's states cover the
// whole row.
struct CtcSample {
  std::int64_t steps = 0, length = 0;
  std::vector<std::int64_t> row;
};

// A label of the row's padding as Keras's cast to int32 reads it: a float truncated, and one
// that is no int32 (NaN, beyond ±2^31) the int32 x86's conversion gives it, which like any
// label outside the classes observes nothing.
std::int64_t padding_label(const Tensor& labels, std::int64_t i) {
  switch (labels.dtype()) {
    case DType::int32: return labels.data<std::int32_t>()[i];
    case DType::int64: return labels.data<std::int64_t>()[i];
    default: {
      const float v = labels.data<float>()[i];
      if (!(std::fabs(v) < 2147483648.0f)) return std::numeric_limits<std::int32_t>::min();
      return static_cast<std::int64_t>(std::trunc(v));
    }
  }
}

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
    s.length = whole_number(label_length, b, where, "label_length");
    if (s.length < 0 || s.length > max_label)
      throw ValueError(where + ": label_length" + sample + " is " + std::to_string(s.length) + ", outside [0, " +
                       std::to_string(max_label) + "]");
    for (std::int64_t k = 0; k < s.length; ++k) {
      const std::int64_t l = whole_number(labels, b * max_label + k, where, "labels");
      if (l < 0 || l >= classes || l == blank)
        throw ValueError(where + ": label " + std::to_string(k) + sample + " is " + std::to_string(l) +
                         (l == blank ? ", the blank class (mask_index): a label_length longer than the labels?"
                                     : ", not one of the " + std::to_string(classes) + " classes"));
      s.row.push_back(l);
    }
    for (std::int64_t k = s.length; k < max_label; ++k) s.row.push_back(padding_label(labels, b * max_label + k));
  }
  return samples;
}

// TensorFlow's CTC state machine (tf.nn.ctc_loss on dense labels, which Keras calls), run in
// double precision. Over a row of L labels it has label states 0..L, state 0 the start (which
// no step observes) and state k observing the row's k-th label, and blank states 0..L, blank
// state k following label state k. Paths begin in the start state and end in the sample's
// final states (label and blank state `length`), but TensorFlow weighs every other state
// log(1e-307), not log 0, at both ends: a labelling no alignment can give still has a finite
// loss (about 707 plus the best path that stops short). The states of the row's padding
// (past `length`) are there as in TensorFlow, weighing about e^-1414 at both ends together:
// no float32 result sees them.
class CtcStates {
 public:
  CtcStates(const CtcSample& sample, std::int64_t classes, std::int64_t blank)
      : L_(static_cast<std::int64_t>(sample.row.size())), blank_(blank), observed_(L_ + 1, -1), emitted_(L_ + 1, -1),
        follows_previous_(L_ + 1, true) {
    // TensorFlow moves the blank to class 0 and the labels below it up by one ...
    std::vector<std::int64_t> moved(sample.row.size());
    for (std::size_t k = 0; k < moved.size(); ++k)
      moved[k] = blank != 0 && sample.row[k] < blank ? sample.row[k] + 1 : sample.row[k];
    // ... so, in the logits' own classes, a moved label m is the blank at 0, m - 1 up to the
    // blank and m beyond it; one outside the classes observes nothing (probability 1).
    const auto class_of = [&](std::int64_t m) { return m == 0 ? blank : m <= blank ? m - 1 : m; };
    for (std::int64_t k = 1; k <= L_; ++k) {
      const std::int64_t m = moved[static_cast<std::size_t>(k - 1)];
      if (m >= 0 && m < classes) observed_[static_cast<std::size_t>(k)] = class_of(m);
      if (m >= 1 && m < classes) emitted_[static_cast<std::size_t>(k)] = class_of(m);
      // A label repeating the one before needs a blank between them.
      if (k >= 2) follows_previous_[static_cast<std::size_t>(k)] = m != moved[static_cast<std::size_t>(k - 2)];
    }
    final_label_ = sample.length;
  }

  std::int64_t count() const { return 2 * (L_ + 1); }
  static constexpr std::int64_t start = 0;
  std::int64_t label(std::int64_t k) const { return k; }
  std::int64_t blank_after(std::int64_t k) const { return L_ + 1 + k; }
  std::int64_t labels() const { return L_; }
  bool follows_previous(std::int64_t k) const { return follows_previous_[static_cast<std::size_t>(k)]; }

  // log p(the step's logits | state s), from the step's log-softmax.
  double observed(const double* logp, std::int64_t s) const {
    if (s == start) return kNegInf;
    if (s > L_) return logp[blank_];
    const std::int64_t c = observed_[static_cast<std::size_t>(s)];
    return c < 0 ? 0.0 : logp[c];
  }
  // The class a state's occupancy counts for in the gradient (-1: none).
  std::int64_t emitted(std::int64_t s) const { return s > L_ ? blank_ : emitted_[static_cast<std::size_t>(s)]; }
  // log(1e-307) as TensorFlow casts it to float32.
  static double log_zero() { return static_cast<float>(std::log(1e-307)); }
  double initial_weight(std::int64_t s) const { return s == start ? 0.0 : log_zero(); }
  double final_weight(std::int64_t s) const {
    return s == label(final_label_) || s == blank_after(final_label_) ? 0.0 : log_zero();
  }

 private:
  std::int64_t L_, blank_, final_label_ = 0;
  std::vector<std::int64_t> observed_, emitted_;
  std::vector<bool> follows_previous_;
};

// -log p(labels | logits) of one sample; with `grad` (steps × classes), its gradient over the
// sample's first `steps` steps (the rest stay as they are: zero).
double ctc_sample_loss(const float* logits, std::int64_t classes, std::int64_t blank, const CtcSample& sample,
                       float* grad) {
  const CtcStates states(sample, classes, blank);
  const std::int64_t T = sample.steps, S = states.count(), L = states.labels();
  std::vector<double> logp(static_cast<std::size_t>(T * classes));
  for (std::int64_t t = 0; t < T; ++t) {
    const float* row = logits + t * classes;
    const double hi = *std::max_element(row, row + classes);
    double sum = 0.0;
    for (std::int64_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(row[c]) - hi);
    const double norm = hi + std::log(sum);
    for (std::int64_t c = 0; c < classes; ++c) logp[static_cast<std::size_t>(t * classes + c)] = row[c] - norm;
  }
  // observed[t][s] = log p(step t | s).
  std::vector<double> observed(static_cast<std::size_t>(T * S));
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t s = 0; s < S; ++s)
      observed[static_cast<std::size_t>(t * S + s)] = states.observed(logp.data() + t * classes, s);
  const auto O = [&](std::int64_t t, std::int64_t s) { return observed[static_cast<std::size_t>(t * S + s)]; };
  // beta[t][s]: log p(steps t.. | in state s before step t), ending with the final weights.
  std::vector<double> beta(static_cast<std::size_t>((T + 1) * S));
  const auto B = [&](std::int64_t t, std::int64_t s) -> double& { return beta[static_cast<std::size_t>(t * S + s)]; };
  for (std::int64_t s = 0; s < S; ++s) B(T, s) = states.final_weight(s);
  const auto step_into = [&](std::int64_t t, std::int64_t s) { return O(t, s) + B(t + 1, s); };
  for (std::int64_t t = T - 1; t >= 0; --t) {
    for (std::int64_t k = 0; k <= L; ++k) {
      // A label state stays, moves to its blank or (unless repeated) to the next label.
      double v = log_add(step_into(t, states.label(k)), step_into(t, states.blank_after(k)));
      if (k < L && (k == 0 || states.follows_previous(k + 1))) v = log_add(v, step_into(t, states.label(k + 1)));
      B(t, states.label(k)) = v;
      // A blank state stays or moves to the next label.
      double w = step_into(t, states.blank_after(k));
      if (k < L) w = log_add(w, step_into(t, states.label(k + 1)));
      B(t, states.blank_after(k)) = w;
    }
  }
  const double log_likelihood = B(0, CtcStates::start);
  if (!grad) return -log_likelihood;
  // alpha[t][s]: log p(steps ..t-1, in state s after them), from the initial weights.
  std::vector<double> alpha(static_cast<std::size_t>((T + 1) * S));
  const auto A = [&](std::int64_t t, std::int64_t s) -> double& { return alpha[static_cast<std::size_t>(t * S + s)]; };
  for (std::int64_t s = 0; s < S; ++s) A(0, s) = states.initial_weight(s);
  for (std::int64_t t = 0; t < T; ++t) {
    for (std::int64_t k = 0; k <= L; ++k) {
      double v = A(t, states.label(k));
      if (k >= 1) {
        v = log_add(v, A(t, states.blank_after(k - 1)));
        if (k == 1 || states.follows_previous(k)) v = log_add(v, A(t, states.label(k - 1)));
      }
      A(t + 1, states.label(k)) = v == kNegInf ? kNegInf : v + O(t, states.label(k));
      const double w = log_add(A(t, states.blank_after(k)), A(t, states.label(k)));
      A(t + 1, states.blank_after(k)) = w + O(t, states.blank_after(k));
    }
  }
  // d(-log p)/d logit[t][c] = softmax[t][c] - the share of step t's paths in the states that
  // count for c: each state's alpha·beta over their sum across all states (TensorFlow normalizes
  // per step; where an alignment exists that sum is p).
  std::vector<double> joint(static_cast<std::size_t>(S)), occupancy(static_cast<std::size_t>(classes));
  for (std::int64_t t = 0; t < T; ++t) {
    double total = kNegInf;
    for (std::int64_t s = 0; s < S; ++s) {
      joint[static_cast<std::size_t>(s)] = A(t + 1, s) + B(t + 1, s);
      total = log_add(total, joint[static_cast<std::size_t>(s)]);
    }
    std::fill(occupancy.begin(), occupancy.end(), 0.0);
    if (total != kNegInf) {
      for (std::int64_t s = 0; s < S; ++s) {
        const std::int64_t c = states.emitted(s);
        if (c >= 0) occupancy[static_cast<std::size_t>(c)] += std::exp(joint[static_cast<std::size_t>(s)] - total);
      }
    }
    for (std::int64_t c = 0; c < classes; ++c)
      grad[t * classes + c] = static_cast<float>(std::exp(logp[static_cast<std::size_t>(t * classes + c)]) -
                                                 occupancy[static_cast<std::size_t>(c)]);
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
