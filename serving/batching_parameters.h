// BatchingParameters: TensorFlow Serving's batching parameters, and a reader for its
// --batching_parameters_file. The Batcher (serving/batcher.h) runs with them.
#pragma once

#include <cstdint>
#include <string>

namespace strata::serving {

struct BatchingParameters {
  std::int64_t max_batch_size = 32;
  std::int64_t batch_timeout_micros = 1000;
  int num_batch_threads = 0;  // 0: one per hardware thread
  std::int64_t max_enqueued_batches = 100;
  bool operator==(const BatchingParameters&) const = default;
};

// Reads TensorFlow Serving's --batching_parameters_file (a text-format BatchingParameters
// message), e.g. "max_batch_size { value: 128 }\nbatch_timeout_micros { value: 0 }".
// Fields Strata does not use (allowed_batch_sizes, pad_variable_length_inputs, ...) are
// ignored; a malformed entry or an unknown field throws ValueError naming it.
BatchingParameters parse_batching_parameters(const std::string& text, BatchingParameters defaults = {});

}  // namespace strata::serving
