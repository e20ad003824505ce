// The CPU kernel of ctc_beam_search_decode (core/ops/ctc_ops.h): TensorFlow's CTC beam search
// decoder, which Keras's ctc_decode(strategy="beam_search") runs, computed the same way so
// that the same labellings come out with the same log probabilities.
//
// A prefix (a labelling so far) carries, in log space, the probability of the steps so far
// ending in a blank and ending in its last label; their sum is its total. At each step every
// prefix in the beam first updates its own two probabilities (its last label continued, from
// its parent's probability where the parent is still in the beam), then, in order of their
// totals before the step, the prefixes grow children by one label each. A child already in
// the beam was updated as a prefix; a new one enters when the beam has room or its total
// beats the beam's lowest, which then leaves. The order matters: a child that enters can push
// out a later one, as in TensorFlow's decoder, so the beam is kept as TensorFlow keeps it
// (its lowest total at hand) and grown in the same order. Equal totals are ordered by the
// prefixes' creation; TensorFlow leaves their order to its heap.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/cpu/kernels/ctc_inputs.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

constexpr float kLogZero = -std::numeric_limits<float>::infinity();

// log(e^a + e^b) in float, as TensorFlow's decoder adds its probabilities.
float log_sum_exp(float a, float b) {
  if (a == kLogZero) return b;
  if (b == kLogZero) return a;
  return a > b ? a + std::log1p(std::exp(b - a)) : b + std::log1p(std::exp(a - b));
}

struct Probability {
  float total = kLogZero, blank = kLogZero, label = kLogZero;
  void reset() { total = blank = label = kLogZero; }
};

struct Prefix {
  std::int32_t parent;  // -1: the empty prefix
  std::int32_t label;   // -1: the empty prefix
  Probability before;   // at the step before
  Probability now;      // after this step; total kLogZero: not in the beam
  bool in_beam() const { return now.total != kLogZero; }
};

class BeamSearch {
 public:
  BeamSearch(std::int64_t classes, std::int64_t blank, std::int64_t width)
      : classes_(classes), blank_(blank), width_(static_cast<std::size_t>(width)) {
    Prefix empty{-1, -1, {}, {}};
    empty.now.total = empty.now.blank = 0.f;  // log 1
    prefixes_.push_back(empty);
    enter(0);
  }

  void step(const float* logits) {
    // The step's log-softmax: logits[c] - norm.
    float top = logits[0];
    for (std::int64_t c = 1; c < classes_; ++c) top = std::max(top, logits[c]);
    float sum = 0.f;
    for (std::int64_t c = 0; c < classes_; ++c) sum += std::exp(logits[c] - top);
    const float norm = top + std::log(sum);

    branches_ = beam_;
    std::sort(branches_.begin(), branches_.end(), [&](std::int32_t a, std::int32_t b) { return higher(a, b); });
    beam_.clear();
    for (std::int32_t id : branches_) prefixes_[id].before = prefixes_[id].now;
    for (std::int32_t id : branches_) {
      Prefix& p = prefixes_[id];
      if (p.parent >= 0) {
        const Prefix& parent = prefixes_[p.parent];
        if (parent.in_beam()) {
          const float from = p.label == parent.label ? parent.before.blank : parent.before.total;
          p.now.label = log_sum_exp(p.now.label, from);
        }
        p.now.label += logits[p.label] - norm;
      }
      p.now.blank = p.before.total + (logits[blank_] - norm);
      p.now.total = log_sum_exp(p.now.blank, p.now.label);
      enter(id);
    }
    for (std::int32_t id : branches_) {
      if (!may_enter(prefixes_[id].before.total)) continue;
      for (std::int64_t c = 0; c < classes_; ++c) {
        if (c == blank_) continue;
        const std::int32_t child = child_of(id, static_cast<std::int32_t>(c));
        Prefix& grown = prefixes_[child];
        if (grown.in_beam()) continue;
        const Prefix& p = prefixes_[id];
        const float from = grown.label == p.label ? p.before.blank : p.before.total;
        grown.now.blank = kLogZero;
        grown.now.label = (logits[c] - norm) + from;
        grown.now.total = grown.now.label;
        if (may_enter(grown.now.total)) {
          if (beam_.size() == width_) prefixes_[leave()].now.reset();
          enter(child);
        } else {
          grown.before.reset();
          grown.now.reset();
        }
      }
    }
  }

