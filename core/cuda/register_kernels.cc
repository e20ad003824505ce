// The CUDA device's entries in the op table: each kernel file binds the ops its kernels
// serve (register_<family>_kernels at the end of core/cuda/<family>_kernels.cc, over the
// launchers of the *.cu files), and this file calls them all when libstrata is loaded,
// after the op families and the CPU kernels (register_device_kernels), as
// core/cpu/kernels/register.h does for the CPU. An op no file binds has no CUDA kernel,
// and compile refuses a CUDA program that needs it, by name.
#include "core/cuda/affine_transform_kernels.h"
#include "core/cuda/array_kernels.h"
#include "core/cuda/batch_matmul_kernels.h"
#include "core/cuda/batch_norm_kernels.h"
#include "core/cuda/clahe_kernels.h"
#include "core/cuda/collective_kernels.h"
#include "core/cuda/dropout_kernels.h"
#include "core/cuda/elementwise_kernels.h"
#include "core/cuda/embedding_kernels.h"
#include "core/cuda/indicator_kernels.h"
#include "core/cuda/linalg_kernels.h"
#include "core/cuda/matmul_kernels.h"
#include "core/cuda/pick_kernels.h"
#include "core/cuda/pool_kernels.h"
#include "core/cuda/random_normal_kernels.h"
#include "core/cuda/random_uniform_kernels.h"
#include "core/cuda/reduce_kernels.h"
#include "core/cuda/resize_kernels.h"
#include "core/cuda/rnn_kernels.h"
#include "core/cuda/scan_kernels.h"
#include "core/cuda/sequence_kernels.h"
#include "core/cuda/softmax_kernels.h"
#include "core/cuda/spectral_kernels.h"
#include "core/cuda/sources_kernels.h"
#include "core/cuda/update_kernels.h"
#include "core/cuda/upsample_kernels.h"
#include "core/op_registry.h"
#ifdef STRATA_WITH_CUDNN
#include "core/cuda/conv_kernels.h"
#endif

namespace strata::cuda {

namespace {

void register_kernels(OpRegistry& r) {
  register_source_kernels(r);
  register_batch_norm_kernels(r);
  register_elementwise_kernels(r);
  register_array_kernels(r);
  register_reduce_kernels(r);
  register_matmul_kernels(r);
  register_softmax_kernels(r);
  register_pick_kernels(r);
  register_dropout_kernels(r);
  register_random_normal_kernels(r);
  register_random_uniform_kernels(r);
  register_affine_transform_kernels(r);
  register_clahe_kernels(r);
  register_update_kernels(r);
  register_rnn_kernels(r);
  register_sequence_kernels(r);
  register_embedding_kernels(r);
  // Convolutions are written on cuDNN: a CUDA build that did not find it has none, and
  // compile refuses a CUDA program with a convolution by name.
#ifdef STRATA_WITH_CUDNN
  register_conv_kernels(r);
#endif
  register_pool_kernels(r);
  register_upsample_kernels(r);
  register_batch_matmul_kernels(r);
  register_indicator_kernels(r);
  register_scan_kernels(r);
  register_collective_kernels(r);
  register_spectral_kernels(r);
  register_linalg_kernels(r);
  register_resize_kernels(r);
}

// libstrata is a shared library whose every object is linked in, so this initializer
// runs whenever the library is loaded.
const bool register_kernels_registered = register_device_kernels(register_kernels);

}  // namespace

}  // namespace strata::cuda
