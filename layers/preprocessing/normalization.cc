#include "layers/preprocessing/normalization.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

namespace {
constexpr float kEpsilon = 1e-7f;  // keras.backend.epsilon()
}  // namespace

NormalizationImpl::NormalizationImpl(NormalizationOptions options_)
    : LayerImpl("Normalization", options_.name), options(std::move(options_)) {
  if (options.mean.has_value() != options.variance.has_value()) {
    throw ValueError("Normalization '" + name +
                     "': give both mean and variance, or neither (and call adapt)");
  }
  supports_masking = true;  // as Keras's: it passes its input's mask on
}

std::vector<std::int64_t> NormalizationImpl::kept_axes(std::int64_t rank) const {
  std::vector<std::int64_t> axes;
  for (std::int64_t a : options.axis) {
    const std::int64_t k = a < 0 ? a + rank : a;
    if (k <= 0 || k >= rank) {
      throw ValueError("Normalization '" + name + "': axis " + std::to_string(a) +
                       " is not a non-batch axis of an input of rank " + std::to_string(rank));
    }
    axes.push_back(k);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

void NormalizationImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& in = inputs[0].shape;
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::vector<std::int64_t> bshape(static_cast<std::size_t>(rank), 1);
  std::vector<std::int64_t> stat_shape;
  for (std::int64_t k : kept_axes(rank)) {
    const std::int64_t d = in.dims()[static_cast<std::size_t>(k)];
    if (d == kUnknownDim) {
      throw ShapeError("Normalization '" + name + "' needs a known size along axis " +
                       std::to_string(k) + ", got input " + in.to_string());
    }
    bshape[static_cast<std::size_t>(k)] = d;
    stat_shape.push_back(d);
  }
  broadcast_shape_ = Shape(bshape);
  if (!options.mean) {
    mean = add_weight("mean", Shape(stat_shape), "zeros", /*trainable=*/false);
    variance = add_weight("variance", Shape(stat_shape), "ones", /*trainable=*/false);
    // Keras keeps an int64 sample count beside them (Keras 3's adapt leaves it at 0).
    count = Variable(name + "/count", Tensor::from_vector<std::int64_t>(Shape{}, {0}), false);
    weights.push_back(count);
    return;
  }
  // Given statistics are not weights (Keras saves none): a number, or one per feature.
  const Shape shape(stat_shape);
  auto fixed = [&](const std::vector<double>& v, const char* what) {
    const auto n = static_cast<std::size_t>(shape.num_elements());
    if (v.size() != 1 && v.size() != n) {
      throw ValueError("Normalization '" + name + "': " + what + " has " +
                       std::to_string(v.size()) + " values, expected 1 or " + std::to_string(n) +
                       " for input " + in.to_string());
    }
    std::vector<float> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(v[v.size() == 1 ? 0 : i]);
    return Variable(name + "/" + what, Tensor::from_vector(shape, values), /*trainable=*/false);
  };
  mean = fixed(*options.mean, "mean");
  variance = fixed(*options.variance, "variance");
}

std::vector<Output> NormalizationImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const Output x = inputs[0];
  const Output m = ops::reshape(graph.variable(mean), broadcast_shape_.dims());
  const Output scale =
      ops::maximum(ops::sqrt(ops::reshape(graph.variable(variance), broadcast_shape_.dims())),
                   kEpsilon);
  if (options.invert) return {ops::add(m, ops::mul(x, scale))};
  return {ops::div(ops::sub(x, m), scale)};
}

void NormalizationImpl::adapt(const Tensor& data) {
  reset_state();
  update_state(data);
  finalize_state();
}

void NormalizationImpl::reset_state() {
  sum_.clear();
  sum_sq_.clear();
  seen_ = 0;
}

void NormalizationImpl::update_state(const Tensor& data) {
  if (options.mean) {
    throw ValueError("Normalization '" + name +
                     "' was given mean and variance; adapt() would replace them");
  }
  if (!built) {
    build({TensorSpec{data.shape(), data.dtype()}});
    built = true;
  }
  const Shape& in = data.shape();
  const auto rank = static_cast<std::int64_t>(in.rank());
  if (rank != static_cast<std::int64_t>(broadcast_shape_.rank())) {
    throw ShapeError("Normalization '" + name + "': adapt data " + in.to_string() +
                     " does not have the rank the layer was built for");
  }
  const auto& dims = in.dims();
  const auto& keep = broadcast_shape_.dims();
  for (std::int64_t k : kept_axes(rank)) {
    if (dims[static_cast<std::size_t>(k)] != keep[static_cast<std::size_t>(k)]) {
      throw ShapeError("Normalization '" + name + "': adapt data " + in.to_string() + " has " +
                       std::to_string(dims[static_cast<std::size_t>(k)]) + " along axis " + std::to_string(k) +
                       ", the layer keeps " + std::to_string(keep[static_cast<std::size_t>(k)]));
    }
  }
  if (data.dtype() != DType::float32) {  // Keras casts the data to the layer's dtype
    std::vector<float> values;
    if (data.dtype() == DType::int32) {
      for (auto v : data.to_vector<std::int32_t>()) values.push_back(static_cast<float>(v));
    } else if (data.dtype() == DType::int64) {
      for (auto v : data.to_vector<std::int64_t>()) values.push_back(static_cast<float>(v));
    } else {
      throw ValueError("Normalization '" + name + "': adapt expects numbers, got " + to_string(data.dtype()));
    }
    update_state(Tensor::from_vector(in, values));
    return;
  }
  const std::vector<std::int64_t> kept = kept_axes(rank);
  const auto stats = static_cast<std::size_t>(mean.value().shape().num_elements());
  if (sum_.empty()) {
    sum_.assign(stats, 0.0);
    sum_sq_.assign(stats, 0.0);
  }
  std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
  const float* p = data.data<float>();
  const std::int64_t total = in.num_elements();
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t s = 0;  // position among the kept axes, row-major
    for (std::int64_t k : kept) s = s * keep[static_cast<std::size_t>(k)] + index[static_cast<std::size_t>(k)];
    sum_[static_cast<std::size_t>(s)] += p[i];
    sum_sq_[static_cast<std::size_t>(s)] += static_cast<double>(p[i]) * p[i];
    for (std::size_t a = index.size(); a-- > 0;) {
      if (++index[a] < dims[a]) break;
      index[a] = 0;
    }
  }
  seen_ += total;
}

void NormalizationImpl::finalize_state() {
  if (seen_ == 0) return;  // no data: the statistics stay as they were
  const double count = static_cast<double>(seen_) / static_cast<double>(sum_.size());
  std::vector<float> m(sum_.size()), v(sum_.size());
  for (std::size_t i = 0; i < sum_.size(); ++i) {
    const double mu = sum_[i] / count;
    m[i] = static_cast<float>(mu);
    v[i] = static_cast<float>(std::max(sum_sq_[i] / count - mu * mu, 0.0));
  }
  mean.assign(Tensor::from_vector(mean.value().shape(), m));
  variance.assign(Tensor::from_vector(variance.value().shape(), v));
  reset_state();
}

Normalization::Normalization(NormalizationOptions options)
    : Layer(std::make_shared<NormalizationImpl>(std::move(options))) {}

void Normalization::adapt(const Tensor& data) const {
  static_cast<NormalizationImpl&>(impl()).adapt(data);
}

namespace {
const bool normalization_registered = register_keras_class(
    describe_layer<Normalization>("Normalization", &NormalizationImpl::options));
}  // namespace

}  // namespace strata::layers
