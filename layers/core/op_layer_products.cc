// keras.ops products (issue #38): matmul with NumPy's broadcasting of the batch axes, einsum,
// tensordot, inner, outer, dot, kron, corrcoef and correlate. Operands with the same batch axes go to the matmul and
// batch_matmul kernels; the others are one einsum, each operand's axes laid out over all the
// equation's letters (1 where it lacks one), multiplied with NumPy's broadcasting and summed
// over the letters the result lacks.
#include <algorithm>
#include <set>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_matmul.h"
#include "core/ops/spectral_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

// operands[i]'s axes are named by subscripts[i]; the result's by `result`.
Output einsum(const std::vector<Output>& operands, const std::vector<std::string>& subscripts,
              const std::string& result, const std::string& where) {
  std::string letters = result;  // the result's letters first, then the summed ones
  std::string named;
  for (const auto& s : subscripts) named += s;
  for (char l : named)
    if (letters.find(l) == std::string::npos) letters += l;
  for (char l : result)
    if (named.find(l) == std::string::npos)
      throw ValueError(where + ": the result's letter '" + std::string(1, l) + "' names no operand's axis");
  Output product;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const Output& x = operands[i];
    const std::string& s = subscripts[i];
    if (static_cast<int>(s.size()) != x.shape().rank())
      throw ValueError(where + ": subscripts '" + s + "' for operand " + x.shape().to_string());
    if (std::set<char>(s.begin(), s.end()).size() != s.size())
      throw NotImplementedError(where + ": subscripts '" + s + "' repeat a letter (a diagonal): not supported");
    std::vector<std::int64_t> perm, dims;
    int unknown = 0;
    for (char l : letters) {
      const auto at = s.find(l);
      if (at == std::string::npos) {
        dims.push_back(1);
        continue;
      }
      perm.push_back(static_cast<std::int64_t>(at));
      const std::int64_t n = x.shape().dims()[at];
      unknown += n == kUnknownDim;
      dims.push_back(n == kUnknownDim ? -1 : n);
    }
    if (unknown > 1)
      throw NotImplementedError(where + ": operand " + x.shape().to_string() + " has more than one unknown axis");
    const Output laid_out = ops::reshape(ops::transpose(x, perm), dims);
    product = i == 0 ? laid_out : ops::mul(product, laid_out);
  }
  std::vector<std::int64_t> summed;
  for (std::size_t a = result.size(); a < letters.size(); ++a) summed.push_back(static_cast<std::int64_t>(a));
  return summed.empty() ? product : ops::reduce_sum(product, summed, false);
}

std::string first_letters(std::size_t n, char from) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<char>(from + i);
  return s;
}

// NumPy's matmul on operands of rank >= 2: the batch axes (all but the last two) broadcast
// from the right.
Output matmul(C c) {
  const Output a = c.arg(0), b = c.arg(1);
  const std::size_t ra = a.shape().rank(), rb = b.shape().rank();
  if (ra < 2 || rb < 2)
    throw NotImplementedError(c.where + ": matmul of " + a.shape().to_string() + " and " + b.shape().to_string() +
                              " is not supported (operands of rank 2 or more are)");
  if (rb == 2) return ops::matmul(a, b);
  const auto batch_of = [](const Output& x) {
    const auto& d = x.shape().dims();
    return std::vector<std::int64_t>(d.begin(), d.end() - 2);
  };
  if (batch_of(a) == batch_of(b)) return ops::batch_matmul(a, b);
  const std::size_t batch = std::max(ra, rb) - 2;
  const std::string axes = first_letters(batch, 'a');  // 'a'... for the batch; m, k, n after
  const std::string sa = axes.substr(batch - (ra - 2)) + "xy", sb = axes.substr(batch - (rb - 2)) + "yz";
  return einsum({a, b}, {sa, sb}, axes + "xz", c.where);
}

