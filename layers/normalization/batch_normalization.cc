#include "layers/normalization/batch_normalization.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_norm_ops.h"

namespace strata::layers {

namespace {

// Keras's moving_stddev_initializer: the square root of another initializer's values.
class SquareRootOf : public InitializerImpl {
 public:
  // Its own draw is the wrapped initializer's: no seed of its own is taken.
  explicit SquareRootOf(Initializer of) : of_(std::move(of)) { seed = 0; }
  Tensor generate(const Shape& shape, std::uint64_t) const override {
    Tensor t = of_(shape).to(Device{}).clone();
    float* p = t.data<float>();
    for (std::int64_t i = 0; i < t.size(); ++i) p[i] = std::sqrt(p[i]);
    return t;
  }
  std::string class_name() const override { return "SquareRootOf" + of_.class_name(); }

 private:
  Initializer of_;
};

// v = v·momentum + batch·(1 − momentum) in training only; the moved value, for the
// statistics derived from it.
Output move_towards(Graph& graph, const Variable& v, Output batch, double momentum) {
  const auto m = static_cast<float>(momentum);
  const Output var = graph.variable(v);
  const Output next = ops::add(ops::mul(var, m), ops::mul(batch, 1.f - m));
  graph.add_update(ops::assign(var, next), Graph::UpdateMode::training_only);
  return next;
}

}  // namespace

BatchNormalizationImpl::BatchNormalizationImpl(BatchNormalizationOptions o)
    : LayerImpl("BatchNormalization", o.name), options(std::move(o)) {
  if (options.epsilon <= 0) throw ValueError("BatchNormalization: epsilon must be positive");
  if (options.renorm) {
    // Keras's checks of renorm_clipping (made only with renorm), which it keeps as {} when unset.
    if (!options.renorm_clipping) options.renorm_clipping.emplace();
    const NumberMap& clip = *options.renorm_clipping;
    for (const auto& [key, value] : clip) {
      if (key != "rmax" && key != "rmin" && key != "dmax") {
        throw ValueError("BatchNormalization '" + name + "': received invalid key '" + key +
                         "' for `renorm_clipping`. Supported keys: rmax, rmin, dmax");
      }
    }
    if (clip.contains("rmax") && clip.contains("rmin") && clip.at("rmax") < clip.at("rmin")) {
      throw ValueError("BatchNormalization '" + name +
                       "': rmax should be greater than rmin in `renorm_clipping`. Received: rmax=" +
                       std::to_string(clip.at("rmax")) + ", rmin=" + std::to_string(clip.at("rmin")));
    }
    if (clip.contains("dmax") && clip.at("dmax") < 0) {
      throw ValueError("BatchNormalization '" + name +
                       "': dmax should be non-negative in `renorm_clipping`. Received: dmax=" +
                       std::to_string(clip.at("dmax")));
    }
  }
  supports_masking = true;
}

void BatchNormalizationImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() < 2) throw ShapeError("expects input of rank >= 2, got " + s.to_string());
  const std::int64_t c = s[options.axis];
  if (c == kUnknownDim) throw ShapeError("the normalized axis must be known, got " + s.to_string());
  if (options.scale) {
    gamma = add_weight("gamma", Shape{c}, options.gamma_initializer,
                       {.regularizer = options.gamma_regularizer, .constraint = options.gamma_constraint});
  }
  if (options.center) {
    beta = add_weight("beta", Shape{c}, options.beta_initializer,
                      {.regularizer = options.beta_regularizer, .constraint = options.beta_constraint});
  }
  moving_mean = add_weight("moving_mean", Shape{c}, options.moving_mean_initializer, false);
  moving_variance = add_weight("moving_variance", Shape{c}, options.moving_variance_initializer, false);
  if (options.renorm) {
    // Standard deviations start as the square root of a draw of the variance's initializer
    // (stored then in the policy's dtype, as every weight).
    const Initializer root_of_variance(std::make_shared<SquareRootOf>(options.moving_variance_initializer));
    moving_stddev = add_weight("moving_stddev", Shape{c}, root_of_variance, false);
    renorm_mean = add_weight("renorm_mean", Shape{c}, options.moving_mean_initializer, false);
    renorm_stddev = add_weight("renorm_stddev", Shape{c}, root_of_variance, false);
  }
}

std::vector<Output> BatchNormalizationImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