  // The beam's prefixes, best first.
  std::vector<std::int32_t> ranked() const {
    std::vector<std::int32_t> order = beam_;
    std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return higher(a, b); });
    return order;
  }
  float log_probability(std::int32_t id) const { return prefixes_[id].now.total; }
  // The prefix's labels, first to last, into out; returns how many.
  std::int64_t labels(std::int32_t id, std::int32_t* out) const {
    std::int64_t n = 0;
    for (std::int32_t p = id; prefixes_[p].parent >= 0; p = prefixes_[p].parent) ++n;
    std::int64_t i = n;
    for (std::int32_t p = id; prefixes_[p].parent >= 0; p = prefixes_[p].parent) out[--i] = prefixes_[p].label;
    return n;
  }

 private:
  // Totals descending; equal ones by creation.
  bool higher(std::int32_t a, std::int32_t b) const {
    const float ta = prefixes_[a].now.total, tb = prefixes_[b].now.total;
    return ta != tb ? ta > tb : a < b;
  }
  // The beam is a heap whose front is its lowest (the last of the lowest totals).
  void enter(std::int32_t id) {
    beam_.push_back(id);
    std::push_heap(beam_.begin(), beam_.end(), [&](std::int32_t a, std::int32_t b) { return higher(a, b); });
  }
  std::int32_t leave() {
    std::pop_heap(beam_.begin(), beam_.end(), [&](std::int32_t a, std::int32_t b) { return higher(a, b); });
    const std::int32_t lowest = beam_.back();
    beam_.pop_back();
    return lowest;
  }
  bool may_enter(float total) const {
    return total > kLogZero && (beam_.size() < width_ || total > prefixes_[beam_.front()].now.total);
  }
  std::int32_t child_of(std::int32_t parent, std::int32_t label) {
    const std::uint64_t key = (static_cast<std::uint64_t>(parent) << 32) | static_cast<std::uint32_t>(label);
    auto [it, made] = children_.try_emplace(key, static_cast<std::int32_t>(prefixes_.size()));
    if (made) {
      if (prefixes_.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw ValueError("ctc_beam_search_decode: more than 2^31 prefixes");
      prefixes_.push_back(Prefix{parent, label, {}, {}});
    }
    return it->second;
  }

  std::int64_t classes_, blank_;
  std::size_t width_;
  std::vector<Prefix> prefixes_;  // every prefix made, by id (0 the empty one)
  std::unordered_map<std::uint64_t, std::int32_t> children_;  // (parent, label) -> id
  std::vector<std::int32_t> beam_, branches_;
};

void ctc_beam_search_decode_kernel(KernelContext& ctx) {
  const Tensor &logits = ctx.input(0), &lengths = ctx.input(1);
  const std::string where = ctc_inputs::where_of(ctx);
  const std::int64_t batch = logits.shape()[0], steps = logits.shape()[1], classes = logits.shape()[2];
  if (lengths.shape()[0] != batch)
    throw ShapeError(where + ": " + std::to_string(lengths.shape()[0]) + " sequence lengths for " +
                     std::to_string(batch) + " samples");
  const std::int64_t blank = ctc_inputs::blank_of(ctx, classes);
  const auto width = ctx.node.attrs.get<std::int64_t>("beam_width");
  const auto top_paths = ctx.node.attrs.get<std::int64_t>("top_paths");
  std::vector<std::int64_t> length(static_cast<std::size_t>(batch));
  for (std::int64_t b = 0; b < batch; ++b) length[b] = ctc_inputs::sequence_length_of(lengths, b, steps, where);

  std::int32_t* decoded = ctx.output(0).data<std::int32_t>();
  float* scores = ctx.output(1).data<float>();
  std::fill(decoded, decoded + top_paths * batch * steps, -1);
  const float* x = logits.data<float>();
  std::vector<std::int64_t> found(static_cast<std::size_t>(batch), top_paths);  // prefixes a sample's beam held
  // A NaN or +inf logit, or a step whose logits are all −inf, would make its log-softmax NaN
  // and the beam's order undefined: refused, naming where (a −inf class among others is a
  // class no path takes, as in TensorFlow's decoder).
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t t = 0; t < length[b]; ++t) {
      const float* row = x + (b * steps + t) * classes;
      bool any_finite = false;
      for (std::int64_t c = 0; c < classes; ++c) {
        if (std::isnan(row[c]) || row[c] == std::numeric_limits<float>::infinity())
          throw ValueError(where + ": logit " + std::to_string(row[c]) + " at sample " + std::to_string(b) +
                           ", step " + std::to_string(t) + ", class " + std::to_string(c) + " is not a number or +inf");
        any_finite = any_finite || std::isfinite(row[c]);
      }
      if (!any_finite)
        throw ValueError(where + ": every logit at sample " + std::to_string(b) + ", step " + std::to_string(t) +
                         " is -inf");
    }
  }
  cpu::parallel_for(batch, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) {
      BeamSearch search(classes, blank, width);
      for (std::int64_t t = 0; t < length[b]; ++t) search.step(x + (b * steps + t) * classes);
      const std::vector<std::int32_t> best = search.ranked();
      if (static_cast<std::int64_t>(best.size()) < top_paths) {
        found[b] = static_cast<std::int64_t>(best.size());
        continue;
      }
      for (std::int64_t p = 0; p < top_paths; ++p) {
        search.labels(best[p], decoded + (p * batch + b) * steps);
        scores[b * top_paths + p] = search.log_probability(best[p]);
      }
    }
  }, 1);
  for (std::int64_t b = 0; b < batch; ++b) {
    if (found[b] < top_paths)
      throw ValueError(where + ": sample " + std::to_string(b) + " (sequence_length " + std::to_string(length[b]) +
                       ") ends with " + std::to_string(found[b]) + " labellings in its beam, fewer than top_paths " +
                       std::to_string(top_paths) + " (TensorFlow's decoder fails on it too)");
  }
}

}  // namespace

void register_ctc_beam_search_kernel(OpRegistry& r) {
  r.add_kernel("ctc_beam_search_decode", DeviceType::cpu, {.run = ctc_beam_search_decode_kernel});
}

}  // namespace strata::cpu
