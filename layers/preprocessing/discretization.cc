#include "layers/preprocessing/discretization.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/one_hot.h"

namespace strata::layers {

namespace {

// np.interp(x, xp, fp) for increasing xp, as NumPy computes it.
std::vector<double> interp(const std::vector<double>& x, const std::vector<double>& xp, const std::vector<double>& fp) {
  std::vector<double> out(x.size());
  const std::size_t n = xp.size();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    if (v > xp[n - 1]) {
      out[i] = fp[n - 1];
    } else if (v < xp[0]) {
      out[i] = fp[0];
    } else {
      const std::size_t j = static_cast<std::size_t>(std::upper_bound(xp.begin(), xp.end(), v) - xp.begin()) - 1;
      if (j == n - 1 || xp[j] == v) {
        out[i] = fp[j];
      } else {
        const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
        double r = slope * (v - xp[j]) + fp[j];
        if (std::isnan(r)) {
          r = slope * (v - xp[j + 1]) + fp[j + 1];
          if (std::isnan(r) && fp[j] == fp[j + 1]) r = fp[j];
        }
        out[i] = r;
      }
    }
  }
  return out;
}

// Keras's compress_summary: re-bins a summary at cumulative-weight steps of epsilon.
QuantileSummary compress(const QuantileSummary& s, double epsilon) {
  if (static_cast<double>(s.values.size()) * epsilon < 1) return s;
  // epsilon + np.arange(0.0, 1.0, epsilon)
  const auto steps = static_cast<std::size_t>(std::ceil(1.0 / epsilon));
  std::vector<double> percents(steps);
  for (std::size_t i = 0; i < steps; ++i) percents[i] = epsilon + static_cast<double>(i) * epsilon;
  std::vector<float> cum(s.weights.size());
  float total = 0.f;
  for (std::size_t i = 0; i < cum.size(); ++i) cum[i] = total = total + s.weights[i];  // float32 cumsum
  std::vector<double> cum_percent(cum.size()), values(s.values.begin(), s.values.end()), cum64(cum.begin(), cum.end());
  for (std::size_t i = 0; i < cum.size(); ++i) cum_percent[i] = static_cast<double>(cum[i] / cum.back());
  const std::vector<double> bins = interp(percents, cum_percent, values);
  const std::vector<double> new_cum = interp(percents, cum_percent, cum64);
  QuantileSummary out;
  for (std::size_t i = 0; i < steps; ++i) {
    out.values.push_back(static_cast<float>(bins[i]));
    out.weights.push_back(static_cast<float>(new_cum[i] - (i ? new_cum[i - 1] : 0.0)));
  }
  return out;
}

// Keras's summarize: the sorted values at steps of len / (1 / epsilon), weighted by it.
QuantileSummary summarize(std::vector<float> values, double epsilon) {
  std::sort(values.begin(), values.end());
  const double increment = static_cast<double>(values.size()) / (1.0 / epsilon);
  const double step = std::max(increment, 1.0);
  const auto start = static_cast<std::size_t>(step - 1);
  const auto stride = static_cast<std::size_t>(step);
  QuantileSummary s;
  for (std::size_t i = start; i < values.size(); i += stride) {
    s.values.push_back(values[i]);
    s.weights.push_back(static_cast<float>(step));
  }
  return s;
}

// Keras's merge_summaries(new, accumulated): both, sorted by value, compressed.
QuantileSummary merge(const QuantileSummary& first, const QuantileSummary& second, double epsilon) {
  QuantileSummary all = first;
  all.values.insert(all.values.end(), second.values.begin(), second.values.end());
  all.weights.insert(all.weights.end(), second.weights.begin(), second.weights.end());
  std::vector<std::size_t> order(all.values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all.values[a] < all.values[b]; });
  QuantileSummary sorted;
  for (std::size_t i : order) {
    sorted.values.push_back(all.values[i]);
    sorted.weights.push_back(all.weights[i]);
  }
  return compress(sorted, epsilon);
}

std::vector<float> to_floats(const Tensor& t) {
  switch (t.dtype()) {
    case DType::float32: return t.to_vector<float>();
    case DType::int32: {
      std::vector<float> v;
      for (auto x : t.values<std::int32_t>()) v.push_back(static_cast<float>(x));
      return v;
    }
    case DType::int64: {
      std::vector<float> v;
      for (auto x : t.values<std::int64_t>()) v.push_back(static_cast<float>(x));
      return v;
    }
    case DType::string: break;
  }
  throw ValueError("Discretization: adapt expects numbers, got strings");
}

}  // namespace

