// What an OpLayer's operation sees when it is applied (layers/core/op_layer.cc): the call's
// arguments materialized as graph outputs, the operation's attributes from Keras's config,
// and the helpers the operations share. Private to layers/core's op_layer*.cc files.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/error.h"
#include "layers/core/op_layer.h"

namespace strata::layers::op_detail {

// One call's materialized arguments: each a tensor, or several (a tensor list).
struct OpCall {
  Graph& graph;
  std::vector<std::vector<Output>> args;
  const std::vector<OpArgument>& arguments;  // as saved: which are constants
  const OpAttributes& attrs;
  const OpAttributes& kwargs;  // the call's keyword arguments (accepts_call_kwarg's)
  const OpNestedLists& nested;
  std::string where;

  Output arg(std::size_t i) const {
    if (i >= args.size() || args[i].size() != 1)
      throw ValueError(where + ": expects a tensor as argument " + std::to_string(i));
    return args[i][0];
  }
  // Whether positional argument i is a tensor (not None, not absent).
  bool given(std::size_t i) const { return i < args.size() && args[i].size() == 1; }
  // The keyword argument `key` given as a constant (RMSNorm's scale); none when absent or None.
  std::optional<Output> keyword(const std::string& key) const {
    for (std::size_t i = 0; i < arguments.size(); ++i)
      if (arguments[i].keyword == key) return args.at(i).at(0);
    return std::nullopt;
  }
  // Positional argument i given as a string (Rearrange's pattern).
  const std::string& text_argument(std::size_t i) const {
    if (i >= arguments.size() || arguments[i].kind != OpArgument::Kind::text)
      throw ValueError(where + ": expects a string as argument " + std::to_string(i));
    return arguments[i].text;
  }
  bool has(const std::string& key) const {
    auto it = attrs.find(key);
    return it != attrs.end() && !std::holds_alternative<std::monostate>(it->second);
  }
  // An int or a list of ints; none when absent or null.
  std::optional<std::vector<std::int64_t>> axes(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    const ConfigValue& v = attrs.at(key);
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::vector<std::int64_t>{*i};
    if (const auto* l = std::get_if<std::vector<std::int64_t>>(&v)) return *l;
    throw ValueError(where + ": '" + key + "' must be an integer or a list of integers");
  }
  bool flag(const std::string& key) const {
    return has(key) && std::holds_alternative<bool>(attrs.at(key)) && std::get<bool>(attrs.at(key));
  }
  double number(const std::string& key) const {
    if (!has(key)) throw ValueError(where + ": needs '" + key + "'");
    const ConfigValue& v = attrs.at(key);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    throw ValueError(where + ": '" + key + "' must be a number");
  }
  // A list of integer lists (Pad's pad_width); none when the config holds no such list.
  const std::vector<std::vector<std::int64_t>>* rows(const std::string& key) const {
    auto it = nested.find(key);
    return it == nested.end() ? nullptr : &it->second;
  }
  std::string text(const std::string& key) const {
    return has(key) ? std::get<std::string>(attrs.at(key)) : std::string();
  }
};

using OpFn = std::function<Output(const OpCall&)>;
// An operation with several results (Split's parts, Moments' mean and variance).
using MultiOpFn = std::function<std::vector<Output>(const OpCall&)>;

std::int64_t normalize_axis(std::int64_t axis, std::size_t rank, const std::string& where);
// The shape to pass to reshape: the batch (unknown) as -1, other dims known.
std::vector<std::int64_t> reshape_target(const Shape& s, const std::string& where);
// fn over the call's "axis" (an int, a list, or none: every axis) and "keepdims".
Output reduce(const OpCall& c, const std::function<Output(Output, std::vector<std::int64_t>, bool)>& fn);
Output expand_dims(Output x, std::int64_t axis, const std::string& where);
DType dtype_of(const std::string& name, const std::string& where);

// Refuses an argument value Strata does not compute, naming the operation, key and value.
[[noreturn]] void refuse(const OpCall& c, const std::string& key, const std::string& why);
// The one axis of `key`, normalized; None is refused where Keras would flatten the input
// (the batch with it).
int one_axis(const OpCall& c, const std::string& key, const Output& x);
// The size of a non-batch axis, which the operation needs to know when it is defined.
std::int64_t known_size(const OpCall& c, const std::string& key, const Output& x, int axis);
// x[..., begin:end, ...] along `axis`.
Output slice(Output x, int axis, std::int64_t begin, std::int64_t end);
Output drop_axis(Output x, int axis, const std::string& where);
constexpr float kInf = std::numeric_limits<float>::infinity();
// x's rank as the int Keras's axis arguments are compared with.
inline int rank_of(const Output& x) { return static_cast<int>(x.shape().rank()); }
// The float constant v in the call's graph.
Output scalar(const OpCall& c, float v);
// 1 where x is NaN, else 0.
Output is_nan(Output x);
// y cast to the call's "dtype" when it has one.
Output with_dtype(const OpCall& c, Output y);
// Keras's prod of x over the call's "axis" and "keepdims" (op_layer_ops.cc).
Output product_over(const OpCall& c, Output x);
// x's values sorted along `axis`, each value's gradient going back where it came from
// (op_layer_arrays.cc).
Output sort_along(const OpCall& c, Output x, int axis);
// x's elements at `indices` (x's rank, negative from the end, broadcasting as NumPy's)
// along `axis`, as take_along_axis (op_layer_arrays.cc).
Output gather_along(const OpCall& c, Output x, Output indices, int axis);

// The operations of layers/core/op_layer_ops.cc (keras.ops math, reductions, logic, axis
// moves and scans, nn functions), merged into OpLayer's table.
const std::map<std::string, OpFn>& more_ops();
// layers/core/op_layer_math.cc: elementwise math and tests beyond more_ops' (arctan2 ...
// isclose, allclose, isreal), array, the reductions built on them (normalize, ptp), and vander.
const std::map<std::string, OpFn>& math_ops();
// layers/core/op_layer_arrays.cc: slicing, padding, triangles, gathers, stacking, one-hot
// encodings and ndim; and the operations with several results (split, unstack, moments).
const std::map<std::string, OpFn>& array_ops();
const std::map<std::string, MultiOpFn>& multi_output_ops();
// layers/core/op_layer_products.cc: matmul, einsum, tensordot, inner, outer, dot, kron,
// corrcoef and correlate.
const std::map<std::string, OpFn>& product_ops();
// layers/core/op_layer_reductions.cc: the NaN-ignoring reductions and scans, quantiles,
// norms, differences and the trapezoid rule.
const std::map<std::string, OpFn>& reduction_ops();
// layers/core/op_layer_einops.cc: rearrange.
const std::map<std::string, OpFn>& einops_ops();
// layers/core/op_layer_nn.cc: normalizations, cross-entropies, in_top_k, select, average,
// append, vdot and cross.
const std::map<std::string, OpFn>& nn_ops();
// layers/core/op_layer_conv.cc: max_pool, average_pool, the adaptive pools, conv,
// depthwise_conv and separable_conv.
const std::map<std::string, OpFn>& conv_ops();
// layers/core/op_layer_image.cc: rgb_to_grayscale, rgb_to_hsv, hsv_to_rgb, pad_images,
// crop_images, resize, affine_transform, perspective_transform and scale_and_translate.
const std::map<std::string, OpFn>& image_ops();
// layers/core/op_layer_special.cc: erfinv, i0, ldexp, nextafter, digitize, isin and
// saturate_cast.
const std::map<std::string, OpFn>& special_ops();
// layers/core/op_layer_linalg.cc: inv, det, solve, solve_triangular, cholesky,
// cholesky_inverse and logdet; slogdet's (sign, log |det|), one of multi_output_ops.
const std::map<std::string, OpFn>& linalg_ops();
std::vector<Output> slogdet(const OpCall& c);
// layers/core/op_layer_decompositions.cc: pinv and matrix_rank; and qr, svd, eigh, eig and
// lu_factor, merged into multi_output_ops.
const std::map<std::string, OpFn>& decomposition_ops();
const std::map<std::string, MultiOpFn>& decomposition_multi_output_ops();
// layers/core/op_layer_updates.cc: slice_update and scatter.
const std::map<std::string, OpFn>& update_ops();
// layers/core/op_layer_segments.cc: segment_sum, segment_max, segment_min and segment_prod.
const std::map<std::string, OpFn>& segment_ops();
// layers/core/op_layer_image_quality.cc: psnr and image.ssim.
const std::map<std::string, OpFn>& image_quality_ops();
// layers/core/op_layer_patches.cc: unfold and fold.
const std::map<std::string, OpFn>& patch_ops();
// layers/core/op_layer_bins.cc: searchsorted; and unravel_index's coordinates, merged into
// multi_output_ops.
const std::map<std::string, OpFn>& bin_ops();
const std::map<std::string, MultiOpFn>& bin_multi_output_ops();
// layers/core/op_layer_grids.cc: linspace, logspace and geomspace; and meshgrid's grids, merged
// into multi_output_ops. linspace_samples: tf.linspace(start, stop, num) along the call's
// "axis" (0 when absent), which histogram's edges are too.
const std::map<std::string, OpFn>& grid_ops();
const std::map<std::string, MultiOpFn>& grid_multi_output_ops();
Output linspace_samples(const OpCall& c, Output start, Output stop, std::int64_t num);
// layers/core/op_layer_attention.cc: dot_product_attention.
const std::map<std::string, OpFn>& attention_ops();
// layers/core/op_layer_signal.cc: irfft, istft, extract_sequences, real, imag, conj, angle and cdist; and
// the operations giving a (real, imag) pair (rfft, fft, fft2, ifft2, stft), merged into
// multi_output_ops.
const std::map<std::string, OpFn>& signal_ops();
const std::map<std::string, MultiOpFn>& signal_multi_output_ops();
// layers/core/op_layer_ctc.cc: ctc_loss; and ctc_decode's (labels, scores), merged into
// multi_output_ops.
const std::map<std::string, OpFn>& ctc_ops();
const std::map<std::string, MultiOpFn>& ctc_multi_output_ops();

}  // namespace strata::layers::op_detail
