// How each array op's CUDA kernel moves its elements: as strided copies (StridedCopy,
// core/cuda/array_launch.h), described here from the tensors' shapes and the node's
// attributes, for core/cuda/array_kernels.cc to enqueue. Plain C++ without CUDA, so that
// tests/core/cuda_array_plan_test.cc walks these descriptions on the host, in every
// build, against the CPU kernels (what runs on a GPU is then only the walk itself).
// Nothing here allocates: a plan has fixed capacity, and a steady-state step stays
// allocation-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda/array_launch.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/shape.h"

namespace strata::cuda {

// One strided copy, built from the innermost dim of the box outwards. A dim of size 1 is
// dropped (its index is always 0), and a dim that continues the one inside it in both
// tensors is merged into it: a crop of rows, a concatenation along the first axis or a
// bias broadcast over rows shrink to a dim or two, so each GPU thread does less index
// arithmetic, and a box that is one contiguous run is a plain copy. Only what remains
// after merging must fit the launcher's kMaxLaunchRank dims.
class CopyPlan {
 public:
  // The next dim outwards: its size and the strides of its index in both tensors. False
  // when it would be one dim more than the launcher walks (the plan is then unusable).
  [[nodiscard]] bool add_outer(std::int64_t size, std::int64_t in_stride, std::int64_t out_stride) {
    if (size == 1) return true;
    if (size == 0) {  // nothing moves
      empty_ = true;
      return true;
    }
    if (rank_ > 0 && in_stride == in_[rank_ - 1] * dims_[rank_ - 1] &&
        out_stride == out_[rank_ - 1] * dims_[rank_ - 1]) {
      dims_[rank_ - 1] *= size;
      return true;
    }
    if (rank_ == kMaxLaunchRank) return false;
    dims_[rank_] = size;
    in_[rank_] = in_stride;
    out_[rank_] = out_stride;
    ++rank_;
    return true;
  }
  void set_offsets(std::int64_t in_offset, std::int64_t out_offset) {
    in_offset_ = in_offset;
    out_offset_ = out_offset;
  }

  bool empty() const { return empty_; }
  // One contiguous run in both tensors (a single element included): a plain copy.
  bool contiguous() const { return rank_ == 0 || (rank_ == 1 && in_[0] == 1 && out_[0] == 1); }
  // The strided dims left after merging.
  int rank() const { return rank_; }
  std::int64_t count() const {
    if (empty_) return 0;
    std::int64_t n = 1;
    for (int d = 0; d < rank_; ++d) n *= dims_[d];
    return n;
  }
  std::int64_t in_offset() const { return in_offset_; }
  std::int64_t out_offset() const { return out_offset_; }

  // The launcher's description: dims outermost first.
  StridedCopy copy() const {
    StridedCopy c;
    c.rank = rank_;
    for (int d = 0; d < rank_; ++d) {
      c.dims[d] = dims_[rank_ - 1 - d];
      c.in_strides[d] = in_[rank_ - 1 - d];
      c.out_strides[d] = out_[rank_ - 1 - d];
    }
    c.in_offset = in_offset_;
    c.out_offset = out_offset_;
    return c;
  }

