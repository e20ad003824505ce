// Op families register themselves through these functions (see OpRegistry::global).
#pragma once

namespace strata {
class OpRegistry;
}

namespace strata::ops {

void register_source_ops(OpRegistry& registry);
void register_elementwise_ops(OpRegistry& registry);
void register_shape_ops(OpRegistry& registry);
void register_reduce_ops(OpRegistry& registry);
void register_matmul_ops(OpRegistry& registry);
void register_nn_ops(OpRegistry& registry);
void register_update_ops(OpRegistry& registry);
void register_optimizer_update_ops(OpRegistry& registry);
void register_rnn_ops(OpRegistry& registry);
void register_sequence_ops(OpRegistry& registry);
void register_conv_ops(OpRegistry& registry);
void register_pool_ops(OpRegistry& registry);
void register_array_ops(OpRegistry& registry);
void register_batch_matmul_ops(OpRegistry& registry);
void register_causal_mask_ops(OpRegistry& registry);
void register_one_hot_ops(OpRegistry& registry);
void register_lookup_ops(OpRegistry& registry);
void register_hash_ops(OpRegistry& registry);
void register_text_ops(OpRegistry& registry);
void register_collective_ops(OpRegistry& registry);
void register_batch_norm_ops(OpRegistry& registry);
void register_layer_norm_ops(OpRegistry& registry);
void register_scan_ops(OpRegistry& registry);
void register_random_ops(OpRegistry& registry);
void register_image_ops(OpRegistry& registry);
void register_spectral_ops(OpRegistry& registry);
void register_linalg_ops(OpRegistry& registry);
void register_matrix_decomposition_ops(OpRegistry& registry);
void register_resize_ops(OpRegistry& registry);
void register_ctc_ops(OpRegistry& registry);
void register_data_sized_ops(OpRegistry& registry);
void register_scatter_update_ops(OpRegistry& registry);
void register_batch_split_ops(OpRegistry& registry);
void register_diag_ops(OpRegistry& registry);
void register_map_coordinates_ops(OpRegistry& registry);
void register_conv_lstm_ops(OpRegistry& registry);

inline void register_all(OpRegistry& registry) {
  register_source_ops(registry);
  register_elementwise_ops(registry);
  register_shape_ops(registry);
  register_reduce_ops(registry);
  register_matmul_ops(registry);
  register_nn_ops(registry);
  register_update_ops(registry);
  register_optimizer_update_ops(registry);
  register_rnn_ops(registry);
  register_sequence_ops(registry);
  register_conv_ops(registry);
  register_pool_ops(registry);
  register_array_ops(registry);
  register_batch_matmul_ops(registry);
  register_causal_mask_ops(registry);
  register_one_hot_ops(registry);
  register_lookup_ops(registry);
  register_hash_ops(registry);
  register_text_ops(registry);
  register_collective_ops(registry);
  register_batch_norm_ops(registry);
  register_layer_norm_ops(registry);
  register_scan_ops(registry);
  register_random_ops(registry);
  register_image_ops(registry);
  register_spectral_ops(registry);
  register_linalg_ops(registry);
  register_matrix_decomposition_ops(registry);
  register_resize_ops(registry);
  register_ctc_ops(registry);
  register_data_sized_ops(registry);
  register_scatter_update_ops(registry);
  register_batch_split_ops(registry);
  register_diag_ops(registry);
  register_map_coordinates_ops(registry);
  register_conv_lstm_ops(registry);
}

}  // namespace strata::ops