std::vector<Output> BatchNormalizationImpl::call_masked(Graph& graph, const std::vector<Output>& all,
                                                        const std::vector<Output>& masks) {
  const CallInputs<Output> call = split_call_inputs(*this, current_arguments, all);
  const Output& x = call.inputs[0];
  const Shape& s = x.shape();
  const int axis = s.normalize_axis(options.axis);
  const std::int64_t c = moving_mean.shape()[0];
  if (s.dims()[axis] != c) {
    throw ShapeError("expects input with " + std::to_string(c) + " features on axis " + std::to_string(options.axis) +
                     ", got " + s.to_string());
  }
  const Output mask = mask_argument_or_input_mask(call, masks);
  if (mask.valid() && mask.shape().rank() != s.rank() - 1) {  // Keras checks it in both modes
    throw ValueError("BatchNormalization '" + name +
                     "': the mask provided should be one dimension less than the inputs. Received: mask.shape=" +
                     mask.shape().to_string() + ", inputs.shape=" + s.to_string());
  }
  const float epsilon = static_cast<float>(options.epsilon);
  Output gamma_out = options.scale ? graph.variable(gamma) : Output{};
  Output beta_out = options.center ? graph.variable(beta) : Output{};
  if (!trainable) {
    return {ops::batch_normalization_inference(x, gamma_out, beta_out, graph.variable(moving_mean),
                                               graph.variable(moving_variance), axis, epsilon)};
  }
  if (options.renorm) return {renormalize(graph, x, mask, axis, gamma_out, beta_out)};
  if (mask.valid() || options.synchronized) {
    return {normalize_composed(graph, x, mask, axis, gamma_out, beta_out)};
  }
  // One op in both modes (core/ops/batch_norm_ops.h): the batch's statistics in training,
  // the moving ones otherwise. Without scale or center, γ is ones and β zeros.
  if (!gamma_out.valid()) gamma_out = ops::ones_like(graph.variable(moving_mean));
  if (!beta_out.valid()) beta_out = ops::zeros_like(graph.variable(moving_mean));
  const ops::BatchNormOutputs normalized = ops::batch_normalization(
      x, gamma_out, beta_out, graph.variable(moving_mean), graph.variable(moving_variance), axis, epsilon);
  move_statistics(graph, normalized.mean, normalized.variance);
  return {normalized.y};
}

// Keras's _moments(inputs, mask), step for step: the fused op has neither a mask nor the
// synchronized form, so this is composed, and its gradient is autodiff's through these ops.
std::pair<Output, Output> BatchNormalizationImpl::batch_moments(Graph& graph, Output x, Output mask, int axis) const {
  const Shape& s = x.shape();
  std::vector<std::int64_t> reduced;
  for (int i = 0; i < s.rank(); ++i) {
    if (i != axis) reduced.push_back(i);
  }
  if (!mask.valid()) {  // Keras's ops.moments (synchronized: one replica's all-reduced form)
    const ops::Moments m = ops::moments(x, reduced, false, options.synchronized);
    return {m.mean, m.variance};
  }
  // expand_dims(mask, -1), broadcast_to(inputs' shape), cast to bool (nonzero kept).
  const Output as_float = mask.dtype() == DType::float32 ? mask : ops::cast(mask, DType::float32);
  const Output kept = ops::broadcast_like(ops::expand_dims(ops::not_equal(as_float, ops::constant(graph, 0.f)), -1), x);
  const Output zeros = ops::zeros_like(x);
  // sum_of_weights + backend.epsilon(): a channel with nothing kept gets mean and variance 0.
  const Output weight = ops::add(ops::reduce_sum(kept, reduced, true), 1e-7f);
  const Output mean = ops::div(ops::reduce_sum(ops::select(kept, x, zeros), reduced, true), weight);
  const Output centered = ops::select(kept, ops::sub(x, mean), zeros);
  const Output variance = ops::div(ops::reduce_sum(ops::square(centered), reduced, true), weight);
  return {ops::reshape(mean, {-1}), ops::reshape(variance, {-1})};
}

Output BatchNormalizationImpl::normalize_composed(Graph& graph, Output x, Output mask, int axis, Output gamma_out,
                                                  Output beta_out) {
  const auto [batch_mean, batch_variance] = batch_moments(graph, x, mask, axis);
  const float epsilon = static_cast<float>(options.epsilon);
  const Output in_training =
      ops::batch_normalization_inference(x, gamma_out, beta_out, batch_mean, batch_variance, axis, epsilon);
  const Output in_inference = ops::batch_normalization_inference(
      x, gamma_out, beta_out, graph.variable(moving_mean), graph.variable(moving_variance), axis, epsilon);
  move_statistics(graph, batch_mean, batch_variance);
  return ops::training_select(in_training, in_inference);
}