 private:
  // Innermost first, as added.
  std::int64_t dims_[kMaxLaunchRank] = {};
  std::int64_t in_[kMaxLaunchRank] = {};
  std::int64_t out_[kMaxLaunchRank] = {};
  int rank_ = 0;
  bool empty_ = false;
  std::int64_t in_offset_ = 0, out_offset_ = 0;
};

namespace array_plan_detail {

// The row-major stride of dim d of `shape`, in elements.
inline std::int64_t stride_of(const Shape& shape, int d) { return shape.product(d + 1, shape.rank()); }

[[noreturn]] inline void throw_too_many_dims(const Node& node, const Shape& moved) {
  throw ShapeError("CUDA kernel of op '" + node.op + "' (node '" + node.name + "'): moving the elements of " +
                   moved.to_string() + " takes more than " + std::to_string(kMaxLaunchRank) +
                   " strided dims after merging the contiguous ones, more than the CUDA kernel walks; run this op "
                   "on the CPU");
}

inline void add_outer(CopyPlan& plan, const Node& node, const Shape& moved, std::int64_t size, std::int64_t in_stride,
                      std::int64_t out_stride) {
  if (!plan.add_outer(size, in_stride, out_stride)) throw_too_many_dims(node, moved);
}

}  // namespace array_plan_detail

// broadcast_like: every output element reads x at its index, 0 along the dims x
// broadcasts over (those x lacks or has as 1), as the CPU's broadcast_into.
inline CopyPlan plan_broadcast(const Node& node, const Shape& x, const Shape& out) {
  using namespace array_plan_detail;
  CopyPlan plan;
  const int lead = out.rank() - x.rank();
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int xd = d - lead;
    const bool broadcast = xd < 0 || x.dims()[static_cast<std::size_t>(xd)] == 1;
    add_outer(plan, node, out, out.dims()[static_cast<std::size_t>(d)], broadcast ? 0 : stride_of(x, xd),
              stride_of(out, d));
  }
  return plan;
}

// transpose: output dim d walks x's dim perm[d].
inline CopyPlan plan_transpose(const Node& node, const Shape& x, const Shape& y, const std::vector<std::int64_t>& perm) {
  using namespace array_plan_detail;
  CopyPlan plan;
  for (int d = y.rank() - 1; d >= 0; --d) {
    add_outer(plan, node, x, y.dims()[static_cast<std::size_t>(d)],
              stride_of(x, static_cast<int>(perm[static_cast<std::size_t>(d)])), stride_of(y, d));
  }
  return plan;
}

// pad: x copied to the box of y that starts `before` elements into each dim (the rest of
// y is zeroed apart).
inline CopyPlan plan_pad(const Node& node, const Shape& x, const Shape& y, const std::vector<std::int64_t>& before) {
  using namespace array_plan_detail;
  CopyPlan plan;
  std::int64_t out_offset = 0;
  for (int d = x.rank() - 1; d >= 0; --d) {
    const std::int64_t out_stride = stride_of(y, d);
    add_outer(plan, node, x, x.dims()[static_cast<std::size_t>(d)], stride_of(x, d), out_stride);
    out_offset += before[static_cast<std::size_t>(d)] * out_stride;
  }
  plan.set_offsets(0, out_offset);
  return plan;
}

// crop: y is the box of x that starts `before` elements into each dim.
inline CopyPlan plan_crop(const Node& node, const Shape& x, const Shape& y, const std::vector<std::int64_t>& before) {
  using namespace array_plan_detail;
  CopyPlan plan;
  std::int64_t in_offset = 0;
  for (int d = y.rank() - 1; d >= 0; --d) {
    const std::int64_t in_stride = stride_of(x, d);
    add_outer(plan, node, y, y.dims()[static_cast<std::size_t>(d)], in_stride, stride_of(y, d));
    in_offset += before[static_cast<std::size_t>(d)] * in_stride;
  }
  plan.set_offsets(in_offset, 0);
  return plan;
}

// concat: one input x into the slab of y that starts at `slab_start` along `axis` (the
// inputs before it fill what comes before).
inline CopyPlan plan_concat_input(const Node& node, const Shape& x, const Shape& y, int axis, std::int64_t slab_start) {
  using namespace array_plan_detail;
  CopyPlan plan;
  for (int d = x.rank() - 1; d >= 0; --d) {
    add_outer(plan, node, x, x.dims()[static_cast<std::size_t>(d)], stride_of(x, d), stride_of(y, d));
  }
  plan.set_offsets(0, slab_start * stride_of(y, axis));
  return plan;
}

}  // namespace strata::cuda
