#include "layers/pooling/pooling3d.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/pool_ops.h"

namespace strata::layers {

Pooling3DImpl::Pooling3DImpl(std::string class_name, bool max_, IntTriple pool_size_, Pooling3DOptions options_)
    : LayerImpl(class_name, options_.name), max(max_), pool_size(pool_size_), options(std::move(options_)) {
  if (!options.strides) options.strides = pool_size;
  for (auto v : pool_size.vec()) {
    if (v <= 0) throw ValueError(class_name + ": pool_size must be positive");
  }
  for (auto v : options.strides->vec()) {
    if (v <= 0) throw ValueError(class_name + ": strides must be positive");
  }
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
}

std::vector<Output> Pooling3DImpl::call(Graph&, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 5, cf ? "(batch, channels, depth, rows, cols)" : "(batch, depth, rows, cols, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  const std::int64_t d = x.shape()[1], h = x.shape()[2], w = x.shape()[3], c = x.shape()[4];
  const IntTriple& s = *options.strides;
  if (options.padding == "valid" && (d < pool_size.first || h < pool_size.second || w < pool_size.third)) {
    throw ShapeError("pool_size (" + std::to_string(pool_size.first) + ", " + std::to_string(pool_size.second) + ", " +
                     std::to_string(pool_size.third) + ") is larger than the input's (depth, rows, cols) (" +
                     std::to_string(d) + ", " + std::to_string(h) + ", " + std::to_string(w) + ")");
  }
  auto [pf, pk] = padding_amounts(options.padding, d, pool_size.first, s.first, 1);
  auto [pt, pb] = padding_amounts(options.padding, h, pool_size.second, s.second, 1);
  auto [pl, pr] = padding_amounts(options.padding, w, pool_size.third, s.third, 1);
  auto pool = [&](Output v, const ops::Pool2DParams& p) { return max ? ops::max_pool2d(v, p) : ops::avg_pool2d(v, p); };
  // (rows, cols) of every depth slice, then depth with the (rows · cols) cells as columns.
  Output y = pool(ops::reshape(x, {-1, h, w, c}),
                  {{pool_size.second, pool_size.third}, {s.second, s.third}, {pt, pb, pl, pr}});
  const std::int64_t oh = y.shape()[1], ow = y.shape()[2];
  y = pool(ops::reshape(y, {-1, d, oh * ow, c}), {{pool_size.first, 1}, {s.first, 1}, {pf, pk, 0, 0}});
  y = ops::reshape(y, {-1, y.shape()[1], oh, ow, c});
  return {cf ? to_channels_first(y) : y};
}

MaxPooling3D::MaxPooling3D(IntTriple pool_size, Pooling3DOptions o)
    : Layer(std::make_shared<Pooling3DImpl>("MaxPooling3D", true, pool_size, std::move(o))) {}
AveragePooling3D::AveragePooling3D(IntTriple pool_size, Pooling3DOptions o)
    : Layer(std::make_shared<Pooling3DImpl>("AveragePooling3D", false, pool_size, std::move(o))) {}

namespace {
template <typename Pool>
KerasClass pool_3d(const char* cls) {
  return describe_layer<Pool>(cls, &Pooling3DImpl::options, keras_field("pool_size", &Pooling3DImpl::pool_size).at_least(1));
}

const bool registered = [] {
  register_keras_class(pool_3d<MaxPooling3D>("MaxPooling3D"));
  register_keras_class(pool_3d<AveragePooling3D>("AveragePooling3D"));
  return true;
}();
}  // namespace

}  // namespace strata::layers