Output einsum_op(C c) {
  std::string equation = c.text("subscripts");
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  if (equation.find('.') != std::string::npos) refuse(c, "subscripts", "an ellipsis ('...') is not supported");
  const auto arrow = equation.find("->");
  const std::string inputs = equation.substr(0, arrow);
  std::vector<std::string> subscripts;
  for (std::size_t from = 0;;) {
    const auto comma = inputs.find(',', from);
    subscripts.push_back(inputs.substr(from, comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  std::string result;
  if (arrow != std::string::npos) {
    result = equation.substr(arrow + 2);
  } else {
    // Implicit: the letters appearing once, in the order they first appear, as Keras's
    // TensorFlow backend (it renames the letters a, b, ... in that order before TensorFlow
    // sorts them; NumPy sorts the letters as written).
    for (char l : inputs)
      if (l != ',' && std::count(inputs.begin(), inputs.end(), l) == 1) result += l;
  }
  std::vector<Output> operands;
  for (std::size_t i = 0; i < c.args.size(); ++i) operands.push_back(c.arg(i));
  if (operands.size() != subscripts.size())
    throw ValueError(c.where + ": '" + equation + "' names " + std::to_string(subscripts.size()) + " operands, got " +
                     std::to_string(operands.size()));
  return einsum(operands, subscripts, result, c.where);
}

// np.tensordot: axes N sums a's last N axes against b's first N; [[a axes], [b axes]] (or
// [i, j]) sums the axes named, pair by pair. The result has a's other axes, then b's.
Output tensordot(C c) {
  const Output a = c.arg(0), b = c.arg(1);
  const auto ra = static_cast<std::size_t>(a.shape().rank()), rb = static_cast<std::size_t>(b.shape().rank());
  std::vector<std::int64_t> from_a, from_b;
  if (const auto* rows = c.rows("axes")) {
    if (rows->size() != 2 || (*rows)[0].size() != (*rows)[1].size()) refuse(c, "axes", "two lists of equal length");
    from_a = (*rows)[0];
    from_b = (*rows)[1];
  } else if (const auto* pair = c.has("axes") ? std::get_if<std::vector<std::int64_t>>(&c.attrs.at("axes")) : nullptr) {
    if (pair->size() != 2) refuse(c, "axes", "two axes, or two lists of axes");
    from_a = {pair->at(0)};
    from_b = {pair->at(1)};
  } else {
    const std::int64_t n = c.has("axes") ? static_cast<std::int64_t>(c.number("axes")) : 2;
    if (n < 0 || static_cast<std::size_t>(n) > std::min(ra, rb)) refuse(c, "axes", "a count within both ranks");
    for (std::int64_t i = 0; i < n; ++i) {
      from_a.push_back(static_cast<std::int64_t>(ra) - n + i);
      from_b.push_back(i);
    }
  }
  std::string sa = first_letters(ra, 'a'), sb(rb, ' ');
  for (std::size_t i = 0; i < from_a.size(); ++i) {
    const auto in_a = static_cast<std::size_t>(normalize_axis(from_a[i], ra, c.where));
    sb[static_cast<std::size_t>(normalize_axis(from_b[i], rb, c.where))] = sa[in_a];
  }
  std::string result;
  for (char l : sa)
    if (sb.find(l) == std::string::npos) result += l;
  char next = 'n';
  for (char& l : sb)
    if (l == ' ') result += (l = next++);
  return einsum({a, b}, {sa, sb}, result, c.where);
}

// The last axes of both summed: a's other axes, then b's.
Output inner(C c) {
  const Output a = c.arg(0), b = c.arg(1);
  const std::size_t ra = a.shape().rank(), rb = b.shape().rank();
  const std::string sa = first_letters(ra - 1, 'a') + "z", sb = first_letters(rb - 1, 'n') + "z";
  return einsum({a, b}, {sa, sb}, sa.substr(0, ra - 1) + sb.substr(0, rb - 1), c.where);
}

// Every element of a (flattened, batch and all) times every element of b.
Output outer(C c) { return ops::mul(ops::reshape(c.arg(0), {-1, 1}), ops::reshape(c.arg(1), {1, -1})); }

// np.dot as Keras's TensorFlow backend: a scalar multiplies; otherwise a's last axis summed
// against b's only axis (b of rank 1) or its second-to-last; a's other axes, then b's.
Output dot(C c) {
  const Output a = c.arg(0), b = c.arg(1);
  const auto ra = static_cast<std::size_t>(a.shape().rank()), rb = static_cast<std::size_t>(b.shape().rank());
  if (ra == 0 || rb == 0) return ops::mul(a, b);
  const std::string sa = first_letters(ra, 'a');
  std::string sb = first_letters(rb, 'n');
  const std::size_t summed = rb == 1 ? 0 : rb - 2;
  sb[summed] = sa.back();
  std::string result = sa.substr(0, ra - 1);
  for (std::size_t i = 0; i < rb; ++i)
    if (i != summed) result += sb[i];
  return einsum({a, b}, {sa, sb}, result, c.where);
}

// The dims to reshape to, an unknown one as -1 (one at most).
std::vector<std::int64_t> reshape_dims(const std::vector<std::int64_t>& dims, const std::string& what, C c) {
  std::vector<std::int64_t> out = dims;
  int unknown = 0;
  for (auto& d : out) {
    if (d != kUnknownDim) continue;
    d = -1;
    ++unknown;
  }
  if (unknown > 1)
    throw NotImplementedError(c.where + ": " + what + " would have more than one axis of unknown size");
  return out;
}

// np.kron: the lower-rank operand gets leading axes of 1; axis i of the result is a_i · b_i
// long, a's index the slower. a is laid out as (a_0, 1, a_1, 1, ...), b as (1, b_0, 1, b_1, ...),
// multiplied and merged pairwise.
Output kron(C c) {
  const Output a = c.arg(0), b = c.arg(1);
  const std::size_t ra = a.shape().rank(), rb = b.shape().rank(), rank = std::max(ra, rb);
  std::vector<std::int64_t> da(rank - ra, 1), db(rank - rb, 1);
  for (auto d : a.shape().dims()) da.push_back(d);
  for (auto d : b.shape().dims()) db.push_back(d);
  std::vector<std::int64_t> spread_a, spread_b, merged;
  for (std::size_t i = 0; i < rank; ++i) {
    spread_a.insert(spread_a.end(), {da[i], 1});
    spread_b.insert(spread_b.end(), {1, db[i]});
    merged.push_back(da[i] == kUnknownDim || db[i] == kUnknownDim ? kUnknownDim : da[i] * db[i]);
  }
  const Output product = ops::mul(ops::reshape(a, reshape_dims(spread_a, "the first operand", c)),
                                  ops::reshape(b, reshape_dims(spread_b, "the second operand", c)));
  return ops::reshape(product, reshape_dims(merged, "the result", c));
}

// np.corrcoef of rows as variables (the batch's rows here: a (batch, batch) result), as
// Keras's TensorFlow backend: the covariance of the centred rows over n − 1, divided by the
// outer product of their deviations (each the square root of its row's squared sum over
// n − 1, the covariance's diagonal), clipped to [−1, 1].
Output corrcoef(C c) {
  const Output x = c.arg(0);
  if (x.shape().rank() != 2) throw NotImplementedError(c.where + ": corrcoef of " + x.shape().to_string() +
                                                       " is not supported (of rank 2, rows as variables, it is)");
  const std::int64_t n = x.shape().dims()[1];
  if (n == kUnknownDim) throw NotImplementedError(c.where + ": corrcoef needs the number of observations (axis 1)");
  const Output centred = ops::sub(x, ops::reduce_mean(x, {1}, true));
  const auto count = static_cast<float>(n - 1);
  const Output covariance = ops::div(
      ops::reduce_sum(ops::mul(ops::reshape(centred, {-1, 1, n}), ops::reshape(centred, {1, -1, n})), {2}, false),
      count);
  const Output deviation = ops::sqrt(ops::div(ops::reduce_sum(ops::square(centred), {1}, false), count));
  const Output scale = ops::mul(ops::reshape(deviation, {-1, 1}), ops::reshape(deviation, {1, -1}));
  return ops::clip(ops::div(covariance, scale), -1.0f, 1.0f);
}

// keras.ops.correlate(a, v, mode) of two vectors as Keras's TensorFlow backend computes it:
// tf.nn.conv1d of a, zero-padded by len(v) − 1 on both sides for 'full' and 'same', with v as
// the filter, out[k] = Σ_j a_padded[k + j] · v[j]: the padded a's frames of len(v) times v.
// 'same' keeps the middle max(n, m) of 'full', from (n + m − 1 − max(n, m)) / 2 on. A vector's
// one axis is a functional model's batch axis: Keras computes the lengths from the inputs'
// fixed batch size, and so does Strata. int32 vectors are cast to float32, as Keras's.
Output correlate(C c) {
  Output a = c.arg(0), v = c.arg(1);
  for (const Output& x : {a, v}) {
    if (rank_of(x) != 1) throw ValueError(c.where + ": expects two vectors, got " + x.shape().to_string());
    if (x.shape()[0] == kUnknownDim)
      throw ValueError(c.where + ": needs the vectors' lengths when the model is defined (inputs of a fixed batch "
                       "size, as Keras needs), got " + x.shape().to_string());
    if (x.dtype() != DType::float32 && x.dtype() != DType::int32)
      throw NotImplementedError(c.where + ": float32 and int32 vectors are supported, got " + to_string(x.dtype()));
  }
  a = ops::cast(a, DType::float32);
  v = ops::cast(v, DType::float32);
  const std::int64_t n = a.shape()[0], m = v.shape()[0];
  if (n == 0 || m == 0)
    throw ValueError(c.where + ": expects vectors of one element or more, got lengths " + std::to_string(n) +
                     " and " + std::to_string(m));
  const std::string mode = c.has("mode") ? c.text("mode") : "valid";
  if (mode != "full" && mode != "same" && mode != "valid")
    refuse(c, "mode", "'full', 'same' and 'valid' are the modes");
  if (mode == "valid" && m > n)
    throw ValueError(c.where + ": mode 'valid' needs v no longer than a (TensorFlow's conv1d fails), got " +
                     std::to_string(n) + " and " + std::to_string(m));
  const std::int64_t pad = mode == "valid" ? 0 : m - 1;
  const Output padded = pad == 0 ? a : ops::pad(a, {pad}, {pad});
  const Output windows = ops::frames(padded, m, 1);  // (n + 2 pad − m + 1, m)
  const Output full = ops::reshape(ops::matmul(windows, ops::reshape(v, {m, 1})), {windows.shape()[0]});
  if (mode != "same") return full;
  const std::int64_t keep = std::max(n, m), start = (n + m - 1 - keep) / 2;
  return slice(full, 0, start, start + keep);
}

}  // namespace

const std::map<std::string, OpFn>& product_ops() {
  static const std::map<std::string, OpFn> t = {
      {"Matmul", matmul}, {"Einsum", einsum_op}, {"Tensordot", tensordot}, {"Inner", inner}, {"Outer", outer},
      {"Dot", dot},       {"Kron", kron},     {"Corrcoef", corrcoef}, {"Correlate", correlate},
  };
  return t;
}

}  // namespace strata::layers::op_detail
