// The CPU's kernels, one file per op family (core/cpu/kernels/<family>.cc), each
// registering its kernels into the op table for the ops core/ops/<family> declares.
// Called by OpRegistry::global() after the op families, explicitly (not by static
// initializers), so that every op has its CPU kernel before anything runs.
#pragma once

namespace strata {
class OpRegistry;
}

namespace strata::cpu {

void register_source_kernels(OpRegistry& registry);
void register_elementwise_kernels(OpRegistry& registry);
void register_shape_kernels(OpRegistry& registry);
void register_reduce_kernels(OpRegistry& registry);
void register_matmul_kernels(OpRegistry& registry);
void register_nn_kernels(OpRegistry& registry);
void register_update_kernels(OpRegistry& registry);
void register_optimizer_update_kernels(OpRegistry& registry);
void register_rnn_kernels(OpRegistry& registry);
void register_sequence_kernels(OpRegistry& registry);
void register_conv_kernels(OpRegistry& registry);
void register_conv3d_kernels(OpRegistry& registry);
void register_pool_kernels(OpRegistry& registry);
void register_array_kernels(OpRegistry& registry);
void register_batch_matmul_kernels(OpRegistry& registry);
void register_causal_mask_kernels(OpRegistry& registry);
void register_one_hot_kernels(OpRegistry& registry);
void register_lookup_kernels(OpRegistry& registry);
void register_hash_kernels(OpRegistry& registry);
void register_text_kernels(OpRegistry& registry);
void register_collective_kernels(OpRegistry& registry);
void register_batch_norm_kernels(OpRegistry& registry);
void register_layer_norm_kernels(OpRegistry& registry);
void register_scan_kernels(OpRegistry& registry);
void register_random_kernels(OpRegistry& registry);
void register_image_kernels(OpRegistry& registry);
void register_spectral_kernels(OpRegistry& registry);
void register_linalg_kernels(OpRegistry& registry);
void register_matrix_decomposition_kernels(OpRegistry& registry);
void register_eig_kernel(OpRegistry& registry);
void register_resize_kernels(OpRegistry& registry);
void register_ctc_kernels(OpRegistry& registry);
void register_ctc_beam_search_kernel(OpRegistry& registry);
void register_data_sized_kernels(OpRegistry& registry);
void register_scatter_update_kernels(OpRegistry& registry);
void register_batch_split_kernel(OpRegistry& registry);
void register_diag_kernels(OpRegistry& registry);
void register_map_coordinates_kernels(OpRegistry& registry);
void register_conv_lstm_kernels(OpRegistry& registry);

inline void register_kernels(OpRegistry& registry) {
  register_source_kernels(registry);
  register_elementwise_kernels(registry);
  register_shape_kernels(registry);
  register_reduce_kernels(registry);
  register_matmul_kernels(registry);
  register_nn_kernels(registry);
  register_update_kernels(registry);
  register_optimizer_update_kernels(registry);
  register_rnn_kernels(registry);
  register_sequence_kernels(registry);
  register_conv_kernels(registry);
  register_conv3d_kernels(registry);
  register_pool_kernels(registry);
  register_array_kernels(registry);
  register_batch_matmul_kernels(registry);
  register_causal_mask_kernels(registry);
  register_one_hot_kernels(registry);
  register_lookup_kernels(registry);
  register_hash_kernels(registry);
  register_text_kernels(registry);
  register_collective_kernels(registry);
  register_batch_norm_kernels(registry);
  register_layer_norm_kernels(registry);
  register_scan_kernels(registry);
  register_random_kernels(registry);
  register_image_kernels(registry);
  register_spectral_kernels(registry);
  register_linalg_kernels(registry);
  register_matrix_decomposition_kernels(registry);
  register_eig_kernel(registry);
  register_resize_kernels(registry);
  register_ctc_kernels(registry);
  register_ctc_beam_search_kernel(registry);
  register_data_sized_kernels(registry);
  register_scatter_update_kernels(registry);
  register_batch_split_kernel(registry);
  register_diag_kernels(registry);
  register_map_coordinates_kernels(registry);
  register_conv_lstm_kernels(registry);
}

}  // namespace strata::cpu
