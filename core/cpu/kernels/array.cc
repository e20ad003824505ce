// The CPU kernels of the array ops (core/ops/array_ops.cc). pad/crop/concat copy boxes of
// contiguous innermost runs; transpose walks the output with an incremental index; the
// reshapes of some axes copy their input.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/cpu/kernels/copy_input.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cpu {

namespace {

using Dims = std::vector<std::int64_t>;

std::vector<std::int64_t> strides_of(const Dims& d) {
  std::vector<std::int64_t> s(d.size(), 1);
  for (int i = static_cast<int>(d.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * d[i + 1];
  return s;
}

// Copies the box `box` from src (dims sd, starting at so) to dst (dims dd, starting at
// do_), elements of `element` bytes (any dtype).
void copy_box(const char* src, const Dims& sd, const Dims& so, char* dst, const Dims& dd, const Dims& do_,
              const Dims& box, std::size_t element) {
  const int rank = static_cast<int>(box.size());
  if (rank == 0) {
    std::memcpy(dst, src, element);
    return;
  }
  for (auto b : box) {
    if (b == 0) return;
  }
  auto ss = strides_of(sd), ds = strides_of(dd);
  const std::int64_t inner = box[rank - 1];
  std::int64_t outer = 1;
  for (int i = 0; i < rank - 1; ++i) outer *= box[i];
  cpu::parallel_for(outer, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      std::int64_t rem = r, soff = so[rank - 1], doff = do_[rank - 1];
      for (int i = rank - 2; i >= 0; --i) {
        std::int64_t idx = rem % box[i];
        rem /= box[i];
        soff += (idx + so[i]) * ss[i];
        doff += (idx + do_[i]) * ds[i];
      }
      std::memcpy(dst + static_cast<std::size_t>(doff) * element, src + static_cast<std::size_t>(soff) * element,
                  static_cast<std::size_t>(inner) * element);
    }
  }, std::max<std::int64_t>(1, cpu::kParallelThreshold / std::max<std::int64_t>(1, inner)));
}

void pad_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  std::fill_n(y.data<float>(), y.size(), 0.f);
  copy_box(static_cast<const char*>(x.raw_data()), x.shape().dims(), Dims(x.rank(), 0),
           static_cast<char*>(y.raw_data()), y.shape().dims(), ctx.node.attrs.get<Dims>("before"), x.shape().dims(),
           sizeof(float));
}

// Any dtype (eager slicing of labels).
void crop_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  copy_box(static_cast<const char*>(x.raw_data()), x.shape().dims(), ctx.node.attrs.get<Dims>("before"),
           static_cast<char*>(y.raw_data()), y.shape().dims(), Dims(y.rank(), 0), y.shape().dims(),
           size_of(x.dtype()));
}

void transpose_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const Dims& perm = ctx.node.attrs.get<Dims>("perm");
  const int rank = x.rank();
  auto xs = strides_of(x.shape().dims());
  Dims in_stride(rank);  // x's stride for each output axis
  for (int i = 0; i < rank; ++i) in_stride[i] = xs[perm[i]];
  const Dims& od = y.shape().dims();
  const float* px = x.data<float>();
  float* py = y.data<float>();
  if (rank > 1 && perm[rank - 1] == rank - 1) {
    // The last axis stays last (attention's head split and merge): copy whole rows,
    // walking the output's other axes.
    const std::int64_t row = od[rank - 1];
    const int outer_rank = rank - 1;
    cpu::parallel_for(row ? y.size() / row : 0, [&](std::int64_t b, std::int64_t e) {
      Dims idx(outer_rank, 0);
      std::int64_t rem = b, off = 0;
      for (int i = outer_rank - 1; i >= 0; --i) {
        idx[i] = rem % od[i];
        rem /= od[i];
        off += idx[i] * in_stride[i];
      }
      for (std::int64_t r = b; r < e; ++r) {
        std::copy_n(px + off, row, py + r * row);
        for (int i = outer_rank - 1; i >= 0; --i) {
          off += in_stride[i];
          if (++idx[i] < od[i]) break;
          off -= in_stride[i] * od[i];
          idx[i] = 0;
        }
      }
    }, cpu::threshold_for(row));
    return;
  }
  cpu::parallel_for(y.size(), [&](std::int64_t b, std::int64_t e) {
    Dims idx(rank, 0);
    std::int64_t rem = b, off = 0;
    for (int i = rank - 1; i >= 0; --i) {
      idx[i] = rem % od[i];
      rem /= od[i];
      off += idx[i] * in_stride[i];
    }
    for (std::int64_t k = b; k < e; ++k) {
      py[k] = px[off];
      for (int i = rank - 1; i >= 0; --i) {  // increment the output index
        off += in_stride[i];
        if (++idx[i] < od[i]) break;
        off -= in_stride[i] * od[i];
        idx[i] = 0;
      }
    }
  });
}

// Any dtype (eager joining of labels).
void concat_kernel(KernelContext& ctx) {
  Tensor& y = ctx.output(0);
  const int axis = y.shape().normalize_axis(static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis")));
  Dims offset(y.rank(), 0);
  for (const Tensor* x : ctx.inputs) {
    copy_box(static_cast<const char*>(x->raw_data()), x->shape().dims(), Dims(x->rank(), 0),
             static_cast<char*>(y.raw_data()), y.shape().dims(), offset, x->shape().dims(), size_of(x->dtype()));
    offset[axis] += x->shape().dims()[axis];
  }
}

void training_select_kernel(KernelContext& ctx) {
  const Tensor& src = ctx.input(ctx.training ? 0 : 1);
  std::memcpy(ctx.output(0).raw_data(), src.raw_data(), src.nbytes());
}

}  // namespace

void register_array_kernels(OpRegistry& r) {
  r.add_kernel("split_axis", DeviceType::cpu, {.run = copy_input_kernel});
  r.add_kernel("merge_axes", DeviceType::cpu, {.run = copy_input_kernel});
  r.add_kernel("expand_dims", DeviceType::cpu, {.run = copy_input_kernel});
  r.add_kernel("pad", DeviceType::cpu, {.run = pad_kernel});
  r.add_kernel("crop", DeviceType::cpu, {.run = crop_kernel});
  r.add_kernel("transpose", DeviceType::cpu, {.run = transpose_kernel});
  r.add_kernel("concat", DeviceType::cpu, {.run = concat_kernel});
  r.add_kernel("training_select", DeviceType::cpu, {.run = training_select_kernel});
}

}  // namespace strata::cpu