DiscretizationImpl::DiscretizationImpl(DiscretizationOptions options_)
    : LayerImpl("Discretization", options_.name), options(std::move(options_)) {
  const auto& m = options.output_mode;
  if (m != "int" && m != "one_hot" && m != "multi_hot" && m != "count") {
    throw ValueError("Discretization '" + name + "': output_mode must be 'int', 'one_hot', 'multi_hot' or 'count', got '" +
                     m + "'");
  }
  if (options.sparse && m == "int") {
    throw ValueError("Discretization '" + name + "': `sparse=True` may only be used if `output_mode` is 'one_hot', "
                     "'multi_hot', or 'count'. Received: sparse=True and output_mode=int");
  }
  if (options.num_bins && *options.num_bins < 0) {
    throw ValueError("Discretization '" + name + "': num_bins must be >= 0, got " + std::to_string(*options.num_bins));
  }
  if (!options.num_bins && !options.bin_boundaries) {
    throw ValueError("Discretization '" + name + "': set either num_bins (and call adapt) or bin_boundaries");
  }
  // Both set: a saved adapted layer (Keras's from_config keeps both).
  if (options.bin_boundaries) publish();
}

void DiscretizationImpl::publish() {
  auto t = std::make_shared<BoundariesTable>();
  for (double b : *options.bin_boundaries) t->boundaries.push_back(static_cast<float>(b));
  if (!std::is_sorted(t->boundaries.begin(), t->boundaries.end())) {
    throw ValueError("Discretization '" + name + "': bin_boundaries must be sorted");
  }
  table_.set(std::move(t));
}

std::vector<Output> DiscretizationImpl::call(Graph&, const std::vector<Output>& inputs) {
  if (!options.bin_boundaries) {
    throw ValueError("Discretization '" + name + "': pass bin_boundaries or call adapt() before using the layer");
  }
  Output x = inputs[0];
  if (x.dtype() == DType::string) throw ValueError("Discretization '" + name + "' expects numbers, got strings");
  const Output indices = ops::bucketize(x, table_);
  if (options.output_mode == "int") return {indices};
  const auto depth = static_cast<std::int64_t>(options.bin_boundaries->size()) + 1;
  return {ops::categorical_encode(indices, depth, options.output_mode)};
}

void DiscretizationImpl::reset_state() { summary_ = {}; }

void DiscretizationImpl::update_state(const Tensor& batch) {
  if (!options.num_bins) {
    throw ValueError("Discretization '" + name + "' was given bin_boundaries; adapt needs num_bins instead");
  }
  summary_ = merge(summarize(to_floats(batch), options.epsilon), summary_, options.epsilon);
}

void DiscretizationImpl::finalize_state() {
  if (!options.num_bins) return;
  QuantileSummary s = compress(summary_, 1.0 / static_cast<double>(*options.num_bins));
  std::vector<double> bounds;
  for (std::size_t i = 0; i + 1 < s.values.size(); ++i) bounds.push_back(static_cast<double>(s.values[i]));
  options.bin_boundaries = bounds;
  publish();
}

void DiscretizationImpl::adapt(const Tensor& data) {
  if (!options.num_bins) {
    throw ValueError("Discretization '" + name + "' was given bin_boundaries; adapt needs num_bins instead");
  }
  reset_state();
  update_state(data);
  finalize_state();
}

Discretization::Discretization(DiscretizationOptions options)
    : Layer(std::make_shared<DiscretizationImpl>(std::move(options))) {}

DiscretizationImpl& Discretization::discretization() const { return static_cast<DiscretizationImpl&>(impl()); }
void Discretization::adapt(const Tensor& data) const { discretization().adapt(data); }
std::vector<double> Discretization::bin_boundaries() const {
  return discretization().options.bin_boundaries.value_or(std::vector<double>{});
}

namespace {
const bool discretization_registered = [] {
  KerasClass k = describe_layer<Discretization>("Discretization", &DiscretizationImpl::options);
  k.trainable_key = false;  // Keras's Discretization(...) takes no trainable argument
  return register_keras_class(std::move(k));
}();
}  // namespace

}  // namespace strata::layers