// Keras's _renorm_correction_and_moments, _compose_transforms and _update_renorm_statistics.
Output BatchNormalizationImpl::renormalize(Graph& graph, Output x, Output mask, int axis, Output gamma_out,
                                           Output beta_out) {
  const float epsilon = static_cast<float>(options.epsilon);
  const auto [batch_mean, batch_variance] = batch_moments(graph, x, mask, axis);
  const Output stddev = ops::sqrt(ops::add(batch_variance, epsilon));
  // r = σ_B / σ_R and d = (μ_B − μ_R) / σ_R, σ_R kept from zero early in training.
  const Output running_stddev = ops::maximum(graph.variable(renorm_stddev), std::sqrt(epsilon));
  Output r = ops::div(stddev, running_stddev);
  Output d = ops::div(ops::sub(batch_mean, graph.variable(renorm_mean)), running_stddev);
  const NumberMap clip = options.renorm_clipping.value_or(NumberMap{});
  if (clip.contains("rmin")) r = ops::maximum(r, static_cast<float>(clip.at("rmin")));
  if (clip.contains("rmax")) r = ops::minimum(r, static_cast<float>(clip.at("rmax")));
  if (clip.contains("dmax")) {
    const auto dmax = static_cast<float>(clip.at("dmax"));
    d = ops::clip(d, -dmax, dmax);
  }
  r = ops::stop_gradient(r);
  d = ops::stop_gradient(d);
  // (x̂·r + d)·γ + β = x̂·(r·γ) + (d·γ + β).
  const Output scale = gamma_out.valid() ? ops::mul(r, gamma_out) : r;
  Output offset = gamma_out.valid() ? ops::mul(d, gamma_out) : d;
  if (beta_out.valid()) offset = ops::add(offset, beta_out);
  // Without a mask the fused op normalizes (its gradient is the batch moments' one with
  // the composed scale); with one, or synchronized's moments, the composite over them.
  const Output in_training =
      mask.valid() || options.synchronized
          ? ops::batch_normalization_inference(x, scale, offset, batch_mean, batch_variance, axis, epsilon)
          : ops::batch_normalization(x, scale, offset, graph.variable(moving_mean), graph.variable(moving_variance),
                                     axis, epsilon)
                .y;
  const Output in_inference = ops::batch_normalization_inference(
      x, gamma_out, beta_out, graph.variable(moving_mean), graph.variable(moving_variance), axis, epsilon);

  move_towards(graph, renorm_mean, batch_mean, options.renorm_momentum);
  move_towards(graph, renorm_stddev, stddev, options.renorm_momentum);
  move_towards(graph, moving_mean, batch_mean, options.momentum);
  const Output next_stddev = move_towards(graph, moving_stddev, stddev, options.momentum);
  // The variance inference reads, from the moved deviation (ReLU: never below zero).
  const Output next_variance = ops::relu(ops::sub(ops::square(next_stddev), epsilon));
  graph.add_update(ops::assign(graph.variable(moving_variance), next_variance), Graph::UpdateMode::training_only);
  return ops::training_select(in_training, in_inference);
}

void BatchNormalizationImpl::move_statistics(Graph& graph, Output batch_mean, Output batch_variance) {
  move_towards(graph, moving_mean, batch_mean, options.momentum);
  move_towards(graph, moving_variance, batch_variance, options.momentum);
}

std::string BatchNormalizationImpl::data_parallel_refusal() const {
  if (!options.synchronized || !trainable) return {};  // frozen, it normalizes with the moving statistics
  return "synchronized=True (the batch's moments all-reduced over the processes) is not supported: each process "
         "would normalize with its own share's moments";
}

std::vector<Output> BatchNormalizationImpl::compute_mask(Graph&, const std::vector<Output>& all,
                                                         const std::vector<Output>& masks) {
  // Keras passes on the mask given with the call, as given, else the input's.
  const Output mask = mask_argument_or_input_mask(split_call_inputs(*this, current_arguments, all), masks);
  if (!mask.valid()) return {};
  return {mask};
}

BatchNormalization::BatchNormalization(BatchNormalizationOptions options)
    : Layer(std::make_shared<BatchNormalizationImpl>(std::move(options))) {}

KerasTensor BatchNormalization::operator()(const KerasTensor& input, BatchNormalizationCall call) const {
  if (!call.mask.defined()) return (*this)(input);
  return call_with({input, call.mask}, {{"mask", true}})[0];
}

namespace {
// One channel axis: a list of several (tf.keras allows it) is refused before the fields.
void one_axis(const ConfigSource& src) {
  const FieldSpec axes = spec_of("axis", ValueKind::int_list);
  std::optional<ConfigValue> v = src.get(axes);
  if (!v) return;
  const auto& list = std::get<std::vector<std::int64_t>>(*v);
  if (list.size() > 1) {
    std::string axes;
    for (auto a : list) axes += (axes.empty() ? "[" : ",") + std::to_string(a);
    throw NotImplementedError(src.where() + ": normalizing over several axes " + axes +
                              "] is not supported (one channel axis only)");
  }
}

const bool batch_normalization_registered = register_keras_class(
    describe_layer<BatchNormalization>("BatchNormalization", &BatchNormalizationImpl::options).checked(one_axis));
}  // namespace

}  // namespace strata::layers
